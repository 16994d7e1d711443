//! The rules Segue reports findings under, with the texts that explain them: one table for
//! `segue explain`, the SARIF rule descriptions and the "Rule codes" section of docs/guide.md
//! (a test keeps the guide's table equal to this one).

use super::findings::{WEAK_PARAGRAPH, WEAK_SENTENCE};

/// A rule: its stable code and what it means, why it fires and how to silence it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The stable code, as in every output format (`weak-sentence-transition`).
    pub code: &'static str,
    /// The rule's name in UpperCamelCase (SARIF's `name`).
    pub name: &'static str,
    /// Where the finding is reported.
    pub reported_on: &'static str,
    /// One sentence: what a finding says.
    pub summary: &'static str,
    /// What the rule means, in a paragraph.
    pub meaning: &'static str,
    /// Why it fires: the test a transition fails.
    pub why: &'static str,
    /// How to silence it, for one place and for a whole project.
    pub silence: &'static str,
}

/// How every rule is silenced: the disable comment and the settings.
const SILENCE: &str = "For one paragraph, put a disable comment on the line before it: \
    `<!-- segue-disable-next -->` in Markdown, `.. segue-disable-next` followed by a blank line \
    in reStructuredText, `% segue-disable-next` in LaTeX; it covers the paragraph's transition \
    from the one before and the transitions between its sentences. For a whole project, set \
    `sensitivity = \"low\"` in segue.toml (or pass `--sensitivity low`) to report only the \
    clearest breaks, leave files out with `ignore` or `formats`, or run `segue check \
    --exit-zero` to report findings without failing the build.";

/// Every rule, in the order the guide lists them.
pub const RULES: &[Rule] = &[
    Rule {
        code: WEAK_SENTENCE,
        name: "WeakSentenceTransition",
        reported_on: "the later sentence",
        summary: "A sentence does not follow from the sentence before it.",
        meaning: "The transition from the previous sentence to this one scores far below both \
            the document's own median and the floor measured on edited prose: the sentence \
            shares little or nothing with the one before it and may be off-topic, misplaced, or \
            need a connecting phrase.",
        why: "Only transitions between two sentences of a paragraph's own running text are \
            judged. For the default scorers (`tier0`, and `embedding` with the models) a trained \
            verdict model weighs the evidence on the transition into the sentence: how weakly it \
            joins the one before, against the document's own median and the floor of edited \
            prose; how much it stands apart from its neighbours and the rest of the document; the \
            share of its content words found nowhere else in the document; how its neighbours \
            join without it; and the document's length. A sentence that says how it follows on \
            (\"However\", \"This\", \"It\", a quotation) is flagged only on strong evidence. \
            The other scorers flag a transition below both the floor (20 %, 30 % or 40 % of \
            edited prose by sensitivity) and the document's median by a few robust spreads, or a \
            sentence that interrupts sentences that join well without it. A run of weak \
            transitions is reported once, at its first sentence.",
        silence: SILENCE,
    },
    Rule {
        code: WEAK_PARAGRAPH,
        name: "WeakParagraphTransition",
        reported_on: "the later paragraph",
        summary: "A paragraph does not follow from the paragraph before it.",
        meaning: "The transition from the previous paragraph to this one scores far below both \
            the document's own median and the floor measured on edited prose: the paragraph may \
            belong elsewhere in the document, or need a sentence that links it to what came \
            before.",
        why: "Only transitions between two prose paragraphs of a section are judged: \
            neither a list, no code block or table between them, each ending as a sentence does. \
            For the default scorers (`tier0`, and `embedding` with the models) a trained verdict \
            model weighs the evidence on the transition into the paragraph: how weakly it joins \
            the one before, against the document's own median and the floor of edited prose; how \
            much it stands apart from its neighbours and the rest of the document; the share of \
            its content words found nowhere else in the document; how its neighbours join \
            without it; and the document's length. A paragraph that opens with an explicit link \
            (\"However\", \"This\", \"It\") is flagged only on strong evidence. The other \
            scorers flag a transition below both the floor (20 %, 30 % or 40 % of edited prose \
            by sensitivity) and the document's median by a few robust spreads, or a paragraph \
            that interrupts paragraphs that join well without it.",
        silence: SILENCE,
    },
];

/// The rule with code `code`.
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finding_code_has_a_rule() {
        for level in [
            super::super::Level::Sentence,
            super::super::Level::Paragraph,
        ] {
            let code = super::super::findings::code(level);
            assert_eq!(rule(code).map(|r| r.code), Some(code));
        }
        assert_eq!(rule("weak-transition"), None);
    }

    /// The guide's "Rule codes" table is this table: one row per rule, in order, with the code,
    /// where it is reported and the summary.
    #[test]
    fn the_guide_lists_every_rule_as_the_library_does() {
        let guide = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/guide.md"),
        )
        .unwrap_or_default();
        let section = guide
            .split("\n## Rule codes\n")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .unwrap_or_default();
        let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
        let expected: Vec<String> = RULES
            .iter()
            .map(|r| format!("| `{}` | {} | {} |", r.code, r.reported_on, r.summary))
            .collect();
        assert_eq!(rows, expected);
    }
}
