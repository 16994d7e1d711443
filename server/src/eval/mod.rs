//! `segue eval`: measuring scorers on JSONL corpora.

pub mod data;
