//! Snapshots of the diagnostics `segue serve` publishes for real documents.
//!
//! The snapshots use the `lexical` scorer, whose scores are plain cosines that do not change when
//! the tier-0 model is retrained; they still change when the sentence splitter, the parsers or
//! `models/calibration.json` change. Review and re-accept them then
//! (`INSTA_UPDATE=always cargo test -p segue --test lsp_snapshots`, then read the diff).

mod common;

use common::*;
use serde_json::{json, Value};
use std::path::PathBuf;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

fn compact(r: &lsp::Range) -> String {
    format!(
        "{}:{}-{}:{}",
        r.start.line, r.start.character, r.end.line, r.end.character
    )
}

/// The diagnostics of `path` (opened as `language`), in a compact, reviewable form.
fn published(c: &mut Client, path: &PathBuf, language: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("fixture");
    let uri = file_uri(path);
    c.open(&uri, language, 1, &text);
    c.diagnostics(&uri, 1)
        .iter()
        .map(|d| {
            let s = offset_of(&text, d.range.start);
            let e = offset_of(&text, d.range.end);
            let excerpt: String = text[s..e].chars().take(60).collect();
            json!({
                "range": compact(&d.range),
                "code": d.code,
                "severity": d.severity,
                "message": d.message,
                "related": d.related_information.as_ref().map(|r| compact(&r[0].location.range)),
                "text": excerpt,
            })
        })
        .collect()
}

#[test]
fn diagnostics_of_real_documents() {
    let mut c = Client::spawn();
    c.initialize(
        push_caps(),
        None,
        Some(json!({"debounce": 0, "scorer": "lexical"})),
    );
    let cases = [
        (
            "sotu_2002_tex",
            "server/tests/fixtures/lsp/sotu-2002.tex",
            "latex",
        ),
        ("sample_md", "docs/sample.md", "markdown"),
        (
            "nomicon_unwinding_txt",
            "tests/corpus/nomicon-unwinding.txt",
            "plaintext",
        ),
        (
            "ciborium_readme_md",
            "tests/corpus/ciborium-readme.md",
            "markdown",
        ),
    ];
    for (name, rel, language) in cases {
        let path = repo(rel);
        if !path.is_file() {
            panic!("missing fixture {}", path.display());
        }
        let diags = published(&mut c, &path, language);
        insta::assert_json_snapshot!(format!("lsp_{name}"), diags);
    }
    assert!(c.shutdown_and_exit().success());
}
