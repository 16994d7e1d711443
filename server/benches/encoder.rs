//! Encoder benchmark (placeholder while it is written).
fn main() {}
