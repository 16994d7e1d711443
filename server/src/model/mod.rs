//! Tier 1: ONNX models behind scorers.
//!
//! A sentence [`Encoder`] turns sentences into unit-length vectors with a small ONNX model
//! (all-MiniLM-L6-v2, see `models/README.md`), run by ONNX Runtime. The runtime is a shared library
//! loaded when the first model is (`ort` with `load-dynamic`), so a build without the models still
//! runs: tier 0 scorers need nothing from here.
//!
//! - [`runtime`] finds and loads `libonnxruntime` (a setting, `SEGUE_ORT_DYLIB`, `ORT_DYLIB_PATH` or
//!   the models folder, in that order) and picks the execution provider (CUDA or CPU).
//! - [`files`] knows the layout of the models folder and the committed manifest of sha256 sums.
//! - [`bundle`] is the models folder's committed files (install script, manifest, export scripts,
//!   heads), compiled in so that an installed binary can lay out a models folder of its own.
//! - [`cache`] is the bounded embedding cache, keyed by model and normalised sentence text.
//! - [`encoder`] tokenizes, batches by length, runs the session and fills the cache.
//! - [`graph`] runs the small float32 heads (ordering, BBScore): every other model's ONNX Runtime
//!   calls go through it.
//! - `session` (private) is what the models built on one ONNX session share: a locked session,
//!   its file and device, a run counter, signature and output checks.
//! - [`reader`] is the paragraph reader (a fine-tuned MiniLM reading all the sentences of a
//!   paragraph at once), which gives the ordering model the logits of every pair of a set in one
//!   pass.
//!
//! Loading is IO and may fail: every failure is a [`ModelError`] whose message names the fix
//! (usually `models/install`); callers fall back to tier 0. Nothing here panics on missing or corrupt
//! files, and nothing is ever fetched from the network. [`cancel`] stops inference in flight at its
//! next batch: for the whole process about to exit ([`abandon`]), or for one job that a newer edit
//! superseded ([`CancelToken`]).

mod batch;
pub mod bundle;
pub mod cache;
pub mod cancel;
pub mod encoder;
pub mod files;
pub mod flow;
pub mod graph;
pub mod reader;
pub mod runtime;
mod session;

pub use cache::{CacheStats, EmbeddingCache};
pub use cancel::{abandon, abandoned, CancelToken};
pub use encoder::{Encoder, EncoderInfo};
pub use files::{ModelSpec, Precision, MINILM};
pub use flow::FlowJudge;
pub use graph::{Graph, GraphInput};
pub use reader::{ParagraphReader, SetLogits};
pub use runtime::{LibrarySource, Provider, Runtime};

use crate::config::Device;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What can go wrong while loading or running a model. Every message says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// No models folder with the model's files was found.
    #[error("the {model} model is not installed (looked for {path}); run `models/install` (or `segue models install`), or set SEGUE_MODELS_DIR")]
    NotInstalled {
        /// Model id.
        model: String,
        /// The file that was looked for.
        path: PathBuf,
    },
    /// The ONNX Runtime library could not be found.
    #[error("ONNX Runtime library not found: {0}; run `models/install`, or point SEGUE_ORT_DYLIB at libonnxruntime.so.1.31.x")]
    LibraryMissing(String),
    /// The ONNX Runtime library was found but could not be loaded.
    #[error("cannot load ONNX Runtime from {path} (found via {found_via}): {message}; run `models/install`, or point SEGUE_ORT_DYLIB at a libonnxruntime.so.1.31.x")]
    LibraryLoad {
        /// The library path.
        path: PathBuf,
        /// How the path was found.
        found_via: LibrarySource,
        /// The loader's message.
        message: String,
    },
    /// CUDA was required (`device = "cuda"`) but cannot be used.
    #[error("device \"cuda\" was requested but CUDA cannot be used: {0}; install the GPU runtime with `models/install --gpu`, or set device to \"auto\" or \"cpu\"")]
    Cuda(String),
    /// The tokenizer file is missing or invalid.
    #[error("cannot load the tokenizer {path}: {message}; run `models/install` to restore it")]
    Tokenizer {
        /// The tokenizer file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The ONNX file is missing, corrupt, or not the expected model.
    #[error("cannot load the model {path}: {message}; run `models/install` to restore it")]
    Model {
        /// The model file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Inference failed.
    #[error("the {model} model failed to run: {message}")]
    Inference {
        /// Model id.
        model: String,
        /// What went wrong.
        message: String,
    },
    /// Inference was stopped because the process is exiting ([`abandon`]).
    #[error("model inference was abandoned: the process is exiting")]
    Abandoned,
    /// Inference was stopped because a newer job superseded this one ([`CancelToken`]).
    #[error("model inference was cancelled: a newer edit superseded it")]
    Cancelled,
    /// Reading a file failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
}

/// How and where models run. Settings beat environment variables, which beat defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelOptions {
    /// The models folder; `None` looks in the usual places ([`files::locate_models_dir`]).
    pub models_dir: Option<PathBuf>,
    /// The ONNX Runtime library, from a setting; `None` falls back to `SEGUE_ORT_DYLIB`,
    /// `ORT_DYLIB_PATH`, then the models folder.
    pub ort_dylib: Option<PathBuf>,
    /// Where models run.
    pub device: Device,
    /// Threads ONNX Runtime uses inside one operator; 0 picks [`default_threads`].
    pub intra_threads: usize,
    /// Most sentences per inference batch.
    pub batch_size: usize,
    /// Most tokens per inference batch once padded (rows × longest row), for batches of more
    /// than one sentence: long sentences run in smaller batches, which bounds the memory a run
    /// takes.
    pub batch_tokens: usize,
    /// Most embeddings kept in the cache.
    pub cache_capacity: usize,
    /// Whether ONNX Runtime's worker threads spin while waiting for work. Off by default: spinning
    /// buys a little latency on an idle machine but burns cores that the editor and the rest of
    /// Segue need, and on a busy 2-core machine it is slower (see models/README.md).
    pub spinning: bool,
    /// Which weights the sentence encoder runs with ([`Precision`]).
    pub precision: Precision,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            models_dir: None,
            ort_dylib: None,
            device: Device::Auto,
            intra_threads: 0,
            batch_size: DEFAULT_BATCH_SIZE,
            batch_tokens: DEFAULT_BATCH_TOKENS,
            cache_capacity: cache::DEFAULT_CAPACITY,
            spinning: false,
            precision: Precision::Auto,
        }
    }
}

/// Default sentences per batch: large enough to amortise a run, small enough that padding to the
/// longest sentence of a length-sorted batch wastes little.
pub const DEFAULT_BATCH_SIZE: usize = 32;

/// Default tokens per batch once padded: 32 sentences of up to 64 tokens (most prose sentences)
/// fill a batch; a batch of 256-token sentences holds 8.
pub const DEFAULT_BATCH_TOKENS: usize = 2_048;

impl ModelOptions {
    /// Defaults overridden by the environment: `SEGUE_MODELS_DIR`, `SEGUE_DEVICE` (auto, cpu,
    /// cuda), `SEGUE_THREADS`, `SEGUE_BATCH`, `SEGUE_CACHE`, `SEGUE_SPIN` (1 to let threads spin),
    /// `SEGUE_PRECISION` (`auto`, or `fp32` for the float32 weights), `SEGUE_BATCH_TOKENS`.
    /// Unparsable values are ignored.
    /// (`SEGUE_ORT_DYLIB` and `ORT_DYLIB_PATH` are read when the library is loaded, after the
    /// `ort_dylib` setting; see [`runtime`].)
    pub fn from_env() -> Self {
        let mut o = ModelOptions::default();
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        o.models_dir = var("SEGUE_MODELS_DIR").map(PathBuf::from);
        o.device = match var("SEGUE_DEVICE").as_deref() {
            Some("cpu") => Device::Cpu,
            Some("cuda") => Device::Cuda,
            _ => Device::Auto,
        };
        if let Some(n) = var("SEGUE_THREADS").and_then(|v| v.parse().ok()) {
            o.intra_threads = n;
        }
        if let Some(n) = var("SEGUE_BATCH")
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
        {
            o.batch_size = n;
        }
        if let Some(n) = var("SEGUE_CACHE").and_then(|v| v.parse().ok()) {
            o.cache_capacity = n;
        }
        o.spinning = matches!(var("SEGUE_SPIN").as_deref(), Some("1" | "true" | "yes"));
        if let Some(n) = var("SEGUE_BATCH_TOKENS")
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
        {
            o.batch_tokens = n;
        }
        if let Some(p) = var("SEGUE_PRECISION").and_then(|v| Precision::parse(&v)) {
            o.precision = p;
        }
        o
    }

    /// Applies the `ort_dylib` and `models_dir` settings (they come before the environment).
    pub fn with_paths(mut self, ort_dylib: Option<PathBuf>, models_dir: Option<PathBuf>) -> Self {
        if ort_dylib.is_some() {
            self.ort_dylib = ort_dylib;
        }
        if models_dir.is_some() {
            self.models_dir = models_dir;
        }
        self
    }

    /// Applies the `device` setting unless `SEGUE_DEVICE` overrides it.
    pub fn with_device(mut self, device: Device) -> Self {
        if std::env::var_os("SEGUE_DEVICE").is_none() {
            self.device = device;
        }
        self
    }

    /// Intra-op threads actually used.
    pub fn threads(&self) -> usize {
        if self.intra_threads == 0 {
            default_threads()
        } else {
            self.intra_threads
        }
    }
}

/// Default intra-op threads: the available cores, at most 4 (a small encoder gains little beyond
/// that, and the rest of Segue runs beside it). 2 on a 2-core machine.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
}

static SHARED: Mutex<Vec<(ModelOptions, Arc<Encoder>)>> = Mutex::new(Vec::new());

/// The process-wide encoder for `options`, loaded on first use and reused afterwards, so repeated
/// calls (several scorers, an editor session) share one session and one cache. Failures are not
/// remembered: a later call tries again (e.g. after `models/install`).
pub fn shared_encoder(options: &ModelOptions) -> Result<Arc<Encoder>, ModelError> {
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, enc)) = shared.iter().find(|(o, _)| o == options) {
        return Ok(enc.clone());
    }
    let enc = Arc::new(Encoder::load(&MINILM, options)?);
    shared.push((options.clone(), enc.clone()));
    Ok(enc)
}
