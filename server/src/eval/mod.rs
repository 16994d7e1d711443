//! `segue eval`: measuring scorers on JSONL corpora and on folders of real documents.
//!
//! - [`discrimination`]: original vs degraded copies ([`degrade`]), pairwise accuracy per scorer.
//! - [`findings_eval`]: false alarms of the diagnostics rule on originals, and how many inserted
//!   foreign units (intruders) it catches.
//! - [`ordering`]: shuffled units reordered by a decoder, scored with the order metrics.
//! - [`prose`]: findings on published documents in their original formats, per genre, and the
//!   recall of planted foreign units.
//! - [`reorder_eval`]: how often a reorder judge overrules the author on real documents, and how
//!   well it restores shuffled ones; calibrates the reorder margins.
//! - [`train`]: fits the tier-0 weights on the train split (`segue train tier0`).

pub mod data;
pub mod degrade;
pub mod discrimination;
pub mod findings_eval;
pub mod ordering;
pub mod prose;
pub mod reorder_eval;
pub mod train;
