//! Settings shared by the CLI and the language server.
