//! `segue explain [RULE]`: what a rule means, why it fires and how to silence it, from the
//! library's table of rules ([`crate::score::rules`]); without a rule, the list of rules.

use super::{EXIT_CLEAN, EXIT_ERROR};
use crate::score::rules::{rule, Rule, RULES};
use std::io::Write;

/// Arguments of `segue explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The rule code, as findings show it (e.g. weak-sentence-transition); without one, the
    /// rules are listed.
    pub rule: Option<String>,
}

/// Runs `segue explain`: the rule's text on stdout (exit 0), or, for an unknown rule, an error
/// naming the valid ones (exit 2).
pub fn run(args: ExplainArgs) -> anyhow::Result<u8> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let Some(code) = args.rule else {
        write!(out, "{}", list())?;
        return Ok(EXIT_CLEAN);
    };
    match rule(code.trim()) {
        Some(r) => {
            write!(out, "{}", explain(r, 96))?;
            Ok(EXIT_CLEAN)
        }
        None => {
            let codes: Vec<&str> = RULES.iter().map(|r| r.code).collect();
            let hint = crate::config::issue::closest(&code, codes.iter().copied())
                .map(|c| format!("did you mean `{c}`? "))
                .unwrap_or_default();
            eprintln!(
                "segue: error: unknown rule `{code}`; {hint}the rules are: {}",
                codes.join(", ")
            );
            Ok(EXIT_ERROR)
        }
    }
}

/// One line per rule: its code and summary.
pub fn list() -> String {
    let width = RULES.iter().map(|r| r.code.len()).max().unwrap_or(0);
    let mut text = String::new();
    for r in RULES {
        text.push_str(&format!("{:<width$}  {}\n", r.code, r.summary));
    }
    text.push_str(
        "\n`segue explain RULE` says what a rule means, why it fires and how to silence it.\n",
    );
    text
}

/// A rule's full explanation, its paragraphs wrapped at `width` columns.
pub fn explain(r: &Rule, width: usize) -> String {
    let mut text = format!("{}: {}\n", r.code, r.summary);
    for (title, body) in [
        ("What it means", r.meaning),
        ("Why it fires", r.why),
        ("How to silence it", r.silence),
    ] {
        text.push('\n');
        text.push_str(title);
        text.push('\n');
        for line in wrap(body, width.saturating_sub(2).max(20)) {
            text.push_str("  ");
            text.push_str(&line);
            text.push('\n');
        }
    }
    text.push_str(&format!(
        "\nReported on {}, with the code `{}` in every output format.\n",
        r.reported_on, r.code
    ));
    text
}

/// `text`'s words in lines of at most `width` characters (a longer word gets a line of its own).
/// A code span in backticks is kept on one line, as one word.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut open = false;
    for word in text.split_whitespace() {
        match words.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        if word.matches('`').count() % 2 == 1 {
            open = !open;
        }
    }
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in &words {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_every_word_within_the_width() {
        let text = "one two three four five six seven eight nine ten";
        let lines = wrap(text, 14);
        assert_eq!(
            lines,
            ["one two three", "four five six", "seven eight", "nine ten"]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 14));
        assert_eq!(
            wrap("averyveryverylongword x", 5),
            ["averyveryverylongword", "x"]
        );
        assert!(wrap("  ", 10).is_empty());
        // Code spans stay whole.
        assert_eq!(
            wrap("put `% segue-disable-next` here", 12),
            ["put", "`% segue-disable-next`", "here"]
        );
    }

    #[test]
    fn an_explanation_has_the_three_parts_and_the_whole_text() {
        let r = &RULES[0];
        let text = explain(r, 80);
        assert!(text.starts_with(&format!("{}: {}\n", r.code, r.summary)));
        for title in [
            "\nWhat it means\n",
            "\nWhy it fires\n",
            "\nHow to silence it\n",
        ] {
            assert!(text.contains(title), "{text}");
        }
        let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        let body = words(&text);
        for part in [r.meaning, r.why, r.silence] {
            let part = words(part);
            assert!(
                body.windows(part.len()).any(|w| w == part.as_slice()),
                "{text}"
            );
        }
        assert!(
            text.lines()
                .filter(|l| l.starts_with("  "))
                .all(|l| l.chars().count() <= 80),
            "{text}"
        );
    }

    #[test]
    fn the_list_names_every_rule() {
        let list = list();
        for r in RULES {
            assert!(list.contains(r.code) && list.contains(r.summary), "{list}");
        }
    }
}
