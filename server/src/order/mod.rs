//! Ordering: finding a better order for a set of units, and measuring orders against gold.

pub mod decode;
pub mod flow;
pub mod metrics;
pub mod overrule;
pub mod permute;
pub mod reorder;
