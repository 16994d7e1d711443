//! JSONL corpora: one document per line, `{"id", "paragraphs": [[sentence, …], …]}` or
//! `{"id", "sentences": [...]}` (a single paragraph).

use serde::Deserialize;
use std::io::BufRead;
use std::path::Path;

/// A document of a corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusDoc {
    /// The document's id.
    pub id: String,
    /// Paragraphs of sentences.
    pub paragraphs: Vec<Vec<String>>,
}

impl CorpusDoc {
    /// All sentences in order.
    pub fn sentences(&self) -> Vec<&str> {
        self.paragraphs
            .iter()
            .flatten()
            .map(String::as_str)
            .collect()
    }
}

#[derive(Deserialize)]
struct RawDoc {
    #[serde(default)]
    id: serde_json::Value,
    #[serde(default)]
    paragraphs: Option<Vec<Vec<String>>>,
    #[serde(default)]
    sentences: Option<Vec<String>>,
}

/// Errors reading a corpus.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not a valid document.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// One-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Reads a JSONL corpus. Blank lines are skipped; a malformed line is an error naming the line.
pub fn read_corpus(path: &Path) -> Result<Vec<CorpusDoc>, CorpusError> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| CorpusError::Io {
        path: shown.clone(),
        source,
    })?;
    let mut docs = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|source| CorpusError::Io {
            path: shown.clone(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let parse_err = |message: String| CorpusError::Parse {
            path: shown.clone(),
            line: i + 1,
            message,
        };
        let raw: RawDoc = serde_json::from_str(&line).map_err(|e| parse_err(e.to_string()))?;
        let paragraphs = match (raw.paragraphs, raw.sentences) {
            (Some(p), _) => p,
            (None, Some(s)) => vec![s],
            (None, None) => return Err(parse_err("needs \"paragraphs\" or \"sentences\"".into())),
        };
        let id = match raw.id {
            serde_json::Value::String(s) => s,
            serde_json::Value::Null => format!("line-{}", i + 1),
            other => other.to_string(),
        };
        let paragraphs: Vec<Vec<String>> =
            paragraphs.into_iter().filter(|p| !p.is_empty()).collect();
        docs.push(CorpusDoc { id, paragraphs });
    }
    Ok(docs)
}
