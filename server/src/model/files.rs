//! The models folder: where it is, what it holds, and the committed sha256 sums of its files.
//!
//! `models/install` lays the folder out (see `models/README.md`):
//!
//! ```text
//! models/lib/libonnxruntime.so.1.31.1          ONNX Runtime (CPU), from the onnxruntime wheel
//! models/lib/gpu/libonnxruntime.so.1.31.1      ONNX Runtime (CUDA), from onnxruntime-gpu (--gpu)
//! models/onnx/minilm/{model.onnx,tokenizer.json}
//! models/onnx/minilm/model.int8.onnx           the same weights in int8 (export/quantize.py)
//! models/onnx/reader/model.onnx
//! ```
//!
//! `models/manifest.tsv` (compiled in) lists every downloaded archive and installed file with its
//! sha256; [`verify`] checks a folder against it.

use super::{ModelError, ModelOptions};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// A sentence encoder the models folder can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSpec {
    /// Stable id, part of cache keys.
    pub id: &'static str,
    /// Human name.
    pub name: &'static str,
    /// Folder under the models folder.
    pub dir: &'static str,
    /// The ONNX file in `dir`.
    pub model_file: &'static str,
    /// The tokenizer file in `dir`.
    pub tokenizer_file: &'static str,
    /// Longest input in tokens (including `[CLS]` and `[SEP]`); longer sentences are truncated.
    pub max_tokens: usize,
    /// Embedding dimension.
    pub dim: usize,
    /// Graph input holding token ids.
    pub input_ids: &'static str,
    /// Graph input holding the attention mask.
    pub attention_mask: &'static str,
    /// Graph output holding the (pooled, unit-length) sentence embeddings.
    pub output: &'static str,
}

/// all-MiniLM-L6-v2 with mean pooling and L2 normalisation inside the graph
/// (exported by `models/export/export_minilm.py`). 256 tokens is the length sentence-transformers
/// uses for it (`max_seq_length`).
pub const MINILM: ModelSpec = ModelSpec {
    id: "all-minilm-l6-v2",
    name: "all-MiniLM-L6-v2",
    dir: "onnx/minilm",
    model_file: "model.onnx",
    tokenizer_file: "tokenizer.json",
    max_tokens: 256,
    dim: 384,
    input_ids: "input_ids",
    attention_mask: "attention_mask",
    output: "sentence_embedding",
};

/// The weights a model runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// The int8 copies `models/install` makes of the sentence encoder and the flow judge (weights
    /// per column, activations quantised per token at run time, so a result does not depend on
    /// the batch) where they are installed and the session runs on the CPU; the float32 exports
    /// otherwise. About 70 % of the CPU time per sentence (docs/performance.md). The
    /// paragraph reader runs in float32.
    #[default]
    Auto,
    /// Always the float32 export.
    Fp32,
}

impl Precision {
    /// `auto` or `fp32`; anything else is `None`.
    pub fn parse(text: &str) -> Option<Precision> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" | "int8" => Some(Precision::Auto),
            "fp32" | "float32" => Some(Precision::Fp32),
            _ => None,
        }
    }
}

/// The file name of the int8 copy of the ONNX file `file` (`model.onnx` → `model.int8.onnx`).
pub fn int8_file(file: &str) -> String {
    match file.strip_suffix(".onnx") {
        Some(stem) => format!("{stem}.int8.onnx"),
        None => format!("{file}.int8"),
    }
}

/// The ONNX file to load for the float32 export at `fp32`: its int8 copy beside it when
/// `precision` allows it, the session is meant for the CPU (`cpu`) and the copy exists; `fp32`
/// otherwise (an install from before the copies existed keeps working).
pub fn weights_path(fp32: &Path, precision: Precision, cpu: bool) -> PathBuf {
    if precision == Precision::Auto && cpu {
        if let Some(name) = fp32.file_name().and_then(|n| n.to_str()) {
            let int8 = fp32.with_file_name(int8_file(name));
            if int8.is_file() {
                return int8;
            }
        }
    }
    fp32.to_path_buf()
}

impl ModelSpec {
    /// The ONNX file under `models_dir`.
    pub fn model_path(&self, models_dir: &Path) -> PathBuf {
        models_dir.join(self.dir).join(self.model_file)
    }

    /// The tokenizer file under `models_dir`.
    pub fn tokenizer_path(&self, models_dir: &Path) -> PathBuf {
        models_dir.join(self.dir).join(self.tokenizer_file)
    }
}

/// The ONNX Runtime version the `ort` crate is built for and `models/install` pins.
pub const ORT_VERSION: &str = "1.31.1";

/// File name of the ONNX Runtime library in the models folder.
#[cfg(target_os = "macos")]
pub const ORT_LIB_FILE: &str = "libonnxruntime.1.31.1.dylib";
/// File name of the ONNX Runtime library in the models folder.
#[cfg(target_os = "windows")]
pub const ORT_LIB_FILE: &str = "onnxruntime.dll";
/// File name of the ONNX Runtime library in the models folder.
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
pub const ORT_LIB_FILE: &str = "libonnxruntime.so.1.31.1";

/// The CPU build of ONNX Runtime under `models_dir`.
pub fn cpu_library(models_dir: &Path) -> PathBuf {
    models_dir.join("lib").join(ORT_LIB_FILE)
}

/// The CUDA build of ONNX Runtime under `models_dir` (installed by `models/install --gpu`).
pub fn gpu_library(models_dir: &Path) -> PathBuf {
    models_dir.join("lib").join("gpu").join(ORT_LIB_FILE)
}

/// Where the models folder was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelsDir {
    /// The folder.
    pub path: PathBuf,
    /// How it was found (for `segue doctor`).
    pub how: &'static str,
}

/// The models folder: the `models_dir` option (setting or `SEGUE_MODELS_DIR`) when given;
/// otherwise the first place of [`search_order`] that holds the sentence encoder's ONNX file. When
/// none does, the first that exists, else an error naming the fix.
pub fn locate_models_dir(options: &ModelOptions) -> Result<ModelsDir, ModelError> {
    let candidates = candidates(options);
    let spec = &super::MINILM;
    if let Some((path, how)) = candidates
        .iter()
        .find(|(p, _)| spec.model_path(p).is_file())
    {
        return Ok(ModelsDir {
            path: path.clone(),
            how,
        });
    }
    match candidates.into_iter().find(|(p, _)| p.is_dir()) {
        Some((path, how)) => Ok(ModelsDir { path, how }),
        None => Err(ModelError::NotInstalled {
            model: spec.name.to_string(),
            path: options
                .models_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from("models")),
        }),
    }
}

/// `Ok` when every file of `model` in `paths` exists, else [`ModelError::NotInstalled`] naming the
/// first missing one (the loaders check before they open anything).
pub fn require_files(model: &str, paths: &[&Path]) -> Result<(), ModelError> {
    match paths.iter().find(|p| !p.is_file()) {
        Some(missing) => Err(ModelError::NotInstalled {
            model: model.to_string(),
            path: missing.to_path_buf(),
        }),
        None => Ok(()),
    }
}

fn candidates(options: &ModelOptions) -> Vec<(PathBuf, &'static str)> {
    if let Some(dir) = &options.models_dir {
        return vec![(dir.clone(), EXPLICIT)];
    }
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf));
    search_order(&source_tree(), exe_dir.as_deref(), data_dir().as_deref())
        .into_iter()
        .map(|(p, how)| (std::fs::canonicalize(&p).unwrap_or(p), how))
        .collect()
}

/// How a models folder given by the `models_dir` setting or `SEGUE_MODELS_DIR` was found.
pub const EXPLICIT: &str = "the models_dir setting / SEGUE_MODELS_DIR";

/// The places searched for the models folder when none is set, in order, each with how it was
/// found: the source tree's `models/` (`source_tree`, for builds run from their checkout),
/// `models/` beside the executable (`exe_dir`) and two folders above it (`target/debug/segue`),
/// the user's data folder (`data_dir`, where `segue models install` puts the models when run
/// outside a source tree), then `../share/segue/models` beside the executable (a system-wide
/// install, after the user's own as the XDG specification orders them).
pub fn search_order(
    source_tree: &Path,
    exe_dir: Option<&Path>,
    data_dir: Option<&Path>,
) -> Vec<(PathBuf, &'static str)> {
    let mut out = vec![(source_tree.to_path_buf(), "the source tree")];
    if let Some(exe_dir) = exe_dir {
        out.push((exe_dir.join("models"), "beside the executable"));
        out.push((
            exe_dir.join("..").join("..").join("models"),
            "two folders above the executable",
        ));
    }
    if let Some(data_dir) = data_dir {
        out.push((data_dir.to_path_buf(), "the user data folder"));
    }
    if let Some(exe_dir) = exe_dir {
        out.push((
            exe_dir
                .join("..")
                .join("share")
                .join("segue")
                .join("models"),
            "../share/segue/models",
        ));
    }
    out
}

/// The `models/` folder of the source tree this binary was built from (it may not exist: a
/// packaged crate has none).
pub fn source_tree() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("models")
}

/// The user's models folder: `segue/models` in the platform data directory (on Linux
/// `$XDG_DATA_HOME/segue/models`, by default `~/.local/share/segue/models`). `None` without a
/// home folder.
pub fn data_dir() -> Option<PathBuf> {
    crate::config::sources::platform_data_dir().map(|d| d.join("segue").join("models"))
}

/// Where `segue models install` installs, with how that place was chosen: the `models_dir` option
/// when given; else, for a binary run from inside the source tree it was built in (`cargo run`,
/// `target/debug/segue`), that tree's `models/`; else the user's [`data_dir`]. `None` when none
/// applies (no home folder).
pub fn install_dir(options: &ModelOptions) -> Option<(PathBuf, &'static str)> {
    if let Some(dir) = &options.models_dir {
        return Some((dir.clone(), EXPLICIT));
    }
    let tree = std::fs::canonicalize(source_tree()).ok();
    let exe = std::env::current_exe()
        .ok()
        .and_then(|e| std::fs::canonicalize(e).ok());
    if let (Some(tree), Some(exe)) = (tree, exe) {
        if tree.parent().is_some_and(|root| exe.starts_with(root)) {
            return Some((tree, "the source tree this binary runs from"));
        }
    }
    data_dir().map(|d| (d, "the user data folder"))
}

/// One line of `models/manifest.tsv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// `archive` (a downloaded package), `file` (an installed file), or `gpu-archive` / `gpu-file`
    /// (only with `models/install --gpu`).
    pub kind: String,
    /// Path under the models folder.
    pub path: String,
    /// Expected sha256, lower-case hex.
    pub sha256: String,
    /// Where it comes from: package, version, member.
    pub source: String,
}

impl ManifestEntry {
    /// Whether only GPU installs have this file.
    pub fn gpu_only(&self) -> bool {
        self.kind.starts_with("gpu-")
    }

    /// Whether this is an installed file (not a downloaded archive).
    pub fn is_file(&self) -> bool {
        self.kind.ends_with("file")
    }
}

/// The committed manifest.
pub const MANIFEST: &str = include_str!("../../models/manifest.tsv");

/// The manifest's entries (comments and blank lines skipped).
pub fn manifest() -> Vec<ManifestEntry> {
    parse_manifest(MANIFEST)
}

/// Parses manifest text: tab-separated `kind path sha256 source`, `#` comments.
pub fn parse_manifest(text: &str) -> Vec<ManifestEntry> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let mut cols = l.split('\t');
            Some(ManifestEntry {
                kind: cols.next()?.to_string(),
                path: cols.next()?.to_string(),
                sha256: cols.next()?.to_ascii_lowercase(),
                source: cols.next().unwrap_or("").to_string(),
            })
        })
        .collect()
}

/// The state of one manifest file in a models folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileState {
    /// Present with the expected sha256.
    Ok,
    /// Not there.
    Missing,
    /// There, with another sha256.
    Mismatch {
        /// The sha256 found.
        actual: String,
    },
    /// There but unreadable.
    Unreadable(String),
}

/// One checked file.
#[derive(Debug, Clone)]
pub struct FileCheck {
    /// The manifest entry.
    pub entry: ManifestEntry,
    /// The file's path.
    pub path: PathBuf,
    /// Size in bytes, when present.
    pub size: Option<u64>,
    /// What was found.
    pub state: FileState,
}

/// Checks every installed file of the manifest (`file` entries, and `gpu-file` entries when
/// `gpu`) under `models_dir`, hashing each.
pub fn verify(models_dir: &Path, gpu: bool) -> Vec<FileCheck> {
    manifest()
        .into_iter()
        .filter(|e| e.is_file() && (gpu || !e.gpu_only()))
        .map(|entry| {
            let path = models_dir.join(&entry.path);
            let size = std::fs::metadata(&path).ok().map(|m| m.len());
            let state = if !path.is_file() {
                FileState::Missing
            } else {
                match sha256_file(&path) {
                    Ok(actual) if actual == entry.sha256 => FileState::Ok,
                    Ok(actual) => FileState::Mismatch { actual },
                    Err(e) => FileState::Unreadable(e.to_string()),
                }
            };
            FileCheck {
                entry,
                path,
                size,
                state,
            }
        })
        .collect()
}

/// The sha256 of a file, lower-case hex.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_lists_the_library_and_model_with_hashes() {
        let m = manifest();
        for needed in [
            format!("lib/{ORT_LIB_FILE}"),
            "onnx/minilm/model.onnx".into(),
            "onnx/minilm/tokenizer.json".into(),
        ] {
            let e = m.iter().find(|e| e.path == needed && e.kind == "file");
            let e = e.unwrap_or_else(|| panic!("{needed} missing from models/manifest.tsv"));
            assert_eq!(e.sha256.len(), 64);
            assert!(e.sha256.chars().all(|c| c.is_ascii_hexdigit()));
            assert!(!e.source.is_empty());
        }
    }

    #[test]
    fn verify_reports_missing_and_mismatched_files() {
        let dir = tempfile::tempdir().unwrap();
        let checks = verify(dir.path(), false);
        assert!(!checks.is_empty());
        assert!(checks.iter().all(|c| c.state == FileState::Missing));
        let tok = dir.path().join("onnx/minilm/tokenizer.json");
        std::fs::create_dir_all(tok.parent().unwrap()).unwrap();
        std::fs::write(&tok, "{}").unwrap();
        let checks = verify(dir.path(), false);
        let c = checks.iter().find(|c| c.path == tok).unwrap();
        assert!(matches!(c.state, FileState::Mismatch { .. }));
    }

    #[test]
    fn the_int8_copy_is_chosen_only_where_it_exists_and_runs_on_the_cpu() {
        let dir = tempfile::tempdir().unwrap();
        let fp32 = dir.path().join("model.onnx");
        std::fs::write(&fp32, b"fp32").unwrap();
        assert_eq!(
            weights_path(&fp32, Precision::Auto, true),
            fp32,
            "no copy yet"
        );
        let int8 = dir.path().join("model.int8.onnx");
        std::fs::write(&int8, b"int8").unwrap();
        assert_eq!(weights_path(&fp32, Precision::Auto, true), int8);
        assert_eq!(weights_path(&fp32, Precision::Auto, false), fp32, "CUDA");
        assert_eq!(weights_path(&fp32, Precision::Fp32, true), fp32);
        assert_eq!(Precision::parse(" FP32 "), Some(Precision::Fp32));
        assert_eq!(Precision::parse("auto"), Some(Precision::Auto));
        assert_eq!(Precision::parse("int4"), None);
    }

    #[test]
    fn parses_comments_and_tabs() {
        let m = parse_manifest("# c\n\nfile\ta/b\tABCD\tsrc x\n");
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].sha256, "abcd");
        assert_eq!(m[0].source, "src x");
    }
}
