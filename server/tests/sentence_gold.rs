//! Sentence-boundary quality of `segue::text::sentence::split` on the hand-checked gold set.
//!
//! The gold set lives in `tests/gold/sentences/` at the workspace root: one `*.txt` file per
//! source, one sentence per line, a blank line between paragraphs (see its README.md). Each
//! paragraph is joined with single spaces, split, and compared boundary by boundary: a boundary is
//! the end offset (after trimming) of every sentence but the paragraph's last. `constructed.txt`
//! holds made-up edge cases; it is reported on its own and left out of the thresholds.
//!
//! Run with `cargo test -p segue --test sentence_gold -- --nocapture` to see the table.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use segue::text::sentence::split;

/// The file of made-up edge cases, kept out of the real-prose figures.
const CONSTRUCTED: &str = "constructed.txt";
/// The least boundary F1 accepted over the real (non-constructed) files.
const MIN_F1: f64 = 0.98;
/// The least number of real gold sentences, so that an empty set cannot pass.
const MIN_REAL_SENTENCES: usize = 300;
/// How many misses to print.
const SHOW_MISSES: usize = 20;

fn gold_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/gold/sentences")
}

/// Boundary counts for one file or a total.
#[derive(Default, Clone, Copy)]
struct Counts {
    sentences: usize,
    paragraphs: usize,
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.sentences += o.sentences;
        self.paragraphs += o.paragraphs;
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }

    fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }

    fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }

    fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// One wrong or missed boundary, for the report.
struct Miss {
    file: String,
    kind: &'static str,
    context: String,
}

/// The paragraphs of a gold file: lists of sentences, paragraphs separated by blank lines.
fn paragraphs(text: &str) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            assert_eq!(
                line,
                line.trim(),
                "gold sentence with leading space: {line:?}"
            );
            cur.push(line);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Boundaries the splitter predicts in `text`, trimmed and filtered as the callers do.
fn predicted(text: &str) -> BTreeSet<usize> {
    let ranges = split(text);
    assert_eq!(ranges.first().map(|r| r.start), Some(0), "{text:?}");
    assert_eq!(ranges.last().map(|r| r.end), Some(text.len()), "{text:?}");
    for w in ranges.windows(2) {
        assert_eq!(w[0].end, w[1].start, "ranges must be contiguous: {text:?}");
    }
    let mut ends: Vec<usize> = ranges
        .into_iter()
        .filter_map(|r| {
            let raw = &text[r.clone()];
            let trimmed = raw.trim_end();
            let kept = raw.trim().chars().any(char::is_alphanumeric);
            kept.then_some(r.start + trimmed.len())
        })
        .collect();
    ends.pop();
    ends.into_iter().collect()
}

/// Some text either side of byte `at`, with the boundary marked.
fn context(text: &str, at: usize) -> String {
    let mut lo = at.saturating_sub(45);
    while !text.is_char_boundary(lo) {
        lo -= 1;
    }
    let mut hi = (at + 45).min(text.len());
    while !text.is_char_boundary(hi) {
        hi += 1;
    }
    format!("…{}⟦|⟧{}…", &text[lo..at], &text[at..hi])
}

fn score_file(name: &str, content: &str, misses: &mut Vec<Miss>) -> Counts {
    let mut c = Counts::default();
    for para in paragraphs(content) {
        c.paragraphs += 1;
        c.sentences += para.len();
        let text = para.join(" ");
        let mut gold = BTreeSet::new();
        let mut at = 0;
        for s in &para[..para.len() - 1] {
            at += s.len();
            gold.insert(at);
            at += 1;
        }
        let pred = predicted(&text);
        c.tp += gold.intersection(&pred).count();
        for &b in pred.difference(&gold) {
            c.fp += 1;
            misses.push(Miss {
                file: name.to_string(),
                kind: "false split",
                context: context(&text, b),
            });
        }
        for &b in gold.difference(&pred) {
            c.fn_ += 1;
            misses.push(Miss {
                file: name.to_string(),
                kind: "missed split",
                context: context(&text, b),
            });
        }
    }
    c
}

fn row(name: &str, c: &Counts) {
    println!(
        "{name:<28} {:>5} {:>5} {:>5} {:>4} {:>4} {:>4} {:>7.4} {:>7.4} {:>7.4}",
        c.paragraphs,
        c.sentences,
        c.tp + c.fn_,
        c.tp,
        c.fp,
        c.fn_,
        c.precision(),
        c.recall(),
        c.f1()
    );
}

#[test]
fn gold_sentence_boundaries() {
    let dir = gold_dir();
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();

    println!(
        "{:<28} {:>5} {:>5} {:>5} {:>4} {:>4} {:>4} {:>7} {:>7} {:>7}",
        "file", "paras", "sents", "gold", "tp", "fp", "fn", "P", "R", "F1"
    );
    let mut real = Counts::default();
    let mut constructed = None;
    let mut misses = Vec::new();
    for path in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let content =
            fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let c = score_file(&name, &content, &mut misses);
        row(&name, &c);
        if name == CONSTRUCTED {
            constructed = Some(c);
        } else {
            real.add(c);
        }
    }
    row("TOTAL (real files)", &real);
    if let Some(c) = constructed {
        row("constructed (separate)", &c);
    }

    println!("\nmisses: {} (showing up to {SHOW_MISSES})", misses.len());
    for m in misses.iter().take(SHOW_MISSES) {
        println!("  [{}] {}: {}", m.file, m.kind, m.context);
    }

    assert!(
        real.sentences >= MIN_REAL_SENTENCES,
        "only {} real gold sentences in {}",
        real.sentences,
        dir.display()
    );
    assert!(
        real.f1() >= MIN_F1,
        "boundary F1 {:.4} < {MIN_F1} over the real gold files",
        real.f1()
    );
}
