//! Environments a document defines with arguments: `\newenvironment{encodinginfo}[7]{…}{…}`.
//!
//! Read as an unknown environment, `\begin{encodinginfo}{OT1}{TeX text}{Donald Ervin Knuth}…`
//! would keep its arguments (labels, names, code ranges) as the start of a paragraph. Knowing how
//! many arguments the document gave the environment, the scanner drops them, as it drops a known
//! environment's.

use super::scan::{commands, skip_blanks};
use std::collections::HashMap;

/// The argument spec (see `Parser::skip_spec`) of each environment `source` defines with
/// arguments: `m` per argument, the first `o` when it has a default. `\newenvironment` and
/// `\renewenvironment`, starred or not, beamer's `<>` form too; definitions inside comments
/// count for nothing.
pub(super) fn user_envs(source: &str) -> HashMap<String, String> {
    let b = source.as_bytes();
    let mut out = HashMap::new();
    for (_, after) in commands(source, &["newenvironment", "renewenvironment"]) {
        let mut j = skip_blanks(b, after);
        if b.get(j) == Some(&b'*') {
            j = skip_blanks(b, j + 1);
        }
        if b.get(j..).is_some_and(|r| r.starts_with(b"<>")) {
            j = skip_blanks(b, j + 2);
        }
        let Some(name) = braced(source, j) else {
            continue;
        };
        j = skip_blanks(b, j + name.len() + 2);
        let Some(count) = bracketed(source, j) else {
            continue;
        };
        let Ok(n) = count.trim().parse::<usize>() else {
            continue;
        };
        if n == 0 || n > 9 {
            continue;
        }
        j = skip_blanks(b, j + count.len() + 2);
        let spec = if bracketed(source, j).is_some() {
            format!("o{}", "m".repeat(n - 1))
        } else {
            "m".repeat(n)
        };
        out.insert(name.trim().to_string(), spec);
    }
    out
}

/// The text of `{…}` at `j`, on one line and without nested braces.
fn braced(source: &str, j: usize) -> Option<&str> {
    let inner = source.get(j..)?.strip_prefix('{')?;
    let len = inner.find(['}', '{', '\n'])?;
    inner[len..].starts_with('}').then(|| &inner[..len])
}

/// The text of `[…]` at `j`, on one line.
fn bracketed(source: &str, j: usize) -> Option<&str> {
    let inner = source.get(j..)?.strip_prefix('[')?;
    let len = inner.find([']', '\n'])?;
    inner[len..].starts_with(']').then(|| &inner[..len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_give_their_argument_count() {
        let src = "\\newenvironment{encodinginfo}[7]%\n  {\\begin{description}}{}\n\
                   \\renewenvironment*{erroro}[2][x]{a}{b}\n\\newenvironment<>{bold}[1]{a}{b}\n\
                   \\newenvironment{plain}{a}{b}\n% \\newenvironment{hidden}[2]{a}{b}\n\
                   \\newenvironment{odd}[z]{a}{b}\n";
        let envs = user_envs(src);
        assert_eq!(
            envs.get("encodinginfo").map(String::as_str),
            Some("mmmmmmm")
        );
        assert_eq!(envs.get("erroro").map(String::as_str), Some("om"));
        assert_eq!(envs.get("bold").map(String::as_str), Some("m"));
        for name in ["plain", "hidden", "odd"] {
            assert!(!envs.contains_key(name), "{name}");
        }
    }
}
