//! End-to-end tests of `segue serve` over stdio: diagnostics (push and pull), hover, code
//! actions, settings, commands, robustness and shutdown.

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;

fn quick() -> Option<Value> {
    Some(json!({"debounce": 0}))
}

/// Tests that need findings use the `lexical` scorer: its scores are plain cosines, stable while
/// the tier-0 model is retrained, and an off-topic paragraph scores 0 under it.
fn lexical() -> Option<Value> {
    Some(json!({"debounce": 0, "scorer": "lexical"}))
}

fn started(caps: lsp::ClientCapabilities, options: Option<Value>) -> Client {
    let mut c = Client::spawn();
    c.initialize(caps, None, options);
    c
}

fn line_of(text: &str, needle: &str) -> u32 {
    let at = text.find(needle).expect("needle");
    text[..at].matches('\n').count() as u32
}

#[test]
fn initialize_advertises_capabilities() {
    let mut c = Client::spawn();
    let r = c.initialize(push_caps(), None, None);
    let caps = serde_json::to_value(&r.capabilities).expect("json");
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix", "refactor.rewrite"])
    );
    assert_eq!(
        caps["executeCommandProvider"]["commands"],
        json!(["segue.checkWorkspace", "segue.showDocumentScore"])
    );
    assert_eq!(caps["diagnosticProvider"]["identifier"], "segue");
    assert_eq!(r.server_info.expect("info").name, "segue");
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn open_publishes_diagnostics_on_the_later_unit() {
    let mut c = started(push_caps(), lexical());
    let uri = scratch_uri("blatant.md");
    c.open(&uri, "markdown", 1, BLATANT_MD);
    let diags = c.diagnostics(&uri, 1);
    let penguins = line_of(BLATANT_MD, "Penguins");
    let d = diags
        .iter()
        .find(|d| d.range.start.line == penguins)
        .unwrap_or_else(|| panic!("no diagnostic on the penguin paragraph: {diags:#?}"));
    assert_eq!(d.source.as_deref(), Some("segue"));
    let code = serde_json::to_value(&d.code).expect("code");
    assert!(
        code == "weak-paragraph-transition" || code == "weak-sentence-transition",
        "{code}"
    );
    assert_eq!(
        d.code_description.as_ref().expect("href").href.as_str(),
        "https://github.com/segue-dev/segue/blob/main/docs/guide.md#rule-codes"
    );
    assert_eq!(d.severity, Some(lsp::DiagnosticSeverity::WARNING));
    let related = d.related_information.as_ref().expect("related");
    assert_eq!(related[0].location.uri, uri);
    assert!(related[0].location.range.start.line < penguins);
    let data = d.data.as_ref().expect("data");
    assert_eq!(data["version"], 1);
    assert!(data["score"].as_f64().is_some() && data["median"].as_f64().is_some());
    assert_eq!(data["scorer"], "lexical");
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn hover_shows_scores_median_reason_and_scorer() {
    let mut c = started(push_caps(), quick());
    let uri = scratch_uri("hover.md");
    c.open(&uri, "markdown", 1, BLATANT_MD);
    c.diagnostics(&uri, 1);
    let line = line_of(BLATANT_MD, "Krill swarm");
    let hover: Option<lsp::Hover> = c.request::<lsp::request::HoverRequest>(lsp::HoverParams {
        text_document_position_params: lsp::TextDocumentPositionParams {
            text_document: lsp::TextDocumentIdentifier { uri: uri.clone() },
            position: lsp::Position {
                line,
                character: 60,
            },
        },
        work_done_progress_params: Default::default(),
    });
    let hover = hover.expect("hover");
    let lsp::HoverContents::Markup(m) = hover.contents else {
        panic!("expected markup");
    };
    assert_eq!(m.kind, lsp::MarkupKind::Markdown);
    for needle in [
        "into this sentence",
        "out of this sentence",
        "into this paragraph",
        "out of this paragraph",
        "document median",
        "`tier0` (tier 0)",
        "Why",
        "shares",
        "Novelty",
    ] {
        assert!(
            m.value.contains(needle),
            "{needle:?} missing from\n{}",
            m.value
        );
    }
    let r = hover.range.expect("range");
    assert_eq!(r.start.line, line);
    // Hover outside any paragraph (the heading) and far out of range: nothing, no error.
    for (l, ch) in [(0, 0), (9999, 9999)] {
        let h: Option<lsp::Hover> = c.request::<lsp::request::HoverRequest>(lsp::HoverParams {
            text_document_position_params: lsp::TextDocumentPositionParams {
                text_document: lsp::TextDocumentIdentifier { uri: uri.clone() },
                position: lsp::Position {
                    line: l,
                    character: ch,
                },
            },
            work_done_progress_params: Default::default(),
        });
        assert!(h.is_none());
    }
    assert!(c.shutdown_and_exit().success());
}

/// Paragraphs in the order A1 B1 A2 B2: any coherence scorer prefers A1 A2 B1 B2 (or similar).
const SHUFFLED_MD: &str = "# Notes\n\n\
The cache stores vectors in memory and evicts old vectors.\n\n\
Penguins waddle across the Antarctic ice and eat krill.\n\n\
The cache evicts old vectors from memory when the cache is full.\n\n\
Krill swarm under the Antarctic ice where penguins eat them.\n";

fn code_action_request(
    c: &mut Client,
    uri: &lsp::Uri,
    r: lsp::Range,
    diags: Vec<lsp::Diagnostic>,
    only: Option<Vec<lsp::CodeActionKind>>,
) -> Vec<lsp::CodeAction> {
    actions(
        c.request::<lsp::request::CodeActionRequest>(lsp::CodeActionParams {
            text_document: lsp::TextDocumentIdentifier { uri: uri.clone() },
            range: r,
            context: lsp::CodeActionContext {
                diagnostics: diags,
                only,
                trigger_kind: None,
            },
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        }),
    )
}

fn paragraphs(text: &str) -> Vec<&str> {
    text.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.starts_with('#'))
        .collect()
}

#[test]
fn reorder_action_permutes_the_original_paragraphs() {
    let mut c = started(push_caps(), lexical());
    let uri = scratch_uri("shuffled.md");
    c.open(&uri, "markdown", 1, SHUFFLED_MD);
    c.diagnostics(&uri, 1);
    let found = code_action_request(
        &mut c,
        &uri,
        range(2, 3, 2, 3),
        vec![],
        Some(vec![lsp::CodeActionKind::REFACTOR]),
    );
    let action = found
        .iter()
        .find(|a| {
            a.title.starts_with("Reorder paragraphs in this section")
                && a.title.contains(" (coherence ")
        })
        .unwrap_or_else(|| panic!("no reorder action in {found:#?}"));
    assert_eq!(action.kind, Some(lsp::CodeActionKind::REFACTOR_REWRITE));
    // The title shows before → after with a gain.
    let nums: Vec<f64> = action
        .title
        .split(|ch: char| !(ch.is_ascii_digit() || ch == '.'))
        .filter_map(|s| s.parse().ok())
        .collect();
    assert!(nums.len() == 2 && nums[1] > nums[0], "{}", action.title);
    let edits = edits_of(action, &uri);
    let after = apply_edits(SHUFFLED_MD, &edits);
    assert_ne!(after, SHUFFLED_MD);
    assert!(after.starts_with("# Notes\n\n") && after.ends_with(".\n"));
    let mut before_units = paragraphs(SHUFFLED_MD);
    let mut after_units = paragraphs(&after);
    assert_eq!(after.len(), SHUFFLED_MD.len());
    before_units.sort_unstable();
    after_units.sort_unstable();
    assert_eq!(
        before_units, after_units,
        "a permutation of the paragraphs, byte for byte"
    );
    // The versioned edit applies on the server too; afterwards the order is already best.
    let Some(lsp::DocumentChanges::Edits(es)) =
        &action.edit.as_ref().expect("edit").document_changes
    else {
        panic!("versioned edits expected");
    };
    assert_eq!(es[0].text_document.version, Some(1));
    c.change(
        &uri,
        2,
        edits.iter().map(|e| edit(e.range, &e.new_text)).collect(),
    );
    assert_eq!(c.debug_text(&uri), (2, after.clone()));
    c.diagnostics(&uri, 2);
    let again = code_action_request(
        &mut c,
        &uri,
        range(2, 3, 2, 3),
        vec![],
        Some(vec![lsp::CodeActionKind::REFACTOR]),
    );
    assert!(
        !again
            .iter()
            .any(|a| a.title.starts_with("Reorder paragraphs")),
        "no action when the order is already best: {again:#?}"
    );
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn quick_fixes_reorder_and_disable_the_flagged_unit() {
    let mut c = started(push_caps(), lexical());
    let uri = scratch_uri("fix.md");
    c.open(&uri, "markdown", 1, BLATANT_MD);
    let diags = c.diagnostics(&uri, 1);
    assert!(!diags.is_empty());
    let d = diags[0].clone();
    let found = code_action_request(&mut c, &uri, d.range, vec![d.clone()], None);
    let disable = found
        .iter()
        .find(|a| a.title.starts_with("Disable this check here"))
        .unwrap_or_else(|| panic!("no disable action: {found:#?}"));
    assert_eq!(disable.kind, Some(lsp::CodeActionKind::QUICKFIX));
    assert_eq!(disable.diagnostics.as_ref().map(Vec::len), Some(1));
    let edits = edits_of(disable, &uri);
    let after = apply_edits(BLATANT_MD, &edits);
    let line = d.range.start.line as usize;
    assert_eq!(after.lines().nth(line), Some("<!-- segue-disable-next -->"));
    c.change(
        &uri,
        2,
        edits.iter().map(|e| edit(e.range, &e.new_text)).collect(),
    );
    let after_diags = c.diagnostics(&uri, 2);
    assert!(
        !after_diags
            .iter()
            .any(|x| x.range.start.line == d.range.start.line + 1),
        "the disabled paragraph is no longer flagged: {after_diags:#?}"
    );
    // Stale diagnostic data (version 1) on version 2 offers nothing.
    let stale = code_action_request(
        &mut c,
        &uri,
        d.range,
        vec![d.clone()],
        Some(vec![lsp::CodeActionKind::QUICKFIX]),
    );
    assert!(stale.is_empty(), "{stale:#?}");
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn plain_text_has_no_disable_action() {
    let mut c = started(push_caps(), lexical());
    let uri = scratch_uri("plain.txt");
    let text = BLATANT_MD.replace("# Caches\n\n", "");
    c.open(&uri, "plaintext", 1, &text);
    let diags = c.diagnostics(&uri, 1);
    for d in &diags {
        let found = code_action_request(&mut c, &uri, d.range, vec![d.clone()], None);
        assert!(
            !found.iter().any(|a| a.title.starts_with("Disable")),
            "{found:#?}"
        );
    }
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn pull_clients_get_no_push_and_unchanged_reports() {
    let mut c = Client::spawn();
    c.config = json!({"debounce": 0, "scorer": "lexical"});
    c.initialize(pull_caps(), None, None);
    let uri = scratch_uri("pull.md");
    c.open(&uri, "markdown", 1, BLATANT_MD);
    let report = c
        .request_raw(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri.as_str()}}),
        )
        .expect("pull");
    assert_eq!(report["kind"], "full");
    let items = report["items"].as_array().expect("items");
    assert!(!items.is_empty(), "{report}");
    let id = report["resultId"].as_str().expect("resultId").to_string();
    let again = c
        .request_raw(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri.as_str()}, "previousResultId": id}),
        )
        .expect("pull");
    assert_eq!(again["kind"], "unchanged");
    // After an edit the report is full again and reflects the new version.
    c.change(&uri, 2, vec![edit(range(0, 2, 0, 8), "Stores")]);
    let third = c
        .request_raw(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri.as_str()}, "previousResultId": id}),
        )
        .expect("pull");
    assert_eq!(third["kind"], "full");
    assert!(third["resultId"].as_str().expect("id").starts_with("2:"));
    // Unknown documents: an empty report, not an error.
    let none = c
        .request_raw(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": scratch_uri("nope.md").as_str()}}),
        )
        .expect("pull");
    assert_eq!(none["items"], json!([]));
    c.drain_for(Duration::from_millis(300));
    assert!(
        c.take_published(&uri).is_empty(),
        "a pull client gets no pushed diagnostics"
    );
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn configuration_is_pulled_warned_about_and_reapplied() {
    let mut c = Client::spawn();
    c.config = json!({"debounce": 0, "scorer": "lexical", "severity": "error", "colour": "red"});
    let mut caps = push_caps();
    caps.workspace = pull_caps().workspace;
    c.initialize(caps, None, None);
    let warning =
        c.wait_notification::<lsp::notification::ShowMessage>(|p| p.message.contains("colour"));
    assert_eq!(warning.typ, lsp::MessageType::WARNING);
    let uri = scratch_uri("config.md");
    c.open(&uri, "markdown", 1, BLATANT_MD);
    let diags = c.diagnostics(&uri, 1);
    assert!(!diags.is_empty());
    assert!(diags
        .iter()
        .all(|d| d.severity == Some(lsp::DiagnosticSeverity::ERROR)));
    assert!(c
        .server_requests
        .iter()
        .any(|(m, _)| m == "workspace/configuration"));
    // A settings change re-publishes with the new severity; a bad value warns and keeps the default.
    c.config =
        json!({"debounce": 0, "scorer": "lexical", "severity": "hint", "sensitivity": "extreme"});
    c.notify::<lsp::notification::DidChangeConfiguration>(lsp::DidChangeConfigurationParams {
        settings: Value::Null,
    });
    c.wait_notification::<lsp::notification::ShowMessage>(|p| p.message.contains("sensitivity"));
    let u = uri.clone();
    let republished = c.wait_notification::<lsp::notification::PublishDiagnostics>(move |p| {
        p.uri == u
            && p.diagnostics
                .iter()
                .any(|d| d.severity == Some(lsp::DiagnosticSeverity::HINT))
    });
    assert_eq!(republished.version, Some(1));
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn pushed_settings_work_without_workspace_configuration() {
    let mut c = started(push_caps(), lexical());
    let uri = scratch_uri("pushed.md");
    c.open(&uri, "markdown", 1, BLATANT_MD);
    assert!(!c.diagnostics(&uri, 1).is_empty());
    c.notify::<lsp::notification::DidChangeConfiguration>(lsp::DidChangeConfigurationParams {
        settings: json!({"segue": {"debounce": 0, "formats": ["latex"]}}),
    });
    let u = uri.clone();
    c.wait_notification::<lsp::notification::PublishDiagnostics>(move |p| {
        p.uri == u && p.diagnostics.is_empty()
    });
    // Garbage settings: a warning, defaults, and a live server.
    c.notify::<lsp::notification::DidChangeConfiguration>(lsp::DidChangeConfigurationParams {
        settings: json!({"segue": 42}),
    });
    c.wait_notification::<lsp::notification::ShowMessage>(|p| {
        p.message.contains("must be an object")
    });
    assert_eq!(c.debug_text(&uri).0, 1);
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn project_file_wins_over_editor_settings() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("segue.toml"),
        "severity = \"information\"\nwat = 1\n",
    )
    .expect("write");
    let mut c = Client::spawn();
    c.initialize(
        push_caps(),
        Some(dir.path()),
        Some(json!({"debounce": 0, "scorer": "lexical", "severity": "error"})),
    );
    let uri = file_uri(&dir.path().join("doc.md"));
    c.open(&uri, "markdown", 1, BLATANT_MD);
    let diags = c.diagnostics(&uri, 1);
    assert!(!diags.is_empty());
    assert!(
        diags
            .iter()
            .all(|d| d.severity == Some(lsp::DiagnosticSeverity::INFORMATION)),
        "{diags:#?}"
    );
    c.wait_notification::<lsp::notification::ShowMessage>(|p| p.message.contains("wat"));
    // Editing the file and saving it (or a watched-file event) re-reads it.
    std::fs::write(dir.path().join("segue.toml"), "severity = \"hint\"\n").expect("write");
    c.notify::<lsp::notification::DidChangeWatchedFiles>(lsp::DidChangeWatchedFilesParams {
        changes: vec![lsp::FileEvent {
            uri: file_uri(&dir.path().join("segue.toml")),
            typ: lsp::FileChangeType::CHANGED,
        }],
    });
    let u = uri.clone();
    c.wait_notification::<lsp::notification::PublishDiagnostics>(move |p| {
        p.uri == u
            && !p.diagnostics.is_empty()
            && p.diagnostics
                .iter()
                .all(|d| d.severity == Some(lsp::DiagnosticSeverity::HINT))
    });
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn commands_check_the_workspace_and_score_a_document() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::write(
        root.join("segue.toml"),
        "ignore = [\"drafts/**\"]\nscorer = \"lexical\"\n",
    )
    .expect("write");
    std::fs::write(root.join("a.md"), BLATANT_MD).expect("write");
    std::fs::write(root.join("b.txt"), "Short and fine.\n").expect("write");
    std::fs::write(root.join("c.rs"), "fn main() {}\n").expect("write");
    std::fs::create_dir_all(root.join("drafts")).expect("mkdir");
    std::fs::write(root.join("drafts").join("d.md"), BLATANT_MD).expect("write");
    std::fs::write(root.join(".gitignore"), "skipped.md\n").expect("write");
    std::fs::write(root.join("skipped.md"), BLATANT_MD).expect("write");
    std::fs::write(root.join("binary.md"), b"a\0b").expect("write");
    let mut c = Client::spawn();
    c.initialize(push_caps(), Some(root), Some(json!({"debounce": 0})));
    let result = c
        .request_raw(
            "workspace/executeCommand",
            json!({"command": "segue.checkWorkspace", "arguments": []}),
        )
        .expect("checkWorkspace");
    assert_eq!(result["files"], 2, "{result}");
    assert_eq!(result["errors"], 1, "{result}");
    assert_eq!(result["cancelled"], false);
    assert!(result["findings"].as_u64().expect("findings") >= 1);
    let a = file_uri(&root.join("a.md"));
    c.drain_for(Duration::from_millis(100));
    let published = c.take_published(&a);
    assert!(
        published.iter().any(|p| !p.diagnostics.is_empty()),
        "{published:#?}"
    );
    assert!(c
        .take_published(&file_uri(&root.join("drafts").join("d.md")))
        .is_empty());
    assert!(c
        .take_published(&file_uri(&root.join("skipped.md")))
        .is_empty());
    // Progress: the server created a token and reported begin … end.
    assert!(c
        .server_requests
        .iter()
        .any(|(m, _)| m == "window/workDoneProgress/create"));
    let kinds: Vec<String> = c
        .inbox
        .iter()
        .filter(|m| m["method"] == "$/progress")
        .map(|m| {
            m["params"]["value"]["kind"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("begin"),
        "{kinds:?}"
    );
    assert_eq!(kinds.last().map(String::as_str), Some("end"), "{kinds:?}");

    c.open(&a, "markdown", 1, BLATANT_MD);
    c.diagnostics(&a, 1);
    let score = c
        .request_raw(
            "workspace/executeCommand",
            json!({"command": "segue.showDocumentScore", "arguments": [a.as_str()]}),
        )
        .expect("score");
    let s = score["score"].as_f64().expect("score");
    assert!((0.0..=1.0).contains(&s), "{score}");
    assert_eq!(score["scorer"], "lexical");
    assert_eq!(score["version"], 1);
    c.wait_notification::<lsp::notification::ShowMessage>(|p| p.message.contains("coherence"));
    // `silent` (editors polling for a status bar): the same reply, and no message.
    let quiet = c
        .request_raw(
            "workspace/executeCommand",
            json!({"command": "segue.showDocumentScore", "arguments": [{"uri": a.as_str(), "silent": true}]}),
        )
        .expect("silent score");
    assert_eq!(quiet["score"], score["score"]);
    c.drain_for(std::time::Duration::from_millis(300));
    assert!(
        !c.inbox.iter().any(|m| m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("coherence")),
        "a silent request showed a message"
    );
    let bad = c.request_raw(
        "workspace/executeCommand",
        json!({"command": "segue.showDocumentScore", "arguments": []}),
    );
    assert!(bad.is_err());
    let unknown = c.request_raw(
        "workspace/executeCommand",
        json!({"command": "segue.nope", "arguments": []}),
    );
    assert!(unknown.is_err());
    assert!(c.shutdown_and_exit().success());
}

/// A file on disk with a byte-order mark gets the diagnostics of the same file without it, at
/// the same positions: editors hide the mark, so the workspace check counts columns without it.
#[test]
fn check_workspace_counts_columns_without_the_byte_order_mark() {
    let dir = tempfile::tempdir().expect("tempdir");
    // One line: every diagnostic stands on the first line, where the mark is.
    let text = "The cache stores vectors in memory. The cache evicts old vectors when the cache \
is full. Each cache entry holds vectors and a counter of hits. The cache counts the hits on the \
vectors of each entry. Penguins waddle across the Antarctic ice at dawn. The cache grows when new \
vectors are added to the cache. The cache shrinks when old vectors are evicted from the cache.\n";
    std::fs::write(dir.path().join("plain.md"), text).expect("write");
    std::fs::write(dir.path().join("marked.md"), format!("\u{feff}{text}")).expect("write");
    let mut c = Client::spawn();
    c.initialize(
        push_caps(),
        Some(dir.path()),
        Some(json!({"debounce": 0, "sensitivity": "high"})),
    );
    let result = c
        .request_raw(
            "workspace/executeCommand",
            json!({"command": "segue.checkWorkspace", "arguments": []}),
        )
        .expect("checkWorkspace");
    assert_eq!(result["files"], 2, "{result}");
    c.drain_for(Duration::from_millis(100));
    let mut ranges = |name: &str| -> Vec<lsp::Range> {
        c.take_published(&file_uri(&dir.path().join(name)))
            .into_iter()
            .flat_map(|p| p.diagnostics)
            .map(|d| d.range)
            .collect()
    };
    let plain = ranges("plain.md");
    assert!(!plain.is_empty(), "no diagnostics");
    assert_eq!(ranges("marked.md"), plain);
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn check_workspace_can_be_cancelled_through_progress() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..150 {
        std::fs::write(dir.path().join(format!("f{i:03}.md")), BLATANT_MD).expect("write");
    }
    let mut c = Client::spawn();
    c.initialize(push_caps(), Some(dir.path()), Some(json!({"debounce": 0})));
    let id = c.start_request(
        "workspace/executeCommand",
        json!({"command": "segue.checkWorkspace", "arguments": [], "workDoneToken": "tok"}),
    );
    c.wait_message("progress begin", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin"
    });
    c.notify_raw("window/workDoneProgress/cancel", json!({"token": "tok"}));
    let result = c.wait_response(id).expect("result");
    assert_eq!(result["cancelled"], true, "{result}");
    assert!(result["files"].as_u64().expect("files") < 150);
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn malformed_input_and_bad_positions_do_not_kill_the_server() {
    let mut c = started(push_caps(), quick());
    let uri = scratch_uri("robust.md");
    c.open(&uri, "markdown", 1, "Hello world.\n");
    // Malformed JSON, a frame without Content-Length, garbage, valid JSON that is not JSON-RPC.
    c.send_bytes(b"Content-Length: 9\r\n\r\n{not json");
    c.send_bytes(b"X-Whatever: 1\r\n\r\n");
    c.send_bytes(b"Content-Length: 11\r\n\r\n{\"hello\":1}");
    // Unknown request and notification; request with bad params.
    let unknown = c.request_raw("segue/nope", json!({}));
    assert_eq!(unknown.expect_err("unknown method").code, -32601);
    c.notify_raw("segue/unknownNotification", json!({"x": 1}));
    let bad = c.request_raw("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(bad.expect_err("bad params").code, -32602);
    c.notify_raw("textDocument/didChange", json!({"garbage": true}));
    // Out-of-range edit positions clamp; reversed ranges swap; the text matches the reference.
    let mut reference = "Hello world.\n".to_string();
    let steps = [
        (range(50, 0, 60, 10), " Tail."),
        (range(0, 500, 0, 900), "!"),
        (range(0, 5, 0, 0), "Howdy"),
    ];
    for (i, (r, t)) in steps.iter().enumerate() {
        apply_reference(&mut reference, *r, t);
        c.change(&uri, 2 + i as i32, vec![edit(*r, t)]);
        assert_eq!(c.debug_text(&uri), (2 + i as i32, reference.clone()));
    }
    // Changes to a document that is not open, and requests about it.
    c.change(
        &scratch_uri("never-opened.md"),
        3,
        vec![edit(range(0, 0, 0, 0), "x")],
    );
    let h = c.request_raw(
        "textDocument/hover",
        json!({"textDocument": {"uri": scratch_uri("never-opened.md").as_str()}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(h.expect("hover"), Value::Null);
    let ca = c.request_raw(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri.as_str()}, "range": {"start": {"line": 99, "character": 99}, "end": {"line": 120, "character": 0}}, "context": {"diagnostics": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": "x", "source": "segue", "data": {"bogus": true}}]}}),
    );
    assert!(ca.is_ok(), "{ca:?}");
    // Huge and binary documents: no diagnostics, no crash.
    let huge = "word ".repeat(2_000_000);
    let big = scratch_uri("huge.md");
    c.open(&big, "markdown", 1, &huge);
    assert!(c.diagnostics(&big, 1).is_empty());
    let bin = scratch_uri("binary.md");
    c.open(&bin, "markdown", 1, "a\u{0}b\u{0}\u{7f} c. d.");
    assert!(c.diagnostics(&bin, 1).is_empty());
    // Still alive and answering.
    assert_eq!(c.debug_text(&uri).1, reference);
    assert!(c.is_running());
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn exit_without_shutdown_exits_with_code_1() {
    let mut c = started(push_caps(), None);
    c.notify_raw("exit", Value::Null);
    let status = c.wait_exit();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn end_of_input_ends_the_server() {
    let mut c = started(push_caps(), None);
    let status = c.wait_exit();
    assert!(status.code().is_some());
}

#[test]
fn closing_a_document_clears_its_diagnostics() {
    let mut c = started(push_caps(), lexical());
    let uri = scratch_uri("close.md");
    c.open(&uri, "markdown", 1, BLATANT_MD);
    assert!(!c.diagnostics(&uri, 1).is_empty());
    c.notify::<lsp::notification::DidCloseTextDocument>(lsp::DidCloseTextDocumentParams {
        text_document: lsp::TextDocumentIdentifier { uri: uri.clone() },
    });
    let u = uri.clone();
    c.wait_notification::<lsp::notification::PublishDiagnostics>(move |p| {
        p.uri == u && p.diagnostics.is_empty() && p.version.is_none()
    });
    assert!(c.shutdown_and_exit().success());
}

/// After `didClose` the server keeps nothing of the document: a hover that found its scores
/// while it was open finds nothing.
#[test]
fn closing_a_document_frees_its_state() {
    let mut c = started(push_caps(), quick());
    let uri = scratch_uri("freed.md");
    c.open(&uri, "markdown", 1, BLATANT_MD);
    c.diagnostics(&uri, 1);
    let line = line_of(BLATANT_MD, "Krill swarm");
    let hover = |c: &mut Client| -> Option<lsp::Hover> {
        c.request::<lsp::request::HoverRequest>(lsp::HoverParams {
            text_document_position_params: lsp::TextDocumentPositionParams {
                text_document: lsp::TextDocumentIdentifier { uri: uri.clone() },
                position: lsp::Position {
                    line,
                    character: 60,
                },
            },
            work_done_progress_params: Default::default(),
        })
    };
    assert!(hover(&mut c).is_some(), "open, the unit has a hover");
    c.notify::<lsp::notification::DidCloseTextDocument>(lsp::DidCloseTextDocumentParams {
        text_document: lsp::TextDocumentIdentifier { uri: uri.clone() },
    });
    assert!(hover(&mut c).is_none(), "closed, nothing of it is kept");
    assert!(c.shutdown_and_exit().success());
}

/// The editor and `segue check` report the same findings for the same text and settings.
#[test]
fn diagnostics_agree_with_segue_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("agree.md");
    std::fs::write(&path, BLATANT_MD).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_segue"))
        .args(["check", "--format", "json", "--scorer", "lexical"])
        .arg(&path)
        .output()
        .expect("segue check");
    let report: Value = serde_json::from_slice(&out.stdout).expect("json report");
    let cli: Vec<(Value, Value, Value)> = report["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| (f["code"].clone(), f["range"].clone(), f["message"].clone()))
        .collect();
    let mut c = started(push_caps(), lexical());
    let uri = file_uri(&path);
    c.open(&uri, "markdown", 1, BLATANT_MD);
    let lsp: Vec<(Value, Value, Value)> = c
        .diagnostics(&uri, 1)
        .iter()
        .map(|d| {
            (
                serde_json::to_value(&d.code).expect("code"),
                serde_json::to_value(d.range).expect("range"),
                Value::String(d.message.clone()),
            )
        })
        .collect();
    assert!(!lsp.is_empty());
    assert_eq!(lsp, cli);
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn reorder_sentences_keeps_every_sentence_and_separator() {
    let text = "Intro line for the test.\n\n\
The cache stores vectors in memory. Penguins eat krill under the ice.\n\
The cache evicts old vectors from memory. Krill swarm under the ice where penguins eat.\n";
    let mut c = started(push_caps(), lexical());
    let uri = scratch_uri("sentences.md");
    c.open(&uri, "markdown", 1, text);
    c.diagnostics(&uri, 1);
    let found = code_action_request(
        &mut c,
        &uri,
        range(2, 5, 2, 5),
        vec![],
        Some(vec![lsp::CodeActionKind::REFACTOR_REWRITE]),
    );
    let action = found
        .iter()
        .find(|a| {
            a.title.starts_with("Reorder sentences in this paragraph")
                && a.title.contains(" (coherence ")
        })
        .unwrap_or_else(|| panic!("no sentence reorder in {found:#?}"));
    let after = apply_edits(text, &edits_of(action, &uri));
    assert_ne!(after, text);
    assert_eq!(after.len(), text.len());
    let split = |t: &str| -> (Vec<String>, Vec<String>) {
        // Sentences end at ". "; the separators are the whitespace runs between them.
        let body = &t[t.find("\n\n").expect("para") + 2..];
        let mut sentences = Vec::new();
        let mut seps = Vec::new();
        let mut rest = body;
        while let Some(i) = rest.find('.') {
            sentences.push(rest[..=i].to_string());
            let tail = &rest[i + 1..];
            let ws = tail.len() - tail.trim_start().len();
            seps.push(tail[..ws].to_string());
            rest = &tail[ws..];
        }
        (sentences, seps)
    };
    let (mut s0, sep0) = split(text);
    let (mut s1, sep1) = split(&after);
    assert_eq!(sep0, sep1, "separators stay in place");
    s0.sort();
    s1.sort();
    assert_eq!(s0, s1, "the same sentences, byte for byte");
    assert!(after.starts_with("Intro line for the test.\n\n"));
    assert!(c.shutdown_and_exit().success());
}
