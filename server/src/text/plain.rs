//! Plain text: paragraphs separated by blank lines, with the structure that plain-text manuals
//! and essays show by layout alone.
//!
//! Decisions (documented in docs/guide.md):
//! - **Paragraphs** are runs of lines separated by blank lines. A form feed ends the paragraph
//!   and emits a [`Block::Break`].
//! - **Underlined headings.** A line followed by a line of one repeated `=`, `-`, `~`, `*` or
//!   `#` (at least three, about as long as the line: between half and twice its length) is a
//!   heading: `=` level 1, `-` level 2, the others level 3. The same with an overline too.
//! - **Standalone headings.** A short line (at most 80 characters and 12 words) standing alone
//!   as a paragraph, with no final `.`, `!`, `?`, `:`, `;` or `,`, is a heading when it is
//!   numbered (`2. Overview`, `1.2 Scope`, `Chapter 3`, `Section 4.1 Limits`, `Appendix A`;
//!   the level is the number of parts of the number; after a number of two parts or more the
//!   title need not open with a capital, as in `5.4. package.cron.*`) or all in capitals
//!   (`INTRODUCTION`, `SEE ALSO`, also with a final `?`; level 1; an all-caps line followed by indented lines, as in manual pages,
//!   too). Numbered lines such as `1. Download` right next to `2. Install` are list items, not
//!   headings.
//! - **Labels and titles.** A line standing alone as a paragraph that is a label in parentheses
//!   (`(performance)`, as release notes group their items) or a title in title case (`Foreign
//!   Interface`, `Notes on the Design`: at most six words, every word but the short ones opening
//!   with a capital, no sentence punctuation) is a heading of level 3. So is a short line
//!   standing alone right before a list, opening with a capital and with no sentence
//!   punctuation (`Note to those who build from the source` over a release note's bullets).
//! - **Numbered questions.** A FAQ entry's question (`5.9. How does Debian support non-English
//!   languages?`) is a heading: a paragraph of at most three lines and 30 words that opens with a
//!   section number of two or more parts (or one part, alone on its line) and ends with `?`.
//!   A question under a `Q:` label (at most four lines, any final mark) is a heading of level 3;
//!   a paragraph of several `Q:` lines is the FAQ's index, a list.
//! - **Outlines.** Where at least two lines open with `**` or more and a space (Emacs's outline
//!   and Org modes: `NEWS`, `PROBLEMS`), a line at the base indentation opening with stars is a
//!   heading, one level per star; a heading that wraps goes on to the line ending its sentence.
//! - **Project Gutenberg.** Only the text between the `*** START OF … PROJECT GUTENBERG …` and
//!   `*** END OF …` lines is read (without the `End of Project Gutenberg's …` line).
//! - **Definition lists.** A short term on a line of its own with its definition indented below
//!   it in the same block (Texinfo's and `nroff`'s tables) is a list item reading `term:
//!   definition` (`attach: true, item: true`), unless the indented lines look like code.
//! - **Editorial notes.** Lines in square brackets opening with a transcriber's or editor's
//!   label (`[Footnote 1: …]`, `[Sidenote: …]`, `[Illustration]`) are not read; the prose goes
//!   on around them.
//! - **Separators.** A line of only punctuation (`-----`, `* * *`, at least three marks) emits a
//!   [`Block::Break`].
//! - **Lists.** A line starting with a bullet (`-`, `*`, `•`, `o`) or an enumerator (`1.`,
//!   `1)`, `(a)`, `a)`) followed by a space opens a list item (`attach: true, item: true`),
//!   which goes on over the lines after it up to the next item or blank line. Enumerators and
//!   `o` count only at the start of a paragraph, after a line ending in `:` or inside a list,
//!   so that a wrapped `12. ` mid-sentence stays prose.
//! - **Indented blocks.** Lines indented four or more columns beyond the document's usual
//!   indentation (the most common one) form a block. It is code or a command line, skipped with
//!   a [`Block::Break`], when one of its lines looks like code (`$ `, `()`, `{`, `}`, `=`, `;`,
//!   `/`, `\`, `->`, `::`, `&&`, `||`, or a line starting with `#`, `%` or `>`), when the line
//!   before it ends in `:`, or when it follows such a block; otherwise it is a quotation that
//!   attaches like a block quote. A paragraph whose first line alone is indented is prose.
//! - **Overstrike.** Text formatted for a terminal (`nroff`, as Postfix's README files ship) sets
//!   bold as a character, a backspace and the character again (`p\bpo\bo`) and underlines as
//!   `_\b` before the character. A character followed by a backspace is not read: the prose and
//!   headings hold what the terminal shows, and their spans still cover every source byte. A
//!   short line standing alone wholly in bold is a heading of level 2.

use super::{Block, ProseText, Span};

/// Splits plain text into blocks.
pub fn blocks(source: &str) -> Vec<Block> {
    blocks_and_code(source).0
}

/// [`blocks`], and the source spans of the indented runs they leave out as code.
pub(crate) fn blocks_and_code(source: &str) -> (Vec<Block>, Vec<Span>) {
    let body = gutenberg_body(source);
    let pieces: Vec<Piece> = split(source)
        .into_iter()
        .filter(|p| match p {
            Piece::Line(l) => l.start >= body.start && l.end <= body.end,
            Piece::FormFeed => true,
        })
        .collect();
    let base = base_indent(source, &pieces);
    let outline = is_outline(source, &pieces, base);
    // Blocks of non-blank lines, `None` for a form feed.
    let mut groups: Vec<Option<Vec<Line>>> = Vec::new();
    let mut current: Vec<Line> = Vec::new();
    for piece in pieces {
        match piece {
            Piece::FormFeed => {
                if !current.is_empty() {
                    groups.push(Some(std::mem::take(&mut current)));
                }
                groups.push(None);
            }
            Piece::Line(l) if l.text(source).trim().is_empty() => {
                if !current.is_empty() {
                    groups.push(Some(std::mem::take(&mut current)));
                }
            }
            Piece::Line(l) => current.push(l),
        }
    }
    if !current.is_empty() {
        groups.push(Some(current));
    }
    let mut p = Parser {
        src: source,
        base,
        out: Vec::new(),
        last_colon: false,
        last_code: false,
        outline,
        code: Vec::new(),
    };
    for (k, group) in groups.iter().enumerate() {
        match group {
            None => p.brk(),
            Some(lines) => {
                let single_enum = |g: Option<&Option<Vec<Line>>>| -> Option<(u8, u32)> {
                    match g {
                        Some(Some(ls)) if ls.len() == 1 => {
                            ls.first().and_then(|l| enum_style(l.text(source).trim()))
                        }
                        _ => None,
                    }
                };
                // `1. Download` next to `2. Install`: a list, not headings.
                let listed = single_enum(Some(group)).is_some_and(|(style, n)| {
                    let prev = k.checked_sub(1).and_then(|j| single_enum(groups.get(j)));
                    let next = single_enum(groups.get(k + 1));
                    prev.is_some_and(|(s, m)| s == style && m + 1 == n)
                        || next.is_some_and(|(s, m)| s == style && n + 1 == m)
                });
                // A line standing alone right before a list: what the list is about.
                let before_list = matches!(groups.get(k + 1), Some(Some(next))
                    if next.first().is_some_and(|l| marker(l.text(source).trim()).is_some()));
                p.block(lines, listed, before_list);
            }
        }
    }
    (p.out, p.code)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Line {
    start: usize,
    end: usize,
}

impl Line {
    fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.start..self.end).unwrap_or("")
    }

    /// Indentation in columns (tabs to multiples of 8).
    fn indent(&self, src: &str) -> usize {
        let mut c = 0;
        for ch in self.text(src).chars() {
            match ch {
                ' ' => c += 1,
                '\t' => c = c / 8 * 8 + 8,
                _ => break,
            }
        }
        c
    }

    /// The line without its indentation and trailing whitespace.
    fn trimmed(&self, src: &str) -> Line {
        let t = self.text(src);
        let lead = t.len() - t.trim_start().len();
        let end = self.start + t.trim_end().len();
        Line {
            start: (self.start + lead).min(end),
            end,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Piece {
    Line(Line),
    FormFeed,
}

/// Lines without their line endings; a form feed splits its line.
fn split(src: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut off = 0;
    for l in src.split_inclusive('\n') {
        let content = l.strip_suffix('\n').unwrap_or(l);
        let content = content.strip_suffix('\r').unwrap_or(content);
        let mut start = off;
        for (k, part) in content.split('\u{c}').enumerate() {
            if k > 0 {
                out.push(Piece::FormFeed);
            }
            let mut s = start;
            if s == 0 && part.starts_with('\u{feff}') {
                s += '\u{feff}'.len_utf8();
            }
            out.push(Piece::Line(Line {
                start: s,
                end: start + part.len(),
            }));
            start += part.len() + 1;
        }
        off += l.len();
    }
    out
}

/// The most common indentation of non-blank lines (the smaller on a tie).
fn base_indent(src: &str, pieces: &[Piece]) -> usize {
    let mut counts: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
    for p in pieces {
        if let Piece::Line(l) = p {
            if !l.text(src).trim().is_empty() {
                *counts.entry(l.indent(src)).or_default() += 1;
            }
        }
    }
    let mut best = (0, 0);
    for (indent, n) in counts {
        if n > best.1 {
            best = (indent, n);
        }
    }
    best.0
}

/// The adornment character of an underline or overline (`=`, `-`, `~`, `*`, `#`, at least
/// three), with its length.
fn rule(t: &str) -> Option<(char, usize)> {
    let c = t.chars().next()?;
    if !matches!(c, '=' | '-' | '~' | '*' | '#') || !t.chars().all(|x| x == c) {
        return None;
    }
    let n = t.chars().count();
    (n >= 3).then_some((c, n))
}

/// Whether an adornment of `n` characters underlines `title`.
fn fits(n: usize, title: &str) -> bool {
    let len = title.chars().count();
    title.chars().any(char::is_alphanumeric) && n * 2 >= len && n <= len * 2 + 2
}

fn level_of(c: char) -> u8 {
    match c {
        '=' => 1,
        '-' => 2,
        _ => 3,
    }
}

/// A line of only punctuation (at least three marks): a separator.
fn is_separator(t: &str) -> bool {
    !t.chars().any(char::is_alphanumeric)
        && t.chars()
            .all(|c| !c.is_alphanumeric() && (c.is_whitespace() || !c.is_control()))
        && t.chars().filter(|c| !c.is_whitespace()).count() >= 3
}

/// Most words in a definition-list term ([`Parser::definition`]): `'--silent'`, `-o FILE,
/// --output=FILE`, `Charisma`.
const MAX_TERM_WORDS: usize = 8;

/// The fewest heading lines of two stars or more (`** Emacs aborts …`) that make a document an
/// outline.
const OUTLINE_MIN: usize = 2;

/// Most lines of one outline heading that wraps.
const MAX_OUTLINE_LINES: usize = 4;

/// Whether the document is an outline, as Emacs's outline and Org modes write one (`NEWS`,
/// `PROBLEMS`, `TODO`): at least [`OUTLINE_MIN`] lines at the base indentation open with two
/// stars or more and a space. There a line opening with stars is a heading, not a bullet.
fn is_outline(src: &str, pieces: &[Piece], base: usize) -> bool {
    pieces
        .iter()
        .filter(|p| match p {
            Piece::Line(l) => {
                l.indent(src) == base
                    && outline_heading(l.trimmed(src), src).is_some_and(|(level, _)| level >= 2)
            }
            Piece::FormFeed => false,
        })
        .take(OUTLINE_MIN)
        .count()
        >= OUTLINE_MIN
}

/// The level (the number of stars, at most 6) and title of an outline heading line (`** Emacs
/// aborts inside the function 'tparam1'.`), `line` already trimmed. Not a line of stars alone
/// (`* * *`) nor one that ends in a star (`**bold**`).
fn outline_heading(line: Line, src: &str) -> Option<(u8, Line)> {
    let t = line.text(src);
    let stars = t.bytes().take_while(|&b| b == b'*').count();
    let rest = t.get(stars..)?;
    let title = rest.trim_start();
    if stars == 0
        || !rest.starts_with([' ', '\t'])
        || !title.chars().next().is_some_and(char::is_alphanumeric)
        || title.ends_with('*')
    {
        return None;
    }
    let level = u8::try_from(stars.min(6)).ok()?;
    let start = line.start + (t.len() - title.len());
    Some((
        level,
        Line {
            start,
            end: line.end,
        },
    ))
}

/// The bytes of a Project Gutenberg text that are the work itself: between the `*** START OF
/// THE PROJECT GUTENBERG EBOOK …` and `*** END OF …` lines, without the `End of the Project
/// Gutenberg EBook of …` line before the end. The header and the licence after it are not the
/// author's prose. The whole text when it has no such markers.
fn gutenberg_body(src: &str) -> std::ops::Range<usize> {
    let mut body = 0..src.len();
    let mut off = 0;
    for line in src.split_inclusive('\n') {
        let t = line.trim();
        if !t.starts_with(['*', 'E', 'e']) {
            off += line.len();
            continue;
        }
        let upper = t.to_uppercase();
        let marker = t.starts_with("***") && upper.contains("PROJECT GUTENBERG");
        if marker && upper.contains("START OF") && body.start == 0 {
            body.start = off + line.len();
        } else {
            let end_marker = marker && upper.contains("END OF");
            let end_line = body.start > 0
                && (upper.starts_with("END OF THE PROJECT GUTENBERG")
                    || upper.starts_with("END OF PROJECT GUTENBERG"));
            if end_marker || end_line {
                body.end = off;
                break;
            }
        }
        off += line.len();
    }
    if body.start > body.end {
        0..src.len()
    } else {
        body
    }
}

/// Labels of the notes that transcribers and editors set in square brackets among a text's
/// lines (Project Gutenberg: `[Footnote 1: …]`, `[Sidenote: …]`, `[Illustration: …]`).
const NOTE_LABELS: &[&str] = &[
    "editor",
    "footnote",
    "illustration",
    "sidenote",
    "transcriber",
];

/// Most lines of one editorial note ([`editorial_note`]).
const MAX_NOTE_LINES: usize = 12;

/// The number of lines at the start of `lines` that make an editorial note in square brackets
/// (`[Footnote 1: Means the last crop.]`, `[Sidenote: _See the following Scheme, p. 356._]`,
/// `[Illustration]`): its first line opens with `[` and one of [`NOTE_LABELS`], and a line at
/// most [`MAX_NOTE_LINES`] on ends with `]`. Such a note is not the author's running prose.
fn editorial_note(lines: &[Line], src: &str) -> Option<usize> {
    let text = |l: &Line| l.trimmed(src).text(src);
    let label = text(lines.first()?).strip_prefix('[')?;
    let len = label
        .char_indices()
        .find(|(_, c)| !c.is_alphabetic())
        .map_or(label.len(), |(k, _)| k);
    let (word, after) = label.split_at(len);
    if !NOTE_LABELS.contains(&word.to_lowercase().as_str())
        || !after.starts_with([':', ']', ' ', '\'', '’'])
    {
        return None;
    }
    lines
        .iter()
        .take(MAX_NOTE_LINES)
        .position(|l| text(l).ends_with(']'))
        .map(|k| k + 1)
}

/// Whether `t` may be a heading line: short, with no sentence-final punctuation.
fn heading_shaped(t: &str) -> bool {
    let last = t.chars().next_back();
    t.chars().count() <= 80
        && t.split_whitespace().count() <= 12
        && !last.is_some_and(|c| matches!(c, '.' | '!' | '?' | ':' | ';' | ','))
}

/// The level of a numbered heading (`2. Overview`, `1.2 Scope`, `Chapter 3`, `Section 4.1`).
fn numbered_heading(t: &str) -> Option<u8> {
    if !heading_shaped(t) && !chapter_title(t) {
        return None;
    }
    number_level(t)
}

/// A chapter's title line that ends with a full stop, as books set them (`CHAPTER 1. Loomings.`,
/// `Chapter IV. The Pool of Tears.`): a named division, its number, and a short title.
fn chapter_title(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    let [first, number, rest @ ..] = words.as_slice() else {
        return false;
    };
    matches!(
        first.to_ascii_lowercase().as_str(),
        "chapter" | "part" | "book" | "section"
    ) && number.ends_with(['.', ':'])
        && rest
            .first()
            .is_none_or(|title| title.chars().next().is_some_and(char::is_uppercase))
        && t.strip_suffix('.')
            .is_some_and(|title| heading_shaped(title) && words.len() <= 8)
}

/// Most words in a question heading of a FAQ.
const MAX_QUESTION_WORDS: usize = 30;

/// The level of a numbered question, the heading of a FAQ entry (`5.9. How does Debian support
/// non-English languages?`), which may wrap over a few lines: a number of at least two parts
/// (one part when the question stands alone on its line), a capital, and a final `?`.
fn numbered_question(lines: &[&str]) -> Option<u8> {
    let first = lines.first()?;
    let last = lines.last()?;
    let words: usize = lines.iter().map(|l| l.split_whitespace().count()).sum();
    if !last.ends_with('?') || words > MAX_QUESTION_WORDS {
        return None;
    }
    let level = number_level(first)?;
    (level >= 2 || lines.len() == 1).then_some(level)
}

/// The level of a FAQ entry's labelled question ([`faq_question`]), under the document's own
/// headings.
const FAQ_QUESTION_LEVEL: u8 = 3;

/// Most lines in a FAQ entry's labelled question.
const MAX_QUESTION_LINES: usize = 4;

/// Whether `lines`, a paragraph, are a FAQ entry's question under a `Q:` label, the heading of
/// the answer below it (screen's FAQ: `Q:   Seteuid()  does not work as expected in AIX.
/// Attempting a multi-user-attach results in a screen-panic …`). It need not end with `?`. A
/// paragraph of several `Q:` lines is the FAQ's index, a list ([`marker`]).
fn faq_question(lines: &[&str]) -> bool {
    let words: usize = lines.iter().map(|l| l.split_whitespace().count()).sum();
    lines.len() <= MAX_QUESTION_LINES
        && words <= MAX_QUESTION_WORDS + 10
        && lines.first().is_some_and(|l| q_label(l))
        && !lines.iter().skip(1).any(|l| q_label(l))
}

/// Whether `t` opens with a question's `Q:` label and text after it.
fn q_label(t: &str) -> bool {
    t.strip_prefix("Q:")
        .is_some_and(|r| r.starts_with(char::is_whitespace) && has_a_word(r))
}

/// The level of the section number that opens `t`, followed by a title with a capital.
fn number_level(t: &str) -> Option<u8> {
    let mut words = t.split_whitespace();
    let first = words.next()?;
    let named = matches!(
        first.to_ascii_lowercase().as_str(),
        "chapter" | "section" | "part" | "appendix"
    ) && first.chars().next().is_some_and(char::is_uppercase);
    let (number, rest_needed) = if named {
        (words.next()?, false)
    } else {
        (first, true)
    };
    let number = number.trim_end_matches(['.', ':']);
    let parts: Vec<&str> = number.split('.').collect();
    let numeric = parts
        .iter()
        .all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()));
    let roman_or_letter = named
        && !number.is_empty()
        && (number.bytes().all(|b| b"IVXLC".contains(&b))
            || (number.len() == 1 && number.bytes().all(|b| b.is_ascii_uppercase())));
    if !numeric && !roman_or_letter {
        return None;
    }
    if rest_needed {
        // `1.2 Title`, `2. Overview`: the title starts with a capital, or anything but a
        // lower-case word after a number of two parts or more (`5.4. package.cron.*`).
        let title = words.next()?;
        let capital = title.chars().next().is_some_and(char::is_uppercase);
        if !capital && parts.len() < 2 {
            return None;
        }
    }
    let level = if numeric { parts.len() } else { 1 };
    u8::try_from(level.min(6)).ok()
}

/// A short line in capitals (`INTRODUCTION`, `SEE ALSO`, `WHO ARE THE USERS?`).
fn caps_heading(t: &str) -> bool {
    heading_shaped(t.strip_suffix('?').unwrap_or(t))
        && t.split_whitespace().count() <= 10
        && t.chars().filter(|c| c.is_uppercase()).count() >= 2
        && !t.chars().any(char::is_lowercase)
}

/// Most words in a label heading ([`label_heading`]).
const MAX_LABEL_WORDS: usize = 6;

/// Short words a title in title case leaves in lower case (`Notes on the Design`).
const TITLE_SMALL_WORDS: &[&str] = &[
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to",
    "vs", "with",
];

/// A short line standing alone that labels what follows rather than saying something: a label
/// in parentheses, as release notes group their items (`(performance)`, `(portability)`), or a
/// title in title case (`Foreign Interface`, `Notes on the Design`): at most
/// [`MAX_LABEL_WORDS`] words, no sentence punctuation, every word but the short ones opening with
/// a capital, and at least one word of letters.
fn label_heading(t: &str) -> bool {
    let (inner, parenthesized) = match t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        Some(inner) => (inner.trim(), true),
        None => (t, false),
    };
    let words: Vec<&str> = inner.split_whitespace().collect();
    if words.is_empty()
        || words.len() > MAX_LABEL_WORDS
        || !heading_shaped(inner)
        || inner.contains(['.', '!', '?', ';', ',', '(', ')', '"', '“', '”'])
        || !has_a_word(inner)
    {
        return false;
    }
    if parenthesized {
        return true;
    }
    let capital = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
    words.first().is_some_and(|w| capital(w))
        && words
            .iter()
            .all(|w| capital(w) || TITLE_SMALL_WORDS.contains(&w.to_lowercase().as_str()))
}

/// A short line that titles the list after it (`Note to those who build from the source`, over
/// a release note's bullets): heading-shaped, opening with a capital, with a word of letters and
/// no sentence punctuation inside.
fn list_title(t: &str) -> bool {
    heading_shaped(t)
        && t.starts_with(char::is_uppercase)
        && marker(t).is_none()
        && !t.contains(['.', '!', '?', ';', ':'])
        && has_a_word(t)
}

/// Whether `t` holds a word of at least two letters.
fn has_a_word(t: &str) -> bool {
    t.split_whitespace()
        .any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
}

/// The style and number of an enumerator that opens `t` (`1.`, `2)`, `(3)`), for telling lists
/// from numbered headings.
fn enum_style(t: &str) -> Option<(u8, u32)> {
    let (paren, body) = match t.strip_prefix('(') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let len = body.bytes().take_while(u8::is_ascii_digit).count();
    if len == 0 || len > 3 {
        return None;
    }
    let n: u32 = body.get(..len)?.parse().ok()?;
    let close = body.get(len..)?.chars().next()?;
    let style = match (paren, close) {
        (true, ')') => 2,
        (false, ')') => 1,
        (false, '.') => 0,
        _ => return None,
    };
    Some((style, n))
}

/// What opens a list item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    /// `-`, `*`, `•`, `>`: anywhere.
    Bullet,
    /// `1.`, `(a)`, `o`: only where a list may start.
    Enumerator,
}

/// The list marker that opens `t` (already stripped of its indentation) and the byte where the
/// item's text starts.
fn marker(t: &str) -> Option<(Marker, usize)> {
    let mut chars = t.char_indices();
    let (_, c) = chars.next()?;
    let (kind, len) = match c {
        '-' | '*' | '•' | '‣' | '◦' | '▪' | '–' => (Marker::Bullet, c.len_utf8()),
        // A quoted line (`> ` as mail quotes it) or an exercise (`>> `, as the Emacs tutorial
        // marks what the reader should try): set apart from the running prose, as an item is.
        '>' => (Marker::Bullet, t.bytes().take_while(|&b| b == b'>').count()),
        'o' => (Marker::Enumerator, 1),
        '(' => {
            let body = t.get(1..)?;
            let n = body.chars().take_while(char::is_ascii_alphanumeric).count();
            let ok = (1..=3).contains(&n)
                && (body.bytes().take(n).all(|b| b.is_ascii_digit()) || n == 1)
                && body.get(n..)?.starts_with(')');
            if !ok {
                return None;
            }
            (Marker::Enumerator, n + 2)
        }
        c if c.is_ascii_digit() => {
            let n = t.bytes().take_while(u8::is_ascii_digit).count();
            if n > 3 || !matches!(t.as_bytes().get(n), Some(b'.' | b')')) {
                return None;
            }
            // A section number of several parts, as in a table of contents: `10.3. `, `2.1 `.
            let mut len = n + 1;
            let bytes = t.as_bytes();
            while t.as_bytes().get(len - 1) == Some(&b'.') {
                let part = bytes
                    .get(len..)
                    .map_or(0, |r| r.iter().take_while(|b| b.is_ascii_digit()).count());
                if part == 0 || part > 3 {
                    break;
                }
                len += part;
                if bytes.get(len) == Some(&b'.') {
                    len += 1;
                } else {
                    // `2.1 Goals`, but not a decimal such as `2.5 million`.
                    let title = t.get(len..).map(str::trim_start);
                    if !title.is_some_and(|r| r.starts_with(char::is_uppercase)) {
                        return None;
                    }
                    break;
                }
            }
            (Marker::Enumerator, len)
        }
        // A FAQ's index: one `Q:` line per question ([`faq_question`]).
        'Q' if t.as_bytes().get(1) == Some(&b':') => (Marker::Enumerator, 2),
        c if c.is_ascii_alphabetic() => {
            if t.as_bytes().get(1) != Some(&b')') {
                return None;
            }
            (Marker::Enumerator, 2)
        }
        _ => return None,
    };
    let rest = t.get(len..)?;
    let text = rest.trim_start();
    if text.is_empty() || text.len() == rest.len() {
        return None;
    }
    Some((kind, len + (rest.len() - text.len())))
}

/// Whether an indented line looks like code or a command line.
fn looks_like_code(t: &str) -> bool {
    let t = t.trim();
    t.starts_with('$')
        || t.starts_with('#')
        || t.starts_with('%')
        || t.starts_with('>')
        || [
            "$ ", "()", "{", "}", "=", ";", "/", "\\", "->", "::", "&&", "||",
        ]
        .iter()
        .any(|p| t.contains(p))
}

/// The unit being collected inside a block.
#[derive(Debug)]
struct Unit {
    /// Span of the unit's source (from the list marker for items).
    span: Span,
    prose: ProseText,
    item: bool,
    /// Column where an item's text starts.
    text_col: usize,
}

struct Parser<'a> {
    src: &'a str,
    base: usize,
    out: Vec<Block>,
    /// Whether the last non-blank line read ends in `:`.
    last_colon: bool,
    /// Whether the last unit was a code block (an indented block after it is code too).
    last_code: bool,
    /// Whether the document is an outline ([`is_outline`]): its lines opening with stars are
    /// headings.
    outline: bool,
    /// The spans of the indented runs read as code, in order.
    code: Vec<Span>,
}

impl Parser<'_> {
    fn brk(&mut self) {
        if !matches!(self.out.last(), Some(Block::Break) | None) {
            self.out.push(Block::Break);
        }
    }

    fn heading(&mut self, title: Line, first: Line, last: Line, level: u8) {
        let title = visible(title.trimmed(self.src).text(self.src));
        let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
        let (a, b) = (first.trimmed(self.src), last.trimmed(self.src));
        self.out.push(Block::Heading {
            span: Span::new(a.start, b.end),
            title,
            level,
        });
        self.last_colon = false;
        self.last_code = false;
    }

    fn flush(&mut self, unit: Option<Unit>) {
        let Some(u) = unit else { return };
        if u.prose.is_blank() {
            return;
        }
        self.out.push(Block::Prose {
            span: u.span,
            prose: u.prose,
            attach: u.item,
            item: u.item,
        });
        self.last_code = false;
    }

    /// Reads one block of non-blank lines; `listed` when it is a numbered line among others.
    fn block(&mut self, lines: &[Line], listed: bool, before_list: bool) {
        let src = self.src;
        let text = |l: &Line| l.trimmed(src).text(src);
        let mut i = 0;
        // Headings at the start of the block.
        if let (Some(a), Some(b)) = (lines.first(), lines.get(1)) {
            let over = lines.get(2).and_then(|c| {
                let (ca, na) = rule(text(a))?;
                let (cc, _) = rule(text(c))?;
                (ca == cc && fits(na, text(b))).then_some((ca, *c))
            });
            if let Some((c, last)) = over {
                self.heading(*b, *a, last, level_of(c));
                i = 3;
            } else if let Some((c, _)) = rule(text(b)).filter(|(_, n)| fits(*n, text(a))) {
                self.heading(*a, *a, *b, level_of(c));
                i = 2;
            }
        }
        if let Some((first, level, title)) = lines
            .first()
            .filter(|l| self.outline && l.indent(src) == self.base)
            .and_then(|l| outline_heading(l.trimmed(src), src).map(|(n, t)| (*l, n, t)))
        {
            // A heading that wraps goes on to the line that ends its sentence (`*** On systems
            // with shared libraries you might encounter run-time errors` / `from the dynamic
            // linker …`).
            let mut last = first;
            i = 1;
            while i < lines.len().min(MAX_OUTLINE_LINES)
                && !text(&last).ends_with(['.', '!', '?', ':'])
            {
                last = lines[i];
                i += 1;
            }
            let title = Line {
                end: last.trimmed(src).end,
                ..title
            };
            self.heading(title, first, last, level);
        }
        if i == 0 {
            if let Some(first) = lines.first() {
                let t = text(first);
                let rest_indented = lines
                    .get(1..)
                    .unwrap_or(&[])
                    .iter()
                    .all(|l| l.indent(src) > first.indent(src));
                let alone = lines.len() == 1;
                let level = if alone && !listed {
                    numbered_heading(t)
                } else {
                    None
                };
                // A FAQ's numbered question, which may wrap over a few lines.
                let question = lines.len() <= 3 && !listed;
                let question = question
                    .then(|| numbered_question(&lines.iter().map(text).collect::<Vec<_>>()))
                    .flatten();
                let question = question.or_else(|| {
                    (!listed && faq_question(&lines.iter().map(text).collect::<Vec<_>>()))
                        .then_some(FAQ_QUESTION_LEVEL)
                });
                if let (None, Some(level), Some(last)) = (level, question, lines.last()) {
                    self.heading(*first, *first, *last, level);
                    if let Some(Block::Heading { title, .. }) = self.out.last_mut() {
                        *title = lines
                            .iter()
                            .flat_map(|l| text(l).split_whitespace())
                            .collect::<Vec<_>>()
                            .join(" ");
                    }
                    i = lines.len();
                }
                let level = if i == 0 { level } else { None };
                let level = level.or((caps_heading(t) && (alone || rest_indented)).then_some(1));
                let level = level.or((i == 0 && alone && !listed && bold_line(t)).then_some(2));
                let level = level.or((i == 0 && alone && !listed && label_heading(t)).then_some(3));
                let level = level
                    .or((i == 0 && alone && !listed && before_list && list_title(t)).then_some(3));
                if let Some(level) = level {
                    self.heading(*first, *first, *first, level);
                    i = 1;
                } else if !listed && self.definition(lines) {
                    return;
                }
            }
        }
        let mut unit: Option<Unit> = None;
        while let Some(&line) = lines.get(i) {
            let t = text(&line);
            let indent = line.indent(src);
            let limit = unit
                .as_ref()
                .filter(|u| u.item)
                .map_or(self.base, |u| u.text_col.max(self.base))
                + 4;
            // An indented block: the run of lines indented past the limit.
            if indent >= limit {
                let run_end = lines
                    .iter()
                    .skip(i)
                    .position(|l| l.indent(src) < limit)
                    .map_or(lines.len(), |k| i + k);
                let first_line_indent = unit.is_none() && i + 1 == run_end && run_end < lines.len();
                if !first_line_indent {
                    let run = lines.get(i..run_end).unwrap_or(&[]);
                    self.flush(unit.take());
                    let code = self.last_colon
                        || self.last_code
                        || run.iter().any(|l| looks_like_code(l.text(src)));
                    if run.iter().all(|l| is_separator(text(l))) {
                        // A centred `* * *`.
                        self.brk();
                        self.last_code = false;
                    } else if code {
                        self.brk();
                        self.last_code = true;
                        if let (Some(first), Some(last)) = (run.first(), run.last()) {
                            self.code.push(Span::new(first.start, last.end));
                        }
                    } else {
                        let mut u = self.start_unit(run.first().copied().unwrap_or(line), 0);
                        for l in run.iter().skip(1) {
                            self.push_line(&mut u, *l);
                        }
                        self.flush_quote(u);
                    }
                    self.last_colon = run
                        .last()
                        .is_some_and(|l| l.text(src).trim_end().ends_with(':'));
                    i = run_end;
                    continue;
                }
            }
            if let Some((c, n)) = rule(t) {
                // An underline under the one line read so far.
                let single = unit.as_ref().and_then(|u| {
                    (!u.item && u.span.slice(src).lines().count() == 1).then_some(u.span)
                });
                if let Some(title) = single.filter(|s| fits(n, s.slice(src))) {
                    unit = None;
                    let title_line = Line {
                        start: title.start,
                        end: title.end,
                    };
                    self.heading(title_line, title_line, line, level_of(c));
                    i += 1;
                    continue;
                }
            }
            if let Some(end) = editorial_note(lines.get(i..).unwrap_or(&[]), src) {
                // Not read, and no break: the prose goes on around it.
                i += end;
                continue;
            }
            if is_separator(t) {
                self.flush(unit.take());
                self.brk();
                self.last_colon = false;
                i += 1;
                continue;
            }
            let in_list = unit.as_ref().is_some_and(|u| u.item);
            let list_may_start = unit.is_none() || in_list || self.last_colon;
            match marker(t) {
                Some((kind, at)) if kind == Marker::Bullet || list_may_start => {
                    self.flush(unit.take());
                    unit = Some(self.start_unit(line, at));
                }
                _ => match unit.as_mut() {
                    Some(u) => self.push_line(u, line),
                    None => unit = Some(self.start_unit(line, 0)),
                },
            }
            self.last_colon = t.ends_with(':');
            i += 1;
        }
        self.flush(unit);
    }

    /// A definition-list entry, as Texinfo, `nroff` and reStructuredText lay one out in plain
    /// text: a short term on a line of its own and its definition indented below it, in the same
    /// block (`'--silent'` over `     Used in many programs to inhibit the usual output.`). It is
    /// read as `term: definition`, a list item (`attach: true, item: true`), as the other formats
    /// read one. Returns whether `lines` was one.
    fn definition(&mut self, lines: &[Line]) -> bool {
        let src = self.src;
        let [term, body @ ..] = lines else {
            return false;
        };
        let t = term.trimmed(src).text(src);
        let indent = term.indent(src);
        let defined = !body.is_empty()
            && body.iter().all(|l| l.indent(src) >= indent + 2)
            && marker(t).is_none()
            && !t.ends_with(':')
            && t.split_whitespace().count() <= MAX_TERM_WORDS
            && !body.iter().any(|l| looks_like_code(l.text(src)));
        if !defined {
            return false;
        }
        let mut u = self.start_unit(*term, 0);
        u.prose.close_term(Span::new(u.span.end, u.span.end));
        for l in body {
            self.push_line(&mut u, *l);
        }
        u.item = true;
        self.flush(Some(u));
        self.last_colon = false;
        true
    }

    fn flush_quote(&mut self, u: Unit) {
        if u.prose.is_blank() {
            return;
        }
        self.out.push(Block::Prose {
            span: u.span,
            prose: u.prose,
            attach: true,
            item: false,
        });
        self.last_code = false;
    }

    /// A unit starting at `line`; `at` is the byte (of the trimmed line) where an item's text
    /// starts, 0 for prose.
    fn start_unit(&self, line: Line, at: usize) -> Unit {
        let tl = line.trimmed(self.src);
        let text_start = (tl.start + at).min(tl.end);
        let text_col = line.indent(self.src)
            + self
                .src
                .get(tl.start..text_start)
                .map_or(0, |s| s.chars().count());
        let mut prose = ProseText::new();
        push_visible(&mut prose, self.src, Span::new(text_start, tl.end));
        Unit {
            span: Span::new(tl.start, tl.end),
            prose,
            item: at > 0,
            text_col,
        }
    }

    fn push_line(&self, u: &mut Unit, line: Line) {
        let tl = line.trimmed(self.src);
        if !u.prose.text().is_empty() {
            u.prose.push_space(Span::new(u.span.end, tl.start));
        }
        push_visible(&mut u.prose, self.src, Span::new(tl.start, tl.end));
        u.span = u.span.cover(Span::new(tl.start, tl.end));
    }
}

/// The overstrike mark: the character before it is struck over by the one after it.
const BACKSPACE: char = '\u{8}';

/// Appends `src[span]` to `prose` as a terminal shows it: without a character that a backspace
/// follows, nor the backspace (the source map keeps the bytes in between).
fn push_visible(prose: &mut ProseText, src: &str, span: Span) {
    let Some(text) = src.get(span.start..span.end) else {
        return;
    };
    if !text.contains(BACKSPACE) {
        prose.push_source(src, span);
        return;
    }
    let mut run = span.start;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let mut skipped = c.len_utf8();
        if c != BACKSPACE {
            if chars.next_if(|&(_, n)| n == BACKSPACE).is_none() {
                continue;
            }
            skipped += BACKSPACE.len_utf8();
        }
        prose.push_source(src, Span::new(run, span.start + i));
        run = span.start + i + skipped;
    }
    prose.push_source(src, Span::new(run, span.end));
}

/// Whether `t` is a short line set wholly in terminal bold (every character but spaces struck
/// over with itself): a title, as `nroff` and text browsers render headings.
fn bold_line(t: &str) -> bool {
    let mut chars = t.trim().chars();
    let mut shown = 0;
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if chars.next() != Some(BACKSPACE) || chars.next() != Some(c) {
            return false;
        }
        shown += 1;
    }
    let title = visible(t);
    shown >= 2 && title.chars().count() <= 80 && title.split_whitespace().count() <= 12
}

/// `text` as a terminal shows it ([`push_visible`]).
fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(BACKSPACE) {
        return text.into();
    }
    let mut prose = ProseText::new();
    push_visible(&mut prose, text, Span::new(0, text.len()));
    prose.text().to_string().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{parse, Document, Format};
    use proptest::prelude::*;

    fn doc(src: &str) -> Document {
        parse(src, Format::Plain)
    }

    fn sentences(src: &str) -> Vec<Vec<String>> {
        doc(src)
            .paragraphs()
            .map(|p| p.sentences.iter().map(|s| s.text.clone()).collect())
            .collect()
    }

    fn headings(src: &str) -> Vec<(String, u8)> {
        doc(src)
            .sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| (h.title.clone(), h.level)))
            .collect()
    }

    fn v(items: &[&[&str]]) -> Vec<Vec<String>> {
        items
            .iter()
            .map(|p| p.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    #[test]
    fn blank_lines_separate_paragraphs() {
        let src = "One line.\r\nStill one. Two.\r\n\r\n  \nNext para.\n";
        let doc = parse(src, Format::Plain);
        let paras: Vec<_> = doc.paragraphs().collect();
        assert_eq!(paras.len(), 2);
        assert_eq!(paras[0].span.slice(src), "One line.\r\nStill one. Two.");
        assert_eq!(paras[0].sentences.len(), 3);
        assert_eq!(paras[0].sentences[1].text, "Still one.");
        assert_eq!(paras[1].sentences[0].span.slice(src), "Next para.");
    }

    #[test]
    fn an_indented_run_read_as_code_is_the_document_s_code() {
        // postfix's DEBUG_README: a command between two paragraphs that discuss it.
        let src = "This example uses tcpdump. Record with a large buffer:\n\n    # tcpdump -w /file/name -s 0 host example.com and port 25\n\nRun this for a while, stop with Ctrl-C when done.\n";
        let doc = parse(src, Format::Plain);
        assert_eq!(
            doc.code,
            vec!["    # tcpdump -w /file/name -s 0 host example.com and port 25".to_string()]
        );
        assert_eq!(doc.paragraphs().count(), 2);
    }

    /// In the style of GNU `INSTALL` and similar plain-text manuals.
    const GNU: &str = "Installation Instructions\n*************************\n\nBasic Installation\n==================\n\n   Briefly, the shell command `./configure && make && make install'\nshould configure, build, and install this package.  The following\nmore-detailed instructions are generic.\n\n   The simplest way to compile this package is:\n\n  1. `cd' to the directory containing the package's source code and type\n     `./configure' to configure the package for your system.\n\n  2. Type `make' to compile the package.\n\nCompilers and Options\n---------------------\n\n   You can give `configure' initial values for configuration parameters\nby setting variables in the command line or in the environment.  Here\nis an example:\n\n        ./configure CC=c99 CFLAGS=-g LIBS=-lposix\n\n   *Note Defining Variables::, for more details.\n";

    #[test]
    fn gnu_manual_headings_lists_and_examples() {
        assert_eq!(
            headings(GNU),
            vec![
                ("Installation Instructions".to_string(), 3),
                ("Basic Installation".to_string(), 1),
                ("Compilers and Options".to_string(), 2)
            ]
        );
        let s = sentences(GNU);
        assert_eq!(
            s[0],
            vec![
                "Briefly, the shell command `./configure && make && make install' should configure, build, and install this package.",
                "The following more-detailed instructions are generic."
            ]
        );
        assert_eq!(
            s[1],
            vec![
                "The simplest way to compile this package is:",
                "`cd' to the directory containing the package's source code and type `./configure' to configure the package for your system.",
                "Type `make' to compile the package."
            ]
        );
        // The example command line is skipped; the note after it stands apart.
        assert_eq!(s.len(), 4);
        assert!(!s.iter().flatten().any(|t| t.contains("CFLAGS")));
        let d = doc(GNU);
        let last = d.sections[2].paragraphs.last().map(|p| p.after_block);
        assert_eq!(last, Some(true));
    }

    #[test]
    fn labels_and_titles_standing_alone_are_headings() {
        // git's release notes group their items under labels in parentheses, and its sections
        // under titles in title case.
        let src =
            "Updates since v1.5.6\n--------------------\n\n(subsystems)\n\n * git-gui updates.\n\n\
                   (performance)\n\n * pack-objects autodetects the number of CPUs.\n\n\
                   Foreign Interface\n\n * The remote helper learned to handle attachments.\n\n\
                   Notes on the Design\n\nThe design is simple. It has two parts.\n";
        assert_eq!(
            headings(src),
            vec![
                ("Updates since v1.5.6".to_string(), 2),
                ("(subsystems)".to_string(), 3),
                ("(performance)".to_string(), 3),
                ("Foreign Interface".to_string(), 3),
                ("Notes on the Design".to_string(), 3),
            ]
        );
        // A line in sentence case over a list titles it.
        let src = "Note to those who build from the source\n\n * Since Git 2.31, our source \
                   assumed variadic macros.\n\nThe build is simple\n\nIt has two parts.\n\n\
                   You need Perl: it is\n\n * used by the tests.\n";
        assert_eq!(
            headings(src),
            vec![("Note to those who build from the source".to_string(), 3)]
        );
        // Not labels: a sentence, a line in lower case, a remark in parentheses, a long title,
        // and a short line that is part of a paragraph.
        let src = "The tests pass.\n\nsee the manual\n\n(This is a remark, not a label.)\n\n\
                   Seven Words In Title Case Are Too Many\n\nShort Title Case\nand more text.\n";
        assert!(headings(src).is_empty(), "{:?}", headings(src));
    }

    #[test]
    fn standalone_numbered_and_capital_headings() {
        let src = "INTRODUCTION\n\nSome text here. More text.\n\n2. Overview\n\nThe overview.\n\n2.1 Goals\n\nThe goals.\n\nChapter 3\n\nA chapter.\n\nSection 4.1 Limits of the method\n\nThe limits.\n\nNot a heading because it ends.\n\nShort line that is prose\nbecause it has two lines.\n";
        assert_eq!(
            headings(src),
            vec![
                ("INTRODUCTION".to_string(), 1),
                ("2. Overview".to_string(), 1),
                ("2.1 Goals".to_string(), 2),
                ("Chapter 3".to_string(), 1),
                ("Section 4.1 Limits of the method".to_string(), 2)
            ]
        );
        // A book's chapter titles end with a full stop (Moby-Dick).
        let src = "CHAPTER 1. Loomings.\n\nCall me Ishmael. Some years ago I went to sea.\n\n\
                   Chapter II. The Carpet-Bag.\n\nI stuffed a shirt or two into my old bag.\n\n\
                   CHAPTER III.\n\nThe next day came.\n\nChapter 3 of the report covers costs.\n";
        assert_eq!(
            headings(src),
            vec![
                ("CHAPTER 1. Loomings.".to_string(), 1),
                ("Chapter II. The Carpet-Bag.".to_string(), 1),
                ("CHAPTER III.".to_string(), 1),
            ]
        );
        // Consecutive numbered lines are a list.
        let src = "Steps:\n\n1. Download it\n\n2. Install it\n";
        assert!(headings(src).is_empty());
        assert_eq!(
            sentences(src),
            v(&[&["Steps:", "Download it", "Install it"]])
        );
        // A FAQ's numbered questions, one of them wrapped (Debian FAQ).
        let src = "3.1.6. You are talking about testing being broken. What do you mean\nby that?\n\n    Sometimes, a package might not be installable.\n\n5.9. How does Debian support non-English languages?\n\n    Debian is distributed with keymaps.\n\n2. Why would anyone ask this?\n\nBecause they can.\n";
        assert_eq!(
            headings(src),
            vec![
                (
                    "3.1.6. You are talking about testing being broken. What do you mean by that?"
                        .to_string(),
                    3
                ),
                (
                    "5.9. How does Debian support non-English languages?".to_string(),
                    2
                ),
                ("2. Why would anyone ask this?".to_string(), 1),
            ]
        );
        // A file name after a section number; a question in capitals.
        assert_eq!(
            headings("5.4. package.cron.*\n\nIf your package needs tasks.\n\nWHO ARE THE USERS AND WHAT DO THEY DO?\n\nScholars.\n"),
            vec![
                ("5.4. package.cron.*".to_string(), 2),
                ("WHO ARE THE USERS AND WHAT DO THEY DO?".to_string(), 1)
            ]
        );
        // A numbered paragraph that is a sentence, not a question, stays prose.
        assert!(headings("2.1. The parser reads the input.\n\nMore text.\n").is_empty());
        // Questions under a `Q:` label, and their index as a list (leafnode's and screen's FAQs).
        let src = "Q: I cannot compile leafnode on Linux!\nQ: How do I copy/move the spool?\n\n\
                   Q: I cannot compile leafnode on Linux!\n\nA: Another common reason is the \
                   kernel.\n\nQ:   Seteuid()  does not work as expected in AIX.  Attempting a \
                   multi-\n     user-attach results in a screen-panic.\n \nA:   This is not a \
                   screen problem.\n";
        assert_eq!(
            headings(src),
            vec![
                ("Q: I cannot compile leafnode on Linux!".to_string(), 3),
                (
                    "Q: Seteuid() does not work as expected in AIX. Attempting a multi- \
                     user-attach results in a screen-panic."
                        .to_string(),
                    3
                ),
            ]
        );
        let index: Vec<bool> = doc(src).paragraphs().map(|p| p.list).collect();
        assert_eq!(index, vec![true, false, false]);
        // Manual-page style: a capital heading over indented text.
        let src = "NAME\n       ls - list directory contents\n\nDESCRIPTION\n       List information about the FILEs.\n";
        assert_eq!(
            headings(src),
            vec![("NAME".to_string(), 1), ("DESCRIPTION".to_string(), 1)]
        );
    }

    /// `text` in terminal bold: each character, a backspace, the character again.
    fn bold(text: &str) -> String {
        text.chars()
            .map(|c| {
                if c == ' ' {
                    " ".to_string()
                } else {
                    format!("{c}\u{8}{c}")
                }
            })
            .collect()
    }

    #[test]
    fn overstruck_text_reads_as_the_terminal_shows_it() {
        // As Postfix's README files ship: bold titles and commands, underlined words.
        let src = format!(
            concat!(
                "{}\n\n{}\n\nThis example uses {}. Record it with the \"{}\" option\n",
                "and _\u{8}u_\u{8}n_\u{8}d_\u{8}e_\u{8}r a large buffer.\n",
            ),
            bold("Postfix Debugging Howto"),
            bold("Purpose of this document"),
            bold("tcpdump"),
            bold("-s"),
        );
        let d = doc(&src);
        assert_eq!(
            headings(&src),
            vec![
                ("Postfix Debugging Howto".to_string(), 2),
                ("Purpose of this document".to_string(), 2)
            ]
        );
        let p = d.paragraphs().next().expect("a paragraph");
        let texts: Vec<&str> = p.sentences.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "This example uses tcpdump.",
                "Record it with the \"-s\" option and under a large buffer."
            ]
        );
        // The spans still cover the source bytes, backspaces and all.
        let first = &p.sentences[0];
        assert_eq!(
            first.span.slice(&src),
            format!("This example uses {}.", bold("tcpdump"))
        );
        let last = &p.sentences[1];
        assert!(last.span.slice(&src).ends_with("a large buffer."));
        assert_eq!(visible("\u{8}a\u{8}ab_\u{8}c"), "abc");
    }

    #[test]
    fn an_outline_reads_its_star_lines_as_headings() {
        // Emacs's etc/PROBLEMS: `*` and `**` open headings, and a heading that wraps goes on to
        // the end of its sentence.
        let src = "* Crash bugs\n\n\
                   ** Emacs aborts inside the function 'tparam1'.\n\n\
                   This can happen if Emacs was built without terminfo support.\n\n\
                   *** On systems with shared libraries you might encounter run-time errors\n\
                   from the dynamic linker telling you that it is unable to find some\n\
                   shared libraries.  These errors mean Emacs has been linked badly.\n\n\
                   Similar problems could prevent Emacs from building.\n\n\
                   * * *\n";
        assert_eq!(
            headings(src),
            [
                ("Crash bugs".to_string(), 1),
                ("Emacs aborts inside the function 'tparam1'.".to_string(), 2),
                (
                    "On systems with shared libraries you might encounter run-time errors from \
                     the dynamic linker telling you that it is unable to find some shared \
                     libraries.  These errors mean Emacs has been linked badly."
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                    3
                ),
            ]
        );
        assert_eq!(
            sentences(src),
            v(&[
                &["This can happen if Emacs was built without terminfo support."],
                &["Similar problems could prevent Emacs from building."],
            ])
        );
        // Without two-star lines, a star opens a bullet as before.
        let bullets = "Steps:\n\n* Download it.\n* Install it.\n";
        assert!(headings(bullets).is_empty());
        assert_eq!(doc(bullets).paragraphs().count(), 1);
    }

    #[test]
    fn a_project_gutenberg_text_is_read_between_its_markers() {
        let src = "The Project Gutenberg EBook of Botchan, by Natsume Soseki\n\n\
                   This eBook is for the use of anyone anywhere at no cost.\n\n\
                   *** START OF THIS PROJECT GUTENBERG EBOOK BOTCHAN ***\n\n\
                   Because of an hereditary recklessness, I have been playing always a losing \
                   game since my childhood.\n\n\
                   End of Project Gutenberg's Botchan, by Natsume Soseki\n\n\
                   *** END OF THIS PROJECT GUTENBERG EBOOK BOTCHAN ***\n\n\
                   Section 1. General Terms of Use and Redistributing Project Gutenberg-tm \
                   electronic works.\n";
        assert_eq!(
            sentences(src),
            v(&[&[
                "Because of an hereditary recklessness, I have been playing always a \
                   losing game since my childhood."
            ]])
        );
        // Without the markers, every line is read.
        assert_eq!(
            doc("Gutenberg printed books. He was a goldsmith.\n")
                .paragraphs()
                .count(),
            1
        );
    }

    #[test]
    fn editorial_notes_in_brackets_are_not_read() {
        // Botchan's footnotes inside a paragraph, and a sidenote of Newton's Opticks on its own.
        let src = "\"There seems to be no 'sasa-ame' in the country,\" I said.\n\
                   [Footnote 1: Sasa-ame is a kind of rice-jelly wrapped with sasa, or the\n\
                   bamboo leaves.]\n\
                   Kiyo looked at me.\n\n\
                   [Sidenote: _See the following Scheme, p. 356._]\n\n\
                   [Illustration]\n\n\
                   Are there not other original Properties of the Rays of Light?\n\n\
                   [The brackets of a remark that is no note stay.]\n";
        assert_eq!(
            sentences(src),
            v(&[
                &[
                    "\"There seems to be no 'sasa-ame' in the country,\" I said.",
                    "Kiyo looked at me."
                ],
                &["Are there not other original Properties of the Rays of Light?"],
                &["[The brackets of a remark that is no note stay.]"],
            ])
        );
        check_spans(src);
    }

    #[test]
    fn a_definition_list_laid_out_in_plain_text_is_a_list() {
        // The GNU Coding Standards as Texinfo renders a table in plain text, and a term whose
        // body looks like code (left as it was).
        let src = "Here is the table of long options used by GNU programs.\n\n\
                   'silent'\n     Used in many programs to inhibit the usual output.  Every \
                   program\n     accepting '--silent' should accept '--quiet' as a synonym.\n\n\
                   'size'\n     '-s' in 'ls'.\n\n\
                   'socket'\n     Specify a file descriptor for a network server to use.\n\n\
                   The list ends here.\n\n\
                   Run this\n     $ make check\n";
        let d = doc(src);
        let paras: Vec<_> = d.paragraphs().collect();
        let shape: Vec<(usize, usize)> = paras
            .iter()
            .map(|p| (p.own_sentences, p.sentences.len()))
            .collect();
        // The three entries attach to the paragraph that introduces them, as items.
        assert_eq!(shape, [(1, 5), (1, 1), (1, 1)], "{paras:#?}");
        let entries: Vec<&str> = paras[0].sentences[1..]
            .iter()
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(
            entries,
            [
                "'silent': Used in many programs to inhibit the usual output.",
                "Every program accepting '--silent' should accept '--quiet' as a synonym.",
                "'size': '-s' in 'ls'.",
                "'socket': Specify a file descriptor for a network server to use.",
            ]
        );
        assert_eq!(paras[2].sentences[0].text, "Run this");
        // A paragraph whose later lines are indented under a long first line is not one.
        let hanging = "This first line is long enough to be a sentence of its own here\n   \
                       and the rest of it hangs below.\n";
        assert_eq!(
            doc(hanging).paragraphs().next().map(|p| p.list),
            Some(false)
        );
        check_spans(src);
    }

    #[test]
    fn exercises_and_quoted_lines_are_set_apart_from_the_prose() {
        // The Emacs tutorial marks what the reader should try with `>>`; mail quotes with `>`.
        let src = "Use C-a and C-e to move to the start and end of a line.\n\n\
                   >> Try a couple of C-a's, and then a couple of C-e's.\n   \
                   Try a couple of M-a's, and then a couple of M-e's.\n\n\
                   See how repeated C-a's do nothing.\n\n\
                   > I wrote this last week.\n> It still holds.\n\n\
                   I agree with it.\n\n>\n";
        let d = doc(src);
        let paras: Vec<_> = d.paragraphs().collect();
        // Each attaches to the paragraph before it, as a list does: not its running prose.
        let own: Vec<(usize, usize)> = paras
            .iter()
            .map(|p| (p.own_sentences, p.sentences.len()))
            .collect();
        assert_eq!(own, [(1, 3), (1, 3), (1, 1)], "{paras:#?}");
        let exercise: Vec<&str> = paras[0].sentences[1..]
            .iter()
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(
            exercise,
            [
                "Try a couple of C-a's, and then a couple of C-e's.",
                "Try a couple of M-a's, and then a couple of M-e's."
            ]
        );
        assert_eq!(paras[1].sentences[2].text, "It still holds.");
    }

    #[test]
    fn a_table_of_contents_with_section_numbers_is_a_list() {
        // From the Debian FAQ: numbered entries, some wrapped, under a numbered chapter line.
        let src = "Contents\n========\n\n6. The Debian archives\n    6.1. How many Debian distributions are there?\n    6.2. What are all those names like etch, lenny, etc.?\n        6.2.1. Which other codenames have been used in the past?\n    6.14. I have a wireless network card which doesn't work with\n    Linux. What should I do?\n\n2.5 million people read it. They like it.\n";
        let d = doc(src);
        let paras: Vec<_> = d.paragraphs().collect();
        assert!(paras[0].list, "{:?}", paras[0]);
        let texts: Vec<&str> = paras[0].sentences.iter().map(|s| s.text.as_str()).collect();
        assert!(
            texts.contains(&"How many Debian distributions are there?"),
            "{texts:?}"
        );
        assert!(!texts.iter().any(|t| t.starts_with("6.")), "{texts:?}");
        assert_eq!(
            paras.last().map(|p| p.sentences[0].text.as_str()),
            Some("2.5 million people read it.")
        );
    }

    #[test]
    fn bullets_attach_and_separators_break() {
        let src = "The options are:\n- fast mode,\n  on two lines\n* slow mode\n\u{2022} no mode\n\nIn 1984 the count was\n12. That is prose.\n\n                * * *\n\nAfter the break.\n\u{c}\nNew page.\n";
        let d = doc(src);
        let paras: Vec<_> = d.paragraphs().collect();
        assert_eq!(
            paras[0]
                .sentences
                .iter()
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>(),
            vec![
                "The options are:",
                "fast mode, on two lines",
                "slow mode",
                "no mode"
            ]
        );
        assert_eq!(paras[0].own_sentences, 1);
        assert_eq!(paras[1].sentences[0].text, "In 1984 the count was 12.");
        assert!(paras[2].after_block);
        assert!(paras[3].after_block);
        let items: Vec<_> = blocks(src)
            .into_iter()
            .filter_map(|b| match b {
                Block::Prose {
                    span, item: true, ..
                } => Some(span.slice(src).to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(items[0], "- fast mode,\n  on two lines");
    }

    #[test]
    fn indented_code_and_quotes() {
        let src = "Run this:\n\n    make install\n    make check\n\nThen read it.\n\n    A quoted passage reads as prose.\n\nBack.\n\n\tint main() { return 0; }\n";
        assert_eq!(
            sentences(src),
            v(&[
                &["Run this:"],
                &["Then read it.", "A quoted passage reads as prose."],
                &["Back."]
            ])
        );
        // A paragraph whose first line alone is indented is prose.
        let src = "    It was a dark night\nand the rain fell.\n";
        assert_eq!(
            sentences(src),
            v(&[&["It was a dark night and the rain fell."]])
        );
        // A document indented throughout (RFC style) is read at its own indentation.
        let src = "   STATUS OF THIS MEMO\n\n   This document is prose.  It is\n   indented by three.\n\n        $ cmd --flag\n";
        assert_eq!(
            sentences(src),
            v(&[&["This document is prose.", "It is indented by three."]])
        );
    }

    #[test]
    fn spans_are_exact() {
        let src = "Title\n-----\n\n- item one. Two.\n";
        let d = doc(src);
        let h = d.sections[0].heading.as_ref().map(|h| h.span.slice(src));
        assert_eq!(h, Some("Title\n-----"));
        let s: Vec<_> = d.sentences().map(|s| s.span.slice(src)).collect();
        assert_eq!(s, vec!["item one.", "Two."]);
    }

    fn check_spans(src: &str) {
        crate::text::test_support::check_spans(src, Format::Plain);
    }

    fn plainish() -> impl Strategy<Value = String> {
        let tokens = prop::sample::select(vec![
            "\n",
            "\r\n",
            "\n\n",
            " ",
            "    ",
            "\t",
            "\u{c}",
            "=====",
            "-----",
            "~~~",
            "* * *",
            "- ",
            "* ",
            "o ",
            "1. ",
            "2) ",
            "(a) ",
            "a) ",
            "12. ",
            "Chapter 3",
            "2.1 Goals",
            "INTRO",
            "word",
            "Word.",
            ":",
            "$ make",
            "f()",
            "{",
            "é",
            "日本",
            "\u{301}",
            "\u{feff}",
            "\u{2022} ",
            "** ",
            "*** ",
            "\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\n",
            "\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\n",
            "End of Project Gutenberg's X",
            "'term'\n     ",
        ]);
        prop::collection::vec(tokens, 0..64).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_strings(src in "\\PC*") {
            check_spans(&src);
        }

        #[test]
        fn never_panics_on_plainish_strings(src in plainish()) {
            check_spans(&src);
        }
    }
}
