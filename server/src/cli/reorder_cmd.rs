//! `segue reorder`: propose (and optionally apply) a better order of a file's paragraphs or
//! sentences.

use super::scorers::{order_scorer, read_document, scorers_for, EncodingArg};
use super::write::{replace_hooked, Method, Moment, WriteOptions};
use crate::config::{parse_tier, TierChoice};
use crate::order::permute::{apply, permute};
use crate::order::reorder::{reorderable, Container, Judge, Proposal};
use crate::score::Level;
use crate::text::{Document, LineIndex};
use anyhow::{bail, Context};
use std::io::Write;
use std::path::PathBuf;

/// Characters of each unit shown when `segue reorder` lists a proposed order.
const PREVIEW_CHARS: usize = 70;

/// How a unit is shown in a proposed order: its opening words across its line breaks (a sentence
/// that starts at the end of a line, "… move up.  C-k", is not shown as its first line's stub),
/// at most [`PREVIEW_CHARS`] characters, with "…" when there is more.
fn preview(text: &str) -> String {
    let flat = text
        .split_whitespace()
        .take(PREVIEW_CHARS)
        .collect::<Vec<_>>()
        .join(" ");
    let mut shown: String = flat.chars().take(PREVIEW_CHARS).collect();
    if flat.chars().count() > PREVIEW_CHARS || text.split_whitespace().nth(PREVIEW_CHARS).is_some()
    {
        shown.truncate(shown.trim_end().len());
        shown.push('…');
    }
    shown
}

/// Arguments of `segue reorder`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("scope").args(["section", "paragraph"])))]
#[command(group(clap::ArgGroup::new("mode").args(["diff", "write"])))]
pub struct ReorderArgs {
    /// The file to reorder.
    pub path: PathBuf,
    /// Reorder the paragraphs of section N only (1-based, in document order; text before the
    /// first heading is section 1 when present).
    #[arg(long, value_name = "N")]
    pub section: Option<usize>,
    /// Reorder the sentences of paragraph N only (1-based, counted over the whole document).
    #[arg(long, value_name = "N")]
    pub paragraph: Option<usize>,
    /// Print a unified diff instead of the proposed order.
    #[arg(long)]
    pub diff: bool,
    /// Rewrite the file with the proposed order: atomically (a temporary file renamed over it,
    /// owner and permissions kept), through a symlink to its target, in place when it has
    /// several hard links; refused, with nothing written, when the file changed since it was
    /// read or is read-only (see --force).
    #[arg(long)]
    pub write: bool,
    /// With --write: rewrite a read-only file too (it stays read-only).
    #[arg(long, requires = "write")]
    pub force: bool,
    /// Scorer tier: auto, 0 (built-in) or 1 (models).
    #[arg(long, default_value = "auto", value_parser = |s: &str| parse_tier(s).ok_or("use auto, 0 or 1"))]
    pub tier: TierChoice,
    /// Scorer used to judge orders (default: tier0; `ordering` is the trained ordering model).
    #[arg(long)]
    pub scorer: Option<String>,
    /// The encoding of a file that is neither UTF-8 nor declares one (a LaTeX preamble's
    /// `inputenc`): latin1, latin9 or cp1252. A UTF-8 file is read as UTF-8 whatever it says, and
    /// `--write` writes the file back in the encoding it was read in.
    #[arg(long, value_enum, value_name = "ENCODING")]
    pub encoding: Option<EncodingArg>,
}

/// "1 paragraph", "3 paragraphs".
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// What a rewrite reordered, in words, numbered as `--section` and `--paragraph` count (from 1,
/// paragraphs over the whole document): "the paragraphs of section 2", "the paragraphs of
/// sections 1, 3 and 4", "the sentences of paragraph 7".
fn reordered(doc: &Document, containers: &[Container]) -> String {
    let mut sections = Vec::new();
    let mut paragraphs = Vec::new();
    for c in containers {
        match *c {
            Container::Section(s) => sections.push(s + 1),
            Container::Paragraph { section, paragraph } => {
                paragraphs.push(doc.paragraph_number(section, paragraph));
            }
        }
    }
    let phrase = |units: &str, container: &str, mut numbers: Vec<usize>| {
        numbers.sort_unstable();
        numbers.dedup();
        let listed: Vec<String> = numbers.iter().map(usize::to_string).collect();
        match listed.as_slice() {
            [] => None,
            [one] => Some(format!("the {units} of {container} {one}")),
            [rest @ .., last] => Some(format!(
                "the {units} of {container}s {} and {last}",
                rest.join(", ")
            )),
        }
    };
    [
        phrase("paragraphs", "section", sections),
        phrase("sentences", "paragraph", paragraphs),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" and ")
}

/// The containers a run looks at.
fn containers(doc: &Document, args: &ReorderArgs) -> anyhow::Result<Vec<Container>> {
    if let Some(n) = args.section {
        if n == 0 || n > doc.sections.len() {
            bail!(
                "there is no section {n}: the document has {} (numbered from 1)",
                count(doc.sections.len(), "section")
            );
        }
        return Ok(vec![Container::Section(n - 1)]);
    }
    if let Some(n) = args.paragraph {
        let found = doc
            .sections
            .iter()
            .enumerate()
            .flat_map(|(s, sec)| (0..sec.paragraphs.len()).map(move |p| (s, p)))
            .nth(n.wrapping_sub(1));
        let Some((section, paragraph)) = found else {
            bail!(
                "there is no paragraph {n}: the document has {} (numbered from 1)",
                count(doc.paragraphs().count(), "paragraph")
            );
        };
        return Ok(vec![Container::Paragraph { section, paragraph }]);
    }
    Ok((0..doc.sections.len()).map(Container::Section).collect())
}

/// Runs `segue reorder`. Exit code 0 when nothing needs to move or the file was rewritten,
/// 1 when a better order was proposed but not written.
pub fn run(args: ReorderArgs) -> anyhow::Result<u8> {
    run_with(args, &mut || {})
}

/// [`run`], calling `before_check` right before `--write` checks that the file is unchanged
/// since it was read (tests change the file there).
fn run_with(args: ReorderArgs, before_check: &mut dyn FnMut()) -> anyhow::Result<u8> {
    let (file, doc) = read_document(&args.path, args.encoding)?;
    let source = file.text.as_str();
    let set = scorers_for(args.tier)?;
    let judge = Judge {
        scorer: order_scorer(&set, args.scorer.as_deref())?,
        named: args.scorer.is_some(),
    };
    let scorer = judge.scorer.clone();
    let chosen = containers(&doc, &args)?;
    if let ([only], true) = (
        chosen.as_slice(),
        args.section.is_some() || args.paragraph.is_some(),
    ) {
        if let Err(kept) = reorderable(&doc, *only) {
            eprintln!("{}: the author's order stands: {kept}", args.path.display());
            return Ok(0);
        }
    }
    let levels: Vec<Level> = chosen.iter().map(|c| c.level()).collect();
    if let Some(why) = levels
        .iter()
        .map(|&l| judge.withheld(l).map(|w| (l, w)))
        .collect::<Option<Vec<_>>>()
        .and_then(|w| w.first().copied())
    {
        let (level, w) = why;
        let (units, containers) = match level {
            Level::Sentence => ("sentences", "paragraphs"),
            Level::Paragraph => ("paragraphs", "sections"),
        };
        let advice = if scorer.tier() == 0 {
            "Install the tier-1 models (`models/install`), or name a judge with --scorer to see \
             its proposals anyway"
        } else {
            "Name a judge with --scorer to see its proposals anyway"
        };
        eprintln!(
            "{}: the author's order stands: the {} judge does not reorder {units} by default: {}. \
             {advice}",
            args.path.display(),
            scorer.name(),
            w.explain(containers),
        );
        return Ok(0);
    }
    let proposals: Vec<Proposal> = chosen
        .into_iter()
        .filter_map(|c| judge.propose(&doc, source, c))
        .filter(Proposal::worthwhile)
        .collect();
    if proposals.is_empty() {
        eprintln!(
            "{}: the author's order stands: the {} judge is not confident that another order is \
             better",
            args.path.display(),
            scorer.name()
        );
        return Ok(0);
    }
    let rewritten = rewrite(source, &proposals)?;
    if args.write {
        let options = WriteOptions { force: args.force };
        // A permutation of the text's units encodes back in the file's own encoding.
        let bytes = file.encoding.encode(&rewritten).with_context(|| {
            format!(
                "{}: the reordered text does not encode in {}",
                args.path.display(),
                file.encoding.name()
            )
        })?;
        let how = replace_hooked(&args.path, &bytes, &file.snapshot, options, &mut |moment| {
            if moment == Moment::Check {
                before_check();
            }
        })?;
        let note = match how {
            Method::Renamed => String::new(),
            Method::InPlace(reason) => format!(", written in place ({reason})"),
        };
        let containers: Vec<Container> = proposals.iter().map(|p| p.container).collect();
        eprintln!(
            "{}: reordered {}{note}",
            args.path.display(),
            reordered(&doc, &containers)
        );
        return Ok(0);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.diff {
        let name = args.path.display().to_string();
        let diff = similar::TextDiff::from_lines(source, &rewritten);
        write!(
            out,
            "{}",
            diff.unified_diff()
                .context_radius(3)
                .header(&format!("a/{name}"), &format!("b/{name}"))
        )?;
    } else {
        let index = LineIndex::new(source);
        for p in &proposals {
            let line = index
                .position(source, p.spans.first().map_or(0, |s| s.start))
                .line
                + 1;
            writeln!(
                out,
                "{}:{line}: {} (coherence {:.2} → {:.2}{}):",
                args.path.display(),
                p.summary(source),
                p.before,
                p.after,
                if p.exact { "" } else { ", best found" }
            )?;
            for (slot, &unit) in p.order.iter().enumerate() {
                let span = p.spans[unit];
                let pos = index.position(source, span.start);
                let preview = preview(span.slice(source));
                writeln!(
                    out,
                    "  {:>2}. (line {:>4}) {preview}",
                    slot + 1,
                    pos.line + 1
                )?;
            }
        }
    }
    Ok(1)
}

/// Applies non-overlapping proposals and checks that the result permutes their units byte for byte.
pub fn rewrite(source: &str, proposals: &[Proposal]) -> anyhow::Result<String> {
    let mut sorted: Vec<&Proposal> = proposals.iter().collect();
    sorted.sort_by_key(|p| std::cmp::Reverse(p.spans.first().map_or(0, |s| s.start)));
    let mut text = source.to_string();
    for p in sorted {
        // Later containers first, so earlier spans stay valid; each step is checked against the
        // text it started from (later containers are already moved there, not in `source`).
        let before = text.clone();
        if let Some(rep) = permute(&before, &p.spans, &p.order)? {
            text = apply(&before, &rep)
                .context("internal error: a reorder edit fell outside the text")?;
        }
        verify_permutation(&before, &text, p)?;
    }
    Ok(text)
}

/// Checks, independently of how the edit was built, that `after` holds the units of `p` in the
/// proposed order with every separator and everything around them unchanged.
fn verify_permutation(before: &str, after: &str, p: &Proposal) -> anyhow::Result<()> {
    let (Some(first), Some(last)) = (p.spans.first(), p.spans.last()) else {
        return Ok(());
    };
    let ok = (|| {
        if before.len() != after.len() || before.get(..first.start)? != after.get(..first.start)? {
            return None;
        }
        if before.get(last.end..)? != after.get(last.end..)? {
            return None;
        }
        let mut at = first.start;
        for (slot, &unit) in p.order.iter().enumerate() {
            let text = p.spans.get(unit)?.slice(before);
            if after.get(at..at + text.len())? != text {
                return None;
            }
            at += text.len();
            if let Some(next) = p.spans.get(slot + 1) {
                let sep = before.get(p.spans[slot].end..next.start)?;
                if after.get(at..at + sep.len())? != sep {
                    return None;
                }
                at += sep.len();
            }
        }
        Some(())
    })();
    ok.context("refusing to write: the reordered text is not a byte-for-byte permutation of the original units")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_unit_is_previewed_by_its_opening_words_across_line_breaks() {
        use super::preview;
        // emacs-tutorial.txt: the sentence starts at the end of a line.
        assert_eq!(
            preview("C-k\ntreats a numeric argument specially: it kills that many lines AND\ntheir contents."),
            "C-k treats a numeric argument specially: it kills that many lines AND…"
        );
        assert_eq!(
            preview("This is not mere repetition."),
            "This is not mere repetition."
        );
        assert_eq!(preview(&"é".repeat(80)), format!("{}…", "é".repeat(70)));
    }

    #[test]
    fn a_rewrite_names_what_it_reordered() {
        use super::{reordered, Container};
        let doc = crate::text::parse(
            "# A\n\nOne. Two.\n\nThree.\n\n# B\n\nFour. Five.\n\nSix.\n",
            crate::text::Format::Markdown,
        );
        assert_eq!(
            reordered(&doc, &[Container::Section(1)]),
            "the paragraphs of section 2"
        );
        assert_eq!(
            reordered(
                &doc,
                &[
                    Container::Section(2),
                    Container::Section(0),
                    Container::Section(1)
                ]
            ),
            "the paragraphs of sections 1, 2 and 3"
        );
        // Paragraphs count over the whole document, as `--paragraph` does.
        let sentences = Container::Paragraph {
            section: doc.sections.len() - 1,
            paragraph: 0,
        };
        let n: usize = doc
            .sections
            .iter()
            .rev()
            .skip(1)
            .map(|s| s.paragraphs.len())
            .sum();
        assert_eq!(
            reordered(&doc, &[sentences]),
            format!("the sentences of paragraph {}", n + 1)
        );
        assert_eq!(
            reordered(&doc, &[Container::Section(0), sentences]),
            format!(
                "the paragraphs of section 1 and the sentences of paragraph {}",
                n + 1
            )
        );
    }

    use super::*;
    use crate::order::reorder::{unit_extents, Change, Container};
    use crate::text::{parse, Format};

    /// A real multi-section document (the committed slice of the real-prose corpus).
    const CLICK_WHY: &str = include_str!("../../../tests/prose/slice/essay/click-why.md");

    /// Four paragraphs on two topics, interleaved: the built-in judge proposes grouping them.
    const NOTES: &str = "# Notes\n\n\
The cache stores vectors in memory and evicts old vectors.\n\n\
Penguins waddle across the Antarctic ice and eat krill.\n\n\
The cache evicts old vectors from memory when the cache is full.\n\n\
Krill swarm under the Antarctic ice where penguins eat them.\n";

    fn write_args(path: &std::path::Path) -> ReorderArgs {
        ReorderArgs {
            path: path.to_path_buf(),
            section: None,
            paragraph: None,
            diff: false,
            write: true,
            force: false,
            tier: TierChoice::Builtin,
            scorer: Some("tier0".into()),
            encoding: None,
        }
    }

    /// A line appended while the reorder runs (after the file was read, before it is written)
    /// is kept: the write is refused with an error (exit code 2) and nothing is written.
    #[test]
    fn a_line_appended_during_the_run_is_not_lost() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.md");
        std::fs::write(&path, NOTES).unwrap();
        let mut append = || {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(b"\nA line written meanwhile.\n").unwrap();
        };
        let err = run_with(write_args(&path), &mut append).unwrap_err();
        assert!(
            err.to_string().contains("changed since it was read"),
            "{err:#}"
        );
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(after, format!("{NOTES}\nA line written meanwhile.\n"));
        // Without the change the same run rewrites the file.
        std::fs::write(&path, NOTES).unwrap();
        assert_eq!(run_with(write_args(&path), &mut || {}).unwrap(), 0);
        assert_ne!(std::fs::read_to_string(&path).unwrap(), NOTES);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// Every section of `doc` with at least two paragraphs, its paragraphs reversed.
    fn reversed_sections(doc: &Document, source: &str) -> Vec<Proposal> {
        (0..doc.sections.len())
            .filter_map(|s| {
                let container = Container::Section(s);
                let spans = unit_extents(doc, source, container)?;
                (spans.len() >= 2).then(|| Proposal {
                    container,
                    order: (0..spans.len()).rev().collect(),
                    spans,
                    change: Change::Reorder,
                    before: 0.0,
                    after: 0.0,
                    margin: 0.0,
                    confidence: None,
                    threshold: None,
                    first_unit_logit: 0.0,
                    exact: true,
                    dangling: false,
                    flow: None,
                })
            })
            .collect()
    }

    #[test]
    fn several_sections_reorder_in_one_rewrite() {
        let doc = parse(CLICK_WHY, Format::Markdown);
        let proposals = reversed_sections(&doc, CLICK_WHY);
        assert!(proposals.len() >= 3, "{} proposals", proposals.len());
        let text = rewrite(CLICK_WHY, &proposals).expect("a whole-file rewrite");
        assert_eq!(text.len(), CLICK_WHY.len());
        let mut before: Vec<char> = CLICK_WHY.chars().collect();
        let mut after: Vec<char> = text.chars().collect();
        before.sort_unstable();
        after.sort_unstable();
        assert_eq!(before, after, "only a permutation");
        // Written atomically and read back, then reversed again: the original comes back.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("why.md");
        crate::cli::write::write_atomically(&path, &text).unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        let doc2 = parse(&written, Format::Markdown);
        let back = reversed_sections(&doc2, &written);
        assert_eq!(rewrite(&written, &back).unwrap(), CLICK_WHY);
    }
}
