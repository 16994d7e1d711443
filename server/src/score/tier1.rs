//! The combined tier-1 score (`tier1`): a weighted mean of the transitions of three scorers that
//! see different things — `embedding` (meaning: the cosine of sentence vectors), `tier0` (shared
//! words, entities and discourse cues) and `ordering-head` (the trained ordering model's
//! direction-aware successor and precedence cues).
//!
//! The weights (one set per level, in `models/tier1/tier1.json`) are fitted by
//! `models/train/tier1/fit.py` as a logistic regression on the differences between the order
//! scores of original and degraded documents (`segue eval --comparisons` on the dev corpus), so
//! the weighted mean of the three order scores is the one that best tells an original from its
//! degraded copies. Every part is a mean of adjacent transitions, so the blend is too: it scores
//! transitions for diagnostics, orders for `segue eval` and candidate orders for the decoders
//! alike. docs/bbscore.md has the figures.

use super::{Level, Pairwise, Reason, Scorer, ScorerSet, Unit};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The weights shipped with Segue, fitted on the dev corpus by `models/train/tier1/fit.py`.
const EMBEDDED: &str = include_str!("../../../models/tier1/tier1.json");

/// The scorers the blend combines, in the order of the weights.
pub const PARTS: [&str; 3] = ["embedding", "tier0", "ordering-head"];

/// The blend's weights: for each level, one non-negative weight per part of [`PARTS`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Tier1Weights {
    /// Where the weights come from (data, command), for `segue doctor` and the model card.
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
            for part in PARTS {
                let v = *parts
                    .get(part)
                    .ok_or_else(|| format!("tier1 weights: no weight for `{part}`"))?;
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
                    let parts = PARTS.iter().map(|p| (p.to_string(), 1.0)).collect();
                    (l.name().to_string(), parts)
                })
                .collect(),
        })
    }

    /// The weights of [`PARTS`] at `level`, normalised to sum to 1.
    pub fn at(&self, level: Level) -> [f64; 3] {
        let parts = self.levels.get(level.name());
        let raw = PARTS.map(|p| parts.and_then(|m| m.get(p)).copied().unwrap_or(1.0));
        let sum: f64 = raw.iter().sum();
        if sum > 0.0 {
            raw.map(|v| v / sum)
        } else {
            [1.0 / 3.0; 3]
        }
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
    /// The blend of the [`PARTS`] registered in `set`, with `weights`; `None` when one of them is
    /// missing (the ordering heads did not load).
    pub fn from_set(set: &ScorerSet, weights: Tier1Weights) -> Option<Self> {
        let [a, b, c] = PARTS;
        Some(Tier1 {
            parts: [set.get(a)?, set.get(b)?, set.get(c)?],
            weights,
        })
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
        "combined tier-1 score: embedding cosine, the built-in tier0 score and the ordering heads' direction cues, weighted as fitted on dev data"
    }

    fn tier(&self) -> u8 {
        1
    }

    fn runs_on(&self) -> Option<String> {
        self.parts[0].runs_on()
    }

    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        Box::new(Tier1Pairs {
            tables: self.parts.iter().map(|p| p.prepare(units, level)).collect(),
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

    fn set() -> ScorerSet {
        let mut set = ScorerSet::default();
        set.register(Arc::new(Fixed("embedding", |a, b| {
            if b == a + 1 {
                0.9
            } else {
                0.1
            }
        })));
        set.register(Arc::new(Fixed("tier0", |a, b| (a + b) as f64 / 10.0)));
        set.register(Arc::new(Fixed("ordering-head", |a, b| {
            if a < b {
                1.0
            } else {
                0.0
            }
        })));
        set
    }

    fn weights(s: [f64; 3], p: [f64; 3]) -> Tier1Weights {
        let level = |w: [f64; 3]| PARTS.iter().map(|p| p.to_string()).zip(w).collect();
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
        }
    }

    #[test]
    fn bad_weights_are_refused() {
        assert!(Tier1Weights::from_json("{}").is_err());
        assert!(Tier1Weights::from_json("not json").is_err());
        let negative = r#"{"source": "x", "levels": {
            "sentence": {"embedding": 1, "tier0": -1, "ordering-head": 1},
            "paragraph": {"embedding": 1, "tier0": 1, "ordering-head": 1}}}"#;
        assert!(Tier1Weights::from_json(negative)
            .unwrap_err()
            .contains("tier0"));
        let zero = r#"{"source": "x", "levels": {
            "sentence": {"embedding": 0, "tier0": 0, "ordering-head": 0},
            "paragraph": {"embedding": 1, "tier0": 1, "ordering-head": 1}}}"#;
        assert!(Tier1Weights::from_json(zero).is_err());
    }

    #[test]
    fn transitions_and_order_scores_are_the_weighted_means_of_the_parts() {
        let set = set();
        let tier1 = Tier1::from_set(&set, weights([2.0, 1.0, 1.0], [1.0, 1.0, 2.0])).unwrap();
        let units: Vec<Unit<'_>> = vec![vec!["a"], vec!["b"], vec!["c"], vec!["d"]];
        for level in [Level::Sentence, Level::Paragraph] {
            let w = tier1.weights().at(level);
            let table = tier1.prepare(&units, level);
            let scorers: Vec<_> = PARTS.iter().map(|p| set.get(p).unwrap()).collect();
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
        assert_eq!(tier1.weights().at(Level::Sentence), [0.5, 0.25, 0.25]);
        assert_eq!(tier1.weights().at(Level::Paragraph), [0.25, 0.25, 0.5]);
    }

    #[test]
    fn the_reason_names_shared_words_from_tier0_and_the_direction_only_when_it_is_against() {
        let tier1 = Tier1::from_set(&set(), Tier1Weights::shipped()).unwrap();
        let units: Vec<Unit<'_>> = vec![vec!["a"], vec!["b"]];
        let table = tier1.prepare(&units, Level::Sentence);
        // The test ordering part prefers lower indices first: 0 → 1 is its order, 1 → 0 is not.
        let forward = table.reason(0, 1);
        assert_eq!(forward.shared, vec!["tier0-word".to_string()]);
        assert_eq!(forward.note.as_deref(), Some("embedding note"));
        let backward = table.reason(1, 0);
        assert_eq!(
            backward.note.as_deref(),
            Some("embedding note; ordering-head note")
        );
    }

    #[test]
    fn a_missing_part_leaves_the_blend_out() {
        let mut partial = ScorerSet::default();
        partial.register(Arc::new(Fixed("embedding", |_, _| 0.5)));
        partial.register(Arc::new(Fixed("tier0", |_, _| 0.5)));
        assert!(Tier1::from_set(&partial, Tier1Weights::shipped()).is_none());
    }
}
