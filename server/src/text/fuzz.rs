//! Property fuzzing of [`parse`] in every format (driver: [`crate::fuzzing`]).
//!
//! Inputs are arbitrary Unicode strings and markup-heavy text built from the constructs the
//! parsers treat specially: headings and underlines, lists nested deep, code fences, `::` literal
//! blocks, directives, `\begin{…}` environments and braces left open, tables, comments, display
//! math, outline stars, Project Gutenberg markers and plain-text definition lists, with CRLF
//! line ends, a byte-order mark, emoji, CJK, combining marks and terminal overstrike (`P\bP`,
//! `_\bu`) mixed in. The property is [`check_spans`]: no panic, every block
//! and sentence span a char-boundary slice of the text, sentences non-empty and in order; and,
//! for the parsed document, every sentence inside its paragraph and every paragraph inside its
//! section.

use super::test_support::check_spans;
use super::{parse, Format, BOM};
use crate::fuzzing::fuzz;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// Words, including ones that are hard on byte offsets.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z]{1,8}",
        1 => select(vec![
            "naïve", "e\u{301}te\u{301}", "日本語", "中文句子", "👩‍👩‍👧", "🎉", "Ωμέγα", "ﬁ",
            "a\u{200b}b", "\u{feff}", "Dr.", "e.g.", "3.14", "...", "—", "«", "»", "\u{0}",
            // Terminal overstrike: bold, underline, a stray backspace, a struck multi-byte char.
            "P\u{8}Po\u{8}o", "_\u{8}u_\u{8}n", "\u{8}", "a\u{8}", "é\u{8}é", ".\u{8}.",
        ])
        .prop_map(str::to_string),
        1 => "\\PC{1,4}",
    ]
}

/// A run of words with sentence punctuation and inline markup.
fn words() -> impl Strategy<Value = String> {
    vec(
        (
            word(),
            select(vec![
                " ",
                " ",
                " ",
                ". ",
                "? ",
                "! ",
                ", ",
                "; ",
                "\t",
                "。",
                "*",
                "**",
                "`",
                "_",
                "$",
                "\\",
                "{",
                "}",
                "[",
                "](",
                ")",
                "<",
                ">",
                "|",
                "~",
                "%",
                "&",
                "\\\\",
                "\\emph{",
                "\\cite{",
                "\\footnote{",
                ":ref:`",
                "`_",
                "[^1]",
                "<!--",
                "-->",
            ]),
        ),
        0..12,
    )
    .prop_map(|ws| ws.into_iter().map(|(w, s)| w + s).collect())
}

/// One line of markup.
fn line() -> impl Strategy<Value = String> {
    let text = words;
    prop_oneof![
        6 => text(),
        1 => ("#{1,7}", text()).prop_map(|(h, t)| format!("{h} {t}")),
        1 => "[=\\-~^`#*+]{1,30}",
        1 => (" {0,12}", select(vec!["- ", "* ", "+ ", "1. ", "2) ", "#. ", "a. ", "> ", ">> "]), text())
            .prop_map(|(i, m, t)| format!("{i}{m}{t}")),
        1 => select(vec![
            "```", "```rust", "~~~", "    code()", "\tcode", "::", "Text::", ".. note::",
            ".. code-block:: python", ".. _label:", ".. comment", "..", ".. |sub| image:: x.png",
            "   indented continuation", "$$", "\\[", "\\]", "<div>", "</div>", "---", "***",
            "| a | b |", "|---|:-:|", "+----+----+", "| x  | y  |", "====  ====",
            "\\begin{document}", "\\end{document}", "\\begin{itemize}", "\\end{itemize}",
            "\\item", "\\begin{equation}", "\\end{equation}", "\\begin{verbatim}",
            "\\end{verbatim}", "\\begin{figure}[ht]", "\\end{figure}", "\\begin{", "\\end{",
            "\\begin{{{", "\\section{", "\\section*{Title}", "\\chapter{A {nested} title}",
            "\\subsection{", "\\verb|x", "\\iffalse", "\\fi", "\\documentclass{article}",
            "\\newcommand{\\x}{", "\\input{", "% comment", "%", "\\%", "\\\\", "{", "}",
            "}}}}", "{{{{", "<!-- segue-disable-next -->", "% segue-disable-next",
            ".. segue-disable-next", "[link]: http://x", "Term", "    Definition",
            "INTRODUCTION", "1. INTRODUCTION", "Chapter 1", "\u{feff}", "\r", "",
            "** Outline heading", "*** wraps", "*** START OF THE PROJECT GUTENBERG EBOOK X ***",
            "*** END OF THE PROJECT GUTENBERG EBOOK X ***", "End of Project Gutenberg's X",
            "'--term'", "     Its definition.",
        ])
        .prop_map(str::to_string),
        1 => "\\PC{0,20}",
    ]
}

/// Markup-heavy text: lines joined by LF or CRLF, sometimes behind a byte-order mark.
fn markup() -> impl Strategy<Value = String> {
    (
        vec(
            (
                line(),
                select(vec!["\n", "\n", "\n\n", "\r\n", "\r\n\r\n", ""]),
            ),
            0..40,
        ),
        any::<bool>(),
    )
        .prop_map(|(lines, bom)| {
            let mut out = String::new();
            if bom {
                out.push(BOM);
            }
            for (l, eol) in lines {
                out.push_str(&l);
                out.push_str(eol);
            }
            out
        })
}

/// [`check_spans`], and the nesting of the document's spans.
fn check(src: &str) -> Result<(), TestCaseError> {
    for format in Format::ALL {
        check_spans(src, format);
        for section in &parse(src, format).sections {
            prop_assert!(
                src.get(section.span.range()).is_some(),
                "{:?}",
                section.span
            );
            for p in &section.paragraphs {
                prop_assert!(!p.sentences.is_empty());
                prop_assert!(p.own_sentences <= p.sentences.len());
                prop_assert!(src.get(p.span.range()).is_some(), "{:?}", p.span);
                prop_assert!(
                    section.span.start <= p.span.start && p.span.end <= section.span.end,
                    "{format:?}: paragraph {:?} outside its section {:?}",
                    p.span,
                    section.span
                );
                for s in &p.sentences {
                    prop_assert!(
                        p.span.start <= s.span.start && s.span.end <= p.span.end,
                        "{format:?}: sentence {:?} outside its paragraph {:?}",
                        s.span,
                        p.span
                    );
                }
            }
        }
    }
    Ok(())
}

#[test]
fn fuzz_parse_arbitrary_strings() {
    fuzz(
        "parse_arbitrary_strings",
        file!(),
        vec(any::<char>(), 0..400).prop_map(String::from_iter),
        |src| check(&src),
    );
}

#[test]
fn fuzz_parse_printable_strings() {
    fuzz("parse_printable_strings", file!(), "\\PC{0,300}", |src| {
        check(&src)
    });
}

#[test]
fn fuzz_parse_markup() {
    fuzz("parse_markup", file!(), markup(), |src| check(&src));
}

/// Deep nesting: lists and quotes nested a few hundred levels, braces and environments left open.
#[test]
fn deep_nesting_parses() {
    let mut list = String::new();
    for depth in 0..300 {
        list.push_str(&" ".repeat(depth * 2));
        list.push_str("- An item one level deeper. It has two sentences.\n");
    }
    let quotes: String = (1..200)
        .map(|d| format!("{} A quoted line.\n", ">".repeat(d)))
        .collect();
    let braces = format!("\\section{{{}Title\n\nSome text. More.\n", "{".repeat(500));
    let environments = "\\begin{itemize}\n\\item Text here. More text.\n".repeat(200);
    for src in [list, quotes, braces, environments] {
        if let Err(e) = check(&src) {
            panic!("{e}");
        }
    }
}
