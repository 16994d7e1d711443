//! Markdown → prose blocks, via pulldown-cmark's offset iterator.
//!
//! Decisions (documented in docs/guide.md):
//! - ATX and setext headings open sections.
//! - Fenced and indented code, HTML blocks, tables, front matter (YAML `---` / TOML `+++`),
//!   display math, footnote definitions and link reference definitions are skipped.
//! - Inline code, links, emphasis and inline math keep their text; images are dropped.
//! - List items and block quotes attach to the paragraph right before them (as the seed 000
//!   corpora do with bullet lists); a list or quote with no paragraph before it opens its own.
//!   Each list item is split into sentences on its own.

use super::{Block, ProseText, Span};
use pulldown_cmark::{Event, MetadataBlockKind, Options, Parser, Tag, TagEnd};

/// The comment that suppresses findings on the next paragraph.
pub const DISABLE_NEXT: &str = "segue-disable-next";

/// Splits Markdown source into blocks.
pub fn blocks(source: &str) -> Vec<Block> {
    blocks_and_code(source).0
}

/// [`blocks`], and the source spans of the code blocks (fenced or indented) among what they
/// leave out, fences included ([`super::incremental`] reads them).
pub(crate) fn blocks_and_code(source: &str) -> (Vec<Block>, Vec<Span>) {
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_MATH
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    let mut b = Builder::new(source);
    for (event, range) in Parser::new_ext(source, opts).into_offset_iter() {
        b.event(event, Span::from(range));
    }
    b.flush();
    (b.out, b.code)
}

struct Builder<'a> {
    source: &'a str,
    out: Vec<Block>,
    /// Nesting depth of skipped constructs (code, tables, images, metadata, footnotes).
    skip: usize,
    /// Current prose being collected and the span of the block that owns it.
    prose: Option<(Span, ProseText, bool)>,
    heading: Option<(Span, u8, ProseText)>,
    /// The list items (`true`) and block quotes (`false`) we are inside, innermost last.
    attached: Vec<bool>,
    /// The spans of the code blocks.
    code: Vec<Span>,
}

impl<'a> Builder<'a> {
    fn new(source: &'a str) -> Self {
        Builder {
            source,
            out: Vec::new(),
            skip: 0,
            prose: None,
            heading: None,
            attached: Vec::new(),
            code: Vec::new(),
        }
    }

    fn flush(&mut self) {
        if let Some((span, prose, attach)) = self.prose.take() {
            if !prose.is_blank() {
                let span = trim_span(self.source, span);
                self.out.push(Block::Prose {
                    span,
                    prose,
                    attach,
                    item: attach && self.attached.last() == Some(&true),
                });
            }
        }
    }

    fn begin(&mut self, span: Span) {
        self.flush();
        self.prose = Some((span, ProseText::new(), !self.attached.is_empty()));
    }

    fn target(&mut self) -> Option<&mut ProseText> {
        if self.skip > 0 {
            return None;
        }
        if let Some((_, _, p)) = self.heading.as_mut() {
            return Some(p);
        }
        self.prose.as_mut().map(|(_, p, _)| p)
    }

    fn push_text(&mut self, text: &str, span: Span) {
        let source = self.source;
        let Some(p) = self.target() else { return };
        if span.slice(source) == text {
            p.push_source(source, span);
        } else if let Some(i) = span.slice(source).find(text) {
            p.push_source(
                source,
                Span::new(span.start + i, span.start + i + text.len()),
            );
        } else {
            p.push_synthetic(text, span);
        }
    }

    fn event(&mut self, event: Event<'_>, span: Span) {
        match event {
            Event::Start(tag) => self.start(tag, span),
            Event::End(tag) => self.end(tag, span),
            Event::Text(t) => {
                if self.prose.is_none() && self.heading.is_none() && self.skip == 0 {
                    // Text directly inside a tight list item.
                    self.begin(span);
                }
                self.push_text(&t, span);
            }
            Event::Code(t) | Event::InlineMath(t) => {
                if self.prose.is_none() && self.heading.is_none() && self.skip == 0 {
                    self.begin(span);
                }
                self.push_text(&t, span);
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(p) = self.target() {
                    p.push_space(span);
                }
            }
            Event::DisplayMath(_) => {
                if let Some(p) = self.target() {
                    p.push_space(span);
                }
            }
            Event::Html(html) => {
                if html.contains(DISABLE_NEXT) && html.trim_start().starts_with("<!--") {
                    self.flush();
                    self.out.push(Block::DisableNext { span });
                }
            }
            Event::InlineHtml(_)
            | Event::FootnoteReference(_)
            | Event::TaskListMarker(_)
            | Event::Rule => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>, span: Span) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush();
                self.heading = Some((span, level as u8, ProseText::new()));
            }
            Tag::Paragraph if self.skip == 0 && self.heading.is_none() => {
                match self.prose.as_mut() {
                    // A second paragraph inside the same list item continues it.
                    Some((s, p, true)) if !self.attached.is_empty() => {
                        p.push_space(Span::new(s.end, span.start));
                        *s = s.cover(span);
                    }
                    _ => self.begin(span),
                }
            }
            Tag::Item if self.skip == 0 => {
                self.flush();
                self.attached.push(true);
                self.prose = Some((span, ProseText::new(), true));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.attached.push(false);
            }
            Tag::CodeBlock(_)
            | Tag::Table(_)
            | Tag::Image { .. }
            | Tag::MetadataBlock(MetadataBlockKind::YamlStyle | MetadataBlockKind::PlusesStyle)
            | Tag::FootnoteDefinition(_)
            | Tag::HtmlBlock => {
                if matches!(tag, Tag::CodeBlock(_)) {
                    self.code.push(span);
                }
                if !matches!(tag, Tag::Image { .. }) {
                    self.flush();
                    self.out.push(Block::Break);
                }
                self.skip += 1;
            }
            Tag::List(_) => {
                // A nested list ends the text of the item that holds it.
                self.flush();
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd, span: Span) {
        match tag {
            TagEnd::Heading(_) => {
                if let Some((hspan, level, prose)) = self.heading.take() {
                    let title = prose
                        .text()
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ");
                    self.out.push(Block::Heading {
                        span: trim_span(self.source, hspan),
                        title,
                        level,
                    });
                }
            }
            TagEnd::Paragraph if self.skip == 0 && self.attached.is_empty() => {
                if let Some((s, _, _)) = self.prose.as_mut() {
                    *s = s.cover(span);
                }
                self.flush();
            }
            TagEnd::Item if self.skip == 0 => {
                self.flush();
                self.attached.pop();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.attached.pop();
            }
            TagEnd::CodeBlock
            | TagEnd::Table
            | TagEnd::Image
            | TagEnd::MetadataBlock(_)
            | TagEnd::FootnoteDefinition
            | TagEnd::HtmlBlock => {
                self.skip = self.skip.saturating_sub(1);
            }
            _ => {}
        }
    }
}

/// Trims trailing whitespace (and line ends) off a block span.
fn trim_span(source: &str, span: Span) -> Span {
    let s = span.slice(source);
    let trimmed = s.trim_end();
    Span::new(span.start, span.start + trimmed.len())
}

#[cfg(test)]
mod tests {
    use crate::text::{parse, Format};

    fn sentences(src: &str) -> Vec<Vec<String>> {
        parse(src, Format::Markdown)
            .paragraphs()
            .map(|p| p.sentences.iter().map(|s| s.text.clone()).collect())
            .collect()
    }

    #[test]
    fn skips_code_tables_front_matter_and_math() {
        let src = "---\ntitle: x\n---\n\n# Title\n\nFirst *para* has `code`. It ends.\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n$$\nx^2\n$$\n\n[ref]: http://example.com\n\n    indented code\n\nLast [link](http://x.y) para.\n";
        assert_eq!(
            sentences(src),
            vec![
                vec!["First para has code.".to_string(), "It ends.".to_string()],
                vec!["Last link para.".to_string()]
            ]
        );
    }

    #[test]
    fn headings_open_sections_and_spans_map_to_source() {
        let src = "Intro here.\n\n## Part *one*\n\nA **bold** claim. Then more.\n\nSetext\n------\n\nText.\n";
        let doc = parse(src, Format::Markdown);
        assert_eq!(doc.sections.len(), 3);
        assert_eq!(doc.sections[1].heading.as_ref().unwrap().title, "Part one");
        let p = &doc.sections[1].paragraphs[0];
        assert_eq!(p.sentences[0].span.slice(src), "A **bold** claim.");
        assert_eq!(p.span.slice(src), "A **bold** claim. Then more.");
        assert_eq!(doc.sections[2].heading.as_ref().unwrap().title, "Setext");
    }

    #[test]
    fn lists_and_quotes_attach_to_previous_paragraph() {
        let src = "Here are options:\n\n- first option\n- second option\n\n> A quote.\n\nNew para.\n\n- orphan item\n";
        let doc = parse(src, Format::Markdown);
        let paras: Vec<_> = doc.paragraphs().collect();
        assert_eq!(paras.len(), 2);
        assert_eq!(paras[0].sentences.len(), 4);
        assert_eq!(
            paras[0].span.slice(src),
            "Here are options:\n\n- first option\n- second option\n\n> A quote."
        );
        assert_eq!(paras[1].sentences.len(), 2);
    }

    #[test]
    fn disable_comment_marks_next_paragraph() {
        let src = "One.\n\n<!-- segue-disable-next -->\nTwo.\n\nThree.\n";
        let doc = parse(src, Format::Markdown);
        let flags: Vec<bool> = doc.paragraphs().map(|p| p.disabled).collect();
        assert_eq!(flags, vec![false, true, false]);
    }

    #[test]
    fn a_sentence_break_inside_a_multiline_code_span_does_not_overlap() {
        // The code span runs over a line break, so its text is not a slice of the source; a
        // sentence ended inside it and the next began inside it (found by fuzzing).
        let src = "A:ref:`\n`\n- A:ref:`A:ref:`a`_\n      1. A a:ref:`\n";
        crate::text::test_support::check_spans(src, Format::Markdown);
        let src = "Some `code. Split\nover lines. And` more text. End.\n";
        crate::text::test_support::check_spans(src, Format::Markdown);
    }
}
