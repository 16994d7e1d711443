//! A huge document is analysed in a bounded window (`segue::lsp::window`): with the window set to
//! 4 KiB (`SEGUE_WINDOW_BYTES`), a 12 KiB document gets diagnostics and hover only in its first
//! 4 KiB, and one Info message says so, once, however many edits follow.

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;

/// 60 paragraphs of about 200 bytes; paragraphs 5 (inside the first 4 KiB) and 45 (well past
/// them) are off topic.
fn document() -> String {
    (0..60)
        .map(|i| {
            if i == 5 {
                "Krill swarm in the cold southern ocean every spring. Whales follow the krill \
                 across the open water. Penguins dive for the same krill near the ice."
                    .to_string()
            } else if i == 45 {
                "Volcanoes erupt when magma rises through cracks in the crust. Lava flows cool \
                 into basalt. Ash from the eruption darkens the sky for weeks."
                    .to_string()
            } else {
                format!(
                    "The compiler checks every borrow in function {i}. The borrow checker rejects \
                     code where a reference outlives its value. Lifetimes in function {i} tell \
                     the compiler how long each reference lives."
                )
            }
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn hover_at(c: &mut Client, uri: &lsp::Uri, line: u32) -> Value {
    c.request_raw(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri.as_str()}, "position": {"line": line, "character": 10}}),
    )
    .expect("hover")
}

#[test]
fn a_huge_document_is_analysed_in_a_window_with_one_notice() {
    let mut c = Client::spawn_with_env(&[("SEGUE_WINDOW_BYTES", "4096")]);
    c.initialize(
        push_caps(),
        None,
        Some(json!({"debounce": 0, "scorer": "lexical"})),
    );
    let text = document();
    let uri = scratch_uri("huge.md");
    c.open(&uri, "markdown", 1, &text);
    let diagnostics = c.diagnostics(&uri, 1);
    // The window ends at the last paragraph break within 4,096 bytes.
    let window_end = text[..4096].rfind("\n\n").expect("a paragraph break");
    let last_line = text[..window_end].matches('\n').count() as u32;
    assert!(
        !diagnostics.is_empty(),
        "the off-topic paragraph inside the window is flagged"
    );
    assert!(
        diagnostics.iter().all(|d| d.range.end.line <= last_line),
        "{diagnostics:#?}"
    );
    // Hover answers inside the window, not past it.
    assert!(!hover_at(&mut c, &uri, 0).is_null());
    assert!(hover_at(&mut c, &uri, last_line + 20).is_null());
    // More edits: still one notice.
    for version in 2..5 {
        c.change(
            &uri,
            version,
            vec![lsp::TextDocumentContentChangeEvent {
                range: Some(lsp::Range::new(
                    lsp::Position::new(0, 0),
                    lsp::Position::new(0, 0),
                )),
                range_length: None,
                text: "Also ".into(),
            }],
        );
        c.diagnostics(&uri, version);
    }
    c.drain_for(Duration::from_millis(300));
    let notices: Vec<&Value> = c
        .inbox
        .iter()
        .filter(|m| m["method"] == "window/showMessage")
        .collect();
    assert_eq!(notices.len(), 1, "{notices:#?}");
    assert_eq!(notices[0]["params"]["type"], 3, "an Info message");
    let message = notices[0]["params"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("huge.md is 0.0 MiB; Segue checks only its first 4 KiB (up to line"),
        "{message}"
    );
    assert!(c.shutdown_and_exit().success());
}
