//! Which transitions are weak enough to report.
