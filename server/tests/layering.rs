//! The module layering of `server/src` runs one way (ARCHITECTURE.md, "Layers"): a module may use
//! the modules below it and never one above it. This test reads every `crate::…` path in the
//! source (imports and qualified names alike, comments left out) and fails on an upward one that
//! is not in [`KNOWN`], the short list of upward imports still to be removed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layers, bottom first. A module may use its own layer and those before it.
const LAYERS: [&[&str]; 9] = [
    &["text", "fuzzing"],
    &["config"],
    &["input"],
    &["model"],
    &["score"],
    &["order"],
    &["eval"],
    &["lsp"],
    &["cli"],
];

/// Upward uses that remain, as (file under `src/`, module it reaches). Each is a known debt;
/// remove its line when the code no longer needs it. Nothing may be added here.
const KNOWN: &[(&str, &str)] = &[];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a file's code names through `crate::`, comments left out.
fn uses(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in source.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if let Some(inner) = rest.strip_prefix('{') {
                // `crate::{a::…, b::…}`: every name at the start of a group item.
                let group = inner.split('}').next().unwrap_or("");
                for item in group.split(',') {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    found.insert(name);
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn no_module_uses_a_module_above_it() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut upward = Vec::new();
    let mut known_seen = BTreeSet::new();
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let own = rel
            .split('/')
            .next()
            .unwrap_or("")
            .trim_end_matches(".rs")
            .to_string();
        let Some(own_layer) = layer(&own) else {
            continue; // lib.rs, main.rs: the roots.
        };
        let text = std::fs::read_to_string(file).expect("read");
        for used in uses(&text) {
            let Some(used_layer) = layer(&used) else {
                continue;
            };
            if used_layer > own_layer {
                if KNOWN.contains(&(rel.as_str(), used.as_str())) {
                    known_seen.insert((rel.clone(), used.clone()));
                } else {
                    upward.push(format!("{rel} uses crate::{used}"));
                }
            }
        }
    }
    assert!(
        upward.is_empty(),
        "upward uses (a lower module must not use a higher one; see ARCHITECTURE.md):\n{}",
        upward.join("\n")
    );
    let stale: Vec<String> = KNOWN
        .iter()
        .filter(|(f, m)| !known_seen.contains(&(f.to_string(), m.to_string())))
        .map(|(f, m)| format!("{f} → {m}"))
        .collect();
    assert!(
        stale.is_empty(),
        "these known upward uses are gone; remove them from KNOWN: {stale:?}"
    );
}

#[test]
fn the_reader_finds_grouped_and_qualified_paths() {
    let found = uses(
        "use crate::{score::Level, text::Span};\nlet x = crate::order::decode::best;\n// crate::lsp\n",
    );
    let want: BTreeSet<String> = ["score", "text", "order"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, want);
}
