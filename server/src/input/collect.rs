//! What to check: the paths given on the command line or by the editor, expanded into files
//! (folders walked recursively, honouring `.gitignore` and the `ignore` setting, for the formats
//! the settings enable), with the folders in which nothing was found.

use crate::config::Config;
use crate::text::Format;
use std::path::PathBuf;

/// One thing to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A file on disk.
    File(PathBuf),
}

/// Expands paths: files as given, folders recursively (honouring .gitignore) for the enabled formats.
pub fn collect_inputs(paths: &[PathBuf], config: &Config) -> Vec<Input> {
    collect(paths, config).0
}

/// A folder in which nothing was found to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmptyFolder {
    /// The folder as given.
    pub path: PathBuf,
    /// How many files it holds (not ignored by .gitignore) that were left out.
    pub skipped: usize,
    /// Their extensions (`.html`, or `(none)`), most frequent first.
    pub extensions: Vec<String>,
}

impl EmptyFolder {
    /// "no Markdown, reStructuredText, LaTeX or plain-text files found in DIR (3 files skipped:
    /// .html, .py)".
    pub fn message(&self, config: &Config) -> String {
        let labels: Vec<&str> = Format::ALL
            .iter()
            .filter(|f| config.checks(**f))
            .map(|f| f.label())
            .collect();
        let kinds = match labels.split_last() {
            None => "checkable".to_string(),
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        };
        let what = if self.skipped == 0 {
            "it holds no files".to_string()
        } else {
            let mut exts: Vec<&str> = self.extensions.iter().map(String::as_str).take(6).collect();
            if self.extensions.len() > 6 {
                exts.push("…");
            }
            format!(
                "{} skipped: {}",
                plural_files(self.skipped),
                exts.join(", ")
            )
        };
        format!("no {kinds} files found in {} ({what})", self.path.display())
    }
}

fn plural_files(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

/// [`collect_inputs`], also naming the folders in which nothing was found.
pub fn collect(paths: &[PathBuf], config: &Config) -> (Vec<Input>, Vec<EmptyFolder>) {
    let ignore = config.ignore_matcher();
    let mut out = Vec::new();
    let mut empty = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            out.push(Input::Stdin);
        } else if path.is_dir() {
            let mut found = Vec::new();
            let mut skipped = 0;
            let mut extensions: std::collections::BTreeMap<String, usize> = Default::default();
            let files = ignore::WalkBuilder::new(path)
                .require_git(false)
                .build()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                .map(ignore::DirEntry::into_path);
            for p in files {
                let wanted = Format::from_path(&p).is_some_and(|f| config.checks(f))
                    && !ignore.is_match(&p)
                    && !ignore.is_match(p.strip_prefix(path).unwrap_or(&p));
                if wanted {
                    found.push(p);
                } else {
                    skipped += 1;
                    let ext = p.extension().map_or("(none)".to_string(), |e| {
                        format!(".{}", e.to_string_lossy())
                    });
                    *extensions.entry(ext).or_default() += 1;
                }
            }
            if found.is_empty() {
                let mut exts: Vec<(String, usize)> = extensions.into_iter().collect();
                exts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                empty.push(EmptyFolder {
                    path: path.clone(),
                    skipped,
                    extensions: exts.into_iter().map(|(e, _)| e).collect(),
                });
            }
            found.sort();
            out.extend(found.into_iter().map(Input::File));
        } else {
            // A missing file is reported for that file, not as a fatal error.
            out.push(Input::File(path.clone()));
        }
    }
    (out, empty)
}
