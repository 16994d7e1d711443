//! BBScore (seed 001; Sheng et al.): coherence as the likelihood of a document's latent trajectory
//! under a Brownian bridge, and BBScore+CLF, its supervised variant.
//!
//! **Latents.** Each unit's sentence embedding (all-MiniLM-L6-v2, [`crate::model::Encoder`]; a
//! paragraph's is the mean of its sentences' vectors, renormalised) goes through a small trained
//! head (`models/bbscore/head.onnx`, 384 → 256 → 32, trained with Time Control's Brownian-bridge
//! contrastive loss; see `models/bbscore/README.md`), run by ONNX Runtime on the device the
//! runtime chose for the encoder.
//!
//! **The bridge.** For units `z_0 … z_T` in a given order, interior unit `i` is modelled as
//! `N(μ_i, s_i² I)` with `μ_i = z_0 + (i/T)(z_T − z_0)` and `s_i² = i(T − i)/T · σ̂_m`, where σ̂_m is
//! the maximum-likelihood diffusion on the training documents (`models/bbscore/sigma.json`, one per
//! level). The document score is seed 001's
//! `B = |Σ_{0<i<T} ln L_i| / (T − 1)` (lower = more coherent; [`bbscore`]).
//!
//! **Fitting the [`Pairwise`] contract.** B is a whole-trajectory score, not a mean of adjacent
//! transitions, so the table offers it as [`BbTable::order_score`] (in [0, 1]: `1 / (1 + B/d)`
//! for `bbscore`, the classifier's probability for `bbscore-clf`), which `segue eval` uses once
//! `Pairwise` has the optional `order_score` hook (docs/bbscore.md). Its
//! [`transition`](Pairwise::transition) is the pairwise part of the same process: the likelihood
//! of the Brownian increment from one unit to the next, `exp(−|z_to − z_from|² / (2 d σ̂_m))`, which
//! depends on the two units only, never on their positions.
//!
//! **Local scores.** Every unit also gets the deviation of its latent from the bridge between its
//! neighbours two units away in document order ([`window_excess`]; 1 is typical), and
//! [`reason`](Pairwise::reason) tells the writer when a unit leaves the trajectory of the text
//! around it.
//!
//! A missing or corrupt model is a [`BbError`]; callers leave the scorer out with a warning. If
//! the encoder or the head fails while scoring, the scorer warns once and scores that document
//! with `lexical` instead.

use super::lexical::Lexical;
use super::{Level, Pairwise, Reason, Scorer, Unit};
use crate::model::files::locate_models_dir;
use crate::model::{Encoder, Graph, GraphInput, ModelError, ModelOptions, Provider, Runtime};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Folder of the BBScore files under the models folder.
pub const DIR: &str = "bbscore";
/// The latent head: input `embedding` [n, 384] → output `latent` [n, d].
pub const HEAD_FILE: &str = "head.onnx";
/// The classifier: input `features` (`[n, F]`) → output `logit` (`[n]`).
pub const CLF_FILE: &str = "clf.onnx";
/// σ̂_m per level and the head's metadata.
pub const META_FILE: &str = "sigma.json";

/// The classifier's features, in order (the same list as `models/train/bbscore/bb.py`).
pub const FEATURES: [&str; 14] = [
    "bb",
    "global_mean",
    "global_max",
    "path_bb",
    "local1_mean",
    "local1_max",
    "local2_mean",
    "local2_max",
    "step_mean",
    "step_max",
    "cos_mean",
    "cos_min",
    "log_units",
    "paragraph",
];

/// Window of the local score: the bridge from the unit `LOCAL_WINDOW` before to the one after.
pub const LOCAL_WINDOW: usize = 2;
/// Local deviation (in typical deviations) from which a unit is said to leave the trajectory.
pub const LEAVES_TRAJECTORY: f64 = 2.0;

const LN_2PI: f64 = 1.837_877_066_409_345_3;

/// What can go wrong loading or running the BBScore model. Every message names the fix.
#[derive(Debug, thiserror::Error)]
pub enum BbError {
    /// A file of the model is missing.
    #[error("the BBScore model is not installed ({path} is missing); restore models/bbscore/ from the repository (or re-run `models/install`), or set SEGUE_MODELS_DIR")]
    NotInstalled {
        /// The missing file.
        path: PathBuf,
    },
    /// `sigma.json` is unreadable or does not fit the head.
    #[error("the BBScore metadata {path} is invalid: {message}; restore models/bbscore/ from the repository")]
    Meta {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Loading ONNX Runtime or a session failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// Running the head or the classifier failed.
    #[error("the BBScore model failed to run: {0}")]
    Inference(String),
}

/// σ̂_m per level.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct Sigma {
    /// Sentence-level trajectories.
    pub sentence: f64,
    /// Paragraph-level trajectories.
    pub paragraph: f64,
}

impl Sigma {
    /// σ̂_m at `level`.
    pub fn at(&self, level: Level) -> f64 {
        match level {
            Level::Sentence => self.sentence,
            Level::Paragraph => self.paragraph,
        }
    }
}

/// The contents of `models/bbscore/sigma.json`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct BbMeta {
    /// The encoder whose vectors the head takes (`all-minilm-l6-v2`).
    pub encoder: String,
    /// Width of the head's input.
    pub input_dim: usize,
    /// Latent dimension `d`.
    pub dim: usize,
    /// σ̂_m by maximum likelihood on the training documents.
    pub sigma: Sigma,
    /// The classifier's features, in order; must equal [`FEATURES`].
    #[serde(default)]
    pub features: Vec<String>,
}

/// The loaded head (and classifier, when shipped) with its metadata.
#[derive(Debug)]
pub struct BbModel {
    head: Graph,
    clf: Option<Graph>,
    meta: BbMeta,
    provider: Provider,
    dir: PathBuf,
}

impl BbModel {
    /// Loads `bbscore/` from the models folder `options` point at, on the device they ask for.
    pub fn load(options: &ModelOptions) -> Result<BbModel, BbError> {
        let models_dir = locate_models_dir(options)?;
        BbModel::load_from(&models_dir.path.join(DIR), &models_dir.path, options)
    }

    /// Loads the head, `sigma.json` and (if present) the classifier from `dir`; `models_dir` is
    /// where ONNX Runtime is looked for.
    pub fn load_from(
        dir: &Path,
        models_dir: &Path,
        options: &ModelOptions,
    ) -> Result<BbModel, BbError> {
        let meta_path = dir.join(META_FILE);
        let head_path = dir.join(HEAD_FILE);
        for p in [&meta_path, &head_path] {
            if !p.is_file() {
                return Err(BbError::NotInstalled { path: p.clone() });
            }
        }
        let meta = read_meta(&meta_path)?;
        let runtime = Runtime::get(options, Some(models_dir))?;
        let head = Graph::load(&runtime, &head_path, options, models_dir)?;
        check_io(&head, "embedding", "latent").map_err(|message| BbError::Meta {
            path: head_path.clone(),
            message,
        })?;
        let clf_path = dir.join(CLF_FILE);
        let clf = if clf_path.is_file() {
            let c = Graph::load(&runtime, &clf_path, options, models_dir)?;
            check_io(&c, "features", "logit").map_err(|message| BbError::Meta {
                path: clf_path.clone(),
                message,
            })?;
            Some(c)
        } else {
            None
        };
        let model = BbModel {
            provider: head.provider(),
            head,
            clf,
            meta,
            dir: dir.to_path_buf(),
        };
        // One probe run, so a head of the wrong shape fails here rather than on every document.
        let probe = model.project(&[vec![0.0f32; model.meta.input_dim]])?;
        if probe.first().map(Vec::len) != Some(model.meta.dim) {
            return Err(BbError::Meta {
                path: head_path,
                message: format!("the head does not output {} dimensions", model.meta.dim),
            });
        }
        Ok(model)
    }

    /// The metadata.
    pub fn meta(&self) -> &BbMeta {
        &self.meta
    }

    /// Where the head runs.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// Whether the classifier (`bbscore-clf`) is available.
    pub fn has_classifier(&self) -> bool {
        self.clf.is_some()
    }

    /// One line for logs.
    pub fn summary(&self) -> String {
        format!(
            "BBScore head {}→{} on {} (σ̂_m sentence {:.4}, paragraph {:.4}){} from {}",
            self.meta.input_dim,
            self.meta.dim,
            self.provider,
            self.meta.sigma.sentence,
            self.meta.sigma.paragraph,
            if self.clf.is_some() {
                ", with classifier"
            } else {
                ""
            },
            self.dir.display()
        )
    }

    /// The latent of every encoder vector.
    pub fn project<V: AsRef<[f32]>>(&self, vectors: &[V]) -> Result<Vec<Vec<f64>>, BbError> {
        let n = vectors.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let width = self.meta.input_dim;
        let mut flat = Vec::with_capacity(n * width);
        for v in vectors {
            let v = v.as_ref();
            if v.len() != width {
                return Err(BbError::Inference(format!(
                    "an input vector has {} dimensions, not {width}",
                    v.len()
                )));
            }
            flat.extend_from_slice(v);
        }
        let rows = run(&self.head, "embedding", "latent", [n, width], flat)?;
        let d = self.meta.dim;
        if rows.len() != n * d {
            return Err(BbError::Inference(format!(
                "the head returned {} values for {n} rows of {d}",
                rows.len()
            )));
        }
        Ok(rows
            .chunks(d)
            .map(|r| r.iter().map(|&x| f64::from(x)).collect())
            .collect())
    }

    /// The classifier's logit for each feature row (`None` without a classifier).
    pub fn classify(&self, rows: &[[f64; FEATURES.len()]]) -> Result<Option<Vec<f64>>, BbError> {
        let Some(clf) = &self.clf else {
            return Ok(None);
        };
        if rows.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let flat: Vec<f32> = rows.iter().flatten().map(|&x| x as f32).collect();
        let out = run(clf, "features", "logit", [rows.len(), FEATURES.len()], flat)?;
        if out.len() != rows.len() {
            return Err(BbError::Inference(format!(
                "the classifier returned {} values for {} rows",
                out.len(),
                rows.len()
            )));
        }
        Ok(Some(out.into_iter().map(f64::from).collect()))
    }
}

fn read_meta(path: &Path) -> Result<BbMeta, BbError> {
    let err = |message: String| BbError::Meta {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let meta: BbMeta = serde_json::from_str(&text).map_err(|e| err(e.to_string()))?;
    let ok = |s: f64| s.is_finite() && s > 0.0;
    if !ok(meta.sigma.sentence) || !ok(meta.sigma.paragraph) {
        return Err(err("σ̂_m must be positive and finite".into()));
    }
    if meta.dim == 0 || meta.input_dim == 0 {
        return Err(err("dimensions must be positive".into()));
    }
    if !meta.features.is_empty() && meta.features.iter().map(String::as_str).ne(FEATURES) {
        return Err(err(format!(
            "the classifier's features {:?} are not the ones this build computes",
            meta.features
        )));
    }
    Ok(meta)
}

fn check_io(graph: &Graph, input: &str, output: &str) -> Result<(), String> {
    let (inputs, outputs) = (graph.inputs(), graph.outputs());
    if inputs == [input] && outputs.iter().any(|o| o == output) {
        Ok(())
    } else {
        Err(format!("not a BBScore graph (inputs {inputs:?}, outputs {outputs:?}; expected input {input} and output {output})"))
    }
}

fn run(
    graph: &Graph,
    input: &str,
    output: &str,
    shape: [usize; 2],
    data: Vec<f32>,
) -> Result<Vec<f32>, BbError> {
    let inputs = vec![GraphInput {
        name: input,
        shape: shape.to_vec(),
        data,
    }];
    let mut out = graph
        .run(inputs, &[(output, None)])
        .map_err(BbError::Inference)?;
    Ok(out.pop().unwrap_or_default())
}

// ---------------------------------------------------------------------------------------------
// The bridge. Trajectories are slices of latents in the order judged.

fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// For every interior unit of `z` (in order): the squared distance from the bridge mean and the
/// variance factor `i(T − i)/T`. Empty when there are fewer than three units.
pub fn bridge_terms(z: &[&[f64]]) -> Vec<(f64, f64)> {
    let n = z.len();
    if n < 3 {
        return Vec::new();
    }
    let t_end = (n - 1) as f64;
    let (first, last) = (z[0], z[n - 1]);
    (1..n - 1)
        .map(|i| {
            let t = i as f64;
            let a = t / t_end;
            let r2: f64 = z[i]
                .iter()
                .zip(first.iter().zip(last))
                .map(|(x, (f, l))| {
                    let mu = f * (1.0 - a) + l * a;
                    (x - mu) * (x - mu)
                })
                .sum();
            (r2, t * (t_end - t) / t_end)
        })
        .collect()
}

/// `ln L_i` of every interior unit of `z` under the bridge from its first to its last unit with
/// diffusion `sigma`.
pub fn log_likelihoods(z: &[&[f64]], sigma: f64) -> Vec<f64> {
    let d = z.first().map_or(0, |v| v.len()) as f64;
    bridge_terms(z)
        .into_iter()
        .map(|(r2, v)| {
            let s2 = v * sigma;
            -0.5 * d * (LN_2PI + s2.ln()) - r2 / (2.0 * s2)
        })
        .collect()
}

/// Seed 001's `B = |Σ ln L_i| / (number of interior units)` for the trajectory `z`; `None` with
/// fewer than three units. Lower is more coherent.
pub fn bbscore(z: &[&[f64]], sigma: f64) -> Option<f64> {
    let ll = log_likelihoods(z, sigma);
    if ll.is_empty() {
        return None;
    }
    Some(ll.iter().sum::<f64>().abs() / ll.len() as f64)
}

/// `ln p(z_i | z_{i−1}, z_T)` for every interior unit: the Markov factorisation of the bridge's
/// joint likelihood of the whole path given its end points (each unit judged from the one before
/// it, pulled towards the last unit; variance `(T − i)/(T − i + 1) · σ`).
pub fn path_log_likelihoods(z: &[&[f64]], sigma: f64) -> Vec<f64> {
    let n = z.len();
    if n < 3 {
        return Vec::new();
    }
    let d = z[0].len() as f64;
    let t_end = n - 1;
    let last = z[t_end];
    (1..t_end)
        .map(|i| {
            let rem = (t_end - i + 1) as f64;
            let a = 1.0 / rem;
            let r2: f64 = z[i]
                .iter()
                .zip(z[i - 1].iter().zip(last))
                .map(|(x, (p, l))| {
                    let mu = p * (1.0 - a) + l * a;
                    (x - mu) * (x - mu)
                })
                .sum();
            let s2 = (rem - 1.0) / rem * sigma;
            -0.5 * d * (LN_2PI + s2.ln()) - r2 / (2.0 * s2)
        })
        .collect()
}

/// B computed from [`path_log_likelihoods`] instead of the marginals; `None` with fewer than three
/// units.
pub fn path_bbscore(z: &[&[f64]], sigma: f64) -> Option<f64> {
    let ll = path_log_likelihoods(z, sigma);
    if ll.is_empty() {
        return None;
    }
    Some(ll.iter().sum::<f64>().abs() / ll.len() as f64)
}

/// The local score of every unit: `|z_i − μ|² / (d s²)` under the bridge from the unit `w` before
/// it to the unit `w` after it (clipped at the ends), so 1 is a typical deviation and larger values
/// mean the unit leaves the trajectory of its neighbours. `None` for the first and last unit.
pub fn window_excess(z: &[&[f64]], sigma: f64, w: usize) -> Vec<Option<f64>> {
    let n = z.len();
    let d = z.first().map_or(1, |v| v.len()).max(1) as f64;
    (0..n)
        .map(|i| {
            let (lo, hi) = (i.saturating_sub(w), (i + w).min(n.saturating_sub(1)));
            if lo == i || hi == i {
                return None;
            }
            let (t_end, t) = ((hi - lo) as f64, (i - lo) as f64);
            let a = t / t_end;
            let r2: f64 = z[i]
                .iter()
                .zip(z[lo].iter().zip(z[hi]))
                .map(|(x, (f, l))| {
                    let mu = f * (1.0 - a) + l * a;
                    (x - mu) * (x - mu)
                })
                .sum();
            Some(r2 / (d * t * (t_end - t) / t_end * sigma))
        })
        .collect()
}

/// `|z_{i+1} − z_i|² / (d σ)` for every adjacent pair: the Brownian increment's deviation (1 is
/// typical).
pub fn step_excess(z: &[&[f64]], sigma: f64) -> Vec<f64> {
    let d = z.first().map_or(1, |v| v.len()).max(1) as f64;
    z.windows(2)
        .map(|w| sq_dist(w[0], w[1]) / (d * sigma))
        .collect()
}

/// The transition score of a Brownian increment with deviation `excess`: `exp(−excess / 2)`.
pub fn step_score(excess: f64) -> f64 {
    if excess.is_nan() {
        0.0
    } else {
        (-excess / 2.0).exp().clamp(0.0, 1.0)
    }
}

/// Maps B to an order score in (0, 1]: `1 / (1 + B / d)`.
pub fn b_to_score(b: f64, dim: usize) -> f64 {
    1.0 / (1.0 + b.max(0.0) / dim.max(1) as f64)
}

fn mean_max_log1p(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut sum, mut max, mut n) = (0.0, f64::NEG_INFINITY, 0usize);
    for v in values.filter(|v| !v.is_nan()) {
        let l = v.ln_1p();
        sum += l;
        max = max.max(l);
        n += 1;
    }
    if n == 0 {
        (0.0, 0.0)
    } else {
        (sum / n as f64, max)
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let na: f64 = a
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    let nb: f64 = b
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    dot / (na * nb).max(1e-12)
}

/// The classifier's [`FEATURES`] for the trajectory `z` (latents in the order judged) with the
/// encoder vectors `e` in the same order.
pub fn clf_features(
    z: &[&[f64]],
    e: &[&[f32]],
    sigma: f64,
    paragraph: bool,
) -> [f64; FEATURES.len()] {
    let mut f = [0.0; FEATURES.len()];
    let n = z.len();
    let d = z.first().map_or(1, |v| v.len()).max(1) as f64;
    if let Some(b) = bbscore(z, sigma) {
        f[0] = b / d;
        let terms = bridge_terms(z);
        (f[1], f[2]) = mean_max_log1p(terms.iter().map(|(r2, v)| r2 / (d * v * sigma)));
        f[3] = path_bbscore(z, sigma).unwrap_or(0.0) / d;
    }
    (f[4], f[5]) = mean_max_log1p(window_excess(z, sigma, 1).into_iter().flatten());
    (f[6], f[7]) = mean_max_log1p(window_excess(z, sigma, 2).into_iter().flatten());
    if n >= 2 {
        (f[8], f[9]) = mean_max_log1p(step_excess(z, sigma).into_iter());
        let cos: Vec<f64> = e.windows(2).map(|w| cosine(w[0], w[1])).collect();
        f[10] = cos.iter().sum::<f64>() / cos.len() as f64;
        f[11] = cos.iter().copied().fold(f64::INFINITY, f64::min);
    }
    f[12] = (n.max(1) as f64).ln();
    f[13] = if paragraph { 1.0 } else { 0.0 };
    f
}

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

// ---------------------------------------------------------------------------------------------
// The scorers.

/// Which score an order gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Seed 001's unsupervised B (`bbscore`).
    Unsupervised,
    /// The classifier over B's features (`bbscore-clf`).
    Classifier,
}

/// The `bbscore` and `bbscore-clf` scorers.
#[derive(Debug)]
pub struct BbScore {
    encoder: Arc<Encoder>,
    model: Arc<BbModel>,
    variant: Variant,
    fallback: Lexical,
    warned: AtomicBool,
}

impl BbScore {
    /// The unsupervised scorer (`bbscore`).
    pub fn new(encoder: Arc<Encoder>, model: Arc<BbModel>) -> Self {
        BbScore {
            encoder,
            model,
            variant: Variant::Unsupervised,
            fallback: Lexical::plain(),
            warned: AtomicBool::new(false),
        }
    }

    /// The supervised scorer (`bbscore-clf`), when the model ships a classifier.
    pub fn classifier(encoder: Arc<Encoder>, model: Arc<BbModel>) -> Option<Self> {
        model.has_classifier().then(|| BbScore {
            variant: Variant::Classifier,
            ..BbScore::new(encoder, model)
        })
    }

    /// Which variant this is.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The model.
    pub fn model(&self) -> &Arc<BbModel> {
        &self.model
    }

    /// The prepared table of `units` at `level`, or why it could not be made.
    pub fn table(&self, units: &[Unit<'_>], level: Level) -> Result<BbTable<'_>, BbError> {
        let flat: Vec<&str> = units.iter().flat_map(|u| u.iter().copied()).collect();
        let embedded = self.encoder.embed(&flat)?;
        let width = self.model.meta.input_dim;
        let mut next = embedded.iter();
        let vectors: Vec<Vec<f32>> = units
            .iter()
            .map(|u| {
                let mut mean = vec![0f32; width];
                for v in next.by_ref().take(u.len()) {
                    for (m, x) in mean.iter_mut().zip(v.iter()) {
                        *m += x;
                    }
                }
                let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt();
                if norm > 0.0 {
                    mean.iter_mut().for_each(|x| *x /= norm);
                }
                mean
            })
            .collect();
        let latents = self.model.project(&vectors)?;
        Ok(BbTable::new(
            self,
            vectors,
            latents,
            level,
            self.fallback.prepare(units, level),
        ))
    }
}

impl Scorer for BbScore {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::Unsupervised => "bbscore",
            Variant::Classifier => "bbscore-clf",
        }
    }

    fn description(&self) -> &'static str {
        match self.variant {
            Variant::Unsupervised => "Brownian-bridge likelihood of the latent trajectory (BBScore, seed 001); transitions by Brownian step",
            Variant::Classifier => "BBScore+CLF: a small classifier over Brownian-bridge features, trained on original vs shuffled orders",
        }
    }

    fn tier(&self) -> u8 {
        1
    }

    fn scores_documents(&self) -> bool {
        true
    }

    fn runs_on(&self) -> Option<String> {
        let info = self.encoder.info();
        Some(format!(
            "{} and the BBScore head on {} ({})",
            info.spec.name,
            info.provider,
            info.provider.ort_name()
        ))
    }

    fn prepare<'a>(&'a self, units: &[Unit<'_>], level: Level) -> Box<dyn Pairwise + 'a> {
        match self.table(units, level) {
            Ok(table) => Box::new(table),
            Err(e) => {
                if !crate::model::cancel::stopped() && !self.warned.swap(true, Ordering::Relaxed) {
                    eprintln!("segue: warning: the {} scorer failed ({e}); scoring with `lexical` instead", self.name());
                }
                self.fallback.prepare(units, level)
            }
        }
    }
}

/// BBScore's table for one document at one level: latents, local scores and whole-order scores.
pub struct BbTable<'a> {
    scorer: &'a BbScore,
    vectors: Vec<Vec<f32>>,
    latents: Vec<Vec<f64>>,
    level: Level,
    sigma: f64,
    local: Vec<Option<f64>>,
    lexical: Box<dyn Pairwise + 'a>,
}

impl<'a> BbTable<'a> {
    fn new(
        scorer: &'a BbScore,
        vectors: Vec<Vec<f32>>,
        latents: Vec<Vec<f64>>,
        level: Level,
        lexical: Box<dyn Pairwise + 'a>,
    ) -> Self {
        let sigma = scorer.model.meta.sigma.at(level);
        let refs: Vec<&[f64]> = latents.iter().map(Vec::as_slice).collect();
        let local = window_excess(&refs, sigma, LOCAL_WINDOW);
        BbTable {
            scorer,
            vectors,
            latents,
            level,
            sigma,
            local,
            lexical,
        }
    }

    fn trajectory(&self, order: &[usize]) -> Option<Vec<&[f64]>> {
        order
            .iter()
            .map(|&i| self.latents.get(i).map(Vec::as_slice))
            .collect()
    }

    /// The latent of every unit, in the prepared order.
    pub fn latents(&self) -> &[Vec<f64>] {
        &self.latents
    }

    /// Seed 001's B for the units in `order` (`None` with fewer than three units or a bad index).
    pub fn bbscore(&self, order: &[usize]) -> Option<f64> {
        bbscore(&self.trajectory(order)?, self.sigma)
    }

    /// B for the units in their prepared (document) order.
    pub fn document_bbscore(&self) -> Option<f64> {
        self.bbscore(&(0..self.latents.len()).collect::<Vec<_>>())
    }

    /// [`path_bbscore`] for the units in `order`.
    pub fn path_bbscore(&self, order: &[usize]) -> Option<f64> {
        path_bbscore(&self.trajectory(order)?, self.sigma)
    }

    /// Document-level figures for the units in their prepared (document) order, for reports:
    /// `B` (seed 001), `B-path` (the path likelihood form) and, for `bbscore-clf`, `P-clf` (the
    /// classifier's probability that this is an original order). Empty with fewer than three
    /// units.
    pub fn figures(&self) -> Vec<(&'static str, f64)> {
        let identity: Vec<usize> = (0..self.latents.len()).collect();
        let mut out = Vec::new();
        if let Some(b) = self.bbscore(&identity) {
            out.push(("B", b));
        }
        if let Some(b) = self.path_bbscore(&identity) {
            out.push(("B-path", b));
        }
        if self.scorer.variant == Variant::Classifier {
            if let Some(p) = self.order_score(&identity) {
                out.push(("P-clf", p));
            }
        }
        out
    }

    /// `−ln L` of every unit under the bridge of its neighbours [`LOCAL_WINDOW`] units away in the
    /// prepared order (`None` for the first and last unit).
    pub fn local_nll(&self) -> Vec<Option<f64>> {
        let d = self.scorer.model.meta.dim as f64;
        let refs: Vec<&[f64]> = self.latents.iter().map(Vec::as_slice).collect();
        let n = refs.len();
        (0..n)
            .map(|i| {
                let q = self.local.get(i).copied().flatten()?;
                let (lo, hi) = (
                    i.saturating_sub(LOCAL_WINDOW),
                    (i + LOCAL_WINDOW).min(n - 1),
                );
                let (t_end, t) = ((hi - lo) as f64, (i - lo) as f64);
                let s2 = t * (t_end - t) / t_end * self.sigma;
                Some(0.5 * d * (LN_2PI + s2.ln()) + 0.5 * d * q)
            })
            .collect()
    }

    /// The local deviation of every unit ([`window_excess`] with [`LOCAL_WINDOW`]; 1 is typical).
    pub fn local_excess(&self) -> &[Option<f64>] {
        &self.local
    }

    /// The classifier's features for `order`.
    pub fn features(&self, order: &[usize]) -> Option<[f64; FEATURES.len()]> {
        let z = self.trajectory(order)?;
        let e: Option<Vec<&[f32]>> = order
            .iter()
            .map(|&i| self.vectors.get(i).map(Vec::as_slice))
            .collect();
        Some(clf_features(
            &z,
            &e?,
            self.sigma,
            self.level == Level::Paragraph,
        ))
    }

    /// The score of the whole `order` in [0, 1], higher = more coherent: `1 / (1 + B/d)` for
    /// `bbscore`, the classifier's probability for `bbscore-clf`. `None` when the order has fewer
    /// than three units (no interior point: the mean of adjacent transitions is all there is) or
    /// the classifier fails.
    pub fn order_score(&self, order: &[usize]) -> Option<f64> {
        if order.len() < 3 {
            return None;
        }
        match self.scorer.variant {
            Variant::Unsupervised => {
                Some(b_to_score(self.bbscore(order)?, self.scorer.model.meta.dim))
            }
            Variant::Classifier => {
                let f = self.features(order)?;
                match self.scorer.model.classify(&[f]) {
                    Ok(Some(l)) => l.first().map(|&x| sigmoid(x)),
                    Ok(None) => None,
                    Err(e) => {
                        if !self.scorer.warned.swap(true, Ordering::Relaxed) {
                            eprintln!("segue: warning: the bbscore-clf classifier failed ({e}); using adjacent transitions");
                        }
                        None
                    }
                }
            }
        }
    }

    fn step(&self, from: usize, to: usize) -> Option<f64> {
        let (a, b) = (self.latents.get(from)?, self.latents.get(to)?);
        Some(sq_dist(a, b) / (a.len().max(1) as f64 * self.sigma))
    }
}

impl Pairwise for BbTable<'_> {
    fn len(&self) -> usize {
        self.latents.len()
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        self.step(from, to).map_or(0.0, step_score)
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        let Some(step) = self.step(from, to) else {
            return Reason::default();
        };
        let unit = self.level.name();
        let local = (to == from + 1)
            .then(|| self.local.get(to).copied().flatten())
            .flatten();
        let note = match local {
            Some(q) if q >= LEAVES_TRAJECTORY => format!(
                "it leaves the trajectory of the text around it: the {unit} is {q:.1}× as far from the path between its neighbours as is usual (BBScore)"
            ),
            _ if step >= LEAVES_TRAJECTORY => {
                format!("its meaning jumps from it: the step is {step:.1}× the usual one (BBScore)")
            }
            Some(q) => format!("it stays on the trajectory of the text around it (deviation {q:.1}×, step {step:.1}×; BBScore)"),
            None => format!("step {step:.1}× the usual one (BBScore)"),
        };
        Reason {
            shared: self.lexical.reason(from, to).shared,
            note: Some(note),
        }
    }

    fn order_score(&self, order: &[usize]) -> Option<f64> {
        BbTable::order_score(self, order)
    }

    fn figures(&self) -> Vec<(&'static str, f64)> {
        BbTable::figures(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traj(points: &[Vec<f64>]) -> Vec<&[f64]> {
        points.iter().map(Vec::as_slice).collect()
    }

    #[test]
    fn a_straight_even_path_is_most_likely() {
        let line: Vec<Vec<f64>> = (0..6).map(|i| vec![i as f64, 0.0]).collect();
        let mut bent = line.clone();
        bent[2] = vec![2.0, 3.0];
        let (a, b) = (
            bbscore(&traj(&line), 1.0).unwrap(),
            bbscore(&traj(&bent), 1.0).unwrap(),
        );
        assert!(a < b, "{a} vs {b}");
        // On the line every residual is 0: B is the normaliser alone.
        let expected: f64 = (1..5)
            .map(|i| {
                let v = (i * (5 - i)) as f64 / 5.0;
                LN_2PI + v.ln()
            })
            .sum::<f64>()
            / 4.0;
        assert!((a - expected).abs() < 1e-12);
        assert_eq!(bbscore(&traj(&line[..2]), 1.0), None);
    }

    #[test]
    fn local_scores_find_the_unit_that_leaves() {
        let mut pts: Vec<Vec<f64>> = (0..7).map(|i| vec![i as f64 * 0.1, 0.0]).collect();
        pts[3] = vec![0.3, 2.0];
        let q = window_excess(&traj(&pts), 0.01, 2);
        assert_eq!(q[0], None);
        assert_eq!(q[6], None);
        let worst = (0..7).max_by(|&a, &b| q[a].unwrap_or(0.0).total_cmp(&q[b].unwrap_or(0.0)));
        assert_eq!(worst, Some(3));
        let steps = step_excess(&traj(&pts), 0.01);
        assert_eq!(steps.len(), 6);
        assert!(step_score(steps[0]) > step_score(steps[2]));
        assert_eq!(step_score(f64::NAN), 0.0);
    }

    #[test]
    fn scores_map_into_the_unit_interval() {
        assert_eq!(b_to_score(0.0, 32), 1.0);
        assert!(b_to_score(10.0, 32) > b_to_score(20.0, 32));
        assert!((sigmoid(0.0) - 0.5).abs() < 1e-12);
        let pts: Vec<Vec<f64>> = (0..5).map(|i| vec![i as f64, 1.0]).collect();
        let e: Vec<Vec<f32>> = (0..5).map(|i| vec![1.0, i as f32]).collect();
        let er: Vec<&[f32]> = e.iter().map(Vec::as_slice).collect();
        let f = clf_features(&traj(&pts), &er, 1.0, true);
        assert_eq!(f[13], 1.0);
        assert!((f[12] - 5f64.ln()).abs() < 1e-12);
        assert!(f.iter().all(|x| x.is_finite()));
    }

    #[test]
    fn bad_metadata_is_an_error_naming_the_fix() {
        let dir = std::env::temp_dir().join(format!("segue-bb-meta-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(META_FILE);
        std::fs::write(
            &path,
            r#"{"encoder":"x","input_dim":384,"dim":32,"sigma":{"sentence":-1,"paragraph":1}}"#,
        )
        .unwrap();
        let err = read_meta(&path).unwrap_err().to_string();
        assert!(err.contains("restore models/bbscore"), "{err}");
        std::fs::write(&path, "not json").unwrap();
        assert!(read_meta(&path).is_err());
        let missing =
            BbModel::load_from(&dir.join("nowhere"), &dir, &ModelOptions::default()).unwrap_err();
        assert!(matches!(missing, BbError::NotInstalled { .. }), "{missing}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
