//! LaTeX source → prose blocks.

use super::Block;

/// Splits LaTeX source into prose blocks.
pub fn blocks(source: &str) -> Vec<Block> {
    super::plain::blocks(source)
}
