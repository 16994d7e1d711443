//! The intrusion model: how likely a unit (a sentence, or a paragraph) does not belong where it
//! stands, from the `embedding` scorer's vectors. The findings rule uses it, for scorers that
//! provide it ([`super::Pairwise::intrusion`]), in place of the fixed interruption margin: on dev it
//! catches about twice as many inserted units at the same false-alarm rate (docs/evaluation.md,
//! "Findings").
//!
//! The model is a logistic regression over fourteen cosine features of a unit and its neighbours
//! ([`FEATURES`], computed by [`features`]), trained on the train split with one unit of another
//! document inserted at a random place (`models/train/intrusion/train.py`), with a threshold per
//! level and sensitivity set on dev for a target number of false alarms per 100 transitions. The
//! parameters are compiled in from `models/intrusion/intrusion.json`.

use super::findings::Sensitivity;
use super::Level;
use serde::Deserialize;
use std::sync::OnceLock;

/// The committed parameters.
const EMBEDDED: &str = include_str!("../../../models/intrusion/intrusion.json");

/// The features, in the model's order (see the trainer's docs for their definitions).
pub const FEATURES: [&str; 14] = [
    "in",
    "out",
    "skip",
    "best",
    "worst",
    "skip_minus_best",
    "skip_minus_worst",
    "best_minus_median",
    "worst_minus_median",
    "median",
    "spread",
    "window_mean",
    "window_excess",
    "rest",
];

/// Units on each side that count as a unit's window.
pub const WINDOW: usize = 3;

/// One unit's features.
pub type Features = [f64; FEATURES.len()];

#[derive(Debug, Deserialize)]
struct File {
    features: Vec<String>,
    window: usize,
    levels: Levels,
}

#[derive(Debug, Deserialize)]
struct Levels {
    sentence: LevelModel,
    paragraph: LevelModel,
}

/// The thresholds of one level, as logits.
#[derive(Debug, Clone, Copy, Deserialize)]
struct Thresholds {
    low: f64,
    medium: f64,
    high: f64,
}

/// The model of one level.
#[derive(Debug, Clone, Deserialize)]
pub struct LevelModel {
    mean: Vec<f64>,
    scale: Vec<f64>,
    weights: Vec<f64>,
    bias: f64,
    thresholds: Thresholds,
}

impl LevelModel {
    /// The logit that the unit with features `f` does not belong.
    pub fn logit(&self, f: &Features) -> f64 {
        let mut z = self.bias;
        for (k, x) in f.iter().enumerate() {
            z += (x - self.mean[k]) / self.scale[k] * self.weights[k];
        }
        z
    }

    /// The intrusion score in (0, 1) of a unit with features `f`: the model's probability under
    /// its balanced training classes, a ranking rather than a calibrated chance.
    pub fn score(&self, f: &Features) -> f64 {
        sigmoid(self.logit(f))
    }

    /// The score at or above which a unit is flagged at `sensitivity`.
    pub fn threshold(&self, sensitivity: Sensitivity) -> f64 {
        sigmoid(match sensitivity {
            Sensitivity::Low => self.thresholds.low,
            Sensitivity::Medium => self.thresholds.medium,
            Sensitivity::High => self.thresholds.high,
        })
    }

    fn valid(&self) -> bool {
        let n = FEATURES.len();
        self.mean.len() == n
            && self.scale.len() == n
            && self.weights.len() == n
            && self.scale.iter().all(|s| *s > 0.0)
            && self
                .mean
                .iter()
                .chain(&self.weights)
                .chain([&self.bias])
                .all(|x| x.is_finite())
    }
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The committed model of `level`, or `None` if the embedded file does not parse or does not
/// match [`FEATURES`] (a build-time mistake that the unit tests catch).
pub fn model(level: Level) -> Option<&'static LevelModel> {
    static MODEL: OnceLock<Option<Levels>> = OnceLock::new();
    let levels = MODEL
        .get_or_init(|| {
            let file: File = serde_json::from_str(EMBEDDED).ok()?;
            let ok = file.window == WINDOW
                && file.features.iter().map(String::as_str).eq(FEATURES)
                && file.levels.sentence.valid()
                && file.levels.paragraph.valid();
            ok.then_some(file.levels)
        })
        .as_ref()?;
    Some(match level {
        Level::Sentence => &levels.sentence,
        Level::Paragraph => &levels.paragraph,
    })
}

/// The features of every unit of a document, from its units' vectors in document order (any
/// length; zero vectors count as orthogonal to everything). Units without a neighbour on each
/// side, and all units of documents of fewer than three, get `None`.
pub fn features(vectors: &[Vec<f32>]) -> Vec<Option<Features>> {
    let n = vectors.len();
    let mut out = vec![None; n];
    if n < 3 {
        return out;
    }
    let units: Vec<Vec<f64>> = vectors.iter().map(|v| unit_length(v)).collect();
    // Every cosine the features use is between units at most 2 · WINDOW apart: computed once.
    const REACH: usize = 2 * WINDOW;
    let band: Vec<[f64; REACH]> = (0..n)
        .map(|i| {
            let mut row = [0.0; REACH];
            for (d, c) in row.iter_mut().enumerate() {
                if i + d + 1 < n {
                    *c = dot(&units[i], &units[i + d + 1]);
                }
            }
            row
        })
        .collect();
    let cos = |i: usize, j: usize| {
        let (a, b) = (i.min(j), i.max(j));
        band[a][b - a - 1]
    };
    let adjacent: Vec<f64> = (0..n - 1).map(|k| cos(k, k + 1)).collect();
    let median = median(&adjacent);
    let deviations: Vec<f64> = adjacent.iter().map(|c| (c - median).abs()).collect();
    let spread = super::analysis::median(&deviations).unwrap_or(0.0) * 1.4826;
    let dim = units[0].len();
    let mut total = vec![0.0; dim];
    for u in &units {
        for (t, x) in total.iter_mut().zip(u) {
            *t += x;
        }
    }
    for (i, slot) in out.iter_mut().enumerate().take(n - 1).skip(1) {
        let (a, b, s) = (cos(i - 1, i), cos(i, i + 1), cos(i - 1, i + 1));
        let others: Vec<usize> = (i.saturating_sub(WINDOW)..(i + WINDOW + 1).min(n))
            .filter(|&j| j != i)
            .collect();
        let window_mean = others.iter().map(|&j| cos(i, j)).sum::<f64>() / others.len() as f64;
        let among: Vec<f64> = others
            .iter()
            .enumerate()
            .flat_map(|(x, &j)| others[x + 1..].iter().map(move |&k| (j, k)))
            .map(|(j, k)| cos(j, k))
            .collect();
        let among_mean = if among.is_empty() {
            median
        } else {
            among.iter().sum::<f64>() / among.len() as f64
        };
        let rest: Vec<f64> = total.iter().zip(&units[i]).map(|(t, x)| t - x).collect();
        let rest_norm = dot(&rest, &rest).sqrt().max(1e-12);
        let rest_cos = dot(&units[i], &rest) / rest_norm;
        let (best, worst) = (a.max(b), a.min(b));
        *slot = Some([
            a,
            b,
            s,
            best,
            worst,
            s - best,
            s - worst,
            best - median,
            worst - median,
            median,
            spread,
            window_mean,
            window_mean - among_mean,
            rest_cos,
        ]);
    }
    out
}

/// Each unit's intrusion score at `level` (see [`LevelModel::score`]), `None` where it has no
/// features; `None` altogether when the model is unavailable.
pub fn scores(vectors: &[Vec<f32>], level: Level) -> Option<Vec<Option<f64>>> {
    let model = model(level)?;
    Some(
        features(vectors)
            .iter()
            .map(|f| f.as_ref().map(|f| model.score(f)))
            .collect(),
    )
}

fn unit_length(v: &[f32]) -> Vec<f64> {
    let v: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
    let norm = dot(&v, &v).sqrt();
    if norm > 0.0 {
        v.iter().map(|x| x / norm).collect()
    } else {
        v
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn median(values: &[f64]) -> f64 {
    super::analysis::median(values).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Case {
        vectors: Vec<Vec<f32>>,
        features: Vec<Vec<f64>>,
        sentence_logits: Vec<f64>,
    }

    #[derive(Deserialize)]
    struct Reference {
        cases: Vec<Case>,
    }

    #[test]
    fn the_committed_model_loads_for_both_levels() {
        for level in [Level::Sentence, Level::Paragraph] {
            let m = model(level).expect("models/intrusion/intrusion.json loads");
            assert!(m.threshold(Sensitivity::High) < m.threshold(Sensitivity::Medium));
            assert!(m.threshold(Sensitivity::Medium) < m.threshold(Sensitivity::Low));
        }
    }

    #[test]
    fn features_and_logits_match_the_trainer() {
        let text = include_str!("../../../models/intrusion/reference.json");
        let reference: Reference = serde_json::from_str(text).expect("reference parses");
        let m = model(Level::Sentence).expect("model");
        for case in &reference.cases {
            let got = features(&case.vectors);
            assert!(got[0].is_none() && got[got.len() - 1].is_none());
            let interior: Vec<Features> = got.iter().flatten().copied().collect();
            assert_eq!(interior.len(), case.features.len());
            for (f, (want, want_logit)) in interior
                .iter()
                .zip(case.features.iter().zip(&case.sentence_logits))
            {
                for (x, y) in f.iter().zip(want) {
                    assert!((x - y).abs() < 1e-5, "feature {x} vs {y}");
                }
                assert!((m.logit(f) - want_logit).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn an_off_topic_unit_scores_above_its_neighbours() {
        // Units drifting slowly along one direction, with one orthogonal unit in the middle.
        let mut vectors: Vec<Vec<f32>> = (0..9)
            .map(|k| vec![1.0, 0.1 * k as f32, 0.0, 0.05])
            .collect();
        vectors[4] = vec![0.0, 0.0, 1.0, 0.0];
        let s = scores(&vectors, Level::Sentence).expect("model");
        let intruder = s[4].expect("interior");
        for (k, v) in s.iter().enumerate() {
            if let (Some(v), true) = (v, k != 4) {
                assert!(intruder > *v, "unit {k}: {v} vs {intruder}");
            }
        }
    }

    #[test]
    fn short_or_empty_documents_have_no_features() {
        assert!(features(&[]).is_empty());
        assert_eq!(features(&[vec![1.0], vec![0.0]]), vec![None, None]);
        // Zero vectors do not produce NaN.
        let f = features(&[vec![0.0; 3], vec![0.0; 3], vec![0.0; 3]]);
        assert!(f[1].expect("interior").iter().all(|x| x.is_finite()));
    }
}
