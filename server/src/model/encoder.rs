//! The sentence encoder: tokenizer + ONNX session + cache.
//!
//! [`Encoder::embed`] looks every sentence up in the [`EmbeddingCache`]; the misses are tokenized
//! (truncated to the model's `max_tokens`), sorted by token length, cut into batches of at most
//! `batch_size` sentences and `batch_tokens` padded tokens, padded to the longest sentence of
//! their batch, and run. The graph does mean
//! pooling and L2 normalisation itself, so its output rows are the embeddings.

use super::batch::{batches, load_tokenizer, PaddedBatch};
use super::cache::{normalise, EmbeddingCache, Vector};
use super::files::{locate_models_dir, require_files, weights_path, ModelSpec, ModelsDir};
use super::runtime::{LibrarySource, Provider, Runtime};
use super::{ModelError, ModelOptions};
use ort::session::Session;
use ort::value::Tensor;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokenizers::Tokenizer;

/// What was loaded, from where, running how: for `segue doctor` and the log line.
#[derive(Debug, Clone)]
pub struct EncoderInfo {
    /// The model.
    pub spec: ModelSpec,
    /// The models folder and how it was found.
    pub models_dir: ModelsDir,
    /// The ONNX file (the int8 copy where [`super::Precision`] chose it).
    pub model_path: PathBuf,
    /// The tokenizer file.
    pub tokenizer_path: PathBuf,
    /// The ONNX Runtime library.
    pub library: PathBuf,
    /// How the library was found.
    pub library_source: LibrarySource,
    /// ONNX Runtime's version, when known.
    pub ort_version: Option<String>,
    /// The execution provider the session runs on.
    pub provider: Provider,
    /// Why the preferred provider was not used, if it was not.
    pub provider_note: Option<String>,
    /// Intra-op threads.
    pub threads: usize,
    /// Sentences per batch, at most.
    pub batch_size: usize,
    /// Padded tokens per batch of more than one sentence, at most.
    pub batch_tokens: usize,
    /// Time to load the library, tokenizer and session.
    pub load_time: Duration,
}

impl EncoderInfo {
    /// One line for logs: model, provider, library and how it was found.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} on {} ({}, {} thread{}); ONNX Runtime {} from {} (found via {})",
            self.spec.name,
            self.provider,
            self.provider.ort_name(),
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            self.ort_version.as_deref().unwrap_or("?"),
            self.library.display(),
            self.library_source
        );
        if let Some(note) = &self.provider_note {
            s.push_str("; ");
            s.push_str(note);
        }
        s
    }
}

/// Counters of the encoder's own work (beyond the cache's).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct EncoderStats {
    /// Sentences run through the model.
    pub encoded: u64,
    /// Inference batches run.
    pub batches: u64,
    /// Time spent tokenizing and running, in seconds.
    pub seconds: f64,
}

/// Sentences every encoder of this process has run through its model, counted batch by batch
/// (a progress display reads it while a long check runs).
static SENTENCES_ENCODED: AtomicU64 = AtomicU64::new(0);

/// Sentences run through the model so far by every encoder of this process (cache hits are not
/// counted); it grows by each batch as soon as the batch has run.
pub fn sentences_encoded() -> u64 {
    SENTENCES_ENCODED.load(Ordering::Relaxed)
}

/// A loaded sentence encoder. Shareable across threads; inference is serialised (ONNX Runtime
/// parallelises inside each run).
pub struct Encoder {
    spec: ModelSpec,
    tokenizer: Tokenizer,
    session: Mutex<Session>,
    cache: EmbeddingCache,
    info: EncoderInfo,
    encoded: AtomicU64,
    batches: AtomicU64,
    nanos: AtomicU64,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Encoder {
    /// Loads `spec` from the models folder with ONNX Runtime, as `options` say.
    pub fn load(spec: &ModelSpec, options: &ModelOptions) -> Result<Encoder, ModelError> {
        let start = Instant::now();
        let models_dir = locate_models_dir(options)?;
        let fp32_path = spec.model_path(&models_dir.path);
        let tokenizer_path = spec.tokenizer_path(&models_dir.path);
        require_files(spec.name, &[&fp32_path, &tokenizer_path])?;
        let tokenizer = load_tokenizer(&tokenizer_path, spec.max_tokens)?;
        let runtime = Runtime::get(options, Some(&models_dir.path))?;
        let model_path = weights_path(&fp32_path, options.precision, runtime.cpu_only(options));
        let choice = runtime.session(&model_path, options, Some(&models_dir.path))?;
        check_signature(spec, &choice.session).map_err(|message| ModelError::Model {
            path: model_path.clone(),
            message,
        })?;
        let info = EncoderInfo {
            spec: *spec,
            models_dir,
            model_path,
            tokenizer_path,
            library: runtime.path.clone(),
            library_source: runtime.source,
            ort_version: runtime.version.clone(),
            provider: choice.provider,
            provider_note: choice.note,
            threads: choice.threads,
            batch_size: options.batch_size.max(1),
            batch_tokens: options.batch_tokens.max(1),
            load_time: start.elapsed(),
        };
        Ok(Encoder {
            spec: *spec,
            tokenizer,
            session: Mutex::new(choice.session),
            cache: EmbeddingCache::new(spec.id, options.cache_capacity),
            info,
            encoded: AtomicU64::new(0),
            batches: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
        })
    }

    /// What was loaded and how it runs.
    pub fn info(&self) -> &EncoderInfo {
        &self.info
    }

    /// The embedding cache.
    pub fn cache(&self) -> &EmbeddingCache {
        &self.cache
    }

    /// The encoder's counters.
    pub fn stats(&self) -> EncoderStats {
        EncoderStats {
            encoded: self.encoded.load(Ordering::Relaxed),
            batches: self.batches.load(Ordering::Relaxed),
            seconds: self.nanos.load(Ordering::Relaxed) as f64 / 1e9,
        }
    }

    /// Embedding dimension.
    pub fn dim(&self) -> usize {
        self.spec.dim
    }

    /// The unit-length embedding of each text, in order, from the cache where possible.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vector>, ModelError> {
        let mut out: Vec<Option<Vector>> = Vec::with_capacity(texts.len());
        let mut pending: Vec<String> = Vec::new();
        let mut waiting: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, text) in texts.iter().enumerate() {
            let key = normalise(text);
            if let Some(slots) = waiting.get_mut(&key) {
                slots.push(i);
                out.push(None);
                continue;
            }
            match self.cache.get(&key) {
                Some(v) => out.push(Some(v)),
                None => {
                    out.push(None);
                    waiting.insert(key.clone(), vec![i]);
                    pending.push(key);
                }
            }
        }
        if !pending.is_empty() {
            let vectors = self.encode(&pending, self.info.batch_size)?;
            for (key, v) in pending.iter().zip(vectors) {
                self.cache.insert(key, v.clone());
                for &i in waiting.get(key).into_iter().flatten() {
                    out[i] = Some(v.clone());
                }
            }
        }
        out.into_iter()
            .map(|v| {
                v.ok_or_else(|| ModelError::Inference {
                    model: self.spec.name.to_string(),
                    message: "an embedding is missing".into(),
                })
            })
            .collect()
    }

    /// Embeds `texts` with the model, bypassing the cache: sorted by token length and run in
    /// batches of at most `batch_size` sentences and the options' `batch_tokens` padded tokens.
    /// Results are in input order.
    pub fn encode<S: AsRef<str>>(
        &self,
        texts: &[S],
        batch_size: usize,
    ) -> Result<Vec<Vector>, ModelError> {
        let start = Instant::now();
        let fail = |message: String| ModelError::Inference {
            model: self.spec.name.to_string(),
            message,
        };
        let inputs: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
        let encodings = self
            .tokenizer
            .encode_batch(inputs, true)
            .map_err(|e| fail(e.to_string()))?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let lengths: Vec<usize> = order
            .iter()
            .map(|&i| encodings[i].get_ids().len())
            .collect();
        let mut out: Vec<Option<Vector>> = vec![None; encodings.len()];
        let dim = self.spec.dim;
        for range in batches(&lengths, batch_size, self.info.batch_tokens) {
            let batch = &order[range];
            super::cancel::check()?;
            let padded = PaddedBatch::new(&encodings, batch);
            let shape = padded.shape();
            let ids = Tensor::from_array((shape, padded.ids)).map_err(|e| fail(e.to_string()))?;
            let mask = Tensor::from_array((shape, padded.mask)).map_err(|e| fail(e.to_string()))?;
            let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
            let outputs = session
                .run(ort::inputs![self.spec.input_ids => ids, self.spec.attention_mask => mask])
                .map_err(|e| fail(e.to_string()))?;
            let value = outputs
                .get(self.spec.output)
                .ok_or_else(|| fail(format!("the model has no output `{}`", self.spec.output)))?;
            let (out_shape, data) = value
                .try_extract_tensor::<f32>()
                .map_err(|e| fail(e.to_string()))?;
            if out_shape.len() != 2
                || out_shape[0] as usize != batch.len()
                || out_shape[1] as usize != dim
            {
                return Err(fail(format!(
                    "unexpected output shape {out_shape:?}; expected [{}, {dim}]",
                    batch.len()
                )));
            }
            for (row, &i) in batch.iter().enumerate() {
                out[i] = Some(Arc::from(&data[row * dim..(row + 1) * dim]));
            }
            self.batches.fetch_add(1, Ordering::Relaxed);
            SENTENCES_ENCODED.fetch_add(batch.len() as u64, Ordering::Relaxed);
        }
        self.encoded
            .fetch_add(texts.len() as u64, Ordering::Relaxed);
        self.nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        out.into_iter()
            .map(|v| v.ok_or_else(|| fail("an embedding is missing".into())))
            .collect()
    }

    /// Token ids of `text` as the model sees it (with `[CLS]`/`[SEP]`, truncated).
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        self.tokenizer
            .encode(text, true)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| ModelError::Inference {
                model: self.spec.name.to_string(),
                message: e.to_string(),
            })
    }
}

fn check_signature(spec: &ModelSpec, session: &Session) -> Result<(), String> {
    let inputs: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
    let outputs: Vec<&str> = session.outputs().iter().map(|o| o.name()).collect();
    let ok = inputs.contains(&spec.input_ids)
        && inputs.contains(&spec.attention_mask)
        && inputs.len() == 2
        && outputs.contains(&spec.output);
    if ok {
        Ok(())
    } else {
        Err(format!(
            "not the expected {} export (inputs {inputs:?}, outputs {outputs:?}; expected inputs [{}, {}] and output {})",
            spec.name, spec.input_ids, spec.attention_mask, spec.output
        ))
    }
}
