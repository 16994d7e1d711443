//! Conversions between Segue's plain data (byte spans, settings) and LSP types. The only place
//! besides [`super::document`] that knows about UTF-16 columns.

use crate::config::Severity;
use crate::text::{LineIndex, Span};
use std::path::PathBuf;
use tower_lsp_server::ls_types::{DiagnosticSeverity, Position, Range, Uri};

/// The LSP range of byte span `span` of `text`.
pub fn range(index: &LineIndex, text: &str, span: Span) -> Range {
    Range {
        start: position(index, text, span.start),
        end: position(index, text, span.end),
    }
}

/// The LSP position of byte `offset` of `text` (clamped to the end).
pub fn position(index: &LineIndex, text: &str, offset: usize) -> Position {
    let p = index.position(text, offset);
    Position {
        line: p.line,
        character: p.character,
    }
}

/// The byte offset of an LSP position in `text` (clamped: a line past the end maps to the end).
pub fn offset(index: &LineIndex, text: &str, pos: Position) -> usize {
    index.offset_clamped(
        text,
        crate::text::Position {
            line: pos.line,
            character: pos.character,
        },
    )
}

/// The LSP severity for a configured severity.
pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Information => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    }
}

/// The file-system path of a `file:` URI, if it is one.
pub fn path(uri: &Uri) -> Option<PathBuf> {
    if !uri.as_str().starts_with("file:") {
        return None;
    }
    uri.to_file_path().map(|p| p.into_owned())
}

/// The `file:` URI of a path.
pub fn uri(path: &std::path::Path) -> Option<Uri> {
    Uri::from_file_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_become_utf16_ranges() {
        let text = "a😀b\r\nc";
        let index = LineIndex::new(text);
        let r = range(&index, text, Span::new(5, 9));
        assert_eq!(
            (r.start.line, r.start.character, r.end.line, r.end.character),
            (0, 3, 1, 1)
        );
        assert_eq!(
            offset(
                &index,
                text,
                Position {
                    line: 0,
                    character: 3
                }
            ),
            5
        );
        assert_eq!(
            offset(
                &index,
                text,
                Position {
                    line: 9,
                    character: 0
                }
            ),
            text.len()
        );
    }

    #[test]
    fn file_uris_round_trip() {
        let dir = std::env::temp_dir().join("segue dir");
        let u = uri(&dir).expect("uri");
        assert!(u.as_str().starts_with("file:"));
        assert_eq!(path(&u), Some(dir));
        let untitled: Uri = "untitled:Untitled-1".parse().expect("uri");
        assert_eq!(path(&untitled), None);
    }
}
