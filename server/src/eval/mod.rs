//! `segue eval`: measuring scorers on JSONL corpora.
