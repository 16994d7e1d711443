//! Documents whose sentences were split elsewhere: a corpus that arrives as paragraphs of
//! sentences (`segue score --jsonl`'s `paragraphs` input, the JSONL corpora).
//!
//! [`presplit`] keeps the given sentence bounds and builds a plain source for them (sentences
//! joined by a space, paragraphs by a blank line), so that every span points into a real text
//! and the rest of the system treats the document like a parsed one.

use super::{Document, Paragraph, Section, Sentence, Span};

/// A document of one section whose paragraphs hold `paragraphs`' sentences, in order, and the
/// source its spans point into: each sentence with its runs of whitespace collapsed to one space,
/// sentences joined by a space and paragraphs by a blank line. Sentences with no text and
/// paragraphs with no sentence left are dropped, so every paragraph of the document has
/// sentences, as for [`super::parse`].
pub fn presplit<P, S>(paragraphs: &[P]) -> (String, Document)
where
    P: AsRef<[S]>,
    S: AsRef<str>,
{
    let mut source = String::new();
    let mut section = Section::default();
    for given in paragraphs {
        let mut paragraph = Paragraph::default();
        for sentence in given.as_ref() {
            let text = sentence
                .as_ref()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if text.is_empty() {
                continue;
            }
            if paragraph.sentences.is_empty() {
                if !source.is_empty() {
                    source.push_str("\n\n");
                }
            } else {
                source.push(' ');
            }
            let start = source.len();
            source.push_str(&text);
            paragraph.sentences.push(Sentence {
                span: Span::new(start, source.len()),
                text,
            });
        }
        let (Some(first), Some(last)) = (paragraph.sentences.first(), paragraph.sentences.last())
        else {
            continue;
        };
        paragraph.span = Span::new(first.span.start, last.span.end);
        paragraph.own_sentences = paragraph.sentences.len();
        section.paragraphs.push(paragraph);
    }
    let mut doc = Document::default();
    if let (Some(first), Some(last)) = (section.paragraphs.first(), section.paragraphs.last()) {
        section.span = Span::new(first.span.start, last.span.end);
        doc.sections.push(section);
    }
    (source, doc)
}

#[cfg(test)]
mod tests {
    use super::presplit;

    #[test]
    fn spans_point_at_the_given_sentences() {
        let (source, doc) = presplit(&[
            vec!["The cat sat.", "  It  purred.\n"],
            vec![],
            vec!["", "Dogs bark."],
        ]);
        assert_eq!(source, "The cat sat. It purred.\n\nDogs bark.");
        assert_eq!(doc.sections.len(), 1);
        let paragraphs: Vec<_> = doc.paragraphs().collect();
        assert_eq!(paragraphs.len(), 2);
        assert_eq!(paragraphs[0].own_sentences, 2);
        assert_eq!(paragraphs[0].span.slice(&source), "The cat sat. It purred.");
        let texts: Vec<_> = doc
            .sentences()
            .map(|s| (s.span.slice(&source), s.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                ("The cat sat.", "The cat sat."),
                ("It purred.", "It purred."),
                ("Dogs bark.", "Dogs bark.")
            ]
        );
    }

    #[test]
    fn no_sentences_is_an_empty_document() {
        let (source, doc) = presplit::<Vec<&str>, &str>(&[vec![" "], vec![]]);
        assert!(source.is_empty());
        assert!(doc.sections.is_empty());
    }
}
