//! Byte offsets ↔ LSP positions (zero-based line, UTF-16 column).
//!
//! Line terminators are `\n`, `\r\n` and a lone `\r`, as the LSP specification defines them.
//! Offsets inside a `\r\n` pair or inside a multi-byte character are rounded down to the nearest
//! boundary; columns past the end of a line clamp to the line's end.

/// A position as LSP counts it: zero-based line and UTF-16 code unit column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
pub struct Position {
    /// Zero-based line.
    pub line: u32,
    /// Zero-based column in UTF-16 code units.
    pub character: u32,
}

/// Start offsets of every line of a text, for fast position conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset of the start of each line; always starts with 0.
    line_starts: Vec<usize>,
    /// Byte offset of the end of each line's content (before its terminator).
    line_ends: Vec<usize>,
    len: usize,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        let mut line_ends = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => {
                    line_ends.push(i);
                    line_starts.push(i + 1);
                }
                b'\r' => {
                    line_ends.push(i);
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    line_starts.push(i + 1);
                }
                _ => {}
            }
            i += 1;
        }
        line_ends.push(bytes.len());
        LineIndex {
            line_starts,
            line_ends,
            len: bytes.len(),
        }
    }

    /// Number of lines (a text ending in a newline has an empty last line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte offset where `line` starts, if the line exists.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.line_starts.get(line as usize).copied()
    }

    /// The LSP position of byte `offset` in `text` (the text this index was built from).
    /// Offsets past the end map to the end.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(self.len);
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let end = self.line_ends[line];
        let mut cut = offset.min(end);
        while cut > start && !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let character: usize = text
            .get(start..cut)
            .map_or(0, |s| s.chars().map(char::len_utf16).sum());
        Position {
            line: line as u32,
            character: character as u32,
        }
    }

    /// The byte offset of an LSP position, or `None` when the line does not exist.
    /// A column past the end of its line clamps to the line end; a column inside a surrogate
    /// pair rounds down to the character's start.
    pub fn offset(&self, text: &str, pos: Position) -> Option<usize> {
        let line = pos.line as usize;
        let start = *self.line_starts.get(line)?;
        let end = self.line_ends[line];
        let mut units = 0u32;
        for (i, ch) in text.get(start..end)?.char_indices() {
            let w = ch.len_utf16() as u32;
            if units + w > pos.character {
                return Some(start + i);
            }
            units += w;
        }
        Some(end)
    }

    /// Like [`LineIndex::offset`] but a line past the end maps to the end of the text.
    pub fn offset_clamped(&self, text: &str, pos: Position) -> usize {
        self.offset(text, pos).unwrap_or(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn handles_crlf_emoji_and_cjk() {
        let text = "a\r\nb😀c\n漢字\rx\t";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 4);
        assert_eq!(idx.position(text, 3), pos(1, 0));
        assert_eq!(idx.position(text, 4), pos(1, 1));
        assert_eq!(idx.position(text, 8), pos(1, 3)); // after the emoji: 2 UTF-16 units
        assert_eq!(idx.offset(text, pos(1, 3)), Some(8));
        assert_eq!(idx.offset(text, pos(1, 2)), Some(4)); // inside the surrogate pair
        assert_eq!(idx.position(text, 10), pos(2, 0));
        assert_eq!(idx.position(text, 13), pos(2, 1));
        assert_eq!(idx.offset(text, pos(3, 1)), Some(18));
        assert_eq!(idx.offset(text, pos(3, 99)), Some(19));
        assert_eq!(idx.offset(text, pos(9, 0)), None);
        assert_eq!(idx.position(text, 2), pos(0, 1)); // between \r and \n
    }

    proptest! {
        #[test]
        fn round_trips_on_char_boundaries(text in "\\PC*(\r\n|\n|\r)?\\PC*(\r\n|\n|\r)?\\PC*") {
            let idx = LineIndex::new(&text);
            for (off, _) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
                // Offsets between \r and \n are not representable; skip them.
                if off > 0 && text.as_bytes()[off - 1] == b'\r' && text.as_bytes().get(off) == Some(&b'\n') {
                    continue;
                }
                let p = idx.position(&text, off);
                prop_assert_eq!(idx.offset(&text, p), Some(off));
            }
        }

        #[test]
        fn positions_are_monotonic(text in "\\PC{0,40}([\r\n]{1,2}\\PC{0,20}){0,4}") {
            let idx = LineIndex::new(&text);
            let mut prev = Position::default();
            for (off, _) in text.char_indices() {
                let p = idx.position(&text, off);
                prop_assert!(p >= prev);
                prev = p;
            }
        }
    }
}
