//! Where settings come from, and what each source may set.
//!
//! Settings come from the user (their own `segue.toml` in the platform config directory, editor
//! user settings, environment variables, command-line flags) and from projects (a `segue.toml`
//! inside the checked tree). Opening or checking a folder must never run code that the folder
//! chose, so the keys that name code or models to load ([`USER_ONLY_KEYS`]: the ONNX Runtime
//! library is `dlopen`ed, running its constructors, and the models folder holds that library under
//! `lib/`) are honoured only from the user's own configuration: a project file that sets one is
//! ignored for that key, with a warning that says where to set it instead ([`read_table`]).
//!
//! A project file is looked for from the checked folder upwards, but never above the project
//! root ([`find_project_file`]): the workspace folder in the language server, the repository (the
//! nearest folder holding `.git`) for the CLI, else the starting folder alone.

use super::issue::{Issue, IssueKind, Place};
use super::FILE_NAME;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Who wrote a settings file, which decides what it may set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The user's own file (the platform config directory): every key.
    User,
    /// A project's file (inside the checked tree): every key but [`USER_ONLY_KEYS`].
    Project,
}

/// Settings that name code or models to load, with the environment variable that can set each.
/// They are honoured from the user's configuration only, never from a project's `segue.toml`.
/// (The VS Code extension's client-only `server.path`, the binary it runs, follows the same rule
/// there; its manifest lists all of them as restricted and machine-scoped.)
pub const USER_ONLY_KEYS: &[(&str, &str)] = &[
    ("ort_dylib", "SEGUE_ORT_DYLIB"),
    ("models_dir", "SEGUE_MODELS_DIR"),
];

/// Whether `key` may be set only by the user's own configuration.
pub fn is_user_only(key: &str) -> bool {
    USER_ONLY_KEYS.iter().any(|(k, _)| *k == key)
}

/// The user's home folder.
pub fn home_dir() -> Option<PathBuf> {
    std::env::home_dir().filter(|h| h.is_absolute())
}

/// The platform config directory, as the `dirs` crate defines it: `$XDG_CONFIG_HOME` (when
/// absolute) or `~/.config` on Linux and other Unix systems, `~/Library/Application Support` on
/// macOS, `%APPDATA%` on Windows.
pub fn platform_config_dir() -> Option<PathBuf> {
    if cfg!(windows) {
        std::env::var_os("APPDATA")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    } else if cfg!(target_os = "macos") {
        home_dir().map(|h| h.join("Library").join("Application Support"))
    } else {
        std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| home_dir().map(|h| h.join(".config")))
    }
}

/// The platform data directory for the user's own files: `$XDG_DATA_HOME` (when absolute) or
/// `~/.local/share` on Linux and other Unix systems, `~/Library/Application Support` on macOS,
/// `%LOCALAPPDATA%` on Windows (the models are large and machine-specific, so not roaming).
pub fn platform_data_dir() -> Option<PathBuf> {
    if cfg!(windows) {
        std::env::var_os("LOCALAPPDATA")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    } else if cfg!(target_os = "macos") {
        home_dir().map(|h| h.join("Library").join("Application Support"))
    } else {
        xdg_data_dir(std::env::var_os("XDG_DATA_HOME"), home_dir())
    }
}

/// The XDG data directory from the values of `XDG_DATA_HOME` and the home folder: the variable
/// when it is an absolute path (the XDG specification ignores a relative one), else
/// `HOME/.local/share`.
pub fn xdg_data_dir(
    xdg_data_home: Option<std::ffi::OsString>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    xdg_data_home
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".local").join("share")))
}

/// The user's settings file: `segue/segue.toml` in the platform config directory (on Linux
/// `~/.config/segue/segue.toml`). It need not exist.
pub fn user_config_file() -> Option<PathBuf> {
    platform_config_dir().map(|d| d.join("segue").join(FILE_NAME))
}

/// The user's settings file when it exists.
pub fn existing_user_config_file() -> Option<PathBuf> {
    user_config_file().filter(|p| p.is_file())
}

/// The root of the project holding `start` (a folder) for the CLI: the nearest folder at or
/// above it that holds `.git` (a folder, or a file in a worktree), else `start` itself.
pub fn repository_root(start: &Path) -> PathBuf {
    start
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(start)
        .to_path_buf()
}

/// The nearest `segue.toml` in `start` (a folder, or a file whose folder is used) or its
/// ancestors up to and including `root`. When `start` is not inside `root`, only `start`'s own
/// folder is looked at. Never climbs above `root`.
pub fn find_project_file(start: &Path, root: &Path) -> Option<PathBuf> {
    let start = if start.is_file() {
        start.parent()?
    } else {
        start
    };
    if !start.starts_with(root) {
        let candidate = start.join(FILE_NAME);
        return candidate.is_file().then_some(candidate);
    }
    start
        .ancestors()
        .take_while(|d| d.starts_with(root))
        .map(|d| d.join(FILE_NAME))
        .find(|c| c.is_file())
}

/// The warning for a user-only key found in the project file `path`.
pub fn user_only_warning(path: &Path, key: &str) -> String {
    let var = USER_ONLY_KEYS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, v)| *v);
    let user_file = user_config_file().map_or_else(
        || "your user settings file".to_string(),
        |p| p.display().to_string(),
    );
    format!(
        "{}: `{key}` is ignored: a project's settings cannot choose code or models to load. \
         Set it in your own configuration instead: {user_file}, your editor's user settings, \
         the {var} environment variable, or `--{}` on the command line",
        path.display(),
        key.replace('_', "-")
    )
}

/// A settings file read as a table of raw settings, with where each top-level key and value
/// starts in it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// The settings, as JSON values.
    pub settings: Map<String, Value>,
    /// Per key: where the key starts and where its value starts.
    pub places: HashMap<String, (Place, Place)>,
}

/// Reads a `segue.toml` as a [`Table`]. From a [`Origin::Project`] file the [`USER_ONLY_KEYS`]
/// are removed, each with an [`IssueKind::UserOnly`] issue. A file that cannot be read or parsed
/// gives an empty table and an issue. Issues name the file (and the place, when known).
pub fn read_table(path: &Path, origin: Origin) -> (Table, Vec<Issue>) {
    let issue = |kind, place| Issue {
        file: Some(path.to_path_buf()),
        place,
        kind,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            return (
                Table::default(),
                vec![issue(IssueKind::Unreadable(e.to_string()), None)],
            )
        }
    };
    let spanned = match toml::from_str::<BTreeMap<Spanned<String>, Spanned<toml::Value>>>(&text) {
        Ok(v) => v,
        Err(e) => {
            let place = e.span().map(|s| Place::of(&text, s.start));
            // The parser's first line repeats the place; its message is the rest.
            let message = e.message().to_string();
            return (
                Table::default(),
                vec![issue(IssueKind::Syntax(message), place)],
            );
        }
    };
    let mut table = Table::default();
    for (key, value) in spanned {
        let places = (
            Place::of(&text, key.span().start),
            Place::of(&text, value.span().start),
        );
        let key = key.into_inner();
        let value = serde_json::to_value(value.into_inner()).unwrap_or(Value::Null);
        table.places.insert(key.clone(), places);
        table.settings.insert(key, value);
    }
    let mut issues = Vec::new();
    if origin == Origin::Project {
        for (key, _) in USER_ONLY_KEYS {
            if table.settings.remove(*key).is_some() {
                let place = table.places.get(*key).map(|p| p.0);
                issues.push(issue(
                    IssueKind::UserOnly {
                        key: (*key).to_string(),
                        message: user_only_warning(path, key),
                    },
                    place,
                ));
            }
        }
    }
    (table, issues)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_file_cannot_name_code_to_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(
            &path,
            "ort_dylib = \"/tmp/evil.so\"\nmodels_dir = \"../x\"\nsensitivity = \"low\"\n",
        )
        .unwrap();
        let (table, issues) = read_table(&path, Origin::Project);
        assert_eq!(table.settings.keys().collect::<Vec<_>>(), ["sensitivity"]);
        let warnings: Vec<String> = issues.iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].contains("`ort_dylib` is ignored"),
            "{warnings:?}"
        );
        assert!(warnings[0].contains("SEGUE_ORT_DYLIB"), "{warnings:?}");
        assert!(warnings[1].contains("--models-dir"), "{warnings:?}");
        assert!(issues.iter().all(|i| !i.is_error()), "{issues:?}");
        assert_eq!(issues[1].place, Some(Place { line: 2, column: 1 }));
        let (table, issues) = read_table(&path, Origin::User);
        assert_eq!(table.settings.len(), 3);
        assert!(issues.is_empty());
        assert_eq!(
            table.places.get("sensitivity"),
            Some(&(
                Place { line: 3, column: 1 },
                Place {
                    line: 3,
                    column: 15
                }
            ))
        );
    }

    #[test]
    fn discovery_stops_at_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let deep = root.join("docs").join("guide");
        std::fs::create_dir_all(&deep).unwrap();
        // Above the root: never read.
        std::fs::write(dir.path().join(FILE_NAME), "").unwrap();
        assert_eq!(find_project_file(&deep, &root), None);
        std::fs::write(root.join(FILE_NAME), "").unwrap();
        assert_eq!(find_project_file(&deep, &root), Some(root.join(FILE_NAME)));
        std::fs::write(deep.join("a.md"), "").unwrap();
        assert_eq!(
            find_project_file(&deep.join("a.md"), &root),
            Some(root.join(FILE_NAME))
        );
        // Outside the root: the folder itself only.
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        assert_eq!(find_project_file(&other, &root), None);
    }

    #[test]
    fn the_repository_root_holds_git() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("repo").join("docs");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(repository_root(&deep), deep);
        std::fs::write(dir.path().join("repo").join(".git"), "gitdir: x").unwrap();
        assert_eq!(repository_root(&deep), dir.path().join("repo"));
    }
}
