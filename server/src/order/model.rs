//! The trained ordering model: small ONNX heads over sentence embeddings and cheap discourse cues
//! that say which unit comes first, which follows which, and which opens or closes a set of units.
//!
//! **Files.** `models/ordering/` holds one head per level (`sentence.onnx`, `paragraph.onnx`) and
//! `ordering.json`: the cue feature spec, each head's sha256 and the weights of the order objective
//! (see `models/ordering/README.md`; trained by `models/train/ordering/train.py`).
//!
//! **Inputs.** For a set of `n` units, `units` `[n, dim + cues]` holds each unit's unit-length
//! embedding (a paragraph's is the mean of its sentences' vectors, renormalised) followed by its cue
//! features ([`unit_cues`]), and `pairs` `[n, n, k]` the directed pair cues ([`pair_cues`]). The
//! features are defined by the JSON spec, which the Python trainer evaluates the same way, so the
//! two cannot drift apart (`server/tests/ordering.rs` checks a fixture written by the trainer).
//!
//! **Outputs** (logits): `precedence` `[n, n]` (P(i before j) = σ(·), antisymmetric), `successor`
//! `[n, n]` (j directly follows i, softmax over j ≠ i), `opening` / `closing` `[n]` (softmax over
//! the set). [`OrderScores`] turns them into log-probabilities.
//!
//! **Objective.** With weights `w` from the metadata (set on dev data) and `P`, `S`, `O`, `C` the
//! log-probabilities above, `cos` the clamped embedding cosine and `borda(i) = Σ_j P[i][j] − P[j][i]`:
//!
//! ```text
//! adj(i, j) = w.successor·S[i][j] + w.coherence·cos(i, j) + w.precedence·P[i][j]
//!             + w.reader_precedence·X[i][j] + w.reader_next·Y[i][j]
//! φ(i)      = w.opening·O[i] − w.closing·C[i] + w.borda·borda(i) + w.reader_borda·xborda(i)
//! score(o)  = Σ_k adj(o_k, o_k+1) + φ(o_first) − φ(o_last)
//! ```
//!
//! **Paragraph reader.** `X[i][j] = log σ((x[i][j] − x[j][i]) / 2)` with `x` the precedence
//! logits of the paragraph reader ([`crate::model::reader`]), which reads all the units of a set
//! at once, and `xborda` its Borda count; `Y[i][j]` its successor, the log-softmax over `j ≠ i` of
//! the logit that `j` directly follows `i`. It is used at the levels and up to the set size the
//! metadata's reader section names (`cross` in `ordering.json`: both levels, 16 units), loaded on
//! first use, with its own weights set on dev data; otherwise, or when it is not installed, the
//! heads' objective applies with the level's own weights ([`OrderingModel::objective`]).
//!
//! The position potential φ telescopes along an order: `Σ_k φ(o_k) − φ(o_k+1) = φ(first) −
//! φ(last)`, so [`ChainTable`] folds it into the transitions, `t(i, j) = adj(i, j) + φ(i) − φ(j)`,
//! and the whole objective is a sum over adjacent pairs. Any decoder of [`super::decode`] then
//! finds the model's best order from the table alone, and so do `segue eval --task ordering` and
//! `segue reorder`. Transitions are mapped to [0, 1] by one affine map per table (its minimum and
//! maximum), which changes every order's total by the same affine map and so never its ranking.
//! (On dev data, counting precedence over all pairs of an order instead of adjacent ones plus the
//! Borda potential did no better; see docs/ordering.md.)
//!
//! A missing or corrupt model is an [`OrderingError`]; callers leave the `ordering` scorer out and
//! warn. Nothing here panics on bad files.

use super::decode::Problem;
use crate::model::files::locate_models_dir;
use crate::model::{ModelError, ModelOptions, ParagraphReader, Provider, Runtime};
use crate::score::{Level, Pairwise, Reason, Unit};
use ort::session::Session;
use ort::value::Tensor;
use serde::Deserialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Folder of the ordering files under the models folder.
pub const DIR: &str = "ordering";
/// The metadata file in [`DIR`].
pub const META_FILE: &str = "ordering.json";
/// The metadata format this build reads.
pub const FORMAT: u32 = 1;

/// What can go wrong loading or running the ordering model.
#[derive(Debug, thiserror::Error)]
pub enum OrderingError {
    /// The runtime, models folder or a session failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A file of the model is missing.
    #[error("the ordering model is not installed: {path} is missing (it is committed under models/ordering/; restore it from the repository or set SEGUE_MODELS_DIR)")]
    NotInstalled {
        /// The missing file.
        path: PathBuf,
    },
    /// The metadata or a head does not have the expected form.
    #[error("the ordering model {path} is invalid: {message}; restore models/ordering/ from the repository")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Running a head failed.
    #[error("the ordering head failed: {0}")]
    Inference(String),
    /// The metadata has no head for this level.
    #[error("the ordering model has no {0} head")]
    NoHead(&'static str),
}

/// Weights of the order objective (see the module docs); absent weights are 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(default)]
pub struct OrderWeights {
    /// Log-probability that the next unit directly follows.
    pub successor: f64,
    /// Clamped embedding cosine of adjacent units.
    pub coherence: f64,
    /// Log-probability that a unit precedes the next one.
    pub precedence: f64,
    /// Borda potential: how much a unit precedes all others.
    pub borda: f64,
    /// Log-probability that the first unit opens the set.
    pub opening: f64,
    /// Log-probability that the last unit closes the set.
    pub closing: f64,
    /// The reader's log-probability that a unit precedes the next one (`cross_precedence` in
    /// the metadata).
    #[serde(rename = "cross_precedence")]
    pub reader_precedence: f64,
    /// The reader's Borda potential (`cross_borda`).
    #[serde(rename = "cross_borda")]
    pub reader_borda: f64,
    /// The reader's log-probability that the next unit directly follows (`cross_next`).
    #[serde(rename = "cross_next")]
    pub reader_next: f64,
}

impl OrderWeights {
    /// Whether any of the paragraph reader's terms (`reader_*`) has weight.
    pub fn uses_reader(&self) -> bool {
        self.reader_precedence > 0.0 || self.reader_next > 0.0 || self.reader_borda > 0.0
    }

    /// Only the precedence-derived terms (the "pairwise model" ablation).
    pub fn pairwise_only(&self) -> OrderWeights {
        OrderWeights {
            precedence: self.precedence,
            borda: self.borda,
            ..OrderWeights::default()
        }
    }
}

/// One cue feature of a unit (the `cues.features` of the metadata; `models/train/ordering/cues.py`
/// documents each kind).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CueFeature {
    /// The first sentence starts with one of the phrases (space-separated tokens).
    StartsWith {
        /// Feature name.
        name: String,
        /// Phrases.
        phrases: Vec<String>,
    },
    /// One of the words occurs among tokens `skip..window` of the first sentence.
    Within {
        /// Feature name.
        name: String,
        /// Tokens skipped at the start.
        skip: usize,
        /// End of the window (exclusive).
        window: usize,
        /// Words.
        words: Vec<String>,
    },
    /// The last sentence, right-trimmed, ends with one of the strings.
    EndsWith {
        /// Feature name.
        name: String,
        /// Endings.
        chars: Vec<String>,
    },
    /// The first sentence, left-trimmed, begins with one of the strings.
    BeginsWith {
        /// Feature name.
        name: String,
        /// Beginnings.
        chars: Vec<String>,
    },
    /// `scale · ln(1 + tokens in the unit)`.
    LogWords {
        /// Feature name.
        name: String,
        /// Scale.
        scale: f64,
    },
    /// `scale · ln(1 + sentences in the unit)`.
    LogSents {
        /// Feature name.
        name: String,
        /// Scale.
        scale: f64,
    },
}

/// The unit cue spec.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CueSpec {
    /// Spec version.
    pub version: u32,
    /// Features, in input order.
    pub features: Vec<CueFeature>,
}

/// The pair cue spec (`pairs` of the metadata).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PairSpec {
    /// Feature names, in input order: `head_given`, `jaccard`, `boundary`, `introduced`.
    pub features: Vec<String>,
    /// How many content tokens of a unit's first sentence `head_given` looks at.
    pub head: usize,
    /// Shortest content token.
    pub min_len: usize,
    /// Indefinite determiners.
    pub indefinite: Vec<String>,
    /// Definite determiners.
    pub definite: Vec<String>,
    /// Stop words (never content tokens).
    pub stop_words: Vec<String>,
}

/// One level's head in the metadata.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LevelMeta {
    /// ONNX file in [`DIR`].
    pub file: String,
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// Weights of the order objective.
    pub weights: OrderWeights,
}

/// Embedding input of the heads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EmbeddingMeta {
    /// Embedding dimension.
    pub dim: usize,
}

/// One level's objective with the paragraph reader (`cross.levels` of the metadata).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReaderLevelMeta {
    /// Weights of the order objective, the reader's terms included.
    pub weights: OrderWeights,
}

/// The paragraph reader's part of the metadata (the `cross` section, written by
/// `models/train/ordering/reader/tune.py`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReaderMeta {
    /// The ONNX export, relative to the models folder (`onnx/reader/model.onnx`).
    pub file: String,
    /// The export's sha256 the weights were set with (also a row of `models/manifest.tsv`).
    pub sha256: String,
    /// Largest set the reader reads; larger sets use the head's own weights.
    pub max_units: usize,
    /// Levels with a reader objective, by name.
    pub levels: std::collections::BTreeMap<String, ReaderLevelMeta>,
}

/// `ordering.json`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct OrderingMeta {
    /// Format version ([`FORMAT`]).
    pub format: u32,
    /// Embedding input.
    pub embedding: EmbeddingMeta,
    /// Unit cues.
    pub cues: CueSpec,
    /// Pair cues.
    pub pairs: PairSpec,
    /// Heads by level name (`sentence`, `paragraph`).
    pub levels: std::collections::BTreeMap<String, LevelMeta>,
    /// The paragraph reader, when the model has one (the `cross` section).
    #[serde(default, rename = "cross")]
    pub reader: Option<ReaderMeta>,
}

impl OrderingMeta {
    /// Parses and checks metadata text.
    pub fn parse(text: &str) -> Result<OrderingMeta, String> {
        let meta: OrderingMeta = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if meta.format != FORMAT {
            return Err(format!(
                "format {} (this build reads {FORMAT})",
                meta.format
            ));
        }
        if meta.pairs.features.len() != 4 {
            return Err(format!(
                "{} pair features (expected 4)",
                meta.pairs.features.len()
            ));
        }
        Ok(meta)
    }

    /// Width of a `units` row.
    pub fn unit_width(&self) -> usize {
        self.embedding.dim + self.cues.features.len()
    }
}

// ---- cue features ------------------------------------------------------------------------------

/// ASCII whitespace as the Python side splits on (space, tab, LF, CR, FF, VT).
fn is_ascii_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c' | '\x0b')
}

/// The sentence's tokens as the cue features see them: split on ASCII whitespace, ASCII letters
/// lower-cased, characters other than ASCII letters and digits stripped from both ends, cut at the
/// first apostrophe (`'` or `’`), empty tokens dropped.
pub fn tokens(sentence: &str) -> Vec<String> {
    let keep = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    sentence
        .split(is_ascii_ws)
        .filter_map(|w| {
            let lower = w.to_ascii_lowercase();
            let t = lower.trim_matches(|c: char| !keep(c));
            let t = t.split(['\'', '\u{2019}']).next().unwrap_or("");
            (!t.is_empty()).then(|| t.to_string())
        })
        .collect()
}

fn trim_ascii_ws(s: &str) -> &str {
    s.trim_matches(is_ascii_ws)
}

/// The cue vector of a unit given as its sentences (a sentence-level unit has one).
pub fn unit_cues(spec: &CueSpec, sentences: &[&str]) -> Vec<f32> {
    let (Some(first), Some(last)) = (sentences.first(), sentences.last()) else {
        return vec![0.0; spec.features.len()];
    };
    let head = tokens(first);
    let n_tokens: usize = sentences.iter().map(|s| tokens(s).len()).sum();
    let (first_text, last_text) = (trim_ascii_ws(first), trim_ascii_ws(last));
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    spec.features
        .iter()
        .map(|f| {
            let v: f64 = match f {
                CueFeature::StartsWith { phrases, .. } => flag(phrases.iter().any(|p| {
                    let words: Vec<&str> = p.split(' ').collect();
                    head.len() >= words.len() && head.iter().zip(&words).all(|(t, w)| t == w)
                })),
                CueFeature::Within {
                    skip,
                    window,
                    words,
                    ..
                } => {
                    let end = (*window).min(head.len());
                    let slice = head.get(*skip..end).unwrap_or(&[]);
                    flag(slice.iter().any(|t| words.iter().any(|w| w == t)))
                }
                CueFeature::EndsWith { chars, .. } => {
                    flag(chars.iter().any(|c| last_text.ends_with(c.as_str())))
                }
                CueFeature::BeginsWith { chars, .. } => {
                    flag(chars.iter().any(|c| first_text.starts_with(c.as_str())))
                }
                CueFeature::LogWords { scale, .. } => scale * (n_tokens as f64).ln_1p(),
                CueFeature::LogSents { scale, .. } => scale * (sentences.len() as f64).ln_1p(),
            };
            v as f32
        })
        .collect()
}

/// What the pair cues need of one unit.
#[derive(Debug, Clone, Default)]
struct Profile {
    all: HashSet<String>,
    head: Vec<String>,
    first: HashSet<String>,
    last: HashSet<String>,
    indef: HashSet<String>,
    def: HashSet<String>,
}

fn content(spec: &PairSpec, toks: &[String]) -> Vec<String> {
    toks.iter()
        .filter(|t| t.chars().count() >= spec.min_len && !spec.stop_words.iter().any(|s| s == *t))
        .map(|t| match t.strip_suffix('s') {
            Some(stem) if t.chars().count() > 3 => stem.to_string(),
            _ => t.clone(),
        })
        .collect()
}

fn after(spec: &PairSpec, toks: &[String], dets: &[String]) -> HashSet<String> {
    let mut out = HashSet::new();
    for (k, t) in toks.iter().enumerate() {
        if dets.iter().any(|d| d == t) {
            let end = (k + 3).min(toks.len());
            out.extend(content(spec, &toks[k + 1..end]));
        }
    }
    out
}

fn profile(spec: &PairSpec, sentences: &[&str]) -> Profile {
    let toks: Vec<Vec<String>> = if sentences.is_empty() {
        vec![Vec::new()]
    } else {
        sentences.iter().map(|s| tokens(s)).collect()
    };
    let every: Vec<String> = toks.iter().flatten().cloned().collect();
    let first = content(spec, &toks[0]);
    Profile {
        all: content(spec, &every).into_iter().collect(),
        head: first.iter().take(spec.head).cloned().collect(),
        first: first.into_iter().collect(),
        last: content(spec, &toks[toks.len() - 1]).into_iter().collect(),
        indef: after(spec, &every, &spec.indefinite),
        def: after(spec, &every, &spec.definite),
    }
}

fn pair(a: &Profile, b: &Profile) -> [f32; 4] {
    let head_given = if b.head.is_empty() {
        0.0
    } else {
        b.head.iter().filter(|t| a.all.contains(*t)).count() as f64 / b.head.len() as f64
    };
    let union = a.all.union(&b.all).count();
    let jaccard = if union == 0 {
        0.0
    } else {
        a.all.intersection(&b.all).count() as f64 / union as f64
    };
    let m = a.last.len().min(b.first.len());
    let boundary = if m == 0 {
        0.0
    } else {
        a.last.intersection(&b.first).count() as f64 / m as f64
    };
    let introduced = if a.indef.intersection(&b.def).next().is_some() {
        1.0
    } else {
        0.0
    };
    [
        head_given as f32,
        jaccard as f32,
        boundary as f32,
        introduced,
    ]
}

/// The `[n, n, 4]` directed pair cues of a set of units, row-major (`(i·n + j)·4 + k`: unit `i`
/// before unit `j`); the diagonal is zero.
pub fn pair_cues(spec: &PairSpec, units: &[Unit<'_>]) -> Vec<f32> {
    let profiles: Vec<Profile> = units.iter().map(|u| profile(spec, u)).collect();
    let n = units.len();
    let mut out = vec![0f32; n * n * 4];
    for i in 0..n {
        for j in 0..n {
            if i != j {
                out[(i * n + j) * 4..(i * n + j + 1) * 4]
                    .copy_from_slice(&pair(&profiles[i], &profiles[j]));
            }
        }
    }
    out
}

/// A unit's vector: the mean of its sentences' vectors, renormalised to unit length (a sentence's
/// own vector, renormalised). All zeros for an empty unit.
pub fn unit_vector<V: AsRef<[f32]>>(sentence_vectors: &[V], dim: usize) -> Vec<f32> {
    let mut mean = vec![0f32; dim];
    for v in sentence_vectors {
        for (m, x) in mean.iter_mut().zip(v.as_ref()) {
            *m += x;
        }
    }
    let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for m in &mut mean {
            *m /= norm;
        }
    }
    mean
}

// ---- the heads ---------------------------------------------------------------------------------

/// Raw outputs of a head for `n` units (logits, row-major).
#[derive(Debug, Clone, PartialEq)]
pub struct HeadOutputs {
    /// Number of units.
    pub n: usize,
    /// `[n, n]` logit of P(i before j).
    pub precedence: Vec<f32>,
    /// `[n, n]` logit that j directly follows i.
    pub successor: Vec<f32>,
    /// `[n]` opening logits.
    pub opening: Vec<f32>,
    /// `[n]` closing logits.
    pub closing: Vec<f32>,
}

struct Head {
    session: Mutex<Session>,
    meta: LevelMeta,
}

/// The loaded ordering model: the metadata, a head per level and, loaded on first use, the
/// paragraph reader.
pub struct OrderingModel {
    meta: OrderingMeta,
    sentence: Option<Head>,
    paragraph: Option<Head>,
    dir: PathBuf,
    provider: Provider,
    models_dir: PathBuf,
    options: ModelOptions,
    reader: OnceLock<Result<Arc<ParagraphReader>, String>>,
}

impl std::fmt::Debug for OrderingModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderingModel")
            .field("dir", &self.dir)
            .field("sentence", &self.sentence.is_some())
            .field("paragraph", &self.paragraph.is_some())
            .finish_non_exhaustive()
    }
}

fn level_key(level: Level) -> &'static str {
    level.name()
}

impl OrderingModel {
    /// Loads `ordering/` from the models folder `options` point at (the source tree's
    /// `models/ordering/` when the models folder has none). The heads are tiny: they run on the CPU
    /// with one thread whatever device the encoder uses.
    pub fn load(options: &ModelOptions) -> Result<OrderingModel, OrderingError> {
        let models_dir = locate_models_dir(options)?;
        let mut dir = models_dir.path.join(DIR);
        if !dir.join(META_FILE).is_file() {
            let source_tree = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("models")
                .join(DIR);
            if source_tree.join(META_FILE).is_file() {
                dir = source_tree;
            }
        }
        OrderingModel::load_from(&dir, &models_dir.path, options)
    }

    /// Loads the metadata and the heads from `dir`; `models_dir` is where ONNX Runtime is looked
    /// for. A head whose file is missing or does not match its sha256 is an error.
    pub fn load_from(
        dir: &Path,
        models_dir: &Path,
        options: &ModelOptions,
    ) -> Result<OrderingModel, OrderingError> {
        let meta_path = dir.join(META_FILE);
        let text = std::fs::read_to_string(&meta_path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => OrderingError::NotInstalled {
                path: meta_path.clone(),
            },
            _ => OrderingError::Invalid {
                path: meta_path.clone(),
                message: e.to_string(),
            },
        })?;
        let meta = OrderingMeta::parse(&text).map_err(|message| OrderingError::Invalid {
            path: meta_path.clone(),
            message,
        })?;
        let cpu = ModelOptions {
            device: crate::config::Device::Cpu,
            intra_threads: 1,
            ..options.clone()
        };
        // Every file is checked before ONNX Runtime is touched.
        let mut files: Vec<(usize, PathBuf, LevelMeta)> = Vec::new();
        for (slot, level) in [Level::Sentence, Level::Paragraph].into_iter().enumerate() {
            let Some(lm) = meta.levels.get(level_key(level)) else {
                continue;
            };
            let path = dir.join(&lm.file);
            if !path.is_file() {
                return Err(OrderingError::NotInstalled { path });
            }
            let actual =
                crate::model::files::sha256_file(&path).map_err(|e| OrderingError::Invalid {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            if actual != lm.sha256 {
                return Err(OrderingError::Invalid {
                    path,
                    message: format!("sha256 {actual}, the metadata says {}", lm.sha256),
                });
            }
            files.push((slot, path, lm.clone()));
        }
        let runtime = Runtime::get(options, Some(models_dir))?;
        let mut heads: [Option<Head>; 2] = [None, None];
        let mut provider = Provider::Cpu;
        for (slot, path, lm) in files {
            let choice = runtime.session(&path, &cpu, Some(models_dir))?;
            provider = choice.provider;
            let inputs: Vec<&str> = choice.session.inputs().iter().map(|i| i.name()).collect();
            let outputs: Vec<&str> = choice.session.outputs().iter().map(|o| o.name()).collect();
            let ok = inputs == ["units", "pairs"]
                && ["precedence", "successor", "opening", "closing"]
                    .iter()
                    .all(|o| outputs.contains(o));
            if !ok {
                return Err(OrderingError::Invalid {
                    path,
                    message: format!("unexpected inputs {inputs:?} / outputs {outputs:?}"),
                });
            }
            heads[slot] = Some(Head {
                session: Mutex::new(choice.session),
                meta: lm,
            });
        }
        let [sentence, paragraph] = heads;
        let model = OrderingModel {
            meta,
            sentence,
            paragraph,
            dir: dir.to_path_buf(),
            provider,
            models_dir: models_dir.to_path_buf(),
            options: options.clone(),
            reader: OnceLock::new(),
        };
        // One probe run per head, so a head of the wrong shape fails here, not on every document.
        for level in [Level::Sentence, Level::Paragraph] {
            if model.head(level).is_ok() {
                let units: Vec<Unit<'_>> = vec![vec!["Probe one."], vec!["Probe two."]];
                let vectors = vec![vec![0f32; model.meta.embedding.dim]; 2];
                let out = model.run(level, &units, &vectors)?;
                if out.opening.len() != 2 || out.precedence.len() != 4 {
                    return Err(OrderingError::Invalid {
                        path: model.dir.clone(),
                        message: format!(
                            "the {} head returns outputs of the wrong shape",
                            level.name()
                        ),
                    });
                }
            }
        }
        Ok(model)
    }

    /// The metadata.
    pub fn meta(&self) -> &OrderingMeta {
        &self.meta
    }

    /// One line for logs.
    pub fn summary(&self) -> String {
        let levels: Vec<&str> = [
            (Level::Sentence, &self.sentence),
            (Level::Paragraph, &self.paragraph),
        ]
        .iter()
        .filter(|(_, h)| h.is_some())
        .map(|(l, _)| l.name())
        .collect();
        let reader = match (&self.meta.reader, self.reader.get()) {
            (None, _) => "no paragraph reader".to_string(),
            (Some(_), None) => "paragraph reader loaded on first use".to_string(),
            (Some(_), Some(Ok(c))) => format!("paragraph reader on {}", c.provider()),
            (Some(_), Some(Err(e))) => format!("paragraph reader unavailable: {e}"),
        };
        format!(
            "ordering heads ({}) on {} from {}; {reader}",
            levels.join(", "),
            self.provider,
            self.dir.display()
        )
    }

    /// The paragraph reader, loaded on the first call (on the device the options select); `Err`
    /// says why it cannot be used (then the heads' own objective applies).
    pub fn reader(&self) -> Result<&Arc<ParagraphReader>, &str> {
        let Some(meta) = &self.meta.reader else {
            return Err("the ordering model has no paragraph reader");
        };
        self.reader
            .get_or_init(|| {
                let path = self.models_dir.join(&meta.file);
                ParagraphReader::load_from(&path, &self.models_dir, &self.options)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// Whether a set of `n` units at `level` is scored with the reader: the metadata has reader
    /// weights for the level and `2 ≤ n ≤ max_units` (the reader itself may still fail to load;
    /// see [`OrderingModel::reader`]).
    pub fn reader_applies(&self, level: Level, n: usize) -> bool {
        self.meta.reader.as_ref().is_some_and(|c| {
            (2..=c.max_units).contains(&n) && c.levels.contains_key(level_key(level))
        })
    }

    /// Whether the paragraph reader reads a set of `n`
    /// units at all, at any level: the metadata names one and `2 ≤ n ≤ max_units`. The ordering
    /// objective uses it only where [`OrderingModel::reader_applies`]; `tier1`'s reader terms
    /// wherever it reads.
    pub fn reader_reads(&self, n: usize) -> bool {
        self.meta
            .reader
            .as_ref()
            .is_some_and(|c| (2..=c.max_units).contains(&n))
    }

    /// The heads' scores for `units` at `level` with the set model's logits added when it reads
    /// the set ([`OrderingModel::reader_reads`]), whatever the level's weights; the second
    /// value says whether they were added, or why not.
    pub fn scores_with_reader(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
    ) -> Result<(OrderScores, ReaderUse), OrderingError> {
        let scores = self.scores(level, units, vectors)?;
        if !self.reader_reads(units.len()) {
            return Ok((scores, ReaderUse::NotApplicable));
        }
        let model = match self.reader() {
            Ok(m) => m,
            Err(why) => return Ok((scores, ReaderUse::Failed(why.to_string()))),
        };
        let texts: Vec<String> = units.iter().map(|u| u.join(" ")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        Ok(match model.set_logits(&refs) {
            Ok(x) => (
                match &x.next {
                    Some(y) => scores.with_reader(&x.precedence).with_reader_successor(y),
                    None => scores.with_reader(&x.precedence),
                },
                ReaderUse::Used,
            ),
            Err(e) => (scores, ReaderUse::Failed(e.to_string())),
        })
    }

    /// The weights of the objective with the reader's terms at `level`, if it has them.
    pub fn reader_weights(&self, level: Level) -> Option<OrderWeights> {
        let c = self.meta.reader.as_ref()?;
        c.levels.get(level_key(level)).map(|l| l.weights)
    }

    fn head(&self, level: Level) -> Result<&Head, OrderingError> {
        match level {
            Level::Sentence => self.sentence.as_ref(),
            Level::Paragraph => self.paragraph.as_ref(),
        }
        .ok_or(OrderingError::NoHead(level.name()))
    }

    /// The weights of the order objective at `level`.
    pub fn weights(&self, level: Level) -> Option<OrderWeights> {
        self.head(level).ok().map(|h| h.meta.weights)
    }

    /// The `units` input rows (row-major `[n, dim + cues]`) of units with the given unit vectors.
    pub fn unit_rows(&self, units: &[Unit<'_>], vectors: &[Vec<f32>]) -> Vec<f32> {
        let dim = self.meta.embedding.dim;
        let mut rows = Vec::with_capacity(units.len() * self.meta.unit_width());
        for (u, v) in units.iter().zip(vectors) {
            let mut e = v.clone();
            e.resize(dim, 0.0);
            rows.extend(e);
            rows.extend(unit_cues(&self.meta.cues, u));
        }
        rows
    }

    /// Runs the head of `level` on `units` with their unit vectors ([`unit_vector`]).
    pub fn run(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
    ) -> Result<HeadOutputs, OrderingError> {
        let n = units.len();
        if vectors.len() != n {
            return Err(OrderingError::Inference(format!(
                "{} vectors for {n} units",
                vectors.len()
            )));
        }
        if n == 0 {
            return Ok(HeadOutputs {
                n,
                precedence: Vec::new(),
                successor: Vec::new(),
                opening: Vec::new(),
                closing: Vec::new(),
            });
        }
        let head = self.head(level)?;
        let fail = |e: ort::Error| OrderingError::Inference(e.to_string());
        let rows =
            Tensor::from_array(([n, self.meta.unit_width()], self.unit_rows(units, vectors)))
                .map_err(fail)?;
        let pairs =
            Tensor::from_array(([n, n, 4], pair_cues(&self.meta.pairs, units))).map_err(fail)?;
        let mut session = head.session.lock().unwrap_or_else(|e| e.into_inner());
        let outputs = session
            .run(ort::inputs!["units" => rows, "pairs" => pairs])
            .map_err(fail)?;
        let get = |name: &str, len: usize| -> Result<Vec<f32>, OrderingError> {
            let value = outputs
                .get(name)
                .ok_or_else(|| OrderingError::Inference(format!("no output `{name}`")))?;
            let (_, data) = value.try_extract_tensor::<f32>().map_err(fail)?;
            if data.len() != len {
                return Err(OrderingError::Inference(format!(
                    "output `{name}` has {} values, expected {len}",
                    data.len()
                )));
            }
            Ok(data.to_vec())
        };
        Ok(HeadOutputs {
            n,
            precedence: get("precedence", n * n)?,
            successor: get("successor", n * n)?,
            opening: get("opening", n)?,
            closing: get("closing", n)?,
        })
    }

    /// The objective's ingredients for `units` at `level`.
    pub fn scores(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
    ) -> Result<OrderScores, OrderingError> {
        let out = self.run(level, units, vectors)?;
        Ok(OrderScores::new(&out, vectors))
    }

    /// The full objective for `units` at `level`: the head's scores with the reader's
    /// where it applies ([`OrderingModel::reader_applies`]) and the weights that go with them. When
    /// the reader cannot load or run, the head's own objective is returned and
    /// [`Objective::reader`] says why.
    pub fn objective(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
    ) -> Result<Objective, OrderingError> {
        let head = self
            .weights(level)
            .ok_or(OrderingError::NoHead(level.name()))?;
        let (true, Some(weights)) = (
            self.reader_applies(level, units.len()),
            self.reader_weights(level),
        ) else {
            return Ok(Objective {
                scores: self.scores(level, units, vectors)?,
                weights: head,
                reader: ReaderUse::NotApplicable,
            });
        };
        let (scores, reader) = self.scores_with_reader(level, units, vectors)?;
        Ok(Objective {
            scores,
            weights: if reader == ReaderUse::Used {
                weights
            } else {
                head
            },
            reader,
        })
    }
}

/// Whether an [`Objective`] includes the paragraph reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReaderUse {
    /// It does.
    Used,
    /// The set is too large or the level has no reader weights.
    NotApplicable,
    /// It should have, but the reader could not load or run (the message says why).
    Failed(String),
}

/// A set's objective: its scores and the weights to combine them with.
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    /// The log-probabilities and cosines.
    pub scores: OrderScores,
    /// The weights.
    pub weights: OrderWeights,
    /// Whether the reader's terms are in.
    pub reader: ReaderUse,
}

// ---- the objective -----------------------------------------------------------------------------

fn log_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// Log-softmax of `v` over the entries where `keep` holds; the others get 0.
fn log_softmax(v: &[f32], keep: impl Fn(usize) -> bool) -> Vec<f64> {
    let max = v
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, &x)| f64::from(x))
        .fold(f64::NEG_INFINITY, f64::max);
    if !max.is_finite() {
        return vec![0.0; v.len()];
    }
    let lse = max
        + v.iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(_, &x)| (f64::from(x) - max).exp())
            .sum::<f64>()
            .ln();
    v.iter()
        .enumerate()
        .map(|(i, &x)| if keep(i) { f64::from(x) - lse } else { 0.0 })
        .collect()
}

/// The log-probabilities the objective combines, for `n` units (row-major `[n, n]` matrices with a
/// zero diagonal).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderScores {
    /// Number of units.
    pub n: usize,
    /// `log P(i before j)`.
    pub precedence: Vec<f64>,
    /// `log P(j directly follows i)` (softmax over j ≠ i).
    pub successor: Vec<f64>,
    /// Embedding cosine clamped to [0, 1].
    pub coherence: Vec<f64>,
    /// `log P(i opens the set)`.
    pub opening: Vec<f64>,
    /// `log P(i closes the set)`.
    pub closing: Vec<f64>,
    /// The reader's `log σ((X[i][j] − X[j][i]) / 2)`, `X` its logits of "i before j";
    /// empty when the set was scored without it.
    pub reader: Vec<f64>,
    /// The reader's `log P(j directly follows i)` (log-softmax over `j ≠ i` of its
    /// successor logits); empty when the set was scored without it or the export has no successor.
    pub reader_next: Vec<f64>,
}

impl OrderScores {
    /// From a head's outputs and the units' vectors (unit length).
    pub fn new(out: &HeadOutputs, vectors: &[Vec<f32>]) -> OrderScores {
        let n = out.n;
        let mut precedence = vec![0.0; n * n];
        let mut successor = vec![0.0; n * n];
        let mut coherence = vec![0.0; n * n];
        for i in 0..n {
            let row = log_softmax(&out.successor[i * n..(i + 1) * n], |j| j != i);
            for j in 0..n {
                if i == j {
                    continue;
                }
                precedence[i * n + j] = log_sigmoid(f64::from(out.precedence[i * n + j]));
                successor[i * n + j] = row[j];
                let dot: f32 = vectors[i].iter().zip(&vectors[j]).map(|(a, b)| a * b).sum();
                coherence[i * n + j] = if dot.is_nan() {
                    0.0
                } else {
                    f64::from(dot).clamp(0.0, 1.0)
                };
            }
        }
        OrderScores {
            n,
            precedence,
            successor,
            coherence,
            opening: log_softmax(&out.opening, |_| true),
            closing: log_softmax(&out.closing, |_| true),
            reader: Vec::new(),
            reader_next: Vec::new(),
        }
    }

    /// The same scores with the reader's precedence logits `x` (row-major `[n, n]`, see
    /// [`crate::model::SetLogits`]); logits of the wrong size are ignored.
    pub fn with_reader(mut self, x: &[f32]) -> OrderScores {
        let n = self.n;
        if x.len() != n * n {
            return self;
        }
        self.reader = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                if i == j {
                    0.0
                } else {
                    log_sigmoid((f64::from(x[k]) - f64::from(x[j * n + i])) / 2.0)
                }
            })
            .collect();
        self
    }

    /// The same scores with the reader's successor logits `y` (row-major `[n, n]`,
    /// `y[i·n + j]` the logit that `j` directly follows `i`, see [`crate::model::SetLogits`]);
    /// logits of the wrong size are ignored.
    pub fn with_reader_successor(mut self, y: &[f32]) -> OrderScores {
        let n = self.n;
        if y.len() != n * n {
            return self;
        }
        let mut next = vec![0.0; n * n];
        for i in 0..n {
            let lp = log_softmax(&y[i * n..(i + 1) * n], |j| j != i);
            for j in (0..n).filter(|&j| j != i) {
                next[i * n + j] = lp[j];
            }
        }
        self.reader_next = next;
        self
    }

    fn reader_at(&self, k: usize) -> f64 {
        self.reader.get(k).copied().unwrap_or(0.0)
    }

    fn reader_next_at(&self, k: usize) -> f64 {
        self.reader_next.get(k).copied().unwrap_or(0.0)
    }

    /// The position potential φ of every unit under `w` (see the module docs).
    pub fn potential(&self, w: &OrderWeights) -> Vec<f64> {
        let n = self.n;
        (0..n)
            .map(|i| {
                let borda: f64 = (0..n)
                    .map(|j| self.precedence[i * n + j] - self.precedence[j * n + i])
                    .sum();
                let reader_borda: f64 = (0..n)
                    .map(|j| self.reader_at(i * n + j) - self.reader_at(j * n + i))
                    .sum();
                w.opening * self.opening[i] - w.closing * self.closing[i]
                    + w.borda * borda
                    + w.reader_borda * reader_borda
            })
            .collect()
    }

    /// The objective under `w` as a transition table.
    pub fn chain(&self, w: &OrderWeights) -> ChainTable {
        let n = self.n;
        let phi = self.potential(w);
        let mut raw = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    let k = i * n + j;
                    raw[k] = w.successor * self.successor[k]
                        + w.coherence * self.coherence[k]
                        + w.precedence * self.precedence[k]
                        + w.reader_precedence * self.reader_at(k)
                        + w.reader_next * self.reader_next_at(k)
                        + phi[i]
                        - phi[j];
                }
            }
        }
        // Reasons quote the better-informed precedence: the reader's where it was used.
        let before = if self.reader.is_empty() {
            &self.precedence
        } else {
            &self.reader
        };
        ChainTable::new(n, raw, before.iter().map(|p| p.exp()).collect())
    }
}

/// The order objective as transitions: `raw[i·n + j]` is what placing `j` right after `i` adds
/// (see the module docs); [`Pairwise::transition`] maps it to [0, 1] with the table's own affine
/// map, which keeps every order's ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainTable {
    n: usize,
    raw: Vec<f64>,
    before: Vec<f64>,
    lo: f64,
    scale: f64,
}

impl ChainTable {
    /// A table of `n` units from raw transition values and P(i before j) (for reasons).
    pub fn new(n: usize, raw: Vec<f64>, before: Vec<f64>) -> ChainTable {
        let off = (0..n * n)
            .filter(|k| k / n != k % n)
            .map(|k| raw[k])
            .filter(|v| v.is_finite());
        let (lo, hi) = off.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let (lo, scale) = if lo.is_finite() && hi > lo {
            (lo, hi - lo)
        } else {
            (0.0, 1.0)
        };
        ChainTable {
            n,
            raw,
            before,
            lo,
            scale,
        }
    }

    /// The raw value of placing `to` right after `from`.
    pub fn raw(&self, from: usize, to: usize) -> f64 {
        self.raw.get(from * self.n + to).copied().unwrap_or(0.0)
    }

    /// The model's objective of `order` (sum of raw transitions).
    pub fn objective(&self, order: &[usize]) -> f64 {
        order.windows(2).map(|w| self.raw(w[0], w[1])).sum()
    }

    /// An unconstrained decoding problem over this table.
    pub fn problem(&self) -> Problem<'_> {
        Problem::new(self)
    }
}

impl Pairwise for ChainTable {
    fn len(&self) -> usize {
        self.n
    }

    fn transition(&self, from: usize, to: usize) -> f64 {
        if from >= self.n || to >= self.n || from == to {
            return 0.0;
        }
        let v = (self.raw(from, to) - self.lo) / self.scale;
        if v.is_nan() {
            0.0
        } else {
            v.clamp(0.0, 1.0)
        }
    }

    fn reason(&self, from: usize, to: usize) -> Reason {
        let p = self.before.get(from * self.n + to).copied().unwrap_or(0.5);
        let how = if p < 0.35 {
            "the ordering model expects it to come before, not after"
        } else if p < 0.5 {
            "the ordering model leans towards the other order"
        } else {
            "the ordering model accepts this order"
        };
        Reason {
            shared: Vec::new(),
            note: Some(format!("{how} (P(after) {p:.2})")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> OrderingMeta {
        let text = r#"{"format": 1, "embedding": {"dim": 2},
          "cues": {"version": 1, "features": [
            {"name": "pron", "kind": "starts_with", "phrases": ["it", "for example"]},
            {"name": "also", "kind": "within", "skip": 1, "window": 3, "words": ["also"]},
            {"name": "colon", "kind": "ends_with", "chars": [":"]},
            {"name": "quote", "kind": "begins_with", "chars": ["\u201c"]},
            {"name": "lw", "kind": "log_words", "scale": 0.25},
            {"name": "ls", "kind": "log_sents", "scale": 0.5}]},
          "pairs": {"features": ["head_given", "jaccard", "boundary", "introduced"], "head": 8,
            "min_len": 3, "indefinite": ["a", "an"], "definite": ["the"], "stop_words": ["the", "is"]},
          "levels": {}}"#;
        OrderingMeta::parse(text).expect("valid")
    }

    #[test]
    fn tokens_follow_the_python_rules() {
        assert_eq!(
            tokens("We’ll see: “It’s fine,” he said -- e.g. (this) 'twas OK."),
            vec!["we", "see", "it", "fine", "he", "said", "e.g", "this", "twas", "ok"]
        );
        assert!(tokens(" \t ").is_empty());
    }

    #[test]
    fn unit_cues_evaluate_the_spec() {
        let m = spec();
        let c = unit_cues(&m.cues, &["For example, it also works:"]);
        assert_eq!(&c[..4], &[1.0, 0.0, 1.0, 0.0]);
        let c = unit_cues(&m.cues, &["It also works.", "“Quoted” end:"]);
        assert_eq!(&c[..4], &[1.0, 1.0, 1.0, 0.0]);
        assert!((c[4] - (0.25 * 5f64.ln_1p()) as f32).abs() < 1e-6);
        assert!((c[5] - (0.5 * 2f64.ln_1p()) as f32).abs() < 1e-6);
        assert_eq!(unit_cues(&m.cues, &[]), vec![0.0; 6]);
    }

    #[test]
    fn pair_cues_are_directed() {
        let m = spec();
        let units: Vec<Unit<'_>> = vec![
            vec!["A closure is a function."],
            vec!["The closure captures values.", "It is anonymous."],
        ];
        let q = pair_cues(&m.pairs, &units);
        // 0 -> 1: b's head {closure, capture, value} has 1 of 3 in a; "a closure" ... "the closure".
        assert!((q[4] - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(q[7], 1.0);
        // 1 -> 0: a's head {closure, function}: closure is in b.
        assert!((q[8] - 0.5).abs() < 1e-6);
        assert_eq!(q[11], 0.0);
        assert!(q[..4].iter().all(|&x| x == 0.0));
    }

    fn outputs(n: usize, seed: u64) -> HeadOutputs {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let g: Vec<f32> = (0..n * n).map(|_| rng.gen_range(-2.0..2.0)).collect();
        let precedence = (0..n * n).map(|k| g[k] - g[(k % n) * n + k / n]).collect();
        HeadOutputs {
            n,
            precedence,
            successor: (0..n * n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
            opening: (0..n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
            closing: (0..n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
        }
    }

    #[test]
    fn the_chain_table_ranks_orders_as_the_objective() {
        use crate::score::order_score;
        let n = 6;
        let vectors: Vec<Vec<f32>> = (0..n)
            .map(|i| unit_vector(&[vec![1.0, i as f32]], 2))
            .collect();
        let s = OrderScores::new(&outputs(n, 3), &vectors);
        let w = OrderWeights {
            successor: 0.5,
            coherence: 1.0,
            precedence: 0.5,
            borda: 0.1,
            opening: 1.0,
            closing: 0.5,
            ..OrderWeights::default()
        };
        let t = s.chain(&w);
        let direct = |o: &[usize]| {
            let phi = s.potential(&w);
            let adj: f64 = o
                .windows(2)
                .map(|p| {
                    let k = p[0] * n + p[1];
                    w.successor * s.successor[k]
                        + w.coherence * s.coherence[k]
                        + w.precedence * s.precedence[k]
                })
                .sum();
            adj + phi[o[0]] - phi[o[n - 1]]
        };
        let orders = [
            vec![0, 1, 2, 3, 4, 5],
            vec![5, 3, 1, 0, 2, 4],
            vec![2, 0, 4, 1, 5, 3],
        ];
        for o in &orders {
            assert!((t.objective(o) - direct(o)).abs() < 1e-9);
        }
        // The [0, 1] transitions are an affine image of the objective: same ranking.
        let mut by_obj: Vec<usize> = (0..3).collect();
        by_obj.sort_by(|&a, &b| t.objective(&orders[a]).total_cmp(&t.objective(&orders[b])));
        let mut by_score: Vec<usize> = (0..3).collect();
        by_score
            .sort_by(|&a, &b| order_score(&t, &orders[a]).total_cmp(&order_score(&t, &orders[b])));
        assert_eq!(by_obj, by_score);
        for i in 0..n {
            for j in 0..n {
                assert!((0.0..=1.0).contains(&t.transition(i, j)));
            }
        }
        // The exact decoder's best order is the objective's best order.
        let d = crate::order::decode::exact(&t.problem()).expect("small");
        let best = orders
            .iter()
            .map(|o| t.objective(o))
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(t.objective(&d.order) >= best - 1e-9);
    }

    #[test]
    fn reader_terms_enter_the_objective_as_configured() {
        let out = outputs(4, 3);
        let vectors = vec![vec![1.0, 0.0]; 4];
        let plain = OrderScores::new(&out, &vectors);
        // Logits that favour the order 3, 2, 1, 0 strongly.
        let x: Vec<f32> = (0..16)
            .map(|k| {
                let (i, j) = (k / 4, k % 4);
                if i == j {
                    0.0
                } else if i > j {
                    4.0
                } else {
                    -4.0
                }
            })
            .collect();
        let scored = plain.clone().with_reader(&x);
        assert_eq!(
            plain.clone().with_reader(&x[..15]),
            plain,
            "wrong sizes are ignored"
        );
        assert!((scored.reader[3 * 4].exp() - 1.0 / (1.0 + (-4.0f64).exp())).abs() < 1e-12);
        // Without reader weights nothing changes; with them the reversed order wins.
        let w = OrderWeights {
            successor: 0.1,
            ..OrderWeights::default()
        };
        assert_eq!(
            scored.chain(&w).objective(&[0, 1, 2, 3]),
            plain.chain(&w).objective(&[0, 1, 2, 3])
        );
        let adjacent = OrderWeights {
            reader_precedence: 1.0,
            ..w
        };
        let (best, _) = crate::order::reorder::propose_order(&scored.chain(&adjacent));
        assert_eq!(best, vec![3, 2, 1, 0]);
        // The Borda potential only decides the ends.
        let borda = OrderWeights {
            reader_borda: 1.0,
            ..w
        };
        let (best, _) = crate::order::reorder::propose_order(&scored.chain(&borda));
        assert_eq!((best[0], best[3]), (3, 0), "{best:?}");
        // Reasons quote the reader's precedence.
        let t = scored.chain(&w);
        let note = t.reason(0, 1).note.unwrap_or_default();
        assert!(note.contains("expects it to come before"), "{note}");
    }

    #[test]
    fn the_reader_successor_enters_the_objective_as_configured() {
        let n = 4;
        let out = outputs(n, 3);
        let vectors = vec![vec![1.0, 0.0]; n];
        let plain = OrderScores::new(&out, &vectors);
        // Successor logits that say 2 → 0 → 3 → 1.
        let mut y = vec![-3.0f32; n * n];
        for (i, j) in [(2, 0), (0, 3), (3, 1)] {
            y[i * n + j] = 5.0;
        }
        let scored = plain.clone().with_reader_successor(&y);
        assert_eq!(
            plain.clone().with_reader_successor(&y[..15]),
            plain,
            "wrong sizes are ignored"
        );
        for i in 0..n {
            let total: f64 = (0..n)
                .filter(|&j| j != i)
                .map(|j| scored.reader_next[i * n + j].exp())
                .sum();
            assert!((total - 1.0).abs() < 1e-9, "row {i} sums to {total}");
        }
        let w = OrderWeights {
            successor: 0.1,
            ..OrderWeights::default()
        };
        assert_eq!(
            scored.chain(&w).objective(&[0, 1, 2, 3]),
            plain.chain(&w).objective(&[0, 1, 2, 3]),
            "no weight, no effect"
        );
        let next = OrderWeights {
            reader_next: 1.0,
            ..w
        };
        let (best, _) = crate::order::reorder::propose_order(&scored.chain(&next));
        assert_eq!(best, vec![2, 0, 3, 1]);
    }

    #[test]
    fn log_probabilities_are_normalised() {
        let n = 5;
        let vectors = vec![vec![1.0f32, 0.0]; n];
        let s = OrderScores::new(&outputs(n, 8), &vectors);
        let total: f64 = s.opening.iter().map(|x| x.exp()).sum();
        assert!((total - 1.0).abs() < 1e-9);
        for i in 0..n {
            let row: f64 = (0..n)
                .filter(|&j| j != i)
                .map(|j| s.successor[i * n + j].exp())
                .sum();
            assert!((row - 1.0).abs() < 1e-9);
            for j in 0..n {
                if i != j {
                    let p = s.precedence[i * n + j].exp() + s.precedence[j * n + i].exp();
                    assert!((p - 1.0).abs() < 1e-5);
                }
            }
        }
    }

    #[test]
    fn metadata_errors_are_reported() {
        assert!(OrderingMeta::parse("{").is_err());
        let bad = r#"{"format": 9, "embedding": {"dim": 2}, "cues": {"version": 1, "features": []},
          "pairs": {"features": [], "head": 8, "min_len": 3, "indefinite": [], "definite": [], "stop_words": []}, "levels": {}}"#;
        assert!(OrderingMeta::parse(bad).unwrap_err().contains("format 9"));
    }

    #[test]
    fn a_missing_folder_is_not_installed() {
        let dir = std::env::temp_dir().join("segue-no-such-ordering-dir");
        let err = OrderingModel::load_from(&dir, &dir, &ModelOptions::default()).unwrap_err();
        assert!(matches!(err, OrderingError::NotInstalled { .. }), "{err}");
        assert!(err.to_string().contains("models/ordering"));
    }
}
