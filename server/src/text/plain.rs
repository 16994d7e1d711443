//! Plain text: paragraphs are separated by blank lines.

use super::{Block, ProseText, Span};

/// Splits plain text into prose blocks at blank lines.
pub fn blocks(source: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut para: Option<(Span, ProseText)> = None;
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if content.trim().is_empty() {
            if let Some((span, prose)) = para.take() {
                out.push(Block::Prose {
                    span,
                    prose,
                    attach: false,
                    item: false,
                });
            }
            continue;
        }
        let line_span = Span::new(start, start + content.len());
        let (span, prose) = para.get_or_insert_with(|| (line_span, ProseText::new()));
        if !prose.text().is_empty() {
            prose.push_space(Span::new(span.end, line_span.start));
        }
        prose.push_source(source, line_span);
        *span = span.cover(line_span);
    }
    if let Some((span, prose)) = para {
        out.push(Block::Prose {
            span,
            prose,
            attach: false,
            item: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::text::{parse, Format};

    #[test]
    fn blank_lines_separate_paragraphs() {
        let src = "One line.\r\nStill one. Two.\r\n\r\n  \nNext para.\n";
        let doc = parse(src, Format::Plain);
        let paras: Vec<_> = doc.paragraphs().collect();
        assert_eq!(paras.len(), 2);
        assert_eq!(paras[0].span.slice(src), "One line.\r\nStill one. Two.");
        assert_eq!(paras[0].sentences.len(), 3);
        assert_eq!(paras[0].sentences[1].text, "Still one.");
        assert_eq!(paras[1].sentences[0].span.slice(src), "Next para.");
    }
}
