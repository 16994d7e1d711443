//! The combined `tier1` scorer on the real models: its transitions are the weighted mean of
//! `embedding`, `tier0` and the ordering objective's terms, each term computed here straight from
//! the heads and, for a set the paragraph reader reads (sentences, at most its `max_units`), the
//! reader. Skips with a printed reason when `models/install` has not run (CI runs it).

mod common;

use common::models_installed;
use segue::model::{shared_encoder, ModelOptions};
use segue::score::ordering::{ChainTable, OrderScores, OrderingModel, ReaderUse};
use segue::score::precedence::OrderingScorer;
use segue::score::registry::add_models;
use segue::score::tier1::Tier1Weights;
use segue::score::{Level, Pairwise, Scorer, ScorerSet, Unit};
use std::path::PathBuf;
use std::sync::Arc;

#[test]
fn tier1_is_the_weighted_mean_of_its_parts_with_and_without_the_reader() {
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
    let parts = Parts {
        tier1: tier1.as_ref(),
        embedding: set.get("embedding").expect("embedding"),
        tier0: set.get("tier0").expect("tier0"),
        heads: &heads,
        weights: &weights,
    };
    // 24 sentences: more than the reader reads, so its terms are constant.
    assert!(!heads.model().reader_reads(units.len()));
    parts.check(&units, false);
    // 8 units: the reader reads them, and its terms move the blend where they have weight (at
    // least the sentence level: checked in tier1.rs's unit tests of the shipped weights).
    let short = &units[..8];
    assert!(heads.model().reader_reads(short.len()));
    parts.check(short, true);
}

struct Parts<'a> {
    tier1: &'a dyn Scorer,
    embedding: Arc<dyn Scorer>,
    tier0: Arc<dyn Scorer>,
    heads: &'a OrderingScorer,
    weights: &'a Tier1Weights,
}

impl Parts<'_> {
    /// Every transition of `tier1` at both levels equals the weighted mean computed here; with
    /// `reader` (a set the reader reads), a level whose reader terms have weight differs from the
    /// same blend without the reader's scores.
    fn check(&self, units: &[Unit<'_>], reader: bool) {
        for level in [Level::Sentence, Level::Paragraph] {
            let [we, wt, wo] = self.weights.at(level);
            let embedding = self.embedding.prepare(units, level);
            let tier0 = self.tier0.prepare(units, level);
            let vectors = self.heads.vectors(units).expect("vectors");
            let model = self.heads.model();
            let heads_only = model.scores(level, units, &vectors).expect("heads run");
            let (with_reader, used) = model
                .scores_with_reader(level, units, &vectors)
                .expect("heads and reader run");
            assert_eq!(used == ReaderUse::Used, reader, "{level:?}: {used:?}");
            let terms = self.weights.terms(level);
            let reader_terms = terms
                .iter()
                .any(|(w, share)| *share > 0.0 && w.uses_reader());
            let total: f64 = terms.iter().map(|(_, s)| s).sum();
            let tables = |scores: &OrderScores| -> Vec<_> {
                terms
                    .iter()
                    .filter(|(_, s)| *s > 0.0)
                    .map(|(w, s)| (scores.chain(w), s / total))
                    .collect()
            };
            let (want_tables, plain_tables) = (tables(&with_reader), tables(&heads_only));
            let blended = self.tier1.prepare(units, level);
            let n = units.len();
            let mut moved = 0.0f64;
            for from in 0..n {
                for to in 0..n {
                    let mix = |tables: &[(ChainTable, f64)]| -> f64 {
                        let t: f64 = tables.iter().map(|(t, s)| s * t.transition(from, to)).sum();
                        we * embedding.transition(from, to)
                            + wt * tier0.transition(from, to)
                            + wo * t
                    };
                    let (want, plain) = (mix(&want_tables), mix(&plain_tables));
                    let got = blended.transition(from, to);
                    assert!(
                        (got - want).abs() < 1e-9,
                        "{level:?} {from} → {to}: {got} vs {want}"
                    );
                    moved = moved.max((want - plain).abs());
                }
            }
            let expect_reader = reader && reader_terms;
            assert_eq!(
                moved > 1e-6,
                expect_reader,
                "{level:?}, {n} units: the reader's terms moved transitions by up to {moved}"
            );
        }
    }
}
