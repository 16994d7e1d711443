//! Problems found in settings: an unknown key, a bad value, a file that cannot be read or parsed,
//! a key a project may not set. Each [`Issue`] knows the file and the place in it when it came
//! from a `segue.toml`, and, for an unknown key, the closest valid one. The CLI treats every issue
//! but [`IssueKind::UserOnly`] as an error; the language server shows them all as warnings and
//! goes on with the defaults.

use std::fmt;
use std::path::PathBuf;

/// A 1-based line and column (in characters) in a settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in characters.
    pub column: usize,
}

impl Place {
    /// The place of byte `offset` in `text` (clamped to the text, and to a character boundary).
    pub fn of(text: &str, offset: usize) -> Place {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Place {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

/// What is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueKind {
    /// The settings are not a table (an editor sent something else).
    NotATable,
    /// A key that is not a setting, with the closest valid key when one is close.
    UnknownKey {
        /// The key as written.
        key: String,
        /// The closest valid key, if any is close enough to be a likely typo.
        suggestion: Option<&'static str>,
    },
    /// A value of the wrong type or out of range.
    BadValue {
        /// The key.
        key: String,
        /// The value as JSON.
        value: String,
        /// What the key accepts, in words.
        expected: String,
    },
    /// A glob in `ignore` that does not compile.
    BadGlob {
        /// The glob.
        glob: String,
    },
    /// The file could not be read (the reason).
    Unreadable(String),
    /// The file is not valid TOML (the parser's message).
    Syntax(String),
    /// A project file sets a key only the user's own configuration may set; the full message,
    /// which says where to set it instead.
    UserOnly {
        /// The key.
        key: String,
        /// The message.
        message: String,
    },
}

/// One problem with settings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Issue {
    /// The settings file, when the settings came from one.
    pub file: Option<PathBuf>,
    /// Where in the file, when known.
    pub place: Option<Place>,
    /// What is wrong.
    pub kind: IssueKind,
}

impl Issue {
    /// An issue with settings that did not come from a file (an editor's).
    pub fn new(kind: IssueKind) -> Issue {
        Issue {
            file: None,
            place: None,
            kind,
        }
    }

    /// Whether the CLI stops on this issue. Everything but a user-only key in a project file:
    /// that one is dropped with a warning, so that a project can keep a key its users' older
    /// Segue honoured without breaking their runs.
    pub fn is_error(&self) -> bool {
        !matches!(self.kind, IssueKind::UserOnly { .. })
    }

    /// " in segue.toml line 3, column 1", or "" for settings without a file.
    fn location(&self) -> String {
        match (&self.file, self.place) {
            (Some(file), Some(p)) => format!(
                " in {} line {}, column {}",
                file.display(),
                p.line,
                p.column
            ),
            (Some(file), None) => format!(" in {}", file.display()),
            (None, _) => String::new(),
        }
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.location();
        let file = self
            .file
            .as_ref()
            .map_or_else(|| "settings".to_string(), |p| p.display().to_string());
        match &self.kind {
            IssueKind::NotATable if self.file.is_some() => {
                write!(f, "{file} must be a table of settings")
            }
            IssueKind::NotATable => write!(f, "settings must be an object; using defaults"),
            IssueKind::UnknownKey { key, suggestion } => {
                write!(f, "unknown key `{key}`{at}")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                if self.file.is_none() {
                    write!(f, " (it is ignored)")?;
                }
                Ok(())
            }
            IssueKind::BadValue {
                key,
                value,
                expected,
            } => {
                write!(f, "bad value {value} for `{key}`{at} (expected {expected})")?;
                if self.file.is_none() {
                    write!(f, "; using the default")?;
                }
                Ok(())
            }
            IssueKind::BadGlob { glob } => {
                write!(f, "bad glob `{glob}` in `ignore`{at}; ignoring the setting")
            }
            IssueKind::Unreadable(why) => write!(f, "cannot read {file}: {why}"),
            IssueKind::Syntax(why) => {
                let why = why.trim().replace('\n', "; ");
                match self.place {
                    Some(p) => write!(
                        f,
                        "{file} is not valid TOML: line {}, column {}: {why}",
                        p.line, p.column
                    ),
                    None => write!(f, "{file} is not valid TOML: {why}"),
                }
            }
            IssueKind::UserOnly { message, .. } => f.write_str(message),
        }
    }
}

/// The key of `keys` closest to `key` by edit distance, when it is close enough to be a typo:
/// at most a third of the longer key's characters differ (and at least one may).
pub fn closest<'k>(key: &str, keys: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    let key = key.to_lowercase();
    keys.into_iter()
        .map(|k| (edit_distance(&key, k), k))
        .filter(|&(d, k)| d <= (key.chars().count().max(k.chars().count()) / 3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// The edit distance between `a` and `b`, in characters: insertions, deletions, substitutions
/// and swaps of two neighbouring characters each cost one (the optimal string alignment
/// distance, which counts the usual typos: `teir` is one edit from `tier`).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the table: two back, one back, and the one being filled.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (previous[j - 1] + cost)
                .min(previous[j] + 1)
                .min(current[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            current[j] = d;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("sensitivty", "sensitivity"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("tier", "tier"), 0);
        assert_eq!(edit_distance("débounce", "debounce"), 1);
        assert_eq!(edit_distance("teir", "tier"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("abc", "ca"), 3);
    }

    #[test]
    fn the_closest_key_is_suggested_only_when_close() {
        let keys = ["sensitivity", "severity", "tier", "ignore", "debounce"];
        assert_eq!(closest("sensitivty", keys), Some("sensitivity"));
        assert_eq!(closest("Severity", keys), Some("severity"));
        assert_eq!(closest("teir", keys), Some("tier"));
        assert_eq!(closest("colour", keys), None);
        assert_eq!(closest("x", keys), None);
    }

    #[test]
    fn places_count_lines_and_characters_from_one() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(Place::of(text, 0), Place { line: 1, column: 1 });
        assert_eq!(Place::of(text, 6), Place { line: 2, column: 1 });
        // After "bé " (4 bytes, 3 characters).
        assert_eq!(Place::of(text, 10), Place { line: 2, column: 4 });
        // Inside "é" and past the end: clamped.
        assert_eq!(Place::of(text, 8), Place { line: 2, column: 2 });
        assert_eq!(Place::of(text, 99), Place { line: 3, column: 1 });
    }

    #[test]
    fn messages_name_the_file_the_line_and_the_closest_key() {
        let issue = Issue {
            file: Some(PathBuf::from("segue.toml")),
            place: Some(Place { line: 3, column: 1 }),
            kind: IssueKind::UnknownKey {
                key: "sensitivty".into(),
                suggestion: Some("sensitivity"),
            },
        };
        assert_eq!(
            issue.to_string(),
            "unknown key `sensitivty` in segue.toml line 3, column 1; did you mean `sensitivity`?"
        );
        assert!(issue.is_error());
        let editor = Issue::new(IssueKind::UnknownKey {
            key: "colour".into(),
            suggestion: None,
        });
        assert_eq!(editor.to_string(), "unknown key `colour` (it is ignored)");
        let user_only = Issue::new(IssueKind::UserOnly {
            key: "ort_dylib".into(),
            message: "`ort_dylib` is ignored".into(),
        });
        assert!(!user_only.is_error());
        assert_eq!(user_only.to_string(), "`ort_dylib` is ignored");
    }
}
