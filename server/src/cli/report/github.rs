//! `--format github`: GitHub Actions workflow commands, which the runner turns into annotations
//! on the pull request's diff:
//!
//! ```text
//! ::warning file=docs/sample.md,line=14,col=22,endLine=14,endColumn=97,title=segue(weak-sentence-transition)::Weak sentence transition: …
//! ::error file=notes/scan.md,title=segue::file looks binary (it contains NUL bytes); not checked
//! ```
//!
//! Severity `error` gives `::error`, `warning` gives `::warning`, `information` and `hint` give
//! `::notice`. Lines and columns are 1-based (columns in UTF-16 code units, plus one, as in the
//! SARIF output); `endColumn` is the column just past the unit. GitHub accepts columns only when an
//! annotation starts and ends on the same line, so a unit spanning lines gets `line` and `endLine`
//! only. Messages escape `%`, `\r` and `\n`; property values also escape `:` and `,`, as GitHub's
//! toolkit does.

use super::{CheckReport, Report};
use crate::config::Severity;
use std::io;

/// GitHub annotations.
pub struct GithubReport;

/// The workflow command for a severity.
pub fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "notice",
    }
}

/// Escapes a command's message (`%`, `\r`, `\n`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command's property value (as messages, plus `:` and `,`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

impl Report for GithubReport {
    fn write(&self, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()> {
        for file in &report.files {
            let path = escape_property(&file.path);
            if let Some(error) = &file.error {
                writeln!(
                    out,
                    "::error file={path},title=segue::{}",
                    escape_data(error)
                )?;
                continue;
            }
            for l in &file.findings {
                let (start, end) = (l.range.start, l.range.end.max(l.range.start));
                let mut props = format!("file={path},line={}", start.line as u64 + 1);
                if start.line == end.line {
                    props.push_str(&format!(
                        ",col={},endLine={},endColumn={}",
                        start.character as u64 + 1,
                        end.line as u64 + 1,
                        end.character as u64 + 1
                    ));
                } else {
                    props.push_str(&format!(",endLine={}", end.line as u64 + 1));
                }
                let title = escape_property(&format!("segue({})", l.finding.code));
                writeln!(
                    out,
                    "::{} {props},title={title}::{}",
                    command(l.severity),
                    escape_data(&l.finding.message)
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_toolkit_does() {
        assert_eq!(
            escape_data("50% done\r\nnext: a, b"),
            "50%25 done%0D%0Anext: a, b"
        );
        assert_eq!(escape_property("C:\\a,b%.md"), "C%3A\\a%2Cb%25.md");
        assert_eq!(command(Severity::Hint), "notice");
        assert_eq!(command(Severity::Information), "notice");
        assert_eq!(command(Severity::Error), "error");
    }

    #[test]
    fn writes_one_command_per_finding_and_error() {
        use crate::cli::report::{FileResult, Located, Range};
        use crate::score::findings::{Finding, WEAK_PARAGRAPH, WEAK_SENTENCE};
        use crate::score::{Level, Reason};
        use crate::text::{Position, Span};
        let pos = |line, character| Position { line, character };
        let located = |code, level, range: Range, severity| Located {
            range,
            related: range,
            severity,
            finding: Finding {
                code,
                level,
                from: Span::new(0, 1),
                to: Span::new(1, 2),
                score: 0.0,
                median: 0.5,
                floor: 0.1,
                scorer: "tier0",
                reason: Reason::default(),
                intrusion: None,
                novelty: None,
                message: "100% weak:\nyes".to_string(),
            },
        };
        let report = CheckReport {
            files: vec![
                FileResult {
                    figures: Vec::new(),
                    path: "a,b.md".to_string(),
                    source: String::new(),
                    findings: vec![
                        located(
                            WEAK_SENTENCE,
                            Level::Sentence,
                            Range {
                                start: pos(2, 4),
                                end: pos(2, 9),
                            },
                            Severity::Warning,
                        ),
                        located(
                            WEAK_PARAGRAPH,
                            Level::Paragraph,
                            Range {
                                start: pos(4, 0),
                                end: pos(6, 3),
                            },
                            Severity::Hint,
                        ),
                    ],
                    score: None,
                    error: None,
                    detail: None,
                },
                FileResult {
                    figures: Vec::new(),
                    path: "x.md".to_string(),
                    source: String::new(),
                    findings: Vec::new(),
                    score: None,
                    error: Some("file looks binary".to_string()),
                    detail: None,
                },
            ],
            scorer: "tier0".to_string(),
            tier: 0,
        };
        let mut out = Vec::new();
        assert!(GithubReport.write(&report, &mut out).is_ok());
        let text = String::from_utf8(out).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "::warning file=a%2Cb.md,line=3,col=5,endLine=3,endColumn=10,title=segue(weak-sentence-transition)::100%25 weak:%0Ayes",
                "::notice file=a%2Cb.md,line=5,endLine=7,title=segue(weak-paragraph-transition)::100%25 weak:%0Ayes",
                "::error file=x.md,title=segue::file looks binary",
            ]
        );
    }
}
