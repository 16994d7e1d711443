//! `workspace/executeCommand`: `segue.checkWorkspace` and `segue.showDocumentScore`.

use super::convert;
use super::diagnostics::diagnostics;
use super::engine::{analyze_once, Job};
use super::session::{lock, token_key, Session};
use crate::input::collect::{collect_inputs, Input};
use crate::input::read::read_file;
use crate::text::{without_bom, Format};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{LSPAny, MessageType, NumberOrString, ProgressToken, Uri};
use tracing::{info, warn};

/// Sets a flag when dropped: the request future was dropped (`$/cancelRequest`) or finished.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Removes a progress token's cancel flag when dropped.
struct Unregister<'a>(&'a Session, String);

impl Drop for Unregister<'_> {
    fn drop(&mut self) {
        lock(&self.0.progress_cancels).remove(&self.1);
    }
}

/// `segue.checkWorkspace`: checks every supported file under the workspace folders (honouring
/// `.gitignore`, the `formats` setting and `ignore` globs) and publishes diagnostics for each file
/// that is not open in the editor (open documents are analyzed live). Reports `$/progress` when
/// the client gave or accepts a work-done token, and stops when the client cancels the progress
/// or the request. Returns `{files, findings, errors, cancelled}`.
pub(crate) async fn check_workspace(
    session: &Arc<Session>,
    params: tower_lsp_server::ls_types::ExecuteCommandParams,
) -> Result<Option<LSPAny>> {
    let roots: Vec<PathBuf> = lock(&session.settings).roots().to_vec();
    if roots.is_empty() {
        return Err(Error::invalid_params(
            "segue.checkWorkspace needs a workspace folder",
        ));
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(cancel.clone());
    let token = match params.work_done_progress_params.work_done_token {
        Some(t) => Some(t),
        None if session.caps().progress => {
            let n = session.token_counter.fetch_add(1, Ordering::SeqCst);
            let t: ProgressToken = NumberOrString::String(format!("segue/checkWorkspace/{n}"));
            match session.client.create_work_done_progress(t.clone()).await {
                Ok(()) => Some(t),
                Err(e) => {
                    warn!("window/workDoneProgress/create failed: {e}");
                    None
                }
            }
        }
        None => None,
    };
    let _unregister = token.as_ref().map(|t| {
        let key = token_key(t);
        lock(&session.progress_cancels).insert(key.clone(), cancel.clone());
        Unregister(session, key)
    });
    let progress = match &token {
        Some(t) => Some(
            session
                .client
                .progress(t.clone(), "Segue: checking the workspace")
                .with_percentage(0)
                .with_cancel_button()
                .begin()
                .await,
        ),
        None => None,
    };

    // Collect the files (IO: off the runtime's workers).
    let mut files: Vec<PathBuf> = Vec::new();
    for root in &roots {
        let (resolved, _) = lock(&session.settings).for_dir(root);
        session.warn_user(resolved.warnings.clone()).await;
        let config = resolved.config.clone();
        let walk_root = root.clone();
        let inputs = tokio::task::spawn_blocking(move || {
            collect_inputs(std::slice::from_ref(&walk_root), &config)
        })
        .await
        .map_err(|e| Error::invalid_params(e.to_string()))?;
        files.extend(inputs.into_iter().filter_map(|i| match i {
            Input::File(p) => Some(p),
            Input::Stdin => None,
        }));
    }
    files.sort();
    files.dedup();

    let (mut checked, mut found, mut errors) = (0usize, 0usize, 0usize);
    let total = files.len().max(1);
    for (i, path) in files.iter().enumerate() {
        if cancel.load(Ordering::SeqCst) {
            break;
        }
        if let Some(p) = &progress {
            let pct = u32::try_from(i * 100 / total).unwrap_or(100);
            p.report_with_message(
                format!("{}/{} {}", i + 1, files.len(), short(path)),
                pct,
                None,
            )
            .await;
        }
        if session.is_open(path) {
            continue;
        }
        let resolved = session.resolved_for(Some(path)).await;
        if resolved.ignores(path) {
            continue;
        }
        let Some(format) = Format::from_path(path).filter(|f| resolved.config.checks(*f)) else {
            continue;
        };
        let Some(uri) = convert::uri(path) else {
            continue;
        };
        let path_owned = path.clone();
        let calibration = session.calibration.clone();
        let job_uri = uri.clone();
        let guard = super::session::RunningGuard::of(session);
        let outcome = tokio::task::spawn_blocking(move || {
            let _running = guard;
            // Editors hide a byte-order mark: positions are counted without it.
            let text = without_bom(read_file(&path_owned).map_err(|e| e.to_string())?.text);
            let job = Job {
                version: 0,
                text: Arc::from(text),
                format: Some(format),
                skip: None,
                // The scorer whose diagnostics an open document ends with.
                scorer: resolved
                    .model_scorer
                    .clone()
                    .unwrap_or_else(|| resolved.scorer.clone()),
                judge: resolved.judge.clone(),
                policy: resolved.policy,
                calibration,
                sensitivity: resolved.config.sensitivity,
            };
            let analyzed = analyze_once(&job);
            Ok::<_, String>(diagnostics(&analyzed, &job_uri, resolved.config.severity))
        })
        .await;
        match outcome {
            Ok(Ok(diags)) => {
                checked += 1;
                found += diags.len();
                session.client.publish_diagnostics(uri, diags, None).await;
            }
            Ok(Err(e)) => {
                errors += 1;
                warn!("{}: {e}", path.display());
            }
            Err(e) => {
                errors += 1;
                warn!("{}: check failed: {e}", path.display());
            }
        }
    }
    let cancelled = cancel.load(Ordering::SeqCst);
    let summary = if cancelled {
        format!("cancelled after {checked} files ({found} findings)")
    } else {
        format!("{checked} files checked, {found} findings, {errors} errors")
    };
    info!("workspace check: {summary}");
    if let Some(p) = progress {
        p.finish_with_message(summary).await;
    }
    Ok(Some(json!({
        "files": checked,
        "findings": found,
        "errors": errors,
        "cancelled": cancelled,
    })))
}

fn short(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `segue.showDocumentScore` with one argument, the document URI (a string, or an object with a
/// `uri` field and an optional `silent` flag): returns `{uri, version, score, scorer, tier,
/// sentenceMedian, paragraphMedian, findings, checked}` and shows the score with
/// `window/showMessage` unless `silent` is true (editors polling it for a status bar).
pub(crate) async fn show_document_score(
    session: &Arc<Session>,
    params: tower_lsp_server::ls_types::ExecuteCommandParams,
) -> Result<Option<LSPAny>> {
    let silent = matches!(
        params.arguments.first(),
        Some(Value::Object(o)) if o.get("silent").and_then(Value::as_bool) == Some(true)
    );
    let uri = params
        .arguments
        .first()
        .and_then(|a| match a {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => o.get("uri").and_then(Value::as_str).map(str::to_string),
            _ => None,
        })
        .and_then(|s| s.parse::<Uri>().ok())
        .ok_or_else(|| Error::invalid_params("segue.showDocumentScore takes the document URI"))?;
    let Some(snapshot) = session.current(&uri).await else {
        return Err(Error::invalid_params(format!(
            "{} is not open",
            uri.as_str()
        )));
    };
    let a = &snapshot.analyzed;
    let score = a.analysis.document_score();
    let name = a.scorer.name();
    let message = match &a.skip {
        Some(why) => format!("Segue: {} is not checked: {why}", uri.as_str()),
        None => format!(
            "Segue: coherence {score:.2} ({name}, tier {}), {} weak transition(s)",
            a.analysis.tier,
            a.findings.len()
        ),
    };
    if !silent {
        session
            .client
            .show_message(MessageType::INFO, message)
            .await;
    }
    let round = |x: f64| (x * 10_000.0).round() / 10_000.0;
    Ok(Some(json!({
        "uri": uri.as_str(),
        "version": a.version,
        "score": round(score),
        "scorer": name,
        "tier": a.analysis.tier,
        "sentenceMedian": a.analysis.median(crate::score::Level::Sentence).map(round),
        "paragraphMedian": a.analysis.median(crate::score::Level::Paragraph).map(round),
        "findings": a.findings.len(),
        "checked": a.skip.is_none(),
    })))
}
