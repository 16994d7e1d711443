//! Static word vectors: the built-in tier's stand-in for the sentence encoder. Each WordPiece
//! token of the encoder's vocabulary has one vector, the encoder's embedding of the token alone,
//! centred and weighted by how rare the token is in edited prose (smooth inverse frequency); a
//! sentence's vector is the sum of its tokens' vectors, a paragraph's the sum of its sentences'.
//! No model runs: the table and the encoder's vocabulary are compiled in
//! (`models/tier0/static-vectors.bin`, built by `models/train/static_vectors.py`, and
//! `models/tier0/vocab.txt`; `models/tier0/README.md`), and [`super::wordpiece`] tokenizes as the
//! encoder does.
//!
//! The `tier0` scorer gives these vectors to its intrusion model ([`super::intrusion::Model::Static`]):
//! whether a unit's meaning is foreign to the text around it, which word overlap alone cannot
//! tell.

use super::wordpiece::{VocabularyError, WordPiece};
use super::Unit;
use crate::text::memo::Memo;
use std::sync::{Arc, OnceLock};
use thiserror::Error;

/// The table: `SEGUESV4`, the vocabulary size and the dimension (u32, little-endian), one f32
/// scale per token, then each token's row as 4-bit integers in [-7, 7], two per byte (the even
/// dimension in the low nibble).
const TABLE: &[u8] = include_bytes!("../../models/tier0/static-vectors.bin");

/// The encoder's WordPiece vocabulary, one token per line in id order (all-MiniLM-L6-v2's, which
/// is BERT's uncased one).
const VOCABULARY: &[u8] = include_bytes!("../../models/tier0/vocab.txt");

const MAGIC: &[u8; 8] = b"SEGUESV4";
const HEADER: usize = 16;

/// Sentences whose vectors are kept (per generation of the memo: at most twice this many, about
/// 0.8 KB each), as for the other scorers' memos: the sentences of a 300,000-word document, whose
/// unchanged sentences an edit then finds again. A stream of unrelated documents
/// (`segue score --jsonl`) caps it lower.
const MEMO_SENTENCES: usize = 16_384;

/// A sentence's vector as the memo keeps it: 16-bit integers with one scale, half the size of
/// `f32`s and within 1/65,534 of the vector's largest value.
struct Packed {
    scale: f32,
    values: Box<[i16]>,
}

impl Packed {
    fn new(v: &[f32]) -> Packed {
        let largest = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if largest > 0.0 {
            largest / f32::from(i16::MAX)
        } else {
            1.0
        };
        let values = v
            .iter()
            .map(|x| (x / scale).round().clamp(-32767.0, 32767.0) as i16)
            .collect();
        Packed { scale, values }
    }

    /// Adds the vector to `sum`.
    fn add_to(&self, sum: &mut [f32]) {
        for (s, &x) in sum.iter_mut().zip(self.values.iter()) {
            *s += self.scale * f32::from(x);
        }
    }
}

/// Why the compiled-in table or tokenizer cannot be used (a build-time mistake the tests catch).
#[derive(Debug, Error)]
pub enum StaticVectorsError {
    /// The table's header or length is wrong.
    #[error("the static-vector table is malformed: {0}")]
    Table(&'static str),
    /// The tokenizer does not load or does not match the table.
    #[error("the static-vector tokenizer is unusable: {0}")]
    Tokenizer(#[from] VocabularyError),
    /// The vocabulary has a different number of tokens from the table.
    #[error("the static-vector vocabulary has {vocabulary} tokens and the table {table} rows")]
    Mismatch {
        /// Tokens in the vocabulary.
        vocabulary: usize,
        /// Rows in the table.
        table: usize,
    },
}

/// The table of token vectors with its tokenizer.
pub struct StaticVectors {
    tokenizer: WordPiece,
    dim: usize,
    scales: Vec<f32>,
    packed: &'static [u8],
    sentences: Memo<Arc<Packed>>,
}

impl std::fmt::Debug for StaticVectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticVectors")
            .field("tokens", &self.scales.len())
            .field("dim", &self.dim)
            .finish()
    }
}

impl StaticVectors {
    /// The compiled-in table, loaded on first use; `None` if it does not load.
    pub fn shipped() -> Option<&'static StaticVectors> {
        static SHIPPED: OnceLock<Option<StaticVectors>> = OnceLock::new();
        SHIPPED
            .get_or_init(|| StaticVectors::parse(TABLE, VOCABULARY).ok())
            .as_ref()
    }

    /// A table from its bytes and the vocabulary (one token per line, in id order).
    pub fn parse(
        table: &'static [u8],
        vocabulary: &'static [u8],
    ) -> Result<Self, StaticVectorsError> {
        let word = |at: usize| -> Result<usize, StaticVectorsError> {
            let bytes: [u8; 4] = table
                .get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .ok_or(StaticVectorsError::Table("short header"))?;
            Ok(u32::from_le_bytes(bytes) as usize)
        };
        if table.get(..MAGIC.len()) != Some(MAGIC.as_slice()) {
            return Err(StaticVectorsError::Table("no SEGUESV4 header"));
        }
        let (tokens, dim) = (word(8)?, word(12)?);
        if dim == 0 || dim % 2 != 0 {
            return Err(StaticVectorsError::Table("odd dimension"));
        }
        let rows_at = HEADER + 4 * tokens;
        if table.len() != rows_at + tokens * dim / 2 {
            return Err(StaticVectorsError::Table(
                "length does not match the header",
            ));
        }
        let scales: Vec<f32> = table[HEADER..rows_at]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if !scales.iter().all(|s| s.is_finite()) {
            return Err(StaticVectorsError::Table("a scale is not finite"));
        }
        // The table has a row for every token the tokenizer can give, the special tokens among
        // them (zero rows).
        let tokenizer = WordPiece::new(vocabulary)?;
        if tokenizer.len() != tokens {
            return Err(StaticVectorsError::Mismatch {
                vocabulary: tokenizer.len(),
                table: tokens,
            });
        }
        Ok(StaticVectors {
            tokenizer,
            dim,
            scales,
            packed: &table[rows_at..],
            sentences: Memo::new(MEMO_SENTENCES),
        })
    }

    /// The vectors' dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The vector of one sentence: the sum of its tokens' rows (zero for a sentence without
    /// tokens).
    pub fn sentence(&self, text: &str) -> Vec<f32> {
        let mut sum = vec![0.0f32; self.dim];
        self.packed_sentence(text).add_to(&mut sum);
        sum
    }

    /// The vector of a unit: the sum of its sentences' vectors.
    pub fn unit(&self, unit: &Unit<'_>) -> Vec<f32> {
        let mut sum = vec![0.0f32; self.dim];
        for sentence in unit {
            self.packed_sentence(sentence).add_to(&mut sum);
        }
        sum
    }

    /// A sentence's vector from the memo, computed on a miss.
    fn packed_sentence(&self, text: &str) -> Arc<Packed> {
        self.sentences.get_or(text, |text| {
            let mut sum = vec![0.0f32; self.dim];
            self.tokenizer
                .each_id(text, |id| self.add_row(id as usize, &mut sum));
            Arc::new(Packed::new(&sum))
        })
    }

    /// Adds token `id`'s row to `sum` (nothing for an id outside the table).
    fn add_row(&self, id: usize, sum: &mut [f32]) {
        let Some(&scale) = self.scales.get(id) else {
            return;
        };
        let half = self.dim / 2;
        let Some(row) = self.packed.get(id * half..(id + 1) * half) else {
            return;
        };
        for (pair, &byte) in sum.chunks_exact_mut(2).zip(row) {
            pair[0] += scale * f32::from(nibble(byte & 0x0F));
            pair[1] += scale * f32::from(nibble(byte >> 4));
        }
    }
}

/// A 4-bit two's-complement value.
fn nibble(n: u8) -> i8 {
    if n > 7 {
        n as i8 - 16
    } else {
        n as i8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        dot / (norm(a) * norm(b))
    }

    #[test]
    fn the_shipped_table_loads_and_matches_its_tokenizer() {
        let table = StaticVectors::shipped().expect("the compiled-in table loads");
        assert_eq!(table.dim(), 384);
        assert_eq!(table.scales.len(), 30_522);
    }

    /// The trainer's vectors (`static_vectors.py`'s `load_table`, the same tokenizer) for the
    /// same sentences, first dimensions: what the intrusion model was trained on.
    #[test]
    fn vectors_match_the_trainers() {
        let t = StaticVectors::shipped().expect("table");
        let cases: [(&str, [f32; 6]); 2] = [
            (
                "The river flooded the valley after a week of rain.",
                [0.0375, -0.01387, 0.14435, 0.07782, 0.12618, 0.00334],
            ),
            (
                "Café owners’ naïve résumés — übersetzt!",
                [-0.17753, -0.06979, 0.0838, -0.08685, 0.37282, 0.11275],
            ),
        ];
        for (text, want) in cases {
            let got = t.sentence(text);
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-4, "{text}: {g} against {w}");
            }
        }
    }

    /// The ids of the encoder's own tokenizer (`tokenizer.json`, read by the trainer) for text
    /// with a special token, CJK, odd spaces, superscripts, accents and an over-long word.
    #[test]
    fn the_tokenizer_matches_the_encoders() {
        let t = StaticVectors::shipped().expect("table");
        let text = format!(
            "See [CLS] and 東京 — a\u{a0}non-breaking\tspace, x²+y², naïve\u{200b}zero-width; {}",
            "a".repeat(120)
        );
        assert_eq!(
            t.tokenizer.ids(&text),
            [
                2156, 101, 1998, 1879, 1755, 1517, 1037, 2512, 1011, 4911, 2686, 1010, 1060, 10701,
                1009, 1061, 10701, 1010, 15743, 6290, 2080, 1011, 9381, 1025, 100
            ]
        );
    }

    #[test]
    fn packed_vectors_keep_every_value_within_a_step() {
        let v: Vec<f32> = (0..384).map(|k| ((k as f32) * 0.37).sin() * 0.8).collect();
        let packed = Packed::new(&v);
        let mut back = vec![0.0f32; v.len()];
        packed.add_to(&mut back);
        let step = 0.8 / f32::from(i16::MAX);
        assert!(v.iter().zip(&back).all(|(a, b)| (a - b).abs() <= step));
        let mut zero = vec![0.0f32; 3];
        Packed::new(&[0.0; 3]).add_to(&mut zero);
        assert_eq!(zero, [0.0; 3]);
    }

    #[test]
    fn nibbles_are_signed() {
        assert_eq!(nibble(0), 0);
        assert_eq!(nibble(7), 7);
        assert_eq!(nibble(9), -7);
        assert_eq!(nibble(15), -1);
    }

    #[test]
    fn related_sentences_point_closer_than_unrelated_ones() {
        let t = StaticVectors::shipped().expect("table");
        let a = t.sentence("The river flooded the valley after a week of rain.");
        let b = t.sentence("Heavy storms swelled the stream until it burst its banks.");
        let c = t.sentence("Compile the crate with the release profile enabled.");
        assert!(cosine(&a, &b) > cosine(&a, &c) + 0.1);
    }

    #[test]
    fn a_unit_is_the_sum_of_its_sentences() {
        let t = StaticVectors::shipped().expect("table");
        let unit = t.unit(&vec!["Rain fell.", "The river rose."]);
        let (a, b) = (t.sentence("Rain fell."), t.sentence("The river rose."));
        for k in 0..t.dim() {
            assert!((unit[k] - (a[k] + b[k])).abs() < 1e-5);
        }
        assert!(t.sentence("").iter().all(|&x| x == 0.0));
    }

    #[test]
    fn a_bad_table_is_an_error() {
        assert!(StaticVectors::parse(b"SEGUESV1", VOCABULARY).is_err());
        assert!(StaticVectors::parse(&TABLE[..TABLE.len() - 1], VOCABULARY).is_err());
        assert!(StaticVectors::parse(TABLE, b"[PAD]\n[UNK]\n").is_err());
        // As many tokens as the table has rows, but a special token missing.
        let renamed = String::from_utf8_lossy(VOCABULARY).replace("[MASK]", "[MASX]");
        let renamed: &'static [u8] = Box::leak(renamed.into_bytes().into_boxed_slice());
        assert!(StaticVectors::parse(TABLE, renamed).is_err());
    }
}
