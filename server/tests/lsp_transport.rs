//! The transport through the real `segue serve`: after any malformed frame the server finds the
//! next message and answers it (frames are resynchronised, not glued to what follows), frames
//! that are unusual but well formed are accepted, and every request gets a reply, unknown `$/`
//! requests included.

mod common;

use common::*;
use serde_json::{json, Value};

/// A framed `didChange` replacing the whole text of `uri` at `version`.
fn change_body(uri: &lsp::Uri, version: i32) -> String {
    json!({
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": uri.as_str(), "version": version},
            "contentChanges": [{"text": format!("Version {version} of the text.\n")}]
        }
    })
    .to_string()
}

#[test]
fn every_malformed_framing_is_dropped_and_the_next_request_answered() {
    let mut c = Client::spawn();
    c.initialize(push_caps(), None, Some(json!({"debounce": 0})));
    let uri = scratch_uri("framing.md");
    c.open(&uri, "markdown", 1, "Version 1 of the text.\n");
    assert_eq!(c.debug_text(&uri).0, 1);
    // Each case carries a didChange to a new version inside a malformed frame: the server must drop
    // it (the version stays) and still answer the request that follows.
    type Framing = fn(&str) -> Vec<u8>;
    let dropped: &[(&str, Framing)] = &[
        ("no Content-Length", |b| {
            format!("X-Whatever: 1\r\n\r\n{b}").into_bytes()
        }),
        ("Content-Length abc", |b| {
            format!("Content-Length: abc\r\n\r\n{b}").into_bytes()
        }),
        ("Content-Length -5", |b| {
            format!("Content-Length: -5\r\n\r\n{b}").into_bytes()
        }),
        ("Content-Length overflow", |b| {
            format!("Content-Length: 99999999999999999999\r\n\r\n{b}").into_bytes()
        }),
        ("Content-Length over the limit", |b| {
            format!("Content-Length: 999999999999\r\n\r\n{b}").into_bytes()
        }),
        ("Content-Length +2", |b| {
            format!("Content-Length: +2\r\n\r\n{b}").into_bytes()
        }),
        ("disagreeing Content-Lengths", |b| {
            format!(
                "Content-Length: {}\r\nContent-Length: {}\r\n\r\n{b}",
                b.len(),
                b.len() + 9
            )
            .into_bytes()
        }),
        ("body shorter than declared", |b| {
            format!("Content-Length: {}\r\n\r\n{b}", b.len() + 40).into_bytes()
        }),
        ("body much shorter than declared", |b| {
            format!("Content-Length: 1000000\r\n\r\n{b}").into_bytes()
        }),
        ("body longer than declared", |b| {
            format!("Content-Length: {}\r\n\r\n{b}", b.len() - 10).into_bytes()
        }),
        ("header line without a colon", |b| {
            format!("Content-Length: {}\r\nnonsense\r\n\r\n{b}", b.len()).into_bytes()
        }),
        ("junk before a header", |b| {
            format!("junk{b}Content-Length: 2\r\n\r\n{{}}").into_bytes()
        }),
        ("empty frame", |_| b"Content-Length: 0\r\n\r\n".to_vec()),
        ("body not JSON", |_| {
            b"Content-Length: 9\r\n\r\n{not json".to_vec()
        }),
        ("16 KiB without a line end", |_| vec![b'x'; 16 * 1024]),
    ];
    for (i, (case, framing)) in dropped.iter().enumerate() {
        let body = change_body(&uri, 100 + i as i32);
        c.send_bytes(&framing(&body));
        let (version, _) = c.debug_text(&uri);
        assert_eq!(version, 1, "{case}: the malformed frame was applied");
    }
    // Unusual but well formed: applied, and the next request answered.
    let accepted: &[(&str, Framing)] = &[
        ("lowercase header name", |b| {
            format!("content-length: {}\r\n\r\n{b}", b.len()).into_bytes()
        }),
        ("bare line feeds", |b| {
            format!("Content-Length: {}\n\n{b}", b.len()).into_bytes()
        }),
        ("agreeing duplicate Content-Lengths", |b| {
            format!(
                "Content-Length: {0}\r\nContent-Length: {0}\r\n\r\n{b}",
                b.len()
            )
            .into_bytes()
        }),
        ("Content-Type first", |b| {
            format!(
                "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: {}\r\n\r\n{b}",
                b.len()
            )
            .into_bytes()
        }),
    ];
    for (i, (case, framing)) in accepted.iter().enumerate() {
        let version = 200 + i as i32;
        c.send_bytes(&framing(&change_body(&uri, version)));
        assert_eq!(
            c.debug_text(&uri),
            (version, format!("Version {version} of the text.\n")),
            "{case}"
        );
    }
    // A new document is analysed and published as usual.
    let fresh = scratch_uri("after-framing.md");
    c.open(&fresh, "markdown", 1, BLATANT_MD);
    c.diagnostics(&fresh, 1);
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn unknown_requests_get_method_not_found() {
    let mut c = Client::spawn();
    c.initialize(push_caps(), None, None);
    for method in [
        "$/segue/unknown",
        "$/cancelRequestX",
        "segue/unknown",
        "textDocument/nope",
    ] {
        let reply = c.request_raw(method, json!({}));
        let err = reply.expect_err(method);
        assert_eq!(err.code, -32601, "{method}: {err:?}");
    }
    // Unknown `$/` notifications are ignored without a reply; the server keeps answering.
    c.notify_raw("$/segue/unknownNotification", json!({}));
    assert_eq!(
        c.request_raw("shutdown", Value::Null).expect("shutdown"),
        Value::Null
    );
    c.notify_raw("exit", Value::Null);
    assert_eq!(c.wait_exit().code(), Some(0));
}
