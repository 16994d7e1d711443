//! `segue eval`: measuring scorers on JSONL corpora.
//!
//! - [`discrimination`]: original vs degraded copies ([`degrade`]), pairwise accuracy per scorer.
//! - [`ordering`]: shuffled units reordered by a decoder, scored with the order metrics.

pub mod data;
pub mod degrade;
pub mod discrimination;
pub mod ordering;
