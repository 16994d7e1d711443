//! `--format sarif`: a SARIF 2.1.0 log for code-scanning tools (GitHub code scanning, VS Code's
//! SARIF viewer, …).
//!
//! The log has one run. `tool.driver` names Segue, its version and its rules, described from
//! [`crate::score::rules::RULES`]; each finding is a `result` with the later unit as its
//! location, the earlier unit as a related location, and `{score, median, floor, scorer, level,
//! intrusion, novelty}`
//! in its property bag. Files that could not be checked become error notifications of the run's
//! invocation, which is then marked unsuccessful.
//!
//! **Positions.** Lines and columns are 1-based, and columns count UTF-16 code units: that is
//! SARIF's default `columnKind` (`utf16CodeUnits`), stated explicitly on the run, and the same unit
//! LSP and our JSON output use, so a SARIF column is our zero-based `character` plus one. SARIF
//! regions are end-exclusive (`endColumn` is the column just past the unit), like our ranges.
//!
//! **Paths.** `artifactLocation.uri` is the path as given, with forward slashes and percent-encoded
//! where a URI needs it (`docs/my notes.md` → `docs/my%20notes.md`); absolute paths become
//! `file://` URIs. Run Segue from the repository root with relative paths for code scanning.
//!
//! The output validates against the official SARIF 2.1.0 JSON schema (checked by the CLI tests
//! with the copy in `tests/fixtures/sarif/`).

use super::{CheckReport, FileResult, Located, Range, Report};
use crate::config::Severity;
use crate::score::rules::RULES;
use crate::score::Level;
use serde_json::{json, Value};
use std::io;

/// SARIF output.
pub struct SarifReport;

/// The URI of the official SARIF 2.1.0 schema (OASIS, with errata 01).
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// Where Segue lives: the `repository` of the crate's manifest, or the fallback below.
pub const REPOSITORY: &str = non_empty(
    env!("CARGO_PKG_REPOSITORY"),
    "https://github.com/segue-prose/segue",
);

const fn non_empty(value: &'static str, fallback: &'static str) -> &'static str {
    if value.is_empty() {
        fallback
    } else {
        value
    }
}

/// The index of `code` in the driver's `rules`.
fn rule_index(code: &str) -> usize {
    RULES.iter().position(|r| r.code == code).unwrap_or(0)
}

/// The SARIF `level` of a severity (SARIF has no "information" or "hint": both are "note").
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// The report as a SARIF 2.1.0 log.
pub fn to_sarif(report: &CheckReport) -> Value {
    let help_uri = format!("{REPOSITORY}/blob/main/docs/guide.md#rule-codes");
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": r.meaning},
                "helpUri": help_uri,
                "help": {"text": format!("{} Run `segue explain {}` or see {help_uri}: what the rule means, why it fires and how to silence it with a segue-disable-next comment.", r.silence, r.code)},
                "defaultConfiguration": {"level": "warning"},
                "properties": {"tags": ["coherence", "prose"]},
            })
        })
        .collect();
    let results: Vec<Value> = report
        .files
        .iter()
        .flat_map(|f| f.findings.iter().map(move |l| result(f, l)))
        .collect();
    let notifications: Vec<Value> = report
        .files
        .iter()
        .filter_map(|f| {
            let error = f.error.as_ref()?;
            Some(json!({
                "level": "error",
                "message": {"text": format!("{}: {error}", f.path)},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(&f.path)}}}],
            }))
        })
        .collect();
    let version = env!("CARGO_PKG_VERSION");
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "segue",
                "version": version,
                "semanticVersion": version,
                "informationUri": REPOSITORY,
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": notifications.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "columnKind": "utf16CodeUnits",
            "results": results,
            "properties": {"scorer": report.scorer, "tier": report.tier},
        }],
    })
}

fn result(file: &FileResult, l: &Located) -> Value {
    let previous = match l.finding.level {
        Level::Sentence => "the previous sentence",
        Level::Paragraph => "the previous paragraph",
    };
    json!({
        "ruleId": l.finding.code,
        "ruleIndex": rule_index(l.finding.code),
        "level": level(l.severity),
        "message": {"text": l.finding.message},
        "locations": [{"physicalLocation": physical(file, l.range)}],
        "relatedLocations": [{
            "id": 1,
            "physicalLocation": physical(file, l.related),
            "message": {"text": previous},
        }],
        "properties": {
            "score": round4(l.finding.score),
            "median": round4(l.finding.median),
            "floor": round4(l.finding.floor),
            "scorer": l.finding.scorer,
            "level": l.finding.level,
            "intrusion": l.finding.intrusion.map(round4),
            "novelty": l.finding.novelty.map(round4),
        },
    })
}

fn physical(file: &FileResult, range: Range) -> Value {
    // SARIF regions are 1-based; an empty range still needs endColumn ≥ startColumn.
    let (start, end) = (range.start, range.end.max(range.start));
    json!({
        "artifactLocation": {"uri": uri(&file.path)},
        "region": {
            "startLine": start.line as u64 + 1,
            "startColumn": start.character as u64 + 1,
            "endLine": end.line as u64 + 1,
            "endColumn": end.character as u64 + 1,
        },
    })
}

/// A path as a URI reference: forward slashes, no leading `./`, percent-encoded where needed;
/// absolute paths become `file://` URIs.
pub fn uri(path: &str) -> String {
    let slashed = path.replace('\\', "/");
    let trimmed = slashed.trim_start_matches("./");
    let bytes = trimmed.as_bytes();
    let drive =
        bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'/';
    if trimmed.starts_with('/') {
        format!("file://{}", encode(trimmed, false))
    } else if drive {
        format!("file:///{}{}", &trimmed[..2], encode(&trimmed[2..], false))
    } else {
        encode(trimmed, true)
    }
}

/// Percent-encodes everything but unreserved characters, `/` and the sub-delimiters that are
/// harmless in a path; `:` too in a relative reference, where it would read as a scheme.
fn encode(path: &str, relative: bool) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'/'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'@'
            )
            || (b == b':' && !relative);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

impl Report for SarifReport {
    fn write(&self, report: &CheckReport, out: &mut dyn io::Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &to_sarif(report))?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::findings::{WEAK_PARAGRAPH, WEAK_SENTENCE};

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("docs/guide.md"), "docs/guide.md");
        assert_eq!(uri("./docs/guide.md"), "docs/guide.md");
        assert_eq!(uri("docs\\my notes.md"), "docs/my%20notes.md");
        assert_eq!(uri("a:b.md"), "a%3Ab.md");
        assert_eq!(uri("/tmp/x#1.md"), "file:///tmp/x%231.md");
        assert_eq!(uri("C:\\docs\\a.md"), "file:///C:/docs/a.md");
        assert_eq!(uri("café.md"), "caf%C3%A9.md");
    }

    #[test]
    fn severities_map_to_sarif_levels() {
        assert_eq!(level(Severity::Error), "error");
        assert_eq!(level(Severity::Warning), "warning");
        assert_eq!(level(Severity::Information), "note");
        assert_eq!(level(Severity::Hint), "note");
        assert_eq!(rule_index(WEAK_SENTENCE), 0);
        assert_eq!(rule_index(WEAK_PARAGRAPH), 1);
    }

    /// A report built by hand, so the format is checked whatever the scorers flag.
    fn sample_report() -> CheckReport {
        use crate::score::findings::Finding;
        use crate::score::Reason;
        use crate::text::{LineIndex, Span};
        let source = "# T\n\n🚀 One cache. Two caches.\n\nOther text.\n".to_string();
        let index = LineIndex::new(&source);
        let span = |needle: &str| {
            let start = source.find(needle).unwrap_or(0);
            Span::new(start, start + needle.len())
        };
        let located = |level, code, from: Span, to: Span, severity| Located {
            range: Range::of(&index, &source, to),
            related: Range::of(&index, &source, from),
            severity,
            finding: Finding {
                code,
                level,
                from,
                to,
                score: 0.012345,
                median: 0.5,
                floor: 0.1,
                scorer: "tier0",
                reason: Reason::default(),
                intrusion: None,
                novelty: None,
                message: "Weak transition".to_string(),
            },
        };
        CheckReport {
            files: vec![
                FileResult {
                    figures: Vec::new(),
                    path: "docs/a b.md".to_string(),
                    findings: vec![
                        located(
                            Level::Sentence,
                            WEAK_SENTENCE,
                            span("🚀 One cache."),
                            span("Two caches."),
                            Severity::Error,
                        ),
                        located(
                            Level::Paragraph,
                            WEAK_PARAGRAPH,
                            span("🚀 One cache. Two caches."),
                            span("Other text."),
                            Severity::Information,
                        ),
                    ],
                    score: Some(0.4),
                    error: None,
                    detail: None,
                    source,
                },
                FileResult {
                    figures: Vec::new(),
                    path: "gone.md".to_string(),
                    source: String::new(),
                    findings: Vec::new(),
                    score: None,
                    error: Some("cannot read: missing".to_string()),
                    detail: None,
                },
            ],
            scorer: "tier0".to_string(),
            tier: 0,
        }
    }

    #[test]
    fn a_hand_built_report_validates_against_the_schema() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/sarif/sarif-2.1.0-rtm.5.json"
        );
        let schema: Value = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .expect("the SARIF schema fixture is readable JSON");
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("the schema compiles");
        let log = to_sarif(&sample_report());
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{e} at {}", e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}\n{log:#}");

        let run = &log["runs"][0];
        assert_eq!(run["invocations"][0]["executionSuccessful"], false);
        let results = run["results"].as_array().expect("results");
        assert_eq!(results.len(), 2);
        assert_eq!(results[0]["level"], "error");
        assert_eq!(results[0]["ruleIndex"], 0);
        assert_eq!(results[1]["level"], "note");
        assert_eq!(results[1]["ruleIndex"], 1);
        let region = &results[0]["locations"][0]["physicalLocation"]["region"];
        // "🚀 One cache. " is 14 UTF-16 code units (the emoji counts two): column 15, 1-based.
        assert_eq!(region["startLine"], 3);
        assert_eq!(region["startColumn"], 15);
        assert_eq!(region["endColumn"], 26);
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "docs/a%20b.md"
        );
        assert_eq!(
            results[0]["relatedLocations"][0]["physicalLocation"]["region"]["startColumn"],
            1
        );
        assert_eq!(results[0]["properties"]["score"], 0.0123);
    }
}
