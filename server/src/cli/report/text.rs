//! `--format text`: human-readable findings with source snippets, like rustc or ruff.
//!
//! ```text
//! docs/sample.md:14:22: warning[weak-sentence-transition]: Weak sentence transition: this sentence shares no …
//!    |
//! 14 | not only in a cache. My grandmother grows prize-winning tomatoes in her greenhouse every summer.
//!    |                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
//!    = note: the previous sentence starts at 13:19; score 0.000, document median 0.520
//!
//! 1 finding in 1 file (scorer tier0, tier 0)
//! ```
//!
//! A unit spanning more lines shows its first two and `...`. Unreadable files are reported as
//! `path: error: …` in their place, and the last line sums up (`No weak transitions in M files.`
//! when there is nothing to report; `--quiet` leaves the summary out, so that a clean check
//! prints nothing).
//!
//! Positions are shown as `line:column`, both 1-based, the column counted in UTF-16 code units as
//! ruff and LSP clients count them. Snippets are cut from the file's own text (`FileResult.source`)
//! on character boundaries, long lines are windowed around the unit, tabs and control characters
//! are made harmless, and no position, however wrong, makes the reporter panic.

use super::{CheckReport, FileResult, Located, Report};
use crate::config::Severity;
use crate::score::Level;
use anstyle::{AnsiColor, Style};
use std::io;

/// Human-readable output.
pub struct TextReport {
    /// Whether to colour the output (ANSI escapes).
    pub color: bool,
    /// Whether to end with the summary line (`--quiet` leaves it out).
    pub summary: bool,
}

/// Most display columns of source text shown on one snippet line.
const MAX_WIDTH: usize = 100;
/// Display columns of context kept before the unit when a long line is windowed.
const LEFT_CONTEXT: usize = 24;
/// Lines of a multi-line unit shown before the ellipsis.
const MAX_LINES: usize = 2;
/// Most characters of a line looked at for one snippet line (zero-width characters take no
/// column, so the width alone does not bound the work).
const MAX_SCAN: usize = 4 * MAX_WIDTH;

impl Report for TextReport {
    fn write(&self, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()> {
        let p = Painter { color: self.color };
        for file in &report.files {
            if let Some(error) = &file.error {
                writeln!(
                    out,
                    "{}: {}: {error}",
                    p.paint(BOLD, &file.path),
                    p.paint(severity_style(Severity::Error), "error")
                )?;
                continue;
            }
            let lines = split_lines(&file.source);
            let mut columns = Columns { last: None };
            for located in &file.findings {
                write_finding(&p, file, &lines, &mut columns, located, out)?;
            }
        }
        if self.summary {
            write_summary(&p, report, out)?;
        }
        Ok(())
    }
}

fn write_finding(
    p: &Painter,
    file: &FileResult,
    lines: &[&str],
    columns: &mut Columns,
    l: &Located,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let start = l.range.start;
    let sev = severity_style(l.severity);
    writeln!(
        out,
        "{}:{}:{}: {}: {}",
        p.paint(BOLD, &file.path),
        start.line as u64 + 1,
        start.character as u64 + 1,
        p.paint(
            sev,
            &format!("{}[{}]", severity_name(l.severity), l.finding.code)
        ),
        p.paint(BOLD, &l.finding.message)
    )?;

    // Gutter wide enough for the largest line number shown.
    let last_shown = (start.line as u64 + MAX_LINES as u64).min(l.range.end.line as u64 + 1);
    let width = last_shown.max(start.line as u64 + 1).to_string().len();
    let pad = " ".repeat(width);
    let bar = p.paint(GUTTER, "|");

    if let Some(first) = lines.get(start.line as usize) {
        writeln!(out, "{pad} {bar}")?;
        // The unit's part of its first line: from its start to its end or the end of the line.
        let n = start.line as usize;
        let from = columns.byte_of(n, first, start.character);
        let to = if l.range.end.line == start.line {
            columns.byte_of(n, first, l.range.end.character).max(from)
        } else {
            first.len()
        };
        let shown = window(first, from, to);
        let number = p.paint(GUTTER, &format!("{:>width$}", start.line as u64 + 1));
        writeln!(out, "{number} {bar} {}", shown.text.trim_end())?;
        let carets = "^".repeat(shown.caret_len.max(1));
        writeln!(
            out,
            "{pad} {bar} {}{}",
            " ".repeat(shown.caret_at),
            p.paint(sev, &carets)
        )?;

        let span_lines = (l.range.end.line as usize).saturating_sub(start.line as usize) + 1;
        for offset in 1..span_lines.min(MAX_LINES) {
            let n = start.line as usize + offset;
            let Some(line) = lines.get(n) else { break };
            let shown = window(line, 0, 0);
            let number = p.paint(GUTTER, &format!("{:>width$}", n + 1));
            writeln!(out, "{number} {bar} {}", shown.text.trim_end())?;
        }
        if span_lines > MAX_LINES {
            writeln!(out, "{}", p.paint(GUTTER, "..."))?;
        }
    }

    let unit = match l.finding.level {
        Level::Sentence => "sentence",
        Level::Paragraph => "paragraph",
    };
    writeln!(
        out,
        "{pad} {} the previous {unit} starts at {}:{}; score {:.3}, document median {:.3}",
        p.paint(BOLD, "= note:"),
        l.related.start.line as u64 + 1,
        l.related.start.character as u64 + 1,
        l.finding.score,
        l.finding.median
    )?;
    writeln!(out)
}

fn write_summary(p: &Painter, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()> {
    let errors = report.error_count();
    let checked = report.files.len() - errors;
    let findings = report.finding_count();
    let mut line = if findings == 0 {
        format!("No weak transitions in {}.", plural(checked, "file"))
    } else {
        format!(
            "{} in {} (scorer {}, tier {})",
            plural(findings, "finding"),
            plural(checked, "file"),
            report.scorer,
            report.tier
        )
    };
    if errors > 0 {
        let sep = if findings == 0 { " " } else { "; " };
        line.push_str(&format!(
            "{sep}{} could not be checked (see above).",
            plural(errors, "file")
        ));
    }
    writeln!(out, "{}", p.paint(BOLD, &line))
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information => "info",
        Severity::Hint => "hint",
    }
}

const BOLD: Style = Style::new().bold();
const GUTTER: Style = Style::new()
    .bold()
    .fg_color(Some(anstyle::Color::Ansi(AnsiColor::Blue)));

fn severity_style(s: Severity) -> Style {
    let colour = match s {
        Severity::Error => AnsiColor::Red,
        Severity::Warning => AnsiColor::Yellow,
        Severity::Information => AnsiColor::Blue,
        Severity::Hint => AnsiColor::Cyan,
    };
    Style::new()
        .bold()
        .fg_color(Some(anstyle::Color::Ansi(colour)))
}

/// Applies styles only when colour is on.
struct Painter {
    color: bool,
}

impl Painter {
    fn paint(&self, style: Style, text: &str) -> String {
        if self.color {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    }
}

/// The lines of `source`, split as [`crate::text::LineIndex`] splits them (`\n`, `\r\n`, lone
/// `\r`), without their terminators.
fn split_lines(source: &str) -> Vec<&str> {
    let bytes = source.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&source[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&source[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    lines.push(&source[start..]);
    lines
}

/// The byte offset in `line` of UTF-16 column `col`: clamped to the line's end, and rounded down
/// to the start of a character when it falls inside a surrogate pair.
#[cfg(test)]
fn byte_of_utf16(line: &str, col: u32) -> usize {
    scan_utf16(line, 0, 0, col).0
}

/// [`byte_of_utf16`] resumed from byte `byte` (a char boundary) at UTF-16 column `units`:
/// the byte offset of column `col` (not before `units`) and the column found there.
fn scan_utf16(line: &str, byte: usize, mut units: u32, col: u32) -> (usize, u32) {
    let rest = line.get(byte..).unwrap_or("");
    for (i, ch) in rest.char_indices() {
        let w = ch.len_utf16() as u32;
        if units + w > col {
            return (byte + i, units);
        }
        units += w;
    }
    (line.len(), units)
}

/// Maps UTF-16 columns to byte offsets, resuming from the last position asked for on the same
/// line: findings come in document order, so a file's snippets cost one pass over each line
/// rather than one per finding.
struct Columns {
    /// The line of the last answer, its byte offset and column.
    last: Option<(usize, usize, u32)>,
}

impl Columns {
    /// The byte offset in `line` (line number `n`) of UTF-16 column `col`, as [`byte_of_utf16`].
    fn byte_of(&mut self, n: usize, line: &str, col: u32) -> usize {
        let (byte, units) = match self.last {
            Some((ln, byte, units)) if ln == n && units <= col && line.is_char_boundary(byte) => {
                (byte, units)
            }
            _ => (0, 0),
        };
        let (byte, units) = scan_utf16(line, byte, units, col);
        self.last = Some((n, byte, units));
        byte
    }
}

/// What a snippet line shows.
struct Shown {
    /// The text to print (tabs expanded, control characters replaced, maybe windowed with `…`).
    text: String,
    /// Display column where the underline starts.
    caret_at: usize,
    /// Display width of the underline.
    caret_len: usize,
}

/// The part of `line` to show so that bytes `from..to` (char boundaries) are visible, with the
/// underline's position in display columns. Lines wider than [`MAX_WIDTH`] are windowed.
///
/// Only the characters near `from` are looked at (at most [`MAX_SCAN`] before it and after the
/// window's start, and the line's first [`MAX_SCAN`] to tell whether it is long), so the cost does
/// not grow with the line: a report of many findings on one huge line stays linear.
fn window(line: &str, from: usize, to: usize) -> Shown {
    let from = floor_char_boundary(line, from);
    // Whether the line is wider than the snippet: its first characters tell.
    let mut total = 0;
    let mut long = false;
    for (n, ch) in line.chars().enumerate() {
        total += display_width(ch);
        if total > MAX_WIDTH || n >= MAX_SCAN {
            long = true;
            break;
        }
    }

    // First byte shown: the line's start, or a little before the unit on long lines (the widest
    // run of characters before `from` that fits in LEFT_CONTEXT columns).
    let mut first = 0;
    if long {
        let before = line.get(..from).unwrap_or("");
        let mut acc = 0;
        let mut start = from;
        let mut reached_start = true;
        for (seen, (i, ch)) in before.char_indices().rev().enumerate() {
            let w = display_width(ch);
            if acc + w > LEFT_CONTEXT || seen >= MAX_SCAN {
                reached_start = false;
                break;
            }
            acc += w;
            start = i;
        }
        if !reached_start {
            first = start;
        }
    }
    let mut text = String::new();
    let mut used = 0;
    if first > 0 {
        text.push('…');
        used += 1;
    }
    let mut caret_at = None;
    let mut caret_len = 0;
    let mut cut = false;
    let rest = line.get(first..).unwrap_or("");
    let mut cells = rest.char_indices().peekable();
    let mut seen = 0;
    while let Some((i, ch)) = cells.next() {
        let byte = first + i;
        let w = display_width(ch);
        let room = if cells.peek().is_some() {
            MAX_WIDTH - 1
        } else {
            MAX_WIDTH
        };
        if used + w > room || seen >= MAX_SCAN {
            cut = true;
            break;
        }
        seen += 1;
        if byte >= from && caret_at.is_none() {
            caret_at = Some(used);
        }
        if byte >= from && byte < to {
            caret_len += w;
        }
        push_display(&mut text, ch);
        used += w;
    }
    if cut {
        text.push('…');
    }
    Shown {
        text,
        caret_at: caret_at.unwrap_or(used),
        caret_len,
    }
}

/// The largest char boundary of `line` at or below `byte`.
fn floor_char_boundary(line: &str, byte: usize) -> usize {
    let mut b = byte.min(line.len());
    while !line.is_char_boundary(b) {
        b -= 1;
    }
    b
}

/// How many terminal columns a character takes once shown by [`push_display`].
fn display_width(ch: char) -> usize {
    match ch {
        '\t' => 4,
        c if c.is_control() => 1,
        c => char_width(c),
    }
}

/// Appends `ch` as shown: tabs expanded to four spaces, control characters replaced.
fn push_display(text: &mut String, ch: char) {
    match ch {
        '\t' => text.push_str("    "),
        c if c.is_control() => text.push('\u{FFFD}'),
        c => text.push(c),
    }
}

/// An approximation of a character's terminal width: 0 for combining marks and joiners, 2 for
/// East Asian wide characters and most emoji, 1 otherwise.
fn char_width(c: char) -> usize {
    match c as u32 {
        0x0300..=0x036F
        | 0x200B..=0x200F
        | 0xFE00..=0xFE0F
        | 0x20D0..=0x20FF
        | 0xE0100..=0xE01EF => 0,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x1FA70..=0x1FAFF
        | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::report::{CheckReport, FileResult, Located, Range};
    use crate::score::findings::{Finding, WEAK_SENTENCE};
    use crate::score::Reason;
    use crate::text::{LineIndex, Position, Span};

    /// A weak-sentence finding with `message`, for the layout tests.
    fn weak_finding(message: &str) -> Finding {
        Finding {
            code: WEAK_SENTENCE,
            level: Level::Sentence,
            from: Span::new(0, 1),
            to: Span::new(1, 2),
            score: 0.0,
            median: 0.5,
            floor: 0.05,
            scorer: "test",
            reason: Reason::default(),
            intrusion: None,
            novelty: None,
            message: message.to_string(),
        }
    }

    #[test]
    fn splits_lines_like_the_line_index() {
        assert_eq!(split_lines("a\r\nb\rc\nd"), vec!["a", "b", "c", "d"]);
        assert_eq!(split_lines("a\n"), vec!["a", ""]);
        assert_eq!(split_lines(""), vec![""]);
    }

    #[test]
    fn utf16_columns_map_to_char_boundaries() {
        let line = "a😀b漢";
        assert_eq!(byte_of_utf16(line, 0), 0);
        assert_eq!(byte_of_utf16(line, 1), 1);
        assert_eq!(byte_of_utf16(line, 2), 1); // inside the surrogate pair
        assert_eq!(byte_of_utf16(line, 3), 5);
        assert_eq!(byte_of_utf16(line, 4), 6);
        assert_eq!(byte_of_utf16(line, 99), line.len());
    }

    #[test]
    fn windows_long_lines_around_the_unit() {
        let line = format!("{} Target sentence here.", "word ".repeat(60));
        let from = line.find("Target").unwrap_or(0);
        let shown = window(&line, from, line.len());
        assert!(shown.text.starts_with('…'));
        assert!(shown.text.chars().count() <= MAX_WIDTH);
        let under: String = shown.text.chars().skip(shown.caret_at).take(6).collect();
        assert_eq!(under, "Target");
        assert_eq!(shown.caret_len, "Target sentence here.".len());
    }

    #[test]
    fn many_findings_on_one_huge_line_stay_linear() {
        // 20,000 sentences on one 240 KB line, each with a finding: every snippet must look at
        // its own part of the line only (this took minutes when each finding walked the line).
        const N: u32 = 20_000;
        const SENTENCE: &str = "Word word. ";
        let source = SENTENCE.repeat(N as usize);
        let len = SENTENCE.len() as u32;
        let at = |character| Position { line: 0, character };
        let findings = (1..N)
            .map(|k| Located {
                finding: weak_finding("weak"),
                severity: Severity::Warning,
                range: Range {
                    start: at(k * len),
                    end: at(k * len + 10),
                },
                related: Range {
                    start: at((k - 1) * len),
                    end: at((k - 1) * len + 10),
                },
            })
            .collect();
        let report = CheckReport {
            files: vec![FileResult {
                figures: Vec::new(),
                path: "long.md".to_string(),
                source,
                findings,
                score: Some(0.5),
                error: None,
                detail: None,
            }],
            scorer: "test".to_string(),
            tier: 0,
        };
        let mut out = Vec::new();
        assert!(TextReport {
            color: false,
            summary: true,
        }
        .write(&report, &mut out)
        .is_ok());
        let text = String::from_utf8(out).unwrap_or_default();
        let from = (N / 2 * len) as usize;
        let header = format!("long.md:1:{}:", from + 1);
        let at_header = text.find(&header).unwrap_or(0);
        let snippet: Vec<&str> = text[at_header..].lines().skip(2).take(2).collect();
        let source = &report.files[0].source;
        let expected = format!(
            "1 | …{}…",
            &source[from - LEFT_CONTEXT..from - LEFT_CONTEXT + 98]
        );
        assert_eq!(snippet[0], expected);
        assert_eq!(
            snippet[1],
            format!("  | {}{}", " ".repeat(25), "^".repeat(10))
        );
    }

    #[test]
    fn wide_characters_shift_the_underline() {
        let line = "漢字 Next.";
        let from = line.find("Next").unwrap_or(0);
        let shown = window(line, from, line.len());
        assert_eq!(shown.caret_at, 5);
        assert_eq!(shown.caret_len, 5);
    }

    #[test]
    fn never_panics_on_wild_positions() {
        let pos = |line, character| Position { line, character };
        let source = "a😀b\r\n漢字\tx\u{1b}[31m\n\nlast";
        let ranges = [
            (pos(0, 2), pos(0, 3)),  // inside the surrogate pair
            (pos(1, 0), pos(3, 99)), // multi-line, past the end of the last line
            (pos(9, 9), pos(12, 0)), // lines that do not exist
            (pos(2, 5), pos(1, 0)),  // end before start
            (pos(0, u32::MAX), pos(u32::MAX, u32::MAX)),
        ];
        for (start, end) in ranges {
            let finding = weak_finding("50% off,\nreally: yes");
            let report = CheckReport {
                files: vec![FileResult {
                    figures: Vec::new(),
                    path: "dir/a b,c.md".to_string(),
                    source: source.to_string(),
                    findings: vec![Located {
                        finding,
                        severity: Severity::Hint,
                        range: Range { start, end },
                        related: Range {
                            start: end,
                            end: start,
                        },
                    }],
                    score: Some(0.5),
                    error: None,
                    detail: None,
                }],
                scorer: "test".to_string(),
                tier: 0,
            };
            for color in [false, true] {
                let mut out = Vec::new();
                let written = TextReport {
                    color,
                    summary: true,
                }
                .write(&report, &mut out);
                assert!(written.is_ok());
                let text = String::from_utf8(out).unwrap_or_default();
                assert!(text.contains("hint[weak-sentence-transition]"));
                assert!(
                    !text.contains("\u{1b}[31m"),
                    "control characters from the source are replaced"
                );
            }
            for reporter in [
                &super::super::sarif::SarifReport as &dyn Report,
                &super::super::github::GithubReport,
            ] {
                let mut out = Vec::new();
                assert!(reporter.write(&report, &mut out).is_ok());
            }
        }
    }

    #[test]
    fn renders_header_snippet_note_and_summary() {
        let source = "# T\n\nThe cache 漢字 holds. Penguins waddle.\n".to_string();
        let index = LineIndex::new(&source);
        let from = Span::new(5, source.find(" Penguins").unwrap_or(0));
        let to_start = source.find("Penguins").unwrap_or(0);
        let to = Span::new(to_start, to_start + "Penguins waddle.".len());
        let finding = Finding {
            code: WEAK_SENTENCE,
            level: Level::Sentence,
            from,
            to,
            score: 0.01,
            median: 0.4,
            floor: 0.1,
            scorer: "tier0",
            reason: Reason::default(),
            intrusion: None,
            novelty: None,
            message: "Weak sentence transition".to_string(),
        };
        let report = CheckReport {
            files: vec![
                FileResult {
                    figures: Vec::new(),
                    path: "a.md".to_string(),
                    findings: vec![Located {
                        range: Range::of(&index, &source, to),
                        related: Range::of(&index, &source, from),
                        severity: Severity::Warning,
                        finding,
                    }],
                    score: Some(0.3),
                    error: None,
                    detail: None,
                    source,
                },
                FileResult {
                    figures: Vec::new(),
                    path: "b.md".to_string(),
                    source: String::new(),
                    findings: Vec::new(),
                    score: None,
                    error: Some("cannot read: gone".to_string()),
                    detail: None,
                },
            ],
            scorer: "tier0".to_string(),
            tier: 0,
        };
        let mut out = Vec::new();
        assert!(TextReport {
            color: false,
            summary: true,
        }
        .write(&report, &mut out)
        .is_ok());
        let expected = "\
a.md:3:21: warning[weak-sentence-transition]: Weak sentence transition
  |
3 | The cache 漢字 holds. Penguins waddle.
  |                       ^^^^^^^^^^^^^^^^
  = note: the previous sentence starts at 3:1; score 0.010, document median 0.400

b.md: error: cannot read: gone
1 finding in 1 file (scorer tier0, tier 0); 1 file could not be checked (see above).
";
        assert_eq!(String::from_utf8(out).unwrap_or_default(), expected);
    }
}
