//! Open documents: the text as a [`Rope`], edited in place by `textDocument/didChange`.
//!
//! Positions are LSP positions (zero-based line, UTF-16 column); lines end at `\n`, `\r\n` or a
//! lone `\r`, as the specification says (ropey is built with `cr_lines` and without
//! `unicode_lines` so that U+2028 and friends are *not* line breaks). Edits never fail and never
//! lose text: a position past the end of its line clamps to the line's end (the specification's
//! rule), a line past the end of the document clamps to the end of the text, a reversed range is
//! swapped, and each clamp outside the specification's own rule is reported as a warning for the
//! log.

use crate::text::Format;
use ropey::{Rope, RopeSlice};
use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent};

/// An open document.
#[derive(Debug, Clone)]
pub struct TextDocument {
    rope: Rope,
    version: i32,
    language_id: String,
    format: Option<Format>,
}

impl TextDocument {
    /// A document opened with `text` at `version`. `format` is `None` for a language Segue does
    /// not check.
    pub fn new(text: &str, version: i32, language_id: &str, format: Option<Format>) -> Self {
        TextDocument {
            rope: Rope::from_str(text),
            version,
            language_id: language_id.to_string(),
            format,
        }
    }

    /// The text (cheap to clone: ropes share their chunks).
    pub fn rope(&self) -> &Rope {
        &self.rope
    }

    /// The whole text as a string.
    pub fn text(&self) -> String {
        self.rope.to_string()
    }

    /// The version the client gave with the last change.
    pub fn version(&self) -> i32 {
        self.version
    }

    /// The `languageId` from `didOpen`.
    pub fn language_id(&self) -> &str {
        &self.language_id
    }

    /// The format the document is checked as, if any.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// Applies `changes` in order and records `version`. Returns one warning per clamped
    /// position or out-of-order version; the edit is applied anyway.
    pub fn apply_changes(
        &mut self,
        changes: &[TextDocumentContentChangeEvent],
        version: i32,
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        if version <= self.version {
            warnings.push(format!(
                "didChange version {version} is not newer than {}; applying the change anyway",
                self.version
            ));
        }
        for change in changes {
            match change.range {
                None => self.rope = Rope::from_str(&change.text),
                Some(range) => apply_range_edit(&mut self.rope, range, &change.text, &mut warnings),
            }
        }
        self.version = version;
        warnings
    }
}

/// Replaces `range` of `rope` by `text`, clamping out-of-range positions.
fn apply_range_edit(rope: &mut Rope, range: Range, text: &str, warnings: &mut Vec<String>) {
    let (mut start, start_warning) = char_index(rope, range.start);
    let (mut end, end_warning) = char_index(rope, range.end);
    warnings.extend(start_warning);
    warnings.extend(end_warning);
    if start > end {
        warnings.push(format!(
            "edit range {}:{}–{}:{} is reversed; swapping its ends",
            range.start.line, range.start.character, range.end.line, range.end.character
        ));
        std::mem::swap(&mut start, &mut end);
    }
    // Both indices are clamped to len_chars, so these cannot fail; fall back to a warning anyway.
    if start < end {
        if let Err(e) = rope.try_remove(start..end) {
            warnings.push(format!("could not remove {start}..{end}: {e}"));
            return;
        }
    }
    if !text.is_empty() {
        if let Err(e) = rope.try_insert(start, text) {
            warnings.push(format!("could not insert at {start}: {e}"));
        }
    }
}

/// The char index of an LSP position in `rope`, and a warning when the line does not exist.
/// A column past the end of its line clamps to the line end (the specification's rule, no
/// warning); a column inside a surrogate pair rounds down to the character.
pub fn char_index(rope: &Rope, pos: Position) -> (usize, Option<String>) {
    let line = pos.line as usize;
    let Ok(line_start) = rope.try_line_to_char(line) else {
        return (
            rope.len_chars(),
            Some(format!(
                "position {}:{} is past the last line ({}); clamped to the end of the document",
                pos.line,
                pos.character,
                rope.len_lines().saturating_sub(1)
            )),
        );
    };
    if line >= rope.len_lines() {
        // `line == len_lines` is accepted by ropey (one past the end) but is not a line.
        return (
            rope.len_chars(),
            Some(format!(
                "position {}:{} is past the last line; clamped to the end of the document",
                pos.line, pos.character
            )),
        );
    }
    let Some(slice) = rope.get_line(line) else {
        return (rope.len_chars(), None);
    };
    let content = line_content(slice);
    let units = content.len_utf16_cu();
    let col = (pos.character as usize).min(units);
    let offset = content
        .try_utf16_cu_to_char(col)
        .unwrap_or(content.len_chars());
    (line_start + offset, None)
}

/// A line without its terminator.
fn line_content(line: RopeSlice<'_>) -> RopeSlice<'_> {
    let n = line.len_chars();
    let mut end = n;
    if end > 0 && line.get_char(end - 1) == Some('\n') {
        end -= 1;
    }
    if end > 0 && line.get_char(end - 1) == Some('\r') {
        end -= 1;
    }
    line.get_slice(..end).unwrap_or(line)
}

/// The LSP position of char index `char_idx` (clamped to the end).
pub fn position_of(rope: &Rope, char_idx: usize) -> Position {
    let char_idx = char_idx.min(rope.len_chars());
    let line = rope.try_char_to_line(char_idx).unwrap_or(0);
    let line_start = rope.try_line_to_char(line).unwrap_or(0);
    let col_units = rope
        .get_slice(line_start..char_idx)
        .map_or(0, |s| s.len_utf16_cu());
    Position {
        line: line as u32,
        character: col_units as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::LineIndex;
    use proptest::prelude::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    fn change(sl: u32, sc: u32, el: u32, ec: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range {
                start: pos(sl, sc),
                end: pos(el, ec),
            }),
            range_length: None,
            text: text.to_string(),
        }
    }

    fn doc(text: &str) -> TextDocument {
        TextDocument::new(text, 1, "markdown", Some(Format::Markdown))
    }

    #[test]
    fn applies_insert_delete_and_replace() {
        let mut d = doc("Hello world.\n\nSecond para.\n");
        assert!(d.apply_changes(&[change(0, 5, 0, 5, ",")], 2).is_empty());
        assert_eq!(d.text(), "Hello, world.\n\nSecond para.\n");
        d.apply_changes(&[change(0, 0, 2, 6, "First")], 3);
        assert_eq!(d.text(), "First para.\n");
        d.apply_changes(&[change(0, 5, 0, 11, "")], 4);
        assert_eq!(d.text(), "First\n");
        assert_eq!(d.version(), 4);
    }

    #[test]
    fn counts_utf16_and_all_line_breaks() {
        let mut d = doc("a😀b\r\nc\rd\u{2028}e\n");
        // After the emoji (2 UTF-16 units).
        d.apply_changes(&[change(0, 3, 0, 3, "X")], 2);
        assert_eq!(d.text(), "a😀Xb\r\nc\rd\u{2028}e\n");
        // Inside the surrogate pair rounds down to the emoji's start.
        d.apply_changes(&[change(0, 2, 0, 2, "Y")], 3);
        assert_eq!(d.text(), "aY😀Xb\r\nc\rd\u{2028}e\n");
        // Line 2 starts after the lone \r; U+2028 is not a line break.
        d.apply_changes(&[change(2, 2, 2, 2, "Z")], 4);
        assert_eq!(d.text(), "aY😀Xb\r\nc\rd\u{2028}Ze\n");
        // A column past the end of a CRLF line stops before the \r.
        d.apply_changes(&[change(0, 99, 0, 99, "!")], 5);
        assert_eq!(d.text(), "aY😀Xb!\r\nc\rd\u{2028}Ze\n");
    }

    #[test]
    fn clamps_out_of_range_and_reversed_ranges_without_losing_text() {
        let mut d = doc("one\ntwo\n");
        let w = d.apply_changes(&[change(99, 0, 120, 4, "three")], 2);
        assert_eq!(d.text(), "one\ntwo\nthree");
        assert!(!w.is_empty());
        let w = d.apply_changes(&[change(1, 3, 0, 1, "")], 3);
        assert_eq!(d.text(), "o\nthree");
        assert!(w.iter().any(|w| w.contains("reversed")));
        let w = d.apply_changes(&[change(0, 0, 0, 0, "x")], 3);
        assert!(w.iter().any(|w| w.contains("not newer")));
        assert_eq!(d.text(), "xo\nthree");
    }

    #[test]
    fn full_sync_replaces_everything() {
        let mut d = doc("old");
        d.apply_changes(
            &[TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: "new\r\ntext".into(),
            }],
            2,
        );
        assert_eq!(d.text(), "new\r\ntext");
    }

    proptest! {
        /// Rope positions agree with the text model's `LineIndex` on every char boundary.
        #[test]
        fn positions_match_line_index(text in "([a-z😀é漢 ]{0,6}(\r\n|\n|\r)?){0,6}") {
            let rope = Rope::from_str(&text);
            let index = LineIndex::new(&text);
            for (ci, (bi, _)) in text.char_indices().chain(std::iter::once((text.len(), ' '))).enumerate() {
                if bi > 0 && text.as_bytes()[bi - 1] == b'\r' && text.as_bytes().get(bi) == Some(&b'\n') {
                    continue;
                }
                let p = index.position(&text, bi);
                let lsp = pos(p.line, p.character);
                prop_assert_eq!(position_of(&rope, ci), lsp);
                prop_assert_eq!(char_index(&rope, lsp).0, ci);
            }
        }

        /// Random edits on the rope give the same text as the same edits on a `String`.
        #[test]
        fn edits_match_string_reference(
            text in "([a-z😀é ]{0,5}(\r\n|\n)?){0,5}",
            edits in proptest::collection::vec((0u32..8, 0u32..8, 0u32..8, 0u32..8, "[a-z😀\n]{0,3}"), 1..6),
        ) {
            let mut d = doc(&text);
            let mut reference = text.clone();
            for (i, (sl, sc, el, ec, ins)) in edits.into_iter().enumerate() {
                let index = LineIndex::new(&reference);
                let a = index.offset_clamped(&reference, crate::text::Position { line: sl, character: sc });
                let b = index.offset_clamped(&reference, crate::text::Position { line: el, character: ec });
                let (a, b) = (a.min(b), a.max(b));
                reference.replace_range(a..b, &ins);
                d.apply_changes(&[change(sl, sc, el, ec, &ins)], i as i32 + 2);
                prop_assert_eq!(d.text(), reference.clone());
            }
        }
    }
}
