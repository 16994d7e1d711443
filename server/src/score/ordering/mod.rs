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
//! and the whole objective is a sum over adjacent pairs. Any decoder of `order::decode` then
//! finds the model's best order from the table alone, and so do `segue eval --task ordering` and
//! `segue reorder`. Transitions are mapped to [0, 1] by one affine map per table (its minimum and
//! maximum), which changes every order's total by the same affine map and so never its ranking.
//! (On dev data, counting precedence over all pairs of an order instead of adjacent ones plus the
//! Borda potential did no better; see docs/ordering.md.)
//!
//! A missing or corrupt model is an [`OrderingError`]; callers leave the `ordering` scorer out and
//! warn. Nothing here panics on bad files.
//!
//! The module's jobs, one file each: [`meta`] is the metadata schema (`ordering.json`), [`cues`]
//! the cue features (the Python trainer computes the same), [`heads`] loads and runs the ONNX
//! heads and the paragraph reader (through [`crate::model`]), [`memo`] keeps the heads' outputs
//! for the sets scored last for the other scorers over the same model, and [`objective`] turns
//! their outputs into the objective and its transition table.

pub mod cues;
pub mod heads;
pub mod memo;
pub mod meta;
pub mod objective;
#[cfg(test)]
mod tests;

pub use cues::*;
pub use heads::*;
pub use meta::*;
pub use objective::*;

use crate::model::ModelError;
use std::path::PathBuf;

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
