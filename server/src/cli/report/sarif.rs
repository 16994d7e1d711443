//! `--format sarif`: placeholder.
use super::{CheckReport, Report};
use std::io;
/// SARIF output.
pub struct SarifReport;
impl Report for SarifReport {
    fn write(&self, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()> {
        super::json::JsonReport.write(report, out)
    }
}
