//! `segue serve` ends when the editor is gone, whatever is pending: after `exit` (stdin left
//! open), and at the end of its input without `exit`, with a server → client request the client
//! never answers, a request waiting for an analysis, or a tier-1 analysis running. Exit codes:
//! 0 when `shutdown` came first, 1 otherwise.
//!
//! The deadline below is a liveness bound (the server aims at well under a second), not a timing
//! measurement; the latency is printed for the curious (`--nocapture`).

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;

/// How long a server may take to exit before the test calls it stuck.
const DEADLINE: Duration = Duration::from_secs(5);

/// Asserts that the server exits within [`DEADLINE`] with `code`.
fn assert_exits(c: &mut Client, code: i32, case: &str) {
    match c.exit_within(DEADLINE) {
        Some((status, after)) => {
            let forced = c.stderr_tail().contains("exiting while");
            eprintln!(
                "{case}: exited with {status} after {} ms{}",
                after.as_millis(),
                if forced {
                    " (a blocking task left running)"
                } else {
                    ""
                }
            );
            assert_eq!(status.code(), Some(code), "{case}\n{}", c.stderr_tail());
        }
        None => panic!(
            "{case}: still running {} s later\n{}",
            DEADLINE.as_secs(),
            c.stderr_tail()
        ),
    }
}

/// A client that advertises `workspace/configuration` and never answers it: returns once the
/// server has asked.
fn with_unanswered_configuration() -> Client {
    let mut c = Client::spawn();
    c.answer_server_requests = false;
    let caps = serde_json::from_value(json!({"workspace": {"configuration": true}})).expect("caps");
    c.initialize(caps, None, None);
    c.wait_message("workspace/configuration", |m| {
        m["method"] == "workspace/configuration" && m.get("id").is_some()
    });
    c
}

#[test]
fn exit_ends_the_server_while_a_configuration_request_is_unanswered() {
    let mut c = with_unanswered_configuration();
    assert_eq!(
        c.request_raw("shutdown", Value::Null).expect("shutdown"),
        Value::Null
    );
    c.notify_raw("exit", Value::Null);
    // stdin stays open: `exit` alone must end the process.
    assert_exits(&mut c, 0, "shutdown, exit, configuration unanswered");
}

#[test]
fn end_of_input_ends_the_server_while_a_configuration_request_is_unanswered() {
    let mut c = with_unanswered_configuration();
    c.close_stdin();
    assert_exits(&mut c, 1, "end of input, configuration unanswered");
}

#[test]
fn exit_without_shutdown_exits_with_1_whatever_is_pending() {
    let mut c = with_unanswered_configuration();
    c.notify_raw("exit", Value::Null);
    assert_exits(&mut c, 1, "exit without shutdown, configuration unanswered");
}

#[test]
fn end_of_input_ends_the_server_with_a_request_pending() {
    let mut c = Client::spawn();
    c.initialize(push_caps(), None, Some(json!({"debounce": 60000})));
    let uri = scratch_uri("pending.md");
    c.open(&uri, "markdown", 1, BLATANT_MD);
    // The hover waits for an analysis that the debounce holds back for a minute.
    c.start_request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri.as_str()}, "position": {"line": 0, "character": 2}}),
    );
    c.close_stdin();
    assert_exits(&mut c, 1, "end of input, hover pending");
}

#[test]
fn end_of_input_after_shutdown_exits_with_0() {
    let mut c = Client::spawn();
    c.initialize(push_caps(), None, None);
    assert_eq!(
        c.request_raw("shutdown", Value::Null).expect("shutdown"),
        Value::Null
    );
    c.close_stdin();
    assert_exits(&mut c, 0, "shutdown, end of input");
}

/// A long document with few repeated sentences (the embedding cache does not shortcut it): the
/// repository's docs, concatenated.
fn long_document() -> String {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
    let mut paths: Vec<_> = std::fs::read_dir(&docs)
        .expect("docs")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("read"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn during_a_tier1_analysis(end: impl FnOnce(&mut Client), code: i32, case: &str) {
    if !models_installed() {
        eprintln!("skipping `{case}`: it needs the tier-1 models");
        return;
    }
    let mut c = Client::spawn_with_env(&[("SEGUE_MODELS_DIR", "")]);
    c.initialize(push_caps(), None, Some(json!({"debounce": 0, "tier": "1"})));
    let uri = scratch_uri("long.md");
    c.open(&uri, "markdown", 1, &long_document());
    c.wait_stderr("v1: running the model stage");
    // Let the stage get into its model runs (it takes many seconds on this document), past the
    // checks it makes before it starts.
    c.drain_for(Duration::from_secs(1));
    end(&mut c);
    assert_exits(&mut c, code, case);
}

#[test]
fn shutdown_during_a_tier1_analysis_exits_promptly() {
    during_a_tier1_analysis(
        |c| {
            assert_eq!(
                c.request_raw("shutdown", Value::Null).expect("shutdown"),
                Value::Null
            );
            c.notify_raw("exit", Value::Null);
        },
        0,
        "shutdown and exit during a tier-1 analysis",
    );
}

#[test]
fn end_of_input_during_a_tier1_analysis_exits_promptly() {
    during_a_tier1_analysis(
        Client::close_stdin,
        1,
        "end of input during a tier-1 analysis",
    );
}
