//! How a session ends, and a reply for every request.
//!
//! [`Replying`] wraps the tower-lsp-server service: tower-lsp-server answers nothing for any
//! unknown `$/` method, which the protocol allows for notifications only, so an unknown `$/`
//! *request* gets `MethodNotFound` here; and it records `shutdown` and `exit` in [`Signals`] as
//! they arrive (tower-lsp-server's `exit` aborts the handlers still pending, a `shutdown` just
//! before it included, so the handler cannot be relied on to record it).
//!
//! `run_until_end` bounds the end of the session. tower-lsp-server's `serve` returns only once
//! every handler has finished, and a handler can wait forever: on a server → client request the
//! editor never answers (`workspace/configuration`), or on an analysis. So after `exit`, or when
//! the input ends, the handlers get [`GRACE`] to finish their replies and are then abandoned; the
//! analyses and model runs are cancelled (they stop at their next check, model inference at its next
//! batch) and get [`DRAIN`] to stop. Whatever still runs on a blocking thread after that cannot be
//! interrupted, so [`exit_now`] ends the process without running the static destructors that ONNX
//! Runtime would crash in.

use super::session::Session;
use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::Notify;
use tower_lsp_server::jsonrpc::{Error, Request, Response};
use tower_service::Service;
use tracing::{debug, info, warn};

/// How long pending handlers get to send their replies after `exit` or the end of input.
pub const GRACE: Duration = Duration::from_millis(250);
/// How long cancelled analyses and model runs get to stop before the process exits without them.
pub const DRAIN: Duration = Duration::from_millis(500);
/// How long [`exit_now`] waits for stdout to flush.
const FLUSH_LIMIT: Duration = Duration::from_millis(100);

/// What the client said about ending the session.
#[derive(Debug, Default)]
pub struct Signals {
    exit: Notify,
    shutdown: AtomicBool,
}

impl Signals {
    /// Whether a `shutdown` request was received.
    pub fn shutdown_received(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    /// The exit code the protocol asks for: 0 when `shutdown` came first, else 1.
    pub fn exit_code(&self) -> u8 {
        if self.shutdown_received() {
            0
        } else {
            1
        }
    }
}

/// The service that answers every request and records `shutdown` and `exit`.
pub struct Replying<S> {
    inner: S,
    signals: Arc<Signals>,
}

impl<S> Replying<S> {
    /// Wraps `inner`, recording in `signals`.
    pub fn new(inner: S, signals: Arc<Signals>) -> Self {
        Replying { inner, signals }
    }
}

/// The `MethodNotFound` error for `method`.
fn method_not_found(method: &str) -> Error {
    Error {
        message: format!("method not found: {method}").into(),
        ..Error::method_not_found()
    }
}

impl<S> Service<Request> for Replying<S>
where
    S: Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
{
    type Response = Option<Response>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Option<Response>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        match req.method() {
            "shutdown" => self.signals.shutdown.store(true, Ordering::SeqCst),
            "exit" => self.signals.exit.notify_one(),
            _ => {}
        }
        // A `$/` request the router does not know comes back without a reply.
        let owed = match req.id() {
            Some(id) if req.method().starts_with("$/") => {
                Some((id.clone(), req.method().to_string()))
            }
            _ => None,
        };
        let reply = self.inner.call(req);
        Box::pin(async move {
            let response = reply.await?;
            Ok(match (response, owed) {
                (None, Some((id, method))) => {
                    debug!("unknown request `{method}`");
                    Some(Response::from_error(id, method_not_found(&method)))
                }
                (response, _) => response,
            })
        })
    }
}

/// Runs `serve` until it returns, or until `exit` arrives or `input_ended` resolves (then for
/// at most [`GRACE`] more); then cancels the session's work and waits at most [`DRAIN`] for it to
/// stop. Returns whether work is still running on a blocking thread.
pub(crate) async fn run_until_end(
    serve: impl Future<Output = ()>,
    input_ended: impl Future,
    signals: &Signals,
    session: &Session,
) -> bool {
    tokio::pin!(serve);
    let end = async {
        tokio::select! {
            _ = input_ended => "the input ended",
            () = signals.exit.notified() => "exit",
        }
    };
    tokio::select! {
        () = &mut serve => {}
        why = end => {
            debug!("{why}: stopping");
            if tokio::time::timeout(GRACE, &mut serve).await.is_err() {
                info!("{why}: abandoning the requests still pending");
            }
        }
    }
    super::logging::disconnect();
    session.abandon_work();
    let deadline = tokio::time::Instant::now() + DRAIN;
    while session.busy() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    session.busy()
}

/// Ends the process with `code` at once, after flushing stdout (for at most 100 ms: a
/// client that stopped reading must not keep it alive), without running static destructors.
pub fn exit_now(code: u8) -> ! {
    warn!("exiting while a model load or an analysis is still running on a blocking thread");
    let (flushed, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = std::io::stdout().flush();
        let _ = flushed.send(());
    });
    let _ = done.recv_timeout(FLUSH_LIMIT);
    #[cfg(unix)]
    // SAFETY: `_exit` has no preconditions; it ends the process without running atexit handlers
    // or static destructors, which is the point (ONNX Runtime's crash if a session is in use).
    unsafe {
        libc::_exit(i32::from(code))
    }
    #[cfg(not(unix))]
    std::process::exit(i32::from(code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::convert::Infallible;

    /// A router stand-in that, like tower-lsp-server's, answers nothing for `$/` methods and
    /// answers `null` to everything else.
    struct Quiet;

    impl Service<Request> for Quiet {
        type Response = Option<Response>;
        type Error = Infallible;
        type Future = std::future::Ready<Result<Option<Response>, Infallible>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, req: Request) -> Self::Future {
            let (method, id, _) = req.into_parts();
            let reply = match id {
                Some(id) if !method.starts_with("$/") => Some(Response::from_ok(id, json!(null))),
                _ => None,
            };
            std::future::ready(Ok(reply))
        }
    }

    fn request(value: serde_json::Value) -> Request {
        serde_json::from_value(value).expect("request")
    }

    #[tokio::test]
    async fn unknown_dollar_requests_get_method_not_found() {
        let mut service = Replying::new(Quiet, Arc::default());
        let reply = service
            .call(request(
                json!({"jsonrpc": "2.0", "id": 4, "method": "$/segue/nope"}),
            ))
            .await
            .expect("reply")
            .expect("a response");
        let reply = serde_json::to_value(reply).expect("json");
        assert_eq!(reply["id"], 4);
        assert_eq!(reply["error"]["code"], -32601);
        // Notifications stay unanswered; other requests keep their reply.
        let note = service
            .call(request(json!({"jsonrpc": "2.0", "method": "$/segue/nope"})))
            .await
            .expect("reply");
        assert!(note.is_none());
        let ok = service
            .call(request(
                json!({"jsonrpc": "2.0", "id": 5, "method": "shutdown"}),
            ))
            .await
            .expect("reply")
            .expect("a response");
        assert!(ok.is_ok());
    }

    #[tokio::test]
    async fn shutdown_and_exit_are_recorded_as_they_arrive() {
        let signals = Arc::new(Signals::default());
        let mut service = Replying::new(Quiet, signals.clone());
        assert_eq!(signals.exit_code(), 1);
        // Recorded when called, before (or without) the handler's future being polled.
        drop(service.call(request(
            json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}),
        )));
        assert_eq!(signals.exit_code(), 0);
        drop(service.call(request(json!({"jsonrpc": "2.0", "method": "exit"}))));
        // `notify_one` stored a permit, so this returns at once.
        signals.exit.notified().await;
    }
}
