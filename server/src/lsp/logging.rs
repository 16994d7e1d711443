//! Logging for the language server: `tracing` events go to stderr, filtered by `RUST_LOG`
//! (default `info`), and Segue's own events at `info` and above are also sent to the editor as
//! `window/logMessage`. Nothing is ever written to stdout, which carries the protocol.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tower_lsp_server::ls_types::MessageType;
use tower_lsp_server::Client;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{filter, EnvFilter, Layer};

/// A log line for the client.
type Line = (MessageType, String);

static TO_CLIENT: OnceLock<UnboundedSender<Line>> = OnceLock::new();
static FROM_LOG: OnceLock<std::sync::Mutex<Option<UnboundedReceiver<Line>>>> = OnceLock::new();
/// Set once the session has ended: there is no client to send to any more.
static DISCONNECTED: AtomicBool = AtomicBool::new(false);

/// Installs the global subscriber (once; later calls do nothing).
pub fn init() {
    let (tx, rx) = unbounded_channel();
    if TO_CLIENT.set(tx).is_ok() {
        let _ = FROM_LOG.set(std::sync::Mutex::new(Some(rx)));
    }
    let env = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(true)
        .with_filter(env);
    let to_client = ClientLayer.with_filter(filter::filter_fn(|m| {
        m.target().starts_with("segue") && *m.level() <= Level::INFO
    }));
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(to_client)
        .try_init();
}

/// Starts forwarding log events to `client` (call once the client exists, inside the runtime).
pub fn connect(client: Client) {
    let rx = FROM_LOG
        .get()
        .and_then(|m| m.lock().ok().and_then(|mut g| g.take()));
    let Some(mut rx) = rx else {
        return;
    };
    tokio::spawn(async move {
        while let Some((typ, message)) = rx.recv().await {
            client.log_message(typ, message).await;
        }
    });
}

/// Stops sending log events to the client (the session ended); stderr keeps them.
pub fn disconnect() {
    DISCONNECTED.store(true, Ordering::SeqCst);
}

struct ClientLayer;

impl<S: Subscriber> Layer<S> for ClientLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let Some(tx) = TO_CLIENT.get() else {
            return;
        };
        if DISCONNECTED.load(Ordering::SeqCst) {
            return;
        }
        let typ = match *event.metadata().level() {
            Level::ERROR => MessageType::ERROR,
            Level::WARN => MessageType::WARNING,
            Level::INFO => MessageType::INFO,
            _ => MessageType::LOG,
        };
        let mut visitor = Message::default();
        event.record(&mut visitor);
        let _ = tx.send((typ, visitor.0));
    }
}

#[derive(Default)]
struct Message(String);

impl Visit for Message {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.record_debug(field, &format_args!("{value}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, "{}={value:?}", field.name());
        }
    }
}
