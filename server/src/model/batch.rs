//! Tokenizer set-up, batching and batch padding for the models that read text
//! ([`super::encoder`], [`super::reader`]): inputs are truncated by the tokenizer, sorted by
//! length by the caller, cut into batches by [`batches`], and each batch is padded to its own
//! longest row.

use super::ModelError;
use std::path::Path;
use tokenizers::{Encoding, Tokenizer, TruncationParams};

/// Loads the tokenizer at `path`, truncating inputs to `max_tokens` (a pair longest-first);
/// padding is left to [`PaddedBatch`].
pub(super) fn load_tokenizer(path: &Path, max_tokens: usize) -> Result<Tokenizer, ModelError> {
    let err = |message: String| ModelError::Tokenizer {
        path: path.to_path_buf(),
        message,
    };
    let mut tokenizer = Tokenizer::from_file(path).map_err(|e| err(e.to_string()))?;
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens,
            ..TruncationParams::default()
        }))
        .map_err(|e| err(e.to_string()))?;
    tokenizer.with_padding(None);
    Ok(tokenizer)
}

/// Cuts rows sorted by length (`lengths`, ascending, in tokens) into consecutive batches of at
/// most `max_rows` rows and, where a batch has more than one row, at most `max_tokens` tokens once
/// padded (rows × its longest row). Short sentences fill whole batches; long ones run in smaller
/// batches, which bounds the memory a run takes (attention grows with rows × width²) without
/// adding padding. Every row is in exactly one batch, in order.
pub(super) fn batches(
    lengths: &[usize],
    max_rows: usize,
    max_tokens: usize,
) -> Vec<std::ops::Range<usize>> {
    let max_rows = max_rows.max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while start < lengths.len() {
        let mut end = start + 1;
        while end < lengths.len()
            && end - start < max_rows
            && (end - start + 1) * lengths[end].max(1) <= max_tokens
        {
            end += 1;
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// The rows of one batch padded to the longest: token ids and attention mask, each row-major
/// `[rows, width]`.
pub(super) struct PaddedBatch {
    /// Rows in the batch.
    pub rows: usize,
    /// Tokens per row after padding (at least 1).
    pub width: usize,
    /// Token ids (0 where padded).
    pub ids: Vec<i64>,
    /// 1 for a token, 0 for padding.
    pub mask: Vec<i64>,
}

impl PaddedBatch {
    /// The encodings `rows` of `encodings`, in that order.
    pub(super) fn new(encodings: &[Encoding], rows: &[usize]) -> PaddedBatch {
        let width = rows
            .iter()
            .map(|&i| encodings[i].get_ids().len())
            .max()
            .unwrap_or(0)
            .max(1);
        let size = rows.len() * width;
        let (mut ids, mut mask) = (vec![0; size], vec![0; size]);
        for (row, &i) in rows.iter().enumerate() {
            let enc = &encodings[i];
            let tokens = enc.get_ids().iter().zip(enc.get_attention_mask());
            for (col, (&id, &m)) in tokens.enumerate() {
                ids[row * width + col] = i64::from(id);
                mask[row * width + col] = i64::from(m);
            }
        }
        PaddedBatch {
            rows: rows.len(),
            width,
            ids,
            mask,
        }
    }

    /// The shape of each input, `[rows, width]`.
    pub(super) fn shape(&self) -> [usize; 2] {
        [self.rows, self.width]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_hold_at_most_max_rows_and_max_tokens() {
        let lengths = [3, 4, 4, 5, 10, 10, 10, 40, 100];
        let got = batches(&lengths, 4, 32);
        assert_eq!(got, vec![0..4, 4..7, 7..8, 8..9]);
        for r in &got {
            let width = lengths[r.end - 1];
            assert!(r.len() == 1 || r.len() * width <= 32, "{r:?}");
        }
        assert_eq!(batches(&[5; 10], 4, usize::MAX), vec![0..4, 4..8, 8..10]);
        assert_eq!(batches(&[], 4, 32), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(batches(&[1, 2], 0, 0), vec![0..1, 1..2], "one row at least");
    }

    #[test]
    fn rows_are_padded_to_the_longest_in_the_given_order() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/onnx/minilm/tokenizer.json");
        let Ok(tok) = load_tokenizer(&path, 8) else {
            eprintln!("skipping: the tokenizer is not installed (run models/install)");
            return;
        };
        let encs = tok
            .encode_batch(
                vec![
                    tokenizers::EncodeInput::from((
                        "One.",
                        "Two words here and more words past the limit",
                    )),
                    tokenizers::EncodeInput::from("Short"),
                ],
                true,
            )
            .expect("encodes");
        assert_eq!(encs[0].get_ids().len(), 8, "pairs are truncated");
        let b = PaddedBatch::new(&encs, &[1, 0]);
        assert_eq!(b.shape(), [2, 8]);
        assert_eq!(&b.mask[..8], &[1, 1, 1, 0, 0, 0, 0, 0]);
        assert!(b.mask[8..].iter().all(|&m| m == 1));
        assert_eq!(b.ids[8], 101, "[CLS] first");
    }
}
