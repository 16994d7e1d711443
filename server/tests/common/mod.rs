//! A small typed LSP test client: spawns `segue serve`, speaks JSON-RPC with Content-Length
//! framing over its stdio, answers the server's own requests (`workspace/configuration`,
//! `client/registerCapability`, `window/workDoneProgress/create`), and puts a timeout on every
//! read so that a hung server fails the test instead of hanging CI.

#![allow(dead_code)]

use lsp::notification::Notification;
use lsp::request::Request;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
pub use tower_lsp_server::ls_types as lsp;

/// How long any single wait may take (override with `SEGUE_TEST_TIMEOUT` seconds).
pub fn timeout() -> Duration {
    let secs = std::env::var("SEGUE_TEST_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    Duration::from_secs(secs)
}

/// A running `segue serve` and the client side of the conversation.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Messages from the server not consumed yet (notifications and responses).
    pub inbox: VecDeque<Value>,
    /// What `workspace/configuration` is answered with (one value per item).
    pub config: Value,
    /// Every server → client request seen, in order (method, params).
    pub server_requests: Vec<(String, Value)>,
    /// Whether server → client requests are answered (when not, they land in the inbox, as an
    /// editor that never answers would leave them).
    pub answer_server_requests: bool,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

/// A JSON-RPC error reply.
#[derive(Debug, Clone)]
pub struct RpcError {
    /// The error code.
    pub code: i64,
    /// The error message.
    pub message: String,
    /// The error data.
    pub data: Option<Value>,
}

impl Client {
    /// Spawns the server with `RUST_LOG=segue=debug` and the given extra environment.
    pub fn spawn_with_env(env: &[(&str, &str)]) -> Client {
        Client::spawn_binary(Path::new(env!("CARGO_BIN_EXE_segue")), env)
    }

    /// [`Client::spawn_with_env`] for another build of the server (benchmarks compare builds).
    /// `SEGUE_TEST_SERVER` runs the server through a wrapper (a heap profiler, say), which gets
    /// the server's path and arguments.
    pub fn spawn_binary(binary: &Path, env: &[(&str, &str)]) -> Client {
        let mut cmd = match std::env::var_os("SEGUE_TEST_SERVER") {
            Some(wrapper) => {
                let mut c = Command::new(wrapper);
                c.arg(binary);
                c
            }
            None => Command::new(binary),
        };
        cmd.arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("RUST_LOG", "segue=debug")
            // Tier 0 unless a test asks for the models (server/tests/lsp_models.rs does).
            .env("SEGUE_MODELS_DIR", "/nonexistent/segue-models");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn segue serve");
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().expect("stdout");
        let stderr_pipe = child.stderr.take().expect("stderr");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            while let Some(msg) = read_frame(&mut stdout) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines().map_while(Result::ok) {
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                t.push_back(line);
                if t.len() > 200 {
                    t.pop_front();
                }
            }
        });
        Client {
            child,
            stdin,
            rx,
            next_id: 1,
            inbox: VecDeque::new(),
            config: json!({}),
            server_requests: Vec::new(),
            answer_server_requests: true,
            stderr,
        }
    }

    /// Spawns the server.
    pub fn spawn() -> Client {
        Client::spawn_with_env(&[])
    }

    /// The last lines the server wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        let t = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        t.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    fn fail(&self, what: &str) -> ! {
        panic!(
            "{what}\n--- server stderr (tail) ---\n{}",
            self.stderr_tail()
        );
    }

    /// Writes raw bytes to the server's stdin.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush");
    }

    /// Sends one JSON message with framing.
    pub fn send(&mut self, msg: &Value) {
        let body = serde_json::to_string(msg).expect("json");
        self.send_bytes(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// Sends a request and returns its id without waiting.
    pub fn start_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Waits for the reply to request `id`.
    pub fn wait_response(&mut self, id: i64) -> Result<Value, RpcError> {
        let msg = self.wait_message(&format!("response to request {id}"), |m| {
            m.get("id") == Some(&json!(id)) && m.get("method").is_none()
        });
        if let Some(err) = msg.get("error") {
            return Err(RpcError {
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: err
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                data: err.get("data").cloned(),
            });
        }
        Ok(msg.get("result").cloned().unwrap_or(Value::Null))
    }

    /// Sends a request by method name and waits for its reply.
    pub fn request_raw(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.start_request(method, params);
        self.wait_response(id)
    }

    /// Sends a typed request and waits for its typed result; panics on an error reply.
    pub fn request<R: Request>(&mut self, params: R::Params) -> R::Result {
        let v = serde_json::to_value(params).expect("params");
        match self.request_raw(R::METHOD, v) {
            Ok(r) => serde_json::from_value(r)
                .unwrap_or_else(|e| self.fail(&format!("bad {} result: {e}", R::METHOD))),
            Err(e) => self.fail(&format!("{} failed: {e:?}", R::METHOD)),
        }
    }

    /// Sends a notification by method name.
    pub fn notify_raw(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a typed notification.
    pub fn notify<N: Notification>(&mut self, params: N::Params) {
        let v = serde_json::to_value(params).expect("params");
        self.notify_raw(N::METHOD, v);
    }

    /// Reads one message from the server (answering its requests), or panics at the timeout.
    fn recv(&mut self, deadline: Instant, what: &str) -> Value {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = match self.rx.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    self.fail(&format!("timed out waiting for {what}"))
                }
                Err(RecvTimeoutError::Disconnected) => self.fail(&format!(
                    "server closed its output while waiting for {what}"
                )),
            };
            if !self.answer_if_request(&msg) {
                return msg;
            }
        }
    }

    /// Answers `msg` when it is a server → client request and such requests are answered
    /// (`workspace/configuration` with [`Client::config`], the rest with null), recording it in
    /// [`Client::server_requests`]; `false` when it is not answered here.
    fn answer_if_request(&mut self, msg: &Value) -> bool {
        let is_request = msg.get("method").is_some() && msg.get("id").is_some();
        if !is_request || !self.answer_server_requests {
            return false;
        }
        let method = msg["method"].as_str().unwrap_or("").to_string();
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let result = match method.as_str() {
            "workspace/configuration" => {
                let n = params
                    .get("items")
                    .and_then(Value::as_array)
                    .map_or(1, Vec::len);
                Value::Array(vec![self.config.clone(); n])
            }
            _ => Value::Null,
        };
        self.server_requests.push((method, params));
        let id = msg["id"].clone();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
        true
    }

    /// Waits for the first message (from the inbox, then the server) matching `pred`; the others
    /// stay in the inbox.
    pub fn wait_message(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.inbox.iter().position(&pred) {
            if let Some(m) = self.inbox.remove(i) {
                return m;
            }
        }
        let deadline = Instant::now() + timeout();
        loop {
            let msg = self.recv(deadline, what);
            if pred(&msg) {
                return msg;
            }
            self.inbox.push_back(msg);
        }
    }

    /// Waits for a notification of type `N` whose params satisfy `pred`.
    pub fn wait_notification<N: Notification>(
        &mut self,
        pred: impl Fn(&N::Params) -> bool,
    ) -> N::Params
    where
        N::Params: DeserializeOwned,
    {
        let msg = self.wait_message(N::METHOD, |m| {
            m.get("method").and_then(Value::as_str) == Some(N::METHOD)
                && m.get("params")
                    .and_then(|p| serde_json::from_value::<N::Params>(p.clone()).ok())
                    .is_some_and(|p| pred(&p))
        });
        serde_json::from_value(msg["params"].clone()).expect("params")
    }

    /// Collects messages for `dur` without blocking longer (to check that something did *not*
    /// arrive).
    pub fn drain_for(&mut self, dur: Duration) {
        let deadline = Instant::now() + dur;
        while Instant::now() < deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(msg) => {
                    if !self.answer_if_request(&msg) {
                        self.inbox.push_back(msg);
                    }
                }
                Err(_) => break,
            }
        }
    }

    /// `publishDiagnostics` notifications for `uri` waiting in the inbox, removed from it.
    pub fn take_published(&mut self, uri: &lsp::Uri) -> Vec<lsp::PublishDiagnosticsParams> {
        let mut out = Vec::new();
        self.inbox.retain(|m| {
            let hit = m.get("method").and_then(Value::as_str)
                == Some("textDocument/publishDiagnostics")
                && m["params"]["uri"].as_str() == Some(uri.as_str());
            if hit {
                if let Ok(p) = serde_json::from_value(m["params"].clone()) {
                    out.push(p);
                }
            }
            !hit
        });
        out
    }

    /// Initializes with `capabilities`, workspace `root` and `options`, then sends `initialized`.
    pub fn initialize(
        &mut self,
        capabilities: lsp::ClientCapabilities,
        root: Option<&Path>,
        options: Option<Value>,
    ) -> lsp::InitializeResult {
        let folders = root.map(|r| {
            vec![lsp::WorkspaceFolder {
                uri: lsp::Uri::from_file_path(r).expect("root uri"),
                name: "root".into(),
            }]
        });
        let params = lsp::InitializeParams {
            process_id: None,
            initialization_options: options,
            capabilities,
            workspace_folders: folders,
            client_info: Some(lsp::ClientInfo {
                name: "segue-test-client".into(),
                version: None,
            }),
            ..Default::default()
        };
        let result = self.request::<lsp::request::Initialize>(params);
        self.notify::<lsp::notification::Initialized>(lsp::InitializedParams {});
        result
    }

    /// Opens a document.
    pub fn open(&mut self, uri: &lsp::Uri, language: &str, version: i32, text: &str) {
        self.notify::<lsp::notification::DidOpenTextDocument>(lsp::DidOpenTextDocumentParams {
            text_document: lsp::TextDocumentItem {
                uri: uri.clone(),
                language_id: language.into(),
                version,
                text: text.into(),
            },
        });
    }

    /// Sends incremental changes.
    pub fn change(
        &mut self,
        uri: &lsp::Uri,
        version: i32,
        changes: Vec<lsp::TextDocumentContentChangeEvent>,
    ) {
        self.notify::<lsp::notification::DidChangeTextDocument>(lsp::DidChangeTextDocumentParams {
            text_document: lsp::VersionedTextDocumentIdentifier {
                uri: uri.clone(),
                version,
            },
            content_changes: changes,
        });
    }

    /// Waits for pushed diagnostics of `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &lsp::Uri, version: i32) -> Vec<lsp::Diagnostic> {
        let u = uri.clone();
        self.wait_notification::<lsp::notification::PublishDiagnostics>(move |p| {
            p.uri == u && p.version == Some(version)
        })
        .diagnostics
    }

    /// The server's copy of a document (`segue/debugText`): version and text.
    pub fn debug_text(&mut self, uri: &lsp::Uri) -> (i32, String) {
        let r = self
            .request_raw("segue/debugText", json!({"uri": uri.as_str()}))
            .unwrap_or_else(|e| self.fail(&format!("segue/debugText failed: {e:?}")));
        (
            r["version"].as_i64().unwrap_or(-1) as i32,
            r["text"]
                .as_str()
                .unwrap_or_else(|| self.fail(&format!("no text in {r}")))
                .to_string(),
        )
    }

    /// Sends `shutdown` and `exit` and returns the exit status.
    pub fn shutdown_and_exit(mut self) -> ExitStatus {
        let r = self.request_raw("shutdown", Value::Null);
        assert!(r.is_ok(), "shutdown failed: {r:?}");
        self.notify_raw("exit", Value::Null);
        self.wait_exit()
    }

    /// Waits for the process to exit.
    pub fn wait_exit(&mut self) -> ExitStatus {
        self.stdin.take();
        let deadline = Instant::now() + timeout();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => self.fail("server did not exit"),
            }
        }
    }

    /// Closes the server's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Waits at most `limit` for the process to exit, without closing its stdin; the exit status
    /// and how long after the call it came, or `None` if it is still running.
    pub fn exit_within(&mut self, limit: Duration) -> Option<(ExitStatus, Duration)> {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some((status, start.elapsed()));
            }
            if start.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits (up to the test timeout) until the server's stderr has a line containing `needle`.
    pub fn wait_stderr(&mut self, needle: &str) {
        let deadline = Instant::now() + timeout();
        while !self.stderr_tail().contains(needle) {
            if Instant::now() > deadline {
                self.fail(&format!("timed out waiting for `{needle}` on stderr"));
            }
            self.drain_for(Duration::from_millis(50));
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one Content-Length frame; `None` at end of stream or on a framing error.
fn read_frame(r: &mut impl Read) -> Option<Value> {
    let mut header = Vec::new();
    let mut byte = [0u8; 1];
    while !header.ends_with(b"\r\n\r\n") {
        r.read_exact(&mut byte).ok()?;
        header.push(byte[0]);
    }
    let text = String::from_utf8(header).ok()?;
    let len: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length:"))
        .and_then(|v| v.trim().parse().ok())?;
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// A `file:` URI for a path that need not exist.
pub fn file_uri(path: &Path) -> lsp::Uri {
    lsp::Uri::from_file_path(path).expect("file uri")
}

/// A URI for a document that does not exist on disk, in a folder that has no `segue.toml`.
pub fn scratch_uri(name: &str) -> lsp::Uri {
    file_uri(
        &std::env::temp_dir()
            .join("segue-lsp-tests-nonexistent")
            .join(name),
    )
}

/// Client capabilities for push diagnostics (no pull support).
pub fn push_caps() -> lsp::ClientCapabilities {
    serde_json::from_value(json!({
        "textDocument": {
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "refactor.rewrite"]}}},
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true}
        },
        "workspace": {"workspaceEdit": {"documentChanges": true}},
        "window": {"workDoneProgress": true}
    }))
    .expect("caps")
}

/// Client capabilities with pull diagnostics and `workspace/configuration`.
pub fn pull_caps() -> lsp::ClientCapabilities {
    serde_json::from_value(json!({
        "textDocument": {
            "hover": {"contentFormat": ["markdown"]},
            "diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": false},
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true}
        },
        "workspace": {
            "configuration": true,
            "didChangeConfiguration": {"dynamicRegistration": true},
            "diagnostics": {"refreshSupport": true},
            "workspaceEdit": {"documentChanges": true}
        },
        "window": {"workDoneProgress": true}
    }))
    .expect("caps")
}

/// A range from (line, character) pairs.
pub fn range(sl: u32, sc: u32, el: u32, ec: u32) -> lsp::Range {
    lsp::Range {
        start: lsp::Position {
            line: sl,
            character: sc,
        },
        end: lsp::Position {
            line: el,
            character: ec,
        },
    }
}

/// An incremental change event.
pub fn edit(r: lsp::Range, text: &str) -> lsp::TextDocumentContentChangeEvent {
    lsp::TextDocumentContentChangeEvent {
        range: Some(r),
        range_length: None,
        text: text.into(),
    }
}

/// Reference implementation of an LSP edit on a `String`: UTF-16 columns; lines end at `\n`,
/// `\r\n` or `\r`; a column past the line end clamps to it; a line past the end clamps to the end
/// of the text; a reversed range is swapped.
pub fn apply_reference(text: &mut String, r: lsp::Range, new: &str) {
    let a = offset_of(text, r.start);
    let b = offset_of(text, r.end);
    let (a, b) = (a.min(b), a.max(b));
    text.replace_range(a..b, new);
}

/// Byte offset of an LSP position in `text` (reference implementation, independent of the
/// server's).
pub fn offset_of(text: &str, pos: lsp::Position) -> usize {
    let bytes = text.as_bytes();
    let mut line = 0u32;
    let mut i = 0usize;
    while line < pos.line {
        match bytes.get(i) {
            None => return text.len(),
            Some(b'\n') => line += 1,
            Some(b'\r') => {
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                line += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let mut units = 0u32;
    for (j, ch) in text[i..].char_indices() {
        if ch == '\n' || ch == '\r' {
            return i + j;
        }
        let w = ch.len_utf16() as u32;
        if units + w > pos.character {
            return i + j;
        }
        units += w;
    }
    text.len()
}

/// Applies LSP text edits (non-overlapping, any order) to `text`.
pub fn apply_edits(text: &str, edits: &[lsp::TextEdit]) -> String {
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset_of(text, e.range.start),
                offset_of(text, e.range.end),
                e.new_text.as_str(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (a, b, t) in spans {
        out.replace_range(a..b, t);
    }
    out
}

/// The text edits of a code action's workspace edit for `uri` (either form).
pub fn edits_of(action: &lsp::CodeAction, uri: &lsp::Uri) -> Vec<lsp::TextEdit> {
    let Some(edit) = &action.edit else {
        return Vec::new();
    };
    if let Some(changes) = &edit.changes {
        return changes.get(uri).cloned().unwrap_or_default();
    }
    match &edit.document_changes {
        Some(lsp::DocumentChanges::Edits(es)) => es
            .iter()
            .filter(|e| &e.text_document.uri == uri)
            .flat_map(|e| {
                e.edits.iter().map(|x| match x {
                    lsp::OneOf::Left(t) => t.clone(),
                    lsp::OneOf::Right(a) => a.text_edit.clone(),
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Code actions from a response, as literals.
pub fn actions(resp: Option<lsp::CodeActionResponse>) -> Vec<lsp::CodeAction> {
    resp.unwrap_or_default()
        .into_iter()
        .filter_map(|a| match a {
            lsp::CodeActionOrCommand::CodeAction(a) => Some(a),
            lsp::CodeActionOrCommand::Command(_) => None,
        })
        .collect()
}

/// A section with one blatantly off-topic paragraph among paragraphs that share their words.
pub const BLATANT_MD: &str = "# Caches\n\n\
The cache stores vectors in memory. The cache evicts old vectors when memory runs low.\n\n\
Each cache entry holds vectors and a counter. The counter records cache hits on the vectors.\n\n\
The cache grows its memory when hits on vectors rise. A larger cache keeps more vectors in memory.\n\n\
Penguins waddle across Antarctic ice floes. Krill swarm beneath the frozen sea.\n\n\
Cache hits on vectors save memory reads. The cache counter shows how often vectors are reused.\n\n\
A cache that holds hot vectors in memory keeps hits high. Cold vectors leave the cache first.\n";

/// Whether `models/install` has run (the encoder and the runtime library are in the repository's
/// `models/`); prints why a test skips when not.
pub fn models_installed() -> bool {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    let ok = models.join("onnx/minilm/model.onnx").is_file() && models.join("lib").is_dir();
    if !ok {
        eprintln!("skipping: the tier 1 models are not installed (run models/install)");
    }
    ok
}
