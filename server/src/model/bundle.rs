//! The models folder's committed files, compiled in, so that a binary installed without its source
//! tree can lay out a models folder and install the models there (`segue models install`).
//!
//! The bundle is what `models/install` reads and what the tier 1 scorers load besides the
//! downloaded files: the script itself, `manifest.tsv` (the sha256 of every download and every
//! installed file, which the script checks), the export scripts and their pinned requirements,
//! the paragraph reader's adapter (`ordering/reader.safetensors`), the ordering and BBScore heads,
//! and the model cards. They are read from `server/models`, a link to the repository's `models/`
//! whose content `cargo package` copies into the package, so the same paths work in a checkout, a
//! `cargo install --git` and a packaged crate.
//!
//! A folder laid out from the bundle holds [`MARKER`]; [`is_own_tree`] tells such a folder from a
//! source tree's `models/`, which is never written to.

use super::ModelError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One compiled-in file of the models folder.
#[derive(Debug, Clone, Copy)]
pub struct BundledFile {
    /// Path under the models folder, `/`-separated.
    pub path: &'static str,
    /// The committed content.
    pub bytes: &'static [u8],
}

impl BundledFile {
    /// Whether the file is a program (the install script), written with the executable bits.
    pub fn executable(&self) -> bool {
        self.path == SCRIPT
    }
}

macro_rules! bundled {
    ($($path:literal),* $(,)?) => {
        &[$(BundledFile { path: $path, bytes: include_bytes!(concat!("../../models/", $path)) }),*]
    };
}

/// The install script under the models folder.
pub const SCRIPT: &str = "install";

/// The file that marks a folder laid out from the bundle: `segue models install` may overwrite the
/// bundled files there (a newer binary brings newer ones).
pub const MARKER: &str = ".segue-bundle";

/// The compiled-in files, in the order they are written (the script last).
pub const FILES: &[BundledFile] = bundled![
    "manifest.tsv",
    "README.md",
    "export/__init__.py",
    "export/requirements.txt",
    "export/adapter.py",
    "export/export_minilm.py",
    "export/export_reader.py",
    "export/quantize.py",
    "ordering/README.md",
    "ordering/ordering.json",
    "ordering/sentence.onnx",
    "ordering/paragraph.onnx",
    "ordering/reader.safetensors",
    "ordering/flow.safetensors",
    "bbscore/README.md",
    "bbscore/sigma.json",
    "bbscore/head.onnx",
    "bbscore/clf.onnx",
    "install",
];

/// Whether `dir` is a models folder with its own install script that was not laid out from the
/// bundle: a source tree's `models/` (or a copy of one). `segue models install` runs its script
/// there and writes nothing of its own.
pub fn is_own_tree(dir: &Path) -> bool {
    dir.join(SCRIPT).is_file() && !dir.join(MARKER).is_file()
}

/// The bundled files whose copy under `dir` is missing or differs from this build's.
pub fn stale(dir: &Path) -> Vec<&'static str> {
    FILES
        .iter()
        .filter(|f| std::fs::read(native(dir, f.path)).ok().as_deref() != Some(f.bytes))
        .map(|f| f.path)
        .collect()
}

/// What [`lay_out`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaidOut {
    /// The files written (missing or different before).
    pub written: Vec<&'static str>,
    /// How many were already there with this build's content.
    pub unchanged: usize,
}

/// Writes the bundled files that are missing or differ under `dir` (creating it), each through a
/// temporary file renamed into place, and then [`MARKER`]. Refuses a folder for which
/// [`is_own_tree`] holds: a source tree's files are never overwritten.
pub fn lay_out(dir: &Path) -> Result<LaidOut, ModelError> {
    if is_own_tree(dir) {
        return Err(ModelError::Io {
            path: dir.join(SCRIPT),
            source: std::io::Error::other(
                "this folder has its own install script (a source tree's models/); run it instead",
            ),
        });
    }
    let mut done = LaidOut::default();
    for file in FILES {
        let path = native(dir, file.path);
        if std::fs::read(&path).ok().as_deref() == Some(file.bytes) {
            done.unchanged += 1;
            continue;
        }
        write_atomically(&path, file.bytes, file.executable())?;
        done.written.push(file.path);
    }
    let marker = format!(
        "Laid out by segue {} (`segue models install`), which overwrites the files it bundles here.\n",
        env!("CARGO_PKG_VERSION")
    );
    write_atomically(&dir.join(MARKER), marker.as_bytes(), false)?;
    Ok(done)
}

fn native(dir: &Path, path: &str) -> PathBuf {
    path.split('/')
        .fold(dir.to_path_buf(), |p, part| p.join(part))
}

fn write_atomically(path: &Path, bytes: &[u8], executable: bool) -> Result<(), ModelError> {
    let io = |source| ModelError::Io {
        path: path.to_path_buf(),
        source,
    };
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io)?;
    let mut tmp = tempfile::NamedTempFile::new_in(parent).map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = if executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode)).map_err(io)?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_is_the_source_trees_models_folder() {
        let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        for f in FILES {
            let on_disk = std::fs::read(native(&tree, f.path)).expect("committed file");
            assert!(
                on_disk == f.bytes,
                "{} differs from models/{}",
                f.path,
                f.path
            );
        }
        assert!(stale(&tree).is_empty());
        assert!(is_own_tree(&tree));
    }

    #[test]
    fn the_bundle_holds_every_file_the_ordering_metadata_names() {
        let meta: serde_json::Value = serde_json::from_slice(
            FILES
                .iter()
                .find(|f| f.path == "ordering/ordering.json")
                .expect("ordering.json")
                .bytes,
        )
        .expect("json");
        for level in ["sentence", "paragraph"] {
            let file = meta["levels"][level]["file"].as_str().expect("file");
            let path = format!("ordering/{file}");
            assert!(FILES.iter().any(|f| f.path == path), "{path} not bundled");
        }
    }

    #[test]
    fn the_bundle_holds_every_committed_file_the_install_script_reads() {
        let script = std::str::from_utf8(FILES.last().expect("script").bytes).expect("utf-8");
        for word in script.split(|c: char| c.is_whitespace() || "\"'();|,".contains(c)) {
            let word = word.trim_end_matches(['.', ':']);
            let committed = (word.starts_with("export/") && !word.contains('$'))
                || word.starts_with("ordering/")
                || word == "manifest.tsv";
            if committed {
                assert!(FILES.iter().any(|f| f.path == word), "{word} not bundled");
            }
        }
    }

    #[test]
    fn lays_out_once_then_only_what_changed_and_never_a_source_tree() {
        let dir = tempfile::tempdir().expect("tempdir");
        let models = dir.path().join("segue").join("models");
        let first = lay_out(&models).expect("lay out");
        assert_eq!(first.written.len(), FILES.len());
        assert!(stale(&models).is_empty());
        assert!(
            !is_own_tree(&models),
            "a laid-out folder is ours to refresh"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(models.join(SCRIPT))
                .expect("script")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        std::fs::write(models.join("ordering/ordering.json"), "{}").expect("write");
        assert_eq!(stale(&models), vec!["ordering/ordering.json"]);
        let again = lay_out(&models).expect("lay out again");
        assert_eq!(again.written, vec!["ordering/ordering.json"]);
        assert_eq!(again.unchanged, FILES.len() - 1);

        let tree = dir.path().join("checkout");
        std::fs::create_dir_all(&tree).expect("mkdir");
        std::fs::write(tree.join(SCRIPT), "#!/bin/sh\n").expect("write");
        assert!(is_own_tree(&tree));
        assert!(lay_out(&tree).is_err());
        assert_eq!(
            std::fs::read_to_string(tree.join(SCRIPT)).expect("read"),
            "#!/bin/sh\n"
        );
    }
}
