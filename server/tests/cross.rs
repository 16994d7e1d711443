//! The sentence-precedence cross-encoder: its committed metadata, parity of the installed export
//! with PyTorch (`models/ordering/cross-fixture.json`, written by
//! `models/train/ordering/cross/adapter.py`), its cache, and how the ordering model uses the set
//! model its metadata names (this cross-encoder or the paragraph reader, `tests/reader.rs`) or
//! falls back to the heads.

mod common;

use segue::model::files::manifest;
use segue::model::{CrossEncoder, ModelOptions};
use segue::order::model::{CrossUse, OrderingMeta, OrderingModel};
use segue::score::{Level, Unit};
use std::path::PathBuf;

fn models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models")
}

fn meta() -> OrderingMeta {
    let text = std::fs::read_to_string(models().join("ordering/ordering.json"))
        .expect("models/ordering/ordering.json is committed");
    OrderingMeta::parse(&text).expect("the committed metadata parses")
}

/// A fixture pair: both texts, PyTorch's precedence logit and, for a model with a successor
/// output, its successor logit.
type FixturePair = (String, String, f32, Option<f32>);

fn fixture() -> Vec<FixturePair> {
    let text = std::fs::read_to_string(models().join("ordering/cross-fixture.json"))
        .expect("models/ordering/cross-fixture.json is committed");
    let v: serde_json::Value = serde_json::from_str(&text).expect("the fixture parses");
    v["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .map(|p| {
            (
                p["a"].as_str().expect("a").to_string(),
                p["b"].as_str().expect("b").to_string(),
                p["logit"].as_f64().expect("logit") as f32,
                p.get("next").and_then(|y| y.as_f64()).map(|y| y as f32),
            )
        })
        .collect()
}

/// Sentences of a dev-like abstract, in order.
const ABSTRACT: [&str; 6] = [
    "We study how writers order the sentences of a paragraph.",
    "Previous work scored each sentence on its own.",
    "In contrast, our model reads two sentences at once.",
    "It is trained on thousands of paragraphs.",
    "On held-out data, it improves the exact-match rate.",
    "We release the code and the trained weights.",
];

#[test]
fn the_committed_metadata_names_the_manifest_export() {
    let cross = meta().cross.expect("ordering.json has a cross section");
    let row = manifest()
        .into_iter()
        .find(|e| e.path == cross.file)
        .expect("manifest.tsv lists the export ordering.json names");
    assert_eq!(
        row.sha256, cross.sha256,
        "the weights in ordering.json were set with another export; rerun cross/tune.py or reader/tune.py"
    );
    assert!(cross.max_units >= 2);
    let w = cross
        .levels
        .get("sentence")
        .expect("sentence weights")
        .weights;
    assert!(w.cross_precedence > 0.0 || w.cross_borda > 0.0, "{w:?}");
    // Since session 9 the reader also orders the paragraphs of a section, with weights of its own.
    let p = cross
        .levels
        .get("paragraph")
        .expect("paragraph weights")
        .weights;
    assert!(p.uses_set_model(), "{p:?}");
    let adapter = std::fs::metadata(models().join("ordering/cross.safetensors"))
        .expect("the adapter is committed");
    assert!(
        adapter.len() < 4 << 20,
        "the adapter is {} bytes",
        adapter.len()
    );
}

#[test]
fn the_export_matches_pytorch_and_caches_pairs() {
    if !common::models_installed() {
        return;
    }
    let cross = CrossEncoder::load(&ModelOptions::from_env()).expect("the cross-encoder loads");
    let fx = fixture();
    let pairs: Vec<(&str, &str)> = fx
        .iter()
        .map(|(a, b, _, _)| (a.as_str(), b.as_str()))
        .collect();
    let both = cross.pair_logits(&pairs).expect("it runs");
    let got: Vec<f32> = both.iter().map(|p| p.precedence).collect();
    for ((a, b, want, want_next), got) in fx.iter().zip(&both) {
        assert!(
            (got.precedence - want).abs() < 1e-3,
            "{a:?} / {b:?}: {} (Rust) vs {want} (PyTorch)",
            got.precedence
        );
        assert_eq!(
            got.next.is_some(),
            want_next.is_some(),
            "the export and the fixture disagree on the successor output"
        );
        if let (Some(got), Some(want)) = (got.next, want_next) {
            assert!(
                (got - want).abs() < 1e-3,
                "{a:?} / {b:?}: successor {got} (Rust) vs {want} (PyTorch)"
            );
        }
    }
    assert_eq!(cross.has_successor(), fx.iter().all(|p| p.3.is_some()));
    let run = cross.pairs_run();
    assert_eq!(run, pairs.len() as u64);
    // Both outputs are cached together: asking for the precedence alone runs nothing.
    assert_eq!(cross.logits(&pairs).expect("it runs"), got);
    assert_eq!(cross.pairs_run(), run);
    // The same pairs again, reordered and with other whitespace: all from the cache.
    let again: Vec<String> = fx
        .iter()
        .rev()
        .map(|(a, _, _, _)| format!("  {a} "))
        .collect();
    let pairs2: Vec<(&str, &str)> = again
        .iter()
        .zip(fx.iter().rev())
        .map(|(a, (_, b, _, _))| (a.as_str(), b.as_str()))
        .collect();
    let got2 = cross.logits(&pairs2).expect("it runs");
    assert_eq!(cross.pairs_run(), run, "every pair came from the cache");
    let mut back = got2.clone();
    back.reverse();
    assert_eq!(back, got);

    // The precedence matrix holds the same logits, both directions, zero diagonal.
    let x = cross.precedence(&ABSTRACT).expect("it runs");
    let n = ABSTRACT.len();
    assert_eq!(x.len(), n * n);
    let one = cross
        .logits(&[(ABSTRACT[1], ABSTRACT[4])])
        .expect("it runs");
    assert_eq!(x[n + 4], one[0]);
    assert!((0..n).all(|i| x[i * n + i] == 0.0));
    // The opening sentence should precede the others more often than not.
    let ahead = (1..n).filter(|&j| x[j] > x[j * n]).count();
    assert!(
        ahead >= 3,
        "the first sentence precedes {ahead} of {}",
        n - 1
    );
}

#[test]
fn the_ordering_model_uses_it_for_small_sentence_sets() {
    if !common::models_installed() {
        return;
    }
    let model = OrderingModel::load(&ModelOptions::from_env()).expect("the ordering model loads");
    let units: Vec<Unit<'_>> = ABSTRACT.iter().map(|s| vec![*s]).collect();
    let vectors = vec![vec![0.05f32; model.meta().embedding.dim]; units.len()];
    let obj = model
        .objective(Level::Sentence, &units, &vectors)
        .expect("it scores");
    assert_eq!(obj.cross, CrossUse::Used);
    assert_eq!(Some(obj.weights), model.cross_weights(Level::Sentence));
    assert_eq!(obj.scores.cross.len(), units.len() * units.len());
    for i in 0..units.len() {
        for j in 0..units.len() {
            if i != j {
                // log σ(d) + log σ(−d) pairs up: P(i before j) + P(j before i) = 1.
                let p = obj.scores.cross[i * 6 + j].exp() + obj.scores.cross[j * 6 + i].exp();
                assert!((p - 1.0).abs() < 1e-9, "{p}");
            }
        }
    }
    // The successor enters exactly when the export has it and the weights use it.
    let successor = model.cross_encoder().expect("it loaded").has_successor();
    assert_eq!(obj.scores.cross_next.is_empty(), !successor);
    if successor {
        for i in 0..units.len() {
            let row: f64 = (0..units.len())
                .filter(|&j| j != i)
                .map(|j| obj.scores.cross_next[i * 6 + j].exp())
                .sum();
            assert!((row - 1.0).abs() < 1e-9, "{row}");
        }
    }
    let name = model.cross_encoder().expect("it loaded").name();
    assert!(
        model.summary().contains(&format!("{name} on")),
        "{}",
        model.summary()
    );

    // Paragraphs use it with their own weights where the metadata has them (the paragraph
    // reader, since session 9), and keep the heads' objective otherwise.
    let obj = model
        .objective(Level::Paragraph, &units, &vectors)
        .expect("it scores");
    match model.cross_weights(Level::Paragraph) {
        Some(weights) => {
            assert_eq!(obj.cross, CrossUse::Used);
            assert_eq!(obj.weights, weights);
            assert_ne!(Some(weights), model.cross_weights(Level::Sentence));
            assert_eq!(obj.scores.cross.len(), units.len() * units.len());
        }
        None => {
            assert_eq!(obj.cross, CrossUse::NotApplicable);
            assert_eq!(Some(obj.weights), model.weights(Level::Paragraph));
        }
    }
    // Sets above the metadata's limit keep the heads' objective.
    let limit = model.meta().cross.as_ref().expect("cross").max_units;
    let many: Vec<String> = (0..=limit)
        .map(|k| format!("Sentence number {k}."))
        .collect();
    let units: Vec<Unit<'_>> = many.iter().map(|s| vec![s.as_str()]).collect();
    let vectors = vec![vec![0.05f32; model.meta().embedding.dim]; units.len()];
    let obj = model
        .objective(Level::Sentence, &units, &vectors)
        .expect("it scores");
    assert_eq!(obj.cross, CrossUse::NotApplicable);
    assert!(obj.scores.cross.is_empty());
    assert!(obj.scores.cross_next.is_empty());
}

#[test]
fn a_missing_or_corrupt_export_falls_back_to_the_heads() {
    if !common::models_installed() {
        return;
    }
    // A models folder with the runtime and the encoder but not the export the metadata names
    // (onnx/cross/ or onnx/reader/).
    let file = meta().cross.expect("cross").file;
    let tmp = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(models().join("lib"), tmp.path().join("lib")).expect("link");
    std::fs::create_dir(tmp.path().join("onnx")).expect("mkdir");
    std::os::unix::fs::symlink(models().join("onnx/minilm"), tmp.path().join("onnx/minilm"))
        .expect("link");
    let model = falls_back(tmp.path());
    assert!(
        model.summary().contains(" unavailable"),
        "{}",
        model.summary()
    );

    // A corrupt export is an error naming the fix, not a crash; the heads still order.
    let export = tmp.path().join(&file);
    std::fs::create_dir_all(export.parent().expect("a folder")).expect("mkdir");
    std::fs::write(&export, b"not a model").expect("write");
    falls_back(tmp.path());
}

/// Loads the ordering model with the models folder `dir` and checks that the sentence objective
/// falls back to the heads: the cross-encoder failed with an error naming `models/install`, and
/// the heads' own weights and scores are used.
fn falls_back(dir: &std::path::Path) -> OrderingModel {
    let model =
        OrderingModel::load_from(&models().join("ordering"), dir, &ModelOptions::from_env())
            .expect("the heads load without the cross-encoder");
    let units: Vec<Unit<'_>> = ABSTRACT.iter().map(|s| vec![*s]).collect();
    let vectors = vec![vec![0.05f32; model.meta().embedding.dim]; units.len()];
    let obj = model
        .objective(Level::Sentence, &units, &vectors)
        .expect("it scores");
    match &obj.cross {
        CrossUse::Failed(why) => assert!(why.contains("models/install"), "{why}"),
        other => panic!("expected a failure, got {other:?}"),
    }
    assert_eq!(Some(obj.weights), model.weights(Level::Sentence));
    assert!(obj.scores.cross.is_empty());
    model
}
