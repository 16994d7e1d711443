//! Entity continuity after Lapata & Barzilay (seed 004). Placeholder until the grid lands.

use super::lexical::Lexical;
use super::{Level, Pairwise, Scorer, Unit};

/// Entity-grid scorer.
#[derive(Debug, Clone)]
pub struct EntityGrid;

impl EntityGrid {
    /// The scorer with the weights shipped in `models/`.
    pub fn trained() -> Self {
        EntityGrid
    }
}

impl Scorer for EntityGrid {
    fn name(&self) -> &'static str {
        "entity-grid"
    }
    fn description(&self) -> &'static str {
        "entity continuity: role transitions of repeated nouns, names and acronyms (Lapata & Barzilay)"
    }
    fn tier(&self) -> u8 {
        0
    }
    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        let l: &'static Lexical = Box::leak(Box::new(Lexical::nouns()));
        l.prepare(units, level)
    }
}
