//! `segue score --jsonl` and `segue check --format jsonl` over the real binary: one result per
//! input line in input order, error records for bad lines without ending the stream, pre-split
//! input, formats, results that do not depend on how the input is split, and a large input that
//! streams through in bounded memory.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Runs `segue` with `args`, `input` on stdin; returns (exit code, stdout, stderr).
fn segue(args: &[&str], input: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_segue"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("segue starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("segue runs");
    writer.join().expect("the writer thread ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn records(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn line(v: Value) -> String {
    v.to_string() + "\n"
}

/// A small document on a topic, `n` sentences long, so that documents take different times.
fn doc(topic: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("The {topic} number {i} is part of the {topic} story."))
        .collect::<Vec<_>>()
        .join(" ")
        + "\n\nA second paragraph about the "
        + topic
        + " ends it."
}

#[test]
fn order_is_kept_and_bad_lines_get_error_records() {
    let mut input = Vec::new();
    let mut expected: Vec<(Option<String>, Option<&str>)> = Vec::new();
    for i in 0..150 {
        let id = format!("doc-{i}");
        match i % 10 {
            3 => {
                input.extend_from_slice(b"{not json at all\n");
                expected.push((None, Some("not JSON")));
            }
            5 => {
                input.extend(line(serde_json::json!({"text": "No id here."})).bytes());
                expected.push((None, Some("missing `id`")));
            }
            6 => {
                input.extend(line(serde_json::json!({"id": id})).bytes());
                expected.push((Some(id), Some("missing `text`")));
            }
            7 => {
                input.extend_from_slice(b"{\"id\": \"bad\xff\"}\n");
                expected.push((None, Some("line is not UTF-8")));
            }
            8 => {
                input.extend_from_slice(b"   \n");
                expected.push((None, Some("empty line")));
            }
            9 => {
                input.extend(
                    line(serde_json::json!({"id": id, "text": "Some text.", "format": "docx"}))
                        .bytes(),
                );
                expected.push((Some(id), Some("unknown format `docx`")));
            }
            _ => {
                // Long and short documents interleaved: a parallel run finishes them out of order.
                let n = if i % 2 == 0 { 40 } else { 1 };
                input.extend(line(serde_json::json!({"id": id, "text": doc("river", n)})).bytes());
                expected.push((Some(id), None));
            }
        }
    }
    // A text over the per-input limit (8 MiB), and a line over the line limit (16 MiB).
    let big = "Words and more words. ".repeat(9 * 1024 * 1024 / 22);
    input.extend(line(serde_json::json!({"id": "too-big", "text": big})).bytes());
    expected.push((Some("too-big".into()), Some("`text` is too large to check")));
    input.extend(line(serde_json::json!({"id": "huge-line", "text": big.repeat(2)})).bytes());
    expected.push((None, Some("line is too large")));
    input.extend(line(serde_json::json!({"id": "last", "text": doc("lake", 3)})).bytes());
    expected.push((Some("last".into()), None));

    let (code, stdout, stderr) = segue(&["score", "--jsonl"], &input);
    assert_eq!(code, 0, "stderr: {stderr}");
    let out = records(&stdout);
    assert_eq!(out.len(), expected.len(), "one result per input line");
    for (n, (got, (id, error))) in out.iter().zip(&expected).enumerate() {
        match id {
            Some(id) => assert_eq!(got["id"], *id, "line {}: {got}", n + 1),
            None => assert!(got["id"].is_null(), "line {}: {got}", n + 1),
        }
        match error {
            Some(e) => {
                let message = got["error"].as_str().unwrap_or_default();
                assert!(message.starts_with(e), "line {}: {message:?}", n + 1);
                assert_eq!(got["line"], n as u64 + 1);
            }
            None => {
                assert!(got.get("error").is_none(), "line {}: {got}", n + 1);
                assert!(got["score"]
                    .as_f64()
                    .is_some_and(|s| (0.0..=1.0).contains(&s)));
                assert_eq!(got["paragraphs"], 2);
                assert!(got.get("findings").is_none());
            }
        }
    }
}

#[test]
fn documents_report_scores_worst_transitions_and_findings() {
    let text = "# Rivers\n\nThe river floods in spring. The river carries silt to the delta. \
                Tax forms are due in April. The delta grows every year from the river's silt.\n";
    let input = line(serde_json::json!({"id": "r", "text": text}));
    let (code, stdout, stderr) = segue(
        &["score", "--jsonl", "--findings", "--sensitivity", "high"],
        input.as_bytes(),
    );
    assert_eq!(code, 0, "stderr: {stderr}");
    let out = records(&stdout);
    let r = &out[0];
    assert_eq!(r["scorer"], "tier0");
    assert_eq!(r["tier"], 0);
    assert_eq!(r["sentences"], 4);
    assert_eq!(r["levels"]["sentence"]["transitions"], 3);
    for name in ["tier0", "lexical", "lexical-noun", "entity-grid"] {
        assert!(
            r["scorers"][name]["score"].as_f64().is_some(),
            "{name}: {r}"
        );
    }
    // The worst transition is the one into the tax sentence, and its offsets (in characters)
    // point at it in the text.
    let worst = &r["worst"][0];
    let chars: Vec<char> = text.chars().collect();
    let at = |v: &Value| v.as_u64().unwrap_or_default() as usize;
    let to: String = chars[at(&worst["to"]["start"])..at(&worst["to"]["end"])]
        .iter()
        .collect();
    assert_eq!(to, "Tax forms are due in April.");
    assert_eq!(worst["to"]["paragraph"], 0);
    assert_eq!(worst["to"]["sentence"], 2);
    let findings = r["findings"].as_array().expect("findings are listed");
    assert!(
        findings
            .iter()
            .any(|f| f["to"]["sentence"] == 2 && f["code"] == "weak-sentence-transition"),
        "{findings:?}"
    );

    // `check --format jsonl`: the same stream, findings always, exit 1 with findings.
    let (code, stdout, _) = segue(
        &[
            "check",
            "--tier",
            "0",
            "--format",
            "jsonl",
            "--sensitivity",
            "high",
        ],
        input.as_bytes(),
    );
    assert_eq!(code, 1);
    let checked = records(&stdout);
    assert_eq!(checked[0]["findings"], r["findings"]);
    let (code, _, _) = segue(
        &["check", "--tier", "0", "--format", "jsonl", "--exit-zero"],
        input.as_bytes(),
    );
    assert_eq!(code, 0);
    let (code, stdout, _) = segue(&["check", "--tier", "0", "--format", "jsonl"], b"oops\n");
    assert_eq!(code, 2, "a bad line is an error for check");
    assert_eq!(records(&stdout).len(), 1);
    let (code, _, stderr) = segue(&["check", "--format", "jsonl", "docs"], b"");
    assert_eq!(code, 2);
    assert!(stderr.contains("reads JSON lines on stdin"), "{stderr}");
}

#[test]
fn pre_split_sentences_are_kept_and_formats_are_read() {
    let input = [
        // The splitter would cut "Fig. 2" … here; pre-split, it stays one sentence.
        serde_json::json!({"id": "pre", "paragraphs": [["See Fig. 2 for the flow. It shows the pump.", "The pump moves water."], [], ["Water cools the engine."]]}),
        serde_json::json!({"id": "txt", "text": "See the flow. It shows the pump. The pump moves water.\n\nWater cools the engine."}),
        serde_json::json!({"id": "md", "text": "# Title\n\nThe pump moves water. Water cools it.\n\n```\ncode. not. prose.\n```\n\nThe engine runs.", "format": "markdown"}),
        serde_json::json!({"id": "rst", "text": "Title\n=====\n\nThe pump moves water. Water cools it.\n\n.. code-block:: sh\n\n   echo not. prose.\n\nThe engine runs.\n", "format": "rst"}),
        serde_json::json!({"id": "tex", "text": "\\section{Title}\nThe pump moves water. Water cools it.\n\\begin{equation}x = 1. y = 2.\\end{equation}\n\nThe engine runs.\n", "format": "latex"}),
        serde_json::json!({"id": "plain", "text": "The pump moves water. Water cools it.\n\nThe engine runs.", "format": "plain"}),
        serde_json::json!({"id": "bad", "paragraphs": [["ok"], [3]]}),
        serde_json::json!({"id": "both", "text": "x", "paragraphs": [["x"]]}),
    ]
    .into_iter()
    .map(line)
    .collect::<String>();
    let (code, stdout, stderr) = segue(&["score", "--jsonl"], input.as_bytes());
    assert_eq!(code, 0, "stderr: {stderr}");
    let out = records(&stdout);
    let counts: Vec<(Value, Value)> = out
        .iter()
        .map(|r| (r["sentences"].clone(), r["paragraphs"].clone()))
        .collect();
    assert_eq!(counts[0], (3.into(), 2.into()), "pre-split: {}", out[0]);
    assert!(
        out[0]["worst"][0]["to"].get("start").is_none(),
        "no offsets without a text"
    );
    assert_eq!(counts[1], (4.into(), 2.into()));
    for (i, name) in [(2, "md"), (3, "rst"), (4, "tex"), (5, "plain")] {
        assert_eq!(out[i]["id"], name);
        assert_eq!(counts[i], (3.into(), 2.into()), "{name}: {}", out[i]);
    }
    assert_eq!(
        out[6]["error"],
        "`paragraphs` must be an array of arrays of strings"
    );
    assert_eq!(out[7]["error"], "give `text` or `paragraphs`, not both");
}

/// Documents for the partition test: the dev corpus when present (pre-split and as text), else
/// made-up ones.
fn corpus(n: usize) -> Vec<String> {
    let dir = std::env::var_os("SEGUE_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    let mut lines = Vec::new();
    if let Ok(f) = std::fs::File::open(dir.join("dev.jsonl")) {
        for (i, l) in BufReader::new(f).lines().map_while(Result::ok).enumerate() {
            let Ok(v) = serde_json::from_str::<Value>(&l) else {
                continue;
            };
            let paragraphs = v["paragraphs"].clone();
            lines.push(line(
                serde_json::json!({"id": format!("p{i}"), "paragraphs": paragraphs}),
            ));
            let text = paragraphs
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    p.as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect::<Vec<_>>()
                .join("\n\n");
            lines.push(line(
                serde_json::json!({"id": format!("t{i}"), "text": text, "format": "plain"}),
            ));
            if lines.len() >= n {
                return lines;
            }
        }
    }
    for i in lines.len()..n {
        lines.push(line(serde_json::json!({"id": format!("m{i}"), "text": doc(["river", "tax", "pump"][i % 3], 1 + i % 7)})));
    }
    lines
}

#[test]
fn results_do_not_depend_on_how_the_input_is_split() {
    let docs = corpus(120);
    let whole: String = docs.concat();
    let args = ["score", "--jsonl", "--findings"];
    let (code, stdout, stderr) = segue(&args, whole.as_bytes());
    assert_eq!(code, 0, "stderr: {stderr}");
    let mut one_run: Vec<&str> = stdout.lines().collect();
    assert_eq!(one_run.len(), docs.len());
    // Three parts, in reverse order, each in its own process (as partitions of an engine).
    let parts: Vec<String> = docs
        .chunks(docs.len() / 3 + 1)
        .map(|c| c.concat())
        .collect();
    let mut split_outputs = String::new();
    for part in parts.iter().rev() {
        let (code, stdout, _) = segue(&args, part.as_bytes());
        assert_eq!(code, 0);
        split_outputs.push_str(&stdout);
    }
    let mut split_run: Vec<&str> = split_outputs.lines().collect();
    let id = |l: &&str| {
        serde_json::from_str::<Value>(l)
            .map(|v| v["id"].to_string())
            .unwrap_or_default()
    };
    one_run.sort_by_key(id);
    split_run.sort_by_key(id);
    assert!(
        one_run == split_run,
        "the split run differs from the single run"
    );
}

/// The peak resident memory (VmHWM) of process `pid` in KiB, while it runs (Linux).
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[test]
fn a_large_input_streams_in_bounded_memory() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("skipped: no /proc (the memory bound is measured on Linux)");
        return;
    }
    // 6,000 Markdown documents of about 10 KB each (60 MB): two paragraphs of prose and a code
    // block, which the parser skips quickly, so the stream is large but quick to score.
    const DOCS: usize = 6_000;
    let code_block = format!(
        "```\n{}```\n",
        "let x = compute(a, b, c); // not prose\n".repeat(240)
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_segue"))
        .args(["score", "--jsonl", "--scorer", "tier0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("segue starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        let mut written = 0usize;
        for i in 0..DOCS {
            let text = format!(
                "The pump {i} moves water. Water cools the engine.\n\n{code_block}\nThe engine {i} runs."
            );
            let l = line(serde_json::json!({"id": i, "text": text}));
            written += l.len();
            if stdin.write_all(l.as_bytes()).is_err() {
                break;
            }
        }
        written
    });
    let stdout = child.stdout.take().expect("stdout is piped");
    let reader = std::thread::spawn(move || {
        let mut n = 0usize;
        let mut in_order = true;
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            let v: Value = serde_json::from_str(&l).unwrap_or(Value::Null);
            in_order &= v["id"] == n && v.get("error").is_none();
            n += 1;
        }
        (n, in_order)
    });
    let mut peak = 0;
    loop {
        if let Some(kib) = peak_rss_kib(pid) {
            peak = peak.max(kib);
        }
        if child.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let written = writer.join().expect("writer");
    let (n, in_order) = reader.join().expect("reader");
    assert!(written > 50_000_000, "the input is {written} bytes");
    assert_eq!(n, DOCS, "one result per line");
    assert!(in_order, "results in input order, none an error");
    // The process starts at about 19 MiB; holding the whole input (58 MB = 55 MiB) would take it
    // past 74 MiB. Streamed, it stays near 60 MiB in a debug build: the memos, capped for a
    // stream, and tier 0's static word vectors (a 6 MB table, the vocabulary and their memo).
    let bound_kib = 64 * 1024;
    eprintln!("peak RSS {peak} KiB for {written} bytes of input (bound {bound_kib} KiB)");
    assert!(peak > 0, "VmHWM was read");
    assert!(
        peak < bound_kib,
        "peak RSS {peak} KiB is over {bound_kib} KiB"
    );
}
