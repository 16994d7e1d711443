//! `--format text`: placeholder.
use super::{CheckReport, Report};
use std::io;
/// Human-readable output.
pub struct TextReport {
    /// Whether to colour the output.
    pub color: bool,
}
impl Report for TextReport {
    fn write(&self, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()> {
        for f in &report.files {
            for l in &f.findings {
                writeln!(out, "{}:{}:{}: {} [{}]", f.path, l.range.start.line + 1, l.range.start.character + 1, l.finding.message, l.finding.code)?;
            }
        }
        Ok(())
    }
}
