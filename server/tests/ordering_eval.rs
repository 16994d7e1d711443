//! The ordering evaluation behind docs/ordering.md (ignored by default: it needs the models and the
//! dev corpora, and embeds a few thousand sentences):
//!
//! ```text
//! cargo test --release -p segue --test ordering_eval -- --ignored --nocapture --test-threads 1
//! ```
//!
//! - `dev_table`: PMR, Acc, τ, WLCS-l and Ordered BERTScore v2 on dev data for lexical greedy,
//!   embedding-cosine DP, the pairwise model DP (`ordering-pairwise`), the heads without the
//!   set model (`ordering-head`) and the full model (`ordering`: the heads with the paragraph reader
//!   that `ordering.json` names), at the sentence level (dev.abstracts.jsonl, paragraphs of 4–10 sentences) and
//!   the paragraph level (dev.jsonl, documents of 2–16 paragraphs), through
//!   `segue::eval::ordering::order` — the code behind `segue eval --task ordering`.
//! - `noise_table`: the same systems on noisy copies, after seed 000: each unit is contaminated
//!   with probability p ∈ {0.2, 0.5, 1.0} by one kind of noise — `insert` (an unrelated advert
//!   sentence becomes a unit before it, and takes part in the order), `delete` (half of each of its
//!   sentences' tokens are dropped) or `alter` (half of its tokens are concatenated with the next,
//!   split, or have a letter replaced, seed 000's "Modify") — and reports the drop from clean data.
//!
//! Results are printed as Markdown and written to `target/ordering/*.json`. Set
//! `SEGUE_DEV_DATA` to the folder of the dev corpora (default `../shared/data`).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use segue::eval::data::{read_corpus, CorpusDoc};
use segue::eval::ordering::{order, Decoder, OrderingRow, OrderingSpec};
use segue::model::{shared_encoder, ModelOptions};
use segue::score::embedding::Embedding;
use segue::score::lexical::Lexical;
use segue::score::ordering::OrderingModel;
use segue::score::precedence::{OrderingScorer, Variant};
use segue::score::{Level, Scorer};
use std::path::PathBuf;
use std::sync::Arc;

const SEED: u64 = 13;

fn data_dir() -> PathBuf {
    std::env::var_os("SEGUE_DEV_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"))
}

fn out_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/ordering");
    let _ = std::fs::create_dir_all(&d);
    d
}

/// One system of the table: (label, scorer, decoder).
type System = (&'static str, Arc<dyn Scorer>, Decoder);

/// The systems of the table.
fn systems() -> Option<Vec<System>> {
    let options = ModelOptions::from_env();
    let encoder = match shared_encoder(&options) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("skipping: {e}");
            return None;
        }
    };
    let model = match OrderingModel::load(&options) {
        Ok(m) => Arc::new(m),
        Err(e) => {
            eprintln!("skipping: {e}");
            return None;
        }
    };
    Some(vec![
        (
            "lexical greedy",
            Arc::new(Lexical::plain()),
            Decoder::Greedy,
        ),
        (
            "embedding-cosine DP",
            Arc::new(Embedding::new(encoder.clone())),
            Decoder::Exact,
        ),
        (
            "pairwise model DP",
            Arc::new(
                OrderingScorer::new(encoder.clone(), model.clone()).with_variant(Variant::Pairwise),
            ),
            Decoder::Exact,
        ),
        (
            "heads without the set model DP",
            Arc::new(
                OrderingScorer::new(encoder.clone(), model.clone()).with_variant(Variant::Head),
            ),
            Decoder::Exact,
        ),
        (
            "full model DP",
            Arc::new(OrderingScorer::new(encoder, model)),
            Decoder::Exact,
        ),
    ])
}

/// The clean instances of a level as documents: one paragraph per document at the sentence level
/// (4–10 sentences), whole documents of 2–16 paragraphs at the paragraph level.
fn clean_docs(level: Level) -> Option<Vec<CorpusDoc>> {
    let (file, lo, hi) = match level {
        Level::Sentence => ("dev.abstracts.jsonl", 4, 10),
        Level::Paragraph => ("dev.jsonl", 2, 16),
    };
    let path = data_dir().join(file);
    let docs = match read_corpus(&path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("skipping: {e}");
            return None;
        }
    };
    let mut out = Vec::new();
    for d in docs {
        match level {
            Level::Sentence => {
                for (k, p) in d.paragraphs.iter().enumerate() {
                    if (lo..=hi).contains(&p.len()) {
                        out.push(CorpusDoc {
                            id: format!("{}/{k}", d.id),
                            paragraphs: vec![p.clone()],
                        });
                    }
                }
            }
            Level::Paragraph => {
                if (lo..=hi).contains(&d.paragraphs.len()) {
                    out.push(d);
                }
            }
        }
    }
    Some(out)
}

fn spec(level: Level, decoder: Decoder) -> OrderingSpec {
    OrderingSpec {
        levels: vec![level],
        min_units: 2,
        max_units: 64,
        seed: SEED,
        decoder,
    }
}

fn run(
    systems: &[(&'static str, Arc<dyn Scorer>, Decoder)],
    docs: &[CorpusDoc],
    level: Level,
) -> Vec<(&'static str, OrderingRow)> {
    systems
        .iter()
        .map(|(label, scorer, decoder)| {
            let row = order(scorer.as_ref(), docs, &spec(level, *decoder)).remove(0);
            (*label, row)
        })
        .collect()
}

fn print_rows(title: &str, rows: &[(&str, OrderingRow)]) {
    println!("\n{title}\n");
    println!("| system | instances | PMR | Acc | τ | WLCS-l | OBSv2 |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (label, r) in rows {
        println!(
            "| {label} | {} | {:.2} | {:.2} | {:.3} | {:.4} | {:.4} |",
            r.instances,
            r.pmr * 100.0,
            r.acc * 100.0,
            r.tau,
            r.wlcs_l,
            r.obs_v2
        );
    }
}

#[test]
#[ignore = "needs the models and the dev corpora; run explicitly (see the module docs)"]
fn dev_table() {
    let Some(systems) = systems() else { return };
    let mut all = Vec::new();
    for level in [Level::Sentence, Level::Paragraph] {
        let Some(docs) = clean_docs(level) else {
            return;
        };
        let rows = run(&systems, &docs, level);
        print_rows(&format!("{} level", level.name()), &rows);
        all.extend(
            rows.into_iter()
                .map(|(l, r)| serde_json::json!({"system": l, "row": r})),
        );
    }
    let path = out_dir().join("dev-table.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&all).unwrap_or_default(),
    )
    .ok();
}

/// Unrelated "advert" sentences (written for this test).
const ADVERTS: [&str; 16] = [
    "Fresh coffee, roasted this morning, delivered to your door.",
    "Upgrade your kitchen today with our award-winning knives.",
    "Sleep better tonight on the mattress that hugs you back.",
    "Book now and your second night at the seaside is free.",
    "The smartest phone plan in town costs less than lunch.",
    "Our running shoes were made for the long way home.",
    "Save twenty percent on garden furniture this weekend only.",
    "Feel the difference with a toothpaste dentists love.",
    "Learn a new language in ten minutes a day.",
    "Nothing cleans a carpet like our cordless vacuum.",
    "Treat your dog to the crunchiest biscuits in the park.",
    "Drive further on a single charge with the new hatchback.",
    "Your bank should listen, and ours does.",
    "Taste the sunshine in every glass of orange juice.",
    "Find your next holiday home with one simple search.",
    "Insurance that pays out before you finish the call.",
];

#[derive(Debug, Clone, Copy)]
enum Noise {
    Insert,
    Delete,
    Alter,
}

impl Noise {
    fn name(self) -> &'static str {
        match self {
            Noise::Insert => "insert",
            Noise::Delete => "delete",
            Noise::Alter => "alter",
        }
    }
}

fn delete_tokens(s: &str, rng: &mut ChaCha8Rng) -> String {
    let toks: Vec<&str> = s.split_whitespace().collect();
    if toks.len() < 2 {
        return s.to_string();
    }
    let mut idx: Vec<usize> = (0..toks.len()).collect();
    idx.shuffle(rng);
    let mut drop = idx[..toks.len() / 2].to_vec();
    drop.sort_unstable();
    toks.iter()
        .enumerate()
        .filter(|(i, _)| drop.binary_search(i).is_err())
        .map(|(_, t)| *t)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Seed 000's "Modify": half of the tokens are concatenated with the next, split at a random
/// position, or have one letter replaced.
fn alter_tokens(s: &str, rng: &mut ChaCha8Rng) -> String {
    let mut toks: Vec<String> = s.split_whitespace().map(str::to_string).collect();
    let n = toks.len();
    if n == 0 {
        return s.to_string();
    }
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(rng);
    let mut chosen = idx[..n.div_ceil(2)].to_vec();
    chosen.sort_unstable_by(|a, b| b.cmp(a));
    const SUBST: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789.,;-";
    for i in chosen {
        if i >= toks.len() {
            continue;
        }
        let chars: Vec<char> = toks[i].chars().collect();
        match rng.gen_range(0..3) {
            0 if i + 1 < toks.len() => {
                let next = toks.remove(i + 1);
                toks[i].push_str(&next);
            }
            1 if chars.len() >= 2 => {
                let at = rng.gen_range(1..chars.len());
                let (a, b): (String, String) =
                    (chars[..at].iter().collect(), chars[at..].iter().collect());
                toks[i] = a;
                toks.insert(i + 1, b);
            }
            _ if !chars.is_empty() => {
                let at = rng.gen_range(0..chars.len());
                let mut c = chars;
                c[at] = char::from(SUBST[rng.gen_range(0..SUBST.len())]);
                toks[i] = c.into_iter().collect();
            }
            _ => {}
        }
    }
    toks.join(" ")
}

/// A noisy copy of `doc` at `level`: every unit is contaminated with probability `p`.
fn noisy(doc: &CorpusDoc, level: Level, noise: Noise, p: f64, rng: &mut ChaCha8Rng) -> CorpusDoc {
    let units: Vec<Vec<String>> = match level {
        Level::Sentence => doc
            .paragraphs
            .iter()
            .flatten()
            .map(|s| vec![s.clone()])
            .collect(),
        Level::Paragraph => doc.paragraphs.clone(),
    };
    let mut out: Vec<Vec<String>> = Vec::new();
    for u in units {
        if !rng.gen_bool(p) {
            out.push(u);
            continue;
        }
        match noise {
            Noise::Insert => {
                out.push(vec![ADVERTS[rng.gen_range(0..ADVERTS.len())].to_string()]);
                out.push(u);
            }
            Noise::Delete => out.push(u.iter().map(|s| delete_tokens(s, rng)).collect()),
            Noise::Alter => out.push(u.iter().map(|s| alter_tokens(s, rng)).collect()),
        }
    }
    let paragraphs = match level {
        Level::Sentence => vec![out.into_iter().flatten().collect()],
        Level::Paragraph => out,
    };
    CorpusDoc {
        id: doc.id.clone(),
        paragraphs,
    }
}

#[test]
#[ignore = "needs the models and the dev corpora; run explicitly (see the module docs)"]
fn noise_table() {
    let Some(systems) = systems() else { return };
    let mut all = Vec::new();
    for level in [Level::Sentence, Level::Paragraph] {
        let Some(clean) = clean_docs(level) else {
            return;
        };
        let base = run(&systems, &clean, level);
        print_rows(&format!("{} level, clean", level.name()), &base);
        println!(
            "\n{} level: drop from clean (noisy − clean; PMR and Acc in points)\n",
            level.name()
        );
        println!("| noise | p | system | PMR | Acc | τ | WLCS-l |");
        println!("|---|---:|---|---:|---:|---:|---:|");
        for noise in [Noise::Insert, Noise::Delete, Noise::Alter] {
            for p in [0.2, 0.5, 1.0] {
                let docs: Vec<CorpusDoc> = clean
                    .iter()
                    .enumerate()
                    .map(|(k, d)| {
                        let mix = SEED
                            ^ ((k as u64) << 8)
                            ^ (((p * 10.0) as u64) << 40)
                            ^ ((noise as u64) << 48);
                        let mut rng = ChaCha8Rng::seed_from_u64(mix);
                        noisy(d, level, noise, p, &mut rng)
                    })
                    .collect();
                let rows = run(&systems, &docs, level);
                for ((label, r), (_, b)) in rows.iter().zip(&base) {
                    println!(
                        "| {} | {p} | {label} | {:+.2} | {:+.2} | {:+.3} | {:+.4} |",
                        noise.name(),
                        (r.pmr - b.pmr) * 100.0,
                        (r.acc - b.acc) * 100.0,
                        r.tau - b.tau,
                        r.wlcs_l - b.wlcs_l
                    );
                    all.push(serde_json::json!({"level": level.name(), "noise": noise.name(), "p": p, "system": label, "row": r, "clean": b}));
                }
            }
        }
    }
    let path = out_dir().join("noise-table.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&all).unwrap_or_default(),
    )
    .ok();
}

#[test]
fn noise_keeps_units_and_is_deterministic() {
    let doc = CorpusDoc {
        id: "d".into(),
        paragraphs: vec![vec![
            "One two three four.".into(),
            "Five six seven eight.".into(),
        ]],
    };
    let mut a = ChaCha8Rng::seed_from_u64(1);
    let mut b = ChaCha8Rng::seed_from_u64(1);
    let x = noisy(&doc, Level::Sentence, Noise::Insert, 1.0, &mut a);
    assert_eq!(x.paragraphs[0].len(), 4);
    assert_eq!(x, noisy(&doc, Level::Sentence, Noise::Insert, 1.0, &mut b));
    let d = noisy(&doc, Level::Sentence, Noise::Delete, 1.0, &mut a);
    assert!(d.paragraphs[0]
        .iter()
        .all(|s| s.split_whitespace().count() == 2));
    let m = noisy(&doc, Level::Sentence, Noise::Alter, 1.0, &mut a);
    assert_eq!(m.paragraphs[0].len(), 2);
    assert_ne!(m.paragraphs[0], doc.paragraphs[0]);
}
