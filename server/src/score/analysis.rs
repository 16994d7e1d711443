//! Scores every transition of a document.
