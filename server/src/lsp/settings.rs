//! Settings in the language server: the user's settings file, the editor's `segue` section and
//! the project's `segue.toml`, merged in that order.
//!
//! The user's file is `segue/segue.toml` in the platform config directory
//! ([`crate::config::user_config_file`]). The editor's settings arrive through
//! `workspace/configuration` (section `segue`), through `workspace/didChangeConfiguration`
//! (`{"segue": {…}}`) or as `initializationOptions`; they are the user's too (an editor must not
//! let a workspace set the code-loading keys: the VS Code extension marks them machine-scoped and
//! restricted). The project file is the nearest `segue.toml` between the document's folder (the
//! first workspace root for documents without a path) and the workspace folder that holds it —
//! never above it; for a document outside every workspace folder, its repository root
//! ([`crate::config::repository_root`]). All use the keys of [`crate::config::KEYS`]. **The
//! project file wins** key by key (it is project-wide policy; the others are personal defaults),
//! except for the keys that name code or models to load ([`crate::config::USER_ONLY_KEYS`]),
//! which it cannot set: they are dropped from it with a warning. Unknown keys and bad values give
//! a warning (shown once with `window/showMessage`) and the default; resolution never fails.

use super::engine::ContextPolicy;
use crate::config::{
    find_project_file, read_settings, repository_root, Config, Issue, IssueKind, Origin, TierChoice,
};
use crate::order::reorder::Judge;
use crate::score::{registry, Scorer, ScorerSet};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The scorer used when none is configured (the first stage; the model stage uses
/// [`registry::DEFAULT_MODEL_SCORER`] when the models are loaded).
pub const DEFAULT_SCORER: &str = registry::DEFAULT_SCORER;

/// Where the tier-1 models stand in this server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ModelsState {
    /// Not tried yet, or loading.
    #[default]
    Pending,
    /// Loaded: the registry holds the tier-1 scorers.
    Loaded,
    /// Could not load (the reason).
    Failed(String),
}

/// Settings resolved for one project file (or for none).
#[derive(Clone)]
pub struct Resolved {
    /// The merged settings.
    pub config: Config,
    /// The reporting scorer of the first (fast) stage.
    pub scorer: Arc<dyn Scorer>,
    /// The scorer of the model stage, whose results replace the first stage's when ready: the
    /// tier-1 default when the models are loaded, `tier` is not `0` and no scorer is configured.
    pub model_scorer: Option<Arc<dyn Scorer>>,
    /// The judge of reorder proposals.
    pub judge: Judge,
    /// Cache policy for the scorer.
    pub policy: ContextPolicy,
    /// The `segue.toml` in force, if any.
    pub file: Option<PathBuf>,
    /// The folder `ignore` globs are relative to (the file's folder, else the workspace root).
    pub base: Option<PathBuf>,
    /// Compiled `ignore` globs.
    pub ignore: globset::GlobSet,
    /// Warnings about the project file and the merged settings.
    pub warnings: Vec<String>,
}

impl std::fmt::Debug for Resolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolved")
            .field("config", &self.config)
            .field("scorer", &self.scorer.name())
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

impl Resolved {
    /// Whether `path` matches an `ignore` glob (absolute, or relative to the base folder).
    pub fn ignores(&self, path: &Path) -> bool {
        if self.ignore.is_match(path) {
            return true;
        }
        self.base
            .as_deref()
            .and_then(|b| path.strip_prefix(b).ok())
            .is_some_and(|rel| self.ignore.is_match(rel))
    }
}

/// The editor settings, the workspace roots, and the resolved settings per project file.
pub struct SettingsStore {
    user: Map<String, Value>,
    editor: Value,
    roots: Vec<PathBuf>,
    scorers: ScorerSet,
    models: ModelsState,
    resolved: HashMap<Option<PathBuf>, Arc<Resolved>>,
}

impl SettingsStore {
    /// A store with no editor settings and no roots.
    pub fn new(scorers: ScorerSet) -> Self {
        SettingsStore {
            user: Map::new(),
            editor: Value::Null,
            roots: Vec::new(),
            scorers,
            models: ModelsState::Pending,
            resolved: HashMap::new(),
        }
    }

    /// Records the outcome of loading the models; with `Some(set)`, the registry becomes `set`.
    pub fn set_models(&mut self, state: ModelsState, set: Option<ScorerSet>) {
        if let Some(set) = set {
            self.scorers = set;
        }
        self.models = state;
        self.resolved.clear();
    }

    /// Where the tier-1 models stand.
    pub fn models(&self) -> &ModelsState {
        &self.models
    }

    /// The scorer registry.
    pub fn scorers(&self) -> &ScorerSet {
        &self.scorers
    }

    /// Replaces the editor settings (a `segue` object, or an object holding one under `segue`).
    /// Returns the warnings about them.
    pub fn set_editor(&mut self, value: Value) -> Vec<String> {
        let value = match value {
            Value::Object(mut map) if map.contains_key("segue") => {
                map.remove("segue").unwrap_or(Value::Null)
            }
            other => other,
        };
        self.editor = value;
        self.resolved.clear();
        let (_, warnings) = Config::resolve(&self.editor);
        warnings
            .into_iter()
            .map(|w| format!("editor settings: {w}"))
            .collect()
    }

    /// Reads the user's settings file (`None`: there is none). Returns the warnings about it.
    pub fn set_user_file(&mut self, path: Option<&Path>) -> Vec<String> {
        self.resolved.clear();
        let Some(path) = path else {
            self.user = Map::new();
            return Vec::new();
        };
        let (table, issues) = read_settings(path, Origin::User);
        self.user = table;
        issues.iter().map(file_warning).collect()
    }

    /// Replaces the workspace roots.
    pub fn set_roots(&mut self, roots: Vec<PathBuf>) {
        self.roots = roots;
        self.resolved.clear();
    }

    /// The workspace roots.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Forgets every resolved file, so that `segue.toml` files are read again.
    pub fn invalidate(&mut self) {
        self.resolved.clear();
    }

    /// The settings for a document at `path` (`None` for documents without a path), and the
    /// warnings produced if this resolved a project file for the first time.
    pub fn for_path(&mut self, path: Option<&Path>) -> (Arc<Resolved>, Vec<String>) {
        let start = match path.and_then(Path::parent) {
            Some(dir) => Some(dir.to_path_buf()),
            None => self.roots.first().cloned(),
        };
        self.for_start(start)
    }

    /// The settings for files in folder `dir`.
    pub fn for_dir(&mut self, dir: &Path) -> (Arc<Resolved>, Vec<String>) {
        self.for_start(Some(dir.to_path_buf()))
    }

    /// The root that project settings are looked for under, for files in `dir`: the innermost
    /// workspace folder holding it, else its repository root.
    fn project_root(&self, dir: &Path) -> PathBuf {
        self.roots
            .iter()
            .filter(|r| dir.starts_with(r))
            .max_by_key(|r| r.components().count())
            .cloned()
            .unwrap_or_else(|| repository_root(dir))
    }

    fn for_start(&mut self, start: Option<PathBuf>) -> (Arc<Resolved>, Vec<String>) {
        // The nearest `segue.toml` at or above the folder, never above the project root.
        let file = start
            .as_deref()
            .and_then(|dir| find_project_file(dir, &self.project_root(dir)));
        if let Some(r) = self.resolved.get(&file) {
            return (r.clone(), Vec::new());
        }
        let (resolved, warnings) = self.resolve(file.clone());
        let resolved = Arc::new(resolved);
        self.resolved.insert(file, resolved.clone());
        (resolved, warnings)
    }

    fn resolve(&self, file: Option<PathBuf>) -> (Resolved, Vec<String>) {
        let mut warnings = Vec::new();
        let mut merged = self.user.clone();
        merged.extend(self.editor.as_object().cloned().unwrap_or_default());
        if let Some(path) = &file {
            // Without the user-only keys, each dropped with a warning.
            let (map, issues) = read_settings(path, Origin::Project);
            warnings.extend(issues.iter().map(file_warning));
            merged.extend(map);
        }
        let (mut config, _) = Config::resolve(&Value::Object(merged));
        if config.tier == TierChoice::Model {
            if let ModelsState::Failed(why) = &self.models {
                warnings.push(format!(
                    "tier 1 needs the models, which did not load ({why}); using the built-in tier 0"
                ));
                config.tier = TierChoice::Builtin;
            }
        }
        let name = config
            .scorer
            .clone()
            .unwrap_or_else(|| DEFAULT_SCORER.to_string());
        let scorer = match self.scorers.get(&name) {
            Some(s) => s,
            None => {
                warnings.push(format!(
                    "no scorer named `{name}` (available: {}); using `{DEFAULT_SCORER}`",
                    self.scorers.names().join(", ")
                ));
                config.scorer = None;
                match self
                    .scorers
                    .get(DEFAULT_SCORER)
                    .or_else(|| self.scorers.iter().next().cloned())
                {
                    Some(s) => s,
                    None => Arc::new(NullScorer),
                }
            }
        };
        let base = file
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .or_else(|| self.roots.first().cloned());
        let ignore = config.ignore_matcher();
        let policy = scorer.context_policy();
        let model_scorer = if config.scorer.is_none() && config.tier != TierChoice::Builtin {
            self.scorers.get(registry::DEFAULT_MODEL_SCORER)
        } else {
            None
        };
        // The judge of reorders: the scorer the user named, else the best one loaded for the tier
        // (which proposes only where its calibration trusts it).
        let order_scorer = if config.scorer.is_none() && config.tier != TierChoice::Builtin {
            self.scorers
                .get(registry::default_order_scorer(&self.scorers))
                .unwrap_or_else(|| scorer.clone())
        } else {
            scorer.clone()
        };
        let judge = Judge {
            scorer: order_scorer,
            named: config.scorer.is_some(),
        };
        (
            Resolved {
                config,
                scorer,
                model_scorer,
                judge,
                policy,
                file,
                base,
                ignore,
                warnings: warnings.clone(),
            },
            warnings,
        )
    }
}

/// A scorer that finds nothing, used only if the registry is empty (it never is).
struct NullScorer;

impl Scorer for NullScorer {
    fn name(&self) -> &'static str {
        "none"
    }
    fn description(&self) -> &'static str {
        "no scorer available"
    }
    fn tier(&self) -> u8 {
        0
    }
    fn prepare<'a>(
        &'a self,
        units: &[crate::score::Unit<'_>],
        _level: crate::score::Level,
    ) -> Box<dyn crate::score::Pairwise + 'a> {
        Box::new(NullPairs(units.len()))
    }
}

struct NullPairs(usize);

impl crate::score::Pairwise for NullPairs {
    fn len(&self) -> usize {
        self.0
    }
    fn transition(&self, _from: usize, _to: usize) -> f64 {
        1.0
    }
    fn reason(&self, _from: usize, _to: usize) -> crate::score::Reason {
        crate::score::Reason::default()
    }
}

/// The warning shown for an issue in a settings file ("segue: ignored unknown key `sensitivty` in
/// …/segue.toml line 3, column 1; did you mean `sensitivity`?"): in the language server none
/// stops anything, the setting is left out (the CLI, stricter, stops on them).
fn file_warning(issue: &Issue) -> String {
    match issue.kind {
        IssueKind::UserOnly { .. } => issue.to_string(),
        IssueKind::UnknownKey { .. } | IssueKind::BadValue { .. } => {
            format!("segue: ignored {issue}")
        }
        _ => format!("segue: {issue}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FILE_NAME;
    use crate::score::findings::Sensitivity;
    use serde_json::json;

    #[test]
    fn file_wins_key_by_key_and_warnings_are_collected() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join(FILE_NAME),
            "sensitivity = \"low\"\ncolour = 1\n",
        )
        .expect("write");
        let mut store = SettingsStore::new(ScorerSet::builtin());
        store.set_roots(vec![dir.path().to_path_buf()]);
        let w = store
            .set_editor(json!({"segue": {"sensitivity": "high", "debounce": 10, "bogus": true}}));
        assert_eq!(w.len(), 1, "{w:?}");
        let doc = dir.path().join("a.md");
        let (r, w) = store.for_path(Some(&doc));
        assert_eq!(r.config.sensitivity, Sensitivity::Low);
        assert_eq!(r.config.debounce_ms, 10);
        assert!(w.iter().any(|w| w.contains("colour")), "{w:?}");
        // A warning, with the file, the place and the closest key when one is close.
        let file = dir.path().join(FILE_NAME);
        assert!(
            w.contains(&format!(
                "segue: ignored unknown key `colour` in {} line 2, column 1",
                file.display()
            )),
            "{w:?}"
        );
        std::fs::write(&file, "sensitivty = \"low\"\n").expect("write");
        store.invalidate();
        let (_, w) = store.for_path(Some(&doc));
        assert_eq!(
            w,
            [format!(
                "segue: ignored unknown key `sensitivty` in {} line 1, column 1; did you mean \
                 `sensitivity`?",
                file.display()
            )]
        );
        store.invalidate();
        std::fs::write(&file, "sensitivity = \"low\"\ncolour = 1\n").expect("write");
        let _ = store.for_path(Some(&doc));
        // Second lookup: cached, no repeated warnings.
        assert!(store.for_path(Some(&doc)).1.is_empty());
    }

    #[test]
    fn bad_scorer_and_tier_fall_back() {
        let mut store = SettingsStore::new(ScorerSet::builtin());
        store.set_editor(json!({"scorer": "nope", "tier": "1"}));
        // While the models load, tier 1 is not a complaint; a bad scorer name is.
        let (r, w) = store.for_path(None);
        assert_eq!(r.scorer.name(), DEFAULT_SCORER);
        assert_eq!(w.len(), 1, "{w:?}");
        store.set_models(ModelsState::Failed("not installed".into()), None);
        let (r, w) = store.for_path(None);
        assert_eq!(r.scorer.name(), DEFAULT_SCORER);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w.iter().any(|w| w.contains("not installed")), "{w:?}");
        assert!(r.model_scorer.is_none());
        store.set_editor(json!({"scorer": "lexical"}));
        let (r, _) = store.for_path(None);
        assert_eq!(r.scorer.name(), "lexical");
        assert_eq!(r.policy, ContextPolicy::Pairwise);
    }

    #[test]
    fn ignore_globs_match_relative_paths() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(FILE_NAME), "ignore = [\"drafts/**\"]\n").expect("write");
        let mut store = SettingsStore::new(ScorerSet::builtin());
        store.set_roots(vec![dir.path().to_path_buf()]);
        let doc = dir.path().join("drafts").join("a.md");
        let (r, _) = store.for_path(Some(&doc));
        assert!(r.ignores(&doc));
        assert!(!r.ignores(&dir.path().join("b.md")));
    }

    #[test]
    fn project_files_are_looked_for_up_to_the_root_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("docs")).expect("mkdir");
        std::fs::write(dir.path().join(FILE_NAME), "sensitivity = \"low\"\n").expect("write");
        let mut store = SettingsStore::new(ScorerSet::builtin());
        store.set_roots(vec![root.clone()]);
        let (r, _) = store.for_path(Some(&root.join("docs").join("a.md")));
        assert_eq!(r.file, None);
        assert_eq!(r.config.sensitivity, Sensitivity::Medium);
        // Outside every workspace folder and repository: the document's own folder only.
        let loose = dir.path().join("loose");
        let (r, _) = store.for_path(Some(&loose.join("a.md")));
        assert_eq!(r.file, None);
    }

    #[test]
    fn a_project_file_cannot_set_code_paths_but_the_user_file_can() {
        let dir = tempfile::tempdir().expect("tempdir");
        let user = dir.path().join("user.toml");
        std::fs::write(&user, "models_dir = \"/opt/segue/models\"\n").expect("write");
        std::fs::write(
            dir.path().join(FILE_NAME),
            "ort_dylib = \"/tmp/evil.so\"\nmodels_dir = \"/tmp/evil\"\n",
        )
        .expect("write");
        let mut store = SettingsStore::new(ScorerSet::builtin());
        store.set_roots(vec![dir.path().to_path_buf()]);
        assert!(store.set_user_file(Some(&user)).is_empty());
        store.set_editor(json!({"ort_dylib": "/opt/ort/libonnxruntime.so"}));
        let (r, w) = store.for_path(None);
        assert_eq!(
            r.config.models_dir,
            Some(PathBuf::from("/opt/segue/models"))
        );
        assert_eq!(
            r.config.ort_dylib,
            Some(PathBuf::from("/opt/ort/libonnxruntime.so"))
        );
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w.iter().all(|w| w.contains("is ignored")), "{w:?}");
    }
}
