//! Segue checks the coherence of prose: whether each sentence and paragraph follows from the one
//! before, and whether a better order exists.
//!
//! Data flows one way: [`text`] (segmentation, positions) → [`score`] (scorers, findings) →
//! [`order`] (decoding, metrics) → front ends ([`cli`]); [`eval`] measures scorers on corpora and
//! [`config`] holds settings. See ARCHITECTURE.md.

pub mod cli;
pub mod config;
pub mod eval;
#[cfg(test)]
mod fuzzing;
pub mod input;
pub mod lsp;
pub mod model;
pub mod order;
pub mod score;
pub mod text;
