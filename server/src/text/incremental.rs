//! Segmentation again after an edit: a [`Segmenter`] keeps the last source and its parser blocks,
//! and when the new source differs from it by an edit that cannot change the document's block
//! structure, parses only the paragraph the edit is in and moves the blocks after it.
//!
//! The result is always [`super::parse`]'s: an edit takes the short way only when it is
//! ASCII letters and digits inserted into, deleted from or replaced in one line of one Markdown
//! paragraph (a [`Block::Prose`]), where
//! - after its list and quote markers, the line starts with a letter, a quote or a parenthesis
//!   before and after the edit (or with emphasis the edit leaves alone), at the same place, the
//!   edit is not before that, and the line keeps a letter or digit, so it stays what it was (no
//!   list marker, heading, fence, break, table row or HTML starts so);
//! - the paragraph holds no `]:` (a link reference or footnote definition, which the whole
//!   document reads) and the edit is not inside brackets (a link label, which such a
//!   definition may resolve);
//! - the paragraph parsed on its own (from its line's start in a block quote) gives exactly
//!   the block it gave within the document
//!   (nothing in it depends on what is around it, as a resolved reference link or an item of a
//!   longer list would), and after the edit it is again one paragraph of the same kind.
//!
//! Sources several such edits apart (two keystrokes, or an edit and the undo of another) take
//! them one after the other, each checked as above.
//!
//! Letters or digits typed or deleted in a line of a code block's content (not its fences, after
//! the line's markers, leaving a letter or digit on it) change no block: the blocks after it are
//! moved and nothing is parsed.
//!
//! Anything else (another format, a byte-order mark, a heading, HTML, a link definition, several
//! lines) parses the whole source again. Every block's sentences are then split again
//! ([`super::assemble`]), which the sentence memo makes cheap for the blocks the edit left alone.

use super::{assemble, blocks, blocks_and_code, with_code, Block, Document, Format, Span, BOM};

/// Parses documents, reusing the last one's blocks after a small edit (see the module
/// documentation).
#[derive(Debug, Default)]
pub struct Segmenter {
    last: Option<Last>,
    reused: bool,
}

/// The last source segmented, and its blocks.
#[derive(Debug)]
struct Last {
    source: String,
    format: Format,
    blocks: Vec<Block>,
    /// The spans of the code blocks the blocks leave out.
    code: Vec<Span>,
}

impl Segmenter {
    /// A segmenter with nothing kept.
    pub fn new() -> Self {
        Self::default()
    }

    /// Segments `source` in `format`: the same document as [`super::parse`].
    pub fn parse(&mut self, source: &str, format: Format) -> Document {
        let patched = self
            .last
            .as_mut()
            .is_some_and(|last| last.format == format && patch_each(last, source));
        self.reused = patched;
        if !patched {
            let (blocks, code) = blocks_and_code(source, format);
            self.last = Some(Last {
                source: source.to_string(),
                format,
                blocks,
                code,
            });
        }
        self.last
            .as_ref()
            .map(|last| with_code(assemble(&last.blocks), &last.source, &last.code))
            .unwrap_or_default()
    }

    /// Whether the last [`Segmenter::parse`] reused the blocks of the one before it.
    pub fn reused(&self) -> bool {
        self.reused
    }

    /// The blocks kept from the last parse.
    #[cfg(test)]
    fn kept(&self) -> Option<&[Block]> {
        self.last.as_ref().map(|l| l.blocks.as_slice())
    }
}

/// Most separate edits between two sources that [`patch_each`] takes one at a time.
const MAX_EDITS: usize = 8;

/// Longest run of bytes, inserted or deleted, that [`edits`] takes as one edit.
const MAX_EDIT: usize = 8;

/// Updates `last` to `new` one edit at a time (two keystrokes apart, or an edit and its undo
/// elsewhere, are two edits), each as [`patch`] does; `false` when one of them cannot be (`last`
/// is then somewhere between the two).
fn patch_each(last: &mut Last, new: &str) -> bool {
    let Some(edits) = edits(last.source.as_bytes(), new.as_bytes()) else {
        return false;
    };
    if edits.len() <= 1 {
        return patch(last, new);
    }
    let old = last.source.clone();
    for &(_, old_end, _, new_end) in &edits {
        // The new source up to this edit, the old one after it.
        let (Some(head), Some(tail)) = (new.get(..new_end), old.get(old_end..)) else {
            return false;
        };
        let step = [head, tail].concat();
        if !patch(last, &step) {
            return false;
        }
    }
    last.source == new
}

/// The separate edits that turn `old` into `new`, in order, as `(old_start, old_end,
/// new_start, new_end)`: at each place they differ, the fewest bytes deleted and inserted (each at
/// most [`MAX_EDIT`]) after which the next 16 bytes (or all that is left of both) agree again.
/// `None` when there are more than [`MAX_EDITS`] or one is longer.
fn edits(old: &[u8], new: &[u8]) -> Option<Vec<(usize, usize, usize, usize)>> {
    const AGREE: usize = 16;
    let agree = |i: usize, j: usize| -> bool {
        let (Some(a), Some(b)) = (old.get(i..), new.get(j..)) else {
            return false;
        };
        let m = a.len().min(b.len()).min(AGREE);
        a.get(..m) == b.get(..m) && (m == AGREE || a.len() == b.len())
    };
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    loop {
        let same = common_prefix(old.get(i..).unwrap_or(&[]), new.get(j..).unwrap_or(&[]));
        i += same;
        j += same;
        if i >= old.len() && j >= new.len() {
            return Some(out);
        }
        if out.len() == MAX_EDITS {
            return None;
        }
        let (del, ins) = (1..=2 * MAX_EDIT)
            .flat_map(|total| (0..=total).map(move |del| (del, total - del)))
            .filter(|&(del, ins)| del <= MAX_EDIT && ins <= MAX_EDIT)
            .find(|&(del, ins)| agree(i + del, j + ins))?;
        out.push((i, i + del, j, j + ins));
        i += del;
        j += ins;
    }
}

/// Updates `last` to `new` when the edit between them is one the module documentation allows;
/// `false` (and `last` untouched) otherwise.
fn patch(last: &mut Last, new: &str) -> bool {
    if last.format != Format::Markdown {
        return false;
    }
    let old = last.source.as_str();
    if old == new {
        return true;
    }
    if old.starts_with(BOM) || new.starts_with(BOM) {
        return false;
    }
    let (p, old_end, new_end) = changed(old.as_bytes(), new.as_bytes());
    let alphanumeric =
        |s: Option<&str>| s.is_some_and(|s| s.bytes().all(|b| b.is_ascii_alphanumeric()));
    if !alphanumeric(old.get(p..old_end)) || !alphanumeric(new.get(p..new_end)) {
        return false;
    }
    if in_code(last, new, p, old_end, new_end) {
        return true;
    }
    let old = last.source.as_str();
    if !line_kept(old, new, p) {
        return false;
    }
    // The one block whose span holds (or touches) the edit.
    let mut found = None;
    for (i, block) in last.blocks.iter().enumerate() {
        let span = match block {
            Block::Prose { span, .. }
            | Block::Heading { span, .. }
            | Block::DisableNext { span } => span,
            Block::Break => continue,
        };
        if span.start <= old_end && p <= span.end {
            if found.is_some() {
                return false;
            }
            found = Some(i);
        }
    }
    let Some(i) = found else {
        return false;
    };
    let Some(
        old_block @ Block::Prose {
            span, attach, item, ..
        },
    ) = last.blocks.get(i)
    else {
        return false;
    };
    let (start, end) = (span.start, span.end);
    if start > p || old_end > end {
        return false;
    }
    // A paragraph in a block quote is parsed with the quote's markers before its first line (its
    // later lines carry theirs).
    let line_start = old
        .get(..start)
        .and_then(|s| s.rfind(['\n', '\r']))
        .map_or(0, |i| i + 1);
    let quoted = old
        .get(line_start..start)
        .is_some_and(|m| !m.is_empty() && m.bytes().all(|b| matches!(b, b' ' | b'\t' | b'>')));
    let from = if quoted { line_start } else { start };
    let Some(before) = old.get(from..end) else {
        return false;
    };
    if before.contains("]:") || inside_brackets(old.get(start..p).unwrap_or("[")) {
        return false;
    }
    // The paragraph on its own, before the edit: exactly what it was within the document.
    if alone(before, from).as_slice() != std::slice::from_ref(old_block) {
        return false;
    }
    // After it: one paragraph of the same kind.
    let Some(after) = new.get(from..(end + new_end) - old_end) else {
        return false;
    };
    let mut fresh = alone(after, from);
    let same_kind = matches!(
        fresh.as_slice(),
        [Block::Prose { attach: a, item: t, .. }] if a == attach && t == item
    );
    let Some(block) = fresh.pop().filter(|_| same_kind) else {
        return false;
    };
    let moved = |offset: usize| (offset + new_end) - old_end;
    for b in last.blocks.iter_mut().skip(i + 1) {
        b.move_source(&moved);
    }
    for c in last.code.iter_mut().filter(|c| c.start >= old_end) {
        *c = Span::new(moved(c.start), moved(c.end));
    }
    if let Some(slot) = last.blocks.get_mut(i) {
        *slot = block;
    }
    last.source = new.to_string();
    true
}

/// Updates `last` to `new` when the edit (`old[p..old_end]` became `new[p..new_end]`, ASCII
/// letters and digits) is inside a line of a code block's content, not its first or last line,
/// after the line's indentation and container markers ([`content_start`]), and leaves a letter
/// or digit on it (a line of backticks or
/// tildes alone might close the block): the blocks stay as they were, moved.
fn in_code(last: &mut Last, new: &str, p: usize, old_end: usize, new_end: usize) -> bool {
    let old = last.source.as_str();
    let line_start = old
        .get(..p)
        .and_then(|s| s.rfind(['\n', '\r']))
        .map_or(0, |i| i + 1);
    let line_end = old
        .get(old_end..)
        .and_then(|s| s.find(['\n', '\r']))
        .map_or(old.len(), |i| old_end + i);
    let inside = last.code.iter().any(|c| {
        c.start < line_start
            && old
                .get(line_end..c.end)
                .is_some_and(|after| !after.trim().is_empty())
    });
    if !inside {
        return false;
    }
    // Where the line's content starts, after its containers' markers (a code block in a list
    // or a quote): the edit must leave them alone.
    let new_line = new
        .get(line_start..(line_end + new_end) - old_end)
        .unwrap_or("");
    let old_line = old.get(line_start..line_end).unwrap_or("");
    let at = content_start(old_line);
    let kept = at == content_start(new_line)
        && p >= line_start + at
        && new_line.bytes().any(|b| b.is_ascii_alphanumeric());
    if !kept {
        return false;
    }
    let moved = |offset: usize| {
        if offset >= old_end {
            (offset + new_end) - old_end
        } else {
            offset
        }
    };
    for b in &mut last.blocks {
        b.move_source(&moved);
    }
    for c in &mut last.code {
        *c = Span::new(moved(c.start), moved(c.end));
    }
    last.source = new.to_string();
    true
}

/// The blocks of `text` parsed on its own as Markdown, with offsets as if it began at `at`.
fn alone(text: &str, at: usize) -> Vec<Block> {
    let mut out = blocks(text, Format::Markdown);
    for b in &mut out {
        b.shift(at);
    }
    out
}

/// Where `old` and `new` differ: the length `p` of their common prefix and the ends of the
/// differing parts in each (`old[p..old_end]` became `new[p..new_end]`).
fn changed(old: &[u8], new: &[u8]) -> (usize, usize, usize) {
    let p = common_prefix(old, new);
    let room = old.len().min(new.len()) - p;
    let s = common_suffix(old, new).min(room);
    (p, old.len() - s, new.len() - s)
}

/// Bytes compared at a time by [`common_prefix`] and [`common_suffix`] (slice comparisons are
/// `memcmp`s) before they find the first difference byte by byte.
const CHUNK: usize = 64;

/// The length of the longest common prefix of `a` and `b`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + CHUNK <= n && a.get(i..i + CHUNK) == b.get(i..i + CHUNK) {
        i += CHUNK;
    }
    i + a
        .get(i..n)
        .unwrap_or(&[])
        .iter()
        .zip(b.get(i..n).unwrap_or(&[]))
        .take_while(|(x, y)| x == y)
        .count()
}

/// The length of the longest common suffix of `a` and `b`.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (ea, eb) = (a.len(), b.len());
    let mut k = 0;
    while k + CHUNK <= n && a.get(ea - k - CHUNK..ea - k) == b.get(eb - k - CHUNK..eb - k) {
        k += CHUNK;
    }
    k + a
        .get(..ea - k)
        .unwrap_or(&[])
        .iter()
        .rev()
        .zip(b.get(..eb - k).unwrap_or(&[]).iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
        .min(n - k)
}

/// Whether the line the edit at `p` is in keeps what it is: after its containers' markers (list
/// markers and `>`, each followed by a space), its content starts at the same place before and
/// after the edit, the edit is not before it, the line keeps a letter or digit (a line of nothing
/// but `-`, `=`, `|`, `` ` `` or the like is a break, an underline, a table's rule or a fence),
/// and the content starts with what no block can start with: an ASCII letter, a quote or an
/// opening parenthesis, before and after the edit; or, when the edit leaves its first two
/// characters alone, one of those or `*` or `_` (emphasis, which a deletion right after it could
/// turn into a list marker or a rule).
fn line_kept(old: &str, new: &str, p: usize) -> bool {
    let line_start = old
        .get(..p)
        .and_then(|s| s.rfind(['\n', '\r']))
        .map_or(0, |i| i + 1);
    let content = |text: &str| {
        let line = text.get(line_start..)?;
        let line = line.get(..line.find(['\n', '\r']).unwrap_or(line.len()))?;
        let at = content_start(line);
        let first = line.get(at..)?.chars().next()?;
        let alnum = line.bytes().any(|b| b.is_ascii_alphanumeric());
        Some((line_start + at, first, alnum))
    };
    let plain = |c: char| c.is_ascii_alphabetic() || matches!(c, '"' | '\'' | '(');
    match (content(old), content(new)) {
        (Some((at, a, _)), Some((to, b, alnum))) => {
            at == to
                && p >= at
                && alnum
                && ((plain(a) && plain(b)) || (p >= at + 2 && (plain(a) || matches!(a, '*' | '_'))))
        }
        _ => false,
    }
}

/// Where the content of `line` starts: after its indentation and any list markers (`-`, `+`,
/// `*`, or up to nine digits and `.` or `)`) and block-quote markers (`>`), each followed by
/// spaces or tabs (a marker without a space after it is text, and the content starts there).
fn content_start(line: &str) -> usize {
    let bytes = line.as_bytes();
    let mut i = 0;
    loop {
        while matches!(bytes.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let marker = match bytes.get(i) {
            Some(b'-' | b'+' | b'*') => i + 1,
            Some(b'>') => {
                // `>` needs no space after it.
                i += 1;
                continue;
            }
            Some(b'0'..=b'9') => {
                let digits = bytes
                    .get(i..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                match bytes.get(i + digits) {
                    Some(b'.' | b')') if digits <= 9 => i + digits + 1,
                    _ => return i,
                }
            }
            _ => return i,
        };
        if !matches!(bytes.get(marker), Some(b' ' | b'\t')) {
            return i;
        }
        i = marker;
    }
}

/// Whether the end of `text` (a paragraph's source up to the edit) is inside brackets: more `[`
/// opened than closed (escaped or in code, counted all the same).
fn inside_brackets(text: &str) -> bool {
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse;

    const DOC: &str = "# Title\n\nThe parser reads Markdown. It keeps spans.\n\n\
        - an item with words\n- another item\n  1. nested item here\n\n\
        Here: a list\n\n* star item words\n+ plus item words\n\n\
        --- x\n\n| a | b |\n|---|---|\n| c | d |\n\n\
        > A quote that goes\n> on here.\n\n\
        ```\ncode words here\nmore code\n```\nx\n\n    indented code\n    more of it\n\n\
        - item with code:\n\n  ```js\n  let a = 1;\n  ```\n\n  Then text after.\n\n\
        ````\n```\nfenced fence\n```x\n````\n\n\
        > ```\n> > quoted code\n> more quoted\n> ```\n\n\
        Setext title\n===\n\nA line with a hard break  \nand &amp; entity, `code span` and\nin_word_emphasis.\n\n\
        <!-- a comment\n\nacross lines -->\n\n<div>\nhtml words\n</div>\n\n\
        **A bold line**\n\nSee [the label] and the note[^n].\n\n[^n]: The footnote text.\n\n\
        [the label]: http://example.com\n  \"A title\"\n\n\
        1. first\n2. second words\n\n   indented words in the item\n\n\
        - a\n  - nested words\n\n    code in the item? words\n\n\
        - **Bold** item text\n- *ab* item\n\n> \"Quoted\" words in\n> a quote (with more).\n\n\
        (Parenthesised) words and _under_ lines\n*ab cd\n1a. not a list\n`` a`b ``\n\n\
        A [link](http://example.com) and [ref] and *emphasis*. Then more\nwords follow here.\n\n\
        [ref]: http://example.com\n\n\
        Last paragraph, the end.\n";

    /// Every edit of `DOC`: each ASCII letter position gets an `x` inserted, or loses its byte.
    fn single_edits() -> Vec<String> {
        let mut out = Vec::new();
        for (i, c) in DOC.char_indices() {
            for letter in ['x', '1'] {
                let mut inserted = DOC.to_string();
                inserted.insert(i, letter);
                out.push(inserted);
            }
            if c.is_ascii_alphanumeric() {
                let mut deleted = DOC.to_string();
                deleted.remove(i);
                out.push(deleted);
            }
        }
        out
    }

    #[test]
    fn every_single_edit_gives_the_full_parse() {
        let mut taken = 0;
        for edited in single_edits() {
            let mut s = Segmenter::new();
            assert_eq!(s.parse(DOC, Format::Markdown), parse(DOC, Format::Markdown));
            let got = s.parse(&edited, Format::Markdown);
            assert_eq!(got, parse(&edited, Format::Markdown), "{edited:?}");
            assert_eq!(
                s.kept().map(<[Block]>::to_vec).unwrap_or_default(),
                blocks(&edited, Format::Markdown),
                "{edited:?}"
            );
            taken += usize::from(s.reused());
        }
        // Most edits are in the paragraphs' words.
        assert!(taken > 100, "{taken}");
    }

    #[test]
    fn edits_in_a_paragraph_take_the_short_way_and_others_do_not() {
        let mut s = Segmenter::new();
        s.parse(DOC, Format::Markdown);
        let source = |s: &Segmenter| s.last.as_ref().map(|l| l.source.clone());
        // Inside a word of a plain paragraph: patched (the kept source follows).
        let edited = DOC.replace("keeps spans", "keeps spxans");
        let mut last = s.last.take().expect("kept");
        assert!(patch(&mut last, &edited));
        s.last = Some(last);
        assert_eq!(source(&s).as_deref(), Some(edited.as_str()));
        // In a block quote's paragraph, and after the emphasis that opens a list item: patched.
        for (from, to) in [("that goes", "thatx goes"), ("item text", "item texxt")] {
            let other = s.last.as_ref().map(|l| l.source.replace(from, to));
            let other = other.unwrap_or_default();
            let mut last = s.last.take().expect("kept");
            assert!(patch(&mut last, &other), "{to}");
            assert_eq!(last.blocks, blocks(&other, Format::Markdown));
            s.last = Some(last);
        }
        let edited = s
            .last
            .as_ref()
            .map(|l| l.source.clone())
            .unwrap_or_default();
        // Inside a code block's content: patched, the blocks only moved.
        let coded = edited.replace("more code", "more cxode");
        let mut last = s.last.take().expect("kept");
        assert!(patch(&mut last, &coded));
        assert_eq!(last.blocks, blocks(&coded, Format::Markdown));
        s.last = Some(last);
        // Inside a link label, in code's fence, in a heading, across lines, punctuation: not.
        for other in [
            coded.replace("[ref]", "[rxef]"),
            coded.replace("```\ncode words", "```x\ncode words"),
            coded.replace("# Title", "# Txitle"),
            coded.replace("Then more\nwords", "Then morewords"),
            coded.replace("the end.", "the end!"),
        ] {
            let mut last = s.last.take().expect("kept");
            assert!(!patch(&mut last, &other), "{other:?}");
            s.last = Some(last);
        }
    }

    #[test]
    fn separate_edits_are_found_and_taken_one_at_a_time() {
        let old = "The parser reads Markdown. It keeps spans.\n\nA second paragraph here.\n";
        let new = "The parser reads Markdown. It kexeps spans.\n\nA second paragraph hre.\n";
        let at = old.find("eps").unwrap_or(0);
        let gone = old.find("here").unwrap_or(0) + 1;
        assert_eq!(
            edits(old.as_bytes(), new.as_bytes()),
            Some(vec![
                (at, at, at, at + 1),
                (gone, gone + 1, gone + 1, gone + 1)
            ])
        );
        assert_eq!(edits(b"same", b"same"), Some(vec![]));
        let mut s = Segmenter::new();
        s.parse(old, Format::Markdown);
        assert_eq!(s.parse(new, Format::Markdown), parse(new, Format::Markdown));
        assert!(s.reused());
        // Nine edits are too many.
        let many: String = old.replace('e', "E");
        assert!(edits(old.as_bytes(), many.as_bytes()).is_none());
    }

    #[test]
    fn the_changed_part_is_found_from_both_ends() {
        assert_eq!(changed(b"abcd", b"abxcd"), (2, 2, 3));
        assert_eq!(changed(b"aaa", b"aaaa"), (3, 3, 4));
        assert_eq!(changed(b"abcd", b"ad"), (1, 3, 1));
        let long = "word ".repeat(100);
        let (a, b) = (format!("{long}x{long}"), format!("{long}{long}"));
        assert_eq!(changed(a.as_bytes(), b.as_bytes()), (500, 501, 500));
        assert_eq!(common_suffix(b"abc", b"xbc"), 2);
        assert_eq!(common_suffix(b"bc", b"abc"), 2);
        assert_eq!(content_start("  - > 1. Word"), 9);
        assert_eq!(content_start("-word"), 0);
        assert_eq!(content_start("12) x"), 4);
        assert_eq!(content_start("1234567890. x"), 0);
        assert!(inside_brackets("see [the"));
        assert!(!inside_brackets("see [the] and"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Any sequence of small edits, kept or not, parses as the whole source does.
        #[test]
        fn edit_sequences_parse_as_the_whole_source(
            steps in proptest::collection::vec((0usize..10_000, 0u8..4, "[a-zA-Z0-9]{1,3}"), 1..8)
        ) {
            let mut s = Segmenter::new();
            let mut text = DOC.to_string();
            s.parse(&text, Format::Markdown);
            for (at, kind, word) in steps {
                let bounds: Vec<usize> =
                    (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
                let i = bounds[at % bounds.len()];
                match kind {
                    0 | 1 => text.insert_str(i, &word),
                    2 => {
                        let end = bounds
                            .iter()
                            .copied()
                            .find(|&e| e > i)
                            .unwrap_or(i);
                        text.replace_range(i..end, "");
                    }
                    _ => text.insert_str(i, if word.len() > 2 { "\n\n" } else { " [" }),
                }
                if kind == 1 {
                    // Two edits apart: parse every other step only.
                    continue;
                }
                proptest::prop_assert_eq!(s.parse(&text, Format::Markdown), parse(&text, Format::Markdown));
            }
        }
    }
}
