//! `--format github`: placeholder.
use super::{CheckReport, Report};
use std::io;
/// GitHub annotations.
pub struct GithubReport;
impl Report for GithubReport {
    fn write(&self, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()> {
        super::json::JsonReport.write(report, out)
    }
}
