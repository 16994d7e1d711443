//! A research tool, ignored by default, that writes the intrusion models' training data:
//! `write_prose_corpus` writes a real-prose corpus folder as Segue segments it, for
//! `models/train/embed.py` (the encoder's vectors), `models/train/static_vectors.py` (tier 0's)
//! and the intrusion trainer (`models/train/intrusion/train.py`; see the test).

use segue::eval::prose::read_prose_corpus;
use segue::score::analysis::paragraph_units;
use segue::text::parse;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

/// `path` as given when absolute, else under the repository root.
fn from_root(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

/// Writes a real-prose corpus folder (`tests/prose/`'s parts under `target/prose/`) as a JSONL
/// corpus that `models/train/embed.py` embeds and `models/train/intrusion/train.py`
/// trains on: one line per file, `id`, `genre` and `paragraphs` (each paragraph's sentences, as
/// Segue's own parser segments the file):
///
/// ```sh
/// SEGUE_PROSE_DIR=target/prose/train SEGUE_PROSE_OUT=target/intrusion/prose-train.jsonl \
///   cargo test --release -p segue --test intrusion_data -- --ignored --nocapture prose
/// ```
///
/// (Relative paths are read from the repository root, not `server/` where the test runs.)
#[test]
#[ignore = "research tool: writes a real-prose corpus as JSONL for the intrusion trainer"]
fn write_prose_corpus() {
    let Some(dir) = env("SEGUE_PROSE_DIR") else {
        println!("skipped: set SEGUE_PROSE_DIR to a real-prose corpus folder");
        return;
    };
    let out =
        from_root(&env("SEGUE_PROSE_OUT").unwrap_or_else(|| "target/intrusion/prose.jsonl".into()));
    let docs = read_prose_corpus(&from_root(&dir)).expect("corpus");
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).expect("output folder");
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(&out).expect("output"));
    for doc in &docs {
        let parsed = parse(&doc.source, doc.format);
        let (_, units) = paragraph_units(&parsed);
        let row = json!({"id": doc.id, "genre": doc.genre, "paragraphs": units});
        writeln!(file, "{row}").expect("write");
    }
    println!("{} documents → {}", docs.len(), out.display());
}
