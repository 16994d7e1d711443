//! The flow judge: all-MiniLM-L6-v2 fine-tuned from the paragraph reader ([`super::reader`]) to
//! read a container's units **in the order given**, `[CLS] u1 [SEP] u2 [SEP] … un [SEP]` (token
//! types alternating 0/1 by unit), and give one logit: high when the order reads as an author's,
//! low for a shuffled copy. Where the reader says which order a set belongs in, the flow judge
//! says how well a given order reads, which is the question a reorder must answer before it
//! overrules an author ([`crate::order::reorder`]).
//!
//! `models/install` exports it to `onnx/flow/model.onnx` from the encoder's wheel and the
//! committed adapter `models/ordering/flow.safetensors` (`models/export/export_reader.py`,
//! `models/train/ordering/reader/flow.py`), and quantises it to `onnx/flow/model.int8.onnx`, which
//! CPU sessions load as they do the encoder's ([`super::Precision`]: the same dev AUC in under a
//! third of the size and about three quarters of the time; each token is quantised on its own
//! scale, so an order's logit does not depend on the orders batched with it). The candidate
//! orders of one container are read in one batch. Results are cached per order (bounded, keyed by
//! the normalised texts in order).

use super::cache::{normalise, EmbeddingCache};
use super::files::{locate_models_dir, weights_path};
use super::reader::{load_set_model, reader_input};
use super::runtime::{Provider, Runtime};
use super::session::{f32_output, ModelSession};
use super::{ModelError, ModelOptions};
use ort::value::Tensor;
use std::path::Path;
use std::sync::Arc;
use tokenizers::Tokenizer;

/// Model id, part of cache keys.
pub const ID: &str = "segue-flow-judge";
/// Folder of the export under the models folder.
pub const DIR: &str = "onnx/flow";
/// The ONNX file in [`DIR`].
pub const MODEL_FILE: &str = "model.onnx";
/// Most tokens of one unit (the training length).
pub const PER_UNIT: usize = 40;
/// Orders' logits kept in the cache.
const CACHE_CAPACITY: usize = 20_000;

/// A loaded flow judge. Shareable across threads; inference is serialised.
pub struct FlowJudge {
    tokenizer: Tokenizer,
    special: [u32; 2],
    session: ModelSession,
    cache: EmbeddingCache,
}

impl std::fmt::Debug for FlowJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlowJudge")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl FlowJudge {
    /// Loads the export from the models folder `options` point at: its int8 copy where
    /// `options.precision` allows it, the session runs on the CPU and the copy is installed.
    pub fn load(options: &ModelOptions) -> Result<FlowJudge, ModelError> {
        let models_dir = locate_models_dir(options)?;
        FlowJudge::load_in(&models_dir.path, options)
    }

    /// Loads the export from the models folder `models_dir`: its int8 copy where
    /// `options.precision` allows it, the session runs on the CPU and the copy is installed.
    pub fn load_in(models_dir: &Path, options: &ModelOptions) -> Result<FlowJudge, ModelError> {
        let fp32 = models_dir.join(DIR).join(MODEL_FILE);
        let runtime = Runtime::get(options, Some(models_dir))?;
        let path = weights_path(&fp32, options.precision, runtime.cpu_only(options));
        FlowJudge::load_from(&path, models_dir, options)
    }

    /// Loads the ONNX file at `path` with the tokenizer of the models folder `models_dir`.
    pub fn load_from(
        path: &Path,
        models_dir: &Path,
        options: &ModelOptions,
    ) -> Result<FlowJudge, ModelError> {
        let parts = load_set_model(
            "flow judge",
            path,
            models_dir,
            options,
            &["attention_mask", "input_ids", "token_type_ids"],
            &["flow"],
        )?;
        Ok(FlowJudge {
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

    /// Orders read through the model so far (cache misses).
    pub fn orders_run(&self) -> u64 {
        self.session.runs()
    }

    /// The flow logit of `units` read in each of `orders` (each a permutation of the indices of
    /// `units`): one batch for the orders not in the cache.
    pub fn scores(&self, units: &[&str], orders: &[Vec<usize>]) -> Result<Vec<f32>, ModelError> {
        let keys: Vec<String> = units
            .iter()
            .map(|u| {
                let k = normalise(u);
                format!("{}:{k}", k.len())
            })
            .collect();
        let key_of = |order: &[usize]| -> String {
            order
                .iter()
                .filter_map(|&i| keys.get(i).map(String::as_str))
                .collect()
        };
        let mut out: Vec<Option<f32>> = orders
            .iter()
            .map(|o| self.cache.get(&key_of(o)).and_then(|v| v.first().copied()))
            .collect();
        let missing: Vec<usize> = (0..orders.len()).filter(|&k| out[k].is_none()).collect();
        if !missing.is_empty() {
            let todo: Vec<&[usize]> = missing.iter().map(|&k| orders[k].as_slice()).collect();
            let logits = self.run(units, &todo)?;
            for (&k, v) in missing.iter().zip(logits) {
                self.cache.insert(&key_of(&orders[k]), Arc::from(vec![v]));
                out[k] = Some(v);
            }
        }
        Ok(out.into_iter().map(|v| v.unwrap_or(0.0)).collect())
    }

    fn run(&self, units: &[&str], orders: &[&[usize]]) -> Result<Vec<f32>, ModelError> {
        let fail = |message: String| ModelError::Inference {
            model: "flow judge".into(),
            message,
        };
        super::cancel::check()?;
        let tokens = units
            .iter()
            .map(|s| {
                self.tokenizer
                    .encode(*s, false)
                    .map(|e| e.get_ids().to_vec())
                    .map_err(|e| fail(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let inputs: Vec<_> = orders
            .iter()
            .map(|order| {
                let read: Vec<Vec<u32>> = order
                    .iter()
                    .filter_map(|&i| tokens.get(i).cloned())
                    .collect();
                reader_input(&read, self.special[0], self.special[1], PER_UNIT)
            })
            .collect();
        let rows = inputs.len();
        let width = inputs.iter().map(|i| i.ids.len()).max().unwrap_or(1);
        let (mut ids, mut types, mut mask) = (
            vec![0i64; rows * width],
            vec![0i64; rows * width],
            vec![0i64; rows * width],
        );
        for (r, input) in inputs.iter().enumerate() {
            let at = r * width;
            ids[at..at + input.ids.len()].copy_from_slice(&input.ids);
            types[at..at + input.types.len()].copy_from_slice(&input.types);
            mask[at..at + input.ids.len()].fill(1);
        }
        let int =
            |v: Vec<i64>| Tensor::from_array(([rows, width], v)).map_err(|e| fail(e.to_string()));
        let (ids, types, mask) = (int(ids)?, int(types)?, int(mask)?);
        let mut session = self.session.lock();
        let outputs = session
            .run(ort::inputs![
                "input_ids" => ids,
                "attention_mask" => mask,
                "token_type_ids" => types
            ])
            .map_err(|e| fail(e.to_string()))?;
        let out = f32_output(&outputs, "flow", rows).map_err(fail)?;
        self.session.count(rows as u64);
        Ok(out)
    }
}
