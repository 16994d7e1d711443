//! Settings shared by the CLI and the language server.
//!
//! Settings come from the user's own `segue.toml` (in the platform config directory), a project's
//! `segue.toml` (the nearest one between the checked path and the project root) and, in the
//! language server, from the editor. All use the same keys; [`Config::resolve_issues`] turns raw
//! key/value pairs into a [`Config`], collecting an [`Issue`] for every unknown key (with the
//! closest valid key) or bad value and keeping the default for it; [`read_settings`] adds the
//! file, line and column. Resolution never fails: the language server shows the issues as
//! warnings, the CLI stops on them ([`Issue::is_error`]). [`sources`] decides what each source
//! may set: the keys that name code or models to load come from the user only.

use crate::text::Format;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How eagerly `segue check` and the language server report findings (the rules' thresholds
/// for each level are in `score::findings`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Sensitivity {
    /// Only the clearest breaks.
    Low,
    /// The default.
    #[default]
    Medium,
    /// More findings, more false alarms.
    High,
}

impl Sensitivity {
    /// Every level, from the strictest to the loosest.
    pub const ALL: [Sensitivity; 3] = [Sensitivity::Low, Sensitivity::Medium, Sensitivity::High];
}

pub mod issue;
pub mod sources;

pub use issue::{Issue, IssueKind, Place};
pub use sources::{find_project_file, repository_root, user_config_file, Origin, USER_ONLY_KEYS};

/// The name of the project settings file.
pub const FILE_NAME: &str = "segue.toml";

/// How findings are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Error.
    Error,
    /// Warning (default).
    #[default]
    Warning,
    /// Information.
    Information,
    /// Hint.
    Hint,
}

/// Which scorers may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TierChoice {
    /// Models when installed, built-in scorers otherwise.
    #[default]
    Auto,
    /// Built-in scorers only.
    Builtin,
    /// Models required.
    Model,
}

/// Where models run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    /// CUDA when available, CPU otherwise.
    #[default]
    Auto,
    /// CPU only.
    Cpu,
    /// CUDA only.
    Cuda,
}

/// Resolved settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    /// Formats that are checked.
    pub formats: Vec<Format>,
    /// How eagerly transitions are flagged.
    pub sensitivity: Sensitivity,
    /// Severity of findings.
    pub severity: Severity,
    /// Which tier of scorers to use.
    pub tier: TierChoice,
    /// Where models run.
    pub device: Device,
    /// Delay in milliseconds after an edit before model work starts (language server).
    pub debounce_ms: u64,
    /// Glob patterns of paths never checked.
    pub ignore: Vec<String>,
    /// The scorer whose findings are reported; `None` picks the best available.
    pub scorer: Option<String>,
    /// Path of the ONNX Runtime library, before `SEGUE_ORT_DYLIB` / `ORT_DYLIB_PATH` / the models
    /// folder.
    pub ort_dylib: Option<PathBuf>,
    /// The models folder, before `SEGUE_MODELS_DIR` and the default locations.
    pub models_dir: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            formats: Format::ALL.to_vec(),
            sensitivity: Sensitivity::Medium,
            severity: Severity::Warning,
            tier: TierChoice::Auto,
            device: Device::Auto,
            debounce_ms: 250,
            ignore: Vec::new(),
            scorer: None,
            ort_dylib: None,
            models_dir: None,
        }
    }
}

/// Every settings key, with its description and default, for docs and editor manifests.
pub const KEYS: &[(&str, &str, &str)] = &[
    ("formats", "Formats to check: any of \"markdown\", \"rst\", \"latex\", \"plain\".", "[\"markdown\", \"rst\", \"latex\", \"plain\"]"),
    ("sensitivity", "How eagerly weak transitions are flagged: \"low\", \"medium\" or \"high\".", "\"medium\""),
    ("severity", "Severity of findings: \"error\", \"warning\", \"information\" or \"hint\".", "\"warning\""),
    ("tier", "Scorers to use: \"auto\" (models when installed), \"0\" (built-in only) or \"1\" (models required).", "\"auto\""),
    ("device", "Where models run: \"auto\", \"cpu\" or \"cuda\".", "\"auto\""),
    ("debounce", "Milliseconds to wait after an edit before model work starts.", "250"),
    ("ignore", "Glob patterns of files never checked.", "[]"),
    ("scorer", "Name of the scorer whose findings are reported (default: the best available).", "none"),
    ("ort_dylib", "Absolute path of the ONNX Runtime library for tier 1 (default: SEGUE_ORT_DYLIB, ORT_DYLIB_PATH, then the models folder). User settings only: a project's settings cannot set it.", "none"),
    ("models_dir", "Absolute path of the tier 1 models folder (default: SEGUE_MODELS_DIR, then the installed models/). User settings only: a project's settings cannot set it.", "none"),
];

/// The settings as a JSON Schema object: one property per key of [`KEYS`], with its type,
/// allowed values, default and description. Editor clients generate (VS Code) or check their
/// settings manifests against this, so the two cannot drift apart; `segue settings --schema`
/// prints it. The [`USER_ONLY_KEYS`] carry `"x-user-only": true`: editors must take them from the
/// user's own settings, never from a workspace's (the VS Code manifest makes them machine-scoped
/// and restricted in untrusted workspaces).
pub fn schema() -> serde_json::Value {
    use serde_json::json;
    let mut props = serde_json::Map::new();
    for (key, description, default) in KEYS {
        let default: serde_json::Value =
            serde_json::from_str(default).unwrap_or(serde_json::Value::Null);
        let mut prop = match *key {
            "formats" => json!({
                "type": "array",
                "items": {"type": "string", "enum": ["markdown", "rst", "latex", "plain"]},
                "uniqueItems": true
            }),
            "sensitivity" => json!({"type": "string", "enum": ["low", "medium", "high"]}),
            "severity" => {
                json!({"type": "string", "enum": ["error", "warning", "information", "hint"]})
            }
            "tier" => json!({"type": "string", "enum": ["auto", "0", "1"]}),
            "device" => json!({"type": "string", "enum": ["auto", "cpu", "cuda"]}),
            "debounce" => json!({"type": "integer", "minimum": 0, "maximum": 60000}),
            "ignore" => json!({"type": "array", "items": {"type": "string"}}),
            "scorer" | "ort_dylib" | "models_dir" => json!({"type": ["string", "null"]}),
            _ => json!({}),
        };
        if let Some(obj) = prop.as_object_mut() {
            obj.insert("default".into(), default);
            obj.insert("description".into(), json!(description));
            if sources::is_user_only(key) {
                obj.insert("x-user-only".into(), json!(true));
            }
        }
        props.insert((*key).to_string(), prop);
    }
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Segue settings (segue.toml keys; editors send them under `segue`)",
        "type": "object",
        "properties": props,
        "additionalProperties": false
    })
}

impl Config {
    /// Resolves raw settings (a JSON object, as editors send them; TOML is converted first).
    /// Returns the settings and one warning per unknown key or bad value (see [`Config::resolve_issues`]).
    pub fn resolve(raw: &serde_json::Value) -> (Config, Vec<String>) {
        let (cfg, issues) = Config::resolve_issues(raw);
        (cfg, issues.iter().map(|i| format!("segue: {i}")).collect())
    }

    /// Resolves raw settings (a JSON object). Returns the settings and one [`Issue`] (without a
    /// file or place) per unknown key or bad value, whose default is kept. Resolution never fails.
    pub fn resolve_issues(raw: &serde_json::Value) -> (Config, Vec<Issue>) {
        let mut cfg = Config::default();
        let mut issues = Vec::new();
        let Some(map) = raw.as_object() else {
            if !raw.is_null() {
                issues.push(Issue::new(IssueKind::NotATable));
            }
            return (cfg, issues);
        };
        for (key, value) in map {
            let bad = |expected: &str| {
                Issue::new(IssueKind::BadValue {
                    key: key.clone(),
                    value: value.to_string(),
                    expected: expected.to_string(),
                })
            };
            match key.as_str() {
                "formats" => match value.as_array().map(|a| {
                    a.iter()
                        .map(|v| v.as_str().and_then(parse_format))
                        .collect::<Option<Vec<_>>>()
                }) {
                    Some(Some(f)) => cfg.formats = f,
                    _ => issues.push(bad("a list of \"markdown\", \"rst\", \"latex\", \"plain\"")),
                },
                "sensitivity" => match value.as_str() {
                    Some("low") => cfg.sensitivity = Sensitivity::Low,
                    Some("medium") => cfg.sensitivity = Sensitivity::Medium,
                    Some("high") => cfg.sensitivity = Sensitivity::High,
                    _ => issues.push(bad("\"low\", \"medium\" or \"high\"")),
                },
                "severity" => match value.as_str() {
                    Some("error") => cfg.severity = Severity::Error,
                    Some("warning") => cfg.severity = Severity::Warning,
                    Some("information" | "info") => cfg.severity = Severity::Information,
                    Some("hint") => cfg.severity = Severity::Hint,
                    _ => issues.push(bad("\"error\", \"warning\", \"information\" or \"hint\"")),
                },
                "tier" => match value
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| value.as_u64().map(|n| n.to_string()))
                    .as_deref()
                    .and_then(parse_tier)
                {
                    Some(t) => cfg.tier = t,
                    None => issues.push(bad("\"auto\", \"0\" or \"1\"")),
                },
                "device" => match value.as_str() {
                    Some("auto") => cfg.device = Device::Auto,
                    Some("cpu") => cfg.device = Device::Cpu,
                    Some("cuda") => cfg.device = Device::Cuda,
                    _ => issues.push(bad("\"auto\", \"cpu\" or \"cuda\"")),
                },
                "debounce" => match value.as_u64().filter(|&ms| ms <= 60_000) {
                    Some(ms) => cfg.debounce_ms = ms,
                    None => issues.push(bad("milliseconds from 0 to 60000")),
                },
                "ignore" => match value.as_array().map(|a| {
                    a.iter()
                        .map(|v| v.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                }) {
                    Some(Some(globs)) => {
                        match globs.iter().find(|g| globset::Glob::new(g).is_err()) {
                            Some(g) => {
                                issues.push(Issue::new(IssueKind::BadGlob { glob: g.clone() }))
                            }
                            None => cfg.ignore = globs,
                        }
                    }
                    _ => issues.push(bad("a list of glob patterns")),
                },
                "scorer" => match value.as_str() {
                    Some(s) => cfg.scorer = Some(s.to_string()),
                    None if value.is_null() => cfg.scorer = None,
                    None => issues.push(bad("a scorer name")),
                },
                "ort_dylib" | "models_dir" => {
                    let path = match value.as_str() {
                        Some(s) if !s.trim().is_empty() => Some(absolute_setting(s).map(Some)),
                        Some(_) => Some(Some(None)),
                        None if value.is_null() => Some(Some(None)),
                        None => None,
                    };
                    match (key.as_str(), path) {
                        (_, Some(None)) => issues.push(bad(
                            "an absolute path, or one starting with `~/`; a relative path would \
                             depend on the folder Segue runs in",
                        )),
                        ("ort_dylib", Some(Some(p))) => cfg.ort_dylib = p,
                        (_, Some(Some(p))) => cfg.models_dir = p,
                        (_, None) => issues.push(bad("a path")),
                    }
                }
                _ => issues.push(Issue::new(IssueKind::UnknownKey {
                    key: key.clone(),
                    suggestion: issue::closest(key, KEYS.iter().map(|(k, _, _)| *k)),
                })),
            }
        }
        (cfg, issues)
    }

    /// Reads and resolves a `segue.toml` written by `origin` (see [`read_settings`]). A file that
    /// cannot be read or parsed gives the defaults and an issue.
    pub fn load(path: &Path, origin: Origin) -> (Config, Vec<Issue>) {
        Config::layered(&[(path.to_path_buf(), origin)])
    }

    /// Reads settings files in order, later ones winning key by key, and resolves the result.
    /// Each file's issues name it and, when known, the line and column.
    pub fn layered(files: &[(PathBuf, Origin)]) -> (Config, Vec<Issue>) {
        let mut merged = serde_json::Map::new();
        let mut issues = Vec::new();
        for (path, origin) in files {
            let (table, i) = read_settings(path, *origin);
            issues.extend(i);
            merged.extend(table);
        }
        let (cfg, _) = Config::resolve(&serde_json::Value::Object(merged));
        (cfg, issues)
    }

    /// Whether `format` is enabled.
    pub fn checks(&self, format: Format) -> bool {
        self.formats.contains(&format)
    }

    /// A matcher for the `ignore` globs (globs that fail to compile were rejected in `resolve`).
    pub fn ignore_matcher(&self) -> globset::GlobSet {
        let mut b = globset::GlobSetBuilder::new();
        for g in &self.ignore {
            if let Ok(glob) = globset::Glob::new(g) {
                b.add(glob);
            }
        }
        b.build().unwrap_or_else(|_| globset::GlobSet::empty())
    }
}

/// Reads a `segue.toml` written by `origin` ([`sources::read_table`]: a project file cannot set
/// the [`USER_ONLY_KEYS`]) and checks its settings ([`Config::resolve_issues`]). Returns the raw
/// settings (to merge with other layers) and every issue, each naming the file and, when known,
/// the line and column of the key (unknown keys) or of the value (bad values).
pub fn read_settings(
    path: &Path,
    origin: Origin,
) -> (serde_json::Map<String, serde_json::Value>, Vec<Issue>) {
    let (table, mut issues) = sources::read_table(path, origin);
    let (_, resolved) = Config::resolve_issues(&serde_json::Value::Object(table.settings.clone()));
    issues.extend(resolved.into_iter().map(|mut issue| {
        let key = match &issue.kind {
            IssueKind::UnknownKey { key, .. } => Some((key.as_str(), false)),
            IssueKind::BadValue { key, .. } => Some((key.as_str(), true)),
            IssueKind::BadGlob { .. } => Some(("ignore", true)),
            _ => None,
        };
        issue.place = key.and_then(|(key, value)| {
            table
                .places
                .get(key)
                .map(|&(k, v)| if value { v } else { k })
        });
        issue.file = Some(path.to_path_buf());
        issue
    }));
    (table.settings, issues)
}

fn parse_format(s: &str) -> Option<Format> {
    match s {
        "markdown" => Some(Format::Markdown),
        "rst" | "restructuredtext" => Some(Format::Rst),
        "latex" => Some(Format::Latex),
        "plain" | "text" => Some(Format::Plain),
        _ => None,
    }
}

/// Parses a tier setting: `auto`, `0`, `1`.
pub fn parse_tier(s: &str) -> Option<TierChoice> {
    match s {
        "auto" => Some(TierChoice::Auto),
        "0" => Some(TierChoice::Builtin),
        "1" => Some(TierChoice::Model),
        _ => None,
    }
}

/// A path setting as given, if it is absolute or starts with `~/` (expanded to the home folder).
/// A relative path would resolve against the process's working folder, which for a language
/// server is whatever folder the editor opened, so it is refused.
fn absolute_setting(s: &str) -> Option<PathBuf> {
    let s = s.trim();
    let path = match s.strip_prefix("~/").or_else(|| s.strip_prefix("~\\")) {
        Some(rest) => sources::home_dir()?.join(rest),
        None => PathBuf::from(s),
    };
    path.is_absolute().then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_known_keys_and_warns_on_the_rest() {
        let (cfg, warnings) = Config::resolve(&json!({
            "sensitivity": "high", "tier": 0, "debounce": 100, "formats": ["markdown"],
            "colour": "red", "severity": "loud", "ignore": ["drafts/**"]
        }));
        assert_eq!(cfg.sensitivity, Sensitivity::High);
        assert_eq!(cfg.tier, TierChoice::Builtin);
        assert_eq!(cfg.debounce_ms, 100);
        assert_eq!(cfg.formats, vec![Format::Markdown]);
        assert_eq!(cfg.severity, Severity::Warning);
        assert!(cfg.ignore_matcher().is_match("drafts/a.md"));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings.iter().any(|w| w.contains("colour")));
        assert!(warnings.iter().any(|w| w.contains("severity")));
    }

    #[test]
    fn schema_defaults_resolve_to_the_defaults() {
        let schema = schema();
        let props = schema["properties"].as_object().expect("properties");
        assert_eq!(props.len(), KEYS.len());
        let defaults: serde_json::Map<_, _> = props
            .iter()
            .map(|(k, v)| (k.clone(), v["default"].clone()))
            .collect();
        let (cfg, warnings) = Config::resolve(&serde_json::Value::Object(defaults));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(cfg, Config::default());
    }

    #[test]
    fn every_key_is_documented() {
        let (_, warnings) = Config::resolve(&json!({
            "formats": [], "sensitivity": "low", "severity": "hint", "tier": "auto", "device": "cpu",
            "debounce": 0, "ignore": [], "scorer": "tier0", "ort_dylib": "/opt/ort/libonnxruntime.so",
            "models_dir": null
        }));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(KEYS.len(), 10);
    }

    #[test]
    fn loads_toml_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, "sensitivity = \"low\"\ndebounce = -5\n").unwrap();
        let (cfg, issues) = Config::load(&path, Origin::Project);
        assert_eq!(cfg.sensitivity, Sensitivity::Low);
        assert_eq!(issues.len(), 1);
        assert_eq!(
            issues[0].place,
            Some(Place {
                line: 2,
                column: 12
            })
        );
        assert_eq!(
            find_project_file(dir.path(), dir.path()),
            Some(path.clone())
        );
        std::fs::write(&path, "sensitivity = \"low\"\nnot = [toml").unwrap();
        let (_, issues) = Config::load(&path, Origin::Project);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(matches!(issues[0].kind, IssueKind::Syntax(_)), "{issues:?}");
        assert_eq!(issues[0].place.map(|p| p.line), Some(2));
        let (_, issues) = Config::load(&dir.path().join("missing.toml"), Origin::Project);
        assert!(
            matches!(issues[0].kind, IssueKind::Unreadable(_)),
            "{issues:?}"
        );
    }

    #[test]
    fn file_issues_name_the_line_and_the_closest_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(
            &path,
            "# Segue\ntier = 0\nsensitivty = \"high\"\nseverity = \"loud\"\nignore = [\"a[\"]\n",
        )
        .unwrap();
        let (settings, issues) = read_settings(&path, Origin::Project);
        assert_eq!(settings.len(), 4);
        let messages: Vec<String> = issues.iter().map(ToString::to_string).collect();
        assert_eq!(issues.len(), 3, "{messages:?}");
        assert!(issues.iter().all(Issue::is_error));
        let shown = path.display();
        assert!(
            messages.contains(&format!(
                "unknown key `sensitivty` in {shown} line 3, column 1; did you mean `sensitivity`?"
            )),
            "{messages:?}"
        );
        assert!(
            messages.contains(&format!(
            "bad value \"loud\" for `severity` in {shown} line 4, column 12 (expected \"error\", \
             \"warning\", \"information\" or \"hint\")"
        )),
            "{messages:?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("bad glob `a[` in `ignore` in ")
                    && m.contains("line 5, column 10")),
            "{messages:?}"
        );
    }

    #[test]
    fn path_settings_must_be_absolute() {
        let (cfg, warnings) =
            Config::resolve(&json!({"ort_dylib": "lib/libonnxruntime.so", "models_dir": "../m"}));
        assert_eq!(cfg.ort_dylib, None);
        assert_eq!(cfg.models_dir, None);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("absolute path"), "{warnings:?}");
        if let Some(home) = sources::home_dir() {
            let (cfg, warnings) = Config::resolve(&json!({"models_dir": "~/segue/models"}));
            assert!(warnings.is_empty(), "{warnings:?}");
            assert_eq!(cfg.models_dir, Some(home.join("segue/models")));
        }
    }

    #[test]
    fn a_user_file_sets_paths_and_a_project_file_wins_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        let project = dir.path().join(FILE_NAME);
        std::fs::write(
            &user,
            "ort_dylib = \"/opt/ort/libonnxruntime.so\"\nsensitivity = \"high\"\n",
        )
        .unwrap();
        std::fs::write(
            &project,
            "ort_dylib = \"/tmp/evil.so\"\nsensitivity = \"low\"\n",
        )
        .unwrap();
        let (cfg, issues) = Config::layered(&[(user, Origin::User), (project, Origin::Project)]);
        assert_eq!(
            cfg.ort_dylib,
            Some(PathBuf::from("/opt/ort/libonnxruntime.so"))
        );
        assert_eq!(cfg.sensitivity, Sensitivity::Low);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(
            issues[0].to_string().contains("`ort_dylib` is ignored"),
            "{issues:?}"
        );
        assert!(!issues[0].is_error());
    }
}
