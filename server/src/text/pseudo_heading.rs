//! Lines in bold or italics that stand for a heading.
//!
//! Writers of Markdown and reStructuredText often mark a sub-heading, or a FAQ's question, with
//! emphasis alone (`**Cool, but will it work on my system?**`) instead of heading markup —
//! markdownlint's rule MD036 names the habit. Such a line opens what follows it; it is not a
//! sentence of the running text. This pass turns it into a [`Block::Heading`]: a paragraph, or
//! a list of one item, whose whole text is one emphasised span on one line, with at most
//! [`MAX_WORDS`] words and no final `.`, `,`, `;`, `:` or `!` (a question mark is allowed).
//! A paragraph that opens with a question or an exclamation in bold (`**` or `__`) and goes on
//! after it is split in two: the bold sentence becomes the heading, the rest the paragraph. That
//! is a FAQ's run-in question (`**How does Trio make programs easier to read?** Trio is …`), or
//! a reader's wish it answers (`**I want to try it out!** Awesome! We have …`). A bold statement
//! (`**Back up first.** Then …`) is emphasis within the running text and stays, as do a bold label
//! (`**Note:**`, `**NEW:**`) and a bold word whose sentence goes on (`**correctness**. …`).

use super::{Block, Span};

/// Most words in an emphasised line read as a heading.
const MAX_WORDS: usize = 20;

/// Turns emphasised lines in `blocks` (spans into `source`) into headings, one level below the
/// heading before them, and splits a run-in bold sentence off the paragraph it opens.
pub fn promote(source: &str, blocks: &mut Vec<Block>) {
    let mut level = 1;
    let mut i = 0;
    while i < blocks.len() {
        let lone = lone_line(blocks, i);
        match &blocks[i] {
            Block::Heading { level: l, .. } => level = *l,
            Block::Prose { span, item, .. } if lone => {
                if let Some(title) = emphasised_title(span.slice(source), *item) {
                    let span: Span = *span;
                    blocks[i] = Block::Heading {
                        span,
                        title,
                        level: level.saturating_add(1).min(6),
                    };
                } else if let Some((span, title, rest)) = run_in_lead(source, &blocks[i]) {
                    blocks[i] = Block::Heading {
                        span,
                        title,
                        level: level.saturating_add(1).min(6),
                    };
                    blocks.insert(i + 1, rest);
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// A paragraph that opens with a sentence in bold and goes on after it (a FAQ's `**How does
/// Trio make programs easier to read?** Trio is based on …`), split into the bold sentence (its
/// span and title, for a heading) and the rest, as the paragraph.
fn run_in_lead(source: &str, block: &Block) -> Option<(Span, String, Block)> {
    let Block::Prose {
        span,
        prose,
        attach: false,
        item: false,
    } = block
    else {
        return None;
    };
    let raw = span.slice(source);
    let delimiter = ["**", "__"].into_iter().find(|d| raw.starts_with(d))?;
    let close = raw[delimiter.len()..].find(delimiter)? + delimiter.len();
    let inner = raw[delimiter.len()..close].trim();
    let words = inner.split_whitespace().count();
    let after = close + delimiter.len();
    let rest = raw[after..].trim_start();
    let sentence = inner.ends_with(['?', '!'])
        && !inner.starts_with(['*', '_'])
        && inner.chars().any(char::is_alphabetic);
    let answered = raw[after..].starts_with(char::is_whitespace) && !rest.is_empty();
    if !(sentence && answered && (1..=MAX_WORDS).contains(&words)) {
        return None;
    }
    let title = inner.split_whitespace().collect::<Vec<_>>().join(" ");
    let rest_start = span.start + raw.len() - rest.len();
    let answer = prose.from_source(rest_start);
    if answer.is_blank() {
        return None;
    }
    Some((
        Span::new(span.start, span.start + after),
        title,
        Block::Prose {
            span: Span::new(rest_start, span.end),
            prose: answer,
            attach: false,
            item: false,
        },
    ))
}

/// Whether block `i` is a paragraph, or an item of a list with no other item: an item next to
/// another item is part of a list, whatever its markup.
fn lone_line(blocks: &[Block], i: usize) -> bool {
    let is_item = |b: Option<&Block>| matches!(b, Some(Block::Prose { item: true, .. }));
    match &blocks[i] {
        Block::Prose {
            item: false,
            attach,
            ..
        } => !attach,
        Block::Prose { item: true, .. } => {
            !is_item(i.checked_sub(1).and_then(|k| blocks.get(k))) && !is_item(blocks.get(i + 1))
        }
        _ => false,
    }
}

/// The title of `raw` (a block's source) when it is one emphasised line: `**Title**`,
/// `__Title__`, `*Title*` or `_Title_`, after a list marker when `item`.
fn emphasised_title(raw: &str, item: bool) -> Option<String> {
    let mut t = raw.trim();
    if t.contains('\n') {
        return None;
    }
    if item {
        t = strip_marker(t)?;
    }
    let delimiter = ["**", "__", "*", "_"]
        .into_iter()
        .find(|d| t.starts_with(d) && t.ends_with(d) && t.len() > 2 * d.len())?;
    let inner = t[delimiter.len()..t.len() - delimiter.len()].trim();
    let words = inner.split_whitespace().count();
    let unmarked = !inner.contains(delimiter) && !inner.starts_with(['*', '_']);
    let ends = inner
        .chars()
        .next_back()
        .is_some_and(|c| matches!(c, '.' | ',' | ';' | ':' | '!'));
    (unmarked
        && !ends
        && (1..=MAX_WORDS).contains(&words)
        && inner.chars().any(char::is_alphabetic))
    .then(|| inner.to_string())
}

/// `t` without its list marker (`* `, `- `, `+ `, `1. `, `1) `), if it opens with one.
fn strip_marker(t: &str) -> Option<&str> {
    if let Some(rest) = t.strip_prefix(['*', '-', '+']) {
        return rest.strip_prefix(' ').map(str::trim_start);
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = t.get(digits..)?;
    (digits > 0)
        .then(|| rest.strip_prefix(['.', ')']))
        .flatten()
        .and_then(|r| r.strip_prefix(' '))
        .map(str::trim_start)
}

#[cfg(test)]
mod tests {
    use crate::text::{parse, Format};

    fn headings(src: &str, format: Format) -> Vec<(String, u8)> {
        parse(src, format)
            .sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| (h.title.clone(), h.level)))
            .collect()
    }

    #[test]
    fn a_bold_line_is_a_heading_in_markdown_and_rst() {
        // From published documents: a README's bold question, a guide's bold sub-heading, and a
        // FAQ whose questions are one-item lists.
        let md = "# Trio\n\nTrio is a library.\n\n**Cool, but will it work on my system?**\n\nProbably! It runs on Python 3.10.\n\n  * **2.17 How do I Verify I have an Authentic Source Package?**\n\n  Current maintainer is Milan Broz.\n";
        assert_eq!(
            headings(md, Format::Markdown),
            vec![
                ("Trio".to_string(), 1),
                ("Cool, but will it work on my system?".to_string(), 2),
                (
                    "2.17 How do I Verify I have an Authentic Source Package?".to_string(),
                    2
                ),
            ]
        );
        let rst = "Contributing\n============\n\nSome text here.\n\n**Okay, that's what I CAN do, but what SHOULD I do?**\n\nWe suggest this.\n";
        assert_eq!(
            headings(rst, Format::Rst),
            vec![
                ("Contributing".to_string(), 1),
                (
                    "Okay, that's what I CAN do, but what SHOULD I do?".to_string(),
                    2
                ),
            ]
        );
    }

    #[test]
    fn a_run_in_question_opens_its_answer() {
        // As trio's README asks and answers its questions.
        let md = "# Trio\n\nTrio is a library.\n\n**How does Trio make programs easier to read and reason about than\ncompeting approaches?** Trio is based on a new way of thinking. It is neat.\n\n**Note:** this stays. **Why?** Because.\n";
        let doc = parse(md, Format::Markdown);
        assert_eq!(
            headings(md, Format::Markdown),
            vec![
                ("Trio".to_string(), 1),
                (
                    "How does Trio make programs easier to read and reason about than competing approaches?"
                        .to_string(),
                    2
                ),
            ]
        );
        let answer = &doc.sections[1].paragraphs[0];
        let texts: Vec<&str> = answer.sentences.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            vec!["Trio is based on a new way of thinking.", "It is neat."]
        );
        assert_eq!(
            answer.span.slice(md).split_whitespace().next(),
            Some("Trio")
        );
        assert_eq!(
            answer.sentences[0].span.slice(md),
            "Trio is based on a new way of thinking."
        );
        // A bold label that is not a question stays in its paragraph.
        assert_eq!(doc.sections[1].paragraphs.len(), 2);
    }

    #[test]
    fn a_run_in_bold_sentence_opens_what_follows() {
        // trio's README answers a reader's wishes and complaints the way it answers questions;
        // labels and bold words inside a sentence stay where they are (dotenv's README, trio's,
        // Django's tutorial).
        let rst = "Trio\n====\n\nTrio is a library.\n\n**I want to try it out!** Awesome! We have a friendly tutorial.\n\n**Ugh, show me some code!** If you're in a hurry, look at this.\n\n**NEW:** Dotenv now has a CLI! Great for agents.\n\n**correctness**. Concurrency is complicated; we try to make it easy.\n\n**It doesn't matter**. Let them grow.\n\n**Back up first.** Then run it.\n";
        let doc = parse(rst, Format::Rst);
        assert_eq!(
            headings(rst, Format::Rst),
            vec![
                ("Trio".to_string(), 1),
                ("I want to try it out!".to_string(), 2),
                ("Ugh, show me some code!".to_string(), 2),
            ]
        );
        let first = |k: usize| doc.sections[k].paragraphs[0].sentences[0].text.clone();
        assert_eq!(first(1), "Awesome!");
        assert_eq!(first(2), "If you're in a hurry, look at this.");
        // The labels, the bold words and the bold statement stay in the last section's
        // paragraphs.
        assert_eq!(doc.sections[2].paragraphs.len(), 5);
    }

    #[test]
    fn emphasis_inside_running_text_or_lists_stays_prose() {
        let md = "Intro.\n\n**Note:** the parser is slow.\n\n*This sentence is emphasised throughout.*\n\n- **One**\n- **Two**\n\n**Bold\nover two lines**\n\nEnd.\n";
        assert!(headings(md, Format::Markdown).is_empty());
        let rst = "Intro.\n\n*Stress this point.*\n\nEnd.\n";
        assert!(headings(rst, Format::Rst).is_empty());
    }
}
