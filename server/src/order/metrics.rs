//! Order metrics (seed 000, seed 003). Placeholder.
