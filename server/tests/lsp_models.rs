//! The language server with the tier-1 models: the model stage's diagnostics (scorer `embedding`)
//! replace tier 0's, which are shown meanwhile only when the model stage takes a while, while
//! reorder code actions keep the tier-0 judge;
//! the model stage's findings are `segue check --tier 1`'s, file for file, and after an edit
//! they are a fresh open's.
//! Skips with a printed reason when `models/install` has not run (CI runs it).

mod common;

use common::*;
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

/// Polls `segue.showDocumentScore` until the document is scored by `scorer` (the models load in
/// the background, in about a second) or a minute passes; returns the last answer.
fn wait_for_scorer(c: &mut Client, uri: &lsp::Uri, scorer: &str) -> serde_json::Value {
    let deadline = Instant::now() + timeout().max(Duration::from_secs(60));
    loop {
        let s = c
            .request_raw(
                "workspace/executeCommand",
                json!({"command": "segue.showDocumentScore", "arguments": [{"uri": uri.as_str(), "silent": true}]}),
            )
            .expect("score");
        if s["scorer"] == scorer || Instant::now() > deadline {
            return s;
        }
        c.drain_for(Duration::from_millis(200));
    }
}

/// Starts the server with the repository's models (`scorer` in the settings when given), opens
/// `docs/sample.md`, and waits until it is scored by that scorer (`embedding` by default). Returns
/// the client, the document's URI and text, and the last `segue.showDocumentScore` answer.
fn open_sample(scorer: Option<&str>) -> (Client, lsp::Uri, String, serde_json::Value) {
    // An empty SEGUE_MODELS_DIR means "look in the usual places" (the repository's models/).
    let mut c = Client::spawn_with_env(&[("SEGUE_MODELS_DIR", "")]);
    let settings = match scorer {
        Some(name) => json!({"debounce": 0, "scorer": name}),
        None => json!({"debounce": 0}),
    };
    c.initialize(push_caps(), None, Some(settings));
    let path = repo("docs/sample.md");
    let text = std::fs::read_to_string(&path).expect("sample");
    let uri = file_uri(&path);
    c.open(&uri, "markdown", 1, &text);
    let expected = scorer.unwrap_or("embedding");
    let score = wait_for_scorer(&mut c, &uri, expected);
    assert_eq!(score["scorer"], expected, "{score}\n{}", c.stderr_tail());
    (c, uri, text, score)
}

/// The last diagnostics published for version 1 of `uri` (after letting late messages arrive).
fn last_published(c: &mut Client, uri: &lsp::Uri) -> lsp::PublishDiagnosticsParams {
    c.drain_for(Duration::from_millis(300));
    c.take_published(uri)
        .into_iter()
        .rfind(|p| p.version == Some(1))
        .expect("diagnostics for version 1")
}

/// Asserts that `diagnostics` of `docs/sample.md` (`text`) flag its off-topic sentence, as the
/// model stage does.
fn flags_the_tomatoes(text: &str, diagnostics: &[lsp::Diagnostic]) {
    let flagged: Vec<&str> = diagnostics
        .iter()
        .map(|d| &text[offset_of(text, d.range.start)..offset_of(text, d.range.end)])
        .collect();
    assert!(
        flagged
            .iter()
            .any(|s| s.starts_with("My grandmother grows prize-winning tomatoes")),
        "{flagged:#?}"
    );
}

#[test]
fn model_stage_replaces_tier0_diagnostics() {
    if !models_installed() {
        return;
    }
    // Poll the document's score until the model stage has run (loading takes about a second).
    let (mut c, uri, text, score) = open_sample(None);
    assert_eq!(score["tier"], 1);

    // The last diagnostics published for version 1 come from the model stage and flag the
    // off-topic sentence.
    let last = last_published(&mut c, &uri);
    flags_the_tomatoes(&text, &last.diagnostics);
    assert!(
        c.stderr_tail().contains("all-MiniLM-L6-v2"),
        "{}",
        c.stderr_tail()
    );

    // The hover says which scorer produced the scores and where the model runs.
    let hover = c
        .request_raw(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri.as_str()}, "position": {"line": 13, "character": 30}}),
        )
        .expect("hover");
    let shown = hover.to_string();
    assert!(shown.contains("embedding"), "{shown}");
    assert!(shown.contains("Runs on all-MiniLM-L6-v2 on"), "{shown}");
    // `embedding` has an intrusion model: the hover gives the sentence's score, high for the
    // off-topic sentence under the cursor.
    assert!(shown.contains("Intrusion score"), "{shown}");
    let intrusion: f64 = shown
        .split("this sentence: ")
        .nth(1)
        .and_then(|rest| rest.get(..4))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no sentence intrusion score in {shown}"));
    assert!(intrusion >= 0.9, "{shown}");
    assert!(c.shutdown_and_exit().success());
}

/// The publishes for version 2 of `docs/sample.md` after a one-character edit, in order, with the
/// models loaded and tier 0's preview shown after `preview_ms` (`SEGUE_TIER0_PREVIEW_MS`).
fn publishes_after_an_edit(preview_ms: &str) -> Vec<lsp::PublishDiagnosticsParams> {
    let mut c = Client::spawn_with_env(&[
        ("SEGUE_MODELS_DIR", ""),
        ("SEGUE_TIER0_PREVIEW_MS", preview_ms),
    ]);
    c.initialize(push_caps(), None, Some(json!({"debounce": 0})));
    let path = repo("docs/sample.md");
    let text = std::fs::read_to_string(&path).expect("sample");
    let uri = file_uri(&path);
    c.open(&uri, "markdown", 1, &text);
    let score = wait_for_scorer(&mut c, &uri, "embedding");
    assert_eq!(score["scorer"], "embedding", "{score}\n{}", c.stderr_tail());
    c.drain_for(Duration::from_millis(300));
    c.take_published(&uri);
    let end = text.matches('\n').count() as u32;
    c.change(&uri, 2, vec![edit(range(end, 0, end, 0), "\n")]);
    // Waits `wait`, then adds the publishes for version 2 that arrived to `seen`.
    let collect = |c: &mut Client, seen: &mut Vec<lsp::PublishDiagnosticsParams>, wait| {
        c.drain_for(wait);
        seen.extend(
            c.take_published(&uri)
                .into_iter()
                .filter(|p| p.version == Some(2)),
        );
    };
    let mut seen = Vec::new();
    let deadline = Instant::now() + timeout().max(Duration::from_secs(60));
    while !seen.iter().any(|p| tiers(p).contains(&1)) && Instant::now() < deadline {
        collect(&mut c, &mut seen, Duration::from_millis(100));
    }
    // Anything late would show up here.
    collect(&mut c, &mut seen, Duration::from_millis(300));
    assert!(c.shutdown_and_exit().success());
    seen
}

/// The tier (`data.tier`) of each diagnostic published.
fn tiers(p: &lsp::PublishDiagnosticsParams) -> Vec<i64> {
    p.diagnostics
        .iter()
        .map(|d| {
            d.data
                .as_ref()
                .and_then(|v| v["tier"].as_i64())
                .unwrap_or(-1)
        })
        .collect()
}

/// With the models loaded, an edit's tier-0 diagnostics are only a preview: the model stage
/// finishes well within the wait, so the editor gets its diagnostics alone, and a tier-0 finding
/// the model stage does not make never flashes up after a pause in typing.
#[test]
fn an_edit_shows_the_model_stage_without_tier0_in_passing() {
    if !models_installed() {
        return;
    }
    let seen = publishes_after_an_edit("10000");
    assert_eq!(seen.len(), 1, "{seen:#?}");
    let t = tiers(&seen[0]);
    assert!(!t.is_empty() && t.iter().all(|&t| t == 1), "{seen:#?}");
}

/// When the model stage takes longer than the wait (here: no wait at all), tier 0's diagnostics
/// are shown meanwhile and the model stage's replace them.
#[test]
fn a_slow_model_stage_shows_tier0_meanwhile() {
    if !models_installed() {
        return;
    }
    let seen = publishes_after_an_edit("0");
    assert_eq!(seen.len(), 2, "{seen:#?}");
    let (first, last) = (tiers(&seen[0]), tiers(&seen[1]));
    assert!(
        !first.is_empty() && first.iter().all(|&t| t == 0),
        "{seen:#?}"
    );
    assert!(
        !last.is_empty() && last.iter().all(|&t| t == 1),
        "{seen:#?}"
    );
}

/// A pull client sees the model stage too. Tier 0's diagnostics come first (the models load in
/// the background); when the model stage replaces them for the version the client pulled, the
/// server asks it to pull again
/// (`workspace/diagnostic/refresh`), and that pull gets a full report under a new result id, with
/// the model stage's finding, rather than "unchanged".
#[test]
fn a_pull_client_is_asked_to_pull_again_when_the_model_stage_lands() {
    if !models_installed() {
        return;
    }
    let mut c = Client::spawn_with_env(&[("SEGUE_MODELS_DIR", "")]);
    c.config = json!({"debounce": 0});
    c.initialize(pull_caps(), None, None);
    let path = repo("docs/sample.md");
    let text = std::fs::read_to_string(&path).expect("sample");
    let uri = file_uri(&path);
    c.open(&uri, "markdown", 1, &text);
    let pull = |c: &mut Client, previous: Option<String>| {
        c.request_raw(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri.as_str()}, "previousResultId": previous}),
        )
        .expect("pull")
    };
    let refreshes = |c: &Client| {
        c.server_requests
            .iter()
            .filter(|(m, _)| m == "workspace/diagnostic/refresh")
            .count()
    };
    let mut report = pull(&mut c, None);
    let mut id = report["resultId"].as_str().unwrap_or("").to_string();
    // The models load in the background (about a second); each refresh is answered by a pull,
    // as an editor does, until the model stage's report arrives.
    let deadline = Instant::now() + timeout().max(Duration::from_secs(60));
    while !id.ends_with(":model") {
        let seen = refreshes(&c);
        while refreshes(&c) == seen && Instant::now() < deadline {
            c.drain_for(Duration::from_millis(100));
        }
        assert!(
            refreshes(&c) > seen,
            "no refresh after {id}\n{}",
            c.stderr_tail()
        );
        report = pull(&mut c, Some(id.clone()));
        assert_eq!(report["kind"], "full", "{report}");
        id = report["resultId"].as_str().unwrap_or("").to_string();
    }
    assert!(id.starts_with("1:"), "{id}");
    let items: Vec<lsp::Diagnostic> =
        serde_json::from_value(report["items"].clone()).expect("diagnostics");
    flags_the_tomatoes(&text, &items);
    // Pulled again with the model stage's id: unchanged.
    let again = pull(&mut c, Some(id));
    assert_eq!(again["kind"], "unchanged", "{again}");
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn bbscore_hover_shows_the_document_figures() {
    if !models_installed() {
        return;
    }
    // Ask for `bbscore` explicitly: it becomes available once the models load in the background.
    let (mut c, uri, text, _) = open_sample(Some("bbscore"));
    let hover = |c: &mut Client| {
        c.request_raw(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri.as_str()}, "position": {"line": 13, "character": 30}}),
        )
        .expect("hover")["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let shown = hover(&mut c);
    assert!(shown.contains("**Document**"), "{shown}");
    let b_line = |shown: &str| {
        shown
            .lines()
            .find(|l| l.starts_with("- sentences:"))
            .map(str::to_string)
            .unwrap_or_default()
    };
    let before = b_line(&shown);
    assert!(
        before.contains(" B ") && before.contains("B-path"),
        "{shown}"
    );
    assert!(shown.contains("and the BBScore head on"), "{shown}");

    // An edit that removes the off-topic sentence changes B; the hover follows it.
    let edited = text.replacen(
        " My grandmother grows prize-winning tomatoes in her greenhouse every summer.",
        "",
        1,
    );
    assert_ne!(edited, text);
    c.change(
        &uri,
        2,
        vec![lsp::TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: edited,
        }],
    );
    let deadline = Instant::now() + timeout().max(Duration::from_secs(30));
    loop {
        c.drain_for(Duration::from_millis(200));
        let after = b_line(&hover(&mut c));
        if after != before && after.contains(" B ") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "B did not change: {before} / {after}"
        );
    }
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn exit_while_the_models_load_is_clean() {
    if !models_installed() {
        return;
    }
    // Shut down right after `initialized`, while the models are still loading: the process must
    // exit with 0, never crash in ONNX Runtime's teardown (a load still going after the drain
    // period is left behind: the process ends without running static destructors).
    for delay_ms in [0, 50, 100, 150, 200, 250, 300, 400] {
        let mut c = Client::spawn_with_env(&[("SEGUE_MODELS_DIR", "")]);
        c.initialize(push_caps(), None, Some(json!({"debounce": 0})));
        c.drain_for(Duration::from_millis(delay_ms));
        let status = c.shutdown_and_exit();
        assert!(status.success(), "{status:?}");
    }
}

#[test]
fn ordering_judges_a_paragraph_with_its_set_model_and_keeps_the_authors_order() {
    if !models_installed() {
        return;
    }
    // A paragraph in its author's order: the ordering judge reads it (with its set model) and,
    // short of its calibrated margin, offers no reorder.
    let sentences = [
        "We study how writers order the sentences of a paragraph.",
        "Previous work scored each sentence on its own.",
        "In contrast, our model reads two sentences at once.",
        "It is trained on thousands of paragraphs.",
        "Finally, we release the code and the trained weights.",
    ];
    let text = format!("# Method\n\n{}\n", sentences.join(" "));
    let mut c = Client::spawn_with_env(&[("SEGUE_MODELS_DIR", "")]);
    c.initialize(
        push_caps(),
        None,
        Some(json!({"debounce": 0, "scorer": "ordering"})),
    );
    let uri = scratch_uri("reversed.md");
    c.open(&uri, "markdown", 1, &text);
    let score = wait_for_scorer(&mut c, &uri, "ordering");
    assert_eq!(score["scorer"], "ordering", "{score}\n{}", c.stderr_tail());
    let resp = c
        .request_raw(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri.as_str()},
                   "range": {"start": {"line": 2, "character": 3}, "end": {"line": 2, "character": 3}},
                   "context": {"diagnostics": [], "only": ["refactor"]}}),
        )
        .expect("code actions");
    let found: Vec<lsp::CodeAction> =
        serde_json::from_value(resp.clone()).unwrap_or_else(|e| panic!("{e}: {resp}"));
    assert!(
        found
            .iter()
            .all(|a| !a.title.starts_with("Reorder sentences in this paragraph")),
        "the author's order stands: {resp}"
    );
    // The ordering model's log line names its paragraph reader.
    let log = c.stderr_tail();
    assert!(log.contains("paragraph reader"), "{}", c.stderr_tail());
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn the_combined_tier1_scorer_can_be_chosen_in_the_settings() {
    if !models_installed() {
        return;
    }
    let (mut c, uri, text, score) = open_sample(Some("tier1"));
    assert_eq!(score["tier"], 1);

    // Its diagnostics flag the sample's off-topic sentence, with the blend's reason.
    let last = last_published(&mut c, &uri);
    let tomato = last
        .diagnostics
        .iter()
        .find(|d| {
            let s = offset_of(&text, d.range.start);
            text[s..].starts_with("My grandmother grows prize-winning tomatoes")
        })
        .unwrap_or_else(|| panic!("{:#?}\n{}", last.diagnostics, c.stderr_tail()));
    assert!(
        tomato.message.contains("out of place"),
        "{}",
        tomato.message
    );

    // The hover names the scorer.
    let hover = c
        .request_raw(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri.as_str()}, "position": {"line": 13, "character": 30}}),
        )
        .expect("hover");
    assert!(hover.to_string().contains("tier1"), "{hover}");
    assert!(c.shutdown_and_exit().success());
}

/// The editor and the CLI agree at tier 1: on every file of the committed corpus slice (six
/// genres, four formats) and on the sample with its planted sentence (`docs/sample.md`), at the
/// default sensitivity and at `high`, the model stage publishes exactly the ranges and codes that
/// `segue check --tier 1` reports for the same file. The files have findings at both, so the
/// comparison is not of two empty lists.
#[test]
fn the_model_stage_agrees_with_check_on_the_corpus_slice() {
    if !models_installed() {
        return;
    }
    let slice = repo("tests/prose/slice");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&slice)
        .expect("slice")
        .flat_map(|genre| std::fs::read_dir(genre.expect("genre").path()).expect("genre folder"))
        .map(|f| f.expect("file").path())
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    files.push(repo("docs/sample.md"));
    for sensitivity in ["medium", "high"] {
        let flagged: usize = files.iter().map(|path| agree(path, sensitivity)).sum();
        assert!(flagged > 0, "no file has a tier-1 finding at {sensitivity}");
    }
}

/// Asserts that `segue check --tier 1` and the model stage report the same findings for `path`
/// at `sensitivity`; returns how many.
fn agree(path: &std::path::Path, sensitivity: &str) -> usize {
    let language = match path.extension().and_then(|e| e.to_str()) {
        Some("md") => "markdown",
        Some("rst") => "restructuredtext",
        Some("tex") => "latex",
        _ => "plaintext",
    };
    // The CLI's findings: (range, code) as JSON.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_segue"))
        .args([
            "check",
            "--tier",
            "1",
            "--format",
            "json",
            "--sensitivity",
            sensitivity,
        ])
        .arg(path)
        .env("SEGUE_MODELS_DIR", "")
        .output()
        .expect("segue check");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("check JSON");
    let mut from_check: Vec<String> = report["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| format!("{} {}", f["range"], f["code"].as_str().unwrap_or("")))
        .collect();
    from_check.sort();

    // The server's model stage on the same text, opened with the editor's language id.
    let mut c = Client::spawn_with_env(&[("SEGUE_MODELS_DIR", "")]);
    let settings = json!({"debounce": 0, "sensitivity": sensitivity});
    c.initialize(push_caps(), None, Some(settings));
    let text = std::fs::read_to_string(path).expect("slice file");
    let uri = file_uri(path);
    c.open(&uri, language, 1, &text);
    let score = wait_for_scorer(&mut c, &uri, "embedding");
    assert_eq!(score["scorer"], "embedding", "{}: {score}", path.display());
    let last = last_published(&mut c, &uri);
    let mut from_server: Vec<String> = last
        .diagnostics
        .iter()
        .map(|d| {
            let code = match &d.code {
                Some(lsp::NumberOrString::String(s)) => s.clone(),
                _ => String::new(),
            };
            format!("{} {code}", serde_json::to_value(d.range).expect("range"))
        })
        .collect();
    from_server.sort();
    assert_eq!(
        from_server,
        from_check,
        "{} at {sensitivity}",
        path.display()
    );
    assert!(c.shutdown_and_exit().success());
    from_check.len()
}

/// The model stage's score and diagnostics of the text at `version`: polls
/// `segue.showDocumentScore` until it answers for that version with the `embedding` scorer.
fn model_stage_at(
    c: &mut Client,
    uri: &lsp::Uri,
    version: i32,
) -> (serde_json::Value, Vec<String>) {
    let deadline = Instant::now() + timeout().max(Duration::from_secs(60));
    let score = loop {
        let s = c
            .request_raw(
                "workspace/executeCommand",
                json!({"command": "segue.showDocumentScore", "arguments": [{"uri": uri.as_str(), "silent": true}]}),
            )
            .expect("score");
        if (s["scorer"] == "embedding" && s["version"] == version) || Instant::now() > deadline {
            break s;
        }
        c.drain_for(Duration::from_millis(200));
    };
    assert_eq!(score["scorer"], "embedding", "{score}\n{}", c.stderr_tail());
    assert_eq!(score["version"], version, "{score}");
    c.drain_for(Duration::from_millis(300));
    let published = c
        .take_published(uri)
        .into_iter()
        .rfind(|p| p.version == Some(version) && tiers(p).iter().all(|&t| t == 1))
        .expect("the model stage's diagnostics");
    let mut diagnostics: Vec<String> = published
        .diagnostics
        .iter()
        .map(|d| format!("{:?} {:?}", d.range, d.code))
        .collect();
    diagnostics.sort();
    (score, diagnostics)
}

/// After an edit the server embeds only the sentences the edit brought, in batches of their own,
/// and keeps the vectors of the others from the batches they were first embedded in. The
/// encoder's int8 copy quantises each token on its own scale, so the scores are those of a fresh
/// open of the same text: the document score and medians (rounded to 4 decimals) agree to within
/// float rounding and the diagnostics are the same. (With one quantisation scale per batch, the
/// score of `docs/sample.md` moved by 0.0003.)
#[test]
fn after_an_edit_the_model_stage_scores_as_a_fresh_open_does() {
    if !models_installed() {
        return;
    }
    let path = repo("docs/sample.md");
    let text = std::fs::read_to_string(&path).expect("sample");
    let uri = file_uri(&path);
    // Version 1 lacks the section "Replacing the original"; the edit puts it back.
    let cut = text.find("## Replacing the original").expect("the section");
    let cut_end = text
        .find("## Checking the result")
        .expect("the next section");
    let shorter = format!("{}{}", &text[..cut], &text[cut_end..]);
    let line = text[..cut].matches('\n').count() as u32;

    let mut edited = Client::spawn_with_env(&[("SEGUE_MODELS_DIR", "")]);
    edited.initialize(push_caps(), None, Some(json!({"debounce": 0})));
    edited.open(&uri, "markdown", 1, &shorter);
    model_stage_at(&mut edited, &uri, 1);
    edited.change(
        &uri,
        2,
        vec![edit(range(line, 0, line, 0), &text[cut..cut_end])],
    );
    let (after_edit, after_edit_diagnostics) = model_stage_at(&mut edited, &uri, 2);
    assert_eq!(edited.debug_text(&uri).1, text);
    assert!(edited.shutdown_and_exit().success());

    let mut fresh = Client::spawn_with_env(&[("SEGUE_MODELS_DIR", "")]);
    fresh.initialize(push_caps(), None, Some(json!({"debounce": 0})));
    fresh.open(&uri, "markdown", 1, &text);
    let (opened, opened_diagnostics) = model_stage_at(&mut fresh, &uri, 1);
    assert!(fresh.shutdown_and_exit().success());

    for field in ["score", "sentenceMedian", "paragraphMedian"] {
        let a = after_edit[field].as_f64().expect(field);
        let b = opened[field].as_f64().expect(field);
        assert!(
            (a - b).abs() <= 1.5e-4,
            "{field}: {a} after the edit, {b} opened fresh"
        );
    }
    assert!(!opened_diagnostics.is_empty(), "the sample has findings");
    assert_eq!(after_edit_diagnostics, opened_diagnostics);
}
