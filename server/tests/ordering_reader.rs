//! How the ordering model uses the paragraph reader its metadata names (the reader itself is
//! checked in `tests/reader.rs`): the committed metadata, the objective's reader terms at both
//! levels, and the fall-back to the heads when the export is missing or corrupt.

mod common;

use segue::model::files::manifest;
use segue::model::ModelOptions;
use segue::score::ordering::{OrderingMeta, OrderingModel, ReaderUse};
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
    let cross = meta().reader.expect("ordering.json has a cross section");
    let row = manifest()
        .into_iter()
        .find(|e| e.path == cross.file)
        .expect("manifest.tsv lists the export ordering.json names");
    assert_eq!(
        row.sha256, cross.sha256,
        "the weights in ordering.json were set with another export; rerun reader/tune.py"
    );
    assert!(cross.max_units >= 2);
    let w = cross
        .levels
        .get("sentence")
        .expect("sentence weights")
        .weights;
    assert!(w.reader_precedence > 0.0 || w.reader_borda > 0.0, "{w:?}");
    // The reader also orders the paragraphs of a section, with weights of its own.
    let p = cross
        .levels
        .get("paragraph")
        .expect("paragraph weights")
        .weights;
    assert!(p.uses_reader(), "{p:?}");
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
    assert_eq!(obj.reader, ReaderUse::Used);
    assert_eq!(Some(obj.weights), model.reader_weights(Level::Sentence));
    assert_eq!(obj.scores.reader.len(), units.len() * units.len());
    for i in 0..units.len() {
        for j in 0..units.len() {
            if i != j {
                // log σ(d) + log σ(−d) pairs up: P(i before j) + P(j before i) = 1.
                let p = obj.scores.reader[i * 6 + j].exp() + obj.scores.reader[j * 6 + i].exp();
                assert!((p - 1.0).abs() < 1e-9, "{p}");
            }
        }
    }
    // The reader's successor enters: each row is a distribution over the other units.
    assert_eq!(obj.scores.reader_next.len(), units.len() * units.len());
    for i in 0..units.len() {
        let row: f64 = (0..units.len())
            .filter(|&j| j != i)
            .map(|j| obj.scores.reader_next[i * 6 + j].exp())
            .sum();
        assert!((row - 1.0).abs() < 1e-9, "{row}");
    }
    model.reader().expect("it loaded");
    assert!(
        model.summary().contains("paragraph reader on"),
        "{}",
        model.summary()
    );

    // Paragraphs use it with their own weights where the metadata has them, and keep the heads'
    // objective otherwise.
    let obj = model
        .objective(Level::Paragraph, &units, &vectors)
        .expect("it scores");
    match model.reader_weights(Level::Paragraph) {
        Some(weights) => {
            assert_eq!(obj.reader, ReaderUse::Used);
            assert_eq!(obj.weights, weights);
            assert_ne!(Some(weights), model.reader_weights(Level::Sentence));
            assert_eq!(obj.scores.reader.len(), units.len() * units.len());
        }
        None => {
            assert_eq!(obj.reader, ReaderUse::NotApplicable);
            assert_eq!(Some(obj.weights), model.weights(Level::Paragraph));
        }
    }
    // Sets above the metadata's limit keep the heads' objective.
    let limit = model.meta().reader.as_ref().expect("cross").max_units;
    let many: Vec<String> = (0..=limit)
        .map(|k| format!("Sentence number {k}."))
        .collect();
    let units: Vec<Unit<'_>> = many.iter().map(|s| vec![s.as_str()]).collect();
    let vectors = vec![vec![0.05f32; model.meta().embedding.dim]; units.len()];
    let obj = model
        .objective(Level::Sentence, &units, &vectors)
        .expect("it scores");
    assert_eq!(obj.reader, ReaderUse::NotApplicable);
    assert!(obj.scores.reader.is_empty());
    assert!(obj.scores.reader_next.is_empty());
}

#[test]
fn a_missing_or_corrupt_export_falls_back_to_the_heads() {
    if !common::models_installed() {
        return;
    }
    // A models folder with the runtime and the encoder but not the export the metadata names
    // (onnx/reader/).
    let file = meta().reader.expect("cross").file;
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
/// falls back to the heads: the reader failed with an error naming `models/install`, and
/// the heads' own weights and scores are used.
fn falls_back(dir: &std::path::Path) -> OrderingModel {
    let model =
        OrderingModel::load_from(&models().join("ordering"), dir, &ModelOptions::from_env())
            .expect("the heads load without the reader");
    let units: Vec<Unit<'_>> = ABSTRACT.iter().map(|s| vec![*s]).collect();
    let vectors = vec![vec![0.05f32; model.meta().embedding.dim]; units.len()];
    let obj = model
        .objective(Level::Sentence, &units, &vectors)
        .expect("it scores");
    match &obj.reader {
        ReaderUse::Failed(why) => assert!(why.contains("models/install"), "{why}"),
        other => panic!("expected a failure, got {other:?}"),
    }
    assert_eq!(Some(obj.weights), model.weights(Level::Sentence));
    assert!(obj.scores.reader.is_empty());
    model
}
