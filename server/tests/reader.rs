//! The paragraph reader: parity of the installed export with PyTorch
//! (`models/ordering/reader-fixture.json`, written by `models/train/ordering/reader/adapter.py`),
//! its cache, and the shape of what it gives the ordering objective.

mod common;

use segue::model::{ModelOptions, ParagraphReader};
use std::path::PathBuf;

fn models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models")
}

/// A fixture paragraph: its sentences and PyTorch's precedence and successor logits.
struct FixtureParagraph {
    sentences: Vec<String>,
    precedence: Vec<Vec<f32>>,
    successor: Vec<Vec<f32>>,
}

fn fixture() -> Vec<FixtureParagraph> {
    let text = std::fs::read_to_string(models().join("ordering/reader-fixture.json"))
        .expect("models/ordering/reader-fixture.json is committed");
    let v: serde_json::Value = serde_json::from_str(&text).expect("the fixture parses");
    let matrix = |m: &serde_json::Value| -> Vec<Vec<f32>> {
        m.as_array()
            .expect("rows")
            .iter()
            .map(|r| {
                r.as_array()
                    .expect("row")
                    .iter()
                    .map(|x| x.as_f64().expect("number") as f32)
                    .collect()
            })
            .collect()
    };
    v["paragraphs"]
        .as_array()
        .expect("paragraphs")
        .iter()
        .map(|p| FixtureParagraph {
            sentences: p["sentences"]
                .as_array()
                .expect("sentences")
                .iter()
                .map(|s| s.as_str().expect("text").to_string())
                .collect(),
            precedence: matrix(&p["precedence"]),
            successor: matrix(&p["successor"]),
        })
        .collect()
}

#[test]
fn the_adapter_is_small_and_the_fixture_covers_edge_cases() {
    let adapter = std::fs::metadata(models().join("ordering/reader.safetensors"))
        .expect("the adapter is committed");
    assert!(
        adapter.len() < 4 << 20,
        "the adapter is {} bytes",
        adapter.len()
    );
    let fx = fixture();
    assert!(fx.iter().any(|p| p.sentences.len() == 1));
    assert!(fx.iter().any(|p| p.sentences.iter().any(String::is_empty)));
}

#[test]
fn the_export_matches_pytorch_and_caches_paragraphs() {
    if !common::models_installed() {
        return;
    }
    let reader = ParagraphReader::load(&ModelOptions::from_env()).expect("the reader loads");
    let mut runs = 0;
    for p in fixture() {
        let refs: Vec<&str> = p.sentences.iter().map(String::as_str).collect();
        let n = refs.len();
        let got = reader.read_in_order(&refs).expect("it runs");
        assert_eq!(got.precedence.len(), n * n);
        let next = got.next.expect("the reader has a successor output");
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    assert_eq!(got.precedence[i * n + j], 0.0);
                    assert_eq!(next[i * n + j], 0.0);
                    continue;
                }
                let (x, y) = (got.precedence[i * n + j], next[i * n + j]);
                assert!(
                    (x - p.precedence[i][j]).abs() < 1e-3,
                    "{refs:?} ({i}, {j}): precedence {x} (Rust) vs {} (PyTorch)",
                    p.precedence[i][j]
                );
                assert!(
                    (y - p.successor[i][j]).abs() < 1e-3,
                    "{refs:?} ({i}, {j}): successor {y} (Rust) vs {} (PyTorch)",
                    p.successor[i][j]
                );
                // Precedence is antisymmetric by construction.
                assert!((x + got.precedence[j * n + i]).abs() < 1e-4);
            }
        }
        if n >= 2 {
            runs += 1;
        }
        assert_eq!(reader.paragraphs_run(), runs, "one pass per paragraph");
        // The same paragraph with other whitespace comes from the cache.
        let spaced: Vec<String> = p.sentences.iter().map(|s| format!(" {s}  ")).collect();
        let spaced: Vec<&str> = spaced.iter().map(String::as_str).collect();
        let again = reader.read_in_order(&spaced).expect("it runs");
        assert_eq!(again.precedence, got.precedence);
        assert_eq!(reader.paragraphs_run(), runs);
    }
}

#[test]
fn a_set_gets_the_same_logits_in_any_order() {
    if !common::models_installed() {
        return;
    }
    let reader = ParagraphReader::load(&ModelOptions::from_env()).expect("the reader loads");
    let sentences = [
        "We study how writers order the sentences of a paragraph.",
        "Previous work scored each sentence on its own.",
        "In contrast, our model reads all of them at once.",
        "It is trained on thousands of paragraphs.",
    ];
    let n = sentences.len();
    let first = reader.set_logits(&sentences).expect("it runs");
    assert_eq!(reader.paragraphs_run(), 1);
    let order = [2, 0, 3, 1];
    let shuffled: Vec<&str> = order.iter().map(|&i| sentences[i]).collect();
    let second = reader.set_logits(&shuffled).expect("it runs");
    assert_eq!(
        reader.paragraphs_run(),
        1,
        "a permutation comes from the cache"
    );
    let (x, y) = (&first.precedence, first.next.as_ref().expect("successor"));
    let (x2, y2) = (&second.precedence, second.next.as_ref().expect("successor"));
    for (a, &i) in order.iter().enumerate() {
        for (b, &j) in order.iter().enumerate() {
            assert_eq!(x2[a * n + b], x[i * n + j]);
            assert_eq!(y2[a * n + b], y[i * n + j]);
        }
    }
    // The opening sentence comes first more often than not.
    let ahead = (1..n).filter(|&j| x[j] > 0.0).count();
    assert!(
        ahead >= 2,
        "the first sentence precedes {ahead} of {}",
        n - 1
    );
}

#[test]
fn long_paragraphs_fit_the_encoder() {
    if !common::models_installed() {
        return;
    }
    let reader = ParagraphReader::load(&ModelOptions::from_env()).expect("the reader loads");
    let long =
        "This sentence is long enough to be cut by the reader's per-sentence limit of tokens, \
                and it keeps going for a while to make sure of it.";
    let sentences: Vec<String> = (0..24).map(|k| format!("{long} Number {k}.")).collect();
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let got = reader
        .set_logits(&refs)
        .expect("24 long sentences still fit 512 positions");
    assert_eq!(got.precedence.len(), 24 * 24);
    assert!(got.precedence.iter().all(|x| x.is_finite()));
}
