//! Which scorers exist for a tier, and which one reports by default.
//!
//! Tier 0 ([`ScorerSet::builtin`]) is always there. [`add_models`] adds the tier-1 scorers when the
//! sentence encoder loads: `embedding`, then `ordering` / `ordering-head` and `bbscore` / `bbscore-clf` when their
//! committed heads load too (each missing head only leaves its own scorers out), and `tier1`, the
//! blend of `embedding`, `tier0` and the ordering heads' terms, when its parts are there. Both front ends
//! (`segue check` and friends, and the language server) build their registry here.

use super::bbscore::{BbModel, BbScore};
use super::embedding::Embedding;
use super::precedence::{OrderingScorer, Variant};
use super::tier1::{Tier1, Tier1Weights};
use super::ScorerSet;
use crate::model::{shared_encoder, ModelError, ModelOptions};
use crate::score::ordering::OrderingModel;
use std::sync::Arc;

/// The reporting scorer when no model is loaded (and then also the judge of reorders).
pub const DEFAULT_SCORER: &str = "tier0";
/// The judge of reorder proposals when the tier-1 models are loaded: of the judges measured on
/// the dev part of the real-prose corpus (`segue eval --task reorder`), the one whose proposals
/// on shuffled sections and paragraphs most often restore the author's order at both levels
/// (docs/evaluation.md).
pub const DEFAULT_MODEL_ORDER_SCORER: &str = "tier1";
/// The reporting scorer when the tier-1 models are loaded: on dev data its findings catch about
/// twice as many inserted off-topic units as `tier0`'s at the same false-alarm rate
/// (docs/evaluation.md).
pub const DEFAULT_MODEL_SCORER: &str = "embedding";
/// Names of the tier-1 scorers, for messages when they are asked for but not loaded.
pub const MODEL_SCORERS: &[&str] = &[
    "embedding",
    "ordering",
    "ordering-head",
    "bbscore",
    "bbscore-clf",
    "tier1",
];

/// The start of the lines [`add_models`] logs as warnings (the others say where a model runs).
pub const WARNING: &str = "warning: ";

/// Whether a line logged by [`add_models`] is a warning (the command line shows those always,
/// the others with `--verbose` only).
pub fn is_warning(line: &str) -> bool {
    line.starts_with(WARNING)
}

/// Adds the tier-1 scorers to `set`. `log` receives one line per model loaded (where it runs,
/// starting `tier 1: `) and one warning (starting [`WARNING`]) per optional head that is missing.
/// Fails only when the encoder cannot load.
pub fn add_models(
    set: &mut ScorerSet,
    options: &ModelOptions,
    log: &dyn Fn(String),
) -> Result<(), ModelError> {
    let encoder = shared_encoder(options)?;
    let tier1_weights = Tier1Weights::shipped();
    log(format!("tier 1: {}", encoder.info().summary()));
    set.register(Arc::new(Embedding::new(encoder.clone())));
    let mut terms = None;
    match OrderingModel::load(options) {
        Ok(model) => {
            log(format!("tier 1: {}", model.summary()));
            let model = Arc::new(model);
            terms = Some(Tier1::terms(
                OrderingScorer::new(encoder.clone(), model.clone()).with_variant(Variant::Head),
                &tier1_weights,
            ));
            set.register(Arc::new(OrderingScorer::new(
                encoder.clone(),
                model.clone(),
            )));
            set.register(Arc::new(
                OrderingScorer::new(encoder.clone(), model).with_variant(Variant::Head),
            ));
        }
        Err(e) => log(format!("{WARNING}{e}; the ordering scorer is left out")),
    }
    if let (Some(embedding), Some(tier0), Some(terms)) =
        (set.get("embedding"), set.get("tier0"), terms)
    {
        set.register(Arc::new(Tier1::new(
            embedding,
            tier0,
            Arc::new(terms),
            tier1_weights,
        )));
    }
    match BbModel::load(options) {
        Ok(model) => {
            let model = Arc::new(model);
            log(format!("tier 1: {}", model.summary()));
            if let Some(clf) = BbScore::classifier(encoder.clone(), model.clone()) {
                set.register(Arc::new(clf));
            }
            set.register(Arc::new(BbScore::new(encoder, model)));
        }
        Err(e) => log(format!("{WARNING}{e}; the bbscore scorers are left out")),
    }
    Ok(())
}

/// The default judge of reorders in `set`: [`DEFAULT_MODEL_ORDER_SCORER`] when it is loaded,
/// else [`DEFAULT_SCORER`].
pub fn default_order_scorer(set: &ScorerSet) -> &'static str {
    if set.get(DEFAULT_MODEL_ORDER_SCORER).is_some() {
        DEFAULT_MODEL_ORDER_SCORER
    } else {
        DEFAULT_SCORER
    }
}

/// The default reporting scorer of `set`: [`DEFAULT_MODEL_SCORER`] when it is loaded, else
/// [`DEFAULT_SCORER`].
pub fn default_scorer(set: &ScorerSet) -> &'static str {
    if set.get(DEFAULT_MODEL_SCORER).is_some() {
        DEFAULT_MODEL_SCORER
    } else {
        DEFAULT_SCORER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_to_tier0_without_models() {
        assert_eq!(default_scorer(&ScorerSet::builtin()), DEFAULT_SCORER);
        assert!(ScorerSet::builtin().get(DEFAULT_SCORER).is_some());
    }

    #[test]
    fn missing_models_are_an_error_not_a_panic() {
        let mut set = ScorerSet::builtin();
        let options = ModelOptions {
            models_dir: Some("/nonexistent/segue-models".into()),
            ..ModelOptions::default()
        };
        let before = set.names().len();
        assert!(add_models(&mut set, &options, &|_| {}).is_err());
        assert_eq!(set.names().len(), before);
    }
}
