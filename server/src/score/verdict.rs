//! The verdict model: one trained logistic regression per reporting scorer and level that weighs
//! the evidence on a transition into a unit — how weak it is against the rest of the document,
//! the scorer's intrusion score, how many of the unit's words are new to the document, how the
//! unit's neighbours join without it — into one score. Findings flag a unit whose score passes the
//! sensitivity's threshold (see [`super::findings`]). A unit that a disable comment covers is
//! never flagged; one that leans on what comes before it with an explicit link (a connective, an
//! anaphor, a pointer) needs stronger evidence: its score drops by the level's link weight.
//!
//! Trained on the train part of the real-prose corpus (published documents of eight genres, each
//! with foreign sentences and paragraphs planted), with thresholds set on the same documents as
//! published for a target number of findings per 1,000 words (`models/train/verdict/train.py`,
//! `models/verdict/README.md`). The parameters (`models/verdict/verdict.json`) are compiled in.
//! A scorer or level without parameters keeps the hand-set rules of [`super::findings`].

use super::analysis::Transition;
use super::logistic::Logistic;
use super::Level;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The features, in the model's order.
pub const FEATURES: [&str; 10] = [
    "relative",
    "below_floor",
    "intrusion",
    "has_intrusion",
    "excess_novelty",
    "novelty",
    "novelty_known",
    "out_relative",
    "skip_gain",
    "log_transitions",
];

/// Where `log_transitions` is in [`FEATURES`].
const LOG_TRANSITIONS: usize = 9;

/// One transition's features.
pub type Features = [f64; FEATURES.len()];

/// What a level's transitions are measured against: the document's own statistics and the
/// calibrated floor of edited prose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Baseline {
    /// The score a usual transition of this document gets (its median, or edited prose's when
    /// the document has too few transitions).
    pub centre: f64,
    /// The robust spread of the document's scores (1.4826 × MAD; 0 when too few).
    pub spread: f64,
    /// The floor of edited prose at the default sensitivity.
    pub floor: f64,
    /// The median novelty of the level's units.
    pub usual_novelty: f64,
}

/// How far a unit's novelty stands above the document's usual, as a share of the room above it:
/// 1 for a unit whose words are all new, 0 (or below) for a usual one.
pub fn excess_novelty(novelty: Option<f64>, usual: f64) -> f64 {
    (novelty.unwrap_or(0.0) - usual) / (1.0 - usual).max(0.05)
}

/// The features of each of `transitions` (one level of one document, in order).
pub fn features(transitions: &[Transition], base: &Baseline) -> Vec<Features> {
    let spread = base.spread.max(0.05);
    let relative = |score: f64| ((score - base.centre) / spread).clamp(-6.0, 6.0);
    let log_transitions = (1.0 + transitions.len() as f64).ln();
    transitions
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let next = transitions.get(k + 1).filter(|n| n.from.span == t.to.span);
            let intrusion = t
                .intrusion
                .map(|p| {
                    let p = p.clamp(1e-6, 1.0 - 1e-6);
                    (p / (1.0 - p)).ln()
                })
                .unwrap_or(0.0);
            let skip_gain = match (t.skip, next) {
                (Some(skip), Some(n)) => skip - t.score.max(n.score),
                _ => 0.0,
            };
            // A unit with no unit after it (the last of its paragraph or section) gets a usual
            // transition out of it (`relative` 0, no gain from skipping it): trained on units
            // planted between two others, the model would otherwise learn that a last unit is
            // never out of place.
            [
                relative(t.score),
                t.score - base.floor,
                intrusion,
                f64::from(u8::from(t.intrusion.is_some())),
                excess_novelty(t.novelty, base.usual_novelty),
                t.novelty.unwrap_or(base.usual_novelty),
                f64::from(u8::from(t.novelty.is_some())),
                next.map_or(0.0, |n| relative(n.score)),
                skip_gain,
                log_transitions,
            ]
        })
        .collect()
}

/// One level's trained parameters.
#[derive(Debug, Clone, Deserialize)]
pub struct LevelModel {
    #[serde(flatten)]
    linear: Logistic,
    /// How much the score drops per unit of `ln(1 + transitions)` that the level has below
    /// [`Self::reference`]: in a short document every unit's evidence is noisier.
    length_weight: f64,
    /// `ln(1 + transitions)` of a level long enough to need no such caution.
    reference: f64,
    /// The most the shortfall counts, so that a blatant intrusion in a very short document can
    /// still be flagged.
    length_cap: f64,
    /// How much the score drops for a unit that opens with an explicit link: the writer's mark
    /// that it follows on is evidence of coherence that planted units do not teach the model.
    link_weight: f64,
    /// The logit at or above which a unit is flagged, per sensitivity (`low`, `medium`, `high`).
    thresholds: Thresholds,
}

/// The thresholds of one level, as logits.
#[derive(Debug, Clone, Copy, Deserialize)]
struct Thresholds {
    low: f64,
    medium: f64,
    high: f64,
}

impl LevelModel {
    /// The score (log-odds) of `x`.
    pub fn logit(&self, x: &Features) -> f64 {
        let z = self.linear.logit(x);
        let short = (self.reference - x[LOG_TRANSITIONS]).clamp(0.0, self.length_cap.max(0.0));
        z - self.length_weight * short
    }

    /// The score of a transition with features `x` into a unit that opens with an explicit
    /// link (`linked`) or not.
    pub fn judge(&self, x: &Features, linked: bool) -> f64 {
        self.logit(x) - if linked { self.link_weight } else { 0.0 }
    }

    /// The threshold of `sensitivity`.
    pub fn threshold(&self, sensitivity: crate::config::Sensitivity) -> f64 {
        use crate::config::Sensitivity;
        match sensitivity {
            Sensitivity::Low => self.thresholds.low,
            Sensitivity::Medium => self.thresholds.medium,
            Sensitivity::High => self.thresholds.high,
        }
    }

    /// The thresholds, strictest first: `low`, `medium`, `high`.
    pub fn thresholds(&self) -> [f64; 3] {
        [
            self.thresholds.low,
            self.thresholds.medium,
            self.thresholds.high,
        ]
    }

    fn valid(&self) -> bool {
        let n = FEATURES.len();
        let [low, medium, high] = self.thresholds();
        let l = &self.linear;
        l.has_features(n)
            && l.mean
                .iter()
                .chain(&l.scale)
                .chain(&l.weights)
                .chain([
                    &l.bias,
                    &self.length_weight,
                    &self.reference,
                    &self.length_cap,
                    &self.link_weight,
                ])
                .chain([&low, &medium, &high])
                .all(|v| v.is_finite())
            && low >= medium
            && medium >= high
            && self.link_weight >= 0.0
    }
}

#[derive(Debug, Deserialize)]
struct File {
    features: Vec<String>,
    scorers: BTreeMap<String, Levels>,
    /// reporting scorer → the scorer whose verdict is weighed with its own.
    #[serde(default)]
    companions: BTreeMap<String, Companion>,
}

/// A second verdict weighed with a scorer's own: a unit is flagged when the two verdicts' margins
/// over their thresholds, the companion's scaled by `weight`, sum to at least zero. The `embedding`
/// verdict takes `tier0`'s as its companion: the two disagree on most false alarms (a semantic
/// link the lexicon misses, a new term the encoder places) and agree on most planted units.
#[derive(Debug, Clone, Deserialize)]
pub struct Companion {
    /// The companion scorer's name (it must have verdict models of its own).
    pub scorer: String,
    /// How much the companion's margin counts against the scorer's own.
    pub weight: f64,
}

/// A scorer's levels; a level without parameters (`null`) keeps the hand-set rules.
#[derive(Debug, Deserialize)]
struct Levels {
    sentence: Option<LevelModel>,
    paragraph: Option<LevelModel>,
}

/// The compiled-in parameters, or `None` if the file does not parse or does not match
/// [`FEATURES`] (a build-time mistake that the unit tests catch).
fn shipped() -> Option<&'static BTreeMap<String, Levels>> {
    shipped_file().map(|f| &f.scorers)
}

fn shipped_file() -> Option<&'static File> {
    static FILE: OnceLock<Option<File>> = OnceLock::new();
    FILE.get_or_init(|| {
        let file: File =
            serde_json::from_str(include_str!("../../models/verdict/verdict.json")).ok()?;
        let ok = file
            .features
            .iter()
            .map(String::as_str)
            .eq(FEATURES.iter().copied())
            && file.scorers.values().all(|l| {
                [&l.sentence, &l.paragraph]
                    .into_iter()
                    .flatten()
                    .all(LevelModel::valid)
            });
        let companions_ok = file.companions.values().all(|c| {
            c.weight.is_finite() && c.weight >= 0.0 && file.scorers.contains_key(&c.scorer)
        });
        (ok && companions_ok).then_some(file)
    })
    .as_ref()
}

/// The companion whose verdict is weighed with `scorer`'s, if one is shipped.
pub fn companion(scorer: &str) -> Option<&'static Companion> {
    shipped_file()?.companions.get(scorer)
}

/// The verdict model of the scorer named `scorer` at `level`, if one was trained for it.
pub fn model(scorer: &str, level: Level) -> Option<&'static LevelModel> {
    let levels = shipped()?.get(scorer)?;
    match level {
        Level::Sentence => levels.sentence.as_ref(),
        Level::Paragraph => levels.paragraph.as_ref(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_parameters_parse_and_match_the_features() {
        let scorers = shipped().expect("models/verdict/verdict.json parses and matches FEATURES");
        assert!(
            scorers
                .values()
                .any(|l| l.sentence.is_some() || l.paragraph.is_some()),
            "at least one level of one scorer has a model"
        );
    }

    #[test]
    fn the_embedding_verdict_weighs_tier0_as_its_companion() {
        let c = companion("embedding").expect("a companion for embedding");
        assert_eq!(c.scorer, "tier0");
        assert!(c.weight > 0.0);
        assert!(model("tier0", Level::Sentence).is_some());
        assert!(companion("tier0").is_none());
    }

    #[test]
    fn log_transitions_is_where_the_length_prior_reads_it() {
        assert_eq!(FEATURES[LOG_TRANSITIONS], "log_transitions");
    }

    #[test]
    fn novelty_counts_above_the_documents_usual() {
        assert!((excess_novelty(Some(1.0), 0.4) - 1.0).abs() < 1e-12);
        assert!((excess_novelty(Some(0.4), 0.4)).abs() < 1e-12);
        assert!(excess_novelty(Some(0.7), 0.4) > 0.49);
    }
}
