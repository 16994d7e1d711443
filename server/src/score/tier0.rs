//! The combined built-in score. Placeholder until trained weights land.

use super::lexical::Lexical;
use super::{Level, Pairwise, Scorer, Unit};

/// The combined tier-0 scorer.
#[derive(Debug, Clone)]
pub struct Tier0;

impl Tier0 {
    /// The scorer with the weights shipped in `models/`.
    pub fn trained() -> Self {
        Tier0
    }
}

impl Scorer for Tier0 {
    fn name(&self) -> &'static str {
        "tier0"
    }
    fn description(&self) -> &'static str {
        "combined built-in score: lexical cohesion and entity continuity"
    }
    fn tier(&self) -> u8 {
        0
    }
    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        let l: &'static Lexical = Box::leak(Box::new(Lexical::plain()));
        l.prepare(units, level)
    }
}
