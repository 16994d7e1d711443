//! Does the language server's score cache need a document-wide key? (ignored by default; a
//! measurement, run it in release):
//!
//! ```sh
//! cargo test --release -p segue --test lsp_cache -- --ignored --nocapture
//! ```
//!
//! The cache keys a transition score by (scorer, level, hash of the two units' texts, context).
//! With context 0 (`ContextPolicy::Pairwise`) an edit re-scores only the transitions touching the
//! edited units, and the scorer prepares only those units; with context = hash of every unit at
//! the level (`ContextPolicy::Document`) any edit that changes a unit re-scores the whole level,
//! exactly as `segue check` does. For each scorer this test applies random one-word edits to
//! real documents, runs the engine with the *pair-local* policy on the edited text (warm cache
//! from the previous text) and compares every transition score and the findings with an exact
//! analysis (`analyze`) of the same text. It also times both policies.

use rand::{Rng, SeedableRng};
use segue::lsp::engine::{ContextPolicy, Engine, Job};
use segue::score::analysis::analyze;
use segue::score::findings::{Calibration, Sensitivity};
use segue::score::{Level, ScorerSet};
use segue::text::{parse, Format};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

fn documents() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let bench = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/bench-10k.md");
    if let Ok(t) = std::fs::read_to_string(bench) {
        out.push(("bench-10k.md".to_string(), t));
    }
    let data = std::env::var("SEGUE_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    if let Ok(jsonl) = std::fs::read_to_string(data.join("dev.jsonl")) {
        for line in jsonl.lines().step_by(16).take(30) {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(paras) = v["paragraphs"].as_array() else {
                continue;
            };
            let text: Vec<String> = paras
                .iter()
                .filter_map(|p| p.as_array())
                .map(|p| {
                    p.iter()
                        .filter_map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            out.push((
                v["id"].as_str().unwrap_or("?").to_string(),
                text.join("\n\n") + "\n",
            ));
        }
    }
    out
}

/// Replaces one random word of `text` by another word of `text`.
fn edit_word(text: &str, rng: &mut impl Rng) -> String {
    let words: Vec<(usize, &str)> = text
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .filter(|(_, w)| w.chars().all(char::is_alphabetic) && w.len() > 3)
        .collect();
    if words.len() < 2 {
        return text.to_string();
    }
    let (at, old) = words[rng.gen_range(0..words.len())];
    let (_, new) = words[rng.gen_range(0..words.len())];
    let mut out = text.to_string();
    out.replace_range(at..at + old.len(), new);
    out
}

#[test]
#[ignore = "measurement: run with --release -- --ignored --nocapture"]
fn pair_local_cache_versus_exact_scores() {
    let docs = documents();
    let set = ScorerSet::builtin();
    if let Some((name, text)) = docs.first() {
        let mut times = Vec::new();
        let mut doc = parse(text, Format::Markdown);
        for _ in 0..20 {
            let t = Instant::now();
            doc = parse(text, Format::Markdown);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        let sentences = doc.sentences().count();
        let transitions = analyze(&doc, set.get("lexical").expect("lexical").as_ref());
        println!(
            "\nsegmenting {name}: {:.2} ms (median of 20); {} words, {sentences} sentences, {} + {} transitions",
            times[10],
            doc.word_count(),
            transitions.sentences.len(),
            transitions.paragraphs.len()
        );
    }
    let calibration = Arc::new(Calibration::shipped());
    println!("\n{} documents, 5 one-word edits each", docs.len());
    println!("| scorer | transitions compared | differ > 1e-9 | differ > 0.01 | max abs diff | edits whose findings differ | exact run ms (median) | pair-local run ms (median) |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for name in ["tier0", "entity-grid", "lexical", "lexical-noun"] {
        let Some(scorer) = set.get(name) else {
            continue;
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (
            mut compared,
            mut differ,
            mut differ_big,
            mut max_diff,
            mut edits,
            mut findings_differ,
        ) = (0usize, 0usize, 0usize, 0f64, 0usize, 0usize);
        let (mut exact_ms, mut local_ms) = (Vec::new(), Vec::new());
        for (_, text) in &docs {
            let job = |t: &str, policy| Job {
                version: 1,
                text: Arc::from(t),
                format: Some(Format::Markdown),
                skip: None,
                scorer: scorer.clone(),
                judge: segue::order::reorder::Judge {
                    scorer: scorer.clone(),
                    named: true,
                },
                policy,
                calibration: calibration.clone(),
                sensitivity: Sensitivity::Medium,
            };
            let mut local = Engine::new();
            let mut exact = Engine::new();
            let mut current = text.clone();
            let _ = local.run(&job(&current, ContextPolicy::Pairwise), 0, &|| false);
            let _ = exact.run(&job(&current, ContextPolicy::Document), 0, &|| false);
            for _ in 0..5 {
                current = edit_word(&current, &mut rng);
                edits += 1;
                let t = Instant::now();
                let Ok(approx) = local.run(&job(&current, ContextPolicy::Pairwise), 0, &|| false)
                else {
                    continue;
                };
                local_ms.push(t.elapsed().as_secs_f64() * 1000.0);
                let t = Instant::now();
                let Ok(engine_exact) =
                    exact.run(&job(&current, ContextPolicy::Document), 0, &|| false)
                else {
                    continue;
                };
                exact_ms.push(t.elapsed().as_secs_f64() * 1000.0);
                let truth = analyze(&parse(&current, Format::Markdown), scorer.as_ref());
                for level in [Level::Sentence, Level::Paragraph] {
                    for ((a, b), e) in approx
                        .analysis
                        .at(level)
                        .iter()
                        .zip(truth.at(level))
                        .zip(engine_exact.analysis.at(level))
                    {
                        assert!(
                            (e.score - b.score).abs() < 1e-9,
                            "the Document policy is exact"
                        );
                        let d = (a.score - b.score).abs();
                        compared += 1;
                        differ += usize::from(d > 1e-9);
                        differ_big += usize::from(d > 0.01);
                        max_diff = max_diff.max(d);
                    }
                }
                let key = |f: &segue::score::findings::Finding| (f.level, f.to);
                let fa: Vec<_> = approx.findings.iter().map(key).collect();
                let fe: Vec<_> = engine_exact.findings.iter().map(key).collect();
                findings_differ += usize::from(fa != fe);
            }
        }
        let med = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
        };
        println!(
            "| {name} | {compared} | {differ} ({:.1} %) | {differ_big} ({:.1} %) | {max_diff:.3} | {findings_differ} of {edits} | {:.1} | {:.1} |",
            100.0 * differ as f64 / compared.max(1) as f64,
            100.0 * differ_big as f64 / compared.max(1) as f64,
            med(exact_ms),
            med(local_ms),
        );
    }
}
