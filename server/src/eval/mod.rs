//! `segue eval`: measuring scorers on JSONL corpora.
//!
//! - [`discrimination`]: original vs degraded copies ([`degrade`]), pairwise accuracy per scorer.
//! - [`findings_eval`]: false alarms of the diagnostics rule on originals, and how many inserted
//!   foreign units (intruders) it catches.
//! - [`ordering`]: shuffled units reordered by a decoder, scored with the order metrics.

pub mod data;
pub mod degrade;
pub mod discrimination;
pub mod findings_eval;
pub mod ordering;
