//! The paragraph reader: all-MiniLM-L6-v2 fine-tuned to read all the sentences of a paragraph at
//! once, `[CLS] s1 [SEP] s2 [SEP] … sn [SEP]` (token types alternating 0/1 by sentence), and give
//! for every ordered pair the logit that sentence i comes before sentence j (`precedence`,
//! antisymmetric) and the logit that j directly follows i (`successor`), plus a position score per
//! sentence (`position`, higher means earlier).
//!
//! `models/install` exports it to `onnx/reader/model.onnx` from the encoder's wheel and the
//! committed adapter `models/ordering/reader.safetensors` (see `models/export/export_reader.py` and
//! `models/train/ordering/reader/`). One pass gives the logits of every ordered pair of a set
//! ([`SetLogits`]). A sentence keeps at most [`PER_SENTENCE`] tokens (the training
//! length), fewer when the paragraph would not fit the encoder's 512 positions otherwise. Results
//! are cached per paragraph (bounded, keyed by the normalised texts in order).

use super::batch::load_tokenizer;
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
pub const ID: &str = "segue-paragraph-reader";
/// Folder of the export under the models folder.
pub const DIR: &str = "onnx/reader";
/// The ONNX file in [`DIR`].
pub const MODEL_FILE: &str = "model.onnx";
/// Most tokens of one sentence (the training length).
pub const PER_SENTENCE: usize = 40;
/// Positions of the encoder.
const MAX_POSITIONS: usize = 512;
/// Paragraphs' outputs kept in the cache.
const CACHE_CAPACITY: usize = 20_000;
/// Token ids of `[CLS]` and `[SEP]` in the MiniLM vocabulary, checked against the tokenizer.
const SPECIAL: [&str; 2] = ["[CLS]", "[SEP]"];

/// The model's inputs for one paragraph, as the trainer builds them.
#[derive(Debug, Clone, PartialEq)]
pub struct ReaderInput {
    /// Token ids: `[CLS]`, then each sentence's tokens followed by `[SEP]`.
    pub ids: Vec<i64>,
    /// Token types: 0 for `[CLS]`, then `k mod 2` for sentence `k` and its `[SEP]`.
    pub types: Vec<i64>,
    /// Row-major `[sentences, tokens]`: row `k` averages sentence `k`'s tokens (its `[SEP]` when
    /// it has none).
    pub pooling: Vec<f32>,
}

/// Builds the inputs from each sentence's token ids (without special tokens): every sentence is
/// cut to `per_sentence` tokens, or fewer so that the whole paragraph fits [`MAX_POSITIONS`].
pub fn reader_input(
    sentences: &[Vec<u32>],
    cls: u32,
    sep: u32,
    per_sentence: usize,
) -> ReaderInput {
    let n = sentences.len().max(1);
    let fit = (MAX_POSITIONS.saturating_sub(1 + n) / n).max(1);
    let limit = per_sentence.min(fit);
    let (mut ids, mut types, mut spans) = (vec![i64::from(cls)], vec![0i64], Vec::new());
    for (k, s) in sentences.iter().enumerate() {
        let t = &s[..s.len().min(limit)];
        spans.push((ids.len(), ids.len() + t.len()));
        ids.extend(t.iter().map(|&id| i64::from(id)));
        ids.push(i64::from(sep));
        types.extend(std::iter::repeat_n((k % 2) as i64, t.len() + 1));
    }
    let width = ids.len();
    let mut pooling = vec![0.0f32; sentences.len() * width];
    for (k, &(lo, hi)) in spans.iter().enumerate() {
        let len = (hi - lo).max(1);
        for cell in &mut pooling[k * width + lo..k * width + lo + len] {
            *cell = 1.0 / len as f32;
        }
    }
    ReaderInput {
        ids,
        types,
        pooling,
    }
}

/// What a model that reads a whole set of units through MiniLM's tokenizer needs (the paragraph
/// reader, the flow judge): the tokenizer without truncation, its `[CLS]` and `[SEP]` ids, and a
/// session of the ONNX file whose inputs and outputs are checked.
pub(crate) struct SetModelParts {
    pub(crate) tokenizer: Tokenizer,
    pub(crate) special: [u32; 2],
    pub(crate) session: ModelSession,
}

/// Loads the ONNX file at `path` (the `what`, for messages) with the tokenizer of the models
/// folder `models_dir`; the session must have exactly `inputs` and `outputs` (sorted by name).
pub(crate) fn load_set_model(
    what: &str,
    path: &Path,
    models_dir: &Path,
    options: &ModelOptions,
    inputs: &[&str],
    outputs: &[&str],
) -> Result<SetModelParts, ModelError> {
    let tokenizer_path = MINILM.tokenizer_path(models_dir);
    require_files(what, &[path, &tokenizer_path])?;
    let mut tokenizer = load_tokenizer(&tokenizer_path, MAX_POSITIONS)?;
    tokenizer
        .with_truncation(None)
        .map_err(|e| ModelError::Tokenizer {
            path: tokenizer_path.clone(),
            message: e.to_string(),
        })?;
    let special = SPECIAL.map(|t| tokenizer.token_to_id(t));
    let [Some(cls), Some(sep)] = special else {
        return Err(ModelError::Tokenizer {
            path: tokenizer_path,
            message: "no [CLS] or [SEP] token".into(),
        });
    };
    let runtime = Runtime::get(options, Some(models_dir))?;
    let choice = runtime.session(path, options, Some(models_dir))?;
    let (found_inputs, found_outputs) = signature(&choice.session);
    if found_inputs != inputs || found_outputs != outputs {
        return Err(ModelError::Model {
            path: path.to_path_buf(),
            message: format!(
                "not the {what} (inputs {found_inputs:?}, outputs {found_outputs:?}; expected {inputs:?} and {outputs:?})"
            ),
        });
    }
    Ok(SetModelParts {
        tokenizer,
        special: [cls, sep],
        session: ModelSession::new(choice, path),
    })
}

/// The paragraph reader's logits for every ordered pair of a set of `n` sentences, row-major
/// `[n, n]` with a zero diagonal.
#[derive(Debug, Clone, PartialEq)]
pub struct SetLogits {
    /// `x[i·n + j]`: logit of "sentence i comes before sentence j".
    pub precedence: Vec<f32>,
    /// `y[i·n + j]`: logit of "sentence j directly follows sentence i", when the export has it.
    pub next: Option<Vec<f32>>,
}

/// A loaded paragraph reader. Shareable across threads; inference is serialised.
pub struct ParagraphReader {
    tokenizer: Tokenizer,
    special: [u32; 2],
    session: ModelSession,
    cache: EmbeddingCache,
}

impl std::fmt::Debug for ParagraphReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParagraphReader")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl ParagraphReader {
    /// Loads the export from the models folder `options` point at.
    pub fn load(options: &ModelOptions) -> Result<ParagraphReader, ModelError> {
        let models_dir = locate_models_dir(options)?;
        let path = models_dir.path.join(DIR).join(MODEL_FILE);
        ParagraphReader::load_from(&path, &models_dir.path, options)
    }

    /// Loads the ONNX file at `path` with the tokenizer of the models folder `models_dir`.
    pub fn load_from(
        path: &Path,
        models_dir: &Path,
        options: &ModelOptions,
    ) -> Result<ParagraphReader, ModelError> {
        let parts = load_set_model(
            "paragraph reader",
            path,
            models_dir,
            options,
            &["attention_mask", "input_ids", "pooling", "token_type_ids"],
            &["position", "precedence", "successor"],
        )?;
        Ok(ParagraphReader {
            tokenizer: parts.tokenizer,
            special: parts.special,
            session: parts.session,
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

    /// Paragraphs run through the model so far (cache misses).
    pub fn paragraphs_run(&self) -> u64 {
        self.session.runs()
    }

    /// The precedence and successor logits of every ordered pair of `sentences` (row-major
    /// `[n, n]`, indexed as given). The set is read in a canonical order, its sentences sorted by
    /// their normalised text, so the logits depend on the set alone, not on the order it comes in
    /// (the model was trained on random orders but is not exactly invariant to them), and any
    /// permutation of a paragraph read before comes from the cache.
    pub fn set_logits(&self, sentences: &[&str]) -> Result<SetLogits, ModelError> {
        let n = sentences.len();
        let keys: Vec<String> = sentences.iter().map(|s| normalise(s)).collect();
        let mut canonical: Vec<usize> = (0..n).collect();
        canonical.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
        let sorted: Vec<&str> = canonical.iter().map(|&i| sentences[i]).collect();
        let sorted_keys: Vec<&str> = canonical.iter().map(|&i| keys[i].as_str()).collect();
        let read = self.read(&sorted, &sorted_keys)?;
        // Sentence i was read in slot slot[i].
        let mut slot = vec![0; n];
        for (k, &i) in canonical.iter().enumerate() {
            slot[i] = k;
        }
        let back = |m: &[f32]| -> Vec<f32> {
            (0..n * n)
                .map(|c| m[slot[c / n] * n + slot[c % n]])
                .collect()
        };
        Ok(SetLogits {
            precedence: back(&read.precedence),
            next: read.next.as_deref().map(back),
        })
    }

    /// The same logits with the sentences read in exactly the given order (one pass; from the
    /// cache when the same sentences were read in the same order before). The trainer's fixture
    /// is checked through this.
    pub fn read_in_order(&self, sentences: &[&str]) -> Result<SetLogits, ModelError> {
        let keys: Vec<String> = sentences.iter().map(|s| normalise(s)).collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        self.read(sentences, &keys)
    }

    /// [`ParagraphReader::read_in_order`] with each sentence's normalised text (the cache key)
    /// already computed.
    fn read(&self, sentences: &[&str], normalised: &[&str]) -> Result<SetLogits, ModelError> {
        let n = sentences.len();
        if n < 2 {
            return Ok(SetLogits {
                precedence: vec![0.0; n * n],
                next: Some(vec![0.0; n * n]),
            });
        }
        let key = normalised
            .iter()
            .map(|s| format!("{}:{s}", s.len()))
            .collect::<String>();
        if let Some(v) = self.cache.get(&key).filter(|v| v.len() == 2 * n * n) {
            return Ok(SetLogits {
                precedence: v[..n * n].to_vec(),
                next: Some(v[n * n..].to_vec()),
            });
        }
        let (precedence, next) = self.run_paragraph(sentences)?;
        let stored: Vec<f32> = precedence.iter().chain(&next).copied().collect();
        self.cache.insert(&key, Arc::from(stored));
        Ok(SetLogits {
            precedence,
            next: Some(next),
        })
    }

    fn run_paragraph(&self, sentences: &[&str]) -> Result<(Vec<f32>, Vec<f32>), ModelError> {
        let fail = |message: String| ModelError::Inference {
            model: "paragraph reader".into(),
            message,
        };
        super::cancel::check()?;
        let n = sentences.len();
        let tokens = sentences
            .iter()
            .map(|s| {
                self.tokenizer
                    .encode(*s, false)
                    .map(|e| e.get_ids().to_vec())
                    .map_err(|e| fail(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let input = reader_input(&tokens, self.special[0], self.special[1], PER_SENTENCE);
        let width = input.ids.len();
        let int =
            |v: Vec<i64>| Tensor::from_array(([1, width], v)).map_err(|e| fail(e.to_string()));
        let (ids, types, mask) = (int(input.ids)?, int(input.types)?, int(vec![1; width])?);
        let pooling =
            Tensor::from_array(([1, n, width], input.pooling)).map_err(|e| fail(e.to_string()))?;
        let mut session = self.session.lock();
        let outputs = session
            .run(ort::inputs![
                "input_ids" => ids,
                "attention_mask" => mask,
                "token_type_ids" => types,
                "pooling" => pooling
            ])
            .map_err(|e| fail(e.to_string()))?;
        let matrix = |name: &str| -> Result<Vec<f32>, ModelError> {
            let mut m = f32_output(&outputs, name, n * n).map_err(fail)?;
            for i in 0..n {
                m[i * n + i] = 0.0;
            }
            Ok(m)
        };
        let out = (matrix("precedence")?, matrix("successor")?);
        self.session.count(1);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_mark_sentences_and_average_their_tokens() {
        let input = reader_input(&[vec![7, 8], vec![], vec![9]], 101, 102, 40);
        assert_eq!(input.ids, vec![101, 7, 8, 102, 102, 9, 102]);
        assert_eq!(input.types, vec![0, 0, 0, 0, 1, 0, 0]);
        let row = |k: usize| &input.pooling[k * 7..(k + 1) * 7];
        assert_eq!(row(0), &[0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]);
        // An empty sentence is read through its [SEP].
        assert_eq!(row(1), &[0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!(row(2), &[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn long_paragraphs_are_cut_to_fit_the_encoder() {
        let sentences = vec![vec![5u32; 100]; 16];
        let input = reader_input(&sentences, 101, 102, 40);
        assert!(input.ids.len() <= MAX_POSITIONS, "{}", input.ids.len());
        assert_eq!(input.ids.len(), 1 + 16 * (30 + 1));
        let short = reader_input(&[vec![5u32; 100], vec![6; 3]], 101, 102, 40);
        assert_eq!(short.ids.len(), 1 + 41 + 4);
    }
}
