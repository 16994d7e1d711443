//! Section openings: the first paragraph after a heading, judged against the heading and the rest
//! of its section.
//!
//! A section's first paragraph has no paragraph before it in the section, so no transition leads
//! into it. What can be judged is the transition *out* of it, into the second paragraph: when that
//! transition is weak, either the first paragraph or the second is the one out of place. The
//! heading and the rest of the section decide which: the paragraph whose words the heading and the
//! section's other paragraphs (from the third on) use less is the odd one. An opening paragraph
//! that fits its section worse than the paragraph after it is reported itself ("opens the section
//! ‘…’ but shares little with its heading or the rest of the section"), instead of blaming the
//! paragraph after it for not following.

use super::tokens::tokens;
use crate::text::{Document, Paragraph, Span};

/// Fewest distinct content stems a paragraph needs for its fit to mean anything.
pub const MIN_STEMS: usize = 4;

/// How much better the second paragraph must fit the section than the first for the first to
/// be blamed: the share of their content words the heading and the rest of the section use.
pub const FIT_MARGIN: f64 = 0.15;

/// A section's opening: its heading, first and second paragraphs, and how well each of the two
/// paragraphs fits the heading and the rest of the section.
#[derive(Debug, Clone, PartialEq)]
pub struct Opening {
    /// The heading's source span.
    pub heading: Span,
    /// The heading's title.
    pub title: String,
    /// The first paragraph's source span.
    pub first: Span,
    /// The second paragraph's source span.
    pub second: Span,
    /// Share of the first paragraph's content stems that the heading or the section's paragraphs
    /// from the third on use.
    pub first_fit: f64,
    /// The same share for the second paragraph.
    pub second_fit: f64,
}

impl Opening {
    /// Whether the first paragraph fits its section clearly worse than the second.
    pub fn first_is_odd(&self) -> bool {
        self.first_fit + FIT_MARGIN <= self.second_fit
    }
}

/// The openings of every section that has a heading and at least two paragraphs of running
/// prose at its start (not lists, not lead-ins), each with enough content words to judge.
pub fn openings(doc: &Document) -> Vec<Opening> {
    let mut out = Vec::new();
    for section in &doc.sections {
        let (Some(heading), [first, second, rest @ ..]) =
            (&section.heading, section.paragraphs.as_slice())
        else {
            continue;
        };
        if !prose(first) || !prose(second) {
            continue;
        }
        let mut context: ahash::AHashSet<u32> = stems_of(&[heading.title.as_str()]);
        for p in rest {
            context.extend(stems_of(&texts(p)));
        }
        let (a, b) = (stems_of(&texts(first)), stems_of(&texts(second)));
        if a.len() < MIN_STEMS || b.len() < MIN_STEMS {
            continue;
        }
        let fit = |s: &ahash::AHashSet<u32>| {
            s.iter().filter(|w| context.contains(*w)).count() as f64 / s.len() as f64
        };
        out.push(Opening {
            heading: heading.span,
            title: heading.title.clone(),
            first: first.span,
            second: second.span,
            first_fit: fit(&a),
            second_fit: fit(&b),
        });
    }
    out
}

/// Whether a paragraph is running prose: its own sentences, not a list.
fn prose(p: &Paragraph) -> bool {
    !p.list && !p.sentences.is_empty() && p.own_sentences == p.sentences.len()
}

fn texts(p: &Paragraph) -> Vec<&str> {
    p.sentences.iter().map(|s| s.text.as_str()).collect()
}

/// The distinct content stems of `sentences`, by their process-wide ids (no string copies: this
/// runs on every analysis, keystrokes included).
fn stems_of(sentences: &[&str]) -> ahash::AHashSet<u32> {
    sentences
        .iter()
        .flat_map(|s| tokens(s).iter().map(|t| t.stem_id).collect::<Vec<_>>())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{parse, Format};

    const SECTION: &str = "# Caching embeddings\n\n\
        Penguins waddle across the Antarctic ice and dive for krill in the freezing sea.\n\n\
        The cache keeps each sentence embedding so that an edit re-embeds only what changed.\n\n\
        Cached embeddings are keyed by the sentence text, and the cache evicts the oldest \
        embedding when it is full.\n";

    #[test]
    fn an_opening_off_its_heading_and_section_is_the_odd_one() {
        let doc = parse(SECTION, Format::Markdown);
        let found = openings(&doc);
        assert_eq!(found.len(), 1, "{found:#?}");
        let o = &found[0];
        assert_eq!(o.title, "Caching embeddings");
        assert!(o.first.slice(SECTION).starts_with("Penguins"));
        assert!(o.first_fit < 0.1 && o.second_fit > 0.3, "{o:?}");
        assert!(o.first_is_odd());
    }

    #[test]
    fn an_opening_on_its_heading_is_not() {
        let src = "# Caching embeddings\n\n\
            Segue caches sentence embeddings, because embedding is the costly step.\n\n\
            Penguins waddle across the Antarctic ice and dive for krill in the freezing sea.\n\n\
            Cached embeddings are keyed by the sentence text, and the cache evicts the oldest \
            embedding when it is full.\n";
        let doc = parse(src, Format::Markdown);
        let o = &openings(&doc)[0];
        assert!(!o.first_is_odd(), "{o:?}");
    }

    #[test]
    fn sections_without_a_heading_or_a_second_paragraph_have_no_opening() {
        let doc = parse(
            "Penguins dive for krill in the freezing sea water.\n\nThe cache keeps every embedding.\n",
            Format::Markdown,
        );
        assert!(openings(&doc).is_empty());
        let doc = parse(
            "# Cache\n\nThe cache keeps every sentence embedding here.\n",
            Format::Markdown,
        );
        assert!(openings(&doc).is_empty());
    }
}
