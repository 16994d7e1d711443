//! Intrusion models: how likely a unit (a sentence, or a paragraph) does not belong where it
//! stands. The findings rule uses them, for scorers that provide scores
//! ([`super::Pairwise::intrusion`]), in place of the fixed interruption margin (docs/evaluation.md,
//! "Findings").
//!
//! Two models of the same form, each a logistic regression per level with a threshold per
//! sensitivity: fourteen features of cosines between the unit's vector, its neighbours within
//! [`WINDOW`] places and the rest of the document ([`features`]), and a weight per dimension of
//! the vector on four [`VECTOR_BLOCKS`] (the unit's vector against the rest of the document and
//! against its neighbours), computed on the fly ([`scores_with`]). Both are trained by
//! `models/train/intrusion/train.py` on the real-prose corpus's train part with units of another
//! genre planted, thresholds set on dev for a target number of false alarms per 100 transitions:
//!
//! - [`Model::Embedding`], for the `embedding` scorer, on the encoder's vectors
//!   (`models/intrusion/intrusion.json`);
//! - [`Model::Static`], for the built-in `tier0` scorer, on its static word vectors
//!   ([`super::static_vectors`]; `models/intrusion/static.json`).
//!
//! The parameters are compiled in.

use super::logistic::{sigmoid, Logistic};
use super::Level;
use crate::config::Sensitivity;
use rayon::prelude::*;
use serde::Deserialize;
use std::sync::OnceLock;

/// The features, in the models' order (see the trainer's docs for their definitions): the first
/// [`WINDOW_FEATURES`] read the unit's window, the last the rest of the document.
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

/// The embedding model's vector blocks, each one number per dimension of the unit's vector `u`:
/// `u * r` and `|u - r|` with `r` the sum of the document's other units, `u * w` and `|u - w|`
/// with `w` the sum of the units within [`WINDOW`] places, `r` and `w` at unit length. Their
/// weights (`vector_weights`, block after block) apply to the raw values: the trainer folds the
/// standardisation into them and the bias.
pub const VECTOR_BLOCKS: [&str; 4] = [
    "rest_product",
    "rest_distance",
    "window_product",
    "window_distance",
];

/// How many of [`FEATURES`] come from scores within a unit's window (all but `rest`).
pub const WINDOW_FEATURES: usize = 13;

/// Units on each side that count as a unit's window.
pub const WINDOW: usize = 3;

/// Every score the window features use is between units at most this far apart (besides the
/// adjacent transitions whose median and spread they read).
pub const REACH: usize = 2 * WINDOW;

/// Units per block of the per-unit passes ([`Prepared::each`]): blocks run in parallel, each
/// sliding its own window sum from its first unit. Fixed, so that a result does not depend on the
/// number of threads.
const BLOCK: usize = 256;

/// Fewest units a document needs for its per-unit passes to run over the thread pool; a shorter
/// one runs on the calling thread (waking the pool costs more than it saves).
pub(crate) const PARALLEL_FROM: usize = 1024;

/// The least number of items a parallel task takes of a pass over `len` items for a document of
/// `n` units: all of them (one task) under [`PARALLEL_FROM`] units, else a quarter (work stealing
/// balances the tasks of the two levels, which run side by side, over the cores).
pub(crate) fn min_task(len: usize, n: usize) -> usize {
    if n >= PARALLEL_FROM {
        (len / 4).max(1)
    } else {
        len.max(1)
    }
}

/// One unit's features.
pub type Features = [f64; FEATURES.len()];

/// One unit's window features.
type WindowFeatures = [f64; WINDOW_FEATURES];

/// Which committed model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// On the `embedding` scorer's vectors (`models/intrusion/intrusion.json`).
    Embedding,
    /// On the `tier0` scorer's static word vectors ([`super::static_vectors`];
    /// `models/intrusion/static.json`).
    Static,
}

impl Model {
    /// Its parameters for `level`, or `None` if the embedded file does not parse or does not match
    /// the features (a build-time mistake that the unit tests catch).
    pub fn level(self, level: Level) -> Option<&'static LevelModel> {
        static EMBEDDING: OnceLock<Option<Levels>> = OnceLock::new();
        static STATIC: OnceLock<Option<Levels>> = OnceLock::new();
        let (cell, text) = match self {
            Model::Embedding => (
                &EMBEDDING,
                include_str!("../../models/intrusion/intrusion.json"),
            ),
            Model::Static => (&STATIC, include_str!("../../models/intrusion/static.json")),
        };
        let levels = cell.get_or_init(|| self.parse(text)).as_ref()?;
        match level {
            Level::Sentence => levels.sentence.as_ref(),
            Level::Paragraph => levels.paragraph.as_ref(),
        }
    }

    /// The file's levels, or `None` if it does not parse or does not match this model's features.
    fn parse(self, text: &str) -> Option<Levels> {
        let file: File = serde_json::from_str(text).ok()?;
        let (features, blocks) = (&FEATURES, &VECTOR_BLOCKS);
        let vector_len = blocks.len() * file.vector_dim;
        let levels = [&file.levels.sentence, &file.levels.paragraph];
        let ok = file.window == WINDOW
            && file
                .features
                .iter()
                .map(String::as_str)
                .eq(features.iter().copied())
            && file
                .vector_blocks
                .iter()
                .map(String::as_str)
                .eq(blocks.iter().copied())
            && file.vector_dim > 0
            && levels.iter().any(|l| l.is_some())
            && levels
                .iter()
                .flat_map(|l| l.as_ref())
                .all(|l| l.valid(features.len(), vector_len));
        ok.then(|| {
            let mut levels = file.levels;
            for l in [&mut levels.sentence, &mut levels.paragraph]
                .into_iter()
                .flatten()
            {
                l.vector_dim = file.vector_dim;
            }
            levels
        })
    }

    /// Whether it has parameters for at least one level.
    pub fn available(self) -> bool {
        self.level(Level::Sentence).is_some() || self.level(Level::Paragraph).is_some()
    }
}

#[derive(Debug, Deserialize)]
struct File {
    features: Vec<String>,
    /// The vector blocks ([`VECTOR_BLOCKS`]).
    vector_blocks: Vec<String>,
    /// The dimension of the vectors the blocks were trained on.
    vector_dim: usize,
    window: usize,
    levels: Levels,
}

/// A model's levels; a level without parameters (`null`) keeps the fixed interruption rule.
#[derive(Debug, Deserialize)]
struct Levels {
    sentence: Option<LevelModel>,
    paragraph: Option<LevelModel>,
}

/// The thresholds of one level, as logits.
#[derive(Debug, Clone, Copy, Deserialize)]
struct Thresholds {
    low: f64,
    medium: f64,
    high: f64,
}

/// A model's parameters for one level.
#[derive(Debug, Clone, Deserialize)]
pub struct LevelModel {
    #[serde(flatten)]
    linear: Logistic,
    /// Weights of the vector blocks on their raw values, block after block.
    vector_weights: Vec<f64>,
    /// The vectors' dimension, from the file.
    #[serde(skip)]
    vector_dim: usize,
    thresholds: Thresholds,
}

impl LevelModel {
    /// The features' part of the logit that the unit with features `f` does not belong; the
    /// whole logit adds [`Self::vector_logit`].
    pub fn logit(&self, f: &[f64]) -> f64 {
        self.linear.logit(f)
    }

    /// The vector blocks' part of the logit for the unit `u` with `rest` (the sum of the
    /// document's other units) and `window` (the sum of its neighbours within [`WINDOW`] places),
    /// each at unit length; `None` when the vectors' dimension is not the model's (another
    /// encoder's vectors).
    pub fn vector_logit(&self, u: &[f64], rest: &[f64], window: &[f64]) -> Option<f64> {
        let d = self.vector_dim;
        if u.len() != d || rest.len() != d || window.len() != d {
            return None;
        }
        let w = &self.vector_weights;
        let (w0, w1, w2, w3) = (&w[..d], &w[d..2 * d], &w[2 * d..3 * d], &w[3 * d..4 * d]);
        let term = |k: usize| {
            let (x, r, n) = (u[k], rest[k], window[k]);
            w0[k] * x * r + w1[k] * (x - r).abs() + w2[k] * x * n + w3[k] * (x - n).abs()
        };
        // Four lanes, as in `dot`.
        let mut lanes = [0.0; 4];
        for c in 0..d / 4 {
            for (j, lane) in lanes.iter_mut().enumerate() {
                *lane += term(4 * c + j);
            }
        }
        let tail: f64 = (d - d % 4..d).map(term).sum();
        Some(lanes.iter().sum::<f64>() + tail)
    }

    /// The score at or above which a unit is flagged at `sensitivity`.
    pub fn threshold(&self, sensitivity: Sensitivity) -> f64 {
        sigmoid(match sensitivity {
            Sensitivity::Low => self.thresholds.low,
            Sensitivity::Medium => self.thresholds.medium,
            Sensitivity::High => self.thresholds.high,
        })
    }

    fn valid(&self, n: usize, vector_len: usize) -> bool {
        let l = &self.linear;
        l.has_features(n)
            && self.vector_weights.len() == vector_len
            && l.scale.iter().all(|s| *s > 0.0)
            && l.mean
                .iter()
                .chain(&l.weights)
                .chain(&self.vector_weights)
                .chain([&l.bias])
                .all(|x| x.is_finite())
    }
}

/// The window features of units 1 … n − 2 of `n` units, from `score(a, b)` for a < b at most
/// [`REACH`] apart (the cosine, or the transition from a to b); `None` for the two end units and
/// for all units of documents of fewer than three.
fn window_core(
    n: usize,
    score: impl Fn(usize, usize) -> f64 + Sync,
) -> Vec<Option<WindowFeatures>> {
    if n < 3 {
        return vec![None; n];
    }
    // Every score within reach, computed once.
    let band: Vec<[f64; REACH]> = (0..n)
        .into_par_iter()
        .with_min_len(min_task(n, n))
        .map(|i| {
            let mut row = [0.0; REACH];
            for (d, c) in row.iter_mut().enumerate() {
                if i + d + 1 < n {
                    *c = score(i, i + d + 1);
                }
            }
            row
        })
        .collect();
    let s = |i: usize, j: usize| {
        let (a, b) = (i.min(j), i.max(j));
        band[a][b - a - 1]
    };
    let adjacent: Vec<f64> = (0..n - 1).map(|k| s(k, k + 1)).collect();
    let median = median(&adjacent);
    let deviations: Vec<f64> = adjacent.iter().map(|c| (c - median).abs()).collect();
    let spread = super::analysis::median(&deviations).unwrap_or(0.0) * 1.4826;
    let features = |i: usize| -> Option<WindowFeatures> {
        if i == 0 || i + 1 >= n {
            return None;
        }
        let (a, b, skip) = (s(i - 1, i), s(i, i + 1), s(i - 1, i + 1));
        let others: Vec<usize> = (i.saturating_sub(WINDOW)..(i + WINDOW + 1).min(n))
            .filter(|&j| j != i)
            .collect();
        let window_mean = others.iter().map(|&j| s(i, j)).sum::<f64>() / others.len() as f64;
        let among: Vec<f64> = others
            .iter()
            .enumerate()
            .flat_map(|(x, &j)| others[x + 1..].iter().map(move |&k| (j, k)))
            .map(|(j, k)| s(j, k))
            .collect();
        let among_mean = if among.is_empty() {
            median
        } else {
            among.iter().sum::<f64>() / among.len() as f64
        };
        let (best, worst) = (a.max(b), a.min(b));
        Some([
            a,
            b,
            skip,
            best,
            worst,
            skip - best,
            skip - worst,
            best - median,
            worst - median,
            median,
            spread,
            window_mean,
            window_mean - among_mean,
        ])
    };
    (0..n)
        .into_par_iter()
        .with_min_len(min_task(n, n))
        .map(features)
        .collect()
}

/// A document's unit vectors at unit length (f64, one buffer of `n × dim`), and their sum.
struct Prepared {
    n: usize,
    dim: usize,
    units: Vec<f64>,
    total: Vec<f64>,
}

impl Prepared {
    fn new(vectors: &[Vec<f32>]) -> Self {
        let n = vectors.len();
        let dim = vectors.first().map_or(0, Vec::len);
        let mut units = vec![0.0; n * dim];
        units
            .par_chunks_exact_mut(dim.max(1))
            .zip(vectors)
            .with_min_len(min_task(n, n))
            .for_each(|(row, v)| {
                for (x, &y) in row.iter_mut().zip(v) {
                    *x = f64::from(y);
                }
                let norm = dot(row, row).sqrt();
                if norm > 0.0 {
                    row.iter_mut().for_each(|x| *x /= norm);
                }
            });
        // Summed in document order, so the total does not depend on the threads.
        let mut total = vec![0.0; dim];
        for row in units.chunks_exact(dim.max(1)) {
            add(&mut total, row, 1.0);
        }
        Prepared {
            n,
            dim,
            units,
            total,
        }
    }

    /// Unit `i`'s vector.
    fn unit(&self, i: usize) -> &[f64] {
        &self.units[i * self.dim..(i + 1) * self.dim]
    }

    /// `each(i, features, rest, window)` for every unit `i` that has features, with `rest` the
    /// sum of the other units and `window` the sum of the units within [`WINDOW`] places of `i`
    /// (without `i`), both at unit length: what the `rest` feature and the vector blocks read.
    /// Units are taken in blocks of [`BLOCK`] in parallel; two buffers serve every unit of a
    /// block, so a long document costs no allocation per unit.
    fn each<T: Send>(
        &self,
        each: impl Fn(usize, Features, &[f64], &[f64]) -> T + Sync,
    ) -> Vec<Option<T>> {
        let n = self.n;
        let window = window_core(n, |a, b| dot(self.unit(a), self.unit(b)));
        let blocks: Vec<Vec<Option<T>>> = window
            .par_chunks(BLOCK)
            .with_min_len(min_task(n.div_ceil(BLOCK), n))
            .enumerate()
            .map(|(b, block)| {
                let first = b * BLOCK;
                // The sum of units i − WINDOW ..= i + WINDOW, from the block's first unit on,
                // slid along as i grows.
                let mut around = vec![0.0; self.dim];
                for j in first.saturating_sub(WINDOW)..(first + WINDOW + 1).min(n) {
                    add(&mut around, self.unit(j), 1.0);
                }
                let (mut rest, mut near) = (vec![0.0; self.dim], vec![0.0; self.dim]);
                let mut out = Vec::with_capacity(block.len());
                for (k, w) in block.iter().enumerate() {
                    let i = first + k;
                    if k > 0 {
                        if i + WINDOW < n {
                            add(&mut around, self.unit(i + WINDOW), 1.0);
                        }
                        if let Some(j) = i.checked_sub(WINDOW + 1) {
                            add(&mut around, self.unit(j), -1.0);
                        }
                    }
                    let Some(w) = w else {
                        out.push(None);
                        continue;
                    };
                    let u = self.unit(i);
                    difference_at_unit_length(&mut rest, &self.total, u);
                    difference_at_unit_length(&mut near, &around, u);
                    let mut f = [0.0; FEATURES.len()];
                    f[..WINDOW_FEATURES].copy_from_slice(w);
                    f[WINDOW_FEATURES] = dot(u, &rest);
                    out.push(Some(each(i, f, &rest, &near)));
                }
                out
            })
            .collect();
        blocks.into_iter().flatten().collect()
    }

    fn features(&self) -> Vec<Option<Features>> {
        self.each(|_, f, _, _| f)
    }
}

/// The embedding model's cosine features of every unit of a document, from its units' vectors in
/// document order (any length; zero vectors count as orthogonal to everything). Units without a
/// neighbour on each side, and all units of documents of fewer than three, get `None`.
pub fn features(vectors: &[Vec<f32>]) -> Vec<Option<Features>> {
    Prepared::new(vectors).features()
}

/// Each unit's intrusion score in (0, 1) at `level` under the embedding model: the model's
/// probability under its balanced training classes, a ranking rather than a calibrated chance;
/// `None` where it has no features; `None` altogether when the model is unavailable or the vectors
/// are of another dimension than the model's (another encoder's).
pub fn scores(vectors: &[Vec<f32>], level: Level) -> Option<Vec<Option<f64>>> {
    scores_with(Model::Embedding, vectors, level)
}

/// Each unit's intrusion score at `level` under `model`, a model on vectors
/// ([`Model::Embedding`] or [`Model::Static`]), as for [`scores`].
pub fn scores_with(model: Model, vectors: &[Vec<f32>], level: Level) -> Option<Vec<Option<f64>>> {
    let logits = logits_with(model, vectors, level)?;
    Some(logits.into_iter().map(|z| z.map(sigmoid)).collect())
}

/// The embedding model's logits behind [`scores`]: the cosine features' part plus the vector
/// blocks' ([`LevelModel::vector_logit`]).
pub fn logits(vectors: &[Vec<f32>], level: Level) -> Option<Vec<Option<f64>>> {
    logits_with(Model::Embedding, vectors, level)
}

/// `model`'s logits behind [`scores_with`].
pub fn logits_with(model: Model, vectors: &[Vec<f32>], level: Level) -> Option<Vec<Option<f64>>> {
    let model = model.level(level)?;
    let prepared = Prepared::new(vectors);
    prepared
        .each(|i, f, rest, window| {
            let v = model.vector_logit(prepared.unit(i), rest, window)?;
            Some(model.logit(&f) + v)
        })
        .into_iter()
        .map(|z| z.map_or(Some(None), |z| z.map(Some)))
        .collect()
}

/// `out = (a − b)` at unit length (left as it is when it is zero).
fn difference_at_unit_length(out: &mut [f64], a: &[f64], b: &[f64]) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x - y;
    }
    // One division, then products: a division per element was the slowest step of the pass.
    let scale = 1.0 / dot(out, out).sqrt().max(1e-12);
    out.iter_mut().for_each(|x| *x *= scale);
}

/// `sum += sign * v`.
fn add(sum: &mut [f64], v: &[f64], sign: f64) {
    for (s, x) in sum.iter_mut().zip(v) {
        *s += sign * x;
    }
}

/// The dot product, summed in four lanes (which the compiler vectorises; one running sum cannot
/// be reordered).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0.0; 4];
    for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for k in 0..4 {
            lanes[k] += x[k] * y[k];
        }
    }
    let tail: f64 = a[n - n % 4..]
        .iter()
        .zip(&b[n - n % 4..])
        .map(|(x, y)| x * y)
        .sum();
    lanes.iter().sum::<f64>() + tail
}

fn median(values: &[f64]) -> f64 {
    super::analysis::median(values).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` vectors of `dim` values from a fixed sequence (no two alike).
    fn wavy(n: usize, dim: usize) -> Vec<Vec<f32>> {
        (0..n)
            .map(|i| {
                (0..dim)
                    .map(|k| ((i * 31 + k * 7) as f32 * 0.37).sin())
                    .collect()
            })
            .collect()
    }

    /// The vector at unit length, in the order `Prepared` sums.
    fn unit_length(v: Vec<f64>) -> Vec<f64> {
        let norm = dot(&v, &v).sqrt().max(1e-12);
        v.into_iter().map(|x| x / norm).collect()
    }

    /// Every unit's `rest` and `window` sums, read in blocks, are the sums computed directly,
    /// at the edges of the blocks too.
    #[test]
    fn block_sums_are_the_direct_sums() {
        let n = 3 * BLOCK + 40;
        let prepared = Prepared::new(&wavy(n, 8));
        let got = prepared.each(|_, _, rest, near| (rest.to_vec(), near.to_vec()));
        assert_eq!(got.len(), n);
        for (i, slot) in got.iter().enumerate() {
            let Some((rest, near)) = slot else {
                assert!(i == 0 || i == n - 1, "unit {i} has no features");
                continue;
            };
            let u = prepared.unit(i);
            let direct_rest: Vec<f64> = (0..8).map(|k| prepared.total[k] - u[k]).collect();
            let window: Vec<f64> = (0..8)
                .map(|k| {
                    (i.saturating_sub(WINDOW)..(i + WINDOW + 1).min(n))
                        .filter(|&j| j != i)
                        .map(|j| prepared.unit(j)[k])
                        .sum()
                })
                .collect();
            for (a, b) in rest.iter().zip(unit_length(direct_rest)) {
                assert!((a - b).abs() < 1e-9, "rest of unit {i}");
            }
            for (a, b) in near.iter().zip(unit_length(window)) {
                assert!((a - b).abs() < 1e-9, "window of unit {i}");
            }
        }
    }

    /// A long document's scores are the same bit for bit on one thread or several.
    #[test]
    fn scores_do_not_depend_on_the_threads() {
        let vectors = wavy(PARALLEL_FROM * 3, 384);
        let on = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool")
                .install(|| scores_with(Model::Static, &vectors, Level::Sentence))
        };
        let one = on(1).expect("the static model");
        assert_eq!(one.len(), vectors.len());
        assert_eq!(Some(one), on(4));
    }

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
            let m = Model::Embedding
                .level(level)
                .expect("models/intrusion/intrusion.json loads");
            assert!(m.threshold(Sensitivity::High) < m.threshold(Sensitivity::Medium));
            assert!(m.threshold(Sensitivity::Medium) < m.threshold(Sensitivity::Low));
        }
    }

    #[test]
    fn features_and_logits_match_the_trainer() {
        let text = include_str!("../../models/intrusion/reference.json");
        let reference: Reference = serde_json::from_str(text).expect("reference parses");
        for case in &reference.cases {
            let got = features(&case.vectors);
            assert!(got[0].is_none() && got[got.len() - 1].is_none());
            let interior: Vec<Features> = got.iter().flatten().copied().collect();
            assert_eq!(interior.len(), case.features.len());
            for (f, want) in interior.iter().zip(&case.features) {
                for (x, y) in f.iter().zip(want) {
                    assert!((x - y).abs() < 1e-5, "feature {x} vs {y}");
                }
            }
            let logits: Vec<f64> = logits(&case.vectors, Level::Sentence)
                .expect("model")
                .into_iter()
                .flatten()
                .collect();
            assert_eq!(logits.len(), case.sentence_logits.len());
            for (z, want) in logits.iter().zip(&case.sentence_logits) {
                assert!((z - want).abs() < 1e-3, "logit {z} vs {want}");
            }
        }
    }

    #[test]
    fn an_off_topic_unit_scores_above_its_neighbours() {
        // Units drifting slowly along one direction, with one orthogonal unit in the middle, in
        // the encoder's 384 dimensions.
        let at = |entries: &[(usize, f32)]| {
            let mut v = vec![0.0f32; 384];
            for &(k, x) in entries {
                v[k] = x;
            }
            v
        };
        let mut vectors: Vec<Vec<f32>> = (0..9)
            .map(|k| at(&[(0, 1.0), (1, 0.1 * k as f32), (3, 0.05)]))
            .collect();
        vectors[4] = at(&[(2, 1.0)]);
        let s = scores(&vectors, Level::Sentence).expect("model");
        let intruder = s[4].expect("interior");
        for (k, v) in s.iter().enumerate() {
            if let (Some(v), true) = (v, k != 4) {
                assert!(intruder > *v, "unit {k}: {v} vs {intruder}");
            }
        }
    }

    #[test]
    fn vectors_of_another_encoder_get_no_score() {
        let vectors: Vec<Vec<f32>> = (0..5).map(|k| vec![1.0, k as f32, 0.5]).collect();
        assert!(features(&vectors)[2].is_some());
        assert_eq!(scores(&vectors, Level::Sentence), None);
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
