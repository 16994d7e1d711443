//! The session and the `LanguageServer` implementation.
//!
//! **Threading.** Handlers run on the tokio runtime. Mutating notifications (`didOpen`,
//! `didChange`, `didClose`) do all their work synchronously, before their first `.await`, under a
//! short `std::sync::Mutex` on the document map; tower-lsp-server polls handler futures for the
//! first time in arrival order, so edits apply in order. Analysis never runs on the runtime's
//! workers: each run goes to `spawn_blocking` with a snapshot (a cheap clone of the rope), and the
//! per-document [`Engine`] (the score cache) sits behind its own mutex, so two runs of one document
//! never overlap. Hover and code actions also compute on `spawn_blocking` (a panic there becomes
//! an error reply, not a dead server).
//!
//! **Cancellation and debounce.** Every change (and every settings change) bumps the document's
//! generation counter and schedules a run that first sleeps `debounce` ms, then checks whether its
//! generation is still current; the engine checks again between stages and every few dozen
//! transitions, and the result is published only if, under the document's publish lock, the
//! generation is still current. So a stale version never produces diagnostics.
//!
//! **Tiers.** A run computes tier 0 and publishes it at once. A model tier would run after it in the
//! same task (after its own checks) and publish again for the same version, replacing tier 0's
//! diagnostics; pull requests always get the latest published set.

use super::actions::{code_actions, ActionRequest};
use super::convert;
use super::document::TextDocument;
use super::engine::Engine;
use super::hover::hover;
use crate::config::TierChoice;
use crate::text::Format;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};
use tracing::{debug, info, warn};

/// Commands the server executes.
pub const COMMANDS: &[&str] = &[CHECK_WORKSPACE, SHOW_DOCUMENT_SCORE];
/// Checks every supported file under the workspace folders.
pub const CHECK_WORKSPACE: &str = "segue.checkWorkspace";
/// Returns (and shows) the coherence score of a document.
pub const SHOW_DOCUMENT_SCORE: &str = "segue.showDocumentScore";
/// The hidden request that returns the server's copy of a document (tests, debugging).
pub const DEBUG_TEXT: &str = "segue/debugText";
pub use super::session::WAIT_LIMIT;
use super::session::*;

/// The language server.
pub struct Backend {
    pub(crate) session: Arc<Session>,
}

/// Parameters of `segue/debugText`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DebugTextParams {
    /// The document.
    pub uri: Uri,
}

/// Result of `segue/debugText`: the server's copy of a document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DebugText {
    /// The version of the last change applied.
    pub version: i32,
    /// The text.
    pub text: String,
}

impl Backend {
    /// A backend talking to `client`.
    pub fn new(client: Client) -> Self {
        super::logging::connect(client.clone());
        Backend {
            session: Arc::new(Session::new(client)),
        }
    }

    /// `segue/debugText`: the server's text of an open document (hidden; for tests).
    pub async fn debug_text(&self, params: DebugTextParams) -> Result<Option<DebugText>> {
        Ok(lock(&self.session.docs)
            .get(&params.uri)
            .map(|e| DebugText {
                version: e.doc.version(),
                text: e.doc.text(),
            }))
    }

    /// `window/workDoneProgress/cancel`: cancels a running `segue.checkWorkspace`.
    pub async fn progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        let key = token_key(&params.token);
        if let Some(flag) = lock(&self.session.progress_cancels).get(&key) {
            flag.store(true, Ordering::SeqCst);
            info!("workspace check cancelled by the client");
        }
    }
}

fn roots_of(params: &InitializeParams) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| convert::path(&f.uri))
        .collect();
    if roots.is_empty() {
        #[allow(deprecated)]
        if let Some(p) = params.root_uri.as_ref().and_then(convert::path) {
            roots.push(p);
        }
    }
    roots
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let caps = Caps::from_client(&params.capabilities);
        info!(
            "initialize from {}: pull diagnostics {}, configuration {}",
            params
                .client_info
                .as_ref()
                .map_or("an unnamed client", |c| c.name.as_str()),
            caps.pull,
            caps.configuration
        );
        if let Ok(mut c) = self.session.caps.write() {
            *c = caps;
        }
        {
            let mut settings = lock(&self.session.settings);
            settings.set_roots(roots_of(&params));
            let user_file = crate::config::sources::existing_user_config_file();
            let w = settings.set_user_file(user_file.as_deref());
            lock(&self.session.pending_warnings).extend(w);
            if let Some(opts) = params.initialization_options.clone() {
                let w = settings.set_editor(opts);
                lock(&self.session.pending_warnings).extend(w);
            }
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(PositionEncodingKind::UTF16),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        will_save: None,
                        will_save_wait_until: None,
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![
                            CodeActionKind::QUICKFIX,
                            CodeActionKind::REFACTOR_REWRITE,
                        ]),
                        work_done_progress_options: WorkDoneProgressOptions::default(),
                        resolve_provider: None,
                    },
                )),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
                    work_done_progress_options: WorkDoneProgressOptions {
                        work_done_progress: Some(true),
                    },
                }),
                diagnostic_provider: Some(DiagnosticServerCapabilities::Options(
                    DiagnosticOptions {
                        identifier: Some("segue".to_string()),
                        inter_file_dependencies: false,
                        workspace_diagnostics: false,
                        work_done_progress_options: WorkDoneProgressOptions::default(),
                    },
                )),
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "segue".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let session = self.session.clone();
        let caps = session.caps();
        let mut registrations = Vec::new();
        if caps.dynamic_configuration {
            registrations.push(Registration {
                id: "segue-configuration".to_string(),
                method: "workspace/didChangeConfiguration".to_string(),
                register_options: None,
            });
        }
        if caps.dynamic_watch {
            let options = DidChangeWatchedFilesRegistrationOptions {
                watchers: vec![FileSystemWatcher {
                    glob_pattern: GlobPattern::String(format!("**/{}", crate::config::FILE_NAME)),
                    kind: None,
                }],
            };
            registrations.push(Registration {
                id: "segue-toml".to_string(),
                method: "workspace/didChangeWatchedFiles".to_string(),
                register_options: serde_json::to_value(options).ok(),
            });
        }
        if !registrations.is_empty() {
            if let Err(e) = session.client.register_capability(registrations).await {
                debug!("client/registerCapability failed: {e}");
            }
        }
        let pending = std::mem::take(&mut *lock(&session.pending_warnings));
        session.warn_user(pending).await;
        if caps.configuration {
            session.reload_settings(None).await;
        }
        let resolved = session.resolved_for(None).await;
        info!(
            "segue {} ready: scorer `{}`, debounce {} ms",
            env!("CARGO_PKG_VERSION"),
            resolved.scorer.name(),
            resolved.config.debounce_ms
        );
        if resolved.config.tier != TierChoice::Builtin {
            session.load_models(&resolved.config);
        }
    }

    async fn shutdown(&self) -> Result<()> {
        self.session.abandon_work();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let d = params.text_document;
        let format = Format::from_language_id(&d.language_id)
            .or_else(|| convert::path(&d.uri).and_then(|p| Format::from_path(&p)));
        {
            let mut docs = lock(&self.session.docs);
            let (tx, _) = watch::channel(None);
            let generation = docs
                .get(&d.uri)
                .map(|e| {
                    // Reopened without a close: cancel the old entry's work.
                    e.generation.fetch_add(1, Ordering::SeqCst);
                    e.generation.load(Ordering::SeqCst)
                })
                .unwrap_or(0);
            docs.insert(
                d.uri.clone(),
                DocEntry {
                    doc: TextDocument::new(&d.text, d.version, &d.language_id, format),
                    path: convert::path(&d.uri),
                    generation: Arc::new(AtomicU64::new(generation)),
                    engine: Arc::new(Mutex::new(Engine::new())),
                    results: Arc::new(tx),
                    publish: Arc::new(tokio::sync::Mutex::new(())),
                },
            );
        }
        self.session.schedule(&d.uri);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let warnings = {
            let mut docs = lock(&self.session.docs);
            match docs.get_mut(&uri) {
                Some(e) => e
                    .doc
                    .apply_changes(&params.content_changes, params.text_document.version),
                None => vec!["didChange for a document that is not open; ignored".to_string()],
            }
        };
        for w in warnings {
            warn!("{}: {w}", uri.as_str());
        }
        self.session.schedule(&uri);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let removed = lock(&self.session.docs).remove(&uri);
        if let Some(e) = removed {
            e.generation.fetch_add(1, Ordering::SeqCst);
            if !self.session.caps().pull {
                let _guard = e.publish.lock().await;
                self.session
                    .client
                    .publish_diagnostics(uri, Vec::new(), None)
                    .await;
            }
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let is_config = convert::path(&params.text_document.uri)
            .is_some_and(|p| p.file_name().is_some_and(|n| n == crate::config::FILE_NAME));
        if is_config {
            self.session.reload_files().await;
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let pushed = match params.settings {
            Value::Null => None,
            v => Some(v),
        };
        self.session.reload_settings(pushed).await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let touches_config = params.changes.iter().any(|c| {
            convert::path(&c.uri)
                .is_some_and(|p| p.file_name().is_some_and(|n| n == crate::config::FILE_NAME))
        });
        if touches_config {
            self.session.reload_files().await;
        }
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        {
            let mut settings = lock(&self.session.settings);
            let mut roots = settings.roots().to_vec();
            let removed: Vec<PathBuf> = params
                .event
                .removed
                .iter()
                .filter_map(|f| convert::path(&f.uri))
                .collect();
            roots.retain(|r| !removed.contains(r));
            roots.extend(
                params
                    .event
                    .added
                    .iter()
                    .filter_map(|f| convert::path(&f.uri)),
            );
            settings.set_roots(roots);
        }
        self.session.schedule_all();
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let uri = params.text_document_position_params.text_document.uri;
        let pos = params.text_document_position_params.position;
        let Some(snapshot) = self.session.current(&uri).await else {
            return Ok(None);
        };
        let markdown = self.session.caps().markdown_hover;
        tokio::task::spawn_blocking(move || hover(&snapshot.analyzed, pos, markdown))
            .await
            .map_err(internal)
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri;
        let Some(snapshot) = self.session.current(&uri).await else {
            return Ok(None);
        };
        if self.session.version_of(&uri) != Some(snapshot.analyzed.version) {
            // Edited while we waited: the client will ask again.
            return Ok(None);
        }
        let versioned_edits = self.session.caps().versioned_edits;
        let actions = tokio::task::spawn_blocking(move || {
            code_actions(&ActionRequest {
                uri: &uri,
                analyzed: &snapshot.analyzed,
                range: params.range,
                diagnostics: &params.context.diagnostics,
                only: params.context.only.as_deref(),
                versioned_edits,
            })
        })
        .await
        .map_err(internal)?;
        Ok(Some(actions))
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        let uri = params.text_document.uri;
        let Some(snapshot) = self.session.current(&uri).await else {
            if self.session.version_of(&uri).is_some() {
                return Err(server_cancelled());
            }
            return Ok(DocumentDiagnosticReportResult::Report(
                DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                    related_documents: None,
                    full_document_diagnostic_report: FullDocumentDiagnosticReport {
                        result_id: None,
                        items: Vec::new(),
                    },
                }),
            ));
        };
        let result_id = snapshot.result_id();
        if params.previous_result_id.as_deref() == Some(result_id.as_str()) {
            return Ok(DocumentDiagnosticReportResult::Report(
                DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                    related_documents: None,
                    unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                        result_id,
                    },
                }),
            ));
        }
        Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: Some(result_id),
                    items: snapshot.diagnostics.clone(),
                },
            }),
        ))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        match params.command.as_str() {
            CHECK_WORKSPACE => super::commands::check_workspace(&self.session, params).await,
            SHOW_DOCUMENT_SCORE => {
                super::commands::show_document_score(&self.session, params).await
            }
            other => Err(Error::invalid_params(format!("unknown command `{other}`"))),
        }
    }
}
