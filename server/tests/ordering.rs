//! The trained ordering model: the committed metadata, parity of the cue features and of the ONNX
//! heads with the Python trainer (`models/ordering/fixture.json`, written by
//! `models/train/ordering/train.py`), and the scorer end to end when the models are installed.

use segue::model::ModelOptions;
use segue::score::ordering::{pair_cues, unit_cues, OrderingMeta, OrderingModel};
use segue::score::{Level, Unit};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/ordering")
}

fn meta() -> OrderingMeta {
    let text = std::fs::read_to_string(dir().join("ordering.json"))
        .expect("models/ordering/ordering.json is committed");
    OrderingMeta::parse(&text).expect("the committed metadata parses")
}

fn fixture() -> serde_json::Value {
    let text = std::fs::read_to_string(dir().join("fixture.json"))
        .expect("models/ordering/fixture.json is committed");
    serde_json::from_str(&text).expect("the fixture parses")
}

fn floats(v: &serde_json::Value) -> Vec<f32> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number") as f32)
        .collect()
}

fn units(fx: &serde_json::Value) -> Vec<Vec<String>> {
    fx["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| {
            u["sentences"]
                .as_array()
                .expect("sentences")
                .iter()
                .map(|s| s.as_str().expect("text").to_string())
                .collect()
        })
        .collect()
}

#[test]
fn committed_metadata_has_both_heads_and_small_files() {
    let m = meta();
    for level in ["sentence", "paragraph"] {
        let l = m
            .levels
            .get(level)
            .unwrap_or_else(|| panic!("a {level} head"));
        let path = dir().join(&l.file);
        let size = std::fs::metadata(&path)
            .expect("the head is committed")
            .len();
        assert!(size < 5 * 1024 * 1024, "{} is {size} bytes", path.display());
        let sum = segue::model::files::sha256_file(&path).expect("readable");
        assert_eq!(
            sum,
            l.sha256,
            "{} does not match ordering.json",
            path.display()
        );
    }
    assert_eq!(m.embedding.dim, 384);
    assert_eq!(
        m.pairs.features,
        ["head_given", "jaccard", "boundary", "introduced"]
    );
}

#[test]
fn cue_features_match_the_python_trainer() {
    let m = meta();
    let fx = fixture();
    let texts = units(&fx);
    for (u, expected) in texts.iter().zip(fx["units"].as_array().expect("units")) {
        let refs: Vec<&str> = u.iter().map(String::as_str).collect();
        let got = unit_cues(&m.cues, &refs);
        let want = floats(&expected["cues"]);
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() < 1e-6,
                "{u:?}: cue {k} is {g}, Python says {w}"
            );
        }
    }
    let set: Vec<Unit<'_>> = texts
        .iter()
        .map(|u| u.iter().map(String::as_str).collect())
        .collect();
    let got = pair_cues(&m.pairs, &set);
    let want = floats(&fx["pairs"]);
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() < 1e-6, "pair cue {k}: {g} vs {w}");
    }
}

#[test]
fn heads_match_the_python_trainer_when_the_runtime_is_installed() {
    let model = match OrderingModel::load(&ModelOptions::from_env()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("skipping: {e}");
            return;
        }
    };
    let fx = fixture();
    let texts = units(&fx);
    let set: Vec<Unit<'_>> = texts
        .iter()
        .map(|u| u.iter().map(String::as_str).collect())
        .collect();
    let vectors: Vec<Vec<f32>> = fx["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .map(floats)
        .collect();
    for (level, name) in [
        (Level::Sentence, "sentence"),
        (Level::Paragraph, "paragraph"),
    ] {
        let out = model.run(level, &set, &vectors).expect("the head runs");
        let want = &fx["heads"][name];
        for (key, got) in [
            ("precedence", &out.precedence),
            ("successor", &out.successor),
            ("opening", &out.opening),
            ("closing", &out.closing),
        ] {
            let w = floats(&want[key]);
            assert_eq!(got.len(), w.len(), "{name} {key}");
            for (g, e) in got.iter().zip(&w) {
                assert!((g - e).abs() < 1e-3, "{name} {key}: {g} vs {e}");
            }
        }
    }
}

#[test]
fn a_corrupt_head_is_an_error_not_a_crash() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = dir();
    for f in ["ordering.json", "sentence.onnx", "paragraph.onnx"] {
        std::fs::copy(src.join(f), tmp.path().join(f)).expect("copy");
    }
    std::fs::write(tmp.path().join("sentence.onnx"), b"not a model").expect("write");
    let models = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models");
    let err = OrderingModel::load_from(tmp.path(), &models, &ModelOptions::default())
        .expect_err("corrupt");
    assert!(
        err.to_string().contains("sha256") || err.to_string().contains("ONNX"),
        "{err}"
    );
    std::fs::write(tmp.path().join("ordering.json"), b"{ not json").expect("write");
    let err = OrderingModel::load_from(tmp.path(), &models, &ModelOptions::default())
        .expect_err("corrupt");
    assert!(err.to_string().contains("invalid"), "{err}");
}
