//! `--format json`: `{"files": [{"path", "findings": [{"code", "severity", "message", "score", "range"}]}]}`.
//!
//! The documented keys are stable; extra keys (`level`, `median`, `related`, …) may be added,
//! never renamed.

use super::{CheckReport, Report};
use serde_json::json;
use std::io;

/// The JSON reporter.
pub struct JsonReport;

/// The report as a JSON value.
pub fn to_json(report: &CheckReport) -> serde_json::Value {
    let files: Vec<serde_json::Value> = report
        .files
        .iter()
        .map(|f| {
            let findings: Vec<serde_json::Value> = f
                .findings
                .iter()
                .map(|l| {
                    json!({
                        "code": l.finding.code,
                        "severity": l.severity,
                        "message": l.finding.message,
                        "score": round4(l.finding.score),
                        "range": l.range,
                        "level": l.finding.level,
                        "median": round4(l.finding.median),
                        "floor": round4(l.finding.floor),
                        "scorer": l.finding.scorer,
                        "shared": l.finding.reason.shared,
                        "related": {"range": l.related},
                        "intrusion": l.finding.intrusion.map(round4),
                        "novelty": l.finding.novelty.map(round4),
                    })
                })
                .collect();
            let mut obj = json!({"path": f.path, "findings": findings});
            if let Some(score) = f.score {
                obj["score"] = json!(round4(score));
            }
            if !f.figures.is_empty() {
                let mut figures = serde_json::Map::new();
                for (level, name, value) in &f.figures {
                    figures.insert(format!("{name}.{}", level.name()), json!(round4(*value)));
                }
                obj["figures"] = serde_json::Value::Object(figures);
            }
            if let Some(err) = &f.error {
                obj["error"] = json!(err);
            }
            obj
        })
        .collect();
    json!({"files": files, "scorer": report.scorer, "tier": report.tier})
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

impl Report for JsonReport {
    fn write(&self, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &to_json(report))?;
        writeln!(out)
    }
}
