//! `cargo bench --bench suite`: the in-process rows of docs/performance.md, printed as Markdown
//! tables (`tests/bench/run` assembles the whole file). Each figure is the median of several
//! passes; every comparison (segmentation against pulldown-cmark alone, an engine run after an
//! edit against the full analysis) is measured in the same process, alternating, so a busy machine
//! slows both alike.
//!
//! - segmentation throughput per format, over every document of that format in the real-prose
//!   corpus (`target/prose`, built by `tests/prose/fetch`);
//! - tier-0 analysis (segment + score + findings, what `segue check --tier 0` does per file) of
//!   the benchmark documents `tests/bench/docs.py` builds in `target/bench` (1k, 10k and 100k
//!   words of Markdown and LaTeX);
//! - the language server's engine after a one-character edit (tier 0, the keystroke path without
//!   the transport) next to a full analysis of the same text;
//! - the exact ordering decoder at n = 8, 12 and 16 units.
//!
//! Missing inputs are reported and their rows skipped.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use segue::lsp::engine::{Engine, Job};
use segue::order::decode::{exact, Problem};
use segue::score::analysis::analyze;
use segue::score::findings::{findings, Calibration, Sensitivity};
use segue::score::{Pairwise, Reason, ScorerSet};
use segue::text::{parse, Format};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::canonicalize(&root).unwrap_or(root)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Seconds `f` takes, median of `reps` passes after one warm-up.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn files_with(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_with(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

fn segmentation() {
    let prose = root().join("target/prose");
    println!("\n### Segmentation\n");
    println!("Every document of the format in the real-prose corpus, parsed into sections, paragraphs and sentences; median of 5 passes.\n");
    println!("| format | files | MB | MB/s | vs pulldown-cmark alone |");
    println!("|---|---:|---:|---:|---:|");
    for (ext, format) in [
        ("md", Format::Markdown),
        ("rst", Format::Rst),
        ("tex", Format::Latex),
        ("txt", Format::Plain),
    ] {
        let mut files = Vec::new();
        files_with(&prose, ext, &mut files);
        let texts: Vec<String> = files
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .collect();
        if texts.is_empty() {
            println!("| {} | 0 | – | – | – |", format.name());
            continue;
        }
        let bytes: usize = texts.iter().map(String::len).sum();
        let mb = bytes as f64 / 1e6;
        let secs = time(5, || {
            for t in &texts {
                black_box(parse(black_box(t), format));
            }
        });
        let baseline = if format == Format::Markdown {
            let base = time(5, || {
                for t in &texts {
                    black_box(pulldown_cmark::Parser::new(black_box(t)).count());
                }
            });
            format!("{:.1}× its time", secs / base)
        } else {
            "–".to_string()
        };
        println!(
            "| {} | {} | {mb:.2} | {:.1} | {baseline} |",
            format.name(),
            texts.len(),
            mb / secs
        );
    }
}

fn bench_doc(name: &str) -> Option<String> {
    std::fs::read_to_string(root().join("target/bench").join(name)).ok()
}

fn analysis() {
    let tier0 = ScorerSet::builtin().get("tier0").expect("tier0");
    let calibration = Calibration::shipped();
    println!("\n### Tier-0 analysis per document\n");
    println!("Segment + score (`tier0`, both levels) + findings, what `segue check --tier 0` does per file (on one thread, except the intrusion score's passes over documents of 1,024 units or more); median of 5 passes (3 for 100k).\n");
    println!("| document | words | sentences | ms | words/s |");
    println!("|---|---:|---:|---:|---:|");
    for (fmt, ext, format) in [
        ("markdown", "md", Format::Markdown),
        ("latex", "tex", Format::Latex),
    ] {
        for size in ["1k", "10k", "30k", "100k"] {
            let name = format!("{fmt}-{size}.{ext}");
            let Some(text) = bench_doc(&name) else {
                println!("| {name} | missing: run tests/bench/docs.py | | | |");
                continue;
            };
            let words = text.split_whitespace().count();
            let sentences = parse(&text, format)
                .sections
                .iter()
                .flat_map(|s| &s.paragraphs)
                .map(|p| p.sentences.len())
                .sum::<usize>();
            let reps = if size == "100k" { 3 } else { 5 };
            let secs = time(reps, || {
                let doc = parse(black_box(&text), format);
                let a = analyze(&doc, tier0.as_ref());
                black_box(findings(&a, &calibration, Sensitivity::Medium));
            });
            println!(
                "| {name} | {words} | {sentences} | {:.1} | {:.0} |",
                secs * 1000.0,
                words as f64 / secs
            );
        }
    }
}

/// `text` with an `x` inserted at the start of the `k`-th long prose line.
fn edited(text: &str, k: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let prose: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.len() > 40
                && l.starts_with(|c: char| c.is_alphabetic())
                && !l.starts_with('#')
                && !l.starts_with('\\')
        })
        .map(|(i, _)| i)
        .collect();
    let Some(&n) = prose.get((k * 37) % prose.len().max(1)) else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + 1);
    for (i, l) in lines.iter().enumerate() {
        if i == n {
            out.push('x');
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

fn keystrokes() {
    let tier0 = ScorerSet::builtin().get("tier0").expect("tier0");
    let calibration = Arc::new(Calibration::shipped());
    println!("\n### Engine run after a keystroke (in process)\n");
    println!("The language server's analysis of one document after a one-character edit in a prose line (tier 0, a new line each time), next to a full analysis of the same text, alternating; 40 edits (10 at 100k).\n");
    println!("| document | engine p50 ms | engine p95 ms | transitions scored / reused (median) | full analysis p50 ms | full / engine (p50) |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, format) in [
        ("markdown-10k.md", Format::Markdown),
        ("markdown-100k.md", Format::Markdown),
        ("latex-10k.tex", Format::Latex),
    ] {
        let Some(text) = bench_doc(name) else {
            println!("| {name} | missing | | | |");
            continue;
        };
        let edits = if name.contains("100k") { 10 } else { 40 };
        let job = |version: i32, text: &str| Job {
            version,
            text: Arc::from(text),
            format: Some(format),
            skip: None,
            scorer: tier0.clone(),
            judge: segue::order::reorder::Judge {
                scorer: tier0.clone(),
                named: true,
            },
            policy: tier0.context_policy(),
            calibration: calibration.clone(),
            sensitivity: Sensitivity::Medium,
        };
        let mut engine = Engine::new();
        let _ = engine.run(&job(1, &text), 1, &|| false);
        let (mut incremental, mut full, mut scored, mut reused) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for k in 0..edits {
            let t = edited(&text, k);
            let start = Instant::now();
            let run = engine.run(&job(k as i32 + 2, &t), k as u64 + 2, &|| false);
            incremental.push(start.elapsed().as_secs_f64() * 1000.0);
            if let Ok(a) = run {
                scored.push(a.stats.scored as f64);
                reused.push(a.stats.reused as f64);
            }
            let start = Instant::now();
            let doc = parse(&t, format);
            let a = analyze(&doc, tier0.as_ref());
            black_box(findings(&a, &calibration, Sensitivity::Medium));
            full.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        let (p50, full50) = (median(incremental.clone()), median(full));
        println!(
            "| {name} | {p50:.1} | {:.1} | {:.0} / {:.0} | {full50:.1} | {:.1}× |",
            percentile(incremental, 0.95),
            median(scored),
            median(reused),
            full50 / p50
        );
    }
}

/// A dense table of random transition scores.
struct Random(Vec<Vec<f64>>);

impl Pairwise for Random {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn transition(&self, from: usize, to: usize) -> f64 {
        self.0
            .get(from)
            .and_then(|r| r.get(to))
            .copied()
            .unwrap_or(0.0)
    }
    fn reason(&self, _: usize, _: usize) -> Reason {
        Reason::default()
    }
}

fn decode() {
    println!("\n### Reorder decode\n");
    println!("The exact subset dynamic programme (what `segue reorder` and the code action run up to 16 units) on a dense table of random scores; median of 5 passes.\n");
    println!("| units | ms |");
    println!("|---:|---:|");
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for n in [8, 12, 16] {
        let table = Random(
            (0..n)
                .map(|_| (0..n).map(|_| rng.gen_range(0.0..1.0)).collect())
                .collect(),
        );
        let reps = if n == 16 { 3 } else { 5 };
        let secs = time(reps, || {
            black_box(exact(&Problem::new(&table)));
        });
        println!("| {n} | {:.2} |", secs * 1000.0);
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument picks sections.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let want = |s: &str| only.is_empty() || only.iter().any(|o| s.contains(o.as_str()));
    if want("segmentation") {
        segmentation();
    }
    if want("analysis") {
        analysis();
    }
    if want("keystroke") {
        keystrokes();
    }
    if want("decode") {
        decode();
    }
}
