//! LaTeX → prose blocks, with a hand-written scanner that never fails.
//!
//! The scanner reads the document body and keeps what a reader would read as prose. Every byte
//! of the clean text maps back to the source through [`ProseText`]; markup that wraps a word
//! (`\emph{`, `}`, `\label{…}`, …) is folded into the span of the word next to it, so that the
//! sentence `\emph{Hello} world.` spans exactly that source text.
//!
//! Decisions:
//! - **Body.** When the source holds `\begin{document}` (outside a comment, a `\verb`, a verbatim
//!   display and every other environment), everything before it is skipped; `\end{document}` and
//!   `\endinput` end the prose. Without `\begin{document}` the whole source is read as a
//!   fragment. Environments whose name says they show code (`codeexample`, `latexcode`,
//!   `MyVerbatim`, tcolorbox's `tcblisting`) are verbatim displays, as `verbatim` and
//!   `lstlisting` are.
//! - **Paragraphs** end at blank lines, `\par`, `\newpage` and `\clearpage`, as in TeX. A line
//!   holding only a comment is not blank: `%` swallows the rest of its line *and* the line end,
//!   so `word%⏎next` reads `wordnext`.
//! - **`% segue-disable-next`** on a line of its own ends the paragraph before it and emits
//!   [`Block::DisableNext`] for the paragraph after it.
//! - **Headings.** `\part`, `\chapter`, `\section`, `\subsection`, `\subsubsection`,
//!   `\paragraph`, `\subparagraph` (starred or not, with or without `[short]` title; KOMA's
//!   `\addpart`, `\addchap`, `\addsec` too) emit [`Block::Heading`] with the clean text of the
//!   long title. Levels are *relative*: the sectioning depths are ordered part < chapter <
//!   section < subsection < subsubsection < paragraph < subparagraph, and the shallowest depth
//!   used in the document is level 1. An article's `\section` is level 1 and `\subsection`
//!   level 2; a book's `\chapter` is level 1 and its `\section` level 2. A command the document
//!   defines as a sectioning command of its argument (`\newcommand{\reasonsection}[1]{%
//!   \subsubsection*{\it #1}}`, also `\renewcommand`, `\providecommand`, `\def\x#1{…}`) is a
//!   heading of that depth wherever it is used ([`user_headings`]).
//! - **Inline math** (`$…$`, `\(…\)`, `\begin{math}`, `\ensuremath{…}`) keeps the sentence
//!   readable: a plain token such as `$n$` or `$3.5$` is kept verbatim (`n`, `3.5`); anything
//!   else becomes the synthetic placeholder `x`.
//! - **Display math** (`$$…$$`, `\[…\]`, `equation`, `align`, `gather`, `multline`, `flalign`,
//!   `alignat`, `eqnarray`, `displaymath`, starred forms, …) does not end the paragraph. Inside a
//!   paragraph it becomes the placeholder `x`, followed by the math's own final punctuation
//!   (`.`, `,`, `;`, `:`) so that `we have \[E=mc^2.\] Then…` still reads as two sentences
//!   ("we have x." / "Then…"); unpunctuated math followed by a capital letter gets a synthetic
//!   `.`. At the start of a paragraph, or after a sentence already ended, it leaves nothing.
//! - **Skipped environments.** Floats (`figure`, `table`, `algorithm`, `wrapfigure`, …) and
//!   the `comment` environment vanish without a trace (floats are out of the text flow).
//!   Displayed non-prose (`tabular`, `verbatim`, `lstlisting`, `minted`, `algorithmic`,
//!   `tikzpicture`, `thebibliography` and packages' reference lists such as `reflist`, …) is skipped too; standing alone between paragraphs it
//!   emits [`Block::Break`] (like a Markdown code block), inside a paragraph it reads as a space.
//! - **Typeset copies.** A block whose words (80 % of them) repeat the `lstlisting`, `verbatim`,
//!   `Verbatim`, `minted`, `LTXexample` or `sourcecode` listing that ends at most 400 bytes
//!   before it is the manual showing what that source produces, not prose: it reads as a
//!   [`Block::Break`].
//! - **Lists and quotes.** Each `\item` of `itemize`/`enumerate`/`description` (and the
//!   `paralist`/`enumitem` variants) opens a [`Block::Prose`] with `attach: true` whose span
//!   starts at `\item`; a description label `\item[Term]` is kept, followed by a synthetic `:`
//!   unless it ends in punctuation. Other labels are dropped. `quote`, `quotation`, `verse` and
//!   `displayquote` content attaches too, and so does text that continues a paragraph right
//!   after a list or quote ends. `abstract`, theorem-like and other unknown environments are
//!   ordinary prose that starts and ends paragraphs.
//! - **Commands.** Text-style commands (`\emph`, `\textbf`, `\textit`, `\texttt`, `\mbox`,
//!   `\underline`, …) and unknown commands keep the text of their braced argument (an unknown
//!   command's immediate `[…]` is dropped); unknown commands without argument vanish, unless the
//!   document defines them as a few words of text (`\newcommand{\latex}{\LaTeX\xspace}` reads
//!   `LaTeX`: [`user_words`]). Commands
//!   that carry no prose (`\label`, `\index`, `\includegraphics`, `\vspace`, `\newcommand`, …)
//!   vanish with their arguments. So does front matter: `\title`, `\author`, `\date`,
//!   `\address`, `\email`, `\keywords`, `\moduleauthor`, `\sectionauthor`, `\caption`,
//!   `\bibitem`, the `keywords` and `titlepage` environments, and unknown commands whose name
//!   says they hold metadata (`author`, `email`, `affil`, `keyword`, `orcid`, …, or a name
//!   starting with `acm`, `icml`) or whose first argument is an email address. A paragraph
//!   left with placeholders only (a lone `\ref{…}`) is no prose. `\href{url}{text}` keeps `text`; `\url`, `\path` and `\verb`
//!   keep their content verbatim, and so do short verbatim runs (`|\section|`) where the
//!   document declares them (`\MakeShortVerb`, `\DefineShortVerb`) or its class does
//!   (`ltxguide`, `ltxdoc`; plain TeX's `\input tugboat.sty`): see [`short_verb`].
//! - **Footnotes** (`\footnote`, `\footnotetext`, `\footcite`, `\marginpar`, `\todo`,
//!   `\thanks`) are dropped: they are asides outside the flow of the sentence they sit in.
//! - **References** leave a synthetic placeholder so that the sentence stays a sentence:
//!   `\cite` and its natbib/biblatex variants read `[1]`; `\ref`, `\pageref`, `\nameref` read
//!   `1`; `\eqref` reads `(1)`; `\cref`, `\Cref`, `\autoref`, `\vref` (which print their own
//!   "Figure"/"Section" word) read `§1`. So `see Section~\ref{s}.` reads `see Section 1.`
//! - **Characters.** `~`, `\\`, `\newline`, `\,` and `\hspace` read as a space; `\%`, `\&`,
//!   `\$`, `\_`, `\#`, `\{`, `\}` as the character (mapped to the source character);
//!   `\ldots`/`\dots` as `…`; ``` `` ``` and `''` as `“` and `”`; `--` and `---` stay as they
//!   are; `\LaTeX`, `\S`, `\ss`, `\o` and similar symbols as their text; accents such as `\'e`,
//!   `\"{o}`, `\v{c}` or `\'{\i}` as the precomposed character when there is one, else the base
//!   letter followed by the combining accent. Unlike TeX, spaces after a control word are
//!   kept (`\LaTeX is` reads `LaTeX is`, as its author meant), except after a letter symbol
//!   such as `\ss` or `\o`, which belongs to its word (`Stra\ss e` reads `Straße`).

mod rendered;
mod scan;
mod short_verb;
mod user_envs;
mod user_words;

use super::{Block, ProseText, Span};
use short_verb::ShortVerbs;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

/// The comment that suppresses findings on the next paragraph.
pub const DISABLE_NEXT: &str = "segue-disable-next";

/// How deep heading titles, item labels and `\texorpdfstring` may nest inside each other
/// before their content is dropped. Keeps recursion bounded on hostile input.
const MAX_DEPTH: usize = 8;

/// Splits LaTeX source into prose blocks.
pub fn blocks(source: &str) -> Vec<Block> {
    blocks_and_code(source).0
}

/// [`blocks`], and the source spans of the listings they leave out (`lstlisting`, `verbatim`,
/// `minted`, … in the body: [`rendered::listings`]).
pub(crate) fn blocks_and_code(source: &str) -> (Vec<Block>, Vec<Span>) {
    let (start, end) = body_range(source);
    let mut p = Parser::new(source, start, end, 0, false);
    p.user_headings = user_headings(source);
    p.short_verbs = ShortVerbs::scan(source);
    p.user_envs = user_envs::user_envs(source);
    p.user_words = Rc::new(user_words::user_words(source));
    p.line_start = start == 0 || matches!(source.as_bytes().get(start), Some(b'\n' | b'\r'));
    p.run();
    p.flush();
    let mut out = p.out;
    normalize_levels(&mut out);
    let listings: Vec<rendered::Listing> = rendered::listings(source)
        .into_iter()
        .filter(|l| l.content.start >= start && l.end <= end)
        .collect();
    rendered::drop_rendered_copies(source, &listings, &mut out);
    let code = listings
        .iter()
        .map(|l| Span::new(l.content.start, l.content.end))
        .collect();
    (out, code)
}

/// The byte range of the document body: after `\begin{document}` when there is one outside
/// every other environment (PGF's manual shows a whole document, `\begin{document}` and all,
/// inside a `codeexample`).
fn body_range(source: &str) -> (usize, usize) {
    const BEGIN: &[u8] = b"\\begin{";
    const END: &[u8] = b"\\end{";
    const DOCUMENT: &[u8] = b"document}";
    let b = source.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'%' => i = line_end(b, i, b.len()),
            b'\\' => {
                let rest = b.get(i..).unwrap_or_default();
                if let Some(after) = verb_end(b, i) {
                    // `\verb+\begin{document}+` names the command; it does not begin anything.
                    i = after;
                    continue;
                }
                if rest.starts_with(BEGIN) {
                    let name = &rest[BEGIN.len()..];
                    if name.starts_with(DOCUMENT) {
                        if depth == 0 {
                            return (i + BEGIN.len() + DOCUMENT.len(), b.len());
                        }
                    } else {
                        let len = name.iter().take(64).position(|&c| c == b'}');
                        let env = len.and_then(|n| std::str::from_utf8(&name[..n]).ok());
                        if let Some(env) =
                            env.filter(|e| matches!(classify_env(e), EnvClass::Verbatim { .. }))
                        {
                            // A verbatim display shows code; what it holds begins nothing.
                            let close = format!("\\end{{{env}}}");
                            match source.get(i..).and_then(|r| r.find(&close)) {
                                Some(k) => {
                                    i += k + close.len();
                                    continue;
                                }
                                None => return (0, b.len()),
                            }
                        }
                        depth += 1;
                    }
                } else if rest.starts_with(END) && !rest[END.len()..].starts_with(DOCUMENT) {
                    depth = depth.saturating_sub(1);
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    (0, b.len())
}

/// Where `\verb` (or `\verb*`) at byte `at` ends: after its closing delimiter on the same line.
/// `None` when `at` holds no `\verb` with a delimiter.
fn verb_end(b: &[u8], at: usize) -> Option<usize> {
    let mut j = at + b"\\verb".len();
    if !b.get(at..)?.starts_with(b"\\verb") {
        return None;
    }
    if b.get(j) == Some(&b'*') {
        j += 1;
    }
    let delimiter = *b.get(j)?;
    if delimiter.is_ascii_alphabetic() || delimiter.is_ascii_whitespace() {
        return None;
    }
    let close = b
        .get(j + 1..)?
        .iter()
        .position(|&c| c == delimiter || c == b'\n')?;
    Some(j + 1 + close + 1)
}

/// Commands that `source` defines as a sectioning command applied to their first argument, with
/// the depth of that sectioning command: `\newcommand{\name}[1]{\subsection*{#1}}` (also
/// `\renewcommand`, `\providecommand`, `\DeclareRobustCommand`, starred, with the name braced or
/// not, and `\def\name#1{…}`). The definition's body must open with the sectioning command
/// (after spaces and `%` line ends) and use `#1`; a command without arguments, or one whose body
/// only mentions a heading somewhere, stays unknown.
fn user_headings(source: &str) -> HashMap<String, u8> {
    const DEFINERS: &[&str] = &[
        "\\newcommand",
        "\\renewcommand",
        "\\providecommand",
        "\\DeclareRobustCommand",
        "\\def",
        "\\gdef",
    ];
    let b = source.as_bytes();
    let mut out = HashMap::new();
    let mut i = 0;
    while let Some(at) = source.get(i..).and_then(|s| s.find('\\')) {
        let start = i + at;
        i = start + 1;
        let Some(definer) = DEFINERS.iter().find(|d| {
            source[start..].starts_with(**d)
                && !b.get(start + d.len()).copied().is_some_and(is_letter)
        }) else {
            continue;
        };
        let mut j = start + definer.len();
        let skip = |mut j: usize| {
            while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\n' | b'\r' | b'*') {
                j += 1;
            }
            j
        };
        j = skip(j);
        // The name: `{\name}` or `\name`.
        let braced = b.get(j) == Some(&b'{');
        if braced {
            j = skip(j + 1);
        }
        if b.get(j) != Some(&b'\\') {
            continue;
        }
        let name_start = j + 1;
        let mut k = name_start;
        while b.get(k).copied().is_some_and(is_letter) {
            k += 1;
        }
        if k == name_start {
            continue;
        }
        let name = &source[name_start..k];
        j = k;
        if braced {
            j = skip(j);
            if b.get(j) != Some(&b'}') {
                continue;
            }
            j += 1;
        }
        // The parameters: `[n]` and an optional default `[…]`, or `#1#2` for `\def`.
        let mut params = 0;
        let mut guard = 0;
        loop {
            j = skip(j);
            guard += 1;
            if guard > 4 {
                break;
            }
            match b.get(j) {
                Some(b'[') => {
                    let window = &b[j..b.len().min(j + 80)];
                    let Some(close) = window.iter().position(|&c| c == b']') else {
                        break;
                    };
                    if params == 0 {
                        params = std::str::from_utf8(&window[1..close])
                            .ok()
                            .and_then(|n| n.trim().parse::<u8>().ok())
                            .unwrap_or(0);
                    }
                    j += close + 1;
                }
                Some(b'#') => {
                    while matches!(b.get(j), Some(b'#'))
                        && b.get(j + 1).is_some_and(u8::is_ascii_digit)
                    {
                        params += 1;
                        j += 2;
                    }
                }
                _ => break,
            }
        }
        if params == 0 || b.get(j) != Some(&b'{') {
            continue;
        }
        // The body opens with a sectioning command.
        let mut m = j + 1;
        loop {
            m = skip(m);
            if b.get(m) == Some(&b'%') {
                while m < b.len() && b[m] != b'\n' {
                    m += 1;
                }
                continue;
            }
            break;
        }
        if b.get(m) != Some(&b'\\') {
            continue;
        }
        let mut e = m + 1;
        while b.get(e).copied().is_some_and(is_letter) {
            e += 1;
        }
        let Some(Action::Heading(depth)) = action(&source[m + 1..e]) else {
            continue;
        };
        let line = &b[e..b.len().min(e + 200)];
        let body_end = line.iter().position(|&c| c == b'\n').unwrap_or(line.len());
        if line[..body_end].windows(2).any(|w| w == b"#1") {
            out.insert(name.to_string(), depth);
        }
    }
    out
}

/// Rewrites heading depths (part = 1 … subparagraph = 7) so that the shallowest is level 1.
fn normalize_levels(blocks: &mut [Block]) {
    let min = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { level, .. } => Some(*level),
            _ => None,
        })
        .min()
        .unwrap_or(1);
    for b in blocks {
        if let Block::Heading { level, .. } = b {
            *level = *level - min + 1;
        }
    }
}

/// Position of the first line ending (`\n` or `\r`) at or after `i`, or `end`.
fn line_end(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match b.get(i) {
            Some(b'\n' | b'\r') | None => return i,
            _ => i += 1,
        }
    }
    end
}

/// Length of the line ending at `i` (2 for CRLF, 1 for LF or CR, 0 when there is none).
fn newline_len(b: &[u8], i: usize) -> usize {
    match (b.get(i), b.get(i + 1)) {
        (Some(b'\r'), Some(b'\n')) => 2,
        (Some(b'\n' | b'\r'), _) => 1,
        _ => 0,
    }
}

/// Bytes that make up control word names. `@` counts, as after `\makeatletter`, so that internal
/// macros (`\@ifnextchar`) vanish whole; `\@` itself (as in `G\@.`) vanishes too.
fn is_letter(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'@'
}

/// Bytes that end a run of plain text.
fn is_special(c: u8) -> bool {
    b"\\%{}$~&^_#\n\r`'".contains(&c)
}

/// A source run waiting to be committed, so that markup right after it can still join its span.
#[derive(Debug)]
struct Pending {
    /// Verbatim source span, or `None` for synthetic text.
    source: Option<Span>,
    /// Synthetic text (empty for verbatim runs).
    text: String,
    /// Source span the piece stands for, before `lead`/`trail`.
    at: Span,
    /// Start of markup right before the piece.
    lead: usize,
    /// End of markup right after the piece.
    trail: usize,
}

/// Builds a [`ProseText`], folding markup that touches a word into that word's source span.
#[derive(Debug)]
struct Writer<'a> {
    src: &'a str,
    prose: ProseText,
    pending: Option<Pending>,
    /// Start of markup seen since the last text, to join to the next text.
    lead: Option<usize>,
    /// Whether any word of the source was written (not only placeholders such as the `1` of
    /// `\ref`).
    words: bool,
}

impl<'a> Writer<'a> {
    fn new(src: &'a str) -> Self {
        Writer {
            src,
            prose: ProseText::new(),
            pending: None,
            lead: None,
            words: false,
        }
    }

    /// Whether nothing but whitespace was written.
    fn is_blank(&self) -> bool {
        self.pending.is_none() && self.prose.is_blank()
    }

    /// The last non-whitespace character written.
    fn last_char(&self) -> Option<char> {
        match &self.pending {
            Some(p) => match p.source {
                Some(s) => s.slice(self.src).chars().next_back(),
                None => p.text.chars().next_back(),
            },
            None => self.prose.text().trim_end().chars().next_back(),
        }
    }

    fn commit(&mut self) {
        let Some(p) = self.pending.take() else {
            return;
        };
        let Some(span) = p.source else {
            let at = Span::new(p.lead.min(p.at.start), p.trail.max(p.at.end));
            self.prose.push_synthetic(&p.text, at);
            return;
        };
        let text = span.slice(self.src);
        if p.lead >= span.start && p.trail <= span.end {
            self.prose.push_source(self.src, span);
            return;
        }
        let mut chars = text.chars();
        let first = chars.next().map_or(0, char::len_utf8);
        let last = chars.next_back().map_or(0, char::len_utf8);
        if last == 0 {
            // A single character carries both the lead and the trail.
            let at = Span::new(p.lead.min(span.start), p.trail.max(span.end));
            self.prose.push_synthetic(text, at);
            return;
        }
        let (mut s, mut e) = (span.start, span.end);
        if p.lead < span.start {
            self.prose.push_synthetic(
                text.get(..first).unwrap_or(""),
                Span::new(p.lead, span.start + first),
            );
            s += first;
        }
        let tail = p.trail > span.end;
        if tail {
            e -= last;
        }
        self.prose.push_source(self.src, Span::new(s, e));
        if tail {
            self.prose.push_synthetic(
                text.get(text.len() - last..).unwrap_or(""),
                Span::new(e, p.trail),
            );
        }
    }

    /// Appends verbatim source text (no leading or trailing whitespace).
    fn source(&mut self, span: Span) {
        if span.is_empty() {
            return;
        }
        if span.slice(self.src).chars().any(char::is_alphanumeric) {
            self.words = true;
        }
        self.commit();
        let lead = self.lead.take().map_or(span.start, |l| l.min(span.start));
        self.pending = Some(Pending {
            source: Some(span),
            text: String::new(),
            at: span,
            lead,
            trail: span.end,
        });
    }

    /// Appends synthetic text standing for the source at `at`.
    fn synthetic(&mut self, text: &str, at: Span) {
        if text.is_empty() {
            self.close(at);
            return;
        }
        self.commit();
        let lead = self.lead.take().map_or(at.start, |l| l.min(at.start));
        self.pending = Some(Pending {
            source: None,
            text: text.to_string(),
            at,
            lead,
            trail: at.end,
        });
    }

    /// Appends one space standing for `at` (never two in a row, never at the start).
    fn space(&mut self, at: Span) {
        self.commit();
        self.lead = None;
        self.prose.push_space(at);
    }

    /// Appends a space standing for a skipped block at `at` inside the paragraph.
    fn block(&mut self, at: Span) {
        self.commit();
        self.lead = None;
        self.prose.push_block(at);
    }

    /// Markup that opens around the next text (`\emph{`, `{`).
    fn open(&mut self, start: usize) {
        if self.lead.is_none() {
            self.lead = Some(start);
        }
    }

    /// Markup that closes after the last text (`}`) or vanishes (`\label{…}`): joins the last
    /// text when it touches it, else the next.
    fn close(&mut self, at: Span) {
        match self.pending.as_mut() {
            // Markup already opened towards the next text: this joins it too.
            _ if self.lead.is_some() => {}
            Some(p) => p.trail = p.trail.max(at.end),
            None => self.open(at.start),
        }
    }

    /// The finished prose.
    fn finish(mut self) -> ProseText {
        self.commit();
        self.prose
    }
}

/// What an open environment does to the blocks inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EnvKind {
    /// A list: items attach; `description` keeps its labels.
    List { description: bool },
    /// A quotation: content attaches.
    Quote,
    /// Ordinary prose that starts and ends paragraphs.
    Block,
    /// A declaration or group that does not touch paragraphs (`small`, `otherlanguage`, …).
    Inline,
}

#[derive(Debug)]
struct Env<'a> {
    name: &'a str,
    kind: EnvKind,
    /// Whether this or an enclosing environment is a list or quote.
    attached: bool,
    /// Whether the innermost list at this level is a description.
    description: bool,
    /// Whether the innermost list-or-quote environment at this level is a list (kept per level
    /// so that asking costs the same at any depth of unclosed environments).
    list: bool,
}

/// How far up the environment stack `\end{name}` looks for its `\begin`; a stray `\end` is
/// ignored. Keeps hostile input linear.
const END_SEARCH: usize = 64;

/// How an environment's content is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EnvClass {
    Document,
    DisplayMath,
    InlineMath,
    /// Skipped by looking for the literal `\end{name}`; `silent` leaves no trace.
    Verbatim {
        silent: bool,
    },
    /// Skipped with nesting; `silent` (floats) leaves no trace.
    Skip {
        silent: bool,
    },
    /// Read as prose; the string is the argument spec to skip after `\begin{name}`.
    Open(EnvKind, &'static str),
}

fn classify_env(name: &str) -> EnvClass {
    let base = name.strip_suffix('*').unwrap_or(name);
    match base {
        "document" => EnvClass::Document,
        "equation" | "align" | "alignat" | "xalignat" | "xxalignat" | "gather" | "multline"
        | "flalign" | "eqnarray" | "displaymath" | "dmath" | "dgroup" | "darray"
        | "IEEEeqnarray" | "multlined" => EnvClass::DisplayMath,
        "math" => EnvClass::InlineMath,
        "comment" => EnvClass::Verbatim { silent: true },
        "verbatim" | "Verbatim" | "BVerbatim" | "LVerbatim" | "spverbatim" | "lstlisting"
        | "minted" | "filecontents" | "sourcecode" => EnvClass::Verbatim { silent: false },
        "figure" | "table" | "algorithm" | "listing" | "wrapfigure" | "wraptable"
        | "sidewaysfigure" | "sidewaystable" | "subfigure" | "subtable" | "marginfigure"
        | "margintable" | "SCfigure" | "SCtable" | "keyword" | "keywords" | "IEEEkeywords"
        | "CCSXML" | "titlepage" => EnvClass::Skip { silent: true },
        "tabular" | "tabularx" | "tabulary" | "tabu" | "longtable" | "supertabular"
        | "xtabular" | "array" | "tabbing" | "algorithmic" | "tikzpicture" | "tikzcd"
        | "pgfpicture" | "picture" | "pspicture" | "forest" | "thebibliography" | "alltt"
        // Reference lists that packages define beside `thebibliography` (covington's
        // hanging-indented `reflist`).
        | "reflist" | "references" | "biblist" | "bibliography"
        // The LaTeX team's guides box a command's syntax in `decl`.
        | "decl" => {
            EnvClass::Skip { silent: false }
        }
        "itemize" | "enumerate" | "compactitem" | "compactenum" | "asparaitem" | "asparaenum"
        | "inparaitem" | "inparaenum" | "trivlist" | "checklist" => {
            EnvClass::Open(EnvKind::List { description: false }, "o")
        }
        "description" | "compactdesc" | "asparadesc" | "inparadesc" => {
            EnvClass::Open(EnvKind::List { description: true }, "o")
        }
        "list" => EnvClass::Open(EnvKind::List { description: false }, "mm"),
        "dinglist" => EnvClass::Open(EnvKind::List { description: false }, "m"),
        "quote" | "quotation" | "verse" | "quoting" => EnvClass::Open(EnvKind::Quote, "o"),
        "displayquote" => EnvClass::Open(EnvKind::Quote, "oo"),
        "tiny" | "scriptsize" | "footnotesize" | "small" | "normalsize" | "large" | "Large"
        | "LARGE" | "huge" | "Huge" | "em" | "bfseries" | "itshape" | "sffamily" | "ttfamily"
        | "scshape" | "samepage" | "sloppypar" | "singlespace" | "onehalfspace" | "doublespace"
        | "raggedright" | "raggedleft" => EnvClass::Open(EnvKind::Inline, ""),
        "otherlanguage" | "spacing" | "hyphenrules" | "selectlanguage" | "color" => {
            EnvClass::Open(EnvKind::Inline, "m")
        }
        "minipage" => EnvClass::Open(EnvKind::Block, "ooom"),
        "multicols" => EnvClass::Open(EnvKind::Block, "mo"),
        "adjustbox" | "column" => EnvClass::Open(EnvKind::Block, "om"),
        "frame" => EnvClass::Open(EnvKind::Block, "oogg"),
        // A package's own code display: PGF's `codeexample`, `latexcode`, `examplecode`,
        // `myverbatim`.
        _ if shows_code(base) => EnvClass::Verbatim { silent: false },
        _ => UNKNOWN_ENV,
    }
}

/// Whether an environment's name says it shows code: it contains "code" or "verbatim", in any
/// case.
fn shows_code(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("code") || lower.contains("verbatim") || lower.contains("listing")
}

/// An environment [`classify_env`] does not know: a block of prose, after an optional argument
/// (or the arguments the document defined it with).
const UNKNOWN_ENV: EnvClass = EnvClass::Open(EnvKind::Block, "o");

/// What a named command does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    /// Skip the arguments in the spec; leave nothing.
    Drop(&'static str),
    /// Skip the arguments in the spec; read as a space.
    Space(&'static str),
    /// Skip the arguments in the spec, then keep what follows (the braced text argument).
    Keep(&'static str),
    /// Skip the arguments in the spec; read as this synthetic text.
    Text(&'static str, &'static str),
    /// An accent taking one argument.
    Accent(char),
    /// Ends the paragraph.
    Par,
    /// A sectioning command of this depth (1 = part).
    Heading(u8),
}

/// Argument specs: `s` optional star, `o` optional `[…]` on the same line, `m` mandatory
/// argument that cannot span a blank line, `M` mandatory argument that can (`\long`), `r`
/// mandatory argument read raw (URLs), `g` optional braced group right after. Names are
/// separated by whitespace.
const ACTIONS: &[(&str, Action)] = {
    use Action::*;
    &[
        ("part addpart", Heading(1)),
        ("chapter addchap", Heading(2)),
        ("section addsec", Heading(3)),
        // PARI's manuals (plain TeX) write `\subsec{Title}` and `\subsectitle{Title}`.
        ("subsection subsec subsectitle", Heading(4)),
        ("subsubsection subsubsec", Heading(5)),
        ("paragraph", Heading(6)),
        ("subparagraph", Heading(7)),
        ("par newpage clearpage cleardoublepage", Par),
        // References and citations.
        (
            "cite citep citet citealp citealt citeauthor citeyear citeyearpar citenum Cite \
             Citep Citet Citealp Citealt Citeauthor parencite Parencite textcite Textcite \
             autocite Autocite smartcite supercite fullcite citetitle cites parencites \
             textcites autocites",
            Text("[1]", "soom"),
        ),
        (
            "ref pageref nameref Nameref labelcref cpageref Cpageref",
            Text("1", "sm"),
        ),
        ("eqref", Text("(1)", "m")),
        (
            "cref Cref crefrange Crefrange autoref Autoref vref Vref fref Fref zcref",
            Text("§1", "sm"),
        ),
        // Asides.
        (
            "footnote footnotetext marginpar marginnote todo thanks titlenote sidenote endnote",
            Drop("oM"),
        ),
        ("footcite footcitetext footfullcite", Drop("soom")),
        ("footnotemark printbibliography", Drop("o")),
        // Markup without prose.
        (
            "label index glossary nocite input include includeonly bibliography \
             bibliographystyle pagestyle thispagestyle pagenumbering graphicspath hypersetup \
             geometry date stepcounter refstepcounter hyphenation selectlanguage addvspace \
             enlargethispage DeclareGraphicsExtensions lstset setminted usetikzlibrary \
             tikzset pgfplotsset sisetup setmainfont setsansfont setmonofont newlength vspace",
            Drop("sm"),
        ),
        ("includegraphics", Drop("soom")),
        ("addcontentsline definecolor", Drop("mmm")),
        (
            "addtocontents setcounter addtocounter setlength addtolength settowidth \
             settoheight settodepth newfontfamily",
            Drop("mm"),
        ),
        (
            "newcommand renewcommand providecommand DeclareRobustCommand",
            Drop("smooM"),
        ),
        ("newenvironment renewenvironment", Drop("smooMM")),
        ("newtheorem", Drop("smomo")),
        ("theoremstyle newcounter", Drop("mo")),
        ("DeclareMathOperator", Drop("smm")),
        (
            "usepackage RequirePackage documentclass addbibresource",
            Drop("omo"),
        ),
        ("title author caption subtitle institute", Drop("oM")),
        // Front matter of journal and documentation classes.
        (
            "address email keywords affiliation affil curraddr urladdr dedicatory subjclass \
             orcid titlerunning authorrunning shorttitle shortauthors",
            Drop("oM"),
        ),
        ("moduleauthor sectionauthor codeauthor", Drop("mm")),
        // The LaTeX team's guides date a change in the margin.
        ("NEWfeature NEWdescription", Drop("m")),
        (
            "MakeShortVerb DefineShortVerb DeleteShortVerb UndefineShortVerb",
            Drop("som"),
        ),
        ("bibitem", Drop("om")),
        ("captionof", Drop("smoM")),
        ("color", Drop("om")),
        ("linebreak nolinebreak pagebreak nopagebreak", Drop("o")),
        (
            "maketitle tableofcontents listoffigures listoftables appendix noindent indent \
             centering raggedright raggedleft bigskip medskip smallskip makeatletter \
             makeatother frontmatter mainmatter backmatter phantomsection protect relax and \
             xspace null leavevmode sloppy fussy normalfont vfill vfil hline centerline \
             clearfield @ ifx else fi bgroup egroup begingroup endgroup",
            Drop(""),
        ),
        // Spaces.
        ("hspace", Space("sm")),
        (
            "newline hfill hfil quad qquad enspace enskip thinspace space nobreakspace \
             medspace thickspace",
            Space(""),
        ),
        // Text with leading arguments to drop.
        (
            "textcolor colorbox foreignlanguage hypertarget rotatebox",
            Keep("om"),
        ),
        ("fcolorbox multicolumn", Keep("mm")),
        ("href", Keep("r")),
        ("hyperref makebox framebox", Keep("oo")),
        ("parbox", Keep("ooom")),
        ("raisebox", Keep("moo")),
        ("resizebox", Keep("smm")),
        ("scalebox", Keep("mo")),
        ("multirow", Keep("omo")),
        // Symbols.
        ("LaTeX", Text("LaTeX", "")),
        ("LaTeXe", Text("LaTeX2e", "")),
        ("TeX", Text("TeX", "")),
        ("BibTeX", Text("BibTeX", "")),
        ("XeTeX", Text("XeTeX", "")),
        ("LuaTeX", Text("LuaTeX", "")),
        ("ldots dots textellipsis dotsc", Text("…", "")),
        ("textendash", Text("–", "")),
        ("textemdash", Text("—", "")),
        ("textbackslash", Text("\\", "")),
        ("textbar", Text("|", "")),
        ("textless", Text("<", "")),
        ("textgreater", Text(">", "")),
        ("textasciitilde", Text("~", "")),
        ("textasciicircum", Text("^", "")),
        ("textunderscore", Text("_", "")),
        ("textquoteleft", Text("‘", "")),
        ("textquoteright", Text("’", "")),
        ("textquotedblleft", Text("“", "")),
        ("textquotedblright", Text("”", "")),
        ("textquotedbl", Text("\"", "")),
        ("guillemotleft guillemetleft", Text("«", "")),
        ("guillemotright guillemetright", Text("»", "")),
        ("S textsection", Text("§", "")),
        ("P textparagraph", Text("¶", "")),
        ("copyright textcopyright", Text("©", "")),
        ("textregistered", Text("®", "")),
        ("texttrademark", Text("™", "")),
        ("textdegree", Text("°", "")),
        ("pounds textsterling", Text("£", "")),
        ("euro texteuro", Text("€", "")),
        ("textdollar", Text("$", "")),
        ("dag textdagger", Text("†", "")),
        ("ddag textdaggerdbl", Text("‡", "")),
        ("textbullet", Text("•", "")),
        ("ss", Text("ß", "")),
        ("ae", Text("æ", "")),
        ("AE", Text("Æ", "")),
        ("oe", Text("œ", "")),
        ("OE", Text("Œ", "")),
        ("o", Text("ø", "")),
        ("O", Text("Ø", "")),
        ("aa", Text("å", "")),
        ("AA", Text("Å", "")),
        ("l", Text("ł", "")),
        ("L", Text("Ł", "")),
        ("i", Text("ı", "")),
        ("j", Text("ȷ", "")),
        // Accents named by a letter.
        ("u", Accent('u')),
        ("v", Accent('v')),
        ("H", Accent('H')),
        ("c", Accent('c')),
        ("k", Accent('k')),
        ("r", Accent('r')),
        ("d", Accent('d')),
        ("b", Accent('b')),
        ("t", Accent('t')),
    ]
};

/// What the command `\name` does, if it is a known one.
fn action(name: &str) -> Option<Action> {
    static INDEX: OnceLock<HashMap<&'static str, Action>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let mut map = HashMap::new();
            for (names, action) in ACTIONS {
                for name in names.split_whitespace() {
                    map.entry(name).or_insert(*action);
                }
            }
            map
        })
        .get(name)
        .copied()
}

/// The precomposed character for `base` under the accent `accent`, if there is a common one.
fn compose(accent: char, base: char) -> Option<char> {
    let (bases, composed) = match accent {
        '\'' => ("aeiouyAEIOUYcCnNsSzZlLrR", "áéíóúýÁÉÍÓÚÝćĆńŃśŚźŹĺĹŕŔ"),
        '`' => ("aeiouAEIOU", "àèìòùÀÈÌÒÙ"),
        '^' => ("aeiouAEIOUcCgGhHjJsSwWyY", "âêîôûÂÊÎÔÛĉĈĝĜĥĤĵĴŝŜŵŴŷŶ"),
        '"' => ("aeiouyAEIOUY", "äëïöüÿÄËÏÖÜŸ"),
        '~' => ("anoANOiuIU", "ãñõÃÑÕĩũĨŨ"),
        '=' => ("aeiouAEIOU", "āēīōūĀĒĪŌŪ"),
        '.' => ("zZcCeEgGI", "żŻċĊėĖġĠİ"),
        'u' => ("aAgGuUeEiIoO", "ăĂğĞŭŬĕĔĭĬŏŎ"),
        'v' => ("cCsSzZeErRnNdDtTlL", "čČšŠžŽěĚřŘňŇďĎťŤľĽ"),
        'H' => ("oOuU", "őŐűŰ"),
        'c' => ("cCsStTgGkKlLnNrR", "çÇşŞţŢģĢķĶļĻņŅŗŖ"),
        'k' => ("aAeEiIuU", "ąĄęĘįĮųŲ"),
        'r' => ("aAuU", "åÅůŮ"),
        _ => return None,
    };
    let i = bases.chars().position(|c| c == base)?;
    composed.chars().nth(i)
}

/// The combining mark for an accent command.
fn combining(accent: char) -> Option<char> {
    Some(match accent {
        '\'' => '\u{301}',
        '`' => '\u{300}',
        '^' => '\u{302}',
        '"' => '\u{308}',
        '~' => '\u{303}',
        '=' => '\u{304}',
        '.' => '\u{307}',
        'u' => '\u{306}',
        'v' => '\u{30C}',
        'H' => '\u{30B}',
        'c' => '\u{327}',
        'k' => '\u{328}',
        'r' => '\u{30A}',
        'd' => '\u{323}',
        'b' => '\u{331}',
        't' => '\u{361}',
        _ => return None,
    })
}

/// Whether inline math is a plain token worth keeping verbatim: a word or a number.
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

/// The punctuation that ends a piece of display math, ignoring `\\`, `\label{…}` and the like.
fn trailing_punct(math: &str) -> Option<char> {
    let mut s = math.trim_end();
    loop {
        let before = s.len();
        for suffix in [
            "\\\\",
            "\\nonumber",
            "\\notag",
            "\\qedhere",
            "\\,",
            "\\;",
            "\\!",
            "\\quad",
            "\\qquad",
        ] {
            if let Some(r) = s.strip_suffix(suffix) {
                s = r.trim_end();
            }
        }
        if s.ends_with('}') {
            if let Some(i) = s.rfind("\\label{") {
                let rest = s.get(i..).unwrap_or("");
                if rest.matches('}').count() == 1 {
                    s = s.get(..i).unwrap_or("").trim_end();
                }
            }
        }
        if s.len() == before {
            break;
        }
    }
    s.chars()
        .next_back()
        .filter(|c| matches!(c, '.' | ',' | ';' | ':' | '!' | '?'))
}

/// A parsed argument: content range and the position after the argument.
#[derive(Debug, Clone, Copy)]
struct Arg {
    start: usize,
    end: usize,
    after: usize,
}

struct Parser<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    end: usize,
    /// Nesting depth of sub-parsers (titles, labels).
    depth: usize,
    /// Reading a title or label: no blocks, paragraph breaks read as spaces.
    title: bool,
    w: Writer<'a>,
    /// Where the `\item` that opened the current block starts.
    item_start: Option<usize>,
    out: Vec<Block>,
    envs: Vec<Env<'a>>,
    /// Text that goes on right after a list or quote attaches to it.
    attach_after: bool,
    /// Only whitespace (or whole comment lines) since the last line end.
    line_start: bool,
    /// Searches that found nothing, as (what was sought, from, where the search stopped): a later
    /// search for the same thing from inside that range fails too. Keeps hostile input (a
    /// thousand `\(` without `\)`) linear.
    misses: RefCell<Vec<(Seek, usize, usize)>>,
    /// Commands the document defines as sectioning commands, with their depth.
    user_headings: HashMap<String, u8>,
    /// Characters the document made short verbatim delimiters (`|\section|`).
    short_verbs: ShortVerbs,
    /// Environments the document defines with arguments, with their argument specs.
    user_envs: HashMap<String, String>,
    /// Commands the document defines as a few words, with their text (shared with the
    /// sub-parsers of titles).
    user_words: Rc<HashMap<String, String>>,
}

/// What a forward search looks for, for [`Parser::misses`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seek {
    /// A closing pattern (`$`, `$$`, `\)`, `\]`).
    Closer(&'static [u8]),
    /// The `]` of an optional argument.
    Bracket,
    /// The closing delimiter of `\verb`.
    Delimiter(char),
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, pos: usize, end: usize, depth: usize, title: bool) -> Self {
        Parser {
            src,
            b: src.as_bytes(),
            pos,
            end: end.min(src.len()),
            depth,
            title,
            w: Writer::new(src),
            item_start: None,
            out: Vec::new(),
            envs: Vec::new(),
            attach_after: false,
            line_start: false,
            misses: RefCell::new(Vec::new()),
            user_headings: HashMap::new(),
            short_verbs: ShortVerbs::default(),
            user_envs: HashMap::new(),
            user_words: Rc::default(),
        }
    }

    /// Whether a search for `seek` from `from` is known to fail.
    fn known_miss(&self, seek: Seek, from: usize) -> bool {
        self.misses
            .borrow()
            .iter()
            .any(|&(k, a, b)| k == seek && a <= from && from < b)
    }

    /// Records that a search for `seek` from `from` failed at `stop`.
    fn miss(&self, seek: Seek, from: usize, stop: usize) {
        let mut misses = self.misses.borrow_mut();
        match misses.iter_mut().find(|(k, _, _)| *k == seek) {
            Some(m) => *m = (seek, from, stop.max(from + 1)),
            None => misses.push((seek, from, stop.max(from + 1))),
        }
    }

    fn byte(&self, i: usize) -> Option<u8> {
        if i < self.end {
            self.b.get(i).copied()
        } else {
            None
        }
    }

    fn slice(&self, start: usize, end: usize) -> &'a str {
        self.src.get(start..end).unwrap_or("")
    }

    fn starts_with(&self, i: usize, pat: &[u8]) -> bool {
        self.b
            .get(i..self.end)
            .is_some_and(|rest| rest.starts_with(pat))
    }

    /// Length of the character at `i` (1 when `i` is not on a character).
    fn char_len(&self, i: usize) -> usize {
        self.src
            .get(i..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8)
    }

    fn run(&mut self) {
        while let Some(c) = self.byte(self.pos) {
            let start = self.pos;
            match c {
                b'\n' | b'\r' => self.newline(),
                b'%' => self.comment(),
                b' ' | b'\t' if self.line_start => self.pos += 1,
                _ => {
                    self.line_start = false;
                    self.token(c);
                }
            }
            if self.pos <= start {
                // Never loop in place, whatever the input.
                self.pos = start + self.char_len(start);
            }
        }
    }

    fn token(&mut self, c: u8) {
        let start = self.pos;
        match c {
            _ if self.short_verbs.active(c, start) => self.delimited_code(start),
            b'\\' => self.command(),
            b'{' => {
                self.w.open(start);
                self.pos += 1;
            }
            b'}' => {
                self.w.close(Span::new(start, start + 1));
                self.pos += 1;
            }
            b'$' => self.dollar(),
            b'~' | b'&' => {
                self.w.space(Span::new(start, start + 1));
                self.pos += 1;
            }
            b'^' | b'_' | b'#' => {
                self.w.close(Span::new(start, start + 1));
                self.pos += 1;
            }
            b'`' => {
                let (text, len) = if self.byte(start + 1) == Some(b'`') {
                    ("“", 2)
                } else {
                    ("‘", 1)
                };
                self.w.synthetic(text, Span::new(start, start + len));
                self.pos += len;
            }
            b'\'' if self.byte(start + 1) == Some(b'\'') => {
                self.w.synthetic("”", Span::new(start, start + 2));
                self.pos += 2;
            }
            _ => self.text_run(),
        }
    }

    /// A run of plain text up to the next special byte.
    fn text_run(&mut self) {
        let start = self.pos;
        let mut i = start + self.char_len(start);
        while let Some(c) = self.byte(i) {
            if is_special(c) || self.short_verbs.active(c, i) {
                break;
            }
            i += 1;
        }
        self.pos = i.min(self.end);
        self.push_text(start, self.pos);
    }

    /// Pushes source text, turning whitespace at its ends into spaces.
    fn push_text(&mut self, start: usize, end: usize) {
        let s = self.slice(start, end);
        let trimmed = s.trim_start_matches([' ', '\t']);
        let lead = s.len() - trimmed.len();
        let inner = trimmed.trim_end_matches([' ', '\t']);
        let (a, b) = (start + lead, start + lead + inner.len());
        if lead > 0 {
            self.w.space(Span::new(start, a));
        }
        self.w.source(Span::new(a, b));
        if b < end {
            self.w.space(Span::new(b, end));
        }
    }

    fn newline(&mut self) {
        let start = self.pos;
        let len = newline_len(self.b, start).max(1);
        self.pos = start + len;
        if self.line_start {
            self.par(Span::new(start, self.pos));
        } else {
            self.w.space(Span::new(start, self.pos));
        }
        self.line_start = true;
    }

    fn comment(&mut self) {
        let start = self.pos;
        let eol = line_end(self.b, start, self.end);
        let text = self.slice(start + 1, eol);
        if self.line_start && !self.title && text.trim_start().starts_with(DISABLE_NEXT) {
            self.flush();
            self.attach_after = false;
            self.out.push(Block::DisableNext {
                span: Span::new(start, eol),
            });
        }
        let nl = newline_len(self.b, eol);
        self.pos = (eol + nl).min(self.end);
        if nl > 0 {
            self.line_start = true;
        }
    }

    /// Ends the paragraph (a space inside titles).
    fn par(&mut self, at: Span) {
        if self.title {
            self.w.space(at);
        } else {
            self.flush();
            self.attach_after = false;
        }
    }

    fn attached(&self) -> bool {
        self.envs.last().is_some_and(|e| e.attached)
    }

    /// Whether the innermost list-or-quote environment is a list.
    fn in_list(&self) -> bool {
        self.envs.last().is_some_and(|e| e.list)
    }

    fn in_description(&self) -> bool {
        self.envs.last().is_some_and(|e| e.description)
    }

    /// Emits the paragraph collected so far, if it holds any prose.
    fn flush(&mut self) {
        if self.title {
            return;
        }
        let w = std::mem::replace(&mut self.w, Writer::new(self.src));
        let item = self.item_start.take();
        let words = w.words;
        let prose = w.finish();
        // A paragraph of placeholders only (a lone `\ref{…}`) is no prose.
        if prose.is_blank() || !words {
            return;
        }
        let text = prose.text();
        let s = text.len() - text.trim_start().len();
        let e = text.trim_end().len();
        let mut span = prose.source_span(s, e);
        if let Some(i) = item {
            span = Span::new(i.min(span.start), span.end);
        }
        let attach = item.is_some() || self.attached() || self.attach_after;
        let in_list = item.is_some() || self.in_list();
        self.out.push(Block::Prose {
            span,
            prose,
            attach,
            item: in_list,
        });
    }

    // --- Scanning helpers -------------------------------------------------------------------

    /// Skips spaces, tabs, single line ends and comment lines before a mandatory argument;
    /// stops before a blank line.
    fn skip_arg_ws(&self, mut i: usize) -> usize {
        let mut line_start = false;
        while let Some(c) = self.byte(i) {
            match c {
                b' ' | b'\t' => i += 1,
                b'\n' | b'\r' => {
                    if line_start {
                        return i;
                    }
                    i += newline_len(self.b, i).max(1);
                    line_start = true;
                }
                b'%' => {
                    let eol = line_end(self.b, i, self.end);
                    i = eol + newline_len(self.b, eol);
                    line_start = true;
                }
                _ => return i,
            }
        }
        i.min(self.end)
    }

    /// Skips spaces and tabs (same line).
    fn skip_spaces(&self, mut i: usize) -> usize {
        while let Some(b' ' | b'\t') = self.byte(i) {
            i += 1;
        }
        i
    }

    /// Matches the group opened by the `{` at `open`. Unterminated groups end at the end of the
    /// range, or for short (`long == false`) groups at the next blank line. `raw` groups see no
    /// comments or escapes.
    fn group(&self, open: usize, long: bool, raw: bool) -> Arg {
        let mut depth = 0usize;
        let mut i = open;
        let mut line_start = false;
        while let Some(c) = self.byte(i) {
            match c {
                b'\\' if !raw => {
                    i += 2;
                    line_start = false;
                    continue;
                }
                b'%' if !raw => {
                    let eol = line_end(self.b, i, self.end);
                    i = eol + newline_len(self.b, eol);
                    line_start = true;
                    continue;
                }
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Arg {
                            start: open + 1,
                            end: i,
                            after: i + 1,
                        };
                    }
                }
                b'\n' | b'\r' => {
                    if line_start && !long {
                        return Arg {
                            start: open + 1,
                            end: i,
                            after: i,
                        };
                    }
                    i += newline_len(self.b, i).max(1);
                    line_start = true;
                    continue;
                }
                b' ' | b'\t' => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
            line_start = false;
            i += 1;
        }
        let end = i.min(self.end).max(open + 1);
        Arg {
            start: (open + 1).min(end),
            end,
            after: end,
        }
    }

    /// An optional `[…]` argument at `i` (after spaces on the same line), if terminated before a
    /// blank line.
    fn opt_arg(&self, i: usize) -> Option<Arg> {
        let open = self.skip_spaces(i);
        if self.byte(open) != Some(b'[') || self.known_miss(Seek::Bracket, open) {
            return None;
        }
        let found = self.scan_bracket(open);
        if let Err(stop) = found {
            self.miss(Seek::Bracket, open, stop);
        }
        found.ok()
    }

    fn scan_bracket(&self, open: usize) -> Result<Arg, usize> {
        let mut depth = 0usize;
        let mut j = open + 1;
        let mut line_start = false;
        while let Some(c) = self.byte(j) {
            match c {
                b'\\' => {
                    j += 2;
                    line_start = false;
                    continue;
                }
                b'%' => {
                    let eol = line_end(self.b, j, self.end);
                    j = eol + newline_len(self.b, eol);
                    line_start = true;
                    continue;
                }
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                b']' if depth == 0 => {
                    return Ok(Arg {
                        start: open + 1,
                        end: j,
                        after: j + 1,
                    })
                }
                b'\n' | b'\r' => {
                    if line_start {
                        return Err(j);
                    }
                    j += newline_len(self.b, j).max(1);
                    line_start = true;
                    continue;
                }
                b' ' | b'\t' => {
                    j += 1;
                    continue;
                }
                _ => {}
            }
            line_start = false;
            j += 1;
        }
        Err(self.end)
    }

    /// A mandatory argument at `i`: a braced group, a control sequence or one character.
    fn req_arg(&self, i: usize, long: bool, raw: bool) -> Option<Arg> {
        let i = self.skip_arg_ws(i);
        match self.byte(i)? {
            b'{' => Some(self.group(i, long, raw)),
            b'}' | b'%' | b'\n' | b'\r' => None,
            b'\\' => {
                let mut j = i + 1;
                while self.byte(j).is_some_and(is_letter) {
                    j += 1;
                }
                if j == i + 1 && j < self.end {
                    j += self.char_len(j);
                }
                let j = j.min(self.end);
                Some(Arg {
                    start: i,
                    end: j,
                    after: j,
                })
            }
            _ => {
                let j = (i + self.char_len(i)).min(self.end);
                Some(Arg {
                    start: i,
                    end: j,
                    after: j,
                })
            }
        }
    }

    /// Skips arguments by spec from `self.pos` (see [`action`]). Stops at the first missing
    /// mandatory argument. Returns the last mandatory argument found.
    fn skip_spec(&mut self, spec: &str) -> Option<Arg> {
        let mut last = None;
        for k in spec.chars() {
            match k {
                's' => {
                    let i = self.skip_spaces(self.pos);
                    if self.byte(i) == Some(b'*') {
                        self.pos = i + 1;
                    }
                }
                'o' => {
                    if let Some(a) = self.opt_arg(self.pos) {
                        self.pos = a.after;
                    }
                }
                'g' => {
                    if self.byte(self.pos) == Some(b'{') {
                        self.pos = self.group(self.pos, false, false).after;
                    }
                }
                _ => {
                    let Some(a) = self.req_arg(self.pos, k == 'M', k == 'r') else {
                        break;
                    };
                    self.pos = a.after;
                    last = Some(a);
                }
            }
        }
        last
    }

    /// Where the environment `name` whose content starts at `from` ends: (content end, after).
    fn env_end(&self, from: usize, name: &str, raw: bool) -> (usize, usize) {
        let close = format!("\\end{{{name}}}");
        if raw {
            return match self.slice(from, self.end).find(&close) {
                Some(k) => (from + k, from + k + close.len()),
                None => (self.end, self.end),
            };
        }
        let open = format!("\\begin{{{name}}}");
        let mut depth = 1usize;
        let mut i = from;
        while let Some(c) = self.byte(i) {
            match c {
                b'%' => i = line_end(self.b, i, self.end),
                b'\\' => {
                    if self.starts_with(i, close.as_bytes()) {
                        depth -= 1;
                        if depth == 0 {
                            return (i, i + close.len());
                        }
                        i += close.len();
                    } else if self.starts_with(i, open.as_bytes()) {
                        depth += 1;
                        i += open.len();
                    } else {
                        i += 2;
                    }
                }
                _ => i += 1,
            }
        }
        (self.end, self.end)
    }

    /// Finds `pat` from `from`, skipping escapes and comments; with `stop_blank`, gives up at a
    /// blank line. Returns the position of `pat`.
    fn find_closer(&self, from: usize, pat: &'static [u8], stop_blank: bool) -> Option<usize> {
        let seek = Seek::Closer(pat);
        if self.known_miss(seek, from) {
            return None;
        }
        let found = self.scan_closer(from, pat, stop_blank);
        if let Err(stop) = found {
            self.miss(seek, from, stop);
        }
        found.ok()
    }

    fn scan_closer(&self, from: usize, pat: &[u8], stop_blank: bool) -> Result<usize, usize> {
        let mut i = from;
        let mut line_start = false;
        while let Some(c) = self.byte(i) {
            match c {
                b'\\' => {
                    if pat.first() == Some(&b'\\') && self.starts_with(i, pat) {
                        return Ok(i);
                    }
                    i += 2;
                }
                b'%' => {
                    let eol = line_end(self.b, i, self.end);
                    i = eol + newline_len(self.b, eol);
                    line_start = true;
                    continue;
                }
                b'\n' | b'\r' => {
                    if stop_blank && line_start {
                        return Err(i);
                    }
                    i += newline_len(self.b, i).max(1);
                    line_start = true;
                    continue;
                }
                b' ' | b'\t' => i += 1,
                _ => {
                    if self.starts_with(i, pat) {
                        return Ok(i);
                    }
                    i += 1;
                }
            }
            line_start = false;
        }
        Err(self.end)
    }

    /// Runs a sub-parser over `[start, end)` in title mode, writing into `w`.
    fn sub(&self, start: usize, end: usize, w: Writer<'a>) -> Writer<'a> {
        if self.depth >= MAX_DEPTH {
            return w;
        }
        let mut p = Parser::new(self.src, start, end.min(self.end), self.depth + 1, true);
        p.user_words = Rc::clone(&self.user_words);
        p.w = w;
        p.run();
        p.w
    }

    // --- Math -------------------------------------------------------------------------------

    fn dollar(&mut self) {
        let start = self.pos;
        if self.byte(start + 1) == Some(b'$') {
            match self.find_closer(start + 2, b"$$", true) {
                Some(c) => self.display_math(Span::new(start, c + 2), start + 2, c),
                None => self.pos = start + 2,
            }
        } else {
            match self.find_closer(start + 1, b"$", true) {
                Some(c) => self.inline_math(start, start + 1, c, c + 1),
                None => self.pos = start + 1,
            }
        }
    }

    fn inline_math(&mut self, start: usize, cs: usize, ce: usize, after: usize) {
        let inner = self.slice(cs, ce);
        let t = inner.trim();
        if is_plain_math(t) {
            let off = cs + (inner.len() - inner.trim_start().len());
            self.w.open(start);
            self.w.source(Span::new(off, off + t.len()));
            self.w.close(Span::new(off + t.len(), after));
        } else {
            self.w.synthetic("x", Span::new(start, after));
        }
        self.pos = after;
    }

    fn display_math(&mut self, span: Span, cs: usize, ce: usize) {
        // After a finished sentence the math belongs to no sentence: leave only a space.
        let orphan = self
            .w
            .last_char()
            .is_some_and(|c| matches!(c, '.' | '!' | '?'));
        if orphan {
            self.w.block(span);
        } else if self.title || !self.w.is_blank() {
            let mut text = String::from("x");
            match trailing_punct(self.slice(cs, ce)) {
                Some(p) => text.push(p),
                // Unpunctuated math followed by a capital letter ends its sentence all the same.
                None if self.next_is_uppercase(span.end) => text.push('.'),
                None => {}
            }
            self.w.space(Span::new(span.start, span.start));
            self.w.synthetic(&text, span);
            self.w.space(Span::new(span.end, span.end));
        }
        self.pos = span.end;
    }

    /// Whether the next text after `i` (past whitespace and comments) starts with a capital.
    fn next_is_uppercase(&self, mut i: usize) -> bool {
        while let Some(c) = self.byte(i) {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'%' => i = line_end(self.b, i, self.end),
                _ => {
                    return self
                        .src
                        .get(i..)
                        .and_then(|s| s.chars().next())
                        .is_some_and(char::is_uppercase)
                }
            }
        }
        false
    }

    // --- Commands ---------------------------------------------------------------------------

    fn command(&mut self) {
        let start = self.pos;
        let Some(next) = self.byte(start + 1) else {
            self.pos = start + 1;
            return;
        };
        if is_letter(next) {
            let mut i = start + 1;
            while self.byte(i).is_some_and(is_letter) {
                i += 1;
            }
            let name = self.slice(start + 1, i);
            self.pos = i;
            self.named(start, name);
        } else {
            self.control_symbol(start, next);
        }
    }

    fn control_symbol(&mut self, start: usize, next: u8) {
        let after = start + 1 + self.char_len(start + 1);
        self.pos = after.min(self.end);
        match next {
            b'\\' => {
                self.skip_spec("so");
                self.w.space(Span::new(start, self.pos));
            }
            b'%' | b'&' | b'$' | b'_' | b'#' | b'{' | b'}' => {
                self.w.open(start);
                self.w.source(Span::new(start + 1, start + 2));
            }
            b' ' | b'\t' | b',' | b';' | b':' | b'>' => self.w.space(Span::new(start, after)),
            b'\n' | b'\r' => {
                self.pos = start + 1 + newline_len(self.b, start + 1);
                self.w.space(Span::new(start, self.pos));
                self.line_start = true;
            }
            b'(' => match self.find_closer(after, b"\\)", true) {
                Some(c) => self.inline_math(start, after, c, c + 2),
                None => self.w.close(Span::new(start, after)),
            },
            b'[' => match self.find_closer(after, b"\\]", false) {
                Some(c) => self.display_math(Span::new(start, c + 2), after, c),
                None => self.w.close(Span::new(start, after)),
            },
            b'\'' | b'`' | b'^' | b'"' | b'~' | b'=' | b'.' => {
                self.accent(start, char::from(next));
            }
            _ => self.w.close(Span::new(start, self.pos)),
        }
    }

    fn accent(&mut self, start: usize, accent: char) {
        let i = self.skip_spaces(self.pos);
        let (content, after) = match self.byte(i) {
            Some(b'{') => {
                let a = self.group(i, false, false);
                (self.slice(a.start, a.end).trim(), a.after)
            }
            Some(b'\\') => match self.req_arg(i, false, false) {
                Some(a) => (self.slice(a.start, a.end), a.after),
                None => ("", self.pos),
            },
            Some(c) if !is_special(c) && !c.is_ascii_whitespace() => {
                let j = i + self.char_len(i);
                (self.slice(i, j), j)
            }
            _ => ("", self.pos),
        };
        let content = match content {
            "\\i" => "i",
            "\\j" => "j",
            c => c,
        };
        // Only letters make it into the text: the synthetic text must hold no space, line end
        // or punctuation that could split a sentence inside it.
        let mut chars = content.chars();
        let mut text = String::new();
        match chars.next() {
            Some(base) if base.is_alphabetic() => {
                match compose(accent, base) {
                    Some(c) => text.push(c),
                    None => {
                        text.push(base);
                        text.extend(combining(accent));
                    }
                }
                // `\t{oo}` puts one accent over two letters.
                let rest = chars.as_str();
                if rest.chars().all(char::is_alphabetic) {
                    text.push_str(rest);
                }
            }
            // `\~{}` and `\^{}` print the bare accent.
            None if matches!(accent, '~' | '^') => text.push(accent),
            _ => {}
        }
        self.pos = after.max(self.pos);
        if text.chars().any(char::is_alphabetic) {
            self.w.words = true;
        }
        self.w.synthetic(&text, Span::new(start, self.pos));
    }

    fn named(&mut self, start: usize, name: &'a str) {
        match name {
            "begin" => return self.begin_env(start),
            "end" => return self.end_env(start),
            "item" => return self.item(start),
            "endinput" => {
                self.pos = self.end;
                return;
            }
            // Plain TeX's `\input tugboat.sty`: the file name runs to the next space.
            "input" => {
                let j = scan::skip_blanks(self.b, self.pos).min(self.end);
                if self.b.get(j) != Some(&b'{') {
                    let name = self.b[j..self.end]
                        .iter()
                        .position(|c| c.is_ascii_whitespace() || matches!(c, b'\\' | b'%' | b'}'))
                        .unwrap_or(self.end - j);
                    self.pos = j + name;
                    self.w.close(Span::new(start, self.pos));
                    return;
                }
            }
            "verb" => return self.verb(start),
            "url" | "nolinkurl" | "path" => {
                if let Some(a) = self.req_arg(self.pos, false, true) {
                    self.pos = a.after;
                    self.w.open(start);
                    self.push_text(a.start, a.end);
                    self.w.close(Span::new(a.end, a.after));
                }
                return;
            }
            "lstinline" | "mintinline" => {
                self.skip_spec(if name == "mintinline" { "om" } else { "o" });
                return self.inline_code(start);
            }
            "texorpdfstring" => {
                if let Some(a) = self.req_arg(self.pos, false, false) {
                    self.pos = a.after;
                    self.w.open(start);
                    let w = std::mem::replace(&mut self.w, Writer::new(self.src));
                    self.w = self.sub(a.start, a.end, w);
                    self.skip_spec("m");
                    self.w.close(Span::new(a.end, self.pos));
                }
                return;
            }
            "ensuremath" => {
                if let Some(a) = self.req_arg(self.pos, false, false) {
                    self.inline_math(start, a.start, a.end, a.after);
                }
                return;
            }
            "def" | "gdef" | "edef" | "xdef" => return self.def(start),
            "let" => {
                self.skip_spec("m");
                let i = self.skip_spaces(self.pos);
                if self.byte(i) == Some(b'=') {
                    self.pos = i + 1;
                }
                self.skip_spec("m");
                self.w.close(Span::new(start, self.pos));
                return;
            }
            _ => {}
        }
        if let Some(&depth) = self.user_headings.get(name) {
            return self.heading(start, depth);
        }
        match action(name) {
            Some(Action::Heading(depth)) => self.heading(start, depth),
            Some(Action::Par) => self.par(Span::new(start, self.pos)),
            Some(Action::Drop(spec)) => {
                self.skip_spec(spec);
                self.w.close(Span::new(start, self.pos));
            }
            Some(Action::Space(spec)) => {
                self.skip_spec(spec);
                self.w.space(Span::new(start, self.pos));
            }
            Some(Action::Keep(spec)) => {
                self.skip_spec(spec);
                self.w.open(start);
            }
            Some(Action::Text(text, spec)) => {
                self.skip_spec(spec);
                let mut chars = text.chars();
                if chars.next().is_some_and(char::is_alphabetic) && chars.next().is_none() {
                    // A letter (`\ss`, `\o`, `\ae`) is part of its word: TeX drops the
                    // spaces after it (`Stra\ss e` reads `Straße`).
                    self.pos = self.skip_spaces(self.pos);
                }
                self.w.synthetic(text, Span::new(start, self.pos));
            }
            Some(Action::Accent(c)) => self.accent(start, c),
            None if self.user_words.contains_key(name) => {
                // A shorthand the document defined for a few words (`\latex`).
                let words = Rc::clone(&self.user_words);
                let text = words.get(name).map_or("", String::as_str);
                self.w.synthetic(text, Span::new(start, self.pos));
            }
            None if self.is_metadata(name) => {
                // Front matter under another name (`\icmlauthor`, `\orcidlink`, a command whose
                // argument is an email address): dropped with its arguments.
                self.skip_groups();
                self.w.close(Span::new(start, self.pos));
            }
            None => {
                // Unknown: drop the name and an immediate optional argument, keep the rest.
                if self.byte(self.pos) == Some(b'[') {
                    if let Some(a) = self.opt_arg(self.pos) {
                        self.pos = a.after;
                    }
                }
                self.w.open(start);
            }
        }
    }

    /// Whether the unknown command `name` carries metadata rather than text: its name says so,
    /// or its first argument is an email address.
    fn is_metadata(&self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        let named = [
            "author", "email", "address", "affil", "institut", "keyword", "orcid",
        ]
        .iter()
        .any(|k| lower.contains(k))
            || ["acm", "icml", "ieeeauthor", "copyright", "doi", "isbn"]
                .iter()
                .any(|k| lower.starts_with(k));
        if named {
            return true;
        }
        let i = self.skip_spaces(self.pos);
        if self.byte(i) != Some(b'{') {
            return false;
        }
        // A short argument only: the test must not rescan long groups.
        let rest = self.slice(i + 1, self.end);
        let Some(close) = rest.char_indices().take(256).find(|(_, c)| *c == '}') else {
            return false;
        };
        let arg = rest.get(..close.0).unwrap_or("");
        arg.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            w.split_once('@')
                .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'))
        })
    }

    /// Skips the braced and bracketed arguments that follow (on the same line).
    fn skip_groups(&mut self) {
        loop {
            let i = self.skip_spaces(self.pos);
            match self.byte(i) {
                Some(b'{') => self.pos = self.group(i, false, false).after,
                Some(b'[') => match self.opt_arg(i) {
                    Some(a) => self.pos = a.after,
                    None => break,
                },
                _ => break,
            }
        }
    }

    fn heading(&mut self, start: usize, depth: u8) {
        self.skip_spec("so");
        if self.title {
            // Inside a title the command is transparent.
            self.w.open(start);
            return;
        }
        let Some(a) = self.req_arg(self.pos, false, false) else {
            return;
        };
        self.pos = a.after;
        self.flush();
        self.attach_after = false;
        let w = self.sub(a.start, a.end, Writer::new(self.src));
        let title = w
            .finish()
            .text()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        self.out.push(Block::Heading {
            span: Span::new(start, a.after),
            title,
            level: depth,
        });
    }

    fn item(&mut self, start: usize) {
        let label = self.opt_arg(self.pos);
        if let Some(a) = label {
            self.pos = a.after;
        }
        if self.title {
            self.w.space(Span::new(start, self.pos));
            return;
        }
        self.flush();
        self.item_start = Some(start);
        if let Some(a) = label.filter(|_| self.in_description()) {
            let w = std::mem::replace(&mut self.w, Writer::new(self.src));
            self.w = self.sub(a.start, a.end, w);
            if self
                .w
                .last_char()
                .is_some_and(|c| !matches!(c, '.' | ':' | ';' | ',' | '!' | '?' | '—' | '–' | '-'))
            {
                self.w.synthetic(":", Span::new(a.end, a.after));
            }
        }
    }

    fn verb(&mut self, start: usize) {
        if self.byte(self.pos) == Some(b'*') {
            self.pos += 1;
        }
        self.delimited_code(start);
    }

    /// `\lstinline`/`\mintinline` content: a braced group or a delimited run.
    fn inline_code(&mut self, start: usize) {
        if self.byte(self.pos) == Some(b'{') {
            let a = self.group(self.pos, false, true);
            self.pos = a.after;
            self.w.open(start);
            self.push_text(a.start, a.end);
            self.w.close(Span::new(a.end, a.after));
        } else {
            self.delimited_code(start);
        }
    }

    /// Verbatim content between two copies of the delimiter at `self.pos`, on one line.
    fn delimited_code(&mut self, start: usize) {
        let Some(d) = self.byte(self.pos) else {
            return;
        };
        if d.is_ascii_alphabetic() || d.is_ascii_whitespace() {
            self.w.close(Span::new(start, self.pos));
            return;
        }
        let dlen = self.char_len(self.pos);
        let from = self.pos + dlen;
        let Some(dch) = self.slice(self.pos, from).chars().next() else {
            return;
        };
        let seek = Seek::Delimiter(dch);
        let found = if self.known_miss(seek, from) {
            None
        } else {
            // The closing delimiter, on the same line.
            let rest = self.slice(from, self.end);
            match rest.find([dch, '\n', '\r']) {
                Some(k) if rest.get(k..).is_some_and(|r| r.starts_with(dch)) => Some(k),
                stop => {
                    self.miss(seek, from, from + stop.unwrap_or(rest.len()));
                    None
                }
            }
        };
        match found {
            Some(k) => {
                let (cs, ce) = (from, from + k);
                self.pos = ce + dlen;
                self.w.open(start);
                self.push_text(cs, ce);
                self.w.close(Span::new(ce, self.pos));
            }
            None => {
                self.pos = from;
                self.w.close(Span::new(start, from));
            }
        }
    }

    /// `\def\name#1{body}`: skipped.
    fn def(&mut self, start: usize) {
        self.skip_spec("m");
        // The parameter text (`#1#2`) is short; give up on the body past a line end or 64 bytes.
        let mut i = self.pos;
        while let Some(c) = self.byte(i) {
            if matches!(c, b'{' | b'\n' | b'\r') || i >= self.pos + 64 {
                break;
            }
            i += 1;
        }
        if self.byte(i) == Some(b'{') {
            self.pos = self.group(i, true, false).after;
        }
        self.w.close(Span::new(start, self.pos));
    }

    // --- Environments -----------------------------------------------------------------------

    fn begin_env(&mut self, start: usize) {
        let Some(a) = self.req_arg(self.pos, false, false) else {
            return;
        };
        let name = self.slice(a.start, a.end).trim();
        self.pos = a.after;
        let class = classify_env(name);
        match class {
            EnvClass::Document => {}
            EnvClass::DisplayMath => {
                let (ce, after) = self.env_end(a.after, name, false);
                self.display_math(Span::new(start, after), a.after, ce);
            }
            EnvClass::InlineMath => {
                let (ce, after) = self.env_end(a.after, name, false);
                self.inline_math(start, a.after, ce, after);
            }
            EnvClass::Verbatim { silent } => {
                let (_, after) = self.env_end(a.after, name, true);
                self.skipped(Span::new(start, after), silent);
            }
            EnvClass::Skip { silent } => {
                let (_, after) = self.env_end(a.after, name, false);
                self.skipped(Span::new(start, after), silent);
            }
            EnvClass::Open(kind, spec) => {
                match self.user_envs.get(name).filter(|_| class == UNKNOWN_ENV) {
                    Some(user) => {
                        let user = user.clone();
                        self.skip_spec(&user);
                    }
                    None => {
                        self.skip_spec(spec);
                    }
                }
                if self.title {
                    self.w.open(start);
                    return;
                }
                match kind {
                    EnvKind::List { .. } | EnvKind::Quote | EnvKind::Block => {
                        self.flush();
                        if kind == EnvKind::Block {
                            self.attach_after = false;
                        }
                    }
                    EnvKind::Inline => self.w.open(start),
                }
                let (attached, description) = match kind {
                    EnvKind::List { description } => (true, description),
                    EnvKind::Quote => (true, self.in_description()),
                    _ => (self.attached(), self.in_description()),
                };
                let list = match kind {
                    EnvKind::List { .. } => true,
                    EnvKind::Quote => false,
                    _ => self.in_list(),
                };
                self.envs.push(Env {
                    name,
                    kind,
                    attached,
                    description,
                    list,
                });
            }
        }
    }

    /// A skipped environment: floats vanish; displayed material breaks or spaces.
    fn skipped(&mut self, span: Span, silent: bool) {
        self.pos = span.end.max(self.pos);
        if silent {
            return;
        }
        if self.title {
            self.w.space(span);
        } else if !self.w.is_blank() {
            self.w.block(span);
        } else {
            self.flush();
            self.attach_after = false;
            self.out.push(Block::Break);
        }
    }

    fn end_env(&mut self, start: usize) {
        let Some(a) = self.req_arg(self.pos, false, false) else {
            return;
        };
        let name = self.slice(a.start, a.end).trim();
        self.pos = a.after;
        if name == "document" {
            self.pos = self.end;
            return;
        }
        if self.title {
            self.w.close(Span::new(start, self.pos));
            return;
        }
        let floor = self.envs.len().saturating_sub(END_SEARCH);
        let found = self
            .envs
            .get(floor..)
            .and_then(|top| top.iter().rposition(|e| e.name == name));
        let Some(idx) = found.map(|i| i + floor) else {
            self.w.close(Span::new(start, self.pos));
            return;
        };
        let kind = self.envs.get(idx).map(|e| e.kind);
        // Flush while the environment is still open, so its last block attaches.
        match kind {
            Some(EnvKind::List { .. } | EnvKind::Quote) => {
                self.flush();
                self.attach_after = true;
            }
            Some(EnvKind::Block) => {
                self.flush();
                self.attach_after = false;
            }
            _ => self.w.close(Span::new(start, self.pos)),
        }
        self.envs.truncate(idx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{parse, Document, Format};
    use proptest::prelude::*;

    fn doc(src: &str) -> Document {
        parse(src, Format::Latex)
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

    #[test]
    fn skips_preamble_and_after_end_document() {
        let src = "\\documentclass{article}\n% \\begin{document} in a comment\n\\usepackage{amsmath}\n\\title{Not prose}\n\\begin{document}\n\\maketitle\nFirst sentence. Second one.\n\\end{document}\nTrailing junk.\n";
        assert_eq!(sentences(src), v(&[&["First sentence.", "Second one."]]));
    }

    #[test]
    fn fragments_without_document_work() {
        let src = "One paragraph here.\n\nAnother one there.\n";
        assert_eq!(
            sentences(src),
            v(&[&["One paragraph here."], &["Another one there."]])
        );
    }

    #[test]
    fn sections_open_sections_with_relative_levels() {
        let src = "Intro text.\n\\section{Intro \\emph{to} it}\\label{sec:a}\nBody one.\n\\subsection*[short]{Deeper\n title}\nBody two.\n\\section{Back}\nBody three.\n";
        let d = doc(src);
        let heads: Vec<(String, u8)> = d
            .sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| (h.title.clone(), h.level)))
            .collect();
        assert_eq!(
            heads,
            vec![
                ("Intro to it".to_string(), 1),
                ("Deeper title".to_string(), 2),
                ("Back".to_string(), 1)
            ]
        );
        assert_eq!(d.sections.len(), 4);
        let h = d.sections[1].heading.as_ref().unwrap();
        assert_eq!(h.span.slice(src), "\\section{Intro \\emph{to} it}");
        assert_eq!(d.sections[1].paragraphs[0].sentences[0].text, "Body one.");
        assert_eq!(d.sections[0].paragraphs[0].sentences[0].text, "Intro text.");
    }

    #[test]
    fn commands_defined_as_a_few_words_read_as_them_in_text_and_titles() {
        // makecookbook-doc.tex: its `\latex` is the subject of a heading and a sentence.
        let src = "\\documentclass{article}\n\\newcommand{\\latex}{\\LaTeX\\xspace}\n\\begin{document}\n\\subsection{The \\latex Community}\nThe \\latex community is amazingly generous. Ask \\latex users.\n\\end{document}\n";
        let d = doc(src);
        let title = d.sections[0].heading.as_ref().map(|h| h.title.clone());
        assert_eq!(title.as_deref(), Some("The LaTeX Community"));
        let texts: Vec<&str> = d.sentences().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "The LaTeX community is amazingly generous.",
                "Ask LaTeX users."
            ]
        );
    }

    #[test]
    fn listings_in_the_body_are_the_document_s_code() {
        let src = "\\documentclass{article}\n\\begin{document}\nType this:\n\\begin{verbatim}\n\\gls{sample} and \\glspl{sample}\n\\end{verbatim}\nIt prints the plural.\n\\end{document}\n";
        let d = crate::text::parse(src, crate::text::Format::Latex);
        assert_eq!(
            d.code,
            vec!["\n\\gls{sample} and \\glspl{sample}\n".to_string()]
        );
    }

    #[test]
    fn commands_defined_as_sectioning_commands_are_headings() {
        // As latex-modguide.tex defines its reason headings.
        let src = "\\documentclass{article}\n\\newcommand{\\reasonsection}[1]{\\subsubsection*{\\it #1}}\n\\def\\topic#1{%\n  \\subsection{#1}}\n\\newcommand{\\intro}{\\section{Introduction}}\n\\newcommand{\\note}[1]{See \\section{x} #1}\n\\begin{document}\n\\section{Reasons}\nWhy we do it.\n\\reasonsection{Separate development considered harmful!}\nIn many fields the language matters.\n\\topic{Names}\nNames are short.\n\\note{kept} Text.\n";
        let d = doc(src);
        let titles: Vec<(String, u8)> = d
            .sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| (h.title.clone(), h.level)))
            .collect();
        assert_eq!(
            titles,
            vec![
                ("Reasons".to_string(), 1),
                ("Separate development considered harmful!".to_string(), 3),
                ("Names".to_string(), 2),
            ]
        );
        let last = d.sections.last().map(|s| {
            s.paragraphs
                .iter()
                .flat_map(|p| p.sentences.iter().map(|s| s.text.clone()))
                .collect::<Vec<_>>()
        });
        assert_eq!(
            last,
            Some(vec![
                "Names are short.".to_string(),
                "kept Text.".to_string()
            ])
        );
    }

    #[test]
    fn pari_subsections_are_headings() {
        // PARI's users' guide, chapter 1 (plain TeX macros of its own).
        let src = "\\section{The PARI types}\nEvery object belongs to one of these basic types.\n\n\\subsec{Integers and reals} They are of arbitrary size.\n\n\\subsectitle{How to report bugs} Bugs are submitted online.\n";
        let titles: Vec<String> = doc(src)
            .sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| h.title.clone()))
            .collect();
        assert_eq!(
            titles,
            vec!["The PARI types", "Integers and reals", "How to report bugs"]
        );
    }

    #[test]
    fn chapters_and_parts_map_to_levels() {
        let src = "\\part{P}\n\\chapter{C}\nText.\n\\section{S}\n\\paragraph{Run-in.} More text.\n";
        let levels: Vec<u8> = doc(src)
            .sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| h.level))
            .collect();
        assert_eq!(levels, vec![1, 2, 3, 6]);
        let book = "\\chapter{C}\nText.\n\\section{S}\nMore.\n";
        let levels: Vec<u8> = doc(book)
            .sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| h.level))
            .collect();
        assert_eq!(levels, vec![1, 2]);
    }

    #[test]
    fn comments_and_escaped_percent() {
        let src = "We gained 50\\% more. % a comment. With a full stop.\nStill the same paragraph.\n% A comment line does not end the paragraph.\nAnd this too.\n\nNew one%\n  joined.\n";
        assert_eq!(
            sentences(src),
            v(&[
                &[
                    "We gained 50% more.",
                    "Still the same paragraph.",
                    "And this too."
                ],
                &["New onejoined."]
            ])
        );
        let srcs = sentence_sources(src);
        assert_eq!(srcs[0], "We gained 50\\% more.");
    }

    #[test]
    fn comment_line_before_blank_line_still_breaks() {
        let src = "First.\n% note\n\nSecond.\n";
        assert_eq!(sentences(src), v(&[&["First."], &["Second."]]));
    }

    #[test]
    fn disable_comment_marks_next_paragraph() {
        let src =
            "One.\n\n% segue-disable-next\nTwo.\n\nThree.\nFour.\n% segue-disable-next\nFive.\n";
        let d = doc(src);
        let flags: Vec<bool> = d.paragraphs().map(|p| p.disabled).collect();
        assert_eq!(flags, vec![false, true, false, true]);
        assert_eq!(
            sentences(src),
            v(&[&["One."], &["Two."], &["Three.", "Four."], &["Five."]])
        );
        // A trailing comment that merely mentions it does not count.
        let src = "One. % segue-disable-next\nTwo.\n";
        assert!(doc(src).paragraphs().all(|p| !p.disabled));
    }

    #[test]
    fn inline_math_keeps_sentences_readable() {
        let src = "Let $n$ be $3.5$ and $\\alpha + \\beta$ be small. Then \\(x^2 > 0\\) holds. It costs \\$5.\n";
        assert_eq!(
            sentences(src),
            v(&[&[
                "Let n be 3.5 and x be small.",
                "Then x holds.",
                "It costs $5."
            ]])
        );
        let srcs = sentence_sources(src);
        assert_eq!(srcs[0], "Let $n$ be $3.5$ and $\\alpha + \\beta$ be small.");
        assert_eq!(srcs[1], "Then \\(x^2 > 0\\) holds.");
        let src = "Start with $\\sum_i x_i$ now.\n";
        assert_eq!(sentence_sources(src), vec![src.trim_end().to_string()]);
    }

    #[test]
    fn display_math_does_not_break_paragraph() {
        let src = "We have\n\\begin{equation}\n  E = mc^2, \\label{eq:e}\n\\end{equation}\nwhere $m$ is mass. Also\n\\[ a = b. \\]\nThen more,\n$$ x $$ and done. See\n\\[ y \\]\n% comment\nThis ends.\n\n\\begin{align*}\na &= b \\\\\nc &= d.\n\\end{align*}\n\nNext para.\n";
        assert_eq!(
            sentences(src),
            v(&[
                &[
                    "We have x, where m is mass.",
                    "Also x.",
                    "Then more, x and done.",
                    "See x.",
                    "This ends."
                ],
                &["Next para."]
            ])
        );
        let srcs = sentence_sources(src);
        assert!(srcs[1].starts_with("Also\n\\[") && srcs[1].ends_with("\\]"));
    }

    #[test]
    fn floats_and_code_are_skipped() {
        let src = "Before the figure.\n\\begin{figure}[t]\n\\centering\n\\includegraphics{x.png}\n\\caption{A caption. With sentences.}\n\\begin{figure}nested\\end{figure}\n\\end{figure}\nAfter the figure.\n\n\\begin{verbatim}\nCode. Here.\n\\end{figure}\n\\end{verbatim}\n\n\\begin{table*}\\begin{tabular}{cc} a & b \\\\ \\end{tabular}\\end{table*}\n\\begin{lstlisting}[language=C]\nint x; // \\end{x}\n\\end{lstlisting}\n\\begin{tikzpicture}\\node{Hi.};\\end{tikzpicture}\n\\begin{comment}\nHidden. Text.\n\\end{comment}\nLast words.\n";
        assert_eq!(
            sentences(src),
            v(&[
                &["Before the figure.", "After the figure."],
                &["Last words."]
            ])
        );
    }

    #[test]
    fn verbatim_alone_breaks_attachment() {
        let src = "Intro:\n\n\\begin{verbatim}\nx\n\\end{verbatim}\n\n\\begin{itemize}\\item One.\\end{itemize}\n";
        let d = doc(src);
        assert_eq!(d.paragraphs().count(), 2);
    }

    #[test]
    fn items_attach_to_previous_paragraph() {
        let src = "Here are options:\n\\begin{itemize}\n  \\item First option.\n  \\item[--] Second option. Really.\n  \\begin{enumerate}\\item Nested.\\end{enumerate}\n\\end{itemize}\nwhich continue.\n\nNew para.\n\n\\begin{description}\n\\item[Speed] fast.\n\\item[\\textbf{Size}.] Small.\n\\end{description}\n";
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
                "Here are options:",
                "First option.",
                "Second option.",
                "Really.",
                "Nested.",
                "which continue."
            ]
        );
        assert!(paras[0].span.slice(src).starts_with("Here are options:"));
        assert!(paras[0].span.slice(src).ends_with("which continue."));
        assert_eq!(
            paras[1]
                .sentences
                .iter()
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>(),
            vec!["New para.", "Speed: fast.", "Size.", "Small."]
        );
        let blocks = blocks(src);
        let item = blocks
            .iter()
            .find_map(|b| match b {
                Block::Prose {
                    span, attach: true, ..
                } => Some(*span),
                _ => None,
            })
            .unwrap();
        assert_eq!(item.slice(src), "\\item First option.");
    }

    #[test]
    fn quotes_attach_and_abstract_is_prose() {
        let src = "\\begin{abstract}\nWe study things.\n\\end{abstract}\nHe said:\n\\begin{quote}\nA quote.\n\\end{quote}\n\n\\begin{theorem}[Main]\nAll is well.\n\\end{theorem}\n";
        assert_eq!(
            sentences(src),
            v(&[
                &["We study things."],
                &["He said:", "A quote."],
                &["All is well."]
            ])
        );
    }

    #[test]
    fn par_splits_paragraphs() {
        let src = "One.\\par Two.\n\\par\nThree.\n";
        assert_eq!(sentences(src), v(&[&["One."], &["Two."], &["Three."]]));
    }

    #[test]
    fn nested_braces_and_commands() {
        let src = "A \\textbf{bold \\emph{and {nested}} text} here.\\footnote{Dropped. Really {dropped}.} See Section~\\ref{sec:x} and \\cite[p.~3]{knuth}. Visit \\href{http://a.b/c%20d}{our site} or \\url{http://x.y/~z_%}. Use \\verb|a{b}| now. \\LaTeX{} is nice\\ldots\n";
        assert_eq!(
            sentences(src),
            v(&[&[
                "A bold and nested text here.",
                "See Section 1 and [1].",
                "Visit our site or http://x.y/~z_%.",
                "Use a{b} now.",
                "LaTeX is nice…"
            ]])
        );
        let srcs = sentence_sources(src);
        assert_eq!(
            srcs[0],
            "A \\textbf{bold \\emph{and {nested}} text} here.\\footnote{Dropped. Really {dropped}.}"
        );
        assert_eq!(srcs[1], "See Section~\\ref{sec:x} and \\cite[p.~3]{knuth}.");
    }

    #[test]
    fn a_whole_document_shown_as_code_is_not_the_body() {
        // PGF's tutorial, a file its manual inputs: an example document inside `codeexample`.
        let src = "\\section{Tutorial}\nKarl sets up his file as follows:\n\
                   \\begin{codeexample}[code only]\n\\documentclass{article}\n\\begin{document}\n\
                   We are working on it.\n\\end{document}\n\\end{codeexample}\n\n\
                   When executed, the result looks like this. Karl is pleased.\n";
        assert_eq!(body_range(src), (0, src.len()));
        assert_eq!(
            sentences(src),
            v(&[
                &["Karl sets up his file as follows:"],
                &[
                    "When executed, the result looks like this.",
                    "Karl is pleased."
                ]
            ])
        );
        // Nor does one that `\verb` names, or one in a verbatim display before the real one.
        let named = "Text that names \\verb+\\begin{document}+ in a sentence.\n";
        assert_eq!(body_range(named), (0, named.len()));
        let shown =
            "\\begin{verbatim}\n\\begin{itemize}\n\\end{verbatim}\n\\begin{document}\nText.\n";
        assert_eq!(body_range(shown).0, shown.find("\nText").unwrap());
        let real = "\\documentclass{article}\n\\begin{document}\nText.\n\\end{document}\n";
        assert_eq!(body_range(real).0, real.find("\nText").unwrap());
        assert!(shows_code("codeexample") && shows_code("LaTeXCode") && shows_code("myverbatim"));
        // tcolorbox's `tcblisting` (checkcites' manual shows a whole document in one).
        assert!(shows_code("tcblisting"));
        let boxed = "\\documentclass{article}\n\\begin{document}\nUse it so:\n\\begin{tcblisting}{}\n\\begin{document}\nHi.\n\\end{document}\n\\end{tcblisting}\nThen run the script. It reports the citations.\n\\end{document}\n";
        assert_eq!(
            sentences(boxed).concat().last().map(String::as_str),
            Some("It reports the citations.")
        );
        assert!(!shows_code("example") && !shows_code("theorem"));
    }

    #[test]
    fn short_verbatim_bars_keep_their_content() {
        // From the LaTeX team's class guide: its class makes `|` a short `\verb`.
        let src = "\\documentclass{ltxguide}\n\\begin{document}\nThe class then redefines \
                   |\\maketitle| to produce the title.\n\\begin{verbatim}\n   \\renewcommand{}\n\
                   \\end{verbatim}\nIt redefines |\\section| and switches off section numbering. \
                   A bar |a}b| and an odd |one.\n";
        assert_eq!(
            sentences(src),
            v(&[&[
                "The class then redefines \\maketitle to produce the title.",
                "It redefines \\section and switches off section numbering.",
                "A bar a}b and an odd one."
            ]])
        );
        assert_eq!(
            sentence_sources(src)[1],
            "It redefines |\\section| and switches off section numbering."
        );
        // Without a declaration a bar is a character like any other.
        assert_eq!(
            sentences("Pipes |a}| and |b| stay.\n"),
            v(&[&["Pipes |a| and |b| stay."]])
        );
        // The TUGboat authors' guide: a short verbatim `|\endinput|` does not end the document.
        let src = "\\input tugboat.sty\n\nWe redefine it as |\\endinput| to stop.\n\n\
                   The rest is read too.\n";
        assert_eq!(
            sentences(src),
            v(&[
                &["We redefine it as \\endinput to stop."],
                &["The rest is read too."]
            ])
        );
        // A braced file name is dropped as before; so is a plain one before a command.
        assert_eq!(
            sentences("\\input{intro}\nText here.\n\\input macros.tex\\relax More text.\n"),
            v(&[&["Text here.", "More text."]])
        );
    }

    #[test]
    fn the_latex_teams_guides_keep_their_apparatus_out_of_the_prose() {
        // A command's syntax box and a margin date (the class guide); an environment the
        // document defines with seven arguments (the encoding guide).
        let src = "\\documentclass{ltxguide}\n\\newenvironment{encodinginfo}[7]%\n  {x}{y}\n\
                   \\begin{document}\n\\NEWdescription{1995/12/01}\n\\LaTeX{} provides this.\n\
                   \\begin{decl}\n|\\NeedsTeXFormat| \\arg{format-name}\n\\end{decl}\n\
                   This command tells \\TeX{} the format.\n\n\\begin{encodinginfo}{OT1}\n\
                   {\\TeX{} text}\n        {Donald Ervin Knuth}\n        {0x00--0x7F}\n\
                   % {0X--'177}\n        {---}\n        {cmr10}\n        {\\cite[p.427]{A}}\n\n\
                   Donald Knuth designed his font encoding.\n\\end{encodinginfo}\n";
        assert_eq!(
            sentences(src),
            v(&[
                &["LaTeX provides this.", "This command tells TeX the format."],
                &["Donald Knuth designed his font encoding."]
            ])
        );
    }

    #[test]
    fn spans_map_to_source() {
        let src = "\\emph{Hello} world. \\textbf{Bye \\textit{now}.}\n\nTwo \\emph{words}\n";
        assert_eq!(
            sentence_sources(src),
            vec![
                "\\emph{Hello} world.",
                "\\textbf{Bye \\textit{now}.}",
                "Two \\emph{words}"
            ]
        );
        let d = doc(src);
        let p: Vec<_> = d.paragraphs().collect();
        assert_eq!(
            p[0].span.slice(src),
            "\\emph{Hello} world. \\textbf{Bye \\textit{now}.}"
        );
        assert_eq!(p[1].span.slice(src), "Two \\emph{words}");
    }

    #[test]
    fn odd_accents_keep_sentences_whole() {
        assert_eq!(
            sentences("See http://x.y/\\~{}me and \\t{oo} \\'{{x}\n}. Done.\n"),
            v(&[&["See http://x.y/~me and o\u{361}o .", "Done."]])
        );
    }

    #[test]
    fn special_characters_and_accents() {
        let src = "Caf\\'e na\\\"{\\i}ve \\v{C}apek \\c c \\'{}x. R\\&D costs \\$1 \\_ \\#2 ``quoted'' -- and---dash. Stra\\ss e \\S 2.\n";
        assert_eq!(
            sentences(src),
            v(&[&[
                "Café naïve Čapek ç x.",
                "R&D costs $1 _ #2 “quoted” -- and---dash.",
                "Straße § 2."
            ]])
        );
    }

    #[test]
    fn front_matter_is_not_prose() {
        // In the body too (some classes set these after `\begin{document}`).
        let src = "\\begin{document}\n\\title{A Title. With words}\n\\author{Jane Doe\\thanks{Funded. By someone.} \\and John Roe}\n\\address{1 Main Street, Town}\n\\email{jane@example.org}\n\\keywords{coherence, prose}\n\\date{\\today}\n\\maketitle\n\\tableofcontents\n\\begin{keywords}\nalpha, beta\n\\end{keywords}\n\nThe first real sentence.\n\\end{document}\n";
        assert_eq!(sentences(src), v(&[&["The first real sentence."]]));
    }

    #[test]
    fn documentation_authors_and_metadata_commands_vanish() {
        // Sphinx's LaTeX and Python-docs style metadata, plus unknown commands that carry it.
        let src = "\\moduleauthor{Guido van Rossum}{guido@python.org}\n\\sectionauthor{Fred L. Drake}{fred@acm.org}\n\\icmlauthor{Ann Author}{inst1}\n\\contact{someone@example.com}\n\nThe module provides tools.\n";
        assert_eq!(sentences(src), v(&[&["The module provides tools."]]));
        // An unknown command with an ordinary argument keeps its text.
        assert_eq!(
            sentences("A \\mymacro{kept word} here.\n"),
            v(&[&["A kept word here."]])
        );
    }

    #[test]
    fn labels_refs_captions_and_index_are_not_prose() {
        let src = "\\label{sec:intro}\n\n\\ref{fig:one}\n\n\\caption{A caption outside a float. It has sentences.}\n\nText\\index{text} with a label\\label{x} and a footnote\\footnote{Skipped. Entirely.} ends.\n\n\\cref{a}, \\eqref{b}\n";
        assert_eq!(
            sentences(src),
            v(&[&["Text with a label and a footnote ends."]])
        );
        assert_eq!(
            sentence_sources(src),
            vec!["Text\\index{text} with a label\\label{x} and a footnote\\footnote{Skipped. Entirely.} ends."]
        );
    }

    #[test]
    fn bibliography_is_skipped() {
        let src = "Last words.\n\n\\bibliographystyle{plain}\n\\bibliography{refs}\n\n\\begin{thebibliography}{9}\n\\bibitem{k} D. Knuth. The Art. 1968.\n\\end{thebibliography}\n\\bibitem{x} A stray entry.\n";
        assert_eq!(sentences(src), v(&[&["Last words."], &["A stray entry."]]));
        // covington.tex: a package's own hanging-indented reference list, without \bibitem.
        let src = "It prints as:\n\\begin{reflist}\nChomsky, Noam.  1965.  Aspects of the theory of syntax.  Cambridge,\nMassachusetts: MIT Press.\n\\end{reflist}\n\nThat is all.\n";
        assert_eq!(sentences(src), v(&[&["It prints as:"], &["That is all."]]));
    }

    #[test]
    fn a_typeset_copy_of_the_listing_before_it_is_not_read() {
        // first-latex-doc.tex: a listing, then what it produces.
        let src = "Add this text.\n\\begin{lstlisting}[style=latex]\nThere are $\\binom{2n+1}{n}$ sequences with $n$ occurrences of\n$-1$, and Raney's lemma tells us that exactly $1/(2n+1)$ of these sequences have all\npartial sums positive.\n\\end{lstlisting} % page 360\nIt produces this output.\n\\begin{center}\n\\begin{minipage}{0.8\\textwidth}\nThere are $\\binom{2n+1}{n}$ sequences with $n$ occurrences of\n$-1$, and Raney's lemma tells us that exactly $1/(2n+1)$ of these sequences have all\npartial sums positive.\n\\end{minipage}\n\\end{center}\n\nThe lemma counts sequences with positive partial sums and more.\n";
        assert_eq!(
            sentences(src),
            v(&[
                &["Add this text.", "It produces this output."],
                &["The lemma counts sequences with positive partial sums and more."]
            ])
        );
    }

    #[test]
    fn description_items_are_list_items() {
        let src = "Terms:\n\\begin{description}\n\\item[Speed] fast.\n\\item[Size] small.\n\\end{description}\n";
        let items: Vec<(String, bool, bool)> = blocks(src)
            .into_iter()
            .filter_map(|b| match b {
                Block::Prose {
                    prose,
                    attach,
                    item,
                    ..
                } => Some((prose.text().trim().to_string(), attach, item)),
                _ => None,
            })
            .collect();
        assert_eq!(
            items,
            vec![
                ("Terms:".to_string(), false, false),
                ("Speed: fast.".to_string(), true, true),
                ("Size: small.".to_string(), true, true)
            ]
        );
    }

    #[test]
    fn unbalanced_input_does_not_panic() {
        for src in [
            "\\begin{itemize}\\item Open list",
            "\\begin{figure} never closed. Text.",
            "\\section{Unclosed title\n\nNext para.",
            "Text {{{ open groups. More.",
            "Closing }}} groups. More.",
            "$ stray dollar. Text.\n\nPara.",
            "\\[ unclosed display",
            "\\verb",
            "\\verb|unterminated",
            "\\",
            "\\'",
            "\\end{itemize} stray end.",
            "\\item[unclosed label",
            "\\href{x",
            "\\begin{document}",
            "\\begin{",
            "\\texorpdfstring{a",
            "é\\é\\\u{301}",
            "% segue-disable-next",
        ] {
            let d = doc(src);
            for s in d.sentences() {
                assert!(src.get(s.span.range()).is_some(), "{src:?}");
            }
        }
        assert_eq!(
            sentences("\\section{Unclosed title\n\nNext para."),
            v(&[&["Next para."]])
        );
        assert_eq!(
            sentences("\\begin{figure} never closed. Text."),
            Vec::<Vec<String>>::new()
        );
        assert_eq!(
            sentences("$ stray dollar. Text.\n\nPara."),
            v(&[&["stray dollar.", "Text."], &["Para."]])
        );
    }

    #[test]
    fn crlf_line_endings() {
        let src = "\\section{Title}\r\nFirst line\r\ncontinues. Done.\r\n\r\nSecond para.\r\n% segue-disable-next\r\nThird.\r\n";
        let d = doc(src);
        assert_eq!(d.sections[0].heading.as_ref().unwrap().title, "Title");
        assert_eq!(
            sentences(src),
            v(&[
                &["First line continues.", "Done."],
                &["Second para."],
                &["Third."]
            ])
        );
        assert_eq!(
            sentence_sources(src),
            vec![
                "First line\r\ncontinues.",
                "Done.",
                "Second para.",
                "Third."
            ]
        );
        let flags: Vec<bool> = d.paragraphs().map(|p| p.disabled).collect();
        assert_eq!(flags, vec![false, false, true]);
    }

    #[test]
    fn definitions_and_setup_commands_vanish() {
        let src = "\\newcommand{\\foo}[1]{Defined. Text #1.}\n\\renewcommand\\bar{x}\n\\def\\baz#1{Body.}\n\\setlength{\\parindent}{0pt}\n\\vspace*{1em}\\noindent Real text \\unknown[opt]{kept} here.\n";
        assert_eq!(sentences(src), v(&[&["Real text kept here."]]));
        assert_eq!(
            sentence_sources(src),
            vec!["Real text \\unknown[opt]{kept} here."]
        );
    }

    fn fixture(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/latex")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Every sentence's source span must hold the plain words of its text.
    fn assert_plausible(src: &str, d: &Document) {
        for s in d.sentences() {
            let slice = s.span.slice(src);
            assert!(!slice.is_empty(), "{:?}", s.text);
            assert!(!s.text.contains('\\'), "{:?}", s.text);
            for word in s.text.split(|c: char| !c.is_ascii_alphabetic()) {
                if word.len() >= 4 {
                    assert!(slice.contains(word), "{word:?} not in {slice:?}");
                }
            }
        }
    }

    #[test]
    fn sample2e_fixture_reads_as_prose() {
        let src = fixture("sample2e.tex");
        let d = doc(&src);
        assert_plausible(&src, &d);
        let heads: Vec<&str> = d
            .sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| h.title.as_str()))
            .collect();
        assert_eq!(heads, vec!["Ordinary Text", "Displayed Text"]);
        let counts: Vec<usize> = d.sections.iter().map(|s| s.paragraphs.len()).collect();
        assert_eq!(counts, vec![1, 12, 2]);
        let texts: Vec<&str> = d.sentences().map(|s| s.text.as_str()).collect();
        assert!(!texts
            .iter()
            .any(|t| t.contains("Lamport") || t.contains("footnote")));
        assert!(texts.contains(&"These characters include the following: $ & % # { and }."));
        assert!(texts.contains(&"This is a short quotation."));
        let footnotes = d
            .sentences()
            .find(|s| s.text == "Footnotes pose no problem.")
            .map(|s| s.span.slice(&src));
        assert_eq!(
            footnotes,
            Some("Footnotes\\footnote{This is an example of a footnote.}\npose no problem.")
        );
        // The quote, the list and the verse belong to the paragraph that introduces them.
        let displayed = &d.sections[2].paragraphs[0];
        assert!(displayed.span.slice(&src).starts_with("Text is displayed"));
        assert!(displayed.span.slice(&src).ends_with("forced to be terse."));
    }

    #[test]
    fn lppl_fixture_reads_as_prose() {
        // No `\begin{document}`: a fragment with macro definitions in a conditional preamble.
        let src = fixture("lppl.tex");
        let d = doc(&src);
        assert_plausible(&src, &d);
        assert!(d.paragraphs().count() > 30);
        let texts: Vec<&str> = d.sentences().map(|s| s.text.as_str()).collect();
        assert!(texts.contains(&"Work: Any work being distributed under this License."));
        assert!(!texts
            .iter()
            .any(|t| t.contains("providecommand") || t.contains("preamblecmds")));
        let first = d.sentences().next().map(|s| s.text.as_str());
        assert_eq!(first, Some("The LaTeX Project Public License"));
    }

    #[test]
    fn large_input_is_fast_enough() {
        let src = fixture("lppl.tex").replace("\\endinput", "").repeat(40);
        let t = std::time::Instant::now();
        let d = doc(&src);
        assert!(d.paragraphs().count() > 30 * 40);
        assert!(t.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn hostile_input_stays_linear() {
        let t = std::time::Instant::now();
        for unit in [
            "w \\( ",
            "w \\[ ",
            "w $$ ",
            "w \\item[ ",
            "w \\verb+ ",
            "w \\verb+a+ ",
            "w \\'{{ ",
            "\\def\\a ",
            "\\begin{itemize}\\item a ",
            "\\begin{a}",
            "\\end{b}",
            "\\texorpdfstring{",
            "\\mymacro{",
            "\\authorx{",
            "{",
            "\\MakeShortVerb{\\|}w |",
            "\\DeleteShortVerb{\\|}\\MakeShortVerb{\\|}|a",
            "\\newenvironment{e}[2]{}{}\\begin{e}{",
        ] {
            let src = unit.repeat(20_000);
            let _ = blocks(&src);
        }
        assert!(t.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn unclosed_environments_nest_in_linear_time() {
        // 60,000 `\begin{x}` never closed, a paragraph in each: asking whether the innermost
        // list-or-quote is a list used to walk the whole stack at every paragraph (a minute
        // here); it is now kept per level.
        let src = "Word \\begin{x} a. ".repeat(60_000);
        let found = blocks(&src);
        let prose = found
            .iter()
            .filter(|b| matches!(b, Block::Prose { .. }))
            .count();
        assert_eq!(prose, 60_001);
    }

    #[test]
    fn action_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for (names, _) in ACTIONS {
            for name in names.split_whitespace() {
                assert!(seen.insert(name), "{name} listed twice");
            }
        }
        assert_eq!(action("cite"), Some(Action::Text("[1]", "soom")));
        assert_eq!(action("footnote"), Some(Action::Drop("oM")));
        assert_eq!(action("emph"), None);
    }

    #[test]
    fn accent_tables_line_up() {
        for a in [
            '\'', '`', '^', '"', '~', '=', '.', 'u', 'v', 'H', 'c', 'k', 'r',
        ] {
            assert!(combining(a).is_some());
        }
        assert_eq!(compose('v', 'z'), Some('ž'));
        assert_eq!(compose('c', 'R'), Some('Ŗ'));
        assert_eq!(compose('\'', 'R'), Some('Ŕ'));
        assert_eq!(compose('^', 'Y'), Some('Ŷ'));
        assert_eq!(compose('.', 'I'), Some('İ'));
    }

    #[test]
    fn trailing_punct_ignores_labels_and_breaks() {
        assert_eq!(trailing_punct("a = b, \\label{x}"), Some(','));
        assert_eq!(trailing_punct("a = b. \\\\ \\nonumber"), Some('.'));
        assert_eq!(trailing_punct("a = b"), None);
    }

    fn latexish() -> impl Strategy<Value = String> {
        let tokens = prop::sample::select(vec![
            "\\",
            "{",
            "}",
            "[",
            "]",
            "$",
            "$$",
            "%",
            "\n",
            "\r\n",
            "\n\n",
            " ",
            "\t",
            "~",
            "&",
            "^",
            "_",
            "#",
            "`",
            "'",
            "``",
            "''",
            "\\\\",
            "\\begin{",
            "\\end{",
            "itemize}",
            "description}",
            "figure}",
            "equation}",
            "verbatim}",
            "quote}",
            "document}",
            "\\begin{document}",
            "\\end{document}",
            "\\item",
            "\\section",
            "\\section*",
            "\\chapter",
            "\\paragraph",
            "\\par",
            "\\(",
            "\\)",
            "\\[",
            "\\]",
            "\\emph",
            "\\cite",
            "\\ref",
            "\\footnote",
            "\\verb|",
            "\\verb",
            "\\url",
            "\\href",
            "\\texorpdfstring",
            "\\ensuremath",
            "\\lstinline",
            "\\def",
            "\\let",
            "\\newcommand",
            "\\'",
            "\\\"",
            "\\v",
            "\\c",
            "\\i",
            "\\%",
            "\\{",
            "\\}",
            "\\endinput",
            "word",
            "Word.",
            ".",
            " x ",
            "é",
            "日本",
            "\u{301}",
            "% segue-disable-next\n",
            "\\ldots",
        ]);
        prop::collection::vec(tokens, 0..48).prop_map(|v| v.concat())
    }

    fn check_spans(src: &str) {
        crate::text::test_support::check_spans(src, Format::Latex);
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_strings(src in "\\PC*") {
            check_spans(&src);
        }

        #[test]
        fn never_panics_on_latexish_strings(src in latexish()) {
            check_spans(&src);
        }
    }
}
