//! The combined `tier1` scorer on the real models: its transitions are the weighted mean of
//! `embedding`, `tier0` and the ordering heads' terms, each term computed here straight from the
//! heads. Skips with a printed reason when `models/install` has not run (CI runs it).

mod common;

use common::models_installed;
use segue::model::{shared_encoder, ModelOptions};
use segue::order::model::OrderingModel;
use segue::score::precedence::OrderingScorer;
use segue::score::registry::add_models;
use segue::score::tier1::Tier1Weights;
use segue::score::{Level, Pairwise, ScorerSet, Unit};
use std::path::PathBuf;

#[test]
fn tier1_is_the_weighted_mean_of_its_parts_on_real_models() {
    if !models_installed() {
        return;
    }
    let options = ModelOptions::from_env();
    let mut set = ScorerSet::builtin();
    add_models(&mut set, &options, &|_| {}).expect("models load");
    let tier1 = set
        .get("tier1")
        .expect("tier1 is registered with the models");
    let weights = Tier1Weights::shipped();

    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/nomicon-unwinding.txt"),
    )
    .expect("corpus file");
    let sentences: Vec<&str> = text
        .split_inclusive(". ")
        .map(str::trim)
        .filter(|s| s.len() > 20)
        .take(24)
        .collect();
    assert!(sentences.len() >= 12, "{}", sentences.len());
    let units: Vec<Unit<'_>> = sentences.iter().map(|s| vec![*s]).collect();

    let heads = OrderingScorer::new(
        shared_encoder(&options).expect("encoder"),
        std::sync::Arc::new(OrderingModel::load(&options).expect("ordering heads")),
    );
    let (embedding_scorer, tier0_scorer) = (
        set.get("embedding").expect("embedding"),
        set.get("tier0").expect("tier0"),
    );
    for level in [Level::Sentence, Level::Paragraph] {
        let [we, wt, wo] = weights.at(level);
        let embedding = embedding_scorer.prepare(&units, level);
        let tier0 = tier0_scorer.prepare(&units, level);
        let vectors = heads.vectors(&units).expect("vectors");
        let scores = heads
            .model()
            .scores(level, &units, &vectors)
            .expect("heads run");
        let terms = weights.terms(level);
        let total: f64 = terms.iter().map(|(_, s)| s).sum();
        let tables: Vec<_> = terms
            .iter()
            .filter(|(_, s)| *s > 0.0)
            .map(|(w, s)| (scores.chain(w), s / total))
            .collect();
        let blended = tier1.prepare(&units, level);
        let n = units.len();
        for from in 0..n {
            for to in 0..n {
                let t: f64 = tables.iter().map(|(t, s)| s * t.transition(from, to)).sum();
                let want =
                    we * embedding.transition(from, to) + wt * tier0.transition(from, to) + wo * t;
                let got = blended.transition(from, to);
                assert!(
                    (got - want).abs() < 1e-9,
                    "{level:?} {from} → {to}: {got} vs {want}"
                );
            }
        }
    }
}
