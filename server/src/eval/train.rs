//! Training the entity-grid and combined tier-0 models (`segue train tier0`).
//!
//! Samples are transitions inside the training documents, at both levels: a *positive* is a unit
//! and the unit that follows it in the original (`i → i+1`); for each positive, two *negatives*
//! from the same document keep one end and swap the other (`i → j` and `k → i+1`, with `j`, `k`
//! drawn uniformly from the rest of the document by a ChaCha RNG seeded from `seed` and the
//! document's index). Sentence units span the whole document, across paragraphs (as the analysis
//! and the discrimination test prepare them), cut into windows of at most
//! [`TrainOptions::sentence_window`] sentences; paragraph units are the paragraphs. At most
//! [`TrainOptions::sentence_positives_per_doc`] / [`TrainOptions::paragraph_positives_per_doc`]
//! positives are drawn per window / document.
//!
//! Each model is fitted as a *ranking*: a logistic regression on the feature differences between a
//! positive and each of its negatives (both signs), which is what the order score needs — the true
//! successor should outscore the alternatives in the same document. A one-feature logistic fit then
//! calibrates the ranking score into P(`to` directly follows `from`) on the samples themselves,
//! and the two are folded into one [`Logistic`]. The entity-grid model is fitted first; its
//! log-odds then feed the combined model, fitted on the same samples. Each level has its own
//! weights. Training is deterministic for a seed and runs on all cores.

use super::data::CorpusDoc;
use crate::score::entity_grid::{self, EntityGridWeights, Grid};
use crate::score::logistic::Logistic;
use crate::score::tier0::{self, Tier0, Tier0Weights};
use crate::score::{Level, Unit};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The seed the shipped weights in `models/tier0/` were trained with.
pub const DEFAULT_SEED: u64 = 2024;

/// How many samples to draw and how hard to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOptions {
    /// Most positive sentence transitions drawn per document (each brings two negatives).
    pub sentence_positives_per_doc: usize,
    /// Most positive paragraph transitions drawn per document (each brings two negatives).
    pub paragraph_positives_per_doc: usize,
    /// Sentence-level documents longer than this many sentences are cut into consecutive windows.
    pub sentence_window: usize,
    /// Full-batch optimisation steps of each logistic fit.
    pub epochs: usize,
    /// L2 penalty of each logistic fit.
    pub l2: f64,
    /// Fit on differences between a positive and its negatives (a ranking objective), then
    /// calibrate; otherwise fit each sample on its own.
    pub ranking: bool,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            sentence_positives_per_doc: 20,
            paragraph_positives_per_doc: 10,
            sentence_window: 60,
            epochs: 200,
            l2: 1e-4,
            ranking: true,
        }
    }
}

/// Sample counts of one level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LevelCounts {
    /// Documents (or windows) that gave samples.
    pub documents: usize,
    /// Positive samples (true successors).
    pub positives: usize,
    /// Negative samples (other units of the same document).
    pub negatives: usize,
}

/// What a training run did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TrainSummary {
    /// Training documents read.
    pub documents: usize,
    /// Seed of the sampling.
    pub seed: u64,
    /// Sentence-level samples.
    pub sentence: LevelCounts,
    /// Paragraph-level samples.
    pub paragraph: LevelCounts,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Files written, if any.
    pub files: Vec<PathBuf>,
}

/// The trained weights of both tier-0 models.
#[derive(Debug, Clone, PartialEq)]
pub struct Tier0Model {
    /// Entity-grid weights (`entity_grid.json`).
    pub entity_grid: EntityGridWeights,
    /// Combined weights (`tier0.json`).
    pub tier0: Tier0Weights,
    /// What the run did.
    pub summary: TrainSummary,
}

impl Tier0Model {
    /// The combined scorer with these weights.
    pub fn scorer(&self) -> Tier0 {
        Tier0::from_weights(self.entity_grid.clone(), self.tier0.clone())
    }
}

/// One sampled transition: document (or window) index, from, to, label.
#[derive(Debug, Clone, Copy)]
struct Sample {
    doc: usize,
    from: usize,
    to: usize,
    label: f64,
}

/// The units of one training document at one level (sentence units are cut into windows).
fn level_units(doc: &CorpusDoc, level: Level, window: usize) -> Vec<Vec<Unit<'_>>> {
    match level {
        Level::Sentence => {
            let all: Vec<Unit<'_>> = doc.sentences().into_iter().map(|s| vec![s]).collect();
            all.chunks(window.max(2))
                .map(<[Unit<'_>]>::to_vec)
                .collect()
        }
        Level::Paragraph => vec![doc
            .paragraphs
            .iter()
            .map(|p| p.iter().map(String::as_str).collect())
            .collect()],
    }
}

fn rng_for(seed: u64, doc: usize, level: Level) -> ChaCha8Rng {
    let mix = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((doc as u64) << 8)
        .wrapping_add(level as u64 + 1);
    ChaCha8Rng::seed_from_u64(mix)
}

/// Draws the samples of a document of `n` units.
fn draw(n: usize, cap: usize, doc: usize, rng: &mut ChaCha8Rng) -> Vec<Sample> {
    if n < 3 {
        return Vec::new();
    }
    let mut starts: Vec<usize> = (0..n - 1).collect();
    starts.shuffle(rng);
    starts.truncate(cap);
    starts.sort_unstable();
    let mut out = Vec::with_capacity(starts.len() * 3);
    // A uniform draw from 0..n without two excluded values.
    let other = |rng: &mut ChaCha8Rng, a: usize, b: usize| {
        let (lo, hi) = (a.min(b), a.max(b));
        let mut x = rng.gen_range(0..n - 2);
        if x >= lo {
            x += 1;
        }
        if x >= hi {
            x += 1;
        }
        x
    };
    for i in starts {
        out.push(Sample {
            doc,
            from: i,
            to: i + 1,
            label: 1.0,
        });
        let j = other(rng, i, i + 1);
        out.push(Sample {
            doc,
            from: i,
            to: j,
            label: 0.0,
        });
        let k = other(rng, i, i + 1);
        out.push(Sample {
            doc,
            from: k,
            to: i + 1,
            label: 0.0,
        });
    }
    out
}

/// Runs `f` over `items` on all cores, keeping the input order of the results.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 16);
    let chunk = items.len().div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                s.spawn(move || {
                    part.iter()
                        .enumerate()
                        .map(|(i, t)| f(c * chunk + i, t))
                        .collect::<Vec<R>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The samples and their entity-grid features for one level.
struct LevelData<'d> {
    /// Units of every sampled document (or window).
    docs: Vec<Vec<Unit<'d>>>,
    samples: Vec<Sample>,
    grid_x: Vec<Vec<f64>>,
    counts: LevelCounts,
}

impl LevelData<'_> {
    fn labels(&self) -> Vec<f64> {
        self.samples.iter().map(|s| s.label).collect()
    }
}

fn sample_level<'d>(
    train: &'d [CorpusDoc],
    level: Level,
    seed: u64,
    opts: &TrainOptions,
) -> LevelData<'d> {
    let cap = match level {
        Level::Sentence => opts.sentence_positives_per_doc,
        Level::Paragraph => opts.paragraph_positives_per_doc,
    };
    let docs: Vec<Vec<Unit<'d>>> = train
        .iter()
        .flat_map(|d| level_units(d, level, opts.sentence_window))
        .filter(|u| u.len() >= 3)
        .collect();
    let per_doc: Vec<(Vec<Sample>, Vec<Vec<f64>>)> = par_map(&docs, |di, units| {
        let mut rng = rng_for(seed, di, level);
        let samples = draw(units.len(), cap, di, &mut rng);
        let grid = Grid::build(units);
        let x = samples
            .iter()
            .map(|s| grid.features(s.from, s.to).to_vec())
            .collect();
        (samples, x)
    });
    let mut data = LevelData {
        docs,
        samples: Vec::new(),
        grid_x: Vec::new(),
        counts: LevelCounts::default(),
    };
    for (samples, x) in per_doc {
        if !samples.is_empty() {
            data.counts.documents += 1;
        }
        data.samples.extend(samples);
        data.grid_x.extend(x);
    }
    data.counts.positives = data.samples.iter().filter(|s| s.label > 0.5).count();
    data.counts.negatives = data.samples.len() - data.counts.positives;
    data
}

/// The combined model's features for the samples of one level, given trained grid weights.
fn tier0_features(data: &LevelData<'_>, level: Level, grid: &EntityGridWeights) -> Vec<Vec<f64>> {
    let scorer = Tier0::from_weights(grid.clone(), Tier0Weights::neutral());
    // Group the samples by document, in order (they were drawn document by document).
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for i in 1..=data.samples.len() {
        if i == data.samples.len() || data.samples[i].doc != data.samples[start].doc {
            ranges.push((start, i));
            start = i;
        }
    }
    let per_doc: Vec<Vec<Vec<f64>>> = par_map(&ranges, |_, &(a, b)| {
        let Some(first) = data.samples.get(a) else {
            return Vec::new();
        };
        let Some(units) = data.docs.get(first.doc) else {
            return Vec::new();
        };
        let table = scorer.table(units, level);
        data.samples[a..b]
            .iter()
            .map(|s| table.features(s.from, s.to).to_vec())
            .collect()
    });
    per_doc.into_iter().flatten().collect()
}

/// Fits a logistic model whose log-odds rank each positive above the negatives drawn with it
/// (samples come in triples: positive, negative, negative), then calibrates the log-odds to
/// probabilities with a one-feature logistic fit on the samples themselves.
fn fit_ranking(names: Vec<String>, x: &[Vec<f64>], ys: &[f64], opts: &TrainOptions) -> Logistic {
    let d = names.len();
    let mut dx = Vec::with_capacity(x.len() / 3 * 4);
    let mut dy = Vec::with_capacity(x.len() / 3 * 4);
    for t in x.chunks(3).zip(ys.chunks(3)) {
        let (xs, labels) = t;
        let Some(pos) = xs
            .iter()
            .zip(labels)
            .find(|(_, y)| **y > 0.5)
            .map(|(v, _)| v)
        else {
            continue;
        };
        for (neg, _) in xs.iter().zip(labels).filter(|(_, y)| **y < 0.5) {
            let diff: Vec<f64> = pos.iter().zip(neg).map(|(a, b)| a - b).collect();
            dx.push(diff.iter().map(|v| -v).collect());
            dy.push(0.0);
            dx.push(diff);
            dy.push(1.0);
        }
    }
    let rank = Logistic::fit(names.clone(), &dx, &dy, opts.l2, opts.epochs);
    // The ranking score of a sample: Σ w_j x_j / s_j (the bias is zero by symmetry).
    let coef: Vec<f64> = (0..d).map(|j| rank.weights[j] / rank.scale[j]).collect();
    let score = |v: &[f64]| v.iter().zip(&coef).map(|(a, c)| a * c).sum::<f64>();
    let z: Vec<Vec<f64>> = x.iter().map(|v| vec![score(v)]).collect();
    let cal = Logistic::fit(vec!["score".into()], &z, ys, 0.0, opts.epochs);
    // cal(z) = bias + w (z - m) / s = a z + c.
    let a = cal.weights[0] / cal.scale[0];
    let c = cal.bias - a * cal.mean[0];
    // Express a·score(x) + c over standardised raw features.
    let n = x.len().max(1) as f64;
    let mut mean = vec![0.0; d];
    for v in x {
        for j in 0..d {
            mean[j] += v[j] / n;
        }
    }
    let mut scale = vec![0.0; d];
    for v in x {
        for j in 0..d {
            scale[j] += (v[j] - mean[j]).powi(2) / n;
        }
    }
    let scale: Vec<f64> = scale.into_iter().map(|s| s.sqrt().max(1e-9)).collect();
    let weights: Vec<f64> = (0..d).map(|j| a * coef[j] * scale[j]).collect();
    let bias = c + a * score(&mean);
    Logistic {
        features: names,
        mean,
        scale,
        weights,
        bias,
    }
}

/// Trains both tier-0 models on `train` with the default options.
pub fn train_tier0(train: &[CorpusDoc], seed: u64) -> Tier0Model {
    train_tier0_with(train, seed, &TrainOptions::default())
}

/// Trains both tier-0 models on `train`.
pub fn train_tier0_with(train: &[CorpusDoc], seed: u64, opts: &TrainOptions) -> Tier0Model {
    let started = Instant::now();
    let mut summary = TrainSummary {
        documents: train.len(),
        seed,
        ..TrainSummary::default()
    };
    let fit = |x: &[Vec<f64>], ys: &[f64], names: Vec<String>| {
        if opts.ranking {
            fit_ranking(names, x, ys, opts)
        } else {
            Logistic::fit(names, x, ys, opts.l2, opts.epochs)
        }
    };
    let sentences = sample_level(train, Level::Sentence, seed, opts);
    let paragraphs = sample_level(train, Level::Paragraph, seed, opts);
    summary.sentence = sentences.counts;
    summary.paragraph = paragraphs.counts;
    let describe = |what: &str| {
        format!(
            "{what}; trained by `segue train tier0` on the train split ({} documents), seed {}, \
             {} sentence and {} paragraph samples",
            summary.documents,
            summary.seed,
            summary.sentence.positives + summary.sentence.negatives,
            summary.paragraph.positives + summary.paragraph.negatives
        )
    };
    let entity_grid = EntityGridWeights {
        source: describe("entity-grid logistic model"),
        sentence: fit(
            &sentences.grid_x,
            &sentences.labels(),
            entity_grid::feature_names(),
        ),
        paragraph: fit(
            &paragraphs.grid_x,
            &paragraphs.labels(),
            entity_grid::feature_names(),
        ),
    };
    let tier0 = Tier0Weights {
        source: describe("combined tier-0 logistic model"),
        sentence: fit(
            &tier0_features(&sentences, Level::Sentence, &entity_grid),
            &sentences.labels(),
            tier0::feature_names(),
        ),
        paragraph: fit(
            &tier0_features(&paragraphs, Level::Paragraph, &entity_grid),
            &paragraphs.labels(),
            tier0::feature_names(),
        ),
    };
    summary.seconds = started.elapsed().as_secs_f64();
    Tier0Model {
        entity_grid,
        tier0,
        summary,
    }
}

/// Writes `entity_grid.json` and `tier0.json` into `dir` (created if needed) and returns the
/// summary with the files written.
pub fn write_weights(model: &Tier0Model, dir: &Path) -> std::io::Result<TrainSummary> {
    std::fs::create_dir_all(dir)?;
    let mut summary = model.summary.clone();
    let grid = serde_json::to_string_pretty(&model.entity_grid).map_err(std::io::Error::other)?;
    let combined = serde_json::to_string_pretty(&model.tier0).map_err(std::io::Error::other)?;
    for (name, text) in [("entity_grid.json", grid), ("tier0.json", combined)] {
        let path = dir.join(name);
        std::fs::write(&path, text + "\n")?;
        summary.files.push(path);
    }
    Ok(summary)
}

/// Trains on `train` with `seed` and writes the weights into `dir`: what `segue train tier0` runs
/// (with [`DEFAULT_SEED`] it reproduces the shipped weights).
pub fn train_and_write(
    train: &[CorpusDoc],
    dir: &Path,
    seed: u64,
) -> std::io::Result<TrainSummary> {
    write_weights(&train_tier0(train, seed), dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy_corpus() -> Vec<CorpusDoc> {
        let words = [
            "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
        ];
        (0..6)
            .map(|d| CorpusDoc {
                id: format!("doc{d}"),
                paragraphs: words
                    .windows(2)
                    .map(|w| {
                        vec![
                            format!("The {} meets the {}.", w[0], w[1]),
                            format!("However, the {} stays with a {}.", w[1], words[(d + 3) % 8]),
                        ]
                    })
                    .collect(),
            })
            .collect()
    }

    #[test]
    fn draws_valid_balanced_samples() {
        let mut rng = rng_for(7, 0, Level::Sentence);
        let s = draw(10, 4, 0, &mut rng);
        assert_eq!(s.len(), 12);
        for x in &s {
            assert!(x.from < 10 && x.to < 10 && x.from != x.to);
            assert_eq!(x.label > 0.5, x.to == x.from + 1);
        }
        assert!(draw(2, 4, 0, &mut rng).is_empty());
    }

    #[test]
    fn training_is_deterministic_and_writes_loadable_weights() {
        let corpus = toy_corpus();
        let opts = TrainOptions {
            epochs: 30,
            ..TrainOptions::default()
        };
        let a = train_tier0_with(&corpus, 3, &opts);
        let b = train_tier0_with(&corpus, 3, &opts);
        assert_eq!(a.entity_grid, b.entity_grid);
        assert_eq!(a.tier0, b.tier0);
        assert_eq!(
            a.summary.sentence.positives * 2,
            a.summary.sentence.negatives
        );
        assert!(a.summary.paragraph.positives > 0);
        let dir = tempfile::tempdir().expect("temp dir");
        let summary = write_weights(&a, dir.path()).expect("write");
        assert_eq!(summary.files.len(), 2);
        let grid = std::fs::read_to_string(dir.path().join("entity_grid.json")).expect("read");
        let grid = EntityGridWeights::from_json(&grid).expect("parse");
        assert_close(&grid.sentence, &a.entity_grid.sentence);
        assert_close(&grid.paragraph, &a.entity_grid.paragraph);
        let combined = std::fs::read_to_string(dir.path().join("tier0.json")).expect("read");
        let combined = Tier0Weights::from_json(&combined).expect("parse");
        assert_close(&combined.sentence, &a.tier0.sentence);
        assert_close(&combined.paragraph, &a.tier0.paragraph);
    }

    /// JSON keeps every parameter to within the last bit or so.
    fn assert_close(a: &Logistic, b: &Logistic) {
        assert_eq!(a.features, b.features);
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * (1.0 + x.abs().max(y.abs()));
        for (u, v) in [
            (&a.mean, &b.mean),
            (&a.scale, &b.scale),
            (&a.weights, &b.weights),
        ] {
            assert_eq!(u.len(), v.len());
            assert!(
                u.iter().zip(v).all(|(x, y)| close(*x, *y)),
                "{u:?} vs {v:?}"
            );
        }
        assert!(close(a.bias, b.bias));
    }
}
