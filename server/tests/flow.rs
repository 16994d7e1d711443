//! The flow judge: parity of the installed export with PyTorch
//! (`models/ordering/flow-fixture.json`, written by `models/train/ordering/reader/flow.py`), its
//! batching and cache, and its part in reorder proposals.

mod common;

use segue::config::Device;
use segue::model::{FlowJudge, ModelOptions, Precision};
use std::path::PathBuf;

fn models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models")
}

/// The environment's options with the float32 export: the weights the fixture's logits come from.
fn fp32_options() -> ModelOptions {
    ModelOptions {
        precision: Precision::Fp32,
        ..ModelOptions::from_env()
    }
}

/// The fixture's sets (units in the order read) and PyTorch's flow logit of each.
fn fixture() -> Vec<(Vec<String>, f32)> {
    let text = std::fs::read_to_string(models().join("ordering/flow-fixture.json"))
        .expect("models/ordering/flow-fixture.json is committed");
    let v: serde_json::Value = serde_json::from_str(&text).expect("the fixture parses");
    let sets = v["sets"].as_array().expect("sets");
    let flows = v["flow"].as_array().expect("flow");
    assert_eq!(sets.len(), flows.len());
    sets.iter()
        .zip(flows)
        .map(|(s, f)| {
            let units = s
                .as_array()
                .expect("units")
                .iter()
                .map(|u| u.as_str().expect("text").to_string())
                .collect();
            (units, f.as_f64().expect("number") as f32)
        })
        .collect()
}

#[test]
fn the_adapter_is_small_and_the_fixture_covers_edge_cases() {
    let adapter = std::fs::metadata(models().join("ordering/flow.safetensors"))
        .expect("the adapter is committed");
    assert!(
        adapter.len() < 4 << 20,
        "the adapter is {} bytes",
        adapter.len()
    );
    let fx = fixture();
    assert!(fx.iter().any(|(u, _)| u.iter().any(String::is_empty)));
    assert!(fx.iter().any(|(u, _)| u.iter().any(|s| s.len() > 400)));
    // A set and its reversal: the same units in two orders.
    assert!(fx.iter().any(|(u, _)| {
        let mut r = u.clone();
        r.reverse();
        u.len() > 2 && fx.iter().any(|(v, _)| *v == r)
    }));
}

#[test]
fn the_export_matches_pytorch_in_one_batch_and_from_the_cache() {
    if !common::models_installed() {
        return;
    }
    let judge = FlowJudge::load(&fp32_options()).expect("the flow judge loads");
    assert!(judge.path().ends_with("onnx/flow/model.onnx"), "{judge:?}");
    for (units, want) in fixture() {
        let refs: Vec<&str> = units.iter().map(String::as_str).collect();
        let identity: Vec<usize> = (0..refs.len()).collect();
        let mut reversed = identity.clone();
        reversed.reverse();
        // Read alone, then in a batch with a longer or shorter order (padding must not matter).
        let alone = judge
            .scores(&refs, std::slice::from_ref(&identity))
            .expect("it runs")[0];
        assert!(
            (alone - want).abs() < 1e-3,
            "{refs:?}: {alone} against {want}"
        );
        let runs = judge.orders_run();
        let again = judge
            .scores(&refs, &[reversed.clone(), identity.clone()])
            .expect("it runs");
        assert_eq!(again[1], alone, "the cached logit");
        assert!(judge.orders_run() <= runs + 1, "only the new order is read");
    }
    // A batch of orders of different lengths gives each order's own logit.
    let fx = fixture();
    let (units, want) = &fx[0];
    let mut all: Vec<&str> = units.iter().map(String::as_str).collect();
    all.push("An extra unit, read only in the second order.");
    let n = units.len();
    let short: Vec<usize> = (0..n).collect();
    let long: Vec<usize> = (0..=n).collect();
    let fresh = FlowJudge::load(&fp32_options()).expect("the flow judge loads");
    let got = fresh.scores(&all, &[long, short]).expect("it runs");
    assert!((got[1] - want).abs() < 1e-3, "{} against {want}", got[1]);
}

#[test]
fn cpu_sessions_read_with_the_int8_copy_close_to_the_float32_export() {
    if !common::models_installed() {
        return;
    }
    let options = ModelOptions {
        device: Device::Cpu,
        precision: Precision::Auto,
        ..ModelOptions::from_env()
    };
    let judge = FlowJudge::load(&options).expect("the flow judge loads");
    assert!(
        judge.path().ends_with("onnx/flow/model.int8.onnx"),
        "{judge:?}"
    );
    let fx = fixture();
    let mut diffs = Vec::new();
    for (units, want) in &fx {
        let refs: Vec<&str> = units.iter().map(String::as_str).collect();
        let identity: Vec<usize> = (0..refs.len()).collect();
        let got = judge.scores(&refs, &[identity]).expect("it runs")[0];
        diffs.push((got - want).abs());
    }
    // Quantisation moves a logit by about 0.1 on average (dev: 0.09).
    let mean = diffs.iter().sum::<f32>() / diffs.len() as f32;
    assert!(mean < 0.25, "mean |int8 - fp32| = {mean}: {diffs:?}");
    // Each token's activations are quantised with a scale of their own, so an order's logit
    // does not depend on the orders batched with it (a copy with one scale per batch moved it
    // by up to 0.4, about half the spread of the logits of published paragraphs).
    let (units, _) = fx
        .iter()
        .filter(|(u, _)| u.len() > 2)
        .max_by_key(|(u, _)| u.len())
        .expect("a set of three units or more");
    let refs: Vec<&str> = units.iter().map(String::as_str).collect();
    let identity: Vec<usize> = (0..refs.len()).collect();
    let mut reversed = identity.clone();
    reversed.reverse();
    let alone = FlowJudge::load(&options)
        .expect("the flow judge loads")
        .scores(&refs, std::slice::from_ref(&identity))
        .expect("it runs")[0];
    let batched = FlowJudge::load(&options)
        .expect("the flow judge loads")
        .scores(&refs, &[reversed, identity[1..].to_vec(), identity])
        .expect("it runs")[2];
    assert!(
        (alone - batched).abs() < 1e-4,
        "{alone} alone, {batched} in a batch"
    );
}

#[test]
fn tier1_reorder_proposals_are_the_flow_judges_choice_where_its_model_reads_it() {
    use segue::order::reorder::{propose, Container, Margins};
    use segue::score::registry::add_models;
    use segue::score::{Level, ScorerSet};
    use segue::text::{parse, Format};
    if !common::models_installed() {
        return;
    }
    let options = ModelOptions::from_env();
    let mut set = ScorerSet::builtin();
    add_models(&mut set, &options, &|_| {}).expect("models load");
    let tier1 = set
        .get("tier1")
        .expect("tier1 is registered with the models");
    assert!(
        tier1.flow_judge().is_some(),
        "tier1 comes with the flow judge"
    );
    let reads_flow = Margins::shipped()
        .overrule("tier1", Level::Sentence)
        .is_some_and(|m| m.reads_flow());
    // A paragraph with its sentences shuffled: the conclusion first, the definition last.
    let src = "# Caching\n\nSo the second request is served in a fraction of the time. \
               When the same request arrives again, the server answers from that copy. \
               A cache keeps a copy of each answer the server computes.\n";
    let doc = parse(src, Format::Markdown);
    let container = Container::Paragraph {
        section: 0,
        paragraph: 0,
    };
    let p = propose(&doc, src, container, tier1.as_ref()).expect("a reorderable paragraph");
    assert_eq!(p.flow.is_some(), reads_flow, "{p:?}");
    if let Some(f) = p.flow {
        // The proposal is the candidate that reads best, shown as probabilities; it is offered
        // only when it reads better than the author's order.
        assert!(!p.worthwhile() || f.after > f.before, "{p:?}");
        assert!((0.0..=1.0).contains(&p.before) && (0.0..=1.0).contains(&p.after));
        assert!(p.confidence.is_some() && p.threshold.is_some(), "{p:?}");
    }
}
