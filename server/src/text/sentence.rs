//! Sentence boundaries in clean prose.
//!
//! The base is the Unicode sentence segmentation of UAX #29 (from `unicode-segmentation`). Each of
//! its boundaries is checked against a few small rules that drop the ones it places wrongly in
//! real prose, and a scan inside its segments adds the boundaries it cannot see:
//!
//! - **No space, no boundary**: a Latin terminator glued to the next character is part of a token
//!   (`std::fs::read`, `foo.Bar()`, `.NET`, URLs, e-mail addresses, `config.toml`,
//!   `println!("…")`, `thing?--Mr. Knightley`). CJK terminators (。！？) end a sentence without any
//!   following space, unless a closing quote glues them to the text (`「はい。」と言った`).
//! - **Abbreviations** (`period_rule`): words that never end a sentence (`e.g.`, `i.e.`, `cf.`,
//!   `vs.`), titles before a name (`Dr.`, `Mr.`, `Mrs.`, `St.`), labels before a number
//!   (`Fig. 3`, `No. 5`, `pp. 12`, `Jan. 5`), and list enumerators (`5. The repeal …`).
//! - **Initials** (`initials_rule`): `J. R. R. Tolkien`, `John F. Kennedy`, `the U.S. Army`,
//!   `J. Solomon and T. Worthen` stay together; `of type T. See …`, `in C. However …`, `the U.S. The …` split.
//! - **Ellipses** (`...`, `…`): a boundary only before an uppercase sentence start, and never after
//!   an ellipsis standing alone for elided words (`CREATE TABLE ... CONSTRAINT`).
//! - **Question and exclamation marks** before a lowercase word are not boundaries
//!   (`"Why?" asked he`, `the println! macro`), unless the word is code (`safe! set_len …`) or the
//!   mark follows a closing quote (`"The rustc book"! rustc is …`).
//! - **Lowercase and numeric sentence starts** (`lowercase_start`): UAX #29 never breaks before a
//!   lowercase word, but technical prose often starts a sentence with an identifier
//!   (`… newer platforms. uuid-ossp can …`, `… data loss.) 'replace' causes …`). After an ordinary
//!   word (not an abbreviation, initial or number label) a period and a lowercase or numeric word
//!   start a new sentence.
//!
//! Decimals and versions (`3.14`, `v1.2.3`) and closing quotes and brackets after a terminator
//! (`."`, `.)`) are already handled by UAX #29 itself.
//!
//! The work is linear in the text: one pass of the UAX #29 iterator, one scan of each segment for
//! periods and ellipses, and for each candidate boundary a look at the words either side of it. The
//! only allocation is the result.

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
        // Boundaries UAX #29 misses inside this segment: after `…`, and after a period before a
        // lowercase or numeric sentence start.
        for (i, m) in seg.match_indices(['.', '…']) {
            let at = seg_start + i + m.len();
            if let Some(b) = interior_candidate(text, at, m == ".") {
                if b > start && b < seg_end && is_boundary(text, start, b) {
                    let b = past_stray_brackets(text, b);
                    out.push(start..b);
                    start = b;
                }
            }
        }
        if seg_end > start && seg_end < text.len() && is_boundary(text, start, seg_end) {
            let b = past_stray_brackets(text, seg_end);
            out.push(start..b);
            start = b;
        }
    }
    if start < text.len() {
        out.push(start..text.len());
    }
    out
}

/// A boundary at byte `b` moved past a closing bracket set off by spaces (`MODE. ) N.B. If`): a
/// sentence cannot start with one.
fn past_stray_brackets(text: &str, b: usize) -> usize {
    let rest = &text[b..];
    let after = rest.trim_start_matches([')', ']', '}', '）', '］', '】']);
    if after.len() == rest.len() || !after.starts_with(char::is_whitespace) {
        return b;
    }
    text.len() - after.trim_start().len()
}

/// A candidate boundary after the terminator ending at byte `at`: past closers and whitespace,
/// where the next sentence would start. A period only counts before a lowercase or numeric word
/// (UAX #29 has already judged the rest).
fn interior_candidate(text: &str, at: usize, period: bool) -> Option<usize> {
    let rest = text[at..].trim_start_matches(is_closer);
    let next = rest.trim_start();
    if next.len() == rest.len() || next.is_empty() {
        return None;
    }
    let word = NextWord::at(next);
    (!period || word.starts_lower() || word.starts_digit()).then_some(text.len() - next.len())
}

/// Whether the candidate boundary at byte `b` (just after the whitespace that follows a sentence)
/// is a real sentence boundary; the current sentence started at byte `start`.
fn is_boundary(text: &str, start: usize, b: usize) -> bool {
    let body = text[..b].trim_end();
    let spaced = body.len() < b;
    // UAX #29 lets any bracket or quote follow a terminator (`panic!()`, `."`, `.)`).
    let head_and_term = body.trim_end_matches(|c| is_closer(c) || is_opener(c));
    let closers = &body[head_and_term.len()..];
    let closed = !closers.is_empty();
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
    if is_cjk_terminator(last) {
        return true;
    }
    let next = NextWord::at(&text[b..]);
    let alone = stands_alone(head);
    if term.contains(['?', '!', '‼', '⁇', '⁈', '⁉']) {
        if term.ends_with('.') {
            // `fn main() -> !.`
            return !next.starts_lower();
        }
        if alone {
            // `cond ? a : b`, `the ? operator`, `! (NOT)`: a mark standing alone ends a sentence
            // only right before a capital (`what happened ? Vishinsky laughed`).
            return text[b..].starts_with(char::is_uppercase);
        }
        return !next.starts_lower() || next.is_code() || ends_with_closed(head, QUOTES);
    }
    if term.contains('…') || term.len() > 1 {
        // An ellipsis (`...`, `…`, `....`): only before an uppercase sentence start, and not when
        // it stands alone for elided words (`ALTER TABLE ... SET`); `....` ends a sentence.
        return (term == "...." || !alone) && next.starts_upper();
    }
    if closed {
        // `(see Fig.) The`, `"etc." The`: the bracket or quote closes; trust UAX #29 before an
        // uppercase word. Before a lowercase one, a closing quote continues the sentence
        // (`"Stop." said she`), a closing bracket ends it if an ordinary word came before.
        if !(next.starts_lower() || next.starts_digit()) {
            return true;
        }
        let (before, word) = last_word(head);
        return closers.contains(is_bracket)
            && bracket_opens_sentence(head)
            && lowercase_start(before, word);
    }
    let sentence = text.get(start..head.len()).unwrap_or("");
    period_rule(head, sentence, next)
}

/// Whether the bracket still open at the end of `head` opens a sentence of its own: it follows a
/// sentence end (`… in practice. (Only plain is allowed.) plain …`), not a word (`section (B.4.)`,
/// `sqrt(-1.)`).
fn bracket_opens_sentence(head: &str) -> bool {
    // Look back a bounded way, so that the work stays linear.
    let mut from = head.len().saturating_sub(BRACKET_WINDOW);
    while !head.is_char_boundary(from) {
        from -= 1;
    }
    let Some(open) = head[from..].rfind(['(', '[', '（', '［']).map(|i| from + i) else {
        return false;
    };
    let before = head[..open].trim_end();
    before.len() < open
        && (before.is_empty()
            || before
                .trim_end_matches(|c| is_closer(c) || is_opener(c))
                .ends_with(is_terminator))
}

/// Whether a terminator after `head` stands alone, not after a word: `cond ? a`, `( ... )`.
fn stands_alone(head: &str) -> bool {
    let mut rev = head.chars().rev();
    match rev.next() {
        None => true,
        Some(c) if c.is_whitespace() => true,
        Some(c) if is_opener(c) => !matches!(rev.next(), Some(p) if !p.is_whitespace()),
        Some(_) => false,
    }
}

/// Whether `head` ends with one of the closers in `set` right after a word (`"The rustc book"`,
/// `(e.g. Ndistinct)`, `ftell()`), not with an opening quote (`such as '`).
fn ends_with_closed(head: &str, set: &[char]) -> bool {
    let mut rev = head.chars().rev();
    let Some(close) = rev.next().filter(|c| set.contains(c)) else {
        return false;
    };
    // `ftell()` is closed too.
    rev.next()
        .is_some_and(|c| (!c.is_whitespace() && !is_opener(c)) || (c == '(' && close == ')'))
}

/// Closing quotes, for [`ends_with_closed`].
const QUOTES: &[char] = &['"', '\'', '”', '’', '»', '›', '」', '』', '＂', '＇'];
/// Closing quotes and brackets, for [`ends_with_closed`].
const QUOTES_AND_BRACKETS: &[char] = &[
    '"', '\'', '”', '’', '»', '›', '」', '』', '＂', '＇', ')', ']', '}', '）', '］', '】',
];

/// Closing brackets (not quotes).
fn is_bracket(c: char) -> bool {
    matches!(
        c,
        ')' | ']' | '}' | '）' | '］' | '】' | '〕' | '〉' | '》' | '〗' | '〙'
    )
}

/// A boundary with no whitespace before it: only right after a CJK terminator, or after `?`/`!`
/// right before CJK text.
fn glued_boundary(terminator: char, next: Option<char>) -> bool {
    is_cjk_terminator(terminator)
        || (matches!(terminator, '?' | '!') && next.is_some_and(is_cjk_letter))
}

/// The decision after a single period preceded by `head` (the text before the period);
/// `sentence` is the current sentence up to the period.
fn period_rule(head: &str, sentence: &str, next: NextWord<'_>) -> bool {
    let (before, word) = last_word(head);
    if is_never_final(word) {
        return false;
    }
    if TITLES.binary_search(&word).is_ok() {
        // `Dr. Watson`, `St. Louis`; but `on Baker St. The house …`.
        return word == "St" && next.is_opener();
    }
    if next.starts_digit() && (is_number_label(word) || is_short_capitalised(word)) {
        // `Fig. 3`, `Rec. 709`.
        return false;
    }
    if is_enumerator(sentence) {
        // `5. The repeal …`: a list item's number, not a sentence.
        return false;
    }
    if next.starts_lower() || next.starts_digit() {
        return lowercase_start(before, word);
    }
    if word == "v" && next.starts_upper() {
        // `Roe v. Wade`.
        return false;
    }
    if is_initials(word) || matches!(word, "Jr" | "Sr") {
        return initials_rule(before, word, next);
    }
    true
}

/// Whether a period after `word` ends a sentence when the next word starts in lowercase or with a
/// digit: only after an ordinary word (or a closing bracket or quote, when `word` is empty), not
/// after an abbreviation (`etc. and`, `approx. 5`), a single letter or an initialism (`p. 5`,
/// `a.m. on`); `before` is the text before `word`.
fn lowercase_start(before: &str, word: &str) -> bool {
    if word.is_empty() {
        return ends_with_closed(before, QUOTES_AND_BRACKETS);
    }
    (word.chars().nth(1).is_some() || word.starts_with(|c: char| c.is_ascii_digit()))
        && !is_dotted_abbreviation(word)
        && !is_never_final(word)
        && !is_number_label(word)
        && !TITLES.iter().any(|t| t.eq_ignore_ascii_case(word))
        && !CONTINUED.iter().any(|t| t.eq_ignore_ascii_case(word))
}

/// Whether a single initial or an initialism before a period and an uppercase word is part of a
/// name: `J. R. R. Tolkien`, `John F. Kennedy`, `the U.S. Army`, but not `of type T. See`,
/// `say I. And`, `the U.S. The`.
fn initials_rule(before: &str, word: &str, next: NextWord<'_>) -> bool {
    if next.is_opener() {
        return true;
    }
    if word.contains('.') {
        return false;
    }
    if next.is_initial() {
        // `F. C. Weston`.
        return false;
    }
    // A single letter: part of a name at a sentence start, after an opening quote or bracket, or
    // after a capitalised word, another initial or `by`; not inside a token (`Hyper-V`, `I/O`).
    match before.chars().next_back() {
        Some(c) if is_opener(c) => return false,
        Some(c) if !c.is_whitespace() => return true,
        _ => {}
    }
    let prev = before
        .trim_end()
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or("");
    let prev = prev.trim_start_matches(|c: char| !c.is_alphanumeric());
    // `by R. Murray`, and the second of two names: `J. Solomon and T. Worthen`.
    let name_like = prev.is_empty()
        || prev.ends_with('.')
        || prev.starts_with(char::is_uppercase)
        || matches!(prev, "by" | "and" | "&");
    !name_like
}

/// The last word of `head`, as the text before it and the word: a run of letters, digits, periods
/// and apostrophes, without leading punctuation (`(e.g` → `e.g`, `--Mr` → `Mr`, `'F` → `F`).
fn last_word(head: &str) -> (&str, &str) {
    let run = head
        .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '\'' | '’')))
        .map_or(0, |i| {
            i + head[i..].chars().next().map_or(1, char::len_utf8)
        });
    let word = head[run..].trim_start_matches(|c: char| !c.is_alphanumeric());
    (&head[..head.len() - word.len()], word)
}

/// A capitalised word of two to four letters (`Rec`, `Art`), likely a label before a number.
fn is_short_capitalised(word: &str) -> bool {
    let n = word.chars().count();
    (2..=4).contains(&n)
        && word.starts_with(char::is_uppercase)
        && word.chars().skip(1).all(char::is_lowercase)
}

/// Dotted abbreviations of one- and two-letter parts: `a.m`, `e.g`, `U.S`, `Ph.D` (not `2.2`,
/// `os.path` or `filenode.2`).
fn is_dotted_abbreviation(word: &str) -> bool {
    word.contains('.')
        && word.split('.').all(|part| {
            let n = part.chars().count();
            (1..=2).contains(&n) && part.chars().all(char::is_alphabetic)
        })
}

/// Whether `sentence` (the text before a period) is only a list item's number: `5`, `12`.
fn is_enumerator(sentence: &str) -> bool {
    let s = sentence.trim();
    !s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit())
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

    /// Whether the word is a single initial: `C.`, `C.,`.
    fn is_initial(&self) -> bool {
        let mut chars = self.word.chars();
        chars.next().is_some_and(char::is_uppercase) && chars.next() == Some('.')
    }

    /// Whether the word looks like code: `set_len`, `os.listdir`, `std::fs`, `run()` (not `i.e.`).
    fn is_code(&self) -> bool {
        let w = self.word.trim_end_matches(|c: char| !c.is_alphanumeric());
        w.contains(['_', '('])
            || w.contains("::")
            || (w.contains('.') && w.split('.').filter(|p| p.chars().nth(1).is_some()).count() > 1)
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

/// How far back (in bytes) [`bracket_opens_sentence`] looks for the opening bracket.
const BRACKET_WINDOW: usize = 500;

/// Abbreviations that never end a sentence, compared ignoring ASCII case, without the final period.
const NEVER_FINAL: &[&str] = &[
    "a.k.a", "approx", "cf", "e.g", "eg", "esp", "i.e", "ie", "incl", "n.b", "resp", "viz", "vs",
    "w.r.t",
];

/// Abbreviations that may end a sentence but are usually followed by more of it when the next
/// word is lowercase or a number (`etc. and`, `et al. found`, `5 per cent. of`, `approx. 3`),
/// compared ignoring ASCII case.
const CONTINUED: &[&str] = &[
    "abbr", "al", "approx", "assoc", "avg", "bros", "cent", "cit", "co", "corp", "dept", "eds",
    "eg", "esp", "esq", "est", "etc", "ft", "govt", "hr", "hrs", "ibid", "ie", "in", "inc", "inst",
    "jr", "lb", "lbs", "ltd", "max", "min", "mins", "misc", "mo", "orig", "oz", "pls", "prox",
    "pts", "resp", "seq", "sq", "sr", "trans", "ult", "univ", "viz", "wk", "yr", "yrs",
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
        // After a lowercase word a single capital is a type, a language or a pronoun.
        check(
            "Any value of type T. See the chapter. It is written in C. However it runs. \
             And the devil take the rest, say I. And so on.",
            &[
                "Any value of type T.",
                "See the chapter.",
                "It is written in C.",
                "However it runs.",
                "And the devil take the rest, say I.",
                "And so on.",
            ],
        );
        // Names: after a capitalised word, another initial, `by`, or an opening quote.
        check(
            "Contributed by R. David Murray. President John F. Kennedy spoke. \
             It was signed 'F. C. Weston Churchill.' Then it ended.",
            &[
                "Contributed by R. David Murray.",
                "President John F. Kennedy spoke.",
                "It was signed 'F. C. Weston Churchill.'",
                "Then it ended.",
            ],
        );
        // The second of two names.
        check(
            "Edited by J. Solomon and T. Worthen in 1993. Smith & K. Lee agree. Use A and B. Both work.",
            &[
                "Edited by J. Solomon and T. Worthen in 1993.",
                "Smith & K. Lee agree.",
                "Use A and B.",
                "Both work.",
            ],
        );
        // A capital inside a token is no initial.
        check(
            "It is not shared with Hyper-V. Validation follows. Use buffered I/O. See io.",
            &[
                "It is not shared with Hyper-V.",
                "Validation follows.",
                "Use buffered I/O.",
                "See io.",
            ],
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
        // An ellipsis standing alone elides words.
        check(
            "See also CREATE TABLE ... CONSTRAINT ... EXCLUDE for details. It is long.",
            &[
                "See also CREATE TABLE ... CONSTRAINT ... EXCLUDE for details.",
                "It is long.",
            ],
        );
        check(
            "I could hardly sleep last night .... I kept thinking.",
            &["I could hardly sleep last night ....", "I kept thinking."],
        );
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
        // A quoted string ending in a period continues the sentence before a lowercase word.
        check(
            "The prefix is \"blkio.bfq.\" or \"io.bfq.\" in that file.",
            &["The prefix is \"blkio.bfq.\" or \"io.bfq.\" in that file."],
        );
        // A bracketed sentence ends before a lowercase identifier; a bracketed label does not.
        check(
            "It fails. (Only plain is allowed.) plain means no compression. \
             See section (B.4.) above and sqrt(-1.) below.",
            &[
                "It fails.",
                "(Only plain is allowed.)",
                "plain means no compression.",
                "See section (B.4.) above and sqrt(-1.) below.",
            ],
        );
        // A bracket set off by a space still closes the sentence before it.
        check(
            "(The commands are SET and GET. ) N.B. If they fail, retry.",
            &[
                "(The commands are SET and GET. )",
                "N.B. If they fail, retry.",
            ],
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
        check(
            "The new panic!() macro is stricter. It is cond ? a : b in C.",
            &[
                "The new panic!() macro is stricter.",
                "It is cond ? a : b in C.",
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
    fn code_or_closed_quote_after_question_or_exclamation() {
        check(
            "It is not exception-safe! set_len is fine. Should it return bytes? \
             os.listdir can do both. Welcome to \"The rustc book\"! rustc is a compiler.",
            &[
                "It is not exception-safe!",
                "set_len is fine.",
                "Should it return bytes?",
                "os.listdir can do both.",
                "Welcome to \"The rustc book\"!",
                "rustc is a compiler.",
            ],
        );
        check(
            "What happened ? Nobody knows. It marks ('?') where data is bad.",
            &[
                "What happened ?",
                "Nobody knows.",
                "It marks ('?') where data is bad.",
            ],
        );
    }

    #[test]
    fn lowercase_and_numeric_sentence_starts() {
        check(
            "It is hard to port to newer platforms. uuid-ossp can now be built. \
             See the kind (e.g. Ndistinct). defined means it was requested. \
             Apps are 32 bit. 64-bit apps are known as LP64. It calls ftell(). 32-bit apps differ.",
            &[
                "It is hard to port to newer platforms.",
                "uuid-ossp can now be built.",
                "See the kind (e.g. Ndistinct).",
                "defined means it was requested.",
                "Apps are 32 bit.",
                "64-bit apps are known as LP64.",
                "It calls ftell().",
                "32-bit apps differ.",
            ],
        );
        check(
            "Data can be lost. 'replace' causes a marker. Faster than Python 2.2. (pystone is old.)",
            &[
                "Data can be lost.",
                "'replace' causes a marker.",
                "Faster than Python 2.2.",
                "(pystone is old.)",
            ],
        );
    }

    #[test]
    fn abbreviations_before_lowercase_are_not_boundaries() {
        check(
            "The value is 5 in. or more. We had fruit, etc. and nuts. Smith et al. found it. \
             It rose 5 per cent. of the total at 9 a.m. today. See p. 5 and (cf.) the notes.",
            &[
                "The value is 5 in. or more.",
                "We had fruit, etc. and nuts.",
                "Smith et al. found it.",
                "It rose 5 per cent. of the total at 9 a.m. today.",
                "See p. 5 and (cf.) the notes.",
            ],
        );
        check(
            "It was superseded by Rec. 709. The default is Art. 5 of the code.",
            &[
                "It was superseded by Rec. 709.",
                "The default is Art. 5 of the code.",
            ],
        );
    }

    #[test]
    fn list_enumerators() {
        check(
            "5. The repeal of the act. 12. Another item follows.",
            &["5. The repeal of the act.", "12. Another item follows."],
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
    fn long_pathological_input_is_linear() {
        // Candidates that are all rejected, with no opening bracket: each must be judged locally.
        let text = "x.) y ".repeat(20_000);
        let ranges = split(&text);
        assert_eq!(ranges.last().map(|r| r.end), Some(text.len()));
        let text = "a. b ".repeat(20_000) + &"…".repeat(10_000) + &" ".repeat(10_000);
        let ranges = split(&text);
        assert_eq!(ranges.last().map(|r| r.end), Some(text.len()));
    }

    proptest::proptest! {
        #[test]
        fn ranges_cover_any_text(text in "[a-zA-Z0-9 .?!…。！？\"'()\\[\\]:,_-]{0,60}|\\PC{0,40}") {
            let ranges = split(&text);
            let mut at = 0;
            for r in &ranges {
                proptest::prop_assert_eq!(r.start, at);
                proptest::prop_assert!(r.start < r.end);
                proptest::prop_assert!(text.is_char_boundary(r.end));
                at = r.end;
            }
            proptest::prop_assert_eq!(at, text.len());
        }
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
