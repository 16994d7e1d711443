//! Word tokens for the built-in scorers: content words, stems, and cheap noun/name guesses.
//!
//! No tagger is available at tier 0, so word classes are guessed from surface cues:
//! a capitalised word that does not start its sentence is a *name*, an all-caps word of two or more
//! letters an *acronym*, and a word right after a determiner, possessive or adjective-free
//! preposition a *noun*. The guesses are wrong often enough to be weighted, never trusted.

use super::memo::Memo;
use rust_stemmers::{Algorithm, Stemmer};
use std::sync::{Arc, OnceLock};
use unicode_segmentation::UnicodeSegmentation;

/// How a token was classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WordClass {
    /// A capitalised word not at the start of its sentence.
    Name,
    /// An all-caps word such as `LSP` or `NASA`.
    Acronym,
    /// A word that follows a determiner or possessive.
    Noun,
    /// Any other content word.
    Other,
}

/// A content word of a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The word as written.
    pub surface: String,
    /// Lower-cased stem, used for matching.
    pub stem: String,
    /// The stem's process-wide number ([`super::stems`]): equal stems, equal ids.
    pub stem_id: u32,
    /// Guessed word class.
    pub class: WordClass,
    /// Index of the word in its sentence, counting all words.
    pub position: usize,
    /// Whether a verb-like word appears earlier in the sentence (a cheap subject/object cue).
    pub after_verb: bool,
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Whether `word` (lower-case) is an English stop word.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

const DETERMINERS: &[&str] = &[
    "a", "an", "another", "any", "each", "every", "her", "his", "its", "my", "no", "our", "some",
    "that", "the", "their", "these", "this", "those", "your",
];

/// Common auxiliaries and verbs used as a clause-position cue.
const VERB_CUES: &[&str] = &[
    "am", "are", "be", "been", "can", "could", "did", "do", "does", "had", "has", "have", "is",
    "may", "might", "must", "shall", "should", "was", "were", "will", "would",
];

/// Sentences whose tokens [`tokens`] keeps (per generation; see [`Memo`]): a few times the
/// sentences of a 100,000-word document.
const MEMO_SENTENCES: usize = 16_384;

/// [`tokenize`], memoized per sentence text for the whole process: the same tokens, computed
/// once however many scorers, levels and runs read the sentence.
pub fn tokens(sentence: &str) -> Arc<[Token]> {
    static MEMO: OnceLock<Memo<Arc<[Token]>>> = OnceLock::new();
    MEMO.get_or_init(|| Memo::new(MEMO_SENTENCES))
        .get_or(sentence, |s| tokenize(s).into())
}

/// Content-word tokens of one sentence (or any text treated as one). The parts of a web or
/// mail address are not words ([`addresses`]).
pub fn tokenize(sentence: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut prev_lower = String::new();
    let mut seen_verb = false;
    let skipped = addresses(sentence);
    let words = sentence
        .unicode_word_indices()
        .filter(|(at, _)| !skipped.iter().any(|&(s, e)| (s..e).contains(at)))
        .map(|(_, word)| word);
    for (position, word) in words.enumerate() {
        let lower = word.to_lowercase();
        if VERB_CUES.contains(&lower.as_str()) || (lower.ends_with("ed") && lower.len() > 4) {
            seen_verb = true;
        }
        let letters = word.chars().filter(|c| c.is_alphabetic()).count();
        let is_acronym = letters >= 2
            && word
                .chars()
                .all(|c| c.is_uppercase() || c.is_ascii_digit() || !c.is_alphabetic());
        let capitalised = word.chars().next().is_some_and(char::is_uppercase);
        if letters == 0 || (is_stop_word(&lower) && !is_acronym) || lower.chars().count() < 2 {
            prev_lower = lower;
            continue;
        }
        let class = if is_acronym {
            WordClass::Acronym
        } else if capitalised && position > 0 {
            WordClass::Name
        } else if DETERMINERS.contains(&prev_lower.as_str()) || prev_lower.ends_with("'s") {
            WordClass::Noun
        } else {
            WordClass::Other
        };
        let stem = stemmer().stem(&lower).into_owned();
        out.push(Token {
            surface: word.to_string(),
            stem_id: super::stems::id(&stem),
            stem,
            class,
            position,
            after_verb: seen_verb,
        });
        prev_lower = lower;
    }
    out
}

/// Schemes and prefixes that open a web or mail address.
const ADDRESS_OPENINGS: &[&str] = &[
    "http://", "https://", "ftp://", "file://", "mailto:", "www.",
];

/// The byte ranges of `text` that are web or mail addresses ("see https://example.com/a/b",
/// "write to user@example.org"): their parts are not words of the prose. An address runs from
/// its scheme (or `www.`, or the local part of a mail address) to the next space, quote or angle
/// bracket, less the punctuation that ends the sentence around it.
pub(crate) fn addresses(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let boundary = |at: usize| at == 0 || !bytes[at - 1].is_ascii_alphanumeric();
    let end_of = |from: usize| {
        let mut end = text[from..]
            .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\u{201D}'))
            .map_or(text.len(), |k| from + k);
        while end > from
            && matches!(
                bytes[end - 1],
                b'.' | b',' | b';' | b':' | b'!' | b'?' | b')' | b']' | b'\''
            )
        {
            end -= 1;
        }
        end
    };
    let mut out: Vec<(usize, usize)> = Vec::new();
    let lower = text.to_ascii_lowercase();
    for opening in ADDRESS_OPENINGS {
        for (at, _) in lower.match_indices(opening) {
            if boundary(at) {
                out.push((at, end_of(at)));
            }
        }
    }
    // Mail addresses: a local part, `@`, a domain with a dot.
    let local = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-');
    for (at, _) in text.match_indices('@') {
        let start = (0..at)
            .rev()
            .take_while(|&k| local(bytes[k]))
            .last()
            .unwrap_or(at);
        let end = end_of(at);
        if start < at
            && text
                .get(at + 1..end)
                .is_some_and(|domain| domain.contains('.'))
        {
            out.push((start, end));
        }
    }
    out
}

/// Sorted English stop words (function words plus very common verbs and adverbs).
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "almost",
    "also",
    "although",
    "always",
    "am",
    "among",
    "an",
    "and",
    "another",
    "any",
    "anyone",
    "anything",
    "are",
    "around",
    "as",
    "at",
    "be",
    "became",
    "because",
    "become",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cannot",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "down",
    "during",
    "each",
    "either",
    "else",
    "enough",
    "etc",
    "even",
    "ever",
    "every",
    "few",
    "for",
    "from",
    "further",
    "get",
    "gets",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "least",
    "less",
    "let",
    "like",
    "made",
    "make",
    "makes",
    "many",
    "may",
    "me",
    "might",
    "mine",
    "more",
    "most",
    "much",
    "must",
    "my",
    "myself",
    "neither",
    "never",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "often",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "others",
    "otherwise",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "per",
    "perhaps",
    "quite",
    "rather",
    "really",
    "same",
    "shall",
    "she",
    "should",
    "since",
    "so",
    "some",
    "something",
    "still",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "therefore",
    "these",
    "they",
    "this",
    "those",
    "though",
    "through",
    "thus",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "use",
    "used",
    "using",
    "very",
    "via",
    "was",
    "we",
    "well",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(
            STOP_WORDS.windows(2).all(|w| w[0] < w[1]),
            "STOP_WORDS must be sorted"
        );
    }

    #[test]
    fn the_parts_of_web_and_mail_addresses_are_not_words() {
        let surfaces =
            |s: &str| -> Vec<String> { tokenize(s).into_iter().map(|t| t.surface).collect() };
        // Python's tutorial on classes; postfix's FILTER_README.
        assert_eq!(
            surfaces("For more detail, see https://www.python.org/download/releases/2.3/mro/."),
            vec!["detail", "see"]
        );
        assert_eq!(
            surfaces(
                "Full text at www.mitpress.mit.edu/sicp (free), or mail sicp-help@mit.edu today."
            ),
            vec!["Full", "text", "free", "mail", "today"]
        );
        assert_eq!(
            surfaces("See: <http://www.postfix.org/SMTPD_PROXY_README.html> for the proxy."),
            vec!["See", "proxy"]
        );
        // Words that merely mention the web stay; so does a name with an at sign inside a word.
        assert_eq!(
            surfaces("The URL names a web server."),
            vec!["URL", "names", "web", "server"]
        );
        assert_eq!(
            addresses("Write to me@host and @mentions, or a.b@c.d."),
            vec![(35, 42)]
        );
    }

    #[test]
    fn classifies_names_acronyms_and_nouns() {
        let toks = tokenize("The server sends LSP messages to Neovim and the editors.");
        let get = |s: &str| toks.iter().find(|t| t.surface == s).map(|t| t.class);
        assert_eq!(get("server"), Some(WordClass::Noun));
        assert_eq!(get("LSP"), Some(WordClass::Acronym));
        assert_eq!(get("Neovim"), Some(WordClass::Name));
        assert_eq!(get("editors"), Some(WordClass::Noun));
        assert_eq!(get("sends"), Some(WordClass::Other));
        assert!(get("the").is_none());
        assert_eq!(
            toks.iter().find(|t| t.surface == "editors").unwrap().stem,
            "editor"
        );
    }
}
