//! Sentence boundaries in clean prose.

use std::ops::Range;
use unicode_segmentation::UnicodeSegmentation;

/// Splits `text` into sentence ranges (byte ranges into `text`, possibly with surrounding whitespace).
pub fn split(text: &str) -> Vec<Range<usize>> {
    text.split_sentence_bound_indices()
        .map(|(i, s)| i..i + s.len())
        .collect()
}
