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
}
