//! The encoder's tokenizer (BERT's uncased WordPiece) for the static word vectors, built straight
//! on the compiled-in vocabulary: token ids only, no offsets or alignments.
//!
//! It gives exactly the ids of the `tokenizers` crate's `BertNormalizer` (clean text, CJK
//! characters set apart, accents stripped, lower case) + `BertPreTokenizer` + `WordPiece` (`##`
//! continuations, at most 100 characters a word) with the five special tokens matched in the raw
//! text, which the tests check on real documents and on random text. The crate's tokenizer copies
//! the 30,522-entry vocabulary into owned strings several times as it is built; this one borrows
//! the vocabulary's lines, so a short `segue check --tier 0` does not pay for the copies.

use ahash::AHashMap;
use thiserror::Error;
use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::UnicodeNormalization;

/// The tokens that are matched in the raw text, before any normalisation.
pub const SPECIAL_TOKENS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/// Words of more characters than this are one unknown token.
const MAX_WORD_CHARS: usize = 100;

/// Why a vocabulary cannot be used.
#[derive(Debug, Error)]
pub enum VocabularyError {
    /// The vocabulary is not UTF-8.
    #[error("the vocabulary is not UTF-8")]
    NotUtf8,
    /// A special token is missing.
    #[error("the vocabulary has no {0}")]
    MissingSpecial(&'static str),
}

/// A WordPiece tokenizer over a vocabulary of one token per line, in id order.
#[derive(Debug)]
pub struct WordPiece {
    /// Every line, as a word's first piece.
    initial: AHashMap<&'static str, u32>,
    /// The lines that start with `##`, without it: a word's later pieces.
    continuing: AHashMap<&'static str, u32>,
    /// The special tokens' ids, in [`SPECIAL_TOKENS`]' order.
    special: [u32; 5],
}

impl WordPiece {
    /// The tokenizer of `vocabulary` (lines end with `\n` or `\r\n`; trailing white space is not
    /// part of a token; a repeated token takes its last line's id).
    pub fn new(vocabulary: &'static [u8]) -> Result<WordPiece, VocabularyError> {
        let text = std::str::from_utf8(vocabulary).map_err(|_| VocabularyError::NotUtf8)?;
        let mut initial = AHashMap::with_capacity(32_768);
        let mut continuing = AHashMap::with_capacity(8_192);
        for (id, line) in text.lines().enumerate() {
            let token = line.trim_end();
            let id = id as u32;
            initial.insert(token, id);
            if let Some(rest) = token.strip_prefix("##") {
                continuing.insert(rest, id);
            }
        }
        let mut special = [0u32; 5];
        for (slot, token) in special.iter_mut().zip(SPECIAL_TOKENS) {
            *slot = *initial
                .get(token)
                .ok_or(VocabularyError::MissingSpecial(token))?;
        }
        Ok(WordPiece {
            initial,
            continuing,
            special,
        })
    }

    /// Number of distinct tokens in the vocabulary.
    pub fn len(&self) -> usize {
        self.initial.len()
    }

    /// Whether the vocabulary has no tokens (never: it holds the special tokens).
    pub fn is_empty(&self) -> bool {
        self.initial.is_empty()
    }

    /// `[UNK]`'s id.
    fn unknown(&self) -> u32 {
        self.special[1]
    }

    /// The ids of `text`'s tokens, in order.
    pub fn ids(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        self.each_id(text, |id| out.push(id));
        out
    }

    /// Calls `f` with the id of each of `text`'s tokens, in order.
    pub fn each_id(&self, text: &str, mut f: impl FnMut(u32)) {
        let mut normal = String::new();
        let mut pieces = Vec::new();
        let mut rest = text;
        loop {
            let (before, special) = split_special(rest);
            normalize(before, &mut normal);
            for_each_word(&normal, |word| self.word(word, &mut pieces, &mut f));
            match special {
                Some((k, after)) => {
                    f(self.special[k]);
                    rest = after;
                }
                None => break,
            }
        }
    }

    /// The pieces of one pre-tokenized word: the longest known prefix, then the longest known
    /// continuation, and so on; a word with a part no piece covers is one unknown token.
    /// `pieces` is scratch space.
    fn word(&self, word: &str, pieces: &mut Vec<u32>, f: &mut impl FnMut(u32)) {
        if word.chars().count() > MAX_WORD_CHARS {
            f(self.unknown());
            return;
        }
        pieces.clear();
        let mut start = 0;
        while start < word.len() {
            let map = if start == 0 {
                &self.initial
            } else {
                &self.continuing
            };
            let mut end = word.len();
            let found = loop {
                if let Some(&id) = map.get(&word[start..end]) {
                    break Some(id);
                }
                match word[start..end].chars().next_back() {
                    Some(c) if end - c.len_utf8() > start => end -= c.len_utf8(),
                    _ => break None,
                }
            };
            let Some(id) = found else {
                f(self.unknown());
                return;
            };
            pieces.push(id);
            start = end;
        }
        pieces.iter().for_each(|&id| f(id));
    }
}

/// `text` up to the first special token, and that token's index and the text after it.
fn split_special(text: &str) -> (&str, Option<(usize, &str)>) {
    let mut from = 0;
    while let Some(at) = text[from..].find('[').map(|k| k + from) {
        let tail = &text[at..];
        if let Some(k) = SPECIAL_TOKENS.iter().position(|t| tail.starts_with(t)) {
            return (&text[..at], Some((k, &tail[SPECIAL_TOKENS[k].len()..])));
        }
        from = at + 1;
    }
    (text, None)
}

/// BERT's normalisation of `text` into `out` (cleared first): control characters dropped, white
/// space made a plain space, CJK ideographs set apart by spaces, canonical decomposition with
/// non-spacing marks dropped, then lower case.
fn normalize(text: &str, out: &mut String) {
    out.clear();
    let mut clean = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        let c = if is_whitespace(c) { ' ' } else { c };
        if is_chinese_char(c) {
            clean.push(' ');
            clean.push(c);
            clean.push(' ');
        } else {
            clean.push(c);
        }
    }
    if clean.is_ascii() {
        out.extend(clean.chars().map(|c| c.to_ascii_lowercase()));
        return;
    }
    for (c, _) in clean.nfd() {
        if !c.is_mark_nonspacing() {
            out.extend(c.to_lowercase());
        }
    }
}

/// Calls `f` with each word of normalised text: split at white space, each punctuation mark a
/// word of its own.
fn for_each_word<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    for chunk in text.split(char::is_whitespace) {
        let mut start = 0;
        for (at, c) in chunk.char_indices() {
            if is_punctuation(c) {
                if start < at {
                    f(&chunk[start..at]);
                }
                f(&chunk[at..at + c.len_utf8()]);
                start = at + c.len_utf8();
            }
        }
        if start < chunk.len() {
            f(&chunk[start..]);
        }
    }
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Unicode's "other" categories (control, format, unassigned, private use) but tab and line ends.
fn is_control(c: char) -> bool {
    if c.is_ascii() {
        // The only ASCII characters in those categories are the C0 controls and DEL.
        return c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    }
    c.is_other()
}

/// ASCII punctuation (symbols such as `$`, `+` and `^` among it) and Unicode's punctuation.
fn is_punctuation(c: char) -> bool {
    // Every ASCII character in Unicode's punctuation categories is ASCII punctuation.
    c.is_ascii_punctuation() || (!c.is_ascii() && c.is_punctuation())
}

/// The CJK Unified Ideographs blocks (not Hangul, Hiragana or Katakana, which space words).
fn is_chinese_char(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokenizers::models::wordpiece::WordPiece as Reference;
    use tokenizers::normalizers::bert::BertNormalizer;
    use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
    use tokenizers::{AddedToken, Tokenizer};

    const VOCABULARY: &[u8] = include_bytes!("../../models/tier0/vocab.txt");

    /// The `tokenizers` crate's BERT tokenizer over the same vocabulary, set up as the encoder's
    /// `tokenizer.json` sets it up.
    fn reference() -> Tokenizer {
        let vocab = Reference::read_bytes(VOCABULARY).expect("vocabulary");
        let model = Reference::builder()
            .vocab(vocab)
            .unk_token("[UNK]".into())
            .continuing_subword_prefix("##".into())
            .max_input_chars_per_word(100)
            .build()
            .expect("model");
        let mut t = Tokenizer::new(model);
        t.with_normalizer(Some(BertNormalizer::new(true, true, None, true)));
        t.with_pre_tokenizer(Some(BertPreTokenizer));
        let special: Vec<AddedToken> = SPECIAL_TOKENS
            .iter()
            .map(|t| AddedToken::from(*t, true))
            .collect();
        t.add_special_tokens(&special);
        t
    }

    fn assert_same(ours: &WordPiece, reference: &Tokenizer, text: &str) {
        let want = reference.encode(text, false).expect("encodes");
        assert_eq!(ours.ids(text), want.get_ids(), "{text:?}");
    }

    #[test]
    fn hard_cases_give_the_reference_ids() {
        let ours = WordPiece::new(VOCABULARY).expect("vocabulary");
        let reference = reference();
        let long = "a".repeat(120);
        let cases = [
            "",
            " ",
            "See [CLS] and 東京 — a\u{a0}non-breaking\tspace, x²+y², naïve\u{200b}zero-width;",
            &long,
            "[MASK][SEP]x[UNK]y[PAD] [CL S] [cls] [[MASK]]",
            "İstanbul ǅemal Straße ΣΊΣΥΦΟΣ ﬁne Ångström Ǆ",
            "control\u{0}char\u{fffd}s\u{7}\u{ad}soft hy\u{ad}phen \u{feff}bom",
            "emoji 🦀🦀 and 👩‍👩‍👧 family, ₂₀₂₆ №5 ½ ⅓ ℃",
            "ハンガリー 한국어 中文字符 𠀀 𪜀 ꙮ",
            "unaffordable supercalifragilisticexpialidocious antidisestablishmentarianism",
            "e\u{301}e\u{300}\u{301}a\u{308}\u{301}o\u{338}",
            "don't \"quoted\" «guillemets» ‘curly’ — dash – en ... … ¿qué? ¡sí!",
            "https://example.org/a_b-c?d=e&f#g user@host.tld C++ C# .NET 3.14e-10",
        ];
        for text in cases {
            assert_same(&ours, &reference, text);
        }
    }

    /// Every line of the committed documents (Markdown, plain text, three languages' worth of
    /// punctuation) gives the reference's ids.
    #[test]
    fn real_documents_give_the_reference_ids() {
        let ours = WordPiece::new(VOCABULARY).expect("vocabulary");
        let reference = reference();
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests");
        let mut lines = 0;
        for dir in ["fixtures", "corpus", "gold/sentences"] {
            let Ok(entries) = std::fs::read_dir(format!("{root}/{dir}")) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(text) = std::fs::read_to_string(entry.path()) else {
                    continue;
                };
                for line in text.lines() {
                    assert_same(&ours, &reference, line);
                    lines += 1;
                }
            }
        }
        assert!(lines > 1_000, "only {lines} lines read");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Random text (printable characters of every script, control, format, private-use and
        /// unassigned characters, combining marks, special tokens and brackets mixed in) gives
        /// the reference's ids, and never a panic.
        #[test]
        fn any_text_gives_the_reference_ids(
            text in "(\\PC|[\\[\\]#]|\\[CLS\\]|\\[MASK\\]|[\\x00-\\x1f\\u{80}-\\u{9f}\\u{300}-\\u{36f}\\u{200b}-\\u{200f}\\u{e000}-\\u{e00f}\\u{fff0}-\\u{fff8}]|[a-zA-Z]{1,12}| ){0,40}"
        ) {
            let (ours, reference) = shared();
            let want = reference.encode(text.as_str(), false).expect("encodes");
            proptest::prop_assert_eq!(ours.ids(&text), want.get_ids());
        }
    }

    /// Both tokenizers, built once for the property test's cases.
    fn shared() -> &'static (WordPiece, Tokenizer) {
        static BOTH: std::sync::OnceLock<(WordPiece, Tokenizer)> = std::sync::OnceLock::new();
        BOTH.get_or_init(|| (WordPiece::new(VOCABULARY).expect("vocabulary"), reference()))
    }

    /// The ASCII shortcuts agree with the Unicode tables on every ASCII character.
    #[test]
    fn ascii_shortcuts_agree_with_the_unicode_tables() {
        for c in (0u8..128).map(char::from) {
            assert_eq!(
                is_control(c),
                !matches!(c, '\t' | '\n' | '\r') && c.is_other(),
                "{c:?}"
            );
            assert_eq!(
                is_punctuation(c),
                c.is_ascii_punctuation() || c.is_punctuation(),
                "{c:?}"
            );
        }
    }

    #[test]
    fn a_vocabulary_without_its_special_tokens_is_an_error() {
        assert!(matches!(
            WordPiece::new(b"[PAD]\n[UNK]\nthe\n"),
            Err(VocabularyError::MissingSpecial("[CLS]"))
        ));
        assert!(matches!(
            WordPiece::new(b"\xff\n"),
            Err(VocabularyError::NotUtf8)
        ));
        let ok =
            WordPiece::new(b"[PAD]\r\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n##s\nthe\n").expect("ok");
        assert_eq!(ok.len(), 7);
        assert_eq!(ok.ids("Thes cat"), [7, 6, 1]);
    }
}
