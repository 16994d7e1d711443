//! The text model: source → sections → paragraphs → sentences, each with its byte span.
//!
//! A parser per format ([`markdown`], [`rst`], [`latex`], [`plain`]) turns the source into a flat list of
//! [`Block`]s; [`parse`] groups them into a [`Document`] and splits sentences with [`sentence`].
//! Markup never reaches the scorers: a [`Sentence`] carries clean text plus the span of the source it
//! came from. Segmentation never fails; whatever cannot be read as prose is left out.
//!
//! Invariant: this module knows nothing of LSP, scoring or models.

mod byline;
#[cfg(test)]
mod fuzz;
pub mod incremental;
pub mod latex;
pub mod line_index;
pub mod markdown;
pub(crate) mod memo;
pub mod plain;
pub mod presplit;
pub mod prose;
mod pseudo_heading;
pub mod rst;
pub mod sentence;
mod span;

pub use incremental::Segmenter;
pub use line_index::{LineIndex, Position};
pub use presplit::presplit;
pub use prose::ProseText;
pub use span::Span;

use std::path::Path;

/// A supported input format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// CommonMark with GitHub extensions.
    Markdown,
    /// reStructuredText (docutils, Sphinx).
    Rst,
    /// LaTeX source.
    Latex,
    /// Plain text with blank-line paragraphs.
    Plain,
}

impl Format {
    /// Every format, in the order they are listed to users.
    pub const ALL: [Format; 4] = [Format::Markdown, Format::Rst, Format::Latex, Format::Plain];

    /// The format for a file name's extension, if supported.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "md" | "markdown" | "mdown" | "mkd" => Some(Format::Markdown),
            "rst" | "rest" => Some(Format::Rst),
            "tex" | "latex" | "ltx" => Some(Format::Latex),
            "txt" | "text" => Some(Format::Plain),
            _ => None,
        }
    }

    /// The format for an LSP `languageId`, if supported.
    pub fn from_language_id(id: &str) -> Option<Format> {
        match id {
            "markdown" | "md" => Some(Format::Markdown),
            "restructuredtext" | "rst" => Some(Format::Rst),
            "latex" | "tex" | "plaintex" | "context" => Some(Format::Latex),
            "plaintext" | "text" | "txt" => Some(Format::Plain),
            _ => None,
        }
    }

    /// The lower-case name used in settings (`markdown`, `rst`, `latex`, `plain`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Rst => "rst",
            Format::Latex => "latex",
            Format::Plain => "plain",
        }
    }

    /// The name shown to people (`Markdown`, `reStructuredText`, `LaTeX`, `plain-text`).
    pub fn label(self) -> &'static str {
        match self {
            Format::Markdown => "Markdown",
            Format::Rst => "reStructuredText",
            Format::Latex => "LaTeX",
            Format::Plain => "plain-text",
        }
    }
}

/// One unit of a parser's output, in source order.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A heading that opens a new section.
    Heading {
        /// Source span of the whole heading line(s).
        span: Span,
        /// The heading's clean text.
        title: String,
        /// Nesting level, 1 for the top.
        level: u8,
    },
    /// A run of prose.
    Prose {
        /// Source span of the block, including its own markup (list marker, `>` and so on).
        span: Span,
        /// The clean text with its source map.
        prose: ProseText,
        /// Whether the block belongs to the paragraph before it (list items, block quotes)
        /// rather than opening a paragraph of its own.
        attach: bool,
        /// Whether the block is (part of) a list item: a bulleted, numbered or definition-list
        /// entry, a table-of-contents or changelog line. Items are structure, not running prose.
        item: bool,
    },
    /// A break in the prose (code, math, table, …) after which attached blocks no longer attach.
    Break,
    /// A `segue-disable-next` comment: the next paragraph's findings are suppressed.
    DisableNext {
        /// Source span of the comment.
        span: Span,
    },
}

/// A segmented document.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    /// Sections in source order; text before the first heading is a section without heading.
    pub sections: Vec<Section>,
    /// The source text of the code blocks the prose leaves out (Markdown's fenced and indented
    /// blocks, reStructuredText's literal blocks and code directives, plain text's indented
    /// code, LaTeX's listing environments), in order: the document's own words too, which a
    /// walk-through's prose names.
    pub code: Vec<String>,
}

/// A heading and the paragraphs under it up to the next heading.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Section {
    /// The heading that opens the section, if any.
    pub heading: Option<Heading>,
    /// Span from the heading (or first paragraph) to the end of the last paragraph.
    pub span: Span,
    /// The section's paragraphs.
    pub paragraphs: Vec<Paragraph>,
}

/// A section heading.
#[derive(Debug, Clone, PartialEq)]
pub struct Heading {
    /// Source span of the heading.
    pub span: Span,
    /// Clean heading text.
    pub title: String,
    /// Nesting level, 1 for the top.
    pub level: u8,
}

/// A paragraph: a span of source and the sentences in it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Paragraph {
    /// Source span of the paragraph including attached lists and quotes.
    pub span: Span,
    /// Sentences in order. Never empty for a paragraph in a [`Document`].
    pub sentences: Vec<Sentence>,
    /// Whether a `segue-disable-next` comment precedes this paragraph.
    pub disabled: bool,
    /// Source span of that comment, if any (it moves with the paragraph when reordering).
    pub disable_comment: Option<Span>,
    /// How many leading sentences are the paragraph's own text; the rest come from attached list
    /// items and block quotes.
    pub own_sentences: usize,
    /// Whether the paragraph is a list with no lead-in text of its own (a list that follows a
    /// heading or a code block, a table of contents, a changelog), or one whose own text is only
    /// a short label for it ("Design principles:", [`LABEL_WORDS`] words at most).
    pub list: bool,
    /// Whether a skipped block (code, table, display math, HTML, …) stands between this paragraph
    /// and the one before it in the section: the block, not the text, carries the link.
    pub after_block: bool,
    /// Whether a skipped block stands among the paragraph's own sentences: a sentence that a block
    /// cut in two goes on after it, or the format reads a block inside a paragraph (LaTeX's
    /// verbatim environments, display math after a finished sentence). The sentences' order is
    /// tied to where the block stands, so they are never reordered.
    pub blocks_inside: bool,
}

impl Paragraph {
    /// The clean text of the paragraph: its sentences joined by spaces.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for s in &self.sentences {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&s.text);
        }
        out
    }
}

/// A sentence: clean text and the source span it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Source span, trimmed of surrounding whitespace.
    pub span: Span,
    /// Clean text with markup removed and runs of whitespace collapsed.
    pub text: String,
}

/// How a sentence ends, which says whether it stands on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// A full stop, question or exclamation mark (or an ellipsis), before any closing quotes
    /// and brackets.
    Complete,
    /// A colon: the sentence introduces what follows (a list, a code block, a quotation).
    LeadIn,
    /// Anything else: a heading-like line, a label, or a sentence that a block cuts in two.
    Unfinished,
}

impl Sentence {
    /// How the sentence ends.
    pub fn ending(&self) -> Ending {
        ending_of(&self.text)
    }
}

/// How `text` ends (see [`Ending`]).
pub fn ending_of(text: &str) -> Ending {
    let closers = |c: char| {
        matches!(
            c,
            '"' | '\'' | '”' | '’' | '»' | ')' | ']' | '*' | '_' | '`'
        ) || c.is_whitespace()
    };
    match text.trim_end_matches(closers).chars().next_back() {
        Some('.' | '!' | '?' | '…' | '。' | '！' | '？') => Ending::Complete,
        Some(':' | '：') => Ending::LeadIn,
        _ => Ending::Unfinished,
    }
}

impl Document {
    /// All paragraphs in order.
    pub fn paragraphs(&self) -> impl Iterator<Item = &Paragraph> {
        self.sections.iter().flat_map(|s| s.paragraphs.iter())
    }

    /// The 1-based number of paragraph `paragraph` of section `section` among all the document's
    /// paragraphs (as `segue reorder --paragraph N` counts them).
    pub fn paragraph_number(&self, section: usize, paragraph: usize) -> usize {
        let before: usize = self
            .sections
            .iter()
            .take(section)
            .map(|s| s.paragraphs.len())
            .sum();
        before + paragraph + 1
    }

    /// All sentences in order.
    pub fn sentences(&self) -> impl Iterator<Item = &Sentence> {
        self.paragraphs().flat_map(|p| p.sentences.iter())
    }

    /// Number of words in the document's prose.
    pub fn word_count(&self) -> usize {
        self.sentences()
            .map(|s| s.text.split_whitespace().count())
            .sum()
    }
}

/// The UTF-8 byte-order mark (U+FEFF) that some editors put at the start of a file.
pub const BOM: char = '\u{feff}';

/// `text` without its leading byte-order mark, if any: the text as editors show it, so that
/// positions counted in it (lines and UTF-16 columns) match theirs. Front ends that only report
/// positions use it; those that write the file back keep the mark ([`blocks`] skips it).
pub fn without_bom(mut text: String) -> String {
    if text.starts_with(BOM) {
        text.drain(..BOM.len_utf8());
    }
    text
}

/// Segments `source` in `format` into a document.
pub fn parse(source: &str, format: Format) -> Document {
    let (blocks, code) = blocks_and_code(source, format);
    with_code(assemble(&blocks), source, &code)
}

/// `doc` with the text of the code blocks at `code` (spans into `source`).
pub(crate) fn with_code(mut doc: Document, source: &str, code: &[Span]) -> Document {
    doc.code = code
        .iter()
        .filter_map(|s| source.get(s.start..s.end))
        .map(str::to_string)
        .collect();
    doc
}

/// The parser blocks of `source` in `format`. A leading byte-order mark is not text: the parser
/// reads what follows it (so a first-line heading stays a heading), and every span is still an
/// offset into `source`, the mark included.
pub fn blocks(source: &str, format: Format) -> Vec<Block> {
    blocks_and_code(source, format).0
}

/// [`blocks`], and the spans of the code blocks they leave out (Markdown's, reStructuredText's,
/// plain text's indented code and LaTeX's listings).
pub(crate) fn blocks_and_code(source: &str, format: Format) -> (Vec<Block>, Vec<Span>) {
    let skip = if source.starts_with(BOM) {
        BOM.len_utf8()
    } else {
        0
    };
    let body = &source[skip..];
    let (mut blocks, mut code) = match format {
        Format::Markdown => markdown::blocks_and_code(body),
        Format::Rst => rst::blocks_and_code(body),
        Format::Latex => latex::blocks_and_code(body),
        Format::Plain => plain::blocks_and_code(body),
    };
    if matches!(format, Format::Markdown | Format::Rst) {
        pseudo_heading::promote(body, &mut blocks);
    }
    if skip > 0 {
        for block in &mut blocks {
            block.shift(skip);
        }
        for span in &mut code {
            *span = span.shifted(skip);
        }
    }
    (blocks, code)
}

impl Block {
    /// Moves every source offset of the block `by` bytes later.
    fn shift(&mut self, by: usize) {
        match self {
            Block::Heading { span, .. } | Block::DisableNext { span } => *span = span.shifted(by),
            Block::Prose { span, prose, .. } => {
                *span = span.shifted(by);
                prose.shift(by);
            }
            Block::Break => {}
        }
    }

    /// Moves every source offset of the block to `to(offset)`.
    fn move_source(&mut self, to: &impl Fn(usize) -> usize) {
        let moved = |s: &Span| Span::new(to(s.start), to(s.end));
        match self {
            Block::Heading { span, .. } | Block::DisableNext { span } => *span = moved(span),
            Block::Prose { span, prose, .. } => {
                *span = moved(span);
                prose.move_source(to);
            }
            Block::Break => {}
        }
    }
}

/// Groups parser blocks into sections and paragraphs, splitting sentences.
pub fn assemble(blocks: &[Block]) -> Document {
    let mut doc = Document::default();
    let mut section = Section::default();
    let mut can_attach = false;
    // Whether a skipped block stands between the last paragraph and what comes next.
    let mut after_block = false;
    let mut disable_next: Option<Span> = None;
    for block in blocks {
        match block {
            Block::Heading { span, title, level } => {
                finish_section(&mut doc, std::mem::take(&mut section));
                section.heading = Some(Heading {
                    span: *span,
                    title: title.clone(),
                    level: *level,
                });
                section.span = *span;
                can_attach = false;
                after_block = false;
            }
            Block::Break => {
                can_attach = false;
                after_block = !section.paragraphs.is_empty();
            }
            Block::DisableNext { span } => disable_next = Some(*span),
            Block::Prose {
                span,
                prose,
                attach,
                item,
            } => {
                let sentences = split_prose(prose);
                if sentences.is_empty() {
                    continue;
                }
                if !*item && (copyright_notice(&sentences) || byline::byline(&sentences)) {
                    // Metadata: it stands between paragraphs as a skipped block does.
                    can_attach = false;
                    after_block = !section.paragraphs.is_empty();
                    continue;
                }
                match section.paragraphs.last_mut() {
                    Some(last) if *attach && can_attach => {
                        last.span = last.span.cover(*span);
                        last.sentences.extend(sentences);
                    }
                    Some(last)
                        if after_block
                            && !*item
                            && disable_next.is_none()
                            && continues(last, &sentences[0]) =>
                    {
                        // A sentence that a block (code, math) cut in two goes on after it: the
                        // paragraph, block included, is one unit.
                        if last.own_sentences == last.sentences.len() {
                            last.own_sentences += sentences.len();
                            last.blocks_inside = true;
                        }
                        last.span = last.span.cover(*span);
                        last.sentences.extend(sentences);
                    }
                    _ => {
                        let disable_comment = disable_next.take();
                        section.paragraphs.push(Paragraph {
                            span: *span,
                            own_sentences: sentences.len(),
                            sentences,
                            disabled: disable_comment.is_some(),
                            disable_comment,
                            list: *item,
                            after_block,
                            blocks_inside: prose.holds_block(),
                        });
                    }
                }
                can_attach = true;
                after_block = false;
            }
        }
    }
    finish_section(&mut doc, section);
    doc
}

/// Whether `next`, the first sentence after a skipped block, continues the last sentence of
/// `last` that the block cut off: that sentence is unfinished, or `next` opens in lower case.
fn continues(last: &Paragraph, next: &Sentence) -> bool {
    let Some(before) = last.sentences.last() else {
        return false;
    };
    let lower = next
        .text
        .chars()
        .find(|c| c.is_alphanumeric())
        .is_some_and(char::is_lowercase);
    let has_structure = last.list || last.own_sentences < last.sentences.len();
    (before.ending() == Ending::Unfinished && !has_structure) || lower
}

/// Most sentences in a copyright notice ([`copyright_notice`]): "Copyright 2010 The Go Authors.
/// All rights reserved. Use of this source code is governed by a BSD-style licence."
const NOTICE_SENTENCES: usize = 3;

/// Whether `sentences`, a paragraph of their own, are a copyright notice: the first opens with
/// "Copyright", "©" or "(c)" followed by a year or the sign ("Copyright (c) 2000-2002 by Timo
/// Sirainen, release under GNU FDL 1.1 license."). An essay's "Copyright law protects …" is prose.
fn copyright_notice(sentences: &[Sentence]) -> bool {
    if sentences.len() > NOTICE_SENTENCES {
        return false;
    }
    let Some(first) = sentences.first() else {
        return false;
    };
    let mut words = first.text.split_whitespace();
    let is_sign = |w: &str| matches!(w.to_lowercase().as_str(), "©" | "(c)");
    let is_year = |w: &str| {
        let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
        digits.len() == 4 && matches!(digits.as_bytes()[0], b'1' | b'2')
    };
    match words.next() {
        Some(w) if w.eq_ignore_ascii_case("copyright") => {
            words.next().is_some_and(|w| is_sign(w) || is_year(w))
        }
        Some(w) if is_sign(w) => words.next().is_some_and(is_year),
        _ => false,
    }
}

/// Most words in a label that stands for its list's heading ("Design principles:").
pub const LABEL_WORDS: usize = 4;

/// Whether `p` is a list under a label of its own: one short sentence ending in a colon, then
/// the list's items.
fn labelled_list(p: &Paragraph) -> bool {
    p.own_sentences == 1
        && p.sentences.len() > 1
        && p.sentences.first().is_some_and(|s| {
            s.ending() == Ending::LeadIn && s.text.split_whitespace().count() <= LABEL_WORDS
        })
}

fn finish_section(doc: &mut Document, mut section: Section) {
    if section.heading.is_none() && section.paragraphs.is_empty() {
        return;
    }
    for p in &mut section.paragraphs {
        p.list |= labelled_list(p);
    }
    if let Some(last) = section.paragraphs.last() {
        let first = section
            .heading
            .as_ref()
            .map_or(section.paragraphs[0].span, |h| h.span);
        section.span = first.cover(last.span);
    }
    doc.sections.push(section);
}

/// Prose blocks whose sentence bounds [`split_prose`] keeps (per generation; see
/// [`memo::Memo`]): a few times the blocks of a 100,000-word document.
const MEMO_BLOCKS: usize = 16_384;

/// The sentences of a block's clean text ([`sentence::split`]): each one's range in the text,
/// trimmed, and its clean text (whitespace collapsed), leaving out those with no letter or digit.
/// Memoized per text for the whole process (the language server segments the whole document
/// after every keystroke, though one block changed).
type Bounds = std::sync::Arc<[(std::ops::Range<usize>, Box<str>)]>;

fn sentence_bounds(text: &str) -> Bounds {
    static MEMO: std::sync::OnceLock<memo::Memo<Bounds>> = std::sync::OnceLock::new();
    MEMO.get_or_init(|| memo::Memo::new(MEMO_BLOCKS))
        .get_or(text, |t| {
            sentence::split(t)
                .into_iter()
                .filter_map(|r| {
                    let raw = &t[r.clone()];
                    let lead = raw.len() - raw.trim_start().len();
                    let trail = raw.len() - raw.trim_end().len();
                    let (s, e) = (r.start + lead, r.end - trail);
                    if s >= e {
                        return None;
                    }
                    let clean = collapse_whitespace(&t[s..e]);
                    if !clean.chars().any(char::is_alphanumeric) {
                        return None;
                    }
                    Some((s..e, clean.into_boxed_str()))
                })
                .collect()
        })
}

/// Splits a prose block into sentences with source spans.
pub fn split_prose(prose: &ProseText) -> Vec<Sentence> {
    sentence_bounds(prose.text())
        .iter()
        .filter_map(|(r, clean)| {
            // A sentence wholly inside the source of the one before (both inside one piece of
            // markup, such as a code span over several lines) has no source of its own.
            let span = prose.source_span(r.start, r.end);
            if span.is_empty() {
                return None;
            }
            Some(Sentence {
                span,
                text: clean.to_string(),
            })
        })
        .collect()
}

fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Checks shared by every parser's tests.
#[cfg(test)]
pub(crate) mod test_support {
    use super::{parse, Block, Format};

    /// Every block and sentence span of `src` parsed as `format` is a valid char-boundary slice,
    /// and sentences come in source order without overlapping.
    pub(crate) fn check_spans(src: &str, format: Format) {
        for b in super::blocks(src, format) {
            let span = match &b {
                Block::Heading { span, .. } | Block::Prose { span, .. } => *span,
                Block::DisableNext { span } => *span,
                Block::Break => continue,
            };
            assert!(src.get(span.range()).is_some(), "block span {span:?}");
        }
        let mut last_end = 0;
        for s in parse(src, format).sentences() {
            let span = s.span;
            assert!(src.get(span.range()).is_some(), "sentence span {span:?}");
            assert!(!span.is_empty());
            assert!(
                span.start >= last_end,
                "{span:?} overlaps the sentence before"
            );
            last_end = span.end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The sections of `doc` as (heading span and title, paragraph spans, sentence spans).
    type Shape = Vec<(Option<(Span, String)>, Vec<Span>, Vec<Span>)>;

    fn shape(doc: &Document, shift: usize) -> Shape {
        doc.sections
            .iter()
            .map(|s| {
                (
                    s.heading
                        .as_ref()
                        .map(|h| (h.span.shifted(shift), h.title.clone())),
                    s.paragraphs.iter().map(|p| p.span.shifted(shift)).collect(),
                    s.paragraphs
                        .iter()
                        .flat_map(|p| p.sentences.iter().map(|t| t.span.shifted(shift)))
                        .collect(),
                )
            })
            .collect()
    }

    /// A leading byte-order mark changes nothing but the offsets, which still point into the
    /// file: the same document, every span three bytes later.
    fn same_after_a_bom(src: &str, format: Format) {
        let with = format!("{BOM}{src}");
        let doc = parse(&with, format);
        assert_eq!(shape(&doc, 0), shape(&parse(src, format), BOM.len_utf8()));
        for s in doc.sentences() {
            assert!(s.span.start >= BOM.len_utf8(), "{:?}", s.span);
            assert!(with.get(s.span.range()).is_some());
        }
    }

    #[test]
    fn a_list_under_a_short_label_is_a_list() {
        // yazl's README: "Design principles:" over its bullets.
        let src = "yet another zip library for node.\n\nDesign principles:\n\n\
                   * Don't block the JavaScript thread.\n* Keep memory usage under control.\n\n\
                   The library reads these files:\n\n* one at a time.\n";
        for format in [Format::Markdown, Format::Plain] {
            let doc = parse(src, format);
            let lists: Vec<bool> = doc.paragraphs().map(|p| p.list).collect();
            // A sentence that leads into its list stays prose.
            assert_eq!(lists, vec![false, true, false], "{format:?}");
        }
    }

    #[test]
    fn a_copyright_notice_is_not_prose() {
        // irssi's startup-howto.txt under its title; an essay on copyright stays prose.
        let src = "To new Irssi users.\n\nCopyright (c) 2000-2002 by Timo Sirainen, release \
                   under GNU FDL 1.1 license.\n\nIndex with some questions.\n\n\
                   Copyright law protects authors. It lasts for decades.\n\n\
                   \u{a9} 2024 The Authors. All rights reserved.\n";
        for format in [Format::Markdown, Format::Plain, Format::Rst] {
            let doc = parse(src, format);
            let firsts: Vec<&str> = doc
                .paragraphs()
                .map(|p| p.sentences[0].text.as_str())
                .collect();
            assert_eq!(
                firsts,
                vec![
                    "To new Irssi users.",
                    "Index with some questions.",
                    "Copyright law protects authors."
                ],
                "{format:?}"
            );
        }
    }

    #[test]
    fn paragraphs_are_numbered_across_sections() {
        let doc = parse("# A\n\nOne.\n\nTwo.\n\n# B\n\nThree.\n", Format::Markdown);
        let numbered: Vec<usize> = doc
            .sections
            .iter()
            .enumerate()
            .flat_map(|(s, sec)| (0..sec.paragraphs.len()).map(move |p| (s, p)))
            .map(|(s, p)| doc.paragraph_number(s, p))
            .collect();
        assert_eq!(numbered, vec![1, 2, 3]);
    }

    #[test]
    fn a_byte_order_mark_is_not_text_in_any_format() {
        let markdown = "# Title\n\nThe first paragraph is here. It goes on.\n\nThe second one.\n";
        let doc = parse(&format!("{BOM}{markdown}"), Format::Markdown);
        let heading = doc.sections[0].heading.as_ref().expect("a heading");
        assert_eq!(heading.title, "Title");
        assert_eq!(heading.span, Span::new(3, 10));
        assert_eq!(doc.paragraphs().count(), 2);
        same_after_a_bom(markdown, Format::Markdown);
        same_after_a_bom(
            "\\section{Title}\n\nThe first paragraph. It goes on.\n\nThe second one.\n",
            Format::Latex,
        );
        same_after_a_bom(
            "Title\n=====\n\nThe first paragraph. It goes on.\n\nThe second one.\n",
            Format::Rst,
        );
        same_after_a_bom(
            "TITLE\n\nThe first paragraph. It goes on.\n\nThe second one.\n",
            Format::Plain,
        );
    }

    proptest! {
        #[test]
        fn a_byte_order_mark_only_shifts_spans(src in "[#=\\-* \\n\\\\a-zA-Z.{}]{0,80}") {
            for format in Format::ALL {
                same_after_a_bom(&src, format);
            }
        }
    }
}
