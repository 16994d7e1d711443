//! Research tools, ignored by default, that write the intrusion models' training data.
//! `write_prose_corpus` writes a real-prose corpus folder as Segue segments it, for the `embedding`
//! model's trainer (`models/train/intrusion/train.py`; see the test). `write_tier0_intrusion_data`
//! writes the `tier0` intrusion model's training or tuning data
//! (`models/train/intrusion/train_tier0.py` reads it). For every document of a corpus and each
//! level, the window features of every unit (`segue::score::intrusion::table_features` on the
//! `tier0` table) of the original and of `SEGUE_INTRUSION_COPIES` copies with one unit of another
//! document inserted at a random place — a sentence inside a paragraph of at least three
//! sentences, or a paragraph between two paragraphs, as the embedding model's trainer does:
//!
//! ```sh
//! SEGUE_INTRUSION_CORPUS=target/bbscore/train.bb.jsonl SEGUE_INTRUSION_COPIES=8 \
//!   SEGUE_INTRUSION_OUT=target/intrusion/tier0-train.jsonl \
//!   cargo test --release -p segue --test intrusion_data -- --ignored --nocapture
//! ```
//!
//! One JSON line per document, copy and level: `level`, `doc`, `copy` (0 = the original),
//! `intruder` (the inserted unit's index, or null), `reportable` (whether a transition leads into
//! each unit: not the first sentence of a paragraph, not the first paragraph) and `features`
//! (13 numbers per unit, or null for the two end units). Seeded (`SEGUE_INTRUSION_SEED`, 0).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use segue::eval::data::{read_corpus, CorpusDoc};
use segue::eval::prose::read_prose_corpus;
use segue::score::analysis::paragraph_units;
use segue::score::intrusion::table_features;
use segue::score::{Level, ScorerSet, Unit};
use segue::text::parse;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

/// `path` as given when absolute, else under the repository root.
fn from_root(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

/// The units of `doc` at `level` (each a list of sentences), and whether each is reportable.
fn units(doc: &CorpusDoc, level: Level) -> (Vec<Vec<String>>, Vec<bool>) {
    match level {
        Level::Sentence => doc
            .paragraphs
            .iter()
            .flat_map(|p| p.iter().enumerate().map(|(k, s)| (vec![s.clone()], k > 0)))
            .unzip(),
        Level::Paragraph => doc
            .paragraphs
            .iter()
            .enumerate()
            .map(|(k, p)| (p.clone(), k > 0))
            .unzip(),
    }
}

/// Where to insert a unit of `donor` into `doc` at `level`, and the unit; `None` when `doc` has
/// no place for one.
fn intruder(
    doc: &CorpusDoc,
    donor: &CorpusDoc,
    level: Level,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, Vec<String>)> {
    let (donor_units, _) = units(donor, level);
    if donor_units.is_empty() {
        return None;
    }
    let unit = donor_units[rng.gen_range(0..donor_units.len())].clone();
    match level {
        Level::Sentence => {
            let sizes: Vec<usize> = doc.paragraphs.iter().map(Vec::len).collect();
            let candidates: Vec<usize> = (0..sizes.len()).filter(|&k| sizes[k] >= 3).collect();
            if candidates.is_empty() {
                return None;
            }
            let k = candidates[rng.gen_range(0..candidates.len())];
            let start: usize = sizes[..k].iter().sum();
            Some((start + rng.gen_range(1..sizes[k]), unit))
        }
        Level::Paragraph => {
            let m = doc.paragraphs.len();
            (m >= 2).then(|| (rng.gen_range(1..m), unit))
        }
    }
}

#[test]
#[ignore = "research tool: writes the tier0 intrusion model's data"]
fn write_tier0_intrusion_data() {
    let Some(corpus) = env("SEGUE_INTRUSION_CORPUS") else {
        println!("skipped: set SEGUE_INTRUSION_CORPUS to a JSONL corpus");
        return;
    };
    let copies: usize = env("SEGUE_INTRUSION_COPIES")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let seed: u64 = env("SEGUE_INTRUSION_SEED")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let out = PathBuf::from(
        env("SEGUE_INTRUSION_OUT").unwrap_or_else(|| "target/intrusion/tier0.jsonl".into()),
    );
    let docs = read_corpus(std::path::Path::new(&corpus)).expect("corpus");
    assert!(docs.len() >= 2, "need at least two documents");
    let scorer = ScorerSet::builtin().get("tier0").expect("tier0");
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).expect("output folder");
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(&out).expect("output"));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows = 0;
    for level in [Level::Sentence, Level::Paragraph] {
        for (d, doc) in docs.iter().enumerate() {
            let (base, base_reportable) = units(doc, level);
            for copy in 0..=copies {
                let (texts, reportable, at) = if copy == 0 {
                    (base.clone(), base_reportable.clone(), None)
                } else {
                    let mut other = rng.gen_range(0..docs.len() - 1);
                    if other >= d {
                        other += 1;
                    }
                    let Some((pos, unit)) = intruder(doc, &docs[other], level, &mut rng) else {
                        continue;
                    };
                    let mut texts = base.clone();
                    texts.insert(pos, unit);
                    let mut reportable = base_reportable.clone();
                    reportable.insert(pos, true);
                    (texts, reportable, Some(pos))
                };
                let unit_refs: Vec<Unit<'_>> = texts
                    .iter()
                    .map(|u| u.iter().map(String::as_str).collect())
                    .collect();
                let table = scorer.prepare(&unit_refs, level);
                let features: Vec<Option<Vec<f64>>> = table_features(table.as_ref())
                    .into_iter()
                    .map(|f| f.map(|f| f.to_vec()))
                    .collect();
                let row = json!({
                    "level": level.name(),
                    "doc": doc.id,
                    "copy": copy,
                    "intruder": at,
                    "reportable": reportable,
                    "features": features,
                });
                writeln!(file, "{row}").expect("write");
                rows += 1;
            }
        }
    }
    file.flush().expect("flush");
    println!("wrote {} ({rows} rows)", out.display());
}

/// Writes a real-prose corpus folder (`tests/prose/`'s parts under `target/prose/`) as a JSONL
/// corpus that `models/train/embed.py` embeds and `models/train/intrusion/train.py --prose`
/// trains on: one line per file, `id`, `genre` and `paragraphs` (each paragraph's sentences, as
/// Segue's own parser segments the file):
///
/// ```sh
/// SEGUE_PROSE_DIR=target/prose/train SEGUE_PROSE_OUT=target/intrusion/prose-train.jsonl \
///   cargo test --release -p segue --test intrusion_data -- --ignored --nocapture prose
/// ```
///
/// (Relative paths are read from the repository root, not `server/` where the test runs.)
#[test]
#[ignore = "research tool: writes a real-prose corpus as JSONL for the intrusion trainer"]
fn write_prose_corpus() {
    let Some(dir) = env("SEGUE_PROSE_DIR") else {
        println!("skipped: set SEGUE_PROSE_DIR to a real-prose corpus folder");
        return;
    };
    let out =
        from_root(&env("SEGUE_PROSE_OUT").unwrap_or_else(|| "target/intrusion/prose.jsonl".into()));
    let docs = read_prose_corpus(&from_root(&dir)).expect("corpus");
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).expect("output folder");
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(&out).expect("output"));
    for doc in &docs {
        let parsed = parse(&doc.source, doc.format);
        let (_, units) = paragraph_units(&parsed);
        let row = json!({"id": doc.id, "genre": doc.genre, "paragraphs": units});
        writeln!(file, "{row}").expect("write");
    }
    println!("{} documents → {}", docs.len(), out.display());
}
