//! Prose extracted from markup, with a map from every byte of the clean text back to the source.
//!
//! Parsers build a [`ProseText`] by copying runs of source text verbatim ([`ProseText::push_source`])
//! and by inserting synthetic text that stands for markup ([`ProseText::push_synthetic`], e.g. a space
//! for a line break or a removed command). Sentence splitting runs on the clean text; the map turns
//! the resulting clean ranges back into source spans.

use super::Span;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    /// Offset of the piece in the clean text.
    clean_start: usize,
    /// Length of the piece in the clean text.
    len: usize,
    /// Source span the piece stands for (same length as `len` for verbatim pieces).
    src: Span,
    /// Whether the piece was copied byte for byte from the source.
    verbatim: bool,
}

/// Clean text plus a map back to source byte offsets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProseText {
    text: String,
    pieces: Vec<Piece>,
    /// Whether a skipped block (verbatim, display math between sentences, …) stands inside.
    blocks_inside: bool,
}

impl ProseText {
    /// An empty prose text.
    pub fn new() -> Self {
        Self::default()
    }

    /// The clean text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether nothing but whitespace was collected.
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// Appends `source[span]` verbatim. Spans out of range or not on char boundaries are ignored.
    pub fn push_source(&mut self, source: &str, span: Span) {
        let Some(s) = source.get(span.start..span.end) else {
            return;
        };
        if s.is_empty() {
            return;
        }
        // Merge with the previous piece when contiguous, to keep the map small.
        if let Some(last) = self.pieces.last_mut() {
            if last.verbatim
                && last.src.end == span.start
                && last.clean_start + last.len == self.text.len()
            {
                last.len += s.len();
                last.src.end = span.end;
                self.text.push_str(s);
                return;
            }
        }
        self.pieces.push(Piece {
            clean_start: self.text.len(),
            len: s.len(),
            src: span,
            verbatim: true,
        });
        self.text.push_str(s);
    }

    /// Appends synthetic `text` that stands for the markup at source span `at`.
    pub fn push_synthetic(&mut self, text: &str, at: Span) {
        if text.is_empty() {
            return;
        }
        self.pieces.push(Piece {
            clean_start: self.text.len(),
            len: text.len(),
            src: at,
            verbatim: false,
        });
        self.text.push_str(text);
    }

    /// Ends a definition-list term with a colon standing for `at`, so that it reads `term:
    /// definition`, unless the term already ends in punctuation of its own (`Note:`, `Why?`).
    pub fn close_term(&mut self, at: Span) {
        let last = self.text.trim_end().chars().next_back();
        if last.is_some_and(|c| !matches!(c, '.' | ':' | ';' | ',' | '!' | '?' | '—' | '–' | '-'))
        {
            self.push_synthetic(":", at);
        }
    }

    /// Appends a single space standing for `at`, unless the text already ends in whitespace.
    pub fn push_space(&mut self, at: Span) {
        if !self.text.is_empty() && !self.text.ends_with(char::is_whitespace) {
            self.push_synthetic(" ", at);
        }
    }

    /// Appends a space standing for a skipped block at `at` (a verbatim environment, display
    /// math after a finished sentence) that the text goes on after: the text's sentences are
    /// tied to where the block stands ([`ProseText::holds_block`]).
    pub fn push_block(&mut self, at: Span) {
        self.push_space(at);
        self.blocks_inside = true;
    }

    /// Whether a skipped block stands inside the text ([`ProseText::push_block`]).
    pub fn holds_block(&self) -> bool {
        self.blocks_inside
    }

    /// Source offset of the clean byte at `offset` (mapping the start of a range). A range that
    /// starts inside a synthetic piece starts after it: the piece's source belongs to the range
    /// that holds its first byte, so ranges that do not overlap in the clean text do not overlap
    /// in the source either.
    pub fn source_start(&self, offset: usize) -> usize {
        match self.piece_at(offset) {
            Some(p) if p.verbatim => p.src.start + (offset - p.clean_start),
            Some(p) if offset > p.clean_start => p.src.end,
            Some(p) => p.src.start,
            None => self.pieces.last().map_or(0, |p| p.src.end),
        }
    }

    /// Source offset just past the clean byte before `offset` (mapping the end of a range).
    pub fn source_end(&self, offset: usize) -> usize {
        if offset == 0 {
            return self.pieces.first().map_or(0, |p| p.src.start);
        }
        match self.piece_at(offset - 1) {
            Some(p) if p.verbatim => p.src.start + (offset - p.clean_start),
            Some(p) => p.src.end,
            None => self.pieces.last().map_or(0, |p| p.src.end),
        }
    }

    /// Maps a clean range to the source span that covers it.
    pub fn source_span(&self, start: usize, end: usize) -> Span {
        let s = self.source_start(start);
        let e = self.source_end(end);
        Span::new(s, e.max(s))
    }

    /// The source span covered by the whole text.
    pub fn source_extent(&self) -> Option<Span> {
        let first = self.pieces.first()?;
        let last = self.pieces.last()?;
        Some(Span::new(first.src.start, last.src.end))
    }

    /// Moves every source offset `by` bytes later (the text was parsed from a suffix of the
    /// source that starts `by` bytes in).
    pub fn shift(&mut self, by: usize) {
        for p in &mut self.pieces {
            p.src = p.src.shifted(by);
        }
    }

    /// Moves every source offset to `to(offset)` (the source changed around the text: an edit
    /// before it moved it, [`super::incremental`]).
    pub(crate) fn move_source(&mut self, to: &impl Fn(usize) -> usize) {
        for p in &mut self.pieces {
            p.src = Span::new(to(p.src.start), to(p.src.end));
        }
    }

    /// The part of the text that stands for source at or after `at`: pieces before `at` are
    /// left out and a verbatim piece that straddles it is cut there.
    pub fn from_source(&self, at: usize) -> ProseText {
        let mut out = ProseText::new();
        for p in &self.pieces {
            if p.src.start >= at {
                let piece = &self.text[p.clean_start..p.clean_start + p.len];
                out.pieces.push(Piece {
                    clean_start: out.text.len(),
                    ..*p
                });
                out.text.push_str(piece);
            } else if p.verbatim && p.src.end > at {
                let cut = at - p.src.start;
                let Some(piece) = self.text.get(p.clean_start + cut..p.clean_start + p.len) else {
                    continue;
                };
                out.pieces.push(Piece {
                    clean_start: out.text.len(),
                    len: piece.len(),
                    src: Span::new(at, p.src.end),
                    verbatim: true,
                });
                out.text.push_str(piece);
            }
        }
        out
    }

    fn piece_at(&self, offset: usize) -> Option<&Piece> {
        let idx = self
            .pieces
            .partition_point(|p| p.clean_start + p.len <= offset);
        self.pieces
            .get(idx)
            .filter(|p| p.clean_start <= offset && offset < p.clean_start + p.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_verbatim_and_synthetic_pieces() {
        let src = "Hello *world*. Bye";
        let mut p = ProseText::new();
        p.push_source(src, Span::new(0, 6));
        p.push_source(src, Span::new(7, 12));
        p.push_source(src, Span::new(13, 18));
        assert_eq!(p.text(), "Hello world. Bye");
        assert_eq!(p.source_span(0, 12), Span::new(0, 14));
        assert_eq!(p.source_span(6, 11), Span::new(7, 12));
        assert_eq!(p.source_span(13, 16), Span::new(15, 18));
        let mut q = ProseText::new();
        q.push_source(src, Span::new(0, 5));
        q.push_synthetic(" ", Span::new(5, 7));
        q.push_source(src, Span::new(7, 12));
        assert_eq!(q.text(), "Hello world");
        assert_eq!(q.source_span(5, 6), Span::new(5, 7));
        // Two ranges split inside a synthetic piece share none of its source.
        let src = "`a\n b. c`";
        let mut r = ProseText::new();
        r.push_synthetic("a b. c", Span::new(0, src.len()));
        assert_eq!(r.source_span(0, 4), Span::new(0, 9));
        assert_eq!(r.source_span(5, 6), Span::new(9, 9));
    }
}
