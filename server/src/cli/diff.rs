//! `segue check --diff BASE`: which lines of each file a change touched, from `git diff
//! --unified=0 BASE` run in the file's repository, or from a unified diff read on stdin
//! (`--diff -`). The check itself scores every document whole; findings are then kept only on
//! the paragraphs whose lines the change touched ([`Changes::touches`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why the changed lines of a file are not known.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// git could not be started.
    #[error("cannot run git to diff against {base}: {source}")]
    Spawn {
        /// The revision.
        base: String,
        /// Why.
        source: std::io::Error,
    },
    /// git failed (not a repository, an unknown revision, …).
    #[error("git diff {base} failed: {message}")]
    Git {
        /// The revision.
        base: String,
        /// git's own message.
        message: String,
    },
    /// The revision looks like an option.
    #[error("`{0}` is not a revision (a revision cannot start with `-`; use `--diff -` to read a diff on stdin)")]
    BadRevision(String),
}

/// The lines a change touched in one file: 1-based, inclusive ranges of the new file's lines.
/// A deletion touches the lines on either side of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    ranges: Vec<(usize, usize)>,
    /// Whether the whole file is new (every line counts as touched).
    whole: bool,
}

impl Changes {
    /// Every line touched (a file the base does not have).
    pub fn whole_file() -> Changes {
        Changes {
            ranges: Vec::new(),
            whole: true,
        }
    }

    /// Whether any line from `first` to `last` (1-based, inclusive) was touched.
    pub fn touches(&self, first: usize, last: usize) -> bool {
        self.whole || self.ranges.iter().any(|&(a, b)| a <= last && first <= b)
    }

    /// Whether nothing was touched.
    pub fn is_empty(&self) -> bool {
        !self.whole && self.ranges.is_empty()
    }

    /// Adds the new-side range of a hunk header's `+start,count`.
    fn add_hunk(&mut self, start: usize, count: usize) {
        if count == 0 {
            // A pure deletion after line `start`: the lines around the gap.
            self.ranges.push((start.max(1), start + 1));
        } else {
            self.ranges.push((start, start + count - 1));
        }
    }
}

/// Parses a hunk header (`@@ -a[,b] +c[,d] @@ …`) into the old side's count and the new side's
/// start and count.
fn hunk(line: &str) -> Option<(usize, usize, usize)> {
    let rest = line.strip_prefix("@@ ")?;
    let mut words = rest.split_whitespace();
    let side = |w: Option<&str>, sign: char| -> Option<(usize, usize)> {
        let w = w?.strip_prefix(sign)?;
        match w.split_once(',') {
            Some((s, c)) => Some((s.parse().ok()?, c.parse().ok()?)),
            None => Some((w.parse().ok()?, 1)),
        }
    };
    let (_, old_count) = side(words.next(), '-')?;
    let (start, count) = side(words.next(), '+')?;
    Some((old_count, start, count))
}

/// The new-side path of a `+++ ` line: without the `b/` prefix git adds (a diff made with
/// `--no-prefix` has none), and `None` for a deleted file (`/dev/null`).
fn new_path(line: &str) -> Option<String> {
    let path = line.strip_prefix("+++ ")?;
    // A timestamp may follow a tab (diff -u).
    let path = path.split('\t').next().unwrap_or(path).trim_end();
    let path = path
        .strip_prefix('"')
        .and_then(|p| p.strip_suffix('"'))
        .unwrap_or(path);
    if path == "/dev/null" {
        return None;
    }
    Some(path.strip_prefix("b/").unwrap_or(path).to_string())
}

/// The changes of every file in a unified diff, by the path its `+++` line names. A file whose
/// old side is `/dev/null` (new in the change) is touched whole.
pub fn parse_unified(diff: &str) -> HashMap<String, Changes> {
    let mut files: HashMap<String, Changes> = HashMap::new();
    let mut current: Option<String> = None;
    let mut new_file = false;
    // Lines of the current hunk still to come, old side and new side: its body is skipped by
    // count, so that a line whose text starts with "++ " is never read as a header.
    let (mut old_left, mut new_left) = (0usize, 0usize);
    for line in diff.lines() {
        if old_left > 0 || new_left > 0 {
            match line.chars().next() {
                Some('-') => old_left = old_left.saturating_sub(1),
                Some('+') => new_left = new_left.saturating_sub(1),
                Some('\\') => {}
                _ => {
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
            }
            continue;
        }
        if line.starts_with("--- /dev/null") {
            new_file = true;
        } else if line.starts_with("diff ") {
            new_file = false;
            current = None;
        } else if line.starts_with("+++ ") {
            current = new_path(line);
            if let Some(path) = &current {
                let entry = files.entry(path.clone()).or_default();
                if new_file {
                    *entry = Changes::whole_file();
                }
            }
            new_file = false;
        } else if let Some((old_count, start, count)) = hunk(line) {
            (old_left, new_left) = (old_count, count);
            if let Some(changes) = current.as_ref().and_then(|p| files.get_mut(p)) {
                changes.add_hunk(start, count);
            }
        }
    }
    files
}

/// The changes to `file` since revision `base`, from `git diff --unified=0 base -- file` run in
/// the file's folder (so the file's own repository answers). A file git does not track yet is
/// touched whole.
pub fn git_changes(base: &str, file: &Path) -> Result<Changes, DiffError> {
    if base.starts_with('-') {
        return Err(DiffError::BadRevision(base.to_string()));
    }
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let dir = absolute
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let name = absolute
        .file_name()
        .map_or_else(|| absolute.clone().into_os_string(), |n| n.to_os_string());
    let git = |args: &[&std::ffi::OsStr]| {
        Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .env("GIT_EXTERNAL_DIFF", "")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .map_err(|source| DiffError::Spawn {
                base: base.to_string(),
                source,
            })
    };
    let out = git(&[
        "diff".as_ref(),
        "--no-color".as_ref(),
        "--no-ext-diff".as_ref(),
        "--unified=0".as_ref(),
        base.as_ref(),
        "--".as_ref(),
        name.as_os_str(),
    ])?;
    if !out.status.success() {
        return Err(DiffError::Git {
            base: base.to_string(),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    let diff = String::from_utf8_lossy(&out.stdout);
    if let Some(changes) = parse_unified(&diff).into_values().next() {
        return Ok(changes);
    }
    // No difference: unchanged, or unknown to git (then it is all new).
    let tracked = git(&[
        "ls-files".as_ref(),
        "--error-unmatch".as_ref(),
        "--".as_ref(),
        name.as_os_str(),
    ])?;
    Ok(if tracked.status.success() {
        Changes::default()
    } else {
        Changes::whole_file()
    })
}

/// The changes for `file` in a diff read from stdin (`files`, by the diff's paths, which are
/// relative to the repository root): the entry whose path, taken from the current folder or from
/// its repository root, is `file`. A file the diff does not name is unchanged.
pub fn changes_for(files: &HashMap<String, Changes>, file: &Path) -> Changes {
    let Ok(cwd) = std::env::current_dir() else {
        return Changes::default();
    };
    let target = normalise(&cwd.join(file));
    let root = crate::config::repository_root(&cwd);
    files
        .iter()
        .find(|(path, _)| {
            normalise(&cwd.join(path)) == target || normalise(&root.join(path)) == target
        })
        .map(|(_, c)| c.clone())
        .unwrap_or_default()
}

/// `path` without `.` components and with `..` applied, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/docs/a.md b/docs/a.md
index 1111111..2222222 100644
--- a/docs/a.md
+++ b/docs/a.md
@@ -3 +3 @@ # Title
-old line
+new line
@@ -10,2 +9,0 @@
-gone
-gone too
@@ -20,0 +21,3 @@
+one
+two
+three
diff --git a/new.md b/new.md
new file mode 100644
--- /dev/null
+++ b/new.md
@@ -0,0 +1,2 @@
+Hello.
+World.
diff --git a/old.md b/old.md
deleted file mode 100644
--- a/old.md
+++ /dev/null
@@ -1 +0,0 @@
-Bye.
";

    #[test]
    fn hunks_give_the_new_sides_lines() {
        let files = parse_unified(DIFF);
        assert_eq!(files.len(), 2, "{files:?}");
        let a = &files["docs/a.md"];
        assert_eq!(a.ranges, [(3, 3), (9, 10), (21, 23)]);
        assert!(a.touches(1, 3));
        assert!(!a.touches(4, 8));
        assert!(a.touches(10, 12), "the deletion between lines 9 and 10");
        assert!(!a.touches(11, 20));
        assert!(a.touches(23, 40));
        assert!(!a.touches(24, 40));
        assert!(
            files["new.md"].touches(100, 200),
            "a new file is touched whole"
        );
    }

    #[test]
    fn headers_without_counts_or_prefixes() {
        assert_eq!(hunk("@@ -1 +1 @@"), Some((1, 1, 1)));
        assert_eq!(hunk("@@ -5,0 +6,2 @@ heading"), Some((0, 6, 2)));
        assert_eq!(hunk("@@ nonsense"), None);
        assert_eq!(
            new_path("+++ docs/a.md\t2026-01-01"),
            Some("docs/a.md".into())
        );
        assert_eq!(
            new_path("+++ \"b/odd name.md\""),
            Some("odd name.md".into())
        );
        assert_eq!(new_path("+++ /dev/null"), None);
        let deletion_at_start = parse_unified("--- a/x\n+++ b/x\n@@ -1,2 +0,0 @@\n-a\n-b\n");
        assert!(deletion_at_start["x"].touches(1, 1));
        // Hunk bodies are skipped by count: an added line reading "++ b/y" is not a header.
        let tricky =
            parse_unified("--- a/x\n+++ b/x\n@@ -1,0 +2,1 @@\n+++ b/y\n@@ -9 +9 @@\n-o\n+n\n");
        assert_eq!(tricky.len(), 1, "{tricky:?}");
        assert_eq!(tricky["x"].ranges, [(2, 2), (9, 9)]);
        assert!(Changes::default().is_empty());
    }

    #[test]
    fn a_revision_cannot_be_an_option() {
        assert!(matches!(
            git_changes("--output=/tmp/x", Path::new("a.md")),
            Err(DiffError::BadRevision(_))
        ));
    }

    #[test]
    fn paths_normalise_without_the_file_system() {
        assert_eq!(
            normalise(Path::new("/r/./docs/../a.md")),
            PathBuf::from("/r/a.md")
        );
    }
}
