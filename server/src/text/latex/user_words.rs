//! Commands a document defines as a few words of text: `\newcommand{\latex}{\LaTeX\xspace}`,
//! `\def\pkgname{glossaries}`.
//!
//! Read as unknown commands without an argument, such shorthands would vanish, and a sentence
//! would lose its subject ("The \latex community is amazingly generous" reads "The community is
//! amazingly generous", and a heading "The \latex Community" loses the word the section is
//! about). Knowing what the document defined, the scanner reads them as their text.

use super::scan::{commands, skip_blanks};
use super::Action;
use std::collections::HashMap;

/// The definitions read: LaTeX's and plain TeX's.
const DEFINERS: &[&str] = &[
    "newcommand",
    "renewcommand",
    "providecommand",
    "DeclareRobustCommand",
    "def",
    "gdef",
    "edef",
    "xdef",
];

/// Longest body read, in bytes: a shorthand is short.
const MAX_BODY: usize = 120;

/// Most words a shorthand may stand for.
const MAX_WORDS: usize = 4;

/// The text of each command `source` defines without parameters as a few words
/// ([`words_of`]), outside comments. A later definition of the same name wins, as in TeX.
pub(super) fn user_words(source: &str) -> HashMap<String, String> {
    let b = source.as_bytes();
    let mut out = HashMap::new();
    for (_, after) in commands(source, DEFINERS) {
        let mut j = skip_blanks(b, after);
        if b.get(j) == Some(&b'*') {
            j = skip_blanks(b, j + 1);
        }
        let braced = b.get(j) == Some(&b'{');
        if braced {
            j = skip_blanks(b, j + 1);
        }
        if b.get(j) != Some(&b'\\') {
            continue;
        }
        let name_start = j + 1;
        let mut k = name_start;
        while b.get(k).is_some_and(u8::is_ascii_alphabetic) {
            k += 1;
        }
        let Some(name) = source.get(name_start..k).filter(|n| !n.is_empty()) else {
            continue;
        };
        j = k;
        if braced {
            j = skip_blanks(b, j);
            if b.get(j) != Some(&b'}') {
                continue;
            }
            j += 1;
        }
        // Without parameters (`[1]`, `#1`), the body follows at once.
        j = skip_blanks(b, j);
        match group(source, j).and_then(words_of) {
            Some(text) => out.insert(name.to_string(), text),
            None => out.remove(name),
        };
    }
    out
}

/// The inside of the braced group opening at `at`, if it closes within [`MAX_BODY`] bytes.
fn group(source: &str, at: usize) -> Option<&str> {
    let b = source.as_bytes();
    if b.get(at) != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut i = at;
    while i < b.len().min(at + MAX_BODY) {
        match b[i] {
            b'\\' => i += 1,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return source.get(at + 1..i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The text a definition's body stands for, when it is a few words: letters, digits, spaces,
/// hyphens, periods and apostrophes, empty groups, `~`, `\xspace` and `\@`, and the commands
/// Segue reads as text without arguments (`\LaTeX`, `\TeX`, `\ae`). Anything else (a parameter,
/// math, another command) makes it more than text: `None`.
fn words_of(body: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                let rest = &body[at + 1..];
                let name: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
                if name.is_empty() {
                    // `\@` (a sentence-spacing hint), `\ ` (a space), `\/` (italic correction).
                    match chars.next() {
                        Some((_, ' ')) => out.push(' '),
                        Some((_, '@' | '/')) => {}
                        _ => return None,
                    }
                    continue;
                }
                for _ in 0..name.len() {
                    chars.next();
                }
                match name.as_str() {
                    "xspace" | "relax" | "protect" => {}
                    _ => match super::action(&name) {
                        Some(Action::Text(text, "")) => out.push_str(text),
                        _ => return None,
                    },
                }
            }
            '{' | '}' => {}
            '~' => out.push(' '),
            c if c.is_alphanumeric() || matches!(c, ' ' | '-' | '.' | '\'' | '\n') => {
                out.push(if c == '\n' { ' ' } else { c });
            }
            _ => return None,
        }
    }
    let text = out.split_whitespace().collect::<Vec<_>>().join(" ");
    let words = text.split(' ').count();
    (text.chars().any(char::is_alphabetic) && words <= MAX_WORDS).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorthands_for_a_few_words_are_read_as_them() {
        // makecookbook-doc.tex and glossaries' guides define their names so.
        let src = "\\newcommand{\\latex}{\\LaTeX\\xspace}\n\\def\\pkg{glossaries}\n\
                   \\newcommand*\\gls{the \\emph{x}}\n\\newcommand{\\cmd}[1]{\\texttt{#1}}\n\
                   \\def\\arg#1{<#1>}\n\\providecommand{\\etal}{et~al.\\@}\n\
                   % \\def\\hidden{gone}\n\\def\\math{$x^2$}\n\\def\\long{one two three four five}\n";
        let words = user_words(src);
        assert_eq!(words.get("latex").map(String::as_str), Some("LaTeX"));
        assert_eq!(words.get("pkg").map(String::as_str), Some("glossaries"));
        assert_eq!(words.get("etal").map(String::as_str), Some("et al."));
        for other in ["gls", "cmd", "arg", "hidden", "math", "long"] {
            assert!(!words.contains_key(other), "{other}: {words:?}");
        }
        // A later definition that is more than text takes the name back.
        let redefined = user_words("\\def\\x{word}\n\\def\\x{$y$}\n");
        assert!(redefined.is_empty(), "{redefined:?}");
    }
}
