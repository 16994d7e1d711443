//! The trained ordering model as a scorer (`ordering`, tier 1): how well one unit follows another
//! according to [`crate::order::model`]: the learned successor and precedence probabilities, the
//! embedding cosine and the opening/closing cues, combined with the weights set on dev data.
//!
//! The table is the model's order objective folded into transitions ([`ChainTable`]), so the
//! decoders of [`crate::order::decode`] (and `segue eval --task ordering`, `segue reorder`) find
//! exactly the order the model prefers. A transition's value is relative to the other transitions
//! of the same set of units (one affine map per table), so it ranks orders of that set; it is not
//! calibrated across documents.
//!
//! A missing or corrupt model keeps the scorer out of the registry (with a warning, see
//! `cli::check::scorers_with`). If the encoder or a head fails while scoring, the scorer warns once
//! on stderr and scores that document with `lexical` instead.

use super::lexical::Lexical;
use super::{Level, Pairwise, Reason, Scorer, Unit};
use crate::model::Encoder;
use crate::order::model::{
    unit_vector, ChainTable, CrossUse, OrderWeights, OrderingError, OrderingModel,
};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;

/// Which terms of the objective the scorer uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Everything, with the shipped weights (`ordering`): the heads and, for sets of sentences
    /// small enough, the precedence cross-encoder.
    Full,
    /// The heads' objective without the cross-encoder (`ordering-head`, an ablation for
    /// evaluation and for large sets where the cross-encoder's cost matters).
    Head,
    /// Only the precedence-derived terms (`ordering-pairwise`, an ablation for evaluation).
    Pairwise,
}

/// The `ordering` scorer.
pub struct OrderingScorer {
    encoder: Arc<Encoder>,
    model: Arc<OrderingModel>,
    variant: Variant,
    fallback: Lexical,
    warned: AtomicBool,
    warned_cross: AtomicBool,
}

impl std::fmt::Debug for OrderingScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderingScorer")
            .field("model", &self.model)
            .field("variant", &self.variant)
            .finish_non_exhaustive()
    }
}

impl OrderingScorer {
    /// The full scorer over a loaded encoder and ordering model.
    pub fn new(encoder: Arc<Encoder>, model: Arc<OrderingModel>) -> Self {
        OrderingScorer {
            encoder,
            model,
            variant: Variant::Full,
            fallback: Lexical::plain(),
            warned: AtomicBool::new(false),
            warned_cross: AtomicBool::new(false),
        }
    }

    /// The same scorer restricted to `variant`.
    pub fn with_variant(mut self, variant: Variant) -> Self {
        self.variant = variant;
        self
    }

    /// The ordering model.
    pub fn model(&self) -> &Arc<OrderingModel> {
        &self.model
    }

    /// The heads' weights the scorer uses at `level` (sets scored with the cross-encoder use
    /// [`OrderingModel::cross_weights`] instead).
    pub fn weights(&self, level: Level) -> Option<OrderWeights> {
        let w = self.model.weights(level)?;
        Some(match self.variant {
            Variant::Full | Variant::Head => w,
            Variant::Pairwise => w.pairwise_only(),
        })
    }

    /// The unit vectors of `units`: each sentence embedded (through the encoder's cache), a
    /// paragraph's the renormalised mean of its sentences'.
    pub fn vectors(&self, units: &[Unit<'_>]) -> Result<Vec<Vec<f32>>, OrderingError> {
        let flat: Vec<&str> = units.iter().flat_map(|u| u.iter().copied()).collect();
        let embedded = self.encoder.embed(&flat)?;
        let dim = self.encoder.dim();
        let mut next = embedded.iter();
        Ok(units
            .iter()
            .map(|u| {
                let vs: Vec<_> = next.by_ref().take(u.len()).collect();
                unit_vector(&vs, dim)
            })
            .collect())
    }

    /// The model's transition table for `units` at `level`.
    pub fn table(&self, units: &[Unit<'_>], level: Level) -> Result<ChainTable, OrderingError> {
        let vectors = self.vectors(units)?;
        if self.variant == Variant::Full {
            let objective = self.model.objective(level, units, &vectors)?;
            if let CrossUse::Failed(why) = &objective.cross {
                if !self.warned_cross.swap(true, AtomicOrdering::Relaxed) {
                    eprintln!("segue: warning: the precedence cross-encoder cannot be used ({why}); ordering without it");
                }
            }
            return Ok(objective.scores.chain(&objective.weights));
        }
        let weights = self
            .weights(level)
            .ok_or(OrderingError::NoHead(level.name()))?;
        Ok(self.model.scores(level, units, &vectors)?.chain(&weights))
    }
}

struct OrderingPairs<'a> {
    table: ChainTable,
    lexical: Box<dyn Pairwise + 'a>,
}

impl Pairwise for OrderingPairs<'_> {
    fn len(&self) -> usize {
        self.table.len()
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        self.table.transition(from, to)
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        Reason {
            shared: self.lexical.reason(from, to).shared,
            note: self.table.reason(from, to).note,
        }
    }
}

impl Scorer for OrderingScorer {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::Full => "ordering",
            Variant::Head => "ordering-head",
            Variant::Pairwise => "ordering-pairwise",
        }
    }

    fn description(&self) -> &'static str {
        match self.variant {
            Variant::Full => "trained ordering model: learned successor and precedence probabilities, a sentence-pair precedence cross-encoder, embedding cosine and opening/closing cues",
            Variant::Head => "trained ordering model without the cross-encoder: the heads' successor and precedence probabilities, embedding cosine and opening/closing cues",
            Variant::Pairwise => "trained ordering model, precedence terms only (P(a before b) of adjacent units and a Borda position potential)",
        }
    }

    fn tier(&self) -> u8 {
        1
    }

    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        match self.table(units, level) {
            Ok(table) => Box::new(OrderingPairs {
                table,
                lexical: self.fallback.prepare(units, level),
            }),
            Err(e) => {
                if !self.warned.swap(true, AtomicOrdering::Relaxed) {
                    eprintln!("segue: warning: the ordering scorer failed ({e}); scoring with `lexical` instead");
                }
                self.fallback.prepare(units, level)
            }
        }
    }
}
