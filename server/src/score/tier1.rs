//! The combined tier-1 score (`tier1`): a weighted mean of the transitions of `embedding` (meaning:
//! the cosine of sentence vectors), `tier0` (shared words, entities and discourse cues) and the
//! terms of the ordering objective ([`OrderingTerms`]: the heads' successor, precedence, Borda,
//! opening and closing, and the paragraph reader's precedence, successor and Borda for the sets it
//! reads, each its own table scaled per set) — the direction-aware cues the other two lack.
//!
//! The weights (one set per level, in `models/tier1/tier1.json`) are fitted by
//! `models/train/tier1/fit.py` as a logistic regression on the differences between the order
//! scores of original and degraded documents (`segue eval --comparisons` and the
//! `discrimination_terms` research test on the dev corpus), so the weighted mean of the parts'
//! order scores is the one that best tells an original from its degraded copies. Every part is a
//! mean of adjacent transitions, so the blend is too: it scores transitions for diagnostics,
//! orders for `segue eval` and candidate orders for the decoders alike. docs/bbscore.md has the
//! figures.

use super::precedence::OrderingTerms;
use super::{Level, Pairwise, Reason, Scorer, Unit};
use crate::score::ordering::OrderWeights;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The weights shipped with Segue, fitted on the dev corpus by `models/train/tier1/fit.py`.
const EMBEDDED: &str = include_str!("../../models/tier1/tier1.json");

/// The scorers the blend reads whole, by name.
pub const SCORER_PARTS: [&str; 2] = ["embedding", "tier0"];

/// The ordering objective's terms the blend reads, each on its own: the heads' five, then the
/// paragraph reader's three (named `cross_*` in the weights file; they are constant, and so add nothing, for sets the reader
/// does not read: documents of more than its `max_units` units).
pub const TERM_PARTS: [&str; 8] = [
    "successor",
    "precedence",
    "borda",
    "opening",
    "closing",
    "cross_precedence",
    "cross_next",
    "cross_borda",
];

/// Parts that weights written before they existed may leave out (they count as 0).
const OPTIONAL_PARTS: [&str; 3] = ["cross_precedence", "cross_next", "cross_borda"];

/// The objective weights that select one term.
fn term_weights(term: &str) -> OrderWeights {
    let mut w = OrderWeights::default();
    match term {
        "successor" => w.successor = 1.0,
        "precedence" => w.precedence = 1.0,
        "borda" => w.borda = 1.0,
        "opening" => w.opening = 1.0,
        "cross_precedence" => w.reader_precedence = 1.0,
        "cross_next" => w.reader_next = 1.0,
        "cross_borda" => w.reader_borda = 1.0,
        _ => w.closing = 1.0,
    }
    w
}

/// The blend's weights: for each level, one non-negative weight per part of [`SCORER_PARTS`] and
/// [`TERM_PARTS`] (the reader's terms may be left out: 0).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Tier1Weights {
    /// Where the weights come from (data, command), for the model card.
    pub source: String,
    /// level name → part name → weight.
    pub levels: BTreeMap<String, BTreeMap<String, f64>>,
}

impl Tier1Weights {
    /// Parses and checks weights: both levels, every part, finite and non-negative, not all zero.
    pub fn from_json(json: &str) -> Result<Self, String> {
        let w: Tier1Weights =
            serde_json::from_str(json).map_err(|e| format!("tier1 weights: {e}"))?;
        for level in [Level::Sentence, Level::Paragraph] {
            let parts = w
                .levels
                .get(level.name())
                .ok_or_else(|| format!("tier1 weights: no `{}` level", level.name()))?;
            let mut sum = 0.0;
            for part in SCORER_PARTS.iter().chain(&TERM_PARTS) {
                let v = match parts.get(*part) {
                    Some(v) => *v,
                    None if OPTIONAL_PARTS.contains(part) => 0.0,
                    None => return Err(format!("tier1 weights: no weight for `{part}`")),
                };
                if !v.is_finite() || v < 0.0 {
                    return Err(format!("tier1 weights: `{part}` has weight {v}"));
                }
                sum += v;
            }
            if sum <= 0.0 {
                return Err(format!(
                    "tier1 weights: all zero at the {} level",
                    level.name()
                ));
            }
        }
        Ok(w)
    }

    /// The shipped weights.
    pub fn shipped() -> Self {
        // The embedded file is checked by a unit test; a neutral blend is the fallback.
        Self::from_json(EMBEDDED).unwrap_or_else(|_| Tier1Weights {
            source: "neutral (equal weights)".into(),
            levels: [Level::Sentence, Level::Paragraph]
                .into_iter()
                .map(|l| {
                    let parts = SCORER_PARTS
                        .iter()
                        .chain(&TERM_PARTS)
                        .map(|p| (p.to_string(), 1.0))
                        .collect();
                    (l.name().to_string(), parts)
                })
                .collect(),
        })
    }

    fn weight(&self, level: Level, part: &str) -> f64 {
        self.levels
            .get(level.name())
            .and_then(|m| m.get(part))
            .copied()
            .unwrap_or(0.0)
    }

    /// The shares of `embedding`, `tier0` and the ordering terms together at `level`, summing to 1.
    pub fn at(&self, level: Level) -> [f64; 3] {
        let terms: f64 = TERM_PARTS.iter().map(|t| self.weight(level, t)).sum();
        let raw = [
            self.weight(level, SCORER_PARTS[0]),
            self.weight(level, SCORER_PARTS[1]),
            terms,
        ];
        let sum: f64 = raw.iter().sum();
        if sum > 0.0 {
            raw.map(|v| v / sum)
        } else {
            [1.0 / 3.0; 3]
        }
    }

    /// The ordering terms at `level` with their weights (for [`OrderingTerms::new`], which
    /// normalises them).
    pub fn terms(&self, level: Level) -> Vec<(OrderWeights, f64)> {
        TERM_PARTS
            .iter()
            .map(|t| (term_weights(t), self.weight(level, t)))
            .collect()
    }
}

/// The `tier1` scorer.
pub struct Tier1 {
    parts: [Arc<dyn Scorer>; 3],
    weights: Tier1Weights,
}

impl std::fmt::Debug for Tier1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tier1")
            .field("weights", &self.weights)
            .finish_non_exhaustive()
    }
}

impl Tier1 {
    /// The blend of `embedding`, `tier0` and `terms` (the ordering terms, built with
    /// `weights.terms(level)`), mixed by `weights.at(level)`.
    pub fn new(
        embedding: Arc<dyn Scorer>,
        tier0: Arc<dyn Scorer>,
        terms: Arc<dyn Scorer>,
        weights: Tier1Weights,
    ) -> Self {
        Tier1 {
            parts: [embedding, tier0, terms],
            weights,
        }
    }

    /// The ordering terms of `weights` over an ordering scorer's heads.
    pub fn terms(
        heads: super::precedence::OrderingScorer,
        weights: &Tier1Weights,
    ) -> OrderingTerms {
        OrderingTerms::new(
            heads,
            weights.terms(Level::Sentence),
            weights.terms(Level::Paragraph),
        )
    }

    /// The weights in use.
    pub fn weights(&self) -> &Tier1Weights {
        &self.weights
    }
}

struct Tier1Pairs<'a> {
    tables: Vec<Box<dyn Pairwise + 'a>>,
    weights: [f64; 3],
}

impl Pairwise for Tier1Pairs<'_> {
    fn len(&self) -> usize {
        self.tables.first().map_or(0, |t| t.len())
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        self.tables
            .iter()
            .zip(self.weights)
            .map(|(t, w)| w * t.transition(from, to))
            .sum::<f64>()
            .clamp(0.0, 1.0)
    }

    /// The words the units share (from `tier0`), the embedding's cosine, and the ordering model's
    /// view of the direction when it prefers the other one (`to` before `from`).
    fn reason(&self, from: usize, to: usize) -> Reason {
        let note = |k: usize| self.tables.get(k).and_then(|t| t.reason(from, to).note);
        let mut notes: Vec<String> = note(0).into_iter().collect();
        let against = self
            .tables
            .get(2)
            .is_some_and(|t| t.transition(from, to) < t.transition(to, from));
        if against {
            notes.extend(note(2));
        }
        Reason {
            shared: self
                .tables
                .get(1)
                .map(|t| t.reason(from, to).shared)
                .unwrap_or_default(),
            note: (!notes.is_empty()).then(|| notes.join("; ")),
        }
    }
}

impl Scorer for Tier1 {
    fn name(&self) -> &'static str {
        "tier1"
    }

    fn description(&self) -> &'static str {
        "combined tier-1 score: embedding cosine, the built-in tier0 score and the ordering models' direction cues, weighted as fitted on dev data"
    }

    fn tier(&self) -> u8 {
        1
    }

    fn runs_on(&self) -> Option<String> {
        self.parts[0].runs_on()
    }

    fn flow_judge(&self) -> Option<std::sync::Arc<crate::model::FlowJudge>> {
        self.parts.iter().find_map(|p| p.flow_judge())
    }

    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        Box::new(Tier1Pairs {
            tables: self.parts.iter().map(|p| p.prepare(units, level)).collect(),
            weights: self.weights.at(level),
        })
    }

    /// Each part as it prepares for these containers: `embedding` and `tier0` over the whole
    /// level, the ordering terms per container.
    fn prepare_in<'a>(
        &'a self,
        units: &[Unit<'_>],
        level: Level,
        containers: &[std::ops::Range<usize>],
    ) -> Box<dyn Pairwise + 'a> {
        Box::new(Tier1Pairs {
            tables: self
                .parts
                .iter()
                .map(|p| p.prepare_in(units, level, containers))
                .collect(),
            weights: self.weights.at(level),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::order_score;

    /// A scorer whose transitions are a fixed function of the pair, under any name.
    struct Fixed(&'static str, fn(usize, usize) -> f64);

    struct FixedPairs(usize, fn(usize, usize) -> f64, &'static str);

    impl Pairwise for FixedPairs {
        fn len(&self) -> usize {
            self.0
        }
        fn transition(&self, from: usize, to: usize) -> f64 {
            (self.1)(from, to)
        }
        fn reason(&self, _: usize, _: usize) -> Reason {
            Reason {
                shared: vec![format!("{}-word", self.2)],
                note: Some(format!("{} note", self.2)),
            }
        }
    }

    impl Scorer for Fixed {
        fn name(&self) -> &'static str {
            self.0
        }
        fn description(&self) -> &'static str {
            "test"
        }
        fn tier(&self) -> u8 {
            1
        }
        fn prepare<'a>(&'a self, units: &[Unit<'_>], _: Level) -> Box<dyn Pairwise + 'a> {
            Box::new(FixedPairs(units.len(), self.1, self.0))
        }
    }

    fn parts() -> [Arc<dyn Scorer>; 3] {
        [
            Arc::new(Fixed(
                "embedding",
                |a, b| if b == a + 1 { 0.9 } else { 0.1 },
            )),
            Arc::new(Fixed("tier0", |a, b| (a + b) as f64 / 10.0)),
            Arc::new(Fixed("terms", |a, b| if a < b { 1.0 } else { 0.0 })),
        ]
    }

    fn blend(weights: Tier1Weights) -> Tier1 {
        let [e, t, o] = parts();
        Tier1::new(e, t, o, weights)
    }

    /// Weights with `e`, `t` for embedding and tier0 and `o` spread over the terms.
    fn weights(s: [f64; 3], p: [f64; 3]) -> Tier1Weights {
        let level = |w: [f64; 3]| {
            let mut m: BTreeMap<String, f64> = BTreeMap::new();
            m.insert("embedding".into(), w[0]);
            m.insert("tier0".into(), w[1]);
            for t in TERM_PARTS {
                m.insert(t.into(), w[2] / TERM_PARTS.len() as f64);
            }
            m
        };
        Tier1Weights {
            source: "test".into(),
            levels: [
                ("sentence".into(), level(s)),
                ("paragraph".into(), level(p)),
            ]
            .into_iter()
            .collect(),
        }
    }

    #[test]
    fn shipped_weights_parse_and_cover_both_levels() {
        let w = Tier1Weights::from_json(EMBEDDED).expect("shipped tier1.json");
        for level in [Level::Sentence, Level::Paragraph] {
            let at = w.at(level);
            assert!((at.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!(at.iter().all(|&v| v > 0.0), "{at:?}");
            let terms = w.terms(level);
            assert_eq!(terms.len(), TERM_PARTS.len());
            assert!(terms.iter().any(|(_, share)| *share > 0.0));
        }
        // The reader's terms are in the sentence-level blend (server/tests/tier1.rs relies on it).
        assert!(w
            .terms(Level::Sentence)
            .iter()
            .any(|(t, share)| *share > 0.0 && t.uses_reader()));
    }

    #[test]
    fn each_term_selects_one_field_of_the_objective() {
        let fields = |w: OrderWeights| {
            [
                w.successor,
                w.precedence,
                w.borda,
                w.opening,
                w.closing,
                w.reader_precedence,
                w.reader_next,
                w.reader_borda,
                w.coherence,
            ]
        };
        for (k, t) in TERM_PARTS.iter().enumerate() {
            let f = fields(term_weights(t));
            assert_eq!(f.iter().sum::<f64>(), 1.0, "{t}");
            assert_eq!(f[k], 1.0, "{t}");
        }
    }

    #[test]
    fn bad_weights_are_refused() {
        assert!(Tier1Weights::from_json("{}").is_err());
        assert!(Tier1Weights::from_json("not json").is_err());
        let ok = r#""embedding": 1, "tier0": 1, "successor": 1, "precedence": 0, "borda": 0, "opening": 0, "closing": 0"#;
        let negative = format!(
            r#"{{"source": "x", "levels": {{"sentence": {{"embedding": 1, "tier0": -1, "successor": 1, "precedence": 0, "borda": 0, "opening": 0, "closing": 0}}, "paragraph": {{{ok}}}}}}}"#
        );
        assert!(Tier1Weights::from_json(&negative)
            .unwrap_err()
            .contains("tier0"));
        let missing = format!(
            r#"{{"source": "x", "levels": {{"sentence": {{"embedding": 1, "tier0": 1}}, "paragraph": {{{ok}}}}}}}"#
        );
        assert!(Tier1Weights::from_json(&missing)
            .unwrap_err()
            .contains("successor"));
        // Weights written before the reader's terms existed still load, with those terms at 0.
        let old = format!(
            r#"{{"source": "x", "levels": {{"sentence": {{{ok}}}, "paragraph": {{{ok}}}}}}}"#
        );
        let w = Tier1Weights::from_json(&old).expect("weights without the reader's terms");
        assert!(w
            .terms(Level::Sentence)
            .iter()
            .all(|(t, share)| *share == 0.0 || !t.uses_reader()));
        let zero = format!(
            r#"{{"source": "x", "levels": {{"sentence": {{"embedding": 0, "tier0": 0, "successor": 0, "precedence": 0, "borda": 0, "opening": 0, "closing": 0}}, "paragraph": {{{ok}}}}}}}"#
        );
        assert!(Tier1Weights::from_json(&zero).is_err());
        let good = format!(
            r#"{{"source": "x", "levels": {{"sentence": {{{ok}}}, "paragraph": {{{ok}}}}}}}"#
        );
        assert!(Tier1Weights::from_json(&good).is_ok());
    }

    #[test]
    fn transitions_and_order_scores_are_the_weighted_means_of_the_parts() {
        let tier1 = blend(weights([2.0, 1.0, 1.0], [1.0, 1.0, 2.0]));
        let units: Vec<Unit<'_>> = vec![vec!["a"], vec!["b"], vec!["c"], vec!["d"]];
        let scorers = parts();
        for level in [Level::Sentence, Level::Paragraph] {
            let w = tier1.weights().at(level);
            let table = tier1.prepare(&units, level);
            let parts: Vec<_> = scorers.iter().map(|s| s.prepare(&units, level)).collect();
            for (from, to) in [(0, 1), (1, 0), (2, 3), (3, 1)] {
                let want: f64 = (0..3).map(|k| w[k] * parts[k].transition(from, to)).sum();
                assert!((table.transition(from, to) - want).abs() < 1e-12);
            }
            for order in [vec![0, 1, 2, 3], vec![3, 1, 0, 2]] {
                let want: f64 = (0..3)
                    .map(|k| w[k] * order_score(parts[k].as_ref(), &order))
                    .sum();
                assert!((order_score(table.as_ref(), &order) - want).abs() < 1e-12);
            }
        }
        let close = |a: [f64; 3], b: [f64; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
        assert!(close(
            tier1.weights().at(Level::Sentence),
            [0.5, 0.25, 0.25]
        ));
        assert!(close(
            tier1.weights().at(Level::Paragraph),
            [0.25, 0.25, 0.5]
        ));
    }

    #[test]
    fn the_reason_names_shared_words_from_tier0_and_the_direction_only_when_it_is_against() {
        let tier1 = blend(Tier1Weights::shipped());
        let units: Vec<Unit<'_>> = vec![vec!["a"], vec!["b"]];
        let table = tier1.prepare(&units, Level::Sentence);
        // The test terms part prefers lower indices first: 0 → 1 is its order, 1 → 0 is not.
        let forward = table.reason(0, 1);
        assert_eq!(forward.shared, vec!["tier0-word".to_string()]);
        assert_eq!(forward.note.as_deref(), Some("embedding note"));
        let backward = table.reason(1, 0);
        assert_eq!(backward.note.as_deref(), Some("embedding note; terms note"));
    }
}
