//! `segue serve`: the language server (LSP over stdio), on tower-lsp-server and tokio.
//!
//! Modules, after ruff_server's split between session and snapshot:
//! - [`server`]: the session (open documents, settings, client capabilities), scheduling with
//!   debounce and cancellation, and the `LanguageServer` handlers;
//! - [`document`]: open documents as ropes with incremental UTF-16 edits;
//! - [`engine`]: incremental, cancellable analysis with a per-document transition-score cache,
//!   producing immutable [`engine::Analyzed`] snapshots; reorder proposals;
//! - [`diagnostics`], [`hover`], [`actions`]: snapshots → LSP results (reorder edits come from
//!   [`crate::order::reorder`] and [`crate::order::permute`], shared with `segue reorder`);
//! - [`settings`]: editor settings merged with `segue.toml`; [`commands`]: `segue.*` commands;
//! - [`convert`]: spans ↔ LSP ranges; [`frame`]: `Content-Length` framing that resynchronises
//!   after malformed input; [`transport`]: the guard that forwards only well-formed frames to the
//!   JSON-RPC layer; [`lifecycle`]: a reply for every request, and a bounded end after `exit` or
//!   the end of input; [`logging`]: stderr (`RUST_LOG`) and `window/logMessage`; [`memory`]:
//!   the allocator set-up that keeps a long session's heap from fragmenting; [`window`]: the
//!   bounded window a huge document is analysed in.
//!
//! Only this module speaks LSP; it reads the text, score and order modules as plain data. See
//! docs/lsp.md for the user-facing behaviour.

pub mod actions;
pub mod commands;
pub mod convert;
pub mod diagnostics;
pub mod document;
pub mod engine;
pub mod frame;
pub mod hover;
pub mod lifecycle;
pub mod logging;
pub mod memory;
pub mod server;
mod session;
pub mod settings;
pub mod transport;
pub mod window;

use std::sync::Arc;
use tower_lsp_server::{LspService, Server};

/// Arguments of `segue serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Talk LSP over stdin/stdout (the default and only transport; accepted for editors that
    /// pass it).
    #[arg(long)]
    pub stdio: bool,
}

/// How many requests tower-lsp-server runs at once. Requests that wait for an analysis must not
/// starve the notifications queued behind them, so this is well above the default of 4.
const CONCURRENCY: usize = 32;

/// Runs the language server on stdin/stdout until `exit` or end of input. Returns the exit code:
/// 0 when `shutdown` came before `exit` or the end of input, 1 otherwise. Whatever is pending then
/// is abandoned: the process is gone within [`lifecycle::GRACE`] + [`lifecycle::DRAIN`].
pub fn run(_args: ServeArgs) -> anyhow::Result<u8> {
    let capped = memory::limit_arenas();
    logging::init();
    if capped {
        tracing::debug!("malloc arenas capped at {}", memory::ARENAS);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("segue-lsp")
        .build()?;
    let (code, still_running) = runtime.block_on(serve_stdio());
    if still_running {
        lifecycle::exit_now(code);
    }
    // Do not wait for the thread blocked on reading stdin.
    runtime.shutdown_background();
    Ok(code)
}

/// Serves until the session ends; the exit code and whether work still runs on a blocking thread.
async fn serve_stdio() -> (u8, bool) {
    let (to_server, from_guard) = tokio::io::duplex(1 << 16);
    let mut input = tokio::spawn(transport::forward_valid_frames(
        tokio::io::stdin(),
        to_server,
    ));
    let (service, socket) = LspService::build(server::Backend::new)
        .custom_method(server::DEBUG_TEXT, server::Backend::debug_text)
        .custom_method(
            "window/workDoneProgress/cancel",
            server::Backend::progress_cancel,
        )
        .finish();
    let session = service.inner().session.clone();
    let signals = Arc::new(lifecycle::Signals::default());
    let serve = Server::new(from_guard, tokio::io::stdout(), socket)
        .concurrency_level(CONCURRENCY)
        .serve(lifecycle::Replying::new(service, signals.clone()));
    let still_running = lifecycle::run_until_end(serve, &mut input, &signals, &session).await;
    input.abort();
    (signals.exit_code(), still_running)
}
