//! Incremental text sync: after every `didChange` the server's text (read back with the hidden
//! `segue/debugText` request) equals a reference text edited with an independent implementation
//! of LSP positions; versions only move forward in published diagnostics.

mod common;

use common::*;
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::time::Duration;

fn server() -> Client {
    let mut c = Client::spawn();
    c.initialize(push_caps(), None, Some(json!({"debounce": 0})));
    c
}

/// Applies `changes` to the reference and the server, then compares the texts.
fn step(
    c: &mut Client,
    uri: &lsp::Uri,
    reference: &mut String,
    version: i32,
    changes: &[(lsp::Range, &str)],
) {
    for (r, t) in changes {
        apply_reference(reference, *r, t);
    }
    c.change(
        uri,
        version,
        changes.iter().map(|(r, t)| edit(*r, t)).collect(),
    );
    let (v, text) = c.debug_text(uri);
    assert_eq!(v, version);
    assert_eq!(text, *reference, "after version {version} ({changes:?})");
}

#[test]
fn scripted_edits_keep_the_text_identical() {
    let mut c = server();
    let uri = scratch_uri("sync.md");
    let mut text = "# Title\n\nFirst paragraph here. Second sentence.\n\nAnother paragraph 😀 with emoji.\n\nLast one.\n".to_string();
    c.open(&uri, "markdown", 1, &text);
    // Insert inside a word.
    step(&mut c, &uri, &mut text, 2, &[(range(2, 5, 2, 5), "ly")]);
    // Delete a sentence.
    step(&mut c, &uri, &mut text, 3, &[(range(2, 24, 2, 41), "")]);
    // Replace across paragraphs (end of paragraph 1 to the middle of paragraph 2).
    step(
        &mut c,
        &uri,
        &mut text,
        4,
        &[(range(2, 10, 4, 8), "joined text")],
    );
    // After the emoji (a surrogate pair: two UTF-16 units).
    let line = text
        .lines()
        .position(|l| l.contains('😀'))
        .expect("emoji line") as u32;
    let col = text
        .lines()
        .nth(line as usize)
        .expect("line")
        .split('😀')
        .next()
        .expect("pre")
        .encode_utf16()
        .count() as u32;
    step(
        &mut c,
        &uri,
        &mut text,
        5,
        &[(range(line, col + 2, line, col + 2), "!")],
    );
    // Delete the emoji itself.
    step(
        &mut c,
        &uri,
        &mut text,
        6,
        &[(range(line, col, line, col + 2), "")],
    );
    // Several changes in one notification, each relative to the text after the previous one.
    step(
        &mut c,
        &uri,
        &mut text,
        7,
        &[
            (range(0, 0, 0, 0), "Intro.\n\n"),
            (range(2, 2, 2, 7), "Heading"),
            (range(99, 0, 99, 0), "\nAppended."),
        ],
    );
    // Insert a new paragraph with a line break in the middle of a line.
    step(
        &mut c,
        &uri,
        &mut text,
        8,
        &[(range(4, 3, 4, 3), "\n\nNew paragraph.\n\n")],
    );
    // Full sync.
    text = "Replaced wholesale.\n".to_string();
    c.notify::<lsp::notification::DidChangeTextDocument>(lsp::DidChangeTextDocumentParams {
        text_document: lsp::VersionedTextDocumentIdentifier {
            uri: uri.clone(),
            version: 9,
        },
        content_changes: vec![lsp::TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: text.clone(),
        }],
    });
    assert_eq!(c.debug_text(&uri), (9, text.clone()));
    step(&mut c, &uri, &mut text, 10, &[(range(0, 8, 0, 8), " and")]);
    c.diagnostics(&uri, 10);
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn crlf_and_lone_cr_documents_edit_correctly() {
    let mut c = server();
    let uri = scratch_uri("crlf.md");
    let mut text = "Line one.\r\nLine two.\r\n\r\nPara two.\rLone CR line.\r\n".to_string();
    c.open(&uri, "markdown", 1, &text);
    // End of a CRLF line (a column past the end clamps before the \r).
    step(
        &mut c,
        &uri,
        &mut text,
        2,
        &[(range(0, 99, 0, 99), " More.")],
    );
    // Join two lines by deleting the whole CRLF.
    step(&mut c, &uri, &mut text, 3, &[(range(0, 15, 1, 0), " ")]);
    // The line after a lone \r.
    step(&mut c, &uri, &mut text, 4, &[(range(3, 0, 3, 4), "Single")]);
    // Insert a CRLF paragraph break.
    step(
        &mut c,
        &uri,
        &mut text,
        5,
        &[(range(2, 4, 2, 4), "\r\n\r\n")],
    );
    // Insert \n right after a lone \r: the pair becomes one CRLF terminator.
    let before = &text[..text.find("Single").expect("single")];
    assert!(before.ends_with("two.\r"));
    let line = (before.matches(['\n', '\r']).count() - before.matches("\r\n").count()) as u32;
    step(
        &mut c,
        &uri,
        &mut text,
        6,
        &[(range(line, 0, line, 0), "\n")],
    );
    assert!(text.contains("two.\r\nSingle"));
    c.diagnostics(&uri, 6);
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn random_edits_match_the_reference() {
    let mut c = server();
    let uri = scratch_uri("random.md");
    let mut text =
        "# Héllo\n\nThe cat sat. 漢字 text 😀 here.\r\n\r\nSecond para\rthird line.\n".to_string();
    c.open(&uri, "markdown", 1, &text);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let pieces = [
        "",
        "a",
        "é",
        "😀",
        "漢",
        "\n",
        "\r\n",
        "\n\n",
        " word. ",
        "Next sentence. ",
    ];
    let mut version = 1;
    for round in 0..150 {
        let lines = text.matches('\n').count() as u32 + 2;
        let mut pos = || lsp::Position {
            line: rng.gen_range(0..lines + 1),
            character: rng.gen_range(0..30),
        };
        let (a, b) = (pos(), pos());
        let insert = pieces[rng.gen_range(0..pieces.len())];
        version += 1;
        apply_reference(&mut text, lsp::Range { start: a, end: b }, insert);
        c.change(
            &uri,
            version,
            vec![edit(lsp::Range { start: a, end: b }, insert)],
        );
        if round % 10 == 9 {
            assert_eq!(c.debug_text(&uri), (version, text.clone()), "round {round}");
        }
    }
    assert_eq!(c.debug_text(&uri), (version, text.clone()));
    c.diagnostics(&uri, version);
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn published_versions_only_move_forward_and_bursts_are_debounced() {
    let mut c = Client::spawn();
    c.initialize(
        push_caps(),
        None,
        Some(json!({"debounce": 300, "scorer": "lexical"})),
    );
    let uri = scratch_uri("burst.md");
    let mut text = BLATANT_MD.to_string();
    c.open(&uri, "markdown", 1, &text);
    c.diagnostics(&uri, 1);
    for v in 2..=11 {
        apply_reference(&mut text, range(2, 4, 2, 4), "x");
        c.change(&uri, v, vec![edit(range(2, 4, 2, 4), "x")]);
    }
    c.diagnostics(&uri, 11);
    c.drain_for(Duration::from_millis(500));
    let published = c.take_published(&uri);
    let versions: Vec<i32> = published.iter().filter_map(|p| p.version).collect();
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
    assert!(versions.iter().all(|&v| v <= 11));
    assert!(
        versions.len() < 5,
        "a burst inside the debounce publishes once or twice: {versions:?}"
    );
    assert_eq!(c.debug_text(&uri).1, text);
    assert!(c.shutdown_and_exit().success());
}
