//! reStructuredText → prose blocks, with a line-based scanner that never fails.
//!
//! The scanner follows docutils' block rules closely enough to tell prose from structure, and
//! keeps the text of inline markup. Every byte of the clean text maps back to the source through
//! [`ProseText`]; markup around a word (`*`, ``` `` ```, `` :role:` ``, `` `_ ``) is folded into
//! the span of that word, so that the sentence `*Hello* world.` spans exactly that source text.
//!
//! Decisions (documented in docs/guide.md):
//! - **Section titles** (a line underlined, or over- and underlined, with a repeated punctuation
//!   character) open sections. As in reST, levels follow the order in which each adornment style
//!   (character, with or without overline) first appears.
//! - **Paragraphs** are runs of lines at the same indentation, separated by blank lines. A
//!   paragraph ending in `::` introduces a **literal block**: `Text::` reads `Text:`, `Text ::`
//!   reads `Text`, and a lone `::` disappears; the literal block itself is skipped with a
//!   [`Block::Break`]. So are doctest blocks (`>>>`).
//! - **Directives** (`.. name:: args` and their indented body) are skipped with a
//!   [`Block::Break`]: code, math, images, figures, tables, toctrees, autodoc, version notes and
//!   so on. Admonitions (`note`, `warning`, `tip`, `important`, `caution`, `danger`, `error`,
//!   `hint`, `attention`, `seealso`; `admonition`, `topic` and `sidebar` without their title;
//!   `epigraph`, `highlights`, `pull-quote`) are prose that attaches like a block quote.
//!   `only`, `container`, `compound` and `ifconfig` are transparent: their body is read as if it
//!   stood there. Directives that print nothing (`highlight`, `currentmodule`, `module`, `index`,
//!   `meta`, `default-role`, …) vanish without a break.
//! - **Comments** (`..` not followed by a directive, target, footnote or substitution) are
//!   skipped; one that holds `segue-disable-next` emits [`Block::DisableNext`]. Targets
//!   (`.. _name:`), footnotes, citations and substitution definitions are skipped.
//! - **Lists.** Bullet (`-`, `*`, `+`, `•`), enumerated (`1.`, `#.`, `(a)`, `iv)`, …) and
//!   definition lists are list items (`attach: true, item: true`); a definition-list item reads
//!   `term: definition` (classifiers dropped). Field lists before the first paragraph
//!   (bibliographic fields, `:orphan:`) are skipped; later field lists are list items that keep
//!   the field body only. Option lists are skipped with a [`Block::Break`].
//! - **Block quotes** (indented paragraphs) and **line blocks** (`| `) attach like quotes.
//! - **Tables** (grid and simple) and **transitions** (a line of four or more punctuation
//!   characters) are skipped with a [`Block::Break`].
//! - **Inline markup** keeps its text: `*emphasis*`, `**strong**`, ``` ``literal`` ```,
//!   `` `interpreted` ``, roles (`` :func:`name` `` reads `name`, `` :func:`~a.b` `` reads `b`,
//!   `` :ref:`Text <target>` `` reads `Text`), references (`` `Link text <url>`_ `` reads
//!   `Link text`, `name_` reads `name`), substitutions (`|name|` reads `name`) and inline targets.
//!   `` :math:`…` `` reads its content when it is a plain word or number, else `x` (as LaTeX
//!   inline math does). Footnote and citation references (`[1]_`, `[#]_`, `[CIT2002]_`) are
//!   dropped with the space before them. Backslash escapes read as the escaped character; an
//!   escaped space vanishes.

use super::{Block, ProseText, Span};

/// The comment that suppresses findings on the next paragraph.
pub const DISABLE_NEXT: &str = "segue-disable-next";

/// How deep lists, quotes and directive bodies may nest before their content is dropped. Keeps
/// recursion bounded on hostile input.
const MAX_DEPTH: usize = 24;

/// Splits reStructuredText source into blocks.
pub fn blocks(source: &str) -> Vec<Block> {
    blocks_and_code(source).0
}

/// [`blocks`], and the source spans of the code they leave out: literal blocks (after `::`,
/// indented or quoted), doctest blocks, and code directives ([`CODE_DIRECTIVES`]).
pub(crate) fn blocks_and_code(source: &str) -> (Vec<Block>, Vec<Span>) {
    let lines = split_lines(source);
    let mut p = Parser {
        src: source,
        out: Vec::new(),
        styles: Vec::new(),
        lead: None,
        seen_prose: false,
        code: Vec::new(),
    };
    p.body(&lines, Ctx::TOP, 0);
    p.flush_lead();
    (p.out, p.code)
}

/// Directives whose body is code (their source is kept as the document's code).
const CODE_DIRECTIVES: &[&str] = &[
    "code",
    "code-block",
    "sourcecode",
    "doctest",
    "testcode",
    "testoutput",
    "ipython",
    "jupyter-execute",
    "highlight",
];

/// One source line, or the part of it inside the current block (after its indentation or list
/// marker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Line {
    /// Start of the whole source line (for tab columns).
    line_start: usize,
    /// Start of the part of the line that belongs to the current block.
    start: usize,
    /// End of the line, before its line ending.
    end: usize,
}

fn split_lines(src: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut off = 0;
    for l in src.split_inclusive('\n') {
        let content = l.strip_suffix('\n').unwrap_or(l);
        let content = content.strip_suffix('\r').unwrap_or(content);
        let mut start = off;
        if off == 0 && content.starts_with('\u{feff}') {
            start += '\u{feff}'.len_utf8();
        }
        out.push(Line {
            line_start: off,
            start,
            end: off + content.len(),
        });
        off += l.len();
    }
    out
}

/// Whitespace that indents a line (docutils turns vertical tabs and form feeds into spaces).
fn is_indent_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\u{b}' | '\u{c}')
}

/// Characters that make section adornments and transitions.
fn is_adornment_char(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// Characters that may stand right before inline markup.
fn is_start_prefix(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\'' | '"'
                | '('
                | '['
                | '{'
                | '<'
                | '-'
                | '/'
                | ':'
                | '‘'
                | '“'
                | '«'
                | '‹'
                | '（'
                | '「'
                | '『'
                | '【'
                | '〈'
                | '《'
                | '—'
                | '–'
                | '‐'
        )
}

/// Characters that may stand right after inline markup.
fn is_end_suffix(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '-' | '.'
                | ','
                | ':'
                | ';'
                | '!'
                | '?'
                | '\\'
                | '/'
                | '\''
                | '"'
                | ')'
                | ']'
                | '}'
                | '>'
                | '’'
                | '”'
                | '»'
                | '›'
                | '）'
                | '」'
                | '』'
                | '】'
                | '〉'
                | '》'
                | '…'
                | '—'
                | '–'
                | '‐'
                | '。'
                | '，'
                | '、'
        )
}

/// Where a block's prose belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ctx {
    attach: bool,
    item: bool,
}

impl Ctx {
    const TOP: Ctx = Ctx {
        attach: false,
        item: false,
    };

    fn quote(self) -> Ctx {
        Ctx {
            attach: true,
            item: self.item,
        }
    }

    fn item() -> Ctx {
        Ctx {
            attach: true,
            item: true,
        }
    }
}

/// The start of a list item (its marker) and, for definition lists, the term: both go in front
/// of the item's first paragraph.
#[derive(Debug)]
struct Lead {
    start: usize,
    term: Option<(ProseText, Span)>,
}

/// What a directive does with its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    /// Prose that attaches like a quote; `titled` drops the first-line argument (a title).
    Admonition { titled: bool },
    /// The body is read as if it stood there.
    Transparent,
    /// Prints nothing: vanishes without a break.
    Silent,
    /// Skipped with a break.
    Skip,
}

fn classify_directive(name: &str) -> Directive {
    match name.to_ascii_lowercase().as_str() {
        "note" | "warning" | "tip" | "important" | "caution" | "danger" | "error" | "hint"
        | "attention" | "seealso" | "epigraph" | "highlights" | "pull-quote" => {
            Directive::Admonition { titled: false }
        }
        "admonition" | "topic" | "sidebar" => Directive::Admonition { titled: true },
        "only" | "container" | "compound" | "ifconfig" => Directive::Transparent,
        "highlight" | "currentmodule" | "module" | "py:currentmodule" | "py:module" | "index"
        | "default-role" | "role" | "meta" | "title" | "rst-class" | "class" | "default-domain"
        | "tabularcolumns" | "sectionauthor" | "moduleauthor" | "codeauthor" | "c:namespace"
        | "cpp:namespace" | "js:module" | "program" | "option" | "envvar" | "sectnum"
        | "section-numbering" | "target-notes" | "header" | "footer" => Directive::Silent,
        _ => Directive::Skip,
    }
}

struct Parser<'a> {
    src: &'a str,
    out: Vec<Block>,
    /// Title adornment styles (character, overlined) in order of first appearance.
    styles: Vec<(char, bool)>,
    lead: Option<Lead>,
    /// Whether any prose was emitted yet (field lists before it are bibliographic).
    seen_prose: bool,
    /// The spans of the code left out, in order.
    code: Vec<Span>,
}

impl<'a> Parser<'a> {
    // --- Lines ------------------------------------------------------------------------------

    fn text(&self, l: Line) -> &'a str {
        self.src.get(l.start..l.end).unwrap_or("")
    }

    fn blank(&self, l: Line) -> bool {
        self.text(l).chars().all(char::is_whitespace)
    }

    /// Column of byte `pos` of the line, with tabs to multiples of 8.
    fn col(&self, l: Line, pos: usize) -> usize {
        let mut c = 0;
        for ch in self.src.get(l.line_start..pos).unwrap_or("").chars() {
            if ch == '\t' {
                c = c / 8 * 8 + 8;
            } else {
                c += 1;
            }
        }
        c
    }

    /// Indentation of the line relative to its block, in columns.
    fn indent(&self, l: Line) -> usize {
        let t = self.text(l);
        let ws = t.len() - t.trim_start_matches(is_indent_ws).len();
        if ws == 0 {
            return 0;
        }
        self.col(l, l.start + ws) - self.col(l, l.start)
    }

    /// The line with up to `n` columns of indentation removed.
    fn dedent(&self, l: Line, n: usize) -> Line {
        let base = self.col(l, l.start);
        let mut col = base;
        let mut pos = l.start;
        for ch in self.text(l).chars() {
            if !is_indent_ws(ch) || col - base >= n {
                break;
            }
            col = if ch == '\t' { col / 8 * 8 + 8 } else { col + 1 };
            pos += ch.len_utf8();
        }
        Line { start: pos, ..l }
    }

    /// The line starting right after its indentation.
    fn strip(&self, l: Line) -> Line {
        let t = self.text(l);
        let ws = t.len() - t.trim_start_matches(is_indent_ws).len();
        Line {
            start: l.start + ws,
            ..l
        }
    }

    /// The line from byte `at` (clamped to the line).
    fn from(&self, l: Line, at: usize) -> Line {
        let start = at.clamp(l.start, l.end);
        let start = if self.src.is_char_boundary(start) {
            start
        } else {
            l.end
        };
        self.strip(Line { start, ..l })
    }

    /// The end (exclusive) of the indented block starting at `i`: lines that are blank or
    /// indented, trailing blank lines left out.
    fn indented_end(&self, lines: &[Line], i: usize) -> usize {
        let mut j = i;
        let mut end = i;
        while let Some(&l) = lines.get(j) {
            if self.blank(l) {
                j += 1;
                continue;
            }
            if self.indent(l) == 0 {
                break;
            }
            j += 1;
            end = j;
        }
        end
    }

    /// Lines dedented by their smallest indentation (blank lines kept as they are).
    fn dedent_all(&self, lines: &[Line], at_most: Option<usize>) -> Vec<Line> {
        let min = lines
            .iter()
            .filter(|l| !self.blank(**l))
            .map(|l| self.indent(*l))
            .min()
            .unwrap_or(0);
        let n = at_most.map_or(min, |m| m.min(min));
        lines.iter().map(|l| self.dedent(*l, n)).collect()
    }

    /// The end of the run of non-blank lines starting at `i`.
    fn para_end(&self, lines: &[Line], i: usize) -> usize {
        let mut j = i;
        while lines.get(j).is_some_and(|l| !self.blank(*l)) {
            j += 1;
        }
        j
    }

    /// The adornment character when the line is one character repeated (trailing spaces
    /// allowed), with its length in characters.
    fn adornment(&self, l: Line) -> Option<(char, usize)> {
        let t = self.text(l).trim_end();
        if t.len()
            != self
                .text(l)
                .trim_start_matches(is_indent_ws)
                .trim_end()
                .len()
        {
            return None;
        }
        let c = t.chars().next()?;
        if !is_adornment_char(c) || !t.chars().all(|x| x == c) {
            return None;
        }
        Some((c, t.len()))
    }

    // --- Output -----------------------------------------------------------------------------

    /// Emits a definition-list term left waiting for its definition, and forgets the lead.
    fn flush_lead(&mut self) {
        if let Some(Lead {
            term: Some((prose, span)),
            ..
        }) = self.lead.take()
        {
            self.push_prose(span, prose, Ctx::item());
        }
    }

    fn push_prose(&mut self, span: Span, prose: ProseText, ctx: Ctx) {
        if prose.is_blank() {
            return;
        }
        self.seen_prose = true;
        self.out.push(Block::Prose {
            span,
            prose,
            attach: ctx.attach,
            item: ctx.item,
        });
    }

    fn brk(&mut self) {
        self.flush_lead();
        if !matches!(self.out.last(), Some(Block::Break) | None) {
            self.out.push(Block::Break);
        }
    }

    // --- Blocks -----------------------------------------------------------------------------

    /// Reads the blocks of `lines`, all relative to the block's own indentation.
    fn body(&mut self, lines: &[Line], ctx: Ctx, depth: usize) {
        let mut i = 0;
        let mut literal_next = false;
        // Simple tables: a search for the bottom border from here on is known to fail.
        let mut no_table_end: Option<usize> = None;
        while let Some(&line) = lines.get(i) {
            if self.blank(line) {
                i += 1;
                continue;
            }
            let literal = std::mem::take(&mut literal_next);
            if self.indent(line) > 0 {
                let end = self.indented_end(lines, i).max(i + 1);
                if literal {
                    self.brk();
                    self.code_lines(lines, i, end);
                } else {
                    let sub = self.dedent_all(lines.get(i..end).unwrap_or(&[]), None);
                    self.nested(&sub, ctx.quote(), depth);
                }
                i = end;
                continue;
            }
            if literal && self.quoted_literal(lines, i) {
                self.brk();
                let end = self.para_end(lines, i);
                self.code_lines(lines, i, end);
                i = end;
                continue;
            }
            let t = self.text(line);
            i = if t == ".." || t.starts_with(".. ") || t.starts_with("..\t") {
                self.explicit(lines, i, ctx, depth)
            } else if let Some(end) = self.title(lines, i, depth) {
                end
            } else if self.adornment(line).is_some_and(|a| a.1 >= 4) {
                // A transition (or an adornment out of place).
                self.brk();
                i + 1
            } else if is_grid_border(t) {
                self.brk();
                self.para_end(lines, i)
            } else if is_simple_border(t) {
                self.brk();
                self.simple_table_end(lines, i, &mut no_table_end)
            } else if let Some(at) = field_marker(t) {
                self.field(lines, i, at, depth)
            } else if self.option_item(lines, i) {
                self.brk();
                self.option_list_end(lines, i)
            } else if t
                .strip_prefix(">>>")
                .is_some_and(|r| r.chars().next().is_none_or(char::is_whitespace))
            {
                self.brk();
                let end = self.para_end(lines, i);
                self.code_lines(lines, i, end);
                end
            } else if t == "|" || t.starts_with("| ") || t.starts_with("|\t") {
                self.line_block(lines, i, ctx)
            } else if let Some(at) = bullet(t).or_else(|| self.enumerator(lines, i)) {
                self.item(lines, i, at, depth)
            } else {
                let (end, lit) = self.text_block(lines, i, ctx, depth);
                literal_next = lit;
                end
            };
        }
    }

    /// Reads `lines` as a nested body (list item, quote, directive), unless nested too deep.
    fn nested(&mut self, lines: &[Line], ctx: Ctx, depth: usize) {
        if depth + 1 >= MAX_DEPTH {
            self.lead = None;
            return;
        }
        self.body(lines, ctx, depth + 1);
    }

    /// Keeps lines `i..end` of `lines` as code.
    fn code_lines(&mut self, lines: &[Line], i: usize, end: usize) {
        if let (Some(first), Some(last)) = (lines.get(i), lines.get(end.saturating_sub(1))) {
            if first.start <= last.end {
                self.code.push(Span::new(first.start, last.end));
            }
        }
    }

    /// A quoted literal block: every line starts with the same punctuation character.
    fn quoted_literal(&self, lines: &[Line], i: usize) -> bool {
        let Some(c) = lines
            .get(i)
            .and_then(|l| self.text(*l).chars().next())
            .filter(|c| is_adornment_char(*c))
        else {
            return false;
        };
        let end = self.para_end(lines, i);
        lines
            .get(i..end)
            .unwrap_or(&[])
            .iter()
            .all(|l| self.text(*l).starts_with(c))
    }

    /// A section title at `i` (overlined or underlined): emits the heading and returns the line
    /// after it.
    fn title(&mut self, lines: &[Line], i: usize, depth: usize) -> Option<usize> {
        let line = *lines.get(i)?;
        let over = self.adornment(line);
        let (text_line, under_line, style, end) = match over {
            Some((c, len)) => {
                let t = *lines.get(i + 1)?;
                let u = *lines.get(i + 2)?;
                if self.blank(t) || self.adornment(u).map(|a| a.0) != Some(c) {
                    return None;
                }
                let title_len = self.text(self.strip(t)).trim_end().chars().count();
                if len < title_len && len < 4 {
                    return None;
                }
                (self.strip(t), u, (c, true), i + 3)
            }
            None => {
                let u = *lines.get(i + 1)?;
                let (c, len) = self.adornment(u)?;
                let title_len = self.text(line).trim_end().chars().count();
                if self.indent(u) > 0 || (len < title_len && len < 4) {
                    return None;
                }
                (line, u, (c, false), i + 2)
            }
        };
        if depth > 0 {
            // Titles only exist at the top level; elsewhere the lines are skipped.
            self.brk();
            return Some(end);
        }
        self.flush_lead();
        let level = match self.styles.iter().position(|s| *s == style) {
            Some(k) => k + 1,
            None => {
                self.styles.push(style);
                self.styles.len()
            }
        };
        let mut prose = ProseText::new();
        Inline::new(self.src, &[text_line]).render(&mut prose, None);
        let title = prose
            .text()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        self.out.push(Block::Heading {
            span: Span::new(
                line.start,
                under_line.start + self.text(under_line).trim_end().len(),
            ),
            title,
            level: u8::try_from(level).unwrap_or(u8::MAX),
        });
        Some(end)
    }

    /// Explicit markup (`.. `): directives, comments, targets, footnotes, substitution
    /// definitions. Returns the line after the construct.
    fn explicit(&mut self, lines: &[Line], i: usize, ctx: Ctx, depth: usize) -> usize {
        let Some(&line) = lines.get(i) else {
            return i + 1;
        };
        let t = self.text(line);
        let rest = t.get(2..).unwrap_or("").trim_start();
        // An empty comment followed by a blank line ends there.
        let end = if rest.is_empty() && lines.get(i + 1).is_none_or(|l| self.blank(*l)) {
            i + 1
        } else {
            self.indented_end(lines, i + 1).max(i + 1)
        };
        let body = lines.get(i + 1..end).unwrap_or(&[]);
        let last = body.last().copied().unwrap_or(line);
        let span = Span::new(line.start, last.end);
        if rest.starts_with('_') || rest.starts_with('[') || rest.starts_with('|') {
            // Targets, footnotes and citations, substitution definitions.
            return end;
        }
        let Some((name, after)) = directive_name(rest) else {
            // A comment.
            if span.slice(self.src).contains(DISABLE_NEXT) {
                self.flush_lead();
                self.out.push(Block::DisableNext { span });
            }
            return end;
        };
        let args_at = line.start + (t.len() - rest.len()) + after;
        match classify_directive(name) {
            Directive::Skip => {
                self.brk();
                if CODE_DIRECTIVES.contains(&name.to_ascii_lowercase().as_str()) {
                    self.code.push(span);
                }
            }
            Directive::Silent => {}
            Directive::Transparent => {
                let sub = self.dedent_all(body, None);
                let sub = skip_options(self, &sub);
                self.nested(&sub, ctx, depth);
            }
            Directive::Admonition { titled } => {
                let sub = self.dedent_all(body, None);
                let mut content = Vec::new();
                let first = self.from(line, args_at);
                if !titled && !self.blank(first) {
                    content.push(first);
                    content.extend_from_slice(&sub);
                } else {
                    content.extend(skip_options(self, &sub));
                }
                self.flush_lead();
                self.nested(&content, ctx.quote(), depth);
            }
        }
        end
    }

    /// A field list at `i` (the marker's text ends at byte `at` of the line's text).
    fn field(&mut self, lines: &[Line], i: usize, at: usize, depth: usize) -> usize {
        let mut i = i;
        let mut at = at;
        loop {
            let Some(&line) = lines.get(i) else {
                return i;
            };
            let end = self.indented_end(lines, i + 1).max(i + 1);
            if self.seen_prose {
                let mut body = vec![self.from(line, line.start + at)];
                let rest = lines.get(i + 1..end).unwrap_or(&[]);
                body.extend(self.dedent_all(rest, None));
                self.flush_lead();
                self.lead = Some(Lead {
                    start: line.start,
                    term: None,
                });
                self.nested(&body, Ctx::item(), depth);
                self.lead = None;
            }
            // The list goes on with the next field after blank lines.
            let mut j = end;
            while lines.get(j).is_some_and(|l| self.blank(*l)) {
                j += 1;
            }
            match lines.get(j).and_then(|l| field_marker(self.text(*l))) {
                Some(a) if j < lines.len() => {
                    i = j;
                    at = a;
                }
                _ => return end,
            }
        }
    }

    /// Whether the line at `i` starts an option list item (`-a`, `--all`, `/V` followed by two
    /// spaces and a description, or by an indented description).
    fn option_item(&self, lines: &[Line], i: usize) -> bool {
        let Some(&line) = lines.get(i) else {
            return false;
        };
        let t = self.text(line);
        let mut chars = t.chars();
        let opt = match (chars.next(), chars.next(), chars.next()) {
            (Some('-'), Some('-'), Some(c)) => c.is_ascii_alphanumeric(),
            (Some('-' | '/'), Some(c), _) => c.is_ascii_alphanumeric(),
            _ => false,
        };
        if !opt {
            return false;
        }
        let described = t.trim_end().contains("  ");
        let next_indented = lines
            .get(i + 1)
            .is_some_and(|l| !self.blank(*l) && self.indent(*l) > 0);
        let short = t.split_whitespace().count() <= 3;
        described || (next_indented && short)
    }

    fn option_list_end(&self, lines: &[Line], i: usize) -> usize {
        let mut j = i;
        let mut end = i + 1;
        while let Some(&l) = lines.get(j) {
            if self.blank(l) || self.indent(l) > 0 || self.option_item(lines, j) {
                if !self.blank(l) {
                    end = j + 1;
                }
                j += 1;
            } else {
                break;
            }
        }
        end
    }

    /// The line after a simple table whose top border is at `i`.
    fn simple_table_end(&self, lines: &[Line], i: usize, no_end: &mut Option<usize>) -> usize {
        let fallback = self.para_end(lines, i);
        if no_end.is_some_and(|n| n <= i) {
            return fallback;
        }
        let mut j = i + 1;
        while let Some(&l) = lines.get(j) {
            if is_simple_border(self.text(l)) && lines.get(j + 1).is_none_or(|n| self.blank(*n)) {
                return j + 1;
            }
            j += 1;
        }
        *no_end = Some(i);
        fallback
    }

    /// A line block (`| ` lines): one prose block that attaches like a quote.
    fn line_block(&mut self, lines: &[Line], i: usize, ctx: Ctx) -> usize {
        let end = self.para_end(lines, i);
        let mut segs = Vec::new();
        for &l in lines.get(i..end).unwrap_or(&[]) {
            let t = self.text(l);
            let seg = match t.strip_prefix('|') {
                Some(_) if self.indent(l) == 0 => self.from(l, l.start + 1),
                _ => self.strip(l),
            };
            if !self.blank(seg) {
                segs.push(Line {
                    end: seg.start + self.text(seg).trim_end().len(),
                    ..seg
                });
            }
        }
        let (Some(first), Some(last)) = (lines.get(i), segs.last()) else {
            return end;
        };
        let span = Span::new(first.start, last.end);
        let mut prose = ProseText::new();
        Inline::new(self.src, &segs).render(&mut prose, None);
        self.flush_lead();
        self.push_prose(span, prose, ctx.quote());
        end
    }

    /// The enumerator of an enumerated list item at `i`: the byte where its text starts.
    fn enumerator(&self, lines: &[Line], i: usize) -> Option<usize> {
        let t = self.text(*lines.get(i)?);
        let at = enumerator(t)?;
        // As in docutils: the next line is blank, indented or another item, or this is no list.
        let ok = match lines.get(i + 1) {
            None => true,
            Some(n) => {
                let nt = self.text(*n);
                self.blank(*n) || self.indent(*n) > 0 || enumerator(nt).is_some()
            }
        };
        ok.then_some(at)
    }

    /// A bullet or enumerated list item at `i` whose text starts at byte `at` of the line.
    fn item(&mut self, lines: &[Line], i: usize, at: usize, depth: usize) -> usize {
        let Some(&line) = lines.get(i) else {
            return i + 1;
        };
        let end = self.indented_end(lines, i + 1).max(i + 1);
        let first = self.from(line, line.start + at);
        let text_col = self.col(line, first.start) - self.col(line, line.start);
        let mut body = Vec::new();
        let rest = lines.get(i + 1..end).unwrap_or(&[]);
        if self.blank(first) {
            body.extend(self.dedent_all(rest, None));
        } else {
            body.push(first);
            body.extend(self.dedent_all(rest, Some(text_col)));
        }
        self.flush_lead();
        self.lead = Some(Lead {
            start: line.start,
            term: None,
        });
        self.nested(&body, Ctx::item(), depth);
        self.lead = None;
        end
    }

    /// Text at `i`: a definition-list item (a single line followed by an indented definition)
    /// or a paragraph. Returns the line after it and whether a literal block follows.
    fn text_block(&mut self, lines: &[Line], i: usize, ctx: Ctx, depth: usize) -> (usize, bool) {
        let mut j = i + 1;
        while let Some(&l) = lines.get(j) {
            if self.blank(l) || self.indent(l) > 0 || self.adornment(l).is_some_and(|a| a.1 >= 4) {
                break;
            }
            j += 1;
        }
        let next_indented = lines
            .get(j)
            .is_some_and(|l| !self.blank(*l) && self.indent(*l) > 0);
        let para = lines.get(i..j).unwrap_or(&[]);
        if j == i + 1 && next_indented {
            let Some(&term) = para.first() else {
                return (j, false);
            };
            if self.text(term).trim_end().ends_with("::") {
                // `Example::` right above an indented block: a literal block, as meant.
                let lit = self.paragraph(para, ctx);
                return (j, lit);
            }
            return (self.definition(lines, i, depth), false);
        }
        let lit = self.paragraph(para, ctx);
        (j, lit)
    }

    /// A definition-list item: the term at `i`, its definition indented below.
    fn definition(&mut self, lines: &[Line], i: usize, depth: usize) -> usize {
        let Some(&line) = lines.get(i) else {
            return i + 1;
        };
        let end = self.indented_end(lines, i + 1).max(i + 1);
        let t = self.text(line);
        // Classifiers (`term : classifier`) are dropped.
        let term_len = t.find(" : ").unwrap_or(t.len());
        let term_line = Line {
            end: line.start + t.get(..term_len).unwrap_or(t).trim_end().len(),
            ..line
        };
        let mut prose = ProseText::new();
        Inline::new(self.src, &[term_line]).render(&mut prose, None);
        prose.close_term(Span::new(term_line.end, term_line.end));
        let body = self.dedent_all(lines.get(i + 1..end).unwrap_or(&[]), None);
        self.flush_lead();
        let term_span = Span::new(term_line.start, term_line.end);
        self.lead = Some(Lead {
            start: line.start,
            term: (!prose.is_blank()).then_some((prose, term_span)),
        });
        self.nested(&body, Ctx::item(), depth);
        self.flush_lead();
        end
    }

    /// A paragraph: emits its prose; returns whether it ends in `::` (a literal block follows).
    fn paragraph(&mut self, para: &[Line], ctx: Ctx) -> bool {
        let segs: Vec<Line> = para
            .iter()
            .map(|l| Line {
                end: l.start + self.text(*l).trim_end().len(),
                ..*l
            })
            .collect();
        let (Some(first), Some(last)) = (segs.first(), segs.last()) else {
            return false;
        };
        let span_end = last.end;
        let inline = Inline::new(self.src, &segs);
        let full = inline.text.len();
        let (limit, literal) = match inline.text.strip_suffix("::") {
            Some(before) if before.trim().is_empty() => {
                // A lone `::`: nothing to read.
                return true;
            }
            Some(before) if before.ends_with(char::is_whitespace) => {
                (before.trim_end().len(), true)
            }
            Some(before) => (before.len() + 1, true),
            None => (full, false),
        };
        let lead = self.lead.take();
        let (start, mut prose) = match lead {
            Some(Lead {
                start,
                term: Some((term, _)),
            }) => (start, term),
            Some(Lead { start, term: None }) => (start, ProseText::new()),
            None => (first.start, ProseText::new()),
        };
        if !prose.is_blank() {
            prose.push_space(Span::new(first.start, first.start));
        }
        let tail = literal.then_some(full);
        inline.render_upto(&mut prose, limit, tail);
        self.push_prose(Span::new(start.min(first.start), span_end), prose, ctx);
        literal
    }
}

/// Drops directive options (`:name: value` lines) at the start of a directive body.
fn skip_options(p: &Parser<'_>, lines: &[Line]) -> Vec<Line> {
    let mut k = 0;
    while let Some(l) = lines.get(k) {
        if p.blank(*l) || field_marker(p.text(*l)).is_none() {
            break;
        }
        k += 1;
    }
    lines.get(k..).unwrap_or(&[]).to_vec()
}

/// `name:: ` at the start of `rest` (the text after `.. `): the directive name and the byte
/// offset after the `::`.
fn directive_name(rest: &str) -> Option<(&str, usize)> {
    for (k, c) in rest.char_indices() {
        if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '+') {
            continue;
        }
        if c == ':' {
            if rest.get(k..).is_some_and(|r| r.starts_with("::")) {
                let after = k + 2;
                let ok = rest
                    .get(after..)
                    .is_some_and(|r| r.chars().next().is_none_or(char::is_whitespace));
                if ok && k > 0 {
                    return Some((rest.get(..k)?, after));
                }
            }
            // A domain prefix (`py:function`).
            continue;
        }
        break;
    }
    None
}

/// The byte where a field body starts when `t` opens with a field marker (`:name: `).
fn field_marker(t: &str) -> Option<usize> {
    let rest = t.strip_prefix(':')?;
    let mut chars = rest.char_indices().peekable();
    match chars.peek() {
        Some((_, c)) if !c.is_whitespace() && *c != ':' => {}
        _ => return None,
    }
    while let Some((k, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            ':' => {
                let next = rest.get(k + 1..).and_then(|r| r.chars().next());
                match next {
                    None => return Some(t.len()),
                    Some(n) if n.is_whitespace() => {
                        let before = rest.get(..k)?;
                        if before.ends_with(char::is_whitespace) {
                            return None;
                        }
                        return Some(k + 2);
                    }
                    Some('`') => return None,
                    Some(_) => {}
                }
            }
            _ => {}
        }
    }
    None
}

/// The byte where a bullet item's text starts when `t` opens with a bullet.
fn bullet(t: &str) -> Option<usize> {
    let c = t.chars().next()?;
    if !matches!(c, '-' | '*' | '+' | '•' | '‣' | '⁃') {
        return None;
    }
    let after = c.len_utf8();
    match t.get(after..)?.chars().next() {
        None => Some(after),
        Some(n) if n.is_whitespace() => Some(after),
        _ => None,
    }
}

/// The byte where an enumerated item's text starts when `t` opens with an enumerator
/// (`1.`, `a)`, `(iv)`, `#.`).
fn enumerator(t: &str) -> Option<usize> {
    let (paren, body) = match t.strip_prefix('(') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let len = body
        .char_indices()
        .find(|(_, c)| !c.is_ascii_alphanumeric() && *c != '#')
        .map_or(body.len(), |(k, _)| k);
    let label = body.get(..len)?;
    let valid = label == "#"
        || (!label.is_empty() && label.bytes().all(|b| b.is_ascii_digit()))
        || (label.len() == 1 && label.bytes().all(|b| b.is_ascii_alphabetic()))
        || (!label.is_empty() && label.bytes().all(|b| b"ivxlcdm".contains(&b)))
        || (!label.is_empty() && label.bytes().all(|b| b"IVXLCDM".contains(&b)));
    if !valid || len > 9 {
        return None;
    }
    let close = body.get(len..)?.chars().next()?;
    let ok = if paren {
        close == ')'
    } else {
        matches!(close, '.' | ')')
    };
    if !ok {
        return None;
    }
    let after = usize::from(paren) + len + 1;
    match t.get(after..)?.chars().next() {
        None => Some(after),
        Some(n) if n.is_whitespace() => Some(after),
        _ => None,
    }
}

/// `+---+---+` or `+===+`.
fn is_grid_border(t: &str) -> bool {
    let t = t.trim_end();
    t.len() >= 3
        && t.starts_with('+')
        && t.ends_with('+')
        && t.contains(['-', '='])
        && t.chars().all(|c| matches!(c, '+' | '-' | '='))
}

/// `=====  =====`: a simple table border (at least two columns).
fn is_simple_border(t: &str) -> bool {
    let t = t.trim_end();
    t.starts_with('=')
        && t.contains(' ')
        && t.chars().all(|c| c == '=' || c == ' ')
        && t.split(' ').filter(|w| !w.is_empty()).count() >= 2
}

// --- Inline markup ------------------------------------------------------------------------------

/// One piece of clean text, in the coordinates of [`Inline::text`].
#[derive(Debug, Clone, PartialEq)]
enum Op {
    /// Text `[a, b)` kept verbatim; markup from `lead` to `a` and from `b` to `trail` folds into
    /// its first and last character.
    Keep {
        a: usize,
        b: usize,
        lead: usize,
        trail: usize,
    },
    /// Synthetic text standing for `[a, b)`.
    Text {
        text: &'static str,
        a: usize,
        b: usize,
    },
}

/// What a forward search for an end-string looks for (for [`Memo`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Strong,
    Emphasis,
    Literal,
    Interpreted,
    Substitution,
}

/// The last search for each end-string: from where, and what it found. A later search from
/// inside the searched range has the same answer, which keeps hostile input linear.
#[derive(Debug, Default)]
struct Memo(Vec<(End, usize, Found)>);

/// Where an end-string was found: its position and the position after it (and its suffix).
type Found = Option<(usize, usize)>;

impl Memo {
    fn get(&self, kind: End, from: usize) -> Option<Found> {
        self.0.iter().find(|m| m.0 == kind).and_then(|&(_, f, r)| {
            let hit = from >= f && r.is_none_or(|(q, _)| from <= q);
            hit.then_some(r)
        })
    }

    fn set(&mut self, kind: End, from: usize, r: Found) {
        match self.0.iter_mut().find(|m| m.0 == kind) {
            Some(m) => *m = (kind, from, r),
            None => self.0.push((kind, from, r)),
        }
    }
}

/// The lines of a paragraph joined by `\n`, with a map back to the source.
struct Inline<'a> {
    src: &'a str,
    text: String,
    /// (start in `text`, start in source, length) per line.
    segs: Vec<(usize, usize, usize)>,
}

impl<'a> Inline<'a> {
    fn new(src: &'a str, lines: &[Line]) -> Self {
        let mut text = String::new();
        let mut segs = Vec::new();
        for l in lines {
            let Some(s) = src.get(l.start..l.end) else {
                continue;
            };
            if !segs.is_empty() {
                text.push('\n');
            }
            segs.push((text.len(), l.start, s.len()));
            text.push_str(s);
        }
        Inline { src, text, segs }
    }

    /// The source offset of `v` in the joined text (a line break maps to the end of its line).
    fn to_src(&self, v: usize) -> usize {
        let idx = self.segs.partition_point(|s| s.0 <= v).saturating_sub(1);
        match self.segs.get(idx) {
            Some(&(vs, ss, len)) => ss + v.saturating_sub(vs).min(len),
            None => 0,
        }
    }

    fn render(&self, prose: &mut ProseText, tail: Option<usize>) {
        self.render_upto(prose, self.text.len(), tail);
    }

    /// Renders the clean text of `text[..limit]` into `prose`; `tail` (past `limit`) folds into
    /// the last piece.
    fn render_upto(&self, prose: &mut ProseText, limit: usize, tail: Option<usize>) {
        let mut ops = self.scan(limit);
        if let Some(t) = tail {
            match ops.last_mut() {
                Some(Op::Keep { trail, .. }) => *trail = (*trail).max(t),
                Some(Op::Text { b, .. }) => *b = (*b).max(t),
                None => {}
            }
        }
        for op in ops {
            match op {
                Op::Keep { a, b, lead, trail } => self.keep(prose, a, b, lead, trail),
                Op::Text { text, a, b } => {
                    prose.push_synthetic(text, Span::new(self.to_src(a), self.to_src(b)));
                }
            }
        }
    }

    fn keep(&self, prose: &mut ProseText, a: usize, b: usize, lead: usize, trail: usize) {
        let Some(s) = self.text.get(a..b) else {
            return;
        };
        let (Some(first), Some(last)) = (s.chars().next(), s.chars().next_back()) else {
            return;
        };
        let fold_lead = lead < a && !first.is_whitespace();
        let fold_trail = trail > b && !last.is_whitespace();
        if s.len() == first.len_utf8() && (fold_lead || fold_trail) {
            let at = Span::new(self.to_src(lead.min(a)), self.to_src(trail.max(b)));
            prose.push_synthetic(s, at);
            return;
        }
        let (mut x, mut y) = (a, b);
        if fold_lead {
            x += first.len_utf8();
            prose.push_synthetic(
                s.get(..first.len_utf8()).unwrap_or(""),
                Span::new(self.to_src(lead), self.to_src(x)),
            );
        }
        if fold_trail {
            y -= last.len_utf8();
        }
        self.verbatim(prose, x, y);
        if fold_trail {
            prose.push_synthetic(
                self.text.get(y..b).unwrap_or(""),
                Span::new(self.to_src(y), self.to_src(trail)),
            );
        }
    }

    /// Pushes `text[a..b)` as source pieces, line breaks as spaces.
    fn verbatim(&self, prose: &mut ProseText, a: usize, b: usize) {
        for (k, &(vs, ss, len)) in self.segs.iter().enumerate() {
            let (s, e) = (a.max(vs), b.min(vs + len));
            if s < e {
                prose.push_source(self.src, Span::new(ss + (s - vs), ss + (e - vs)));
            }
            // The line break after this line.
            let brk = vs + len;
            if let Some(&(_, next_ss, _)) = self.segs.get(k + 1) {
                if a <= brk && brk < b {
                    prose.push_space(Span::new(ss + len, next_ss));
                }
            }
        }
    }

    fn char_at(&self, i: usize) -> Option<char> {
        self.text.get(i..).and_then(|s| s.chars().next())
    }

    fn char_before(&self, i: usize) -> Option<char> {
        self.text.get(..i).and_then(|s| s.chars().next_back())
    }

    /// Whether inline markup may start at `i` whose start-string is `len` bytes long.
    fn start_ok(&self, i: usize, len: usize, limit: usize) -> bool {
        let before = self.char_before(i);
        if !before.is_none_or(is_start_prefix) {
            return false;
        }
        let Some(after) = self.char_at(i + len).filter(|_| i + len < limit) else {
            return false;
        };
        if after.is_whitespace() {
            return false;
        }
        // `'*'`, `(*)`: markup characters quoted on their own are text.
        !matches!(
            (before, after),
            (Some('\''), '\'')
                | (Some('"'), '"')
                | (Some('('), ')')
                | (Some('['), ']')
                | (Some('{'), '}')
                | (Some('<'), '>')
        )
    }

    /// Whether inline markup may end right before `j`.
    fn end_ok(&self, j: usize, limit: usize) -> bool {
        j >= limit || self.char_at(j).is_none_or(is_end_suffix)
    }

    /// The next end-string `pat` at or after `from` (before `limit`): (its position, the
    /// position after it and its suffix).
    fn find_end(
        &self,
        kind: End,
        pat: &str,
        from: usize,
        limit: usize,
        memo: &mut Memo,
    ) -> Option<(usize, usize)> {
        if let Some(r) = memo.get(kind, from) {
            return r;
        }
        let raw = kind == End::Literal;
        let hay = self.text.get(..limit).unwrap_or("");
        let mut at = from;
        let found = loop {
            let Some(k) = hay.get(at..).and_then(|r| r.find(pat)) else {
                break None;
            };
            let q = at + k;
            at = q + 1;
            let before = self.char_before(q);
            if before.is_none_or(char::is_whitespace) || (!raw && before == Some('\\')) {
                continue;
            }
            if kind == End::Emphasis && self.char_at(q + 1) == Some('*') {
                continue;
            }
            let mut after = q + pat.len();
            match kind {
                End::Interpreted => {
                    let rest = hay.get(after..).unwrap_or("");
                    if rest.starts_with("__") {
                        after += 2;
                    } else if rest.starts_with('_') {
                        after += 1;
                    } else {
                        after += suffix_role_len(rest);
                    }
                }
                End::Substitution => {
                    let rest = hay.get(after..).unwrap_or("");
                    if rest.starts_with("__") {
                        after += 2;
                    } else if rest.starts_with('_') {
                        after += 1;
                    }
                }
                _ => {}
            }
            if self.end_ok(after, limit) {
                break Some((q, after));
            }
        };
        memo.set(kind, from, found);
        found
    }

    /// Splits `[a, b)` at backslash escapes into kept pieces; the first takes `lead`, the last
    /// `trail`.
    fn escaped(&self, ops: &mut Vec<Op>, a: usize, b: usize, lead: usize, trail: usize) {
        let mut pieces = Vec::new();
        let mut run = a;
        let mut i = a;
        while i < b {
            let Some(c) = self.char_at(i) else { break };
            if c == '\\' {
                pieces.push((run, i));
                let next = self.char_at(i + 1).filter(|_| i + 1 < b);
                match next {
                    Some(n) if n.is_whitespace() => {
                        i += 1 + n.len_utf8();
                        run = i;
                    }
                    Some(n) => {
                        run = i + 1;
                        i += 1 + n.len_utf8();
                    }
                    None => {
                        i += 1;
                        run = i;
                    }
                }
                continue;
            }
            i += c.len_utf8();
        }
        pieces.push((run, b.max(run)));
        pieces.retain(|(s, e)| s < e);
        let n = pieces.len();
        if n == 0 {
            // Nothing left: let the markup join the text before it.
            if let Some(Op::Keep { trail: t, .. }) = ops.last_mut() {
                if *t == lead {
                    *t = trail;
                }
            }
            return;
        }
        for (k, (s, e)) in pieces.into_iter().enumerate() {
            ops.push(Op::Keep {
                a: s,
                b: e,
                lead: if k == 0 { lead } else { s },
                trail: if k + 1 == n { trail } else { e },
            });
        }
    }

    /// Scans `text[..limit]` into ops.
    fn scan(&self, limit: usize) -> Vec<Op> {
        let mut ops = Vec::new();
        let mut memo = Memo::default();
        let t = self.text.get(..limit).unwrap_or("");
        let mut run = 0;
        let mut i = 0;
        while let Some(c) = self.char_at(i).filter(|_| i < limit) {
            let markup = match c {
                '\\' => {
                    self.escaped(&mut ops, run, i, run, i);
                    let next = self.char_at(i + 1).filter(|_| i + 1 < limit);
                    match next {
                        Some(n) if n.is_whitespace() => {
                            i += 1 + n.len_utf8();
                            run = i;
                        }
                        Some(n) => {
                            run = i + 1;
                            i += 1 + n.len_utf8();
                        }
                        None => {
                            i += 1;
                            run = i;
                        }
                    }
                    continue;
                }
                '*' | '`' | '|' | '_' | '[' | ':' => self.markup(t, i, limit, &mut memo),
                c if c.is_alphanumeric() && self.char_before(i).is_none_or(is_start_prefix) => {
                    match self.reference_name(i, limit) {
                        Ok(m) => Some(m),
                        Err(word_end) => {
                            i = word_end.max(i + c.len_utf8());
                            continue;
                        }
                    }
                }
                _ => None,
            };
            match markup {
                Some(m) => {
                    let keep_to = if m.drop_space_before {
                        run + self.text.get(run..i).unwrap_or("").trim_end().len()
                    } else {
                        i
                    };
                    self.escaped(&mut ops, run, keep_to, run, keep_to);
                    if m.drop_space_before {
                        // The dropped reference folds into the text before it.
                        if let Some(Op::Keep { trail, .. }) = ops.last_mut() {
                            *trail = (*trail).max(m.end);
                        }
                    }
                    ops.extend(m.ops);
                    i = m.end;
                    run = i;
                }
                None => i += c.len_utf8(),
            }
        }
        self.escaped(&mut ops, run, limit.max(run), run, limit.max(run));
        ops
    }

    /// A `name_` or `name__` reference at `i`: keeps the name. `Err` gives the end of the word
    /// when there is none.
    fn reference_name(&self, i: usize, limit: usize) -> Result<Markup, usize> {
        let t = self.text.get(..limit).unwrap_or("");
        let word = |k: usize| -> usize {
            let rest = t.get(k..).unwrap_or("");
            k + rest
                .char_indices()
                .find(|(_, c)| !c.is_alphanumeric())
                .map_or(rest.len(), |(n, _)| n)
        };
        let mut e = word(i);
        loop {
            let sep = t.get(e..).and_then(|r| r.chars().next());
            let next = t.get(e + 1..).and_then(|r| r.chars().next());
            match (sep, next) {
                (Some('-' | '.' | '_' | '+' | ':'), Some(n)) if n.is_alphanumeric() => {
                    e = word(e + 1);
                }
                _ => break,
            }
        }
        let rest = t.get(e..).unwrap_or("");
        let after = if rest.starts_with("__") {
            e + 2
        } else if rest.starts_with('_') {
            e + 1
        } else {
            return Err(e);
        };
        if !self.end_ok(after, limit) {
            return Err(e);
        }
        Ok(Markup {
            ops: vec![Op::Keep {
                a: i,
                b: e,
                lead: i,
                trail: after,
            }],
            end: after,
            drop_space_before: false,
        })
    }

    /// Inline markup starting at `i`, if any.
    fn markup(&self, t: &str, i: usize, limit: usize, memo: &mut Memo) -> Option<Markup> {
        let rest = t.get(i..)?;
        let mut ops = Vec::new();
        if rest.starts_with("**") {
            if !self.start_ok(i, 2, limit) {
                return None;
            }
            let (q, end) = self.find_end(End::Strong, "**", i + 3, limit, memo)?;
            self.escaped(&mut ops, i + 2, q, i, end);
            return Some(Markup::new(ops, end));
        }
        if rest.starts_with("``") {
            if !self.start_ok(i, 2, limit) {
                return None;
            }
            let (q, end) = self.find_end(End::Literal, "``", i + 3, limit, memo)?;
            ops.push(Op::Keep {
                a: i + 2,
                b: q,
                lead: i,
                trail: end,
            });
            return Some(Markup::new(ops, end));
        }
        if rest.starts_with('*') {
            if !self.start_ok(i, 1, limit) {
                return None;
            }
            let (q, end) = self.find_end(End::Emphasis, "*", i + 2, limit, memo)?;
            self.escaped(&mut ops, i + 1, q, i, end);
            return Some(Markup::new(ops, end));
        }
        if rest.starts_with('`') {
            return self.interpreted(i, i + 1, None, limit, memo);
        }
        if rest.starts_with("_`") {
            if !self.start_ok(i, 2, limit) {
                return None;
            }
            let (q, end) = self.find_end(End::Interpreted, "`", i + 3, limit, memo)?;
            self.escaped(&mut ops, i + 2, q, i, end);
            return Some(Markup::new(ops, end));
        }
        if rest.starts_with('|') {
            if !self.start_ok(i, 1, limit) {
                return None;
            }
            let (q, end) = self.find_end(End::Substitution, "|", i + 2, limit, memo)?;
            self.escaped(&mut ops, i + 1, q, i, end);
            return Some(Markup::new(ops, end));
        }
        if rest.starts_with('[') {
            if !self.start_ok(i, 1, limit) {
                return None;
            }
            let close = rest
                .char_indices()
                .take(66)
                .find(|(_, c)| *c == ']')
                .map(|(k, _)| k)?;
            let label = rest.get(1..close)?;
            let ok = !label.is_empty()
                && label.len() <= 64
                && label.chars().all(|c| {
                    c.is_alphanumeric() || matches!(c, '#' | '*' | '-' | '_' | '.' | '+' | ':')
                });
            let after = i + close + 1;
            let end = if t.get(after..)?.starts_with("__") {
                after + 2
            } else if t.get(after..)?.starts_with('_') {
                after + 1
            } else {
                return None;
            };
            if !ok || !self.end_ok(end, limit) {
                return None;
            }
            return Some(Markup {
                ops,
                end,
                drop_space_before: true,
            });
        }
        if rest.starts_with(':') {
            let role = role_prefix(rest.get(1..)?)?;
            let tick = i + 1 + role.len() + 1;
            if !self.start_ok(i, 1, limit) || self.char_at(tick) != Some('`') {
                return None;
            }
            return self.interpreted(i, tick + 1, Some(role), limit, memo);
        }
        None
    }

    /// Interpreted text or a hyperlink reference whose content starts at `cs` (markup from `i`).
    fn interpreted(
        &self,
        i: usize,
        cs: usize,
        role: Option<&str>,
        limit: usize,
        memo: &mut Memo,
    ) -> Option<Markup> {
        if !self.start_ok(cs - 1, 1, limit) && role.is_none() {
            return None;
        }
        if self.char_at(cs).is_none_or(char::is_whitespace) || self.char_at(cs) == Some('`') {
            return None;
        }
        let (q, end) = self.find_end(End::Interpreted, "`", cs + 1, limit, memo)?;
        // A role after the text (`` `x`:math: ``) counts like one before it.
        let suffix_role = self
            .text
            .get(q + 1..end)
            .and_then(|s| s.strip_prefix(':'))
            .and_then(|s| s.strip_suffix(':'));
        let role = role.or(suffix_role).unwrap_or("");
        let base = role.rsplit(':').next().unwrap_or(role);
        let content = self.text.get(cs..q)?;
        let mut ops = Vec::new();
        let kind = if role.starts_with("footcite") {
            "footcite"
        } else if role.starts_with("cite") {
            "cite"
        } else {
            base
        };
        match kind {
            "math" => {
                let t = content.trim();
                if is_plain_math(t) {
                    let off = cs + (content.len() - content.trim_start().len());
                    ops.push(Op::Keep {
                        a: off,
                        b: off + t.len(),
                        lead: i,
                        trail: end,
                    });
                } else {
                    ops.push(Op::Text {
                        text: "x",
                        a: i,
                        b: end,
                    });
                }
                return Some(Markup::new(ops, end));
            }
            "footcite" => {
                return Some(Markup {
                    ops,
                    end,
                    drop_space_before: true,
                });
            }
            "cite" => {
                ops.push(Op::Text {
                    text: "[1]",
                    a: i,
                    b: end,
                });
                return Some(Markup::new(ops, end));
            }
            "eq" => {
                ops.push(Op::Text {
                    text: "(1)",
                    a: i,
                    b: end,
                });
                return Some(Markup::new(ops, end));
            }
            _ => {}
        }
        // `Text <target>` keeps the text.
        let mut b = q;
        if content.ends_with('>') {
            if let Some(k) = content.rfind('<') {
                let title = content.get(..k).unwrap_or("");
                if title.ends_with(char::is_whitespace) && !title.trim().is_empty() {
                    b = cs + title.trim_end().len();
                }
            }
        }
        let mut a = cs;
        let shown = self.text.get(a..b).unwrap_or("");
        if let Some(r) = shown.strip_prefix('!') {
            a += shown.len() - r.len();
        } else if let Some(r) = shown.strip_prefix('~') {
            // `~a.b.c` shows only `c`.
            let last = r.rfind('.').map_or(0, |k| k + 1);
            a += 1 + last;
        }
        if a >= b {
            a = cs;
        }
        self.escaped(&mut ops, a, b, i, end);
        Some(Markup::new(ops, end))
    }
}

/// Inline markup found at some position: its clean pieces and where it ends.
#[derive(Debug)]
struct Markup {
    ops: Vec<Op>,
    end: usize,
    /// The markup leaves nothing (a footnote reference): the space before it goes too.
    drop_space_before: bool,
}

impl Markup {
    fn new(ops: Vec<Op>, end: usize) -> Self {
        Markup {
            ops,
            end,
            drop_space_before: false,
        }
    }
}

/// The role name at the start of `s` when `s` reads `name:` (names may hold `:`, as in
/// `py:func`), followed by a backtick.
fn role_prefix(s: &str) -> Option<&str> {
    let mut last_colon = None;
    for (k, c) in s.char_indices() {
        if k > MAX_ROLE {
            break;
        }
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+') {
            continue;
        }
        if c == ':' {
            if s.get(k + 1..).is_some_and(|r| r.starts_with('`')) {
                last_colon = Some(k);
                break;
            }
            continue;
        }
        break;
    }
    let k = last_colon?;
    let name = s.get(..k)?;
    (!name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric()))
    .then_some(name)
}

/// Longest role name looked for.
const MAX_ROLE: usize = 64;

/// Length of a role suffix (`:name:`) at the start of `s`, 0 when there is none.
fn suffix_role_len(s: &str) -> usize {
    let Some(r) = s.strip_prefix(':') else {
        return 0;
    };
    let n = r
        .char_indices()
        .take(MAX_ROLE)
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | ':')))
        .map_or(r.len().min(MAX_ROLE), |(k, _)| k);
    match r.get(..n).and_then(|name| name.rfind(':')) {
        Some(k) if k > 0 => k + 2,
        _ => 0,
    }
}

/// Whether math is a plain token worth keeping verbatim: a word or a number.
fn is_plain_math(t: &str) -> bool {
    if t.is_empty() {
        return false;
    }
    if t.chars().all(|c| c.is_ascii_alphanumeric()) {
        return true;
    }
    let digits = t.strip_prefix('-').unwrap_or(t);
    !digits.is_empty()
        && digits
            .split(['.', ','])
            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{parse, Document, Format};
    use proptest::prelude::*;

    fn doc(src: &str) -> Document {
        parse(src, Format::Rst)
    }

    /// Sentence texts, paragraph by paragraph.
    fn sentences(src: &str) -> Vec<Vec<String>> {
        doc(src)
            .paragraphs()
            .map(|p| p.sentences.iter().map(|s| s.text.clone()).collect())
            .collect()
    }

    /// Source slices of all sentences.
    fn sentence_sources(src: &str) -> Vec<String> {
        doc(src)
            .sentences()
            .map(|s| s.span.slice(src).to_string())
            .collect()
    }

    fn v(items: &[&[&str]]) -> Vec<Vec<String>> {
        items
            .iter()
            .map(|p| p.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    fn headings(src: &str) -> Vec<(String, u8)> {
        doc(src)
            .sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| (h.title.clone(), h.level)))
            .collect()
    }

    /// From the Flask tutorial (`docs/tutorial/database.rst`, BSD-3-Clause), shortened.
    const FLASK: &str = r#".. _tutorial-database:

Define and Access the Database
==============================

The application will use a `SQLite`_ database to store users and posts.
Python comes with built-in support for SQLite in the :mod:`sqlite3`
module.

.. _SQLite: https://sqlite.org/about.html


Connect to the Database
-----------------------

The first thing to do when working with a SQLite database (and most
other Python database libraries) is to create a connection to it.

.. code-block:: python
    :caption: ``flaskr/db.py``

    import sqlite3

    def get_db():
        return g.db

:data:`g` is a special object that is unique for each request. It is
used to store data that might be accessed by multiple functions during
the request.

.. note::

    The connection is stored and reused instead of creating a new
    connection if ``get_db`` is called a second time.

Run the ``init-db`` command::

    $ flask --app flaskr init-db
    Initialized the database.

There will now be a ``flaskr.sqlite`` file in the ``instance`` folder.
"#;

    #[test]
    fn flask_tutorial_reads_as_prose() {
        let d = doc(FLASK);
        assert_eq!(
            headings(FLASK),
            vec![
                ("Define and Access the Database".to_string(), 1),
                ("Connect to the Database".to_string(), 2)
            ]
        );
        assert_eq!(
            sentences(FLASK),
            v(&[
                &[
                    "The application will use a SQLite database to store users and posts.",
                    "Python comes with built-in support for SQLite in the sqlite3 module."
                ],
                // After the code block, a paragraph that opens in lower case (`g`) is read as
                // the continuation of the one before it (see `assemble`).
                &[
                    "The first thing to do when working with a SQLite database (and most other Python database libraries) is to create a connection to it.",
                    "g is a special object that is unique for each request.",
                    "It is used to store data that might be accessed by multiple functions during the request.",
                    "The connection is stored and reused instead of creating a new connection if get_db is called a second time."
                ],
                &["Run the init-db command:"],
                &["There will now be a flaskr.sqlite file in the instance folder."]
            ])
        );
        // The note attaches like a quote; the literal block stands before the last paragraph.
        let paras: Vec<_> = d.sections[1].paragraphs.iter().collect();
        assert_eq!(paras[0].own_sentences, 3);
        assert_eq!(paras[0].sentences.len(), 4);
        assert!(paras[2].after_block);
        let srcs = sentence_sources(FLASK);
        assert_eq!(
            srcs[0],
            "The application will use a `SQLite`_ database to store users and posts."
        );
        assert_eq!(
            srcs[1],
            "Python comes with built-in support for SQLite in the :mod:`sqlite3`\nmodule."
        );
        assert_eq!(
            srcs[3],
            ":data:`g` is a special object that is unique for each request."
        );
        assert_eq!(srcs[6], "Run the ``init-db`` command::");
        let h = d.sections[0].heading.as_ref().map(|h| h.span.slice(FLASK));
        assert_eq!(
            h,
            Some("Define and Access the Database\n==============================")
        );
    }

    #[test]
    fn titles_with_overlines_and_levels_by_first_appearance() {
        let src = "=========\n Project\n=========\n\nIntro text.\n\nUsage\n~~~~~\n\nSome usage.\n\nDetails\n^^^^^^^\n\nDeep.\n\nAPI\n~~~\n\nBack up.\n";
        assert_eq!(
            headings(src),
            vec![
                ("Project".to_string(), 1),
                ("Usage".to_string(), 2),
                ("Details".to_string(), 3),
                ("API".to_string(), 2)
            ]
        );
        let d = doc(src);
        let h = d.sections[0].heading.as_ref().map(|h| h.span.slice(src));
        assert_eq!(h, Some("=========\n Project\n========="));
        assert_eq!(
            sentences(src),
            v(&[
                &["Intro text."],
                &["Some usage."],
                &["Deep."],
                &["Back up."]
            ])
        );
        // An underline shorter than its title (and than four characters) is text.
        assert!(headings("Long title\n--\n").is_empty());
    }

    #[test]
    fn literal_blocks_doctests_and_code_directives_are_the_document_s_code() {
        let src = "Run it::\n\n    worker.start(cluster)\n    worker.stop()\n\nThen:\n\n>>> pool.close()\n\n\
                   .. code-block:: python\n\n   import curio\n\n.. image:: logo.png\n\nThe end.\n";
        let d = crate::text::parse(src, crate::text::Format::Rst);
        assert_eq!(
            d.code,
            vec![
                "    worker.start(cluster)\n    worker.stop()".to_string(),
                ">>> pool.close()".to_string(),
                ".. code-block:: python\n\n   import curio".to_string(),
            ]
        );
    }

    #[test]
    fn literal_block_colons_follow_rest_rules() {
        let src = "Paragraph::\n\n    code\n\nSpaced ::\n\n    code\n\n::\n\n    code\n\nEnd.\n";
        // `Spaced` is unfinished, so the paragraph after the literal block continues it.
        assert_eq!(sentences(src), v(&[&["Paragraph:"], &["Spaced", "End."]]));
        assert_eq!(
            sentence_sources(src),
            vec!["Paragraph::", "Spaced ::", "End."]
        );
        // Without the blank line too, and quoted literal blocks.
        let src = "Example::\n    x = 1\n\nThen::\n\n> quoted\n> lines\n\nAfter.\n";
        assert_eq!(sentences(src), v(&[&["Example:"], &["Then:"], &["After."]]));
    }

    #[test]
    fn lists_attach_as_items() {
        let src = "The options are:\n\n- *fast* mode,\n  on two lines.\n- slow mode.\n\n  A second paragraph.\n\n1. One.\n#. Two.\n(a) Three.\niv) Four.\n\nNew paragraph.\n";
        let d = doc(src);
        let paras: Vec<_> = d.paragraphs().collect();
        assert_eq!(paras.len(), 2);
        assert_eq!(
            paras[0]
                .sentences
                .iter()
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>(),
            vec![
                "The options are:",
                "fast mode, on two lines.",
                "slow mode.",
                "A second paragraph.",
                "One.",
                "Two.",
                "Three.",
                "Four."
            ]
        );
        assert_eq!(paras[0].own_sentences, 1);
        let items: Vec<_> = blocks(src)
            .into_iter()
            .filter_map(|b| match b {
                Block::Prose {
                    span,
                    attach: true,
                    item: true,
                    ..
                } => Some(span.slice(src).to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(items[0], "- *fast* mode,\n  on two lines.");
        assert_eq!(items[3], "1. One.");
        // A list with no lead-in of its own is a list paragraph.
        let d = doc("Title\n=====\n\n* one.\n* two.\n");
        assert!(d.paragraphs().all(|p| p.list));
        // "A. Einstein" followed by more text is a paragraph, not a list.
        assert_eq!(
            sentences("A. Einstein wrote\nthis line.\n"),
            v(&[&["A. Einstein wrote this line."]])
        );
    }

    #[test]
    fn definition_and_field_lists() {
        let src = ":Author: Someone\n:Version: 1.0\n\nIntro:\n\n``--verbose`` : flag\n    Print more.\n\nSpeed.\n    Fast.\n\nLater fields:\n\n:param x: The x value.\n";
        assert_eq!(
            sentences(src),
            v(&[
                &["Intro:", "--verbose: Print more.", "Speed.", "Fast."],
                &["Later fields:", "The x value."]
            ])
        );
        let items: Vec<_> = blocks(src)
            .into_iter()
            .filter_map(|b| match b {
                Block::Prose {
                    span, item: true, ..
                } => Some(span.slice(src).to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(items[0], "``--verbose`` : flag\n    Print more.");
    }

    #[test]
    fn directives_comments_and_targets() {
        let src = "Text before.\n\n.. image:: pic.png\n   :alt: A picture. With words.\n\n.. This is a comment. It has sentences.\n   And a second line.\n\n..\n\n.. _target:\n\n.. [1] A footnote. Skipped.\n\n.. |name| replace:: Replaced text.\n\n.. highlight:: python\n\n.. warning:: Be careful\n   with this.\n\n   Really.\n\n.. admonition:: A Title\n   :class: x\n\n   Body text.\n\n.. toctree::\n   :maxdepth: 2\n\n   intro\n   usage\n\n.. only:: html\n\n   Shown in HTML.\n\nText after.\n";
        assert_eq!(
            sentences(src),
            v(&[
                &["Text before."],
                &["Be careful with this.", "Really.", "Body text."],
                &["Shown in HTML."],
                &["Text after."]
            ])
        );
        let d = doc(src);
        let paras: Vec<_> = d.paragraphs().collect();
        // The image breaks the flow; the second admonition attaches to the first.
        assert!(paras[1].after_block);
        assert_eq!(paras[1].own_sentences, 1);
    }

    #[test]
    fn disable_comment_marks_next_paragraph() {
        let src = "One.\n\n.. segue-disable-next\n\nTwo.\n\nThree.\n";
        let flags: Vec<bool> = doc(src).paragraphs().map(|p| p.disabled).collect();
        assert_eq!(flags, vec![false, true, false]);
    }

    #[test]
    fn tables_and_transitions_break() {
        let src = "Before.\n\n+------+------+\n| A    | B.   |\n+======+======+\n| x    | y.   |\n+------+------+\n\nMiddle.\n\n=====  =====\nA      B\n=====  =====\nx      y.\n\nz      w.\n=====  =====\n\nAfter.\n\n----------\n\nLast.\n";
        assert_eq!(
            sentences(src),
            v(&[&["Before."], &["Middle."], &["After."], &["Last."]])
        );
        let d = doc(src);
        assert!(d.paragraphs().skip(1).all(|p| p.after_block));
    }

    #[test]
    fn quotes_line_blocks_options_and_doctests() {
        let src = "He said:\n\n    A quoted sentence.\n\n    -- Someone\n\n| A line\n| block.\n\n-a         All.\n--verbose  Chatty.\n\n>>> 1 + 1\n2\n\nEnd.\n";
        assert_eq!(
            sentences(src),
            v(&[
                &[
                    "He said:",
                    "A quoted sentence.",
                    "-- Someone",
                    "A line block."
                ],
                &["End."]
            ])
        );
    }

    #[test]
    fn inline_markup_keeps_its_text() {
        let src = "Use **strong** and *emph*, ``code``, `interp`, :func:`~pkg.mod.run`, :ref:`the guide <guide>`, `Link text <https://x.y>`_, `Other`__, name_ and |project|. See [1]_ and [#]_.\n\nIt is :math:`x^2` or :math:`n`, not 2 * 3 * 4 or *args. Escaped \\*stars\\* and a\\ b. Also :py:meth:`!Foo.bar` and :cite:`knuth`.\n";
        assert_eq!(
            sentences(src),
            v(&[
                &["Use strong and emph, code, interp, run, the guide, Link text, Other, name and project.", "See and."],
                &[
                    "It is x or n, not 2 * 3 * 4 or *args.",
                    "Escaped *stars* and ab.",
                    "Also Foo.bar and [1]."
                ]
            ])
        );
        let srcs = sentence_sources(src);
        assert!(srcs[0].starts_with("Use **strong**"));
        assert!(srcs[0].ends_with("|project|."));
        assert_eq!(srcs[1], "See [1]_ and [#]_.");
        let src = "*Hello* world. Say **bye**\n";
        assert_eq!(sentence_sources(src), vec!["*Hello* world.", "Say **bye**"]);
    }

    #[test]
    fn crlf_tabs_and_bom() {
        let src =
            "\u{feff}Title\r\n=====\r\n\r\nFirst line\r\ncontinues.\r\n\r\n-\tTabbed item.\r\n";
        assert_eq!(headings(src), vec![("Title".to_string(), 1)]);
        assert_eq!(
            sentences(src),
            v(&[&["First line continues.", "Tabbed item."]])
        );
        assert_eq!(
            sentence_sources(src),
            vec!["First line\r\ncontinues.", "Tabbed item."]
        );
    }

    #[test]
    fn format_is_wired() {
        use std::path::Path;
        assert_eq!(Format::from_path(Path::new("a/b.rst")), Some(Format::Rst));
        assert_eq!(Format::from_path(Path::new("B.REST")), Some(Format::Rst));
        assert_eq!(
            Format::from_language_id("restructuredtext"),
            Some(Format::Rst)
        );
        assert_eq!(Format::from_language_id("rst"), Some(Format::Rst));
        assert_eq!(Format::Rst.name(), "rst");
    }

    #[test]
    fn hostile_input_stays_linear() {
        let t = std::time::Instant::now();
        for unit in [
            "*a ",
            "**a ",
            "``a ",
            "`a ",
            ":r:`a ",
            "|a ",
            "[a ",
            "a_b-",
            "::::",
            "- ",
            "1. ",
            "    - ",
            "=== ===\nx\n\n",
            ".. ",
            "\n  ",
            "_`a ",
            "\\",
        ] {
            let src = unit.repeat(20_000);
            let _ = blocks(&src);
        }
        assert!(t.elapsed() < std::time::Duration::from_secs(20));
    }

    fn rstish() -> impl Strategy<Value = String> {
        let tokens = prop::sample::select(vec![
            "*",
            "**",
            "`",
            "``",
            "_",
            "__",
            "|",
            ":",
            "::",
            "\\",
            "[",
            "]",
            "<",
            ">",
            "(",
            ")",
            "\n",
            "\r\n",
            "\n\n",
            " ",
            "  ",
            "    ",
            "\t",
            ".. ",
            "..",
            ".. note::",
            ".. code::",
            ".. _x:",
            ".. [1]",
            ".. |s| image::",
            ":ref:`",
            ":math:`",
            "`_",
            "[1]_",
            "name_",
            "- ",
            "* ",
            "1. ",
            "#. ",
            "(a) ",
            "| ",
            ">>> ",
            "-v  ",
            ":field: ",
            "=====",
            "-----",
            "~~~~",
            "+---+",
            "| a |",
            "=== ===",
            "word",
            "Word.",
            ".",
            "é",
            "日本",
            "\u{301}",
            "\u{feff}",
            "segue-disable-next",
            "\u{c}",
        ]);
        prop::collection::vec(tokens, 0..64).prop_map(|v| v.concat())
    }

    fn check_spans(src: &str) {
        crate::text::test_support::check_spans(src, Format::Rst);
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_strings(src in "\\PC*") {
            check_spans(&src);
        }

        #[test]
        fn never_panics_on_rstish_strings(src in rstish()) {
            check_spans(&src);
        }
    }
}
