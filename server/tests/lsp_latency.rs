//! Keystroke → diagnostics latency of `segue serve` on the 10,000-word Markdown document
//! `tests/fixtures/bench-10k.md` (ignored by default; run it in release):
//!
//! ```sh
//! cargo test --release -p segue --test lsp_latency -- --ignored --nocapture
//! ```
//!
//! Method: one server per scenario, `debounce` 0; open the document and wait for its first
//! diagnostics; then, one at a time, send a single-character insert into a prose line (cycling
//! over the document) and time from writing `didChange` to reading the matching
//! `publishDiagnostics` (push) or the `textDocument/diagnostic` reply sent right after the change
//! (pull). The server's own analysis time and how many transitions it scored or reused come from
//! its debug log. Reports the median and p95 over the edits.
//!
//! `model_stage_analysis_time` (also ignored; needs `models/install`) times the engine's run for
//! the `embedding` scorer after each edit, with its intrusion model and, in the same run, without
//! it (the same scorer behind a wrapper that hides the model), on the same document and edits;
//! `tier0_intrusion_analysis_time` does the same for `tier0` and its intrusion model on static word
//! vectors.

mod common;

use common::*;
use segue::lsp::engine::{ContextPolicy, Engine, Job};
use segue::model::{shared_encoder, ModelOptions};
use segue::score::embedding::Embedding;
use segue::score::findings::{Calibration, Sensitivity};
use segue::score::{Level, Pairwise, Scorer, Unit};
use segue::text::Format;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

const EDITS: usize = 60;

/// The document: `SEGUE_BENCH_DOC` (a Markdown file; `tests/bench/run` passes the benchmark
/// documents), else `tests/fixtures/bench-10k.md`.
fn doc_path() -> PathBuf {
    std::env::var_os("SEGUE_BENCH_DOC")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/bench-10k.md")
        })
}

fn doc() -> String {
    std::fs::read_to_string(doc_path()).expect("bench document")
}

/// The scorers of the keystroke rows: `SEGUE_BENCH_SCORERS` (comma-separated), else `tier0` and
/// `lexical`.
fn scorers() -> Vec<String> {
    std::env::var("SEGUE_BENCH_SCORERS")
        .unwrap_or_else(|_| "tier0,lexical".into())
        .split(',')
        .map(str::to_string)
        .collect()
}

/// Lines that are prose (not headings, not blank), as edit targets.
fn prose_lines(text: &str) -> Vec<u32> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            l.len() > 40 && !l.starts_with('#') && !l.starts_with(' ') && !l.starts_with('|')
        })
        .map(|(i, _)| i as u32)
        .collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let idx = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

struct Stats {
    median: f64,
    p95: f64,
    max: f64,
}

fn stats(mut v: Vec<f64>) -> Stats {
    v.sort_by(f64::total_cmp);
    Stats {
        median: percentile(&v, 0.5),
        p95: percentile(&v, 0.95),
        max: v.last().copied().unwrap_or(f64::NAN),
    }
}

/// Parses the server's debug lines "… N transitions scored, M reused, U µs".
fn engine_log(tail: &str) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut micros, mut scored, mut reused) = (Vec::new(), Vec::new(), Vec::new());
    for line in tail.lines().filter(|l| l.contains("transitions scored")) {
        let nums: Vec<f64> = line
            .rsplit(';')
            .next()
            .unwrap_or("")
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|s| s.parse().ok())
            .collect();
        if let [s, r, us] = nums[..] {
            scored.push(s);
            reused.push(r);
            micros.push(us);
        }
    }
    (micros, scored, reused)
}

fn run(scorer: &str, pull: bool) {
    let text = doc();
    let lines = prose_lines(&text);
    // `SEGUE_BENCH_BIN` runs another build of the server (an earlier commit's, for a same-run
    // comparison).
    let bin = std::env::var("SEGUE_BENCH_BIN").unwrap_or_default();
    let mut c = if bin.is_empty() {
        Client::spawn()
    } else {
        Client::spawn_binary(std::path::Path::new(&bin), &[])
    };
    let options = json!({"debounce": 0, "scorer": scorer});
    if pull {
        c.config = options.clone();
        c.initialize(pull_caps(), None, None);
    } else {
        c.initialize(push_caps(), None, Some(options));
    }
    let uri = scratch_uri("bench.md");
    let opened = Instant::now();
    c.open(&uri, "markdown", 1, &text);
    let first = if pull {
        c.request_raw(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri.as_str()}}),
        )
        .expect("pull");
        opened.elapsed()
    } else {
        c.diagnostics(&uri, 1);
        opened.elapsed()
    };
    let mut latencies = Vec::with_capacity(EDITS);
    let mut findings = 0;
    for i in 0..EDITS {
        let version = i as i32 + 2;
        let line = lines[(i * 37) % lines.len()];
        let change = edit(range(line, 10, line, 10), "x");
        let start = Instant::now();
        c.change(&uri, version, vec![change]);
        if pull {
            let r: Value = c
                .request_raw(
                    "textDocument/diagnostic",
                    json!({"textDocument": {"uri": uri.as_str()}}),
                )
                .expect("pull");
            latencies.push(start.elapsed().as_secs_f64() * 1000.0);
            findings = r["items"].as_array().map_or(0, Vec::len);
            let id = r["resultId"].as_str().unwrap_or("");
            assert!(
                id.starts_with(&format!("{version}:")),
                "{id} for version {version}"
            );
        } else {
            let d = c.diagnostics(&uri, version);
            latencies.push(start.elapsed().as_secs_f64() * 1000.0);
            findings = d.len();
        }
    }
    let tail = c.stderr_tail();
    let (micros, scored, reused) = engine_log(&tail);
    let n = micros.len().min(EDITS);
    let engine = stats(
        micros[micros.len() - n..]
            .iter()
            .map(|us| us / 1000.0)
            .collect(),
    );
    let scored = stats(scored[scored.len() - n..].to_vec());
    let reused = stats(reused[reused.len() - n..].to_vec());
    let s = stats(latencies);
    println!(
        "| {scorer} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0} / {:.0} | {} | {:.0} |",
        if pull { "pull" } else { "push" },
        s.median,
        s.p95,
        s.max,
        engine.median,
        engine.p95,
        scored.median,
        reused.median,
        findings,
        first.as_secs_f64() * 1000.0,
    );
    assert!(c.shutdown_and_exit().success());
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn keystroke_to_diagnostics_latency() {
    let words = doc().split_whitespace().count();
    let name = doc_path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    println!(
        "\n{name}: {words} words; {EDITS} single-character edits per row; times in ms; {}",
        if cfg!(debug_assertions) {
            "DEBUG build (use --release)"
        } else {
            "release build"
        }
    );
    println!("| scorer | mode | median | p95 | max | analysis median | analysis p95 | scored / reused (median) | findings | first open |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for scorer in scorers() {
        for pull in [false, true] {
            run(&scorer, pull);
        }
    }
    // Settle: give the last server time to exit before the process ends.
    std::thread::sleep(Duration::from_millis(50));
}

/// A scorer with its intrusion model hidden: the findings fall back to the fixed rule, and the
/// engine prepares only what the scorer's cache policy needs, as before the model. It keeps the
/// scorer's name, so its calibration applies as before.
struct WithoutIntrusion(Arc<dyn Scorer>);

impl Scorer for WithoutIntrusion {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn description(&self) -> &'static str {
        "a scorer without its intrusion model (measurement)"
    }
    fn tier(&self) -> u8 {
        self.0.tier()
    }
    fn context_policy(&self) -> ContextPolicy {
        self.0.context_policy()
    }
    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        Box::new(Hidden(self.0.prepare(units, level)))
    }
}

struct Hidden<'a>(Box<dyn Pairwise + 'a>);

impl Pairwise for Hidden<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn transition(&self, from: usize, to: usize) -> f64 {
        self.0.transition(from, to)
    }
    fn reason(&self, from: usize, to: usize) -> segue::score::Reason {
        self.0.reason(from, to)
    }
}

/// The texts of `EDITS` one-character edits of `text`, one prose line each.
fn edited_texts(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let prose = prose_lines(text);
    (0..EDITS)
        .map(|i| {
            let mut l = lines.clone();
            let n = prose[(i * 37) % prose.len()] as usize;
            let edited = format!("x{}", l[n]);
            l[n] = &edited;
            l.join("\n")
        })
        .collect()
}

/// Times the engine's run on each of `texts` (after a first run on `text`) for a scorer with its
/// intrusion model and without it, alternating the two so that a busy machine slows both alike.
fn compare(texts: &[String], text: &str, with: Arc<dyn Scorer>, name: &str) {
    let without: Arc<dyn Scorer> = Arc::new(WithoutIntrusion(with.clone()));
    println!("\nbench-10k.md, {name} scorer, engine run per edit (ms):");
    println!("| scorer | median | p95 | findings (last) |\n|---|---:|---:|---:|");
    let mut engines = [Engine::new(), Engine::new()];
    let mut times = [Vec::new(), Vec::new()];
    let mut findings = [0, 0];
    let job = |scorer: &Arc<dyn Scorer>, version: i32, text: &str| Job {
        version,
        text: Arc::from(text),
        format: Some(Format::Markdown),
        skip: None,
        scorer: scorer.clone(),
        judge: segue::order::reorder::Judge {
            scorer: scorer.clone(),
            named: true,
        },
        policy: with.context_policy(),
        calibration: Arc::new(Calibration::shipped()),
        sensitivity: Sensitivity::Medium,
    };
    for (k, scorer) in [&with, &without].into_iter().enumerate() {
        engines[k]
            .run(&job(scorer, 1, text), 1, &|| false)
            .expect("first run");
    }
    for (i, t) in texts.iter().enumerate() {
        for (k, scorer) in [&with, &without].into_iter().enumerate() {
            let start = Instant::now();
            let a = engines[k]
                .run(&job(scorer, i as i32 + 2, t), i as u64 + 2, &|| false)
                .expect("run");
            times[k].push(start.elapsed().as_secs_f64() * 1000.0);
            findings[k] = a.findings.len();
        }
    }
    for (k, label) in ["with its intrusion model", "without it"]
        .iter()
        .enumerate()
    {
        let s = stats(times[k].clone());
        println!(
            "| {name} {label} | {:.1} | {:.1} | {} |",
            s.median, s.p95, findings[k]
        );
    }
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn model_stage_analysis_time() {
    let Ok(encoder) = shared_encoder(&ModelOptions::from_env()) else {
        eprintln!("skipping: the tier 1 models are not installed (run models/install)");
        return;
    };
    let text = doc();
    // The same edited texts for both: one character inserted into a prose line each.
    let texts = edited_texts(&text);
    // Every sentence of every edited text embedded beforehand: the encoder's cost is the same
    // with and without the model and would otherwise fall on whichever runs first.
    for t in &texts {
        let doc = segue::text::parse(t, Format::Markdown);
        let (_, units) = segue::score::analysis::sentence_units(&doc);
        let sentences: Vec<&str> = units.iter().flatten().copied().collect();
        encoder.embed(&sentences).expect("embed");
    }
    compare(
        &texts,
        &text,
        Arc::new(Embedding::new(encoder)),
        "embedding",
    );
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn tier0_intrusion_analysis_time() {
    let text = doc();
    let tier0 = segue::score::ScorerSet::builtin()
        .get("tier0")
        .expect("tier0");
    compare(&edited_texts(&text), &text, tier0, "tier0");
}
