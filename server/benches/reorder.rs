//! `cargo bench --bench reorder`: what the ordering model's paragraph reader costs when a
//! paragraph's sentences are reordered
//! (`segue reorder --paragraph`, the reorder code action).
//!
//! For sets of n = 4, 8, 12 and 16 consecutive sentences of dev documents (`SEGUE_BENCH_SETS`
//! sets per n, default 8), it times the ordering model's table plus exact decoding:
//!
//! - `heads`: the heads' objective without the reader (`ordering-head`), the baseline;
//! - `cold`: the full objective with an empty cache: one reader pass per set;
//! - `warm`: the same sets again, from the cache (a re-request after an edit elsewhere).
//!
//! Then the same for sets of n = 4, 8, 12 and 16 consecutive paragraphs (`segue reorder
//! --section`, the paragraph reorder action), where the reader reads each paragraph as one unit
//! when `ordering.json` gives the reader paragraph weights.
//!
//! Sentence embeddings are computed before timing, so all three rows measure the ordering step
//! alone. Reported as milliseconds per set and as ratios to `heads` measured in the same run.
//! Data: `SEGUE_BENCH_DATA`, else ../shared/data/dev.jsonl, else tests/fixtures/eval-small.jsonl.
//! Needs `models/install`; prints a reason and exits when the models are absent.

use segue::model::{shared_encoder, ModelOptions};
use segue::order::reorder::propose_order;
use segue::score::ordering::OrderingModel;
use segue::score::precedence::{OrderingScorer, Variant};
use segue::score::{Level, Unit};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `count` sets of `n` consecutive units (each unit its sentences) at `level`, after skipping
/// `skip` documents that have enough units.
fn sets(level: Level, n: usize, count: usize, skip: usize) -> Vec<Vec<Vec<String>>> {
    let path = [
        std::env::var_os("SEGUE_BENCH_DATA").map(PathBuf::from),
        Some(root().join("../shared/data/dev.jsonl")),
        Some(root().join("tests/fixtures/eval-small.jsonl")),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.is_file())
    .expect("a corpus to read sentences from");
    let docs = segue::eval::data::read_corpus(&path).expect("the corpus parses");
    docs.iter()
        .map(|d| match level {
            Level::Sentence => d.sentences().iter().map(|s| vec![s.to_string()]).collect(),
            Level::Paragraph => d.paragraphs.clone(),
        })
        .filter(|units: &Vec<Vec<String>>| units.len() >= n)
        .skip(skip)
        .take(count)
        .map(|units| units[..n].to_vec())
        .collect()
}

fn time(scorer: &OrderingScorer, level: Level, sets: &[Vec<Vec<String>>]) -> f64 {
    let start = Instant::now();
    for set in sets {
        let units: Vec<Unit<'_>> = set
            .iter()
            .map(|u| u.iter().map(String::as_str).collect())
            .collect();
        let table = scorer.table(&units, level).expect("it scores");
        std::hint::black_box(propose_order(&table));
    }
    start.elapsed().as_secs_f64() * 1000.0 / sets.len().max(1) as f64
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let options = ModelOptions::from_env();
    let (encoder, model) = match (shared_encoder(&options), OrderingModel::load(&options)) {
        (Ok(e), Ok(m)) => (e, Arc::new(m)),
        (Err(e), _) => return eprintln!("skipping: {e}"),
        (_, Err(e)) => return eprintln!("skipping: {e}"),
    };
    if let Err(why) = model.reader() {
        return eprintln!("skipping: {why}");
    }
    let count = std::env::var("SEGUE_BENCH_SETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let head = OrderingScorer::new(encoder.clone(), model.clone()).with_variant(Variant::Head);
    let full = OrderingScorer::new(encoder.clone(), model.clone());
    let name = model.reader().map_or("heads alone", |_| "paragraph reader");
    for level in [Level::Sentence, Level::Paragraph] {
        println!(
            "\nreorder one set of n {}s with the {name} ({}): ordering table + exact decoding, ms per set ({count} sets per n, {} threads)",
            level.name(),
            if model.reader_weights(level).is_some() { "used at this level" } else { "not used at this level" },
            options.threads()
        );
        println!("| n | heads | cold | cold / heads | warm | warm / heads |");
        println!("|---:|---:|---:|---:|---:|---:|");
        for (k, n) in [4usize, 8, 12, 16].into_iter().enumerate() {
            let sets = sets(level, n, count, k * count);
            let flat: Vec<&str> = sets
                .iter()
                .flatten()
                .flatten()
                .map(String::as_str)
                .collect();
            encoder.embed(&flat).expect("embeddings");
            let h = time(&head, level, &sets);
            let cold = time(&full, level, &sets);
            let warm = time(&full, level, &sets);
            println!(
                "| {n} | {h:.1} | {cold:.1} | {:.1}× | {warm:.1} | {:.2}× |",
                cold / h,
                warm / h
            );
        }
    }
}
