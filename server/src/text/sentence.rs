//! Sentence boundaries in clean prose.
//!
//! The base is the Unicode sentence segmentation of UAX #29 (from `unicode-segmentation`). Its
//! boundaries are then checked one by one against a few small rules that drop the ones it places
//! wrongly in real prose, and one rule adds the boundaries it cannot see:
//!
//! - **No space, no boundary** ([`is_boundary`]): a Latin terminator glued to the next character is
//!   part of a token — `std::fs::read`, `foo.Bar()`, `.NET`, URLs, e-mail addresses, file names,
//!   `println!(…)`. CJK terminators (。！？) end a sentence without any following space.
//! - **Abbreviations** ([`period_rule`]): words that never end a sentence (`e.g.`, `i.e.`, `cf.`,
//!   `vs.`), titles before a name (`Dr.`, `Mr.`, `Mrs.`, `St.`), and labels before a number
//!   (`Fig. 3`, `No. 5`, `pp. 12`, `Jan. 5`).
//! - **Initials** ([`is_initials`]): `J. R. R. Tolkien`, `the U.S. Army`: kept together unless the
//!   next word is a common sentence opener (`the U.S. The …` still splits).
//! - **Ellipses** (`...` and `…`): a boundary only before an uppercase sentence start.
//! - **Question and exclamation marks** before a lowercase word are not boundaries
//!   (`"Why?" she asked`, `the println! macro`).
//!
//! Decimals and versions (`3.14`, `v1.2.3`), closing quotes and brackets after a terminator (`."`,
//! `.)`) and a period before a lowercase word are already handled by UAX #29 itself.
//!
//! The work is linear in the text: one pass of the UAX #29 iterator, and for each candidate
//! boundary a look at the word before and the word after it. The only allocation is the result.

use std::ops::Range;
use unicode_segmentation::UnicodeSegmentation;

/// Splits `text` into sentence ranges (byte ranges into `text`, possibly with surrounding whitespace).
///
/// The ranges are in order, do not overlap, lie on char boundaries and together cover `text`
/// (an empty text gives no range). Whitespace between two sentences belongs to the first.
pub fn split(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (seg_start, seg) in text.split_sentence_bound_indices() {
        let seg_end = seg_start + seg.len();
        // Boundaries UAX #29 misses: after `…` inside this segment.
        if seg.contains('…') {
            for (i, _) in seg.match_indices('…') {
                if let Some(b) = ellipsis_boundary(text, seg_start + i + '…'.len_utf8()) {
                    if b > start && b < seg_end {
                        out.push(start..b);
                        start = b;
                    }
                }
            }
        }
        if seg_end < text.len() && is_boundary(text, seg_end) {
            out.push(start..seg_end);
            start = seg_end;
        }
    }
    if start < text.len() {
        out.push(start..text.len());
    }
    out
}

/// Whether the UAX #29 boundary at byte `b` (just after the whitespace that follows a sentence)
/// is a real sentence boundary.
fn is_boundary(text: &str, b: usize) -> bool {
    let body = text[..b].trim_end();
    let spaced = body.len() < b;
    let head_and_term = body.trim_end_matches(is_closer);
    let closed = head_and_term.len() < body.len();
    if !spaced {
        // `println!("hi")`, `「はい。」と言った`: glued to what follows.
        return !closed
            && body
                .chars()
                .next_back()
                .is_some_and(|c| glued_boundary(c, text[b..].chars().next()));
    }
    let head = head_and_term.trim_end_matches(is_terminator);
    let term = &head_and_term[head.len()..];
    let Some(last) = term.chars().next_back() else {
        // No terminator we know (a paragraph separator, another script's full stop): trust UAX #29.
        return true;
    };
    let next = NextWord::at(&text[b..]);
    if is_cjk_terminator(last) {
        return true;
    }
    if term.contains(['?', '!', '‼', '⁇', '⁈', '⁉']) {
        return !next.starts_lower();
    }
    if term.contains('…') || term.len() > 1 {
        // An ellipsis (`...`, `…`, `....`): only before an uppercase sentence start.
        return next.starts_upper();
    }
    if closed {
        // `(see Fig.) The`, `"etc." The`: the bracket or quote closes; trust UAX #29.
        return true;
    }
    period_rule(head, next)
}

/// A boundary with no whitespace before it: only right after a CJK terminator, or after `?`/`!`
/// right before CJK text.
fn glued_boundary(terminator: char, next: Option<char>) -> bool {
    is_cjk_terminator(terminator)
        || (matches!(terminator, '?' | '!') && next.is_some_and(is_cjk_letter))
}

/// A boundary after `…` (at byte `after`) when closers, whitespace and an uppercase word follow:
/// returns the byte where the next sentence starts.
fn ellipsis_boundary(text: &str, after: usize) -> Option<usize> {
    let rest = &text[after..];
    let rest = rest.trim_start_matches(is_closer);
    let next = rest.trim_start();
    if next.len() == rest.len() || next.is_empty() {
        return None;
    }
    NextWord::at(next)
        .starts_upper()
        .then_some(text.len() - next.len())
}

/// The decision after a single period preceded by `head` (the text before the period).
fn period_rule(head: &str, next: NextWord<'_>) -> bool {
    let word = last_word(head);
    if word.is_empty() {
        return true;
    }
    if is_never_final(word) {
        return false;
    }
    if TITLES.binary_search(&word).is_ok() {
        // `Dr. Watson`, `St. Louis`; but `on Baker St. The house …`.
        return word == "St" && next.is_opener();
    }
    if is_number_label(word) && next.starts_digit() {
        return false;
    }
    if word == "v" && next.starts_upper() {
        // `Roe v. Wade`.
        return false;
    }
    if is_initials(word) || matches!(word, "Jr" | "Sr") {
        return !next.starts_upper() || next.is_opener();
    }
    true
}

/// The last whitespace-separated word of `head`, without leading punctuation (`(e.g` → `e.g`).
fn last_word(head: &str) -> &str {
    let word = head.rsplit(char::is_whitespace).next().unwrap_or("");
    word.trim_start_matches(|c: char| !c.is_alphanumeric())
}

/// Abbreviations that never end a sentence, in any case (`e.g.`, `E.g.`, `cf.`).
fn is_never_final(word: &str) -> bool {
    NEVER_FINAL.iter().any(|a| a.eq_ignore_ascii_case(word))
}

/// Labels that come before a number (`Fig. 3`, `No. 5`, `pp. 12–15`, `Jan. 5`, `ca. 1900`).
fn is_number_label(word: &str) -> bool {
    NUMBER_LABELS.iter().any(|l| l.eq_ignore_ascii_case(word))
}

/// Initials and initialisms: `J`, `U.S`, `J.R.R`, `U.S.A`, `Ph.D` (the final period is gone).
fn is_initials(word: &str) -> bool {
    if !word.starts_with(|c: char| c.is_uppercase()) {
        return false;
    }
    let mut parts = 0;
    for part in word.split('.') {
        let n = part.chars().count();
        if n == 0 || n > 2 || !part.chars().all(char::is_alphabetic) {
            return false;
        }
        parts += 1;
    }
    parts > 1 || word.chars().count() == 1
}

/// The start of the text after a candidate boundary, past any opening quotes and brackets.
#[derive(Clone, Copy)]
struct NextWord<'a> {
    /// The word after the openers, up to the next whitespace.
    word: &'a str,
}

impl<'a> NextWord<'a> {
    fn at(rest: &'a str) -> Self {
        let word = rest.trim_start_matches(is_opener);
        let end = word.find(char::is_whitespace).unwrap_or(word.len());
        NextWord { word: &word[..end] }
    }

    fn starts_upper(&self) -> bool {
        self.word.starts_with(char::is_uppercase)
    }

    fn starts_lower(&self) -> bool {
        self.word.starts_with(char::is_lowercase)
    }

    fn starts_digit(&self) -> bool {
        self.word.starts_with(|c: char| c.is_ascii_digit())
    }

    /// Whether the word is a common sentence opener (`The`, `It`, `However`).
    fn is_opener(&self) -> bool {
        let end = self
            .word
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(self.word.len());
        OPENERS.binary_search(&&self.word[..end]).is_ok()
    }
}

fn is_terminator(c: char) -> bool {
    matches!(
        c,
        '.' | '?' | '!' | '…' | '‼' | '⁇' | '⁈' | '⁉' | '。' | '｡' | '！' | '？' | '．'
    )
}

fn is_cjk_terminator(c: char) -> bool {
    matches!(c, '。' | '｡' | '！' | '？' | '．')
}

/// Closing quotes and brackets that stay with the sentence they follow.
fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | ')'
            | ']'
            | '}'
            | '»'
            | '›'
            | '”'
            | '’'
            | '」'
            | '』'
            | '）'
            | '］'
            | '】'
            | '〕'
            | '〉'
            | '》'
            | '〗'
            | '〙'
            | '＂'
            | '＇'
    )
}

/// Opening quotes and brackets skipped before the next sentence's first word.
fn is_opener(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '('
            | '['
            | '{'
            | '«'
            | '‹'
            | '“'
            | '‘'
            | '„'
            | '¿'
            | '¡'
            | '「'
            | '『'
            | '（'
            | '【'
    )
}

/// Han, kana and Hangul: text that needs no space after a sentence.
fn is_cjk_letter(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{AC00}'..='\u{D7AF}'
        | '\u{FF66}'..='\u{FF9F}'
        | '\u{20000}'..='\u{2FA1F}')
}

/// Abbreviations that never end a sentence, compared ignoring ASCII case, without the final period.
const NEVER_FINAL: &[&str] = &[
    "a.k.a", "approx", "cf", "e.g", "esp", "i.e", "incl", "n.b", "resp", "viz", "vs", "w.r.t",
];

/// Titles written before a name, case-sensitive, sorted (for binary search).
const TITLES: &[&str] = &[
    "Adm", "Capt", "Cmdr", "Col", "Dr", "Drs", "Fr", "Gen", "Gov", "Hon", "Lt", "Maj", "Messrs",
    "Mlle", "Mme", "Mmes", "Mr", "Mrs", "Ms", "Msgr", "Mt", "Mx", "Pres", "Prof", "Rep", "Rev",
    "Revd", "Sen", "Sgt", "St", "Ste", "Supt",
];

/// Labels written before a number, compared ignoring ASCII case, sorted.
const NUMBER_LABELS: &[&str] = &[
    "app", "apr", "art", "arts", "aug", "c", "ca", "ch", "chap", "col", "cols", "dec", "def", "eq",
    "eqs", "ex", "feb", "fig", "figs", "jan", "jul", "jun", "l", "ll", "mar", "n", "no", "nos",
    "nov", "nr", "oct", "op", "p", "para", "pp", "prop", "pt", "ref", "refs", "sec", "secs",
    "sect", "sep", "sept", "tab", "thm", "vol", "vols",
];

/// Common sentence openers, sorted: after initials (`U.S.`, `J.`), these mark a new sentence.
const OPENERS: &[&str] = &[
    "A", "After", "Again", "All", "Also", "Although", "An", "And", "Another", "Any", "As", "At",
    "Because", "Before", "Both", "But", "By", "Each", "Even", "Every", "Finally", "First", "For",
    "From", "He", "Her", "Here", "His", "How", "However", "I", "If", "In", "Instead", "It", "Its",
    "Let", "Many", "Most", "My", "Next", "No", "Nor", "Not", "Now", "Of", "On", "Once", "One",
    "Only", "Or", "Our", "She", "Since", "So", "Some", "Such", "That", "The", "Their", "Then",
    "There", "These", "They", "This", "Those", "Thus", "To", "Today", "Under", "Unless", "We",
    "What", "When", "Where", "Whether", "Which", "While", "Who", "Why", "With", "Yet", "You",
    "Your",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The trimmed sentences of `text`, dropping empty ones.
    fn sentences(text: &str) -> Vec<&str> {
        split(text)
            .into_iter()
            .map(|r| text[r].trim())
            .filter(|s| !s.is_empty())
            .collect()
    }

    fn check(text: &str, expected: &[&str]) {
        assert_eq!(sentences(text), expected, "splitting {text:?}");
    }

    #[test]
    fn word_lists_are_sorted() {
        for list in [TITLES, NUMBER_LABELS, OPENERS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn covers_text_in_order() {
        let text = "Hello there. Dr. Smith went home!  Then   what? 日本語です。次の文。 End";
        let ranges = split(text);
        assert_eq!(ranges.first().map(|r| r.start), Some(0));
        assert_eq!(ranges.last().map(|r| r.end), Some(text.len()));
        for w in ranges.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
        for r in &ranges {
            assert!(r.start < r.end);
            assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
        }
    }

    #[test]
    fn empty_and_blank() {
        assert!(split("").is_empty());
        assert_eq!(split("   "), vec![0..3]);
    }

    #[test]
    fn plain_sentences() {
        check(
            "The cat sat. The dog ran! Did it? Yes.",
            &["The cat sat.", "The dog ran!", "Did it?", "Yes."],
        );
    }

    #[test]
    fn never_final_abbreviations() {
        check(
            "Use a tool, e.g. Cargo or Make. Most rules hold, i.e. All of them.",
            &[
                "Use a tool, e.g. Cargo or Make.",
                "Most rules hold, i.e. All of them.",
            ],
        );
        check(
            "Compare Rust vs. Go in Sec. 4. See also cf. Smith.",
            &["Compare Rust vs. Go in Sec. 4.", "See also cf. Smith."],
        );
        check("(E.g. This one.) Next.", &["(E.g. This one.)", "Next."]);
    }

    #[test]
    fn titles() {
        check(
            "Dr. Watson met Mr. and Mrs. Bennet in St. Louis. They talked.",
            &[
                "Dr. Watson met Mr. and Mrs. Bennet in St. Louis.",
                "They talked.",
            ],
        );
        check(
            "He lives on Baker St. The house is old.",
            &["He lives on Baker St.", "The house is old."],
        );
    }

    #[test]
    fn number_labels() {
        check(
            "See Fig. 3 (A) and Eq. (2). It is No. 5 All Star. Read pp. 12 Ff.",
            &[
                "See Fig. 3 (A) and Eq. (2).",
                "It is No. 5 All Star.",
                "Read pp. 12 Ff.",
            ],
        );
        check(
            "It began on Jan. 5 Monday. No. This is not it.",
            &["It began on Jan. 5 Monday.", "No.", "This is not it."],
        );
    }

    #[test]
    fn etc_and_et_al_can_end_a_sentence() {
        check(
            "We bought apples, pears, etc. The rest was sold. Smith et al. disagree.",
            &[
                "We bought apples, pears, etc.",
                "The rest was sold.",
                "Smith et al. disagree.",
            ],
        );
    }

    #[test]
    fn initials() {
        check(
            "J. R. R. Tolkien wrote it. The U.S. Army came. Roe v. Wade was decided.",
            &[
                "J. R. R. Tolkien wrote it.",
                "The U.S. Army came.",
                "Roe v. Wade was decided.",
            ],
        );
        check(
            "He moved to the U.S. The move was hard. Martin Luther King Jr. Day is near.",
            &[
                "He moved to the U.S.",
                "The move was hard.",
                "Martin Luther King Jr. Day is near.",
            ],
        );
        check(
            "Call it plan B. It works.",
            &["Call it plan B.", "It works."],
        );
    }

    #[test]
    fn decimals_and_versions() {
        check(
            "Pi is 3.14 or so. Use v1.2.3 now. Python 3.11. It is new.",
            &[
                "Pi is 3.14 or so.",
                "Use v1.2.3 now.",
                "Python 3.11.",
                "It is new.",
            ],
        );
    }

    #[test]
    fn ellipses() {
        check(
            "Wait... I know. He paused... and went on… Then he left… but came back.",
            &[
                "Wait...",
                "I know.",
                "He paused... and went on…",
                "Then he left… but came back.",
            ],
        );
        check("Well…  “Fine,” she said.", &["Well…", "“Fine,” she said."]);
        check("It ends…", &["It ends…"]);
    }

    #[test]
    fn closing_quotes_and_brackets() {
        check(
            "He said \"Stop.\" Then he left. (This is an aside.) It ended.",
            &[
                "He said \"Stop.\"",
                "Then he left.",
                "(This is an aside.)",
                "It ended.",
            ],
        );
        check(
            "“Is it?” she asked. “Yes!” He nodded.",
            &["“Is it?” she asked.", "“Yes!”", "He nodded."],
        );
    }

    #[test]
    fn urls_emails_files_identifiers() {
        check(
            "Visit https://example.org/Path?Query=1 now. Mail jane.doe@Example.com today. \
             Edit main.rs and config.toml. Call std::fs::read or foo.Bar() here. Use .NET too.",
            &[
                "Visit https://example.org/Path?Query=1 now.",
                "Mail jane.doe@Example.com today.",
                "Edit main.rs and config.toml.",
                "Call std::fs::read or foo.Bar() here.",
                "Use .NET too.",
            ],
        );
        check(
            "The println!(\"Hi\") call prints. Use the ? operator. It helps.",
            &[
                "The println!(\"Hi\") call prints.",
                "Use the ? operator.",
                "It helps.",
            ],
        );
    }

    #[test]
    fn question_and_exclamation_before_lowercase() {
        check(
            "\"Why?\" asked he. Oh! my dear. The vec! macro builds it! Really? Yes.",
            &[
                "\"Why?\" asked he.",
                "Oh! my dear.",
                "The vec! macro builds it!",
                "Really?",
                "Yes.",
            ],
        );
    }

    #[test]
    fn lowercase_after_period_is_not_a_boundary() {
        check(
            "The value is 5 in. or more. It fits.",
            &["The value is 5 in. or more.", "It fits."],
        );
    }

    #[test]
    fn cjk_terminators() {
        check(
            "これは文です。次の文！本当？はい。",
            &["これは文です。", "次の文！", "本当？", "はい。"],
        );
        check(
            "「はい。」と言った。中文句子。English follows.",
            &["「はい。」と言った。", "中文句子。", "English follows."],
        );
        check("真的吗?是的。", &["真的吗?", "是的。"]);
    }

    #[test]
    fn odd_input_does_not_panic() {
        for text in [
            ".",
            "...",
            "…",
            " . ",
            "?!",
            "a.b.c.",
            "。",
            "\"\"",
            "(.)",
            "e.g.",
            "Mr.",
            "U.S.",
            "x …\u{a0}Y",
            "\u{2028}.\u{2029}A",
            "é. É. ü… Ü",
        ] {
            let ranges = split(text);
            if !text.is_empty() {
                assert_eq!(ranges.last().map(|r| r.end), Some(text.len()), "{text:?}");
            }
        }
    }
}
