//! Runs of short rules: a style guide's one-line paragraphs are the items of a list.
//!
//! ELinks' coding style gives one rule per paragraph: "Be sure to prefix all local functions with
//! 'static'." / "Indent shift width is 8 characters--that means one tab character." / "'{' should
//! be on the same line as conditions …". Each is its own point; none need take up the last one's
//! words, as the next bullet of a list need not. Where at least [`MIN_RUN`] adjacent short
//! paragraphs ([`Short`]: at most [`MAX_SENTENCES`] sentences and [`MAX_WORDS`] words) follow one
//! another and at least two in three of them give a rule (an instruction,
//! [`super::instruction::instructs`], or a rule stated with a modal, [`states_a_rule`]), the
//! transitions inside the run are not judged. A paragraph planted among them is rarely that short,
//! and breaks the run.

use unicode_segmentation::UnicodeSegmentation;

/// The fewest adjacent short paragraphs that make a run: two or three short paragraphs with a
/// "should" among them happen in any prose (a contributing guide's "The description should be
/// no more than two sentences …" / "This saves a lot of release overhead …"); four in a row is a
/// list the writer chose to set as paragraphs.
pub const MIN_RUN: usize = 4;

/// The most sentences of a short paragraph.
pub const MAX_SENTENCES: usize = 2;

/// The most words of a short paragraph.
pub const MAX_WORDS: usize = 40;

/// The most words of a sentence that states a rule with a modal.
const MAX_RULE_WORDS: usize = 30;

/// How far into a sentence a modal may stand for it to state a rule: "Variable names should be
/// descriptive.", "Names of enum constants should be in upper case."
const MODAL_REACH: usize = 8;

/// Modals that state a rule.
const MODALS: &[&str] = &[
    "must",
    "mustn't",
    "mustn’t",
    "shall",
    "should",
    "shouldn't",
    "shouldn’t",
];

/// A paragraph as it counts for a run: whether it is short, and if so whether it gives a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Short {
    /// Longer than a rule's paragraph: it breaks a run.
    No,
    /// Short, stating something else ("Indent shift width is 8 characters.").
    Statement,
    /// Short, giving a rule.
    Rule,
}

impl Short {
    /// How a paragraph of these sentences counts (its own sentences, in order).
    pub fn of<S: AsRef<str>>(sentences: &[S]) -> Short {
        let words: usize = sentences
            .iter()
            .map(|s| s.as_ref().unicode_words().count())
            .sum();
        if sentences.is_empty() || sentences.len() > MAX_SENTENCES || words > MAX_WORDS {
            return Short::No;
        }
        let first = sentences[0].as_ref();
        if super::instruction::instructs(first) || states_a_rule(first) {
            Short::Rule
        } else {
            Short::Statement
        }
    }
}

/// Words that open a clause of their own: a modal after one of them belongs to that clause
/// ("It is what the reader should remember.", "Note that X should be your PR number").
const CLAUSE_OPENERS: &[&str] = &["if", "that", "what", "when", "whether", "which", "who"];

/// Whether `sentence` states a rule with a modal near its start, in its main clause ("Variable
/// names should be descriptive.", "All the .c files MUST start by a short one-line
/// description").
pub fn states_a_rule(sentence: &str) -> bool {
    let words: Vec<String> = sentence.unicode_words().map(str::to_lowercase).collect();
    if words.len() > MAX_RULE_WORDS {
        return false;
    }
    let head = &words[..words.len().min(MODAL_REACH)];
    head.iter()
        .position(|w| MODALS.contains(&w.as_str()))
        .is_some_and(|m| {
            !head[..m]
                .iter()
                .any(|w| CLAUSE_OPENERS.contains(&w.as_str()))
        })
}

/// `pairs` (adjacent paragraphs, as indices) without the pairs inside runs of short rules (see
/// the module docs; `short` says how each paragraph counts). A run follows pairs that chain (one
/// pair's later unit is the next pair's earlier unit).
pub fn without_rule_runs(
    pairs: Vec<(usize, usize)>,
    short: impl Fn(usize) -> Short,
) -> Vec<(usize, usize)> {
    // Whether pair k joins two short paragraphs.
    let both: Vec<bool> = pairs
        .iter()
        .map(|&(a, b)| short(a) != Short::No && short(b) != Short::No)
        .collect();
    super::parallel::without_chains(
        pairs,
        |k| both[k],
        |units| {
            let rules = units.iter().filter(|&&u| short(u) == Short::Rule).count();
            units.len() >= MIN_RUN && 3 * rules >= 2 * units.len()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ELinks' coding style (doc/hacking.txt), one rule per paragraph.
    const ELINKS: &[&str] = &[
        "Be sure to prefix all local functions with 'static'.",
        "Indent shift width is 8 characters--that means one tab character.",
        "'{' should be on the same line as conditions near for, if, while, switch etc., but on separate lines near function headers in function definitions.",
        "Please _USE_ one tab instead of 8 spaces! It makes things easier.",
    ];

    #[test]
    fn style_rules_are_rules() {
        let kinds: Vec<Short> = ELINKS.iter().map(|p| Short::of(&[*p])).collect();
        assert_eq!(
            kinds,
            [Short::Rule, Short::Statement, Short::Rule, Short::Rule]
        );
        assert_eq!(
            Short::of(&["Names of enum constants should be in upper case."]),
            Short::Rule
        );
        assert!(states_a_rule(
            "All the .c files MUST start by a short one-line description:"
        ));
        assert!(!states_a_rule("It is what the reader should remember."));
        assert!(!states_a_rule(
            "Note that X should be your PR number, not issue number!"
        ));
    }

    #[test]
    fn long_paragraphs_are_not_short() {
        let long =
            "Mikulas once said that 'it was hard to code, so it should be hard to read' - and he \
             drove by this when he was writing links. However, we do NOT drive by this rule \
             anymore ;-). We strongly welcome cleanup patches and you have 99% chance that \
             they will be applied, if they are correct.";
        assert_eq!(Short::of(&[long]), Short::No);
        let three = ["One.", "Two.", "Three."];
        assert_eq!(Short::of(&three), Short::No);
    }

    #[test]
    fn a_run_of_rules_is_not_judged() {
        let kinds: Vec<Short> = ELINKS.iter().map(|p| Short::of(&[*p])).collect();
        let pairs = vec![(0, 1), (1, 2), (2, 3)];
        assert!(without_rule_runs(pairs, |i| kinds[i]).is_empty());
    }

    #[test]
    fn three_short_paragraphs_are_running_prose() {
        // Black's contributing guide: two rules with "should" and the reason for them.
        let black: [&[&str]; 3] = [
            &[
                "Note that X should be your PR number, not issue number!",
                "To workout X, you may use Next PR Number.",
            ],
            &[
                "The description should be no more than two sentences and should accurately describe the user-facing change.",
                "Avoid referencing Black internals or the implementation details of the change.",
            ],
            &["This saves a lot of release overhead as the releaser does not need to work out what to add to the CHANGES.md for each commit."],
        ];
        let kinds: Vec<Short> = black.iter().map(|p| Short::of(p)).collect();
        assert_eq!(kinds, [Short::Statement, Short::Rule, Short::Statement]);
        let pairs = vec![(0, 1), (1, 2)];
        assert_eq!(without_rule_runs(pairs.clone(), |i| kinds[i]), pairs);
    }

    #[test]
    fn a_long_paragraph_breaks_the_run() {
        // A planted paragraph of ordinary length amid rules: no run of four is left on either side.
        let kinds = [
            Short::Rule,
            Short::Rule,
            Short::Rule,
            Short::No,
            Short::Rule,
            Short::Rule,
            Short::Rule,
        ];
        let pairs = vec![(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)];
        assert_eq!(without_rule_runs(pairs.clone(), |i| kinds[i]), pairs);
    }

    #[test]
    fn statements_alone_make_no_run() {
        // Short paragraphs that state facts (a terse manual, a story's one-line turns).
        let kinds = [
            Short::Statement,
            Short::Rule,
            Short::Statement,
            Short::Statement,
            Short::Rule,
        ];
        let pairs = vec![(0, 1), (1, 2), (2, 3), (3, 4)];
        assert_eq!(without_rule_runs(pairs.clone(), |i| kinds[i]), pairs);
    }
}
