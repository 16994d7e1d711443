//! The server's shared state and its scheduler: open documents, capabilities, settings, the
//! per-document analysis runs (debounce, cancellation, the tier-0 and model stages) and
//! publishing. The `LanguageServer` handlers in [`super::server`] and the commands in
//! [`super::commands`] work on a [`Session`].

use super::diagnostics::diagnostics;
use super::document::TextDocument;
use super::engine::{empty, Analyzed, Cancelled, Engine, Job};
use super::memory::{AfterAnalysis, Trimmer};
use super::settings::{ModelsState, Resolved, SettingsStore};
use super::window;
use crate::input::read::MAX_FILE_BYTES;
use crate::model::ModelOptions;
use crate::score::findings::Calibration;
use crate::score::registry;
use crate::score::ScorerSet;
use crate::text::Format;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;
use tokio::sync::watch;
use tower_lsp_server::jsonrpc::{Error, ErrorCode};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::Client;
use tracing::{debug, error, info, warn};

/// How long a request waits for the analysis of the current version before giving up.
pub const WAIT_LIMIT: Duration = Duration::from_secs(30);
/// LSP's `ServerCancelled` error code (3.17), with `retriggerRequest` for pull diagnostics.
pub(super) const SERVER_CANCELLED: i64 = -32802;

/// Locks a mutex, recovering the data if a panic poisoned it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the client can do, as far as Segue cares.
#[derive(Debug, Clone, Default)]
pub(crate) struct Caps {
    /// Pull diagnostics (`textDocument/diagnostic`).
    pub pull: bool,
    /// `workspace/diagnostic/refresh`.
    pub refresh: bool,
    /// `workspace/configuration`.
    pub configuration: bool,
    /// Dynamic registration of `workspace/didChangeConfiguration`.
    pub dynamic_configuration: bool,
    /// Dynamic registration of `workspace/didChangeWatchedFiles`.
    pub dynamic_watch: bool,
    /// Server-initiated work-done progress.
    pub progress: bool,
    /// Versioned `documentChanges` in workspace edits.
    pub versioned_edits: bool,
    /// Markdown in hovers.
    pub markdown_hover: bool,
}

impl Caps {
    pub(super) fn from_client(c: &ClientCapabilities) -> Caps {
        let td = c.text_document.as_ref();
        let ws = c.workspace.as_ref();
        Caps {
            pull: td.is_some_and(|t| t.diagnostic.is_some()),
            refresh: ws
                .and_then(|w| w.diagnostics.as_ref())
                .and_then(|d| d.refresh_support)
                .unwrap_or(false),
            configuration: ws.and_then(|w| w.configuration).unwrap_or(false),
            dynamic_configuration: ws
                .and_then(|w| w.did_change_configuration.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            dynamic_watch: ws
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            progress: c
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            versioned_edits: ws
                .and_then(|w| w.workspace_edit.as_ref())
                .and_then(|e| e.document_changes)
                .unwrap_or(false),
            markdown_hover: match td
                .and_then(|t| t.hover.as_ref())
                .and_then(|h| h.content_format.as_ref())
            {
                None => true,
                Some(kinds) => kinds.contains(&MarkupKind::Markdown),
            },
        }
    }
}

/// A published analysis and its diagnostics.
pub(crate) struct Snapshot {
    /// The analysis.
    pub analyzed: Analyzed,
    /// Its diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// The stage that produced it.
    pub stage: Stage,
}

impl Snapshot {
    /// The pull-diagnostic result id: the version, the scheduling generation and the stage, so
    /// that a later stage's diagnostics for the same version are never reported as unchanged.
    pub fn result_id(&self) -> String {
        format!(
            "{}:{}:{}",
            self.analyzed.version,
            self.analyzed.generation,
            self.stage.tag()
        )
    }
}

/// A stage of an analysis run. The stages of a run analyse the same version in order and each
/// publishes its result, so a later stage's diagnostics replace an earlier one's (pull requests
/// always get the latest). Tier 0 comes first because it is fast; the model stage follows when
/// the tier-1 models are loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// The built-in scorers (the configured reporting scorer).
    Tier0,
    /// The tier-1 reporting scorer ([`Resolved::model_scorer`]).
    Model,
}

impl Stage {
    /// A short name for result ids and logs.
    pub(crate) fn tag(self) -> &'static str {
        match self {
            Stage::Tier0 => "tier0",
            Stage::Model => "model",
        }
    }
}

/// What running one stage gave.
enum StageOutcome {
    /// Its result.
    Done(Arc<Snapshot>),
    /// The analysis failed: an empty result, published unless an earlier stage's stands in.
    Failed(Arc<Snapshot>),
    /// The settings name no scorer for it.
    Absent,
    /// A newer edit cancelled it.
    Cancelled,
}

/// How long an earlier stage's result waits for the next stage before it is shown
/// ([`Session::run_stages`]). The model stage after a keystroke takes about 20 ms at 10,000 words
/// and 50 ms at 30,000 on a 2-core machine (p95, docs/performance.md), so within this wait tier
/// 0's diagnostics are not shown in passing; on opening a long document, or on a slow machine,
/// they are shown until the model stage's replace them. `SEGUE_TIER0_PREVIEW_MS` overrides it
/// (tests and benchmarks; 0 shows every stage).
pub const PREVIEW_AFTER: Duration = Duration::from_millis(300);

fn preview_after() -> Duration {
    static AFTER: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *AFTER.get_or_init(|| {
        std::env::var("SEGUE_TIER0_PREVIEW_MS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .map_or(PREVIEW_AFTER, Duration::from_millis)
    })
}

/// The stages for a document under `resolved` settings.
pub(super) fn stages(resolved: &Resolved) -> &'static [Stage] {
    if resolved.model_scorer.is_some() {
        &[Stage::Tier0, Stage::Model]
    } else {
        &[Stage::Tier0]
    }
}

/// One open document.
pub(super) struct DocEntry {
    pub(super) doc: TextDocument,
    pub(super) path: Option<PathBuf>,
    pub(super) generation: Arc<AtomicU64>,
    pub(super) engine: Arc<Mutex<Engine>>,
    pub(super) results: Arc<watch::Sender<Option<Arc<Snapshot>>>>,
    pub(super) publish: Arc<tokio::sync::Mutex<()>>,
}

/// A scheduled analysis run.
pub(super) struct Pending {
    pub(super) uri: Uri,
    pub(super) generation: u64,
    pub(super) counter: Arc<AtomicU64>,
    pub(super) rope: ropey::Rope,
    pub(super) version: i32,
    pub(super) format: Option<Format>,
    pub(super) language_id: String,
    pub(super) path: Option<PathBuf>,
    pub(super) engine: Arc<Mutex<Engine>>,
    pub(super) results: Arc<watch::Sender<Option<Arc<Snapshot>>>>,
    pub(super) publish: Arc<tokio::sync::Mutex<()>>,
}

impl Pending {
    pub(super) fn cancelled(&self) -> bool {
        self.counter.load(Ordering::SeqCst) != self.generation
    }
}

/// Server state shared by all handlers.
pub(crate) struct Session {
    pub client: Client,
    pub(super) docs: Mutex<HashMap<Uri, DocEntry>>,
    pub settings: Mutex<SettingsStore>,
    pub(super) caps: RwLock<Caps>,
    pub calibration: Arc<Calibration>,
    pub progress_cancels: Mutex<HashMap<String, Arc<AtomicBool>>>,
    pub token_counter: AtomicU64,
    pub(super) shown: Mutex<HashSet<String>>,
    pub(super) pending_warnings: Mutex<Vec<String>>,
    /// Whether the tier-1 models are being loaded (the process must not exit meanwhile: ONNX
    /// Runtime's static destructors crash if they run while a session is being created).
    pub(super) models_loading: AtomicBool,
    /// Analyses running on blocking threads (counted for the same reason).
    pub(super) running: Arc<AtomicU64>,
    /// When to hand free heap pages back to the system.
    pub(super) trimmer: super::memory::Trimmer,
}

/// Counts one running analysis for as long as it lives.
pub(crate) struct RunningGuard(Arc<AtomicU64>);

impl RunningGuard {
    /// Counts one more running analysis of `session` until the guard is dropped.
    pub(crate) fn of(session: &Session) -> Self {
        Self::new(&session.running)
    }

    pub(super) fn new(counter: &Arc<AtomicU64>) -> Self {
        counter.fetch_add(1, Ordering::SeqCst);
        RunningGuard(counter.clone())
    }
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Session {
    pub(super) fn new(client: Client) -> Self {
        Session {
            client,
            docs: Mutex::new(HashMap::new()),
            settings: Mutex::new(SettingsStore::new(ScorerSet::builtin())),
            caps: RwLock::new(Caps::default()),
            calibration: Arc::new(Calibration::shipped()),
            progress_cancels: Mutex::new(HashMap::new()),
            token_counter: AtomicU64::new(0),
            shown: Mutex::new(HashSet::new()),
            pending_warnings: Mutex::new(Vec::new()),
            models_loading: AtomicBool::new(false),
            running: Arc::new(AtomicU64::new(0)),
            trimmer: super::memory::Trimmer::default(),
        }
    }

    pub fn caps(&self) -> Caps {
        self.caps.read().map(|c| c.clone()).unwrap_or_default()
    }

    /// Whether the tier-1 models are being loaded or an analysis is running: the process waits
    /// for these before it exits, since ONNX Runtime's static destructors crash if they run
    /// while a session is being created or run.
    pub fn busy(&self) -> bool {
        self.models_loading.load(Ordering::SeqCst) || self.running.load(Ordering::SeqCst) > 0
    }

    /// Cancels all work for good, as the session ends: analyses in flight stop at their next
    /// check, workspace checks at their next file, and model inference at its next batch (for the
    /// rest of the process: it is about to exit).
    pub fn abandon_work(&self) {
        for e in lock(&self.docs).values() {
            e.generation.fetch_add(1, Ordering::SeqCst);
        }
        for flag in lock(&self.progress_cancels).values() {
            flag.store(true, Ordering::SeqCst);
        }
        crate::model::abandon();
    }

    /// Resolved settings for a path, showing its warnings (once per settings change).
    pub async fn resolved_for(&self, path: Option<&Path>) -> Arc<Resolved> {
        let (resolved, _) = lock(&self.settings).for_path(path);
        self.warn_user(resolved.warnings.clone()).await;
        resolved
    }

    /// Shows each warning once (per settings change) with `window/showMessage`, and logs it.
    pub async fn warn_user(&self, warnings: Vec<String>) {
        for w in warnings {
            if lock(&self.shown).insert(w.clone()) {
                warn!("{w}");
                self.client
                    .show_message(MessageType::WARNING, format!("Segue: {w}"))
                    .await;
            }
        }
    }

    /// Shows the window notice `message` about the document `uri` once (until the settings change)
    /// (`window/showMessage`, type Info), and logs it.
    pub(super) async fn inform_once(&self, uri: &Uri, message: String) {
        if lock(&self.shown).insert(format!("window {}", uri.as_str())) {
            info!("{message}");
            self.client
                .show_message(MessageType::INFO, format!("Segue: {message}"))
                .await;
        }
    }

    /// URIs of the open documents.
    pub fn open_uris(&self) -> Vec<Uri> {
        lock(&self.docs).keys().cloned().collect()
    }

    /// Whether `path` is open in the editor.
    pub fn is_open(&self, path: &Path) -> bool {
        lock(&self.docs)
            .values()
            .any(|e| e.path.as_deref() == Some(path))
    }

    /// Bumps the document's generation (cancelling work in flight) and schedules a run.
    pub(super) fn schedule(self: &Arc<Self>, uri: &Uri) {
        let pending = {
            let docs = lock(&self.docs);
            let Some(e) = docs.get(uri) else {
                return;
            };
            let generation = e.generation.fetch_add(1, Ordering::SeqCst) + 1;
            Pending {
                uri: uri.clone(),
                generation,
                counter: e.generation.clone(),
                rope: e.doc.rope().clone(),
                version: e.doc.version(),
                format: e.doc.format(),
                language_id: e.doc.language_id().to_string(),
                path: e.path.clone(),
                engine: e.engine.clone(),
                results: e.results.clone(),
                publish: e.publish.clone(),
            }
        };
        let session = self.clone();
        tokio::spawn(async move { session.run(pending).await });
    }

    /// Loads the tier-1 models in the background; when they load, open documents are analysed
    /// again and the model stage's diagnostics replace tier 0's. A failure is logged, and shown
    /// to the user only when the settings ask for tier 1 explicitly.
    pub(super) fn load_models(self: &Arc<Self>, config: &crate::config::Config) {
        let session = self.clone();
        let options = ModelOptions::from_env()
            .with_device(config.device)
            .with_paths(config.ort_dylib.clone(), config.models_dir.clone());
        self.models_loading.store(true, Ordering::SeqCst);
        tokio::spawn(async move {
            let loaded = tokio::task::spawn_blocking(move || {
                let lines = Mutex::new(Vec::new());
                let mut set = ScorerSet::builtin();
                let result = registry::add_models(&mut set, &options, &|line| {
                    lock(&lines).push(line);
                });
                let lines = lines.into_inner().unwrap_or_else(|e| e.into_inner());
                (result.map(|()| set), lines)
            })
            .await;
            match loaded {
                Ok((Ok(set), lines)) => {
                    for line in lines {
                        info!("{line}");
                    }
                    lock(&session.settings).set_models(ModelsState::Loaded, Some(set));
                    session.schedule_all();
                }
                Ok((Err(e), _)) => {
                    info!("tier 1 is not available ({e}); using the built-in tier 0");
                    lock(&session.settings).set_models(ModelsState::Failed(e.to_string()), None);
                    // Shows the warning when tier 1 was asked for explicitly.
                    let _ = session.resolved_for(None).await;
                }
                Err(e) => error!("loading the models failed: {e}"),
            }
            session.models_loading.store(false, Ordering::SeqCst);
        });
    }

    /// Re-analyzes every open document (after a settings change).
    pub(super) fn schedule_all(self: &Arc<Self>) {
        for uri in self.open_uris() {
            self.schedule(&uri);
        }
    }

    pub(super) async fn run(self: Arc<Self>, p: Pending) {
        self.trimmer.started();
        let resolved = self.resolved_for(p.path.as_deref()).await;
        let debounce = resolved.config.debounce_ms;
        if debounce > 0 {
            tokio::time::sleep(Duration::from_millis(debounce)).await;
        }
        if !self.run_stages(&p, &resolved).await {
            return;
        }
        // The version is analysed: hand the memory its runs freed back to the system once the
        // user pauses, or now if that has not happened for a while (`memory::Trimmer`).
        if let AfterAnalysis::ReleaseIfIdle(mark) = self.trimmer.after_analysis() {
            tokio::time::sleep(Trimmer::IDLE).await;
            if !self.trimmer.idle_since(mark) {
                return;
            }
        }
        if self.running.load(Ordering::SeqCst) == 0 {
            self.trimmer.released();
            let _ = tokio::task::spawn_blocking(super::memory::release_free).await;
        }
    }

    /// Runs the stages of `resolved` on `p` and publishes what the user should see; `false`
    /// when a newer edit cancelled them.
    ///
    /// A stage followed by another is a *preview*: its result is published only if the next
    /// stage has not finished [`preview_after`] after it (a big document, a slow machine), or
    /// failed. Otherwise the user sees only the last stage's diagnostics, so a tier-0 finding
    /// that the model stage does not make never flashes up for a moment after each pause in
    /// typing.
    pub(super) async fn run_stages(&self, p: &Pending, resolved: &Arc<Resolved>) -> bool {
        let mut preview: Option<Arc<Snapshot>> = None;
        // Whether an earlier stage's result was shown for this run.
        let mut shown = false;
        let all = stages(resolved);
        for (k, &stage) in all.iter().enumerate() {
            if p.cancelled() {
                return false;
            }
            let analysis = self.analyse_stage(p, resolved, stage);
            tokio::pin!(analysis);
            let outcome = match &preview {
                None => analysis.await,
                Some(earlier) => {
                    // A zero wait shows the preview at once, without a race against a stage
                    // that the cache serves in a moment.
                    let wait = preview_after();
                    let first = if wait.is_zero() {
                        None
                    } else {
                        tokio::select! {
                            outcome = &mut analysis => Some(outcome),
                            () = tokio::time::sleep(wait) => None,
                        }
                    };
                    match first {
                        Some(outcome) => outcome,
                        None => {
                            debug!(
                                "{} v{}: the {} stage is taking a while; showing the {} stage's \
                                 diagnostics meanwhile",
                                p.uri.as_str(),
                                p.version,
                                stage.tag(),
                                earlier.stage.tag()
                            );
                            self.publish(p, earlier.clone()).await;
                            preview = None;
                            shown = true;
                            analysis.await
                        }
                    }
                }
            };
            let snapshot = match outcome {
                StageOutcome::Done(s) => s,
                StageOutcome::Cancelled => return false,
                // Nothing to wait for: an earlier stage's result is published below.
                StageOutcome::Absent => continue,
                // A failed later stage leaves the earlier stage's diagnostics in place.
                StageOutcome::Failed(_) if shown => return true,
                StageOutcome::Failed(s) => preview.take().unwrap_or(s),
            };
            if k + 1 < all.len() {
                preview = Some(snapshot);
            } else {
                self.publish(p, snapshot).await;
                preview = None;
            }
        }
        if let Some(earlier) = preview {
            self.publish(p, earlier).await;
        }
        true
    }

    /// Runs one stage: its result, or why there is none.
    async fn analyse_stage(
        &self,
        p: &Pending,
        resolved: &Arc<Resolved>,
        stage: Stage,
    ) -> StageOutcome {
        let scorer = match stage {
            Stage::Tier0 => resolved.scorer.clone(),
            Stage::Model => match &resolved.model_scorer {
                Some(s) => s.clone(),
                None => return StageOutcome::Absent,
            },
        };
        debug!(
            "{} v{}: running the {} stage",
            p.uri.as_str(),
            p.version,
            match stage {
                Stage::Tier0 => "tier-0",
                Stage::Model => "model",
            }
        );
        let judge = resolved.judge.clone();
        let job_judge = judge.clone();
        let skip = skip_reason(p, resolved);
        if let Some(why) = &skip {
            debug!("{}: not checked: {why}", p.uri.as_str());
        }
        let job_rope = p.rope.clone();
        let counter = p.counter.clone();
        let generation = p.generation;
        let engine = p.engine.clone();
        let uri = p.uri.clone();
        let calibration = self.calibration.clone();
        let version = p.version;
        let format = p.format;
        let resolved_job = resolved.clone();
        let job_scorer = scorer.clone();
        let name = p.path.as_deref().and_then(Path::file_name).map_or_else(
            || p.uri.as_str().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let guard = RunningGuard::new(&self.running);
        let result = tokio::task::spawn_blocking(move || {
            let _running = guard;
            let cancelled = || counter.load(Ordering::SeqCst) != generation;
            if cancelled() {
                return Err(Cancelled);
            }
            // A huge document is analysed in a bounded window (`window`), with a notice.
            let (text, windowed) = window::analysed_text(&job_rope, window::window_bytes());
            let notice = (windowed && skip.is_none())
                .then(|| window::notice(&name, job_rope.len_bytes(), &text));
            let job = Job {
                version,
                text: Arc::from(text),
                format,
                skip,
                policy: job_scorer.context_policy(),
                scorer: job_scorer,
                judge: job_judge,
                calibration,
                sensitivity: resolved_job.config.sensitivity,
            };
            // A newer edit stops the models too, between two inference batches.
            let token = {
                let counter = counter.clone();
                crate::model::CancelToken::new(move || counter.load(Ordering::SeqCst) != generation)
            };
            let analyzed = crate::model::cancel::scope(Some(token), || {
                lock(&engine).run(&job, generation, &cancelled)
            })?;
            let diagnostics = diagnostics(&analyzed, &uri, resolved_job.config.severity);
            Ok((
                Snapshot {
                    analyzed,
                    diagnostics,
                    stage,
                },
                notice,
            ))
        })
        .await;
        let (snapshot, failed) = match result {
            Ok(Ok((s, notice))) => {
                if let Some(notice) = notice {
                    self.inform_once(&p.uri, notice).await;
                }
                (s, false)
            }
            Ok(Err(Cancelled)) => {
                debug!(
                    "{} v{}: analysis cancelled by a newer edit",
                    p.uri.as_str(),
                    p.version
                );
                return StageOutcome::Cancelled;
            }
            Err(e) => {
                error!("analysis of {} v{} failed: {e}", p.uri.as_str(), p.version);
                // An empty result, so that waiting requests do not hang when no earlier stage's
                // stands in for it.
                let job = Job {
                    version,
                    text: Arc::from(""),
                    format: None,
                    skip: Some("analysis failed".into()),
                    policy: scorer.context_policy(),
                    scorer,
                    judge,
                    calibration: self.calibration.clone(),
                    sensitivity: resolved.config.sensitivity,
                };
                let mut analyzed = empty(&job);
                analyzed.generation = generation;
                let snapshot = Snapshot {
                    analyzed,
                    diagnostics: Vec::new(),
                    stage,
                };
                (snapshot, true)
            }
        };
        let stats = snapshot.analyzed.stats;
        debug!(
            "{} v{}: {} findings; {} transitions scored, {} reused, {} µs",
            p.uri.as_str(),
            p.version,
            snapshot.diagnostics.len(),
            stats.scored,
            stats.reused,
            stats.micros
        );
        let snapshot = Arc::new(snapshot);
        if failed {
            StageOutcome::Failed(snapshot)
        } else {
            StageOutcome::Done(snapshot)
        }
    }

    /// Publishes a stage's result: pushed to a push client; for a pull client, kept for its
    /// next `textDocument/diagnostic`, and when it replaces other diagnostics for the same
    /// version (the model stage after tier 0's preview, or a new run of an unchanged document
    /// once the models load), which the client may already have pulled, a
    /// `workspace/diagnostic/refresh` asks it to pull again.
    pub(super) async fn publish(&self, p: &Pending, snapshot: Arc<Snapshot>) {
        let caps = self.caps();
        let replaced_for_puller = {
            let _guard = p.publish.lock().await;
            if p.cancelled() {
                return;
            }
            let previous = p.results.send_replace(Some(snapshot.clone()));
            if !caps.pull {
                self.client
                    .publish_diagnostics(
                        p.uri.clone(),
                        snapshot.diagnostics.clone(),
                        Some(snapshot.analyzed.version),
                    )
                    .await;
            }
            previous.is_some_and(|prev| {
                prev.analyzed.version == snapshot.analyzed.version
                    && (prev.analyzed.generation != snapshot.analyzed.generation
                        || prev.stage != snapshot.stage)
            })
        };
        if caps.pull && caps.refresh && replaced_for_puller {
            // Not awaited here: the run has published, and a client slow to answer must not hold
            // it (or the memory release that follows it).
            let client = self.client.clone();
            tokio::spawn(async move {
                if let Err(e) = client.workspace_diagnostic_refresh().await {
                    debug!("workspace/diagnostic/refresh failed: {e}");
                }
            });
        }
    }

    /// The analysis of the document's current version, waiting for it if needed. `None` when the
    /// document is not open, was closed, or the wait timed out.
    pub async fn current(&self, uri: &Uri) -> Option<Arc<Snapshot>> {
        let (mut rx, generation) = {
            let docs = lock(&self.docs);
            let e = docs.get(uri)?;
            (e.results.subscribe(), e.generation.load(Ordering::SeqCst))
        };
        let waited = tokio::time::timeout(
            WAIT_LIMIT,
            rx.wait_for(|s| {
                s.as_ref()
                    .is_some_and(|s| s.analyzed.generation >= generation)
            }),
        )
        .await;
        match waited {
            Ok(Ok(r)) => r.clone(),
            _ => None,
        }
    }

    /// The current version of an open document.
    pub(super) fn version_of(&self, uri: &Uri) -> Option<i32> {
        lock(&self.docs).get(uri).map(|e| e.doc.version())
    }

    /// Reads the editor settings (pulling them when the client supports it), shows warnings and
    /// re-analyzes everything.
    pub(super) async fn reload_settings(self: &Arc<Self>, pushed: Option<Value>) {
        let caps = self.caps();
        let editor = if caps.configuration {
            let items = vec![ConfigurationItem {
                scope_uri: None,
                section: Some("segue".to_string()),
            }];
            match self.client.configuration(items).await {
                Ok(mut values) if !values.is_empty() => Some(values.swap_remove(0)),
                Ok(_) => None,
                Err(e) => {
                    warn!("workspace/configuration failed: {e}");
                    pushed
                }
            }
        } else {
            pushed
        };
        let warnings = {
            let mut settings = lock(&self.settings);
            let w = match editor {
                Some(v) => settings.set_editor(v),
                None => {
                    settings.invalidate();
                    Vec::new()
                }
            };
            lock(&self.shown).clear();
            w
        };
        self.warn_user(warnings).await;
        self.schedule_all();
        if caps.pull && caps.refresh {
            if let Err(e) = self.client.workspace_diagnostic_refresh().await {
                debug!("workspace/diagnostic/refresh failed: {e}");
            }
        }
    }

    /// Re-reads `segue.toml` files (the user's too) and re-analyzes everything.
    pub(super) async fn reload_files(self: &Arc<Self>) {
        let user_file = crate::config::sources::existing_user_config_file();
        let warnings = lock(&self.settings).set_user_file(user_file.as_deref());
        lock(&self.shown).clear();
        self.warn_user(warnings).await;
        self.schedule_all();
        let caps = self.caps();
        if caps.pull && caps.refresh {
            let _ = self.client.workspace_diagnostic_refresh().await;
        }
    }
}

/// Why a pending run's document is not checked, if it is not.
pub(super) fn skip_reason(p: &Pending, resolved: &Resolved) -> Option<String> {
    let Some(format) = p.format else {
        return Some(format!("language `{}` is not checked", p.language_id));
    };
    if !resolved.config.checks(format) {
        return Some(format!("{} is not in the `formats` setting", format.name()));
    }
    if p.path.as_deref().is_some_and(|path| resolved.ignores(path)) {
        return Some("the file matches an `ignore` glob".to_string());
    }
    if p.rope.len_bytes() > MAX_FILE_BYTES {
        return Some(format!(
            "the document is too large to check ({:.1} MiB; the limit is {} MiB)",
            p.rope.len_bytes() as f64 / 1_048_576.0,
            MAX_FILE_BYTES / 1_048_576
        ));
    }
    if p.rope.bytes().take(8192).any(|b| b == 0) {
        return Some("the document looks binary (it contains NUL bytes)".to_string());
    }
    None
}

/// A progress token as a map key.
pub(crate) fn token_key(t: &ProgressToken) -> String {
    match t {
        NumberOrString::Number(n) => format!("n{n}"),
        NumberOrString::String(s) => format!("s{s}"),
    }
}

pub(super) fn internal(e: impl std::fmt::Display) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: e.to_string().into(),
        data: None,
    }
}

pub(super) fn server_cancelled() -> Error {
    Error {
        code: ErrorCode::ServerError(SERVER_CANCELLED),
        message: "the document changed or is not open; retry".into(),
        data: Some(serde_json::json!({ "retriggerRequest": true })),
    }
}
