//! Instructions: sentences that tell the reader what to do ("Use `getopt_long` to decode
//! arguments.", "If `malloc` fails, make that a fatal error.", "Don't be too verbose.").
//!
//! Style guides, contributor guides and manuals are series of instructions, each its own point:
//! "Do not use a count of errors as the exit status." does not follow from the advice on
//! `TMPDIR` before it, and need not. A paragraph that opens with an instruction, after a
//! paragraph that gives one, starts the next item of such a series, as the next bullet of a list
//! does; [`super::analysis::paragraph_pairs`] does not judge that transition.
//!
//! An instruction is a sentence in the imperative: it opens with a verb of [`VERBS`] in its base
//! form (after "Please", "Always", "Never", "Just", "Do not" or "Don't"), or does so after the
//! first comma of a sentence that opens with a condition or a circumstance ("If the file is
//! missing, create it.", "In error checks, just abort."). A verb that is as often a noun ("Use",
//! "Run", "Set") counts only before a word that opens its object ("Use the …", "Run `make`") or
//! a call ("Use assert() …"),
//! and no verb counts before a word that makes it a subject ("Make is …"). A rule stated with a
//! modal ("The description should use complete sentences.") is not an instruction here.

use super::memo::Memo;
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

/// Verbs in the base form that open instructions and are rarely the first word of a
/// statement, sorted.
const VERBS: &[&str] = &[
    "abort",
    "add",
    "allow",
    "append",
    "apply",
    "ask",
    "attach",
    "avoid",
    "be",
    "choose",
    "click",
    "close",
    "compile",
    "configure",
    "consider",
    "create",
    "define",
    "delete",
    "describe",
    "disable",
    "download",
    "enable",
    "ensure",
    "enter",
    "explain",
    "follow",
    "give",
    "include",
    "insert",
    "keep",
    "leave",
    "let",
    "make",
    "mention",
    "mix",
    "open",
    "pick",
    "prefer",
    "press",
    "put",
    "refer",
    "remember",
    "remove",
    "rename",
    "replace",
    "restart",
    "send",
    "specify",
    "submit",
    "supply",
    "take",
    "tell",
    "try",
    "verify",
    "write",
];

/// Verbs that open instructions but are nouns as often ("Use of …", "Run time is …", "Set
/// theory"), sorted: they count only before a word that opens an object ([`OBJECT_STARTS`]) or a
/// quotation or code ("Use `getopt_long` …").
const NOUN_VERBS: &[&str] = &[
    "build", "call", "change", "check", "copy", "document", "edit", "install", "limit", "list",
    "look", "move", "pass", "place", "print", "read", "report", "return", "run", "save", "say",
    "select", "set", "start", "stop", "switch", "test", "think", "type", "update", "upgrade",
    "use", "wait",
];

/// Words that open the object or complement of an imperative verb: "Use *the* …", "Set *up* …",
/// "Check *that* …", "Make *sure* …".
const OBJECT_STARTS: &[&str] = &[
    "a", "all", "an", "any", "at", "away", "back", "both", "down", "each", "every", "for", "from",
    "how", "in", "into", "it", "its", "more", "no", "off", "on", "one", "only", "out", "over",
    "some", "that", "the", "their", "them", "these", "this", "those", "through", "to", "up",
    "what", "whether", "which", "with", "your", "yourself",
];

/// Words that may stand before an imperative verb without changing the mood: "Please use …",
/// "Always check …", "Never write …", "Just abort.", "Also add …", "Then run …".
const ADVERBS: &[&str] = &["also", "always", "just", "never", "only", "please", "then"];

/// Words after a verb of [`VERBS`] that make it a noun or the subject of a statement: "Make
/// is …", "Write access has …".
const SUBJECT_MARKERS: &[&str] = &[
    "and", "are", "can", "could", "did", "does", "had", "has", "have", "is", "may", "might",
    "must", "of", "or", "should", "was", "were", "will", "would",
];

/// Words that open a sentence with a condition or a circumstance, after which (and a comma) an
/// instruction may follow: "If …, use …", "When …, check …", "In error checks …, just abort."
const FRAMES: &[&str] = &[
    "after", "as", "before", "for", "if", "in", "on", "once", "to", "unless", "when", "whenever",
    "where", "while", "with",
];

/// Marks that open a quotation or code after a verb: "Use 'getopt_long'", "Run `make`".
const QUOTES: &[&str] = &["'", "\"", "`", "‘", "“", "("];

/// Sentences whose answer [`instructs`] keeps (per generation; see [`Memo`]).
const MEMO_SENTENCES: usize = 16_384;

/// Whether `sentence` is an instruction (see the module docs). Memoized per sentence text for the
/// whole process: every analysis asks it of the first sentence of every paragraph.
pub fn instructs(sentence: &str) -> bool {
    static MEMO: OnceLock<Memo<bool>> = OnceLock::new();
    MEMO.get_or_init(|| Memo::new(MEMO_SENTENCES))
        .get_or(sentence, read_instructs)
}

/// [`instructs`], computed.
fn read_instructs(sentence: &str) -> bool {
    // Emphasis marks around a word are not part of it ("Please _USE_ one tab").
    let tokens: Vec<String> = sentence
        .split_word_bounds()
        .map(|w| {
            let bare = w.trim_matches(|c| c == '_' || c == '*');
            if bare.is_empty() {
                w
            } else {
                bare
            }
        })
        .filter(|w| !w.trim().is_empty())
        .map(str::to_lowercase)
        .collect();
    if imperative(&tokens, true) {
        return true;
    }
    let word = |t: &String| t.chars().any(char::is_alphanumeric);
    let opens_with_frame = tokens
        .iter()
        .find(|t| word(t))
        .is_some_and(|w| FRAMES.contains(&w.as_str()));
    opens_with_frame
        && tokens
            .iter()
            .position(|t| t == ",")
            .and_then(|k| tokens.get(k + 1..))
            .is_some_and(|rest| imperative(rest, false))
}

/// Whether `tokens` (lower-cased words and marks, no spaces) open in the imperative. At the start
/// of a sentence (`strict`) a verb of [`NOUN_VERBS`] needs an object's first word after it; after
/// a condition ("When …, use explicit C code") a noun would need its article, so it need not.
fn imperative(tokens: &[String], strict: bool) -> bool {
    let mut rest = tokens;
    // At most two adverbs or a negation before the verb: "Please do not …".
    for _ in 0..2 {
        rest = match rest {
            [w, tail @ ..] if ADVERBS.contains(&w.as_str()) => tail,
            [w, n, tail @ ..] if w == "do" && n == "not" => tail,
            [w, tail @ ..] if w == "don't" || w == "don’t" => tail,
            _ => break,
        };
    }
    // After "Please", "Never" or "Do not" the next word is the verb.
    let strict = strict && rest.len() == tokens.len();
    let Some((verb, after)) = rest.split_first() else {
        return false;
    };
    let next = after.first().map(String::as_str);
    let subject = next.is_some_and(|n| SUBJECT_MARKERS.contains(&n) || n == "’s" || n == "'s");
    if VERBS.binary_search(&verb.as_str()).is_ok() {
        return !subject;
    }
    // "Use assert() and assertm() where applicable.": a call's name is an object.
    let call = after.get(1).is_some_and(|t| t == "(");
    NOUN_VERBS.binary_search(&verb.as_str()).is_ok()
        && if strict {
            next.is_some_and(|n| OBJECT_STARTS.contains(&n) || QUOTES.contains(&n)) || call
        } else {
            !subject
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lists_are_sorted() {
        for list in [VERBS, NOUN_VERBS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn memoized_answers_match_computed_ones() {
        for s in ["Use the source.", "Use of macros is rare.", ""] {
            assert_eq!(instructs(s), read_instructs(s));
            assert_eq!(instructs(s), read_instructs(s));
        }
    }

    #[test]
    fn instructions_from_style_guides() {
        // The GNU Coding Standards and Debian's Developer's Reference.
        for s in [
            "Use 'getopt_long' to decode arguments, unless the argument syntax makes this unreasonable.",
            "Avoid using the format of semi-internal data bases (e.g., directories).",
            "Do not use a count of errors as the exit status for a program.",
            "Try to make sure that all the file names will be unique on MS-DOS.",
            "Don't be too verbose.",
            "Please send bug reports to the list.",
            "If 'malloc' fails in a noninteractive program, make that a fatal error.",
            "In error checks that detect \"impossible\" conditions, just abort.",
            "When static storage is to be written in during program execution, use explicit C code to initialize it.",
            "Be objective.",
            "Run the tests before you send a patch.",
            "Please do not use tabs.",
            "Use assert() and assertm() where applicable.",
            "Please _USE_ one tab instead of 8 spaces!",
        ] {
            assert!(instructs(s), "{s}");
        }
    }

    #[test]
    fn statements_are_not_instructions() {
        for s in [
            "Use of macros is discouraged.",
            "Support is limited to Linux.",
            "The very worst thing is if you forget to tell us about the other contributor.",
            "Standard input and output may be redirected for logging purposes.",
            "If you feel a social pressure, you are not alone.",
            "Make's rules are terse.",
            "Knights are distinguished from the common skirmisher.",
            "In 1998, the project started.",
            "Set theory is a branch of logic.",
            "Run time grows with the input.",
            "Return values are checked.",
            "The extended description should use complete sentences.",
            "",
        ] {
            assert!(!instructs(s), "{s}");
        }
    }
}
