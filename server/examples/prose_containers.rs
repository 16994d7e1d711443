//! Writes the reorder test's containers of a real-prose corpus as JSONL, for the ordering heads'
//! trainer (`models/train/ordering/prose.py`): the same sections and paragraphs of running prose
//! that `segue eval --task reorder` shuffles, segmented by Segue's own parsers.
//!
//! ```sh
//! cargo run --release -p segue --example prose_containers -- target/prose/train > prose.train.jsonl
//! ```
//!
//! One line per container: `{"id", "genre", "level", "paragraphs": [[sentence, …], …]}`. A
//! `paragraph` line is a section (its paragraphs are the units; those of 3 to 8 sentences are also
//! sentence containers); a `sentence` line is a paragraph of a section that is not a paragraph
//! container. So every sentence is written once.

use anyhow::{bail, Context, Result};
use segue::eval::prose::read_prose_corpus;
use segue::eval::reorder_eval::containers;
use segue::score::Level;
use segue::text::parse;
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

fn main() -> Result<()> {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        bail!("usage: prose_containers CORPUS_DIR > containers.jsonl");
    };
    let docs = read_prose_corpus(&dir).with_context(|| format!("reading {}", dir.display()))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for doc in &docs {
        let parsed = parse(&doc.source, doc.format);
        let mut covered: HashSet<Vec<&str>> = HashSet::new();
        for (k, (level, units)) in containers(&parsed).into_iter().enumerate() {
            let paragraphs: Vec<Vec<&str>> = match level {
                Level::Paragraph => {
                    covered.extend(units.iter().cloned());
                    units
                }
                Level::Sentence => {
                    let paragraph: Vec<&str> = units.into_iter().flatten().collect();
                    if covered.contains(&paragraph) {
                        continue;
                    }
                    vec![paragraph]
                }
            };
            let line = serde_json::json!({
                "id": format!("{}#{k}", doc.id),
                "genre": doc.genre,
                "level": level.name(),
                "paragraphs": paragraphs,
            });
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(())
}
