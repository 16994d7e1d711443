//! Scores every transition of a segmented document with one scorer.
//!
//! Sentence transitions are scored inside each paragraph (the sentence table is prepared over all
//! sentences of the document, so document-wide statistics such as entity salience see everything);
//! paragraph transitions are scored inside each section. The scorer learns these containers
//! ([`sentence_containers`], [`paragraph_containers`], through [`Scorer::prepare_in`]): one whose
//! transitions are relative to their set, such as the ordering model's, scores each container as a
//! set of its own.

use super::back_matter::back_matter_sections;
use super::cues::{asks, explicit_link, Cue, Link};
use super::novelty::novelty;
use super::rule_runs::Short;
use super::{Level, Reason, Scorer, Unit};
use crate::text::{Document, Ending, Span};
use std::ops::Range;

/// Where a unit sits in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnitRef {
    /// Index of the section.
    pub section: usize,
    /// Index of the paragraph within the section.
    pub paragraph: usize,
    /// Index of the sentence within the paragraph (`None` for a paragraph unit).
    pub sentence: Option<usize>,
    /// Source span of the unit.
    pub span: Span,
}

/// One scored transition between adjacent units.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    /// Sentence or paragraph level.
    pub level: Level,
    /// The earlier unit.
    pub from: UnitRef,
    /// The later unit.
    pub to: UnitRef,
    /// Score in [0, 1]; higher is more coherent.
    pub score: f64,
    /// Why it scored so.
    pub reason: Reason,
    /// Whether a disable comment covers the later unit.
    pub disabled: bool,
    /// The score of `from` → the unit after `to`, as if `to` were left out; `None` when `to` is the
    /// last unit of its paragraph (sentences) or section (paragraphs). A unit that interrupts the
    /// flow scores low on both sides while its neighbours score well together.
    pub skip: Option<f64>,
    /// How likely `to` does not belong where it stands, from the scorer's intrusion model
    /// ([`super::Pairwise::intrusion`]); `None` when the scorer has none. When set, findings flag
    /// `to` by it instead of by the fixed interruption rule.
    pub intrusion: Option<f64>,
    /// The explicit link with which `to` opens (a connective, an anaphor, a demonstrative:
    /// [`explicit_link`]), if any: the writer marked how it follows on.
    pub link: Option<Link>,
    /// The novelty of `to` ([`super::novelty`]): the share of its content words that no other
    /// unit of the document uses; `None` for units too short to tell.
    pub novelty: Option<f64>,
}

/// All transitions of a document under one scorer.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The scorer's name.
    pub scorer: &'static str,
    /// The scorer's tier.
    pub tier: u8,
    /// Sentence → sentence transitions within paragraphs, in document order.
    pub sentences: Vec<Transition>,
    /// Paragraph → paragraph transitions within sections, in document order.
    pub paragraphs: Vec<Transition>,
    /// The scorer's own score of the document's order at each level (sentences of the whole
    /// document, then paragraphs), when it has one ([`super::Pairwise::order_score`]).
    pub whole: Vec<(Level, f64)>,
    /// Document-level figures from the scorer, per level (e.g. BBScore's `B`).
    pub figures: Vec<(Level, &'static str, f64)>,
    /// The sections' openings: each first paragraph after a heading, judged against the heading
    /// and the rest of its section ([`super::opening`]).
    pub openings: Vec<super::opening::Opening>,
}

impl Analysis {
    /// Transitions at `level`.
    pub fn at(&self, level: Level) -> &[Transition] {
        match level {
            Level::Sentence => &self.sentences,
            Level::Paragraph => &self.paragraphs,
        }
    }

    /// The document's coherence: the mean of the scorer's whole-order scores when it has them,
    /// else the mean of all transition scores (1 when there are none).
    pub fn document_score(&self) -> f64 {
        if !self.whole.is_empty() {
            return self.whole.iter().map(|(_, s)| s).sum::<f64>() / self.whole.len() as f64;
        }
        let all: Vec<f64> = self
            .sentences
            .iter()
            .chain(&self.paragraphs)
            .map(|t| t.score)
            .collect();
        if all.is_empty() {
            1.0
        } else {
            all.iter().sum::<f64>() / all.len() as f64
        }
    }

    /// Median transition score at `level`, if there is any transition.
    pub fn median(&self, level: Level) -> Option<f64> {
        median(&self.at(level).iter().map(|t| t.score).collect::<Vec<_>>())
    }
}

/// The median of `values` (mean of the middle two for even lengths).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

/// The "skip" pairs of a list of adjacent pairs: `(a, c)` for every two consecutive pairs
/// `(a, b)`, `(b, c)`, keyed by the index of the first pair.
pub fn skip_pairs(pairs: &[(usize, usize)]) -> Vec<(usize, (usize, usize))> {
    pairs
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0].1 == w[1].0)
        .map(|(k, w)| (k, (w[0].0, w[1].1)))
        .collect()
}

/// Every sentence of the document in order, with whether a disable comment covers it, and its
/// text as a unit.
pub fn sentence_units(doc: &Document) -> (Vec<(UnitRef, bool)>, Vec<Unit<'_>>) {
    let mut refs = Vec::new();
    let mut units = Vec::new();
    for (si, section) in doc.sections.iter().enumerate() {
        for (pi, para) in section.paragraphs.iter().enumerate() {
            for (ti, sentence) in para.sentences.iter().enumerate() {
                refs.push((
                    UnitRef {
                        section: si,
                        paragraph: pi,
                        sentence: Some(ti),
                        span: sentence.span,
                    },
                    para.disabled,
                ));
                units.push(vec![sentence.text.as_str()]);
            }
        }
    }
    (refs, units)
}

/// Every paragraph of the document in order, with whether a disable comment covers it, and its
/// sentences as a unit.
pub fn paragraph_units(doc: &Document) -> (Vec<(UnitRef, bool)>, Vec<Unit<'_>>) {
    let mut refs = Vec::new();
    let mut units = Vec::new();
    for (si, section) in doc.sections.iter().enumerate() {
        for (pi, para) in section.paragraphs.iter().enumerate() {
            refs.push((
                UnitRef {
                    section: si,
                    paragraph: pi,
                    sentence: None,
                    span: para.span,
                },
                para.disabled,
            ));
            units.push(para.sentences.iter().map(|s| s.text.as_str()).collect());
        }
    }
    (refs, units)
}

/// The sentence level's containers, as ranges of indices into [`sentence_units`]: each
/// paragraph's own sentences (not those of a list or quote attached to it), the units
/// [`crate::order::reorder`] reorders and the only ones between which [`sentence_pairs`] judges
/// transitions.
pub fn sentence_containers(doc: &Document) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for para in doc.sections.iter().flat_map(|s| &s.paragraphs) {
        let own = para.own_sentences.min(para.sentences.len());
        out.push(start..start + own);
        start += para.sentences.len();
    }
    out
}

/// The paragraph level's containers, as ranges of indices into [`paragraph_units`]: each
/// section's paragraphs, the units [`crate::order::reorder`] reorders and the only ones between
/// which [`paragraph_pairs`] judges transitions.
pub fn paragraph_containers(doc: &Document) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for section in &doc.sections {
        out.push(start..start + section.paragraphs.len());
        start += section.paragraphs.len();
    }
    out
}

/// The adjacent pairs `(i - 1, i)` of `refs` whose units `same` puts in one container.
pub fn adjacent(
    refs: &[(UnitRef, bool)],
    same: impl Fn(&UnitRef, &UnitRef) -> bool,
) -> Vec<(usize, usize)> {
    (1..refs.len())
        .filter(|&i| same(&refs[i - 1].0, &refs[i].0))
        .map(|i| (i - 1, i))
        .collect()
}

/// The explicit link with which a unit opens (its first sentence's), if any; else, when the unit
/// before it (`before`) ends with a question ([`asks`]), the link of an answer to it; else, when
/// the unit opens with a question, the turn that question marks.
pub fn unit_link(before: Option<&Unit<'_>>, unit: &Unit<'_>) -> Option<Link> {
    let question = |cue| Link {
        cue,
        words: "?".to_string(),
    };
    unit.first()
        .and_then(|s| explicit_link(s))
        .map(|(cue, words)| Link { cue, words })
        .or_else(|| {
            before?.last().filter(|s| asks(s))?;
            Some(question(Cue::Answer))
        })
        .or_else(|| {
            unit.first()
                .filter(|s| asks(s))
                .map(|_| question(Cue::Question))
        })
}

/// The sentence transitions Segue judges, as pairs of indices into `refs` (from
/// [`sentence_units`]): adjacent sentences of a paragraph's own running prose. List items and
/// quotes attached to a paragraph are structure, not prose transitions, and a sentence that does
/// not end as a sentence does (a lead-in ending in a colon, a heading-like line, a sentence a
/// block cuts in two) neither leads into nor follows a judged transition, nor does a sentence
/// that points ahead ([`AHEAD`]) in a paragraph right before a block; nor do sentences inside
/// a run that open alike ([`super::parallel`]), nor sentences of back matter
/// ([`super::back_matter`]: sponsors, credits, a licence).
pub fn sentence_pairs(doc: &Document, refs: &[(UnitRef, bool)]) -> Vec<(usize, usize)> {
    let back = back_matter_sections(doc);
    let complete = |r: &UnitRef| {
        if back.get(r.section).copied().unwrap_or(false) {
            return false;
        }
        let Some(para) = doc
            .sections
            .get(r.section)
            .and_then(|s| s.paragraphs.get(r.paragraph))
        else {
            return false;
        };
        let before_block = doc
            .sections
            .get(r.section)
            .and_then(|s| s.paragraphs.get(r.paragraph + 1))
            .is_some_and(|next| next.after_block);
        r.sentence.is_some_and(|i| {
            !para.list
                && i < para.own_sentences
                && para.sentences.get(i).is_some_and(|s| {
                    s.ending() == Ending::Complete && !(before_block && points_ahead(&s.text))
                })
        })
    };
    let pairs = adjacent(refs, |a, b| {
        a.section == b.section && a.paragraph == b.paragraph && complete(a) && complete(b)
    });
    super::parallel::without_runs(pairs, |i| {
        let r = &refs.get(i)?.0;
        let sentence = doc
            .sections
            .get(r.section)?
            .paragraphs
            .get(r.paragraph)?
            .sentences
            .get(r.sentence?)?;
        super::parallel::opening(&sentence.text)
    })
}

/// Phrases with which a sentence points ahead to what follows it ("Consider the situation shown
/// *below*", "*the following* command may do the trick"): in a paragraph right before a code
/// block or a table, such a sentence introduces the block, as a lead-in ending in a colon does.
const AHEAD: &[&str] = &["below", "the following", "as follows"];

/// Whether `sentence` points ahead with one of [`AHEAD`], as whole words.
fn points_ahead(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    AHEAD.iter().any(|phrase| {
        lower.match_indices(phrase).any(|(k, m)| {
            let before = lower[..k].chars().next_back();
            let after = lower[k + m.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    })
}

/// The paragraph transitions Segue judges, as pairs of indices into `refs` (from
/// [`paragraph_units`]): adjacent paragraphs of a section, unless either is a list or ends in a
/// lead-in or an unfinished line (the block or the list it introduces carries the link), or a
/// skipped block (code, a table) stands between them, or both are inside a run of paragraphs
/// that open alike ([`super::parallel`]: the items of an implicit list) or of short paragraphs
/// most of which give a rule ([`super::rule_runs`]: a style guide's one-line rules), or the later
/// one opens with an instruction after the earlier one gave one ([`super::instruction`]: the next
/// item of a series of instructions), or the section is back matter ([`super::back_matter`]), or
/// the later one opens by thanking someone (acknowledgements in the running text,
/// [`super::back_matter::thanks`]).
pub fn paragraph_pairs(doc: &Document, refs: &[(UnitRef, bool)]) -> Vec<(usize, usize)> {
    let back = back_matter_sections(doc);
    let para = |r: &UnitRef| {
        doc.sections
            .get(r.section)
            .and_then(|s| s.paragraphs.get(r.paragraph))
    };
    let pairs = adjacent(refs, |a, b| {
        let (Some(from), Some(to)) = (para(a), para(b)) else {
            return false;
        };
        let complete = |p: &crate::text::Paragraph| {
            p.sentences
                .last()
                .is_some_and(|s| s.ending() == Ending::Complete)
        };
        a.section == b.section
            && !back.get(a.section).copied().unwrap_or(false)
            && !from.list
            && !to.list
            && !to.after_block
            && complete(from)
            && complete(to)
            && !next_instruction(from, to)
            && !to
                .sentences
                .first()
                .is_some_and(|s| super::back_matter::thanks(&s.text))
    });
    let pairs = super::parallel::without_runs(pairs, |i| {
        let first = para(&refs.get(i)?.0)?.sentences.first()?;
        super::parallel::opening(&first.text)
    });
    super::rule_runs::without_rule_runs(pairs, |i| {
        refs.get(i).and_then(|r| para(&r.0)).map_or(Short::No, |p| {
            let own: Vec<&str> = p
                .sentences
                .iter()
                .take(p.own_sentences)
                .map(|s| s.text.as_str())
                .collect();
            Short::of(&own)
        })
    })
}

/// Whether `to` opens with an instruction after `from` gave one: the next item of a series of
/// instructions ([`super::instruction`]), which need not follow from the one before.
fn next_instruction(from: &crate::text::Paragraph, to: &crate::text::Paragraph) -> bool {
    use super::instruction::instructs;
    to.sentences.first().is_some_and(|s| instructs(&s.text))
        && from
            .sentences
            .iter()
            .take(from.own_sentences)
            .any(|s| instructs(&s.text))
}

/// Scores every transition of `doc` with `scorer`.
pub fn analyze(doc: &Document, scorer: &dyn Scorer) -> Analysis {
    let mut whole = Vec::new();
    let mut figures = Vec::new();
    let sentences = sentence_transitions(doc, scorer, &mut whole, &mut figures);
    let paragraphs = paragraph_transitions(doc, scorer, &mut whole, &mut figures);
    Analysis {
        scorer: scorer.name(),
        tier: scorer.tier(),
        sentences,
        paragraphs,
        whole,
        figures,
        openings: super::opening::openings(doc),
    }
}

/// Whole-order scores per level ([`Analysis::whole`]).
pub type Whole = Vec<(Level, f64)>;
/// Document-level figures per level ([`Analysis::figures`]).
pub type Figures = Vec<(Level, &'static str, f64)>;

/// Records the scorer's whole-order score and figures of the units in document order.
pub fn document_level(
    table: &dyn super::Pairwise,
    level: Level,
    whole: &mut Whole,
    figures: &mut Figures,
) {
    if table.len() < 2 {
        return;
    }
    let identity: Vec<usize> = (0..table.len()).collect();
    if let Some(s) = table.order_score(&identity) {
        whole.push((level, s));
    }
    figures.extend(table.figures().into_iter().map(|(k, v)| (level, k, v)));
}

fn sentence_transitions(
    doc: &Document,
    scorer: &dyn Scorer,
    whole: &mut Whole,
    figures: &mut Figures,
) -> Vec<Transition> {
    let (refs, units) = sentence_units(doc);
    let table = scorer.prepare_in(&units, Level::Sentence, &sentence_containers(doc));
    document_level(table.as_ref(), Level::Sentence, whole, figures);
    let pairs = sentence_pairs(doc, &refs);
    scored(
        Level::Sentence,
        &refs,
        &units,
        &pairs,
        table.as_ref(),
        &doc.code,
    )
}

/// The transitions of `pairs` (indices into `refs`) scored from a prepared table, with skips.
fn scored(
    level: Level,
    refs: &[(UnitRef, bool)],
    units: &[Unit<'_>],
    pairs: &[(usize, usize)],
    table: &dyn super::Pairwise,
    code: &[String],
) -> Vec<Transition> {
    let intrusion = table.intrusion();
    let novelty = novelty(units, code);
    let mut out: Vec<Transition> = pairs
        .iter()
        .map(|&(a, b)| Transition {
            level,
            from: refs[a].0,
            to: refs[b].0,
            score: table.transition(a, b),
            reason: table.reason(a, b),
            disabled: refs[b].1,
            skip: None,
            intrusion: intrusion.as_ref().and_then(|v| v.get(b).copied().flatten()),
            link: units.get(b).and_then(|u| unit_link(units.get(a), u)),
            novelty: novelty.get(b).copied().flatten(),
        })
        .collect();
    for (k, (a, c)) in skip_pairs(pairs) {
        out[k].skip = Some(table.transition(a, c));
    }
    out
}

fn paragraph_transitions(
    doc: &Document,
    scorer: &dyn Scorer,
    whole: &mut Whole,
    figures: &mut Figures,
) -> Vec<Transition> {
    let (refs, units) = paragraph_units(doc);
    let table = scorer.prepare_in(&units, Level::Paragraph, &paragraph_containers(doc));
    document_level(table.as_ref(), Level::Paragraph, whole, figures);
    let pairs = paragraph_pairs(doc, &refs);
    scored(
        Level::Paragraph,
        &refs,
        &units,
        &pairs,
        table.as_ref(),
        &doc.code,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::lexical::Lexical;
    use crate::text::{parse, Format};

    /// The judged sentence transitions of `src`, as (from, to) source texts.
    fn judged_sentences(src: &str, format: Format) -> Vec<(String, String)> {
        let doc = parse(src, format);
        let (refs, _) = sentence_units(&doc);
        sentence_pairs(&doc, &refs)
            .into_iter()
            .map(|(a, b)| {
                (
                    refs[a].0.span.slice(src).to_string(),
                    refs[b].0.span.slice(src).to_string(),
                )
            })
            .collect()
    }

    fn judged_paragraphs(src: &str, format: Format) -> Vec<(String, String)> {
        let doc = parse(src, format);
        let (refs, _) = paragraph_units(&doc);
        paragraph_pairs(&doc, &refs)
            .into_iter()
            .map(|(a, b)| {
                let first = |i: usize| {
                    let s = refs[i].0.span.slice(src);
                    s.split('.').next().unwrap_or(s).to_string()
                };
                (first(a), first(b))
            })
            .collect()
    }

    #[test]
    fn list_items_are_not_prose_transitions() {
        // A changelog entry, as in a real README.
        let src = "## 2.1.0\n\nThis release fixes two bugs. It also adds a flag.\n\n- Fix the parser on empty input. (#7436)\n- Add `--quiet`. Thanks to @someone.\n";
        let judged = judged_sentences(src, Format::Markdown);
        assert_eq!(
            judged,
            vec![(
                "This release fixes two bugs.".to_string(),
                "It also adds a flag.".to_string()
            )]
        );
        // A list with no lead-in (a table of contents) is a paragraph of its own, never judged.
        let toc =
            "# Guide\n\n- Installation\n- Usage\n\nSegue reads Markdown. It reads LaTeX too.\n";
        assert!(judged_paragraphs(toc, Format::Markdown).is_empty());
    }

    #[test]
    fn a_block_lead_in_is_not_judged_for_the_break_the_block_causes() {
        let src = "# Routing\n\nFlask routes requests by URL. Would look like this instead:\n\n```python\n@app.route('/')\n```\n\nThe decorator registers the view. Views return responses.\n\nEach view gets its own URL.\n";
        // "Would look like this instead:" ends in a colon: nothing after it is judged against it.
        let sentences = judged_sentences(src, Format::Markdown);
        assert!(
            sentences.iter().all(|(a, _)| !a.ends_with(':')),
            "{sentences:?}"
        );
        // The paragraph after the code block is not judged against the lead-in; the next one is
        // judged against it.
        assert_eq!(
            judged_paragraphs(src, Format::Markdown),
            vec![(
                "The decorator registers the view".to_string(),
                "Each view gets its own URL".to_string()
            )]
        );
    }

    #[test]
    fn a_sentence_pointing_ahead_to_a_block_is_a_lead_in() {
        // debug's README: "shown below" introduces the code after the paragraph.
        let src = "# Browser\n\nDebug's state is persisted by `localStorage`. Consider the \
                   situation shown below where you have two workers. You enable it with a key. \
                   It is read at load.\n\n```js\nlocalStorage.debug = 'worker:*'\n```\n\n\
                   Then refresh the page. The rows below the table are sorted. Each row is a \
                   worker.\n";
        let judged = judged_sentences(src, Format::Markdown);
        assert_eq!(
            judged,
            vec![
                (
                    "You enable it with a key.".to_string(),
                    "It is read at load.".to_string()
                ),
                (
                    "Then refresh the page.".to_string(),
                    "The rows below the table are sorted.".to_string()
                ),
                (
                    "The rows below the table are sorted.".to_string(),
                    "Each row is a worker.".to_string()
                ),
            ]
        );
    }

    #[test]
    fn an_instruction_after_an_instruction_is_not_judged_against_it() {
        // The GNU Coding Standards: each paragraph is the next rule; the statement after them is
        // judged as usual.
        let src = "Don't include any symbolic links in the distribution itself.  People cannot \
                   unpack it on systems that lack them.\n\n\
                   Try to make sure that all the file names will be unique on MS-DOS.  A name \
                   on MS-DOS has up to 8 characters.\n\n\
                   If you make temporary files, check the 'TMPDIR' environment variable.\n\n\
                   The very worst thing is if you forget to tell us about the other \
                   contributor.\n";
        assert_eq!(
            judged_paragraphs(src, Format::Plain),
            vec![(
                "If you make temporary files, check the 'TMPDIR' environment variable".to_string(),
                "The very worst thing is if you forget to tell us about the other contributor"
                    .to_string()
            )]
        );
    }

    #[test]
    fn a_sentence_a_block_cuts_in_two_joins_its_continuation() {
        let src = "# Use\n\nCall the function as\n\n```\nf(x)\n```\n\nwhich returns the square of x. That is all.\n\nNext comes a new point.\n";
        let doc = parse(src, Format::Markdown);
        assert_eq!(doc.sections[0].paragraphs.len(), 2, "{doc:#?}");
        let first = &doc.sections[0].paragraphs[0];
        assert!(first.span.slice(src).contains("f(x)"));
        // The cut sentence is not judged against its continuation.
        let sentences = judged_sentences(src, Format::Markdown);
        assert_eq!(
            sentences,
            vec![(
                "which returns the square of x.".to_string(),
                "That is all.".to_string()
            )]
        );
    }

    #[test]
    fn explicit_links_are_recorded_on_transitions() {
        let src = "Validation happens on the server. In this case, start validating the input.\n";
        let doc = parse(src, Format::Plain);
        let a = analyze(&doc, &Lexical::plain());
        assert_eq!(a.sentences.len(), 1);
        assert!(a.sentences[0].link.is_some());
    }

    #[test]
    fn an_answer_to_the_question_before_it_is_linked() {
        // flask-design.rst: a rhetorical question and the sentence that takes it up, then a
        // sentence after a statement, which is not.
        let src = "Why does Flask not register views itself? Why should a framework guess? \
                   Import order matters to Python. Extensions are rare.\n";
        let doc = parse(src, Format::Plain);
        let a = analyze(&doc, &Lexical::plain());
        let cues: Vec<Option<Cue>> = a
            .sentences
            .iter()
            .map(|t| t.link.as_ref().map(|l| l.cue))
            .collect();
        assert_eq!(cues, vec![Some(Cue::Answer), Some(Cue::Answer), None]);
        // An opening link of the answer's own is kept.
        let src = "Is it fast? However, it is small.\n";
        let a = analyze(&parse(src, Format::Plain), &Lexical::plain());
        assert_eq!(
            a.sentences[0].link.as_ref().map(|l| l.cue),
            Some(Cue::Contrast)
        );
    }

    #[test]
    fn a_unit_that_opens_with_a_question_marks_its_turn() {
        // postfix-debug-readme.txt and standard's README: a question that opens the next point.
        let src = "Sometimes the behavior of Postfix does not match the source code. Why can a \
                   program deviate from the instructions given by its author? There are two \
                   possibilities.\n\nContributions are welcome.\n\nWant to chat? Join the \
                   contributors.\n";
        let a = analyze(&parse(src, Format::Plain), &Lexical::plain());
        let cues: Vec<Option<Cue>> = a
            .sentences
            .iter()
            .map(|t| t.link.as_ref().map(|l| l.cue))
            .collect();
        assert_eq!(
            cues,
            vec![Some(Cue::Question), Some(Cue::Answer), Some(Cue::Answer)]
        );
        assert_eq!(
            a.paragraphs
                .iter()
                .map(|t| t.link.as_ref().map(|l| l.cue))
                .collect::<Vec<_>>(),
            vec![None, Some(Cue::Question)]
        );
    }

    #[test]
    fn transitions_stay_inside_paragraphs_and_sections() {
        let src = "# A\n\nCats purr. Cats sleep.\n\nDogs bark. Dogs run.\n\n# B\n\nFish swim.\n";
        let doc = parse(src, Format::Markdown);
        let a = analyze(&doc, &Lexical::plain());
        assert_eq!(a.sentences.len(), 2);
        assert_eq!(a.paragraphs.len(), 1);
        assert_eq!(a.sentences[0].to.span.slice(src), "Cats sleep.");
        assert!(a.sentences[0].score > 0.0);
        assert_eq!(a.paragraphs[0].score, 0.0);
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), Some(2.5));
    }
}
