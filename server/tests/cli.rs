//! End-to-end tests of the `segue` binary: exit codes, inputs (files, folders, stdin, unreadable
//! files), every `--format`, `score`, `eval`, and snapshots of `check` on real documents.
//!
//! The documents that must be flagged are blatant (a paragraph about one thing with a sentence
//! about something unrelated in the middle), so the tests hold when the scorer is retrained. The
//! snapshots of `tests/corpus/` are different: they record what the current scorer says and must
//! be reviewed and re-accepted when the weights or the calibration change.

mod common;

use common::models_installed;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a run of the binary produced.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// The repository root (the workspace folder above `server/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in a workspace folder")
        .to_path_buf()
}

/// Runs `segue ARGS` in `cwd`, feeding `stdin` when given.
fn segue_in(cwd: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_segue"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        // The built-in tier, whether or not models/install has run (tier 1 has its own tests).
        .env("SEGUE_MODELS_DIR", "/nonexistent/segue-models")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the segue binary runs");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        pipe.write_all(input).expect("stdin accepts the input");
    }
    let out = child.wait_with_output().expect("segue finishes");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `segue ARGS` from the repository root.
fn segue(args: &[&str]) -> Run {
    segue_in(&root(), args, None)
}

/// `--scorer NAME` when `SEGUE_TEST_SCORER` is set: runs the detection tests with another scorer
/// (snapshot tests are skipped then). By default they use the default scorer, `tier0`.
fn scorer_override() -> Option<String> {
    std::env::var("SEGUE_TEST_SCORER")
        .ok()
        .filter(|s| !s.is_empty())
}

/// The scorer whose findings the detection tests see.
fn reporting_scorer() -> String {
    scorer_override().unwrap_or_else(|| "tier0".to_string())
}

/// Runs `segue check --sensitivity high ARGS` in `cwd`: the inputs of these tests are blatant, and
/// `high` keeps them flagged however the scorer's weights and calibration move.
fn check_in(cwd: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let scorer = scorer_override();
    let mut all = vec!["check", "--sensitivity", "high"];
    if let Some(name) = &scorer {
        all.extend(["--scorer", name.as_str()]);
    }
    all.extend_from_slice(args);
    segue_in(cwd, &all, stdin)
}

/// A paragraph about caches with one sentence about penguins in the middle.
const OFF_TOPIC_SENTENCE: &str = "Penguins waddle across the Antarctic ice at dawn.";
const OFF_TOPIC: &str = "# Caches\n\n\
The cache stores vectors in memory. The cache evicts old vectors when the cache is full. \
Each cache entry holds vectors and a counter of hits. The cache counts the hits on the vectors of each entry. \
Penguins waddle across the Antarctic ice at dawn. The cache grows when new vectors are added to the cache. \
The cache shrinks when old vectors are evicted from the cache.\n";

/// A document whose every sentence picks up the one before it.
const COHERENT: &str = "# Caches\n\n\
The cache stores vectors in memory. The cache evicts old vectors when the cache is full. \
Each cache entry holds vectors and a counter of hits. The cache counts the hits on the vectors of each entry.\n\n\
The cache grows when new vectors are added to the cache. The cache shrinks when old vectors are evicted \
from the cache. A full cache evicts the vectors with the fewest hits first.\n";

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

fn write(dir: &Path, name: &str, contents: &[u8]) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("the parent folder is created");
    }
    std::fs::write(path, contents).expect("the file is written");
}

/// The text a JSON range covers in `source` (zero-based lines, UTF-16 columns).
fn slice<'a>(source: &'a str, range: &Value) -> &'a str {
    let offset = |pos: &Value| -> usize {
        let line = pos["line"].as_u64().expect("line") as usize;
        let character = pos["character"].as_u64().expect("character") as usize;
        let line_start: usize = source.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        for (i, ch) in source[line_start..].char_indices() {
            if units >= character || ch == '\n' {
                return line_start + i;
            }
            units += ch.len_utf16();
        }
        source.len()
    };
    &source[offset(&range["start"])..offset(&range["end"])]
}

/// The text of every finding of the first file of a `check --format json` report.
fn flagged_texts<'a>(json: &Value, source: &'a str) -> Vec<&'a str> {
    json["files"][0]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| slice(source, &f["range"]))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Exit codes and inputs

#[test]
fn help_and_version_exit_0() {
    for args in [
        &["--help"][..],
        &["check", "--help"],
        &["score", "--help"],
        &["eval", "--help"],
        &["explain", "--help"],
        &["report", "--help"],
        &["--version"],
    ] {
        let run = segue(args);
        assert_eq!(run.code, 0, "segue {args:?}: {}", run.stderr);
        assert!(!run.stdout.is_empty());
    }
    assert!(segue(&["--help"]).stdout.contains("check"));
}

#[test]
fn bad_arguments_exit_2() {
    assert_eq!(segue(&["check", "--format", "xml", "x.md"]).code, 2);
    assert_eq!(segue(&["no-such-command"]).code, 2);
}

#[test]
fn coherent_document_exits_0() {
    let dir = temp_dir();
    write(dir.path(), "good.md", COHERENT.as_bytes());
    for sensitivity in ["low", "medium", "high"] {
        let scorer = scorer_override();
        let mut args = vec!["check", "--sensitivity", sensitivity];
        if let Some(name) = &scorer {
            args.extend(["--scorer", name.as_str()]);
        }
        args.push("good.md");
        let run = segue_in(dir.path(), &args, None);
        assert_eq!(
            run.code, 0,
            "--sensitivity {sensitivity}:\n{}{}",
            run.stdout, run.stderr
        );
        assert!(
            run.stdout.contains("No weak transitions in 1 file."),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn off_topic_sentence_exits_1_and_is_reported() {
    let dir = temp_dir();
    write(dir.path(), "bad.md", OFF_TOPIC.as_bytes());
    let run = check_in(dir.path(), &["bad.md"], None);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let line = OFF_TOPIC.lines().nth(2).expect("the paragraph line");
    let col = line.find(OFF_TOPIC_SENTENCE).expect("the sentence") + 1;
    let header = format!("bad.md:3:{col}: warning[weak-sentence-transition]: ");
    assert!(run.stdout.starts_with(&header), "{}", run.stdout);
    assert!(run.stdout.contains("^^^^"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("= note: the previous sentence starts at 3:"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("(scorer {}, tier 0)", reporting_scorer())),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains('\u{1b}'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn missing_file_exits_2_and_the_others_are_still_reported() {
    let dir = temp_dir();
    write(dir.path(), "bad.md", OFF_TOPIC.as_bytes());
    write(dir.path(), "good.md", COHERENT.as_bytes());
    let run = check_in(dir.path(), &["bad.md", "missing.md", "good.md"], None);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("bad.md:3:"), "{}", run.stdout);
    assert!(
        run.stdout.contains("missing.md: error: cannot read"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("1 finding in 2 files"),
        "{}",
        run.stdout
    );

    let json = check_in(
        dir.path(),
        &["--format", "json", "bad.md", "missing.md", "good.md"],
        None,
    );
    assert_eq!(json.code, 2);
    let files = json.json()["files"].as_array().cloned().unwrap_or_default();
    let paths: Vec<&str> = files.iter().filter_map(|f| f["path"].as_str()).collect();
    assert_eq!(paths, ["bad.md", "missing.md", "good.md"]);
    assert_eq!(files[0]["findings"].as_array().map(Vec::len), Some(1));
    assert!(files[1]["error"]
        .as_str()
        .is_some_and(|e| e.contains("cannot read")));
    assert_eq!(files[2]["findings"].as_array().map(Vec::len), Some(0));
}

#[test]
fn binary_and_non_utf8_files_are_errors() {
    let dir = temp_dir();
    write(dir.path(), "image.md", b"PNG\0\0\x01binary");
    write(
        dir.path(),
        "latin1.txt",
        b"Caf\xe9 au lait is a drink. The caf\xe9 serves it.\n",
    );
    write(dir.path(), "good.md", COHERENT.as_bytes());
    let run = check_in(dir.path(), &["image.md", "latin1.txt", "good.md"], None);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("image.md: error: file looks binary"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("latin1.txt: error: file is not valid UTF-8"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("No weak transitions in 1 file. 2 files could not be checked"),
        "{}",
        run.stdout
    );
}

#[test]
fn stdin_is_read_with_a_dash() {
    let dir = temp_dir();
    let run = check_in(dir.path(), &["-"], Some(OFF_TOPIC.as_bytes()));
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.starts_with("-:3:"), "{}", run.stdout);

    let clean = check_in(
        dir.path(),
        &["--format", "json", "-"],
        Some(COHERENT.as_bytes()),
    );
    assert_eq!(clean.code, 0, "{}{}", clean.stdout, clean.stderr);
    assert_eq!(clean.json()["files"][0]["path"], "-");
}

#[test]
fn folders_are_walked_honouring_gitignore() {
    let dir = temp_dir();
    write(dir.path(), ".gitignore", b"ignored.md\n");
    write(dir.path(), "ignored.md", OFF_TOPIC.as_bytes());
    write(dir.path(), "a.md", COHERENT.as_bytes());
    write(dir.path(), "sub/b.txt", COHERENT.as_bytes());
    write(dir.path(), "sub/c.md", OFF_TOPIC.as_bytes());
    write(dir.path(), "sub/data.json", b"{\"not\": \"prose\"}");
    let run = check_in(dir.path(), &["--format", "json", "."], None);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = run.json();
    let mut paths: Vec<String> = json["files"]
        .as_array()
        .map(|files| {
            files
                .iter()
                .filter_map(|f| f["path"].as_str())
                .map(|p| p.replace('\\', "/"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    assert_eq!(paths, ["./a.md", "./sub/b.txt", "./sub/c.md"]);
}

#[test]
fn a_folder_with_nothing_to_check_says_what_it_saw_and_exits_2() {
    let dir = temp_dir();
    write(dir.path(), "site/index.html", b"<p>Hello.</p>");
    write(dir.path(), "site/about.html", b"<p>About.</p>");
    write(dir.path(), "site/app.py", b"print('hi')\n");
    write(dir.path(), "site/LICENSE", b"MIT\n");
    let run = check_in(dir.path(), &["site"], None);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "no Markdown, reStructuredText, LaTeX or plain-text files found in site \
             (4 files skipped: .html, (none), .py)"
        ),
        "{}",
        run.stderr
    );
    assert!(
        !run.stdout.contains("No weak transitions"),
        "{}",
        run.stdout
    );

    // The formats named follow the settings.
    write(dir.path(), "site/segue.toml", b"formats = [\"markdown\"]\n");
    write(dir.path(), "site/notes.txt", COHERENT.as_bytes());
    let run = check_in(dir.path(), &["site"], None);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("no Markdown files found in site (6 files skipped:"),
        "{}",
        run.stderr
    );

    // An empty folder next to a file: the file is checked, the folder gets a warning.
    std::fs::create_dir_all(dir.path().join("empty")).expect("the folder is created");
    write(dir.path(), "a.md", COHERENT.as_bytes());
    let run = check_in(dir.path(), &["a.md", "empty"], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("warning: no Markdown, reStructuredText, LaTeX or plain-text files found in empty (it holds no files)"),
        "{}",
        run.stderr
    );
}

#[test]
fn rst_files_are_checked() {
    let dir = temp_dir();
    let rst = "Caches\n======\n\n.. note:: Read this first.\n\nThe cache stores vectors in memory. The cache evicts old vectors when the cache is full. \
Each cache entry holds vectors and a counter of hits. The cache counts the hits on the vectors of each entry. \
Penguins waddle across the Antarctic ice at dawn. The cache grows when new vectors are added to the cache. \
The cache shrinks when old vectors are evicted from the cache.\n\n.. code-block:: python\n\n    cache = {}\n";
    write(dir.path(), "docs/index.rst", rst.as_bytes());
    let run = check_in(dir.path(), &["--format", "json", "docs"], None);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = run.json();
    assert_eq!(
        json["files"][0]["path"]
            .as_str()
            .map(|p| p.replace('\\', "/")),
        Some("docs/index.rst".to_string())
    );
    assert!(
        flagged_texts(&json, rst).contains(&OFF_TOPIC_SENTENCE),
        "{}",
        run.stdout
    );
    let run = check_in(
        dir.path(),
        &["--language", "rst", "-"],
        Some(rst.as_bytes()),
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
}

// ---------------------------------------------------------------------------------------------
// Output formats

#[test]
fn json_has_the_documented_shape_and_utf16_columns() {
    let dir = temp_dir();
    // Two emoji (two UTF-16 units and four bytes each) and an accented letter before the finding,
    // on the same line.
    let doc = OFF_TOPIC.replace("The cache stores", "🚀🚀 The café cache stores");
    write(dir.path(), "emoji.md", doc.as_bytes());
    let run = check_in(dir.path(), &["--format", "json", "emoji.md"], None);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = run.json();
    assert_eq!(json["scorer"], reporting_scorer().as_str());
    assert_eq!(json["tier"], 0);
    let file = &json["files"][0];
    assert_eq!(file["path"], "emoji.md");
    assert!(file["score"].is_number());
    let findings = file["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    assert_eq!(f["code"], "weak-sentence-transition");
    assert_eq!(f["severity"], "warning");
    assert!(f["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("This sentence")));
    // The numbers are fields, not part of the message.
    assert!(f["score"].is_number() && f["median"].is_number() && f["novelty"].is_number());
    assert!(f["score"]
        .as_f64()
        .is_some_and(|s| (0.0..=1.0).contains(&s)));
    for key in ["level", "median", "floor", "scorer", "shared", "related"] {
        assert!(f.get(key).is_some(), "missing key {key}");
    }

    let line = doc.lines().nth(2).expect("the paragraph line");
    let before = &line[..line.find(OFF_TOPIC_SENTENCE).expect("the sentence")];
    let utf16: usize = before.encode_utf16().count();
    assert_ne!(utf16, before.len(), "the prefix has non-ASCII text");
    assert_ne!(
        utf16,
        before.chars().count(),
        "the prefix has characters outside the BMP"
    );
    let range = &f["range"];
    assert_eq!(range["start"]["line"], 2);
    assert_eq!(range["start"]["character"], utf16 as u64);
    assert_eq!(range["end"]["line"], 2);
    assert_eq!(
        range["end"]["character"],
        (utf16 + OFF_TOPIC_SENTENCE.len()) as u64
    );
    assert_eq!(slice(&doc, range), OFF_TOPIC_SENTENCE);
    assert!(slice(&doc, &f["related"]["range"]).starts_with("The cache counts the hits"));

    // The text report shows the same column, plus one.
    let text = check_in(dir.path(), &["emoji.md"], None);
    assert!(
        text.stdout
            .starts_with(&format!("emoji.md:3:{}: ", utf16 + 1)),
        "{}",
        text.stdout
    );
}

#[test]
fn text_snippets_survive_wide_and_multi_line_text() {
    let dir = temp_dir();
    // A paragraph wrapped over several lines, with CJK text before the off-topic sentence.
    let doc = "The cache stores vectors in memory. The cache evicts old vectors when\n\
               the cache is full. Each cache entry holds vectors and a counter of hits. The\n\
               cache counts the hits (漢字) on the vectors of each entry. Penguins waddle across the\n\
               Antarctic ice at dawn, and penguins dive into the cold southern sea for fish\n\
               every single day. The cache grows when new vectors are added to the cache. The\n\
               cache shrinks when old vectors are evicted from the cache.\n";
    write(dir.path(), "wrapped.md", doc.as_bytes());
    let run = check_in(dir.path(), &["wrapped.md"], None);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let third = doc.lines().nth(2).expect("line 3");
    let prefix = &third[..third.find("Penguins").expect("Penguins")];
    let lines: Vec<&str> = run.stdout.lines().collect();
    let header = format!(
        "wrapped.md:3:{}: warning[weak-sentence-transition]",
        prefix.encode_utf16().count() + 1
    );
    assert!(lines[0].starts_with(&header), "{}", run.stdout);
    assert_eq!(lines[1], "  |");
    assert_eq!(lines[2], format!("3 | {third}"));
    // The underline starts under "Penguins" (the CJK characters are two columns wide) and runs
    // to the end of the line.
    let width: usize = prefix
        .chars()
        .map(|c| {
            if ('\u{4E00}'..='\u{9FFF}').contains(&c) {
                2
            } else {
                1
            }
        })
        .sum();
    let rest = third.len() - prefix.len();
    assert_eq!(
        lines[3],
        format!("  | {}{}", " ".repeat(width), "^".repeat(rest))
    );
    assert_eq!(
        lines[4],
        "4 | Antarctic ice at dawn, and penguins dive into the cold southern sea for fish"
    );
    assert_eq!(lines[5], "...");
    assert!(
        lines[6].starts_with("  = note: the previous sentence starts at 2:"),
        "{}",
        run.stdout
    );
}

#[test]
fn github_annotations() {
    let dir = temp_dir();
    write(dir.path(), "bad.md", OFF_TOPIC.as_bytes());
    write(dir.path(), "odd, name.md", OFF_TOPIC.as_bytes());
    let run = check_in(
        dir.path(),
        &["--format", "github", "bad.md", "odd, name.md", "gone.md"],
        None,
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    let line = OFF_TOPIC.lines().nth(2).expect("the paragraph line");
    let col = line.find(OFF_TOPIC_SENTENCE).expect("the sentence") + 1;
    let props = format!(
        "line=3,col={col},endLine=3,endColumn={}",
        col + OFF_TOPIC_SENTENCE.len()
    );
    let expected = format!(
        "::warning file=bad.md,{props},title=segue(weak-sentence-transition)::This sentence "
    );
    assert!(lines[0].starts_with(&expected), "{}", lines[0]);
    assert!(
        lines[1].starts_with("::warning file=odd%2C name.md,line=3,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("::error file=gone.md,title=segue::cannot read: "),
        "{}",
        lines[2]
    );
}

#[test]
fn severity_setting_maps_to_notice_and_note() {
    let dir = temp_dir();
    write(dir.path(), "segue.toml", b"severity = \"hint\"\n");
    write(dir.path(), "bad.md", OFF_TOPIC.as_bytes());
    let github = check_in(dir.path(), &["--format", "github", "bad.md"], None);
    assert_eq!(github.code, 1, "{}{}", github.stdout, github.stderr);
    assert!(
        github.stdout.starts_with("::notice file=bad.md,"),
        "{}",
        github.stdout
    );
    let sarif = check_in(dir.path(), &["--format", "sarif", "bad.md"], None);
    assert_eq!(sarif.json()["runs"][0]["results"][0]["level"], "note");
    let text = check_in(dir.path(), &["bad.md"], None);
    assert!(
        text.stdout.contains(": hint[weak-sentence-transition]: "),
        "{}",
        text.stdout
    );
}

#[test]
fn exit_zero_reports_findings_and_exits_0_but_errors_still_exit_2() {
    let dir = temp_dir();
    write(dir.path(), "bad.md", OFF_TOPIC.as_bytes());
    let run = check_in(dir.path(), &["--exit-zero", "bad.md"], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("bad.md:3:")
            && run.stdout.contains("warning[weak-sentence-transition]"),
        "{}",
        run.stdout
    );
    let github = check_in(
        dir.path(),
        &["--exit-zero", "--format", "github", "bad.md"],
        None,
    );
    assert_eq!(github.code, 0, "{}{}", github.stdout, github.stderr);
    assert!(github.stdout.starts_with("::warning file=bad.md,"));
    let missing = check_in(dir.path(), &["--exit-zero", "bad.md", "gone.md"], None);
    assert_eq!(missing.code, 2, "{}{}", missing.stdout, missing.stderr);
}

#[test]
fn quiet_prints_only_the_findings() {
    let dir = temp_dir();
    write(dir.path(), "bad.md", OFF_TOPIC.as_bytes());
    write(dir.path(), "good.md", COHERENT.as_bytes());
    // (`--tier 0`: without the models, `auto` warns that it falls back to tier 0.)
    let clean = check_in(dir.path(), &["--quiet", "--tier", "0", "good.md"], None);
    assert_eq!(clean.code, 0, "{}{}", clean.stdout, clean.stderr);
    assert_eq!(clean.stdout, "", "nothing on stdout");
    assert_eq!(clean.stderr, "", "nothing on stderr");
    let loud = check_in(dir.path(), &["--tier", "0", "bad.md"], None);
    let quiet = check_in(dir.path(), &["-q", "--tier", "0", "bad.md"], None);
    assert_eq!(quiet.code, 1, "{}{}", quiet.stdout, quiet.stderr);
    assert!(
        quiet.stdout.contains("warning[weak-sentence-transition]"),
        "{}",
        quiet.stdout
    );
    // The same findings, without the summary line.
    let summary = loud.stdout.lines().last().expect("a summary line");
    assert!(
        summary.starts_with("1 finding in 1 file"),
        "{}",
        loud.stdout
    );
    assert!(!quiet.stdout.contains(summary), "{}", quiet.stdout);
    assert_eq!(
        loud.stdout.strip_suffix(&format!("{summary}\n")),
        Some(quiet.stdout.as_str())
    );
    assert_eq!(quiet.stderr, "");
    // Warnings still reach stderr.
    write(dir.path(), "segue.toml", b"models_dir = \"/x\"\n");
    let warned = check_in(dir.path(), &["-q", "--tier", "0", "good.md"], None);
    assert_eq!(warned.stdout, "");
    assert!(
        warned.stderr.contains("`models_dir` is ignored"),
        "{}",
        warned.stderr
    );
}

#[test]
fn without_models_auto_warns_whether_verbose_or_not() {
    let dir = temp_dir();
    write(dir.path(), "good.md", COHERENT.as_bytes());
    for args in [&["check"][..], &["--verbose", "check"], &["check", "-v"]] {
        let mut all = args.to_vec();
        all.push("good.md");
        let run = segue_in(dir.path(), &all, None);
        assert_eq!(run.code, 0, "{all:?}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains("segue: warning: ")
                && run.stderr.contains("using the built-in (tier 0) scorers"),
            "{all:?}: {}",
            run.stderr
        );
    }
}

/// The start-up lines of tier 1 (where each model runs) show only with `--verbose`.
#[test]
fn tier1_start_up_lines_only_with_verbose() {
    if !models_installed() {
        return;
    }
    for (verbose, shown) in [(false, false), (true, true)] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_segue"));
        cmd.arg("check");
        if verbose {
            cmd.arg("-v");
        }
        let out = cmd
            .args(["--tier", "1", "--format", "json", "docs/sample.md"])
            .current_dir(root())
            .output()
            .expect("segue runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.contains("segue: tier 1: "), shown, "{stderr}");
    }
}

#[test]
fn a_missing_config_file_is_an_error_naming_it() {
    let dir = temp_dir();
    write(dir.path(), "good.md", COHERENT.as_bytes());
    let run = check_in(
        dir.path(),
        &["--config", "nope/segue.toml", "good.md"],
        None,
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("nope/segue.toml") && run.stderr.contains("does not exist"),
        "{}",
        run.stderr
    );
    let folder = check_in(dir.path(), &["--config", ".", "good.md"], None);
    assert_eq!(folder.code, 2, "{}", folder.stderr);
    assert!(folder.stderr.contains("is not a file"), "{}", folder.stderr);
}

#[test]
fn unknown_keys_and_bad_values_are_errors_with_the_line_and_closest_key() {
    let dir = temp_dir();
    write(dir.path(), "good.md", COHERENT.as_bytes());
    write(
        dir.path(),
        "segue.toml",
        b"# settings\nformats = [\"markdown\"]\nsensitivty = \"high\"\ndebounce = -5\n",
    );
    let run = check_in(dir.path(), &["good.md"], None);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "", "nothing is checked");
    let file = dir.path().join("segue.toml");
    let file = file.display();
    assert!(
        run.stderr.contains(&format!(
            "segue: error: unknown key `sensitivty` in {file} line 3, column 1; did you mean \
             `sensitivity`?"
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "segue: error: bad value -5 for `debounce` in {file} line 4, column 12"
        )),
        "{}",
        run.stderr
    );
    // The same file given with --config is named as given.
    let run = check_in(dir.path(), &["--config", "segue.toml", "good.md"], None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("unknown key `sensitivty` in segue.toml line 3, column 1"),
        "{}",
        run.stderr
    );
    // Not TOML at all: the place of the mistake.
    write(
        dir.path(),
        "broken.toml",
        b"tier = 0\nsensitivity = = 1\nseverity = 1\n",
    );
    let run = check_in(dir.path(), &["--config", "broken.toml", "good.md"], None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("broken.toml is not valid TOML: line 2, column"),
        "{}",
        run.stderr
    );
    // Fixed, the same check runs.
    write(dir.path(), "segue.toml", b"sensitivity = \"high\"\n");
    assert_eq!(check_in(dir.path(), &["good.md"], None).code, 0);
}

/// The SARIF 2.1.0 schema shipped in `tests/fixtures/sarif/`.
fn sarif_validator() -> jsonschema::Validator {
    let path = root().join("tests/fixtures/sarif/sarif-2.1.0-rtm.5.json");
    let text = std::fs::read_to_string(&path).expect("the SARIF schema fixture is readable");
    let schema: Value = serde_json::from_str(&text).expect("the SARIF schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

fn assert_valid_sarif(validator: &jsonschema::Validator, log: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "invalid SARIF:\n{}\n{log:#}",
        errors.join("\n")
    );
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let validator = sarif_validator();
    // The schema is strict enough to catch mistakes.
    assert!(!validator.is_valid(&serde_json::json!({"version": "2.1.0", "runs": [{"tool": {}}]})));

    let dir = temp_dir();
    let doc = OFF_TOPIC.replace("The cache stores", "🚀 The cache stores");
    write(dir.path(), "docs/my notes.md", doc.as_bytes());
    write(dir.path(), "good.md", COHERENT.as_bytes());
    let run = check_in(
        dir.path(),
        &["--format", "sarif", "docs/my notes.md", "good.md"],
        None,
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let log = run.json();
    assert_valid_sarif(&validator, &log);

    let run0 = &log["runs"][0];
    let driver = &run0["tool"]["driver"];
    assert_eq!(driver["name"], "segue");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    assert!(driver["informationUri"]
        .as_str()
        .is_some_and(|u| u.starts_with("https://")));
    let rules = driver["rules"].as_array().expect("rules");
    let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(
        ids,
        ["weak-sentence-transition", "weak-paragraph-transition"]
    );
    for rule in rules {
        assert!(rule["helpUri"]
            .as_str()
            .is_some_and(|u| u.contains("docs/guide.md#")));
        assert!(rule["shortDescription"]["text"].is_string());
        assert!(rule["fullDescription"]["text"].is_string());
    }
    assert_eq!(run0["columnKind"], "utf16CodeUnits");
    assert_eq!(run0["invocations"][0]["executionSuccessful"], true);

    let results = run0["results"].as_array().expect("results");
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert_eq!(r["ruleId"], "weak-sentence-transition");
    let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
    assert_eq!(rules[index]["id"], r["ruleId"]);
    assert_eq!(r["level"], "warning");
    assert!(r["message"]["text"]
        .as_str()
        .is_some_and(|m| m.starts_with("This sentence")));
    let location = &r["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "docs/my%20notes.md");
    // SARIF columns: 1-based UTF-16 code units, end-exclusive.
    let line = doc.lines().nth(2).expect("the paragraph line");
    let utf16 = line[..line.find(OFF_TOPIC_SENTENCE).expect("the sentence")]
        .encode_utf16()
        .count();
    let region = &location["region"];
    assert_eq!(region["startLine"], 3);
    assert_eq!(region["startColumn"], (utf16 + 1) as u64);
    assert_eq!(region["endLine"], 3);
    assert_eq!(
        region["endColumn"],
        (utf16 + 1 + OFF_TOPIC_SENTENCE.len()) as u64
    );
    let related = &r["relatedLocations"][0]["physicalLocation"]["region"];
    assert_eq!(related["startLine"], 3);
    assert!(related["startColumn"].as_u64() < region["startColumn"].as_u64());
    for key in ["score", "median", "scorer"] {
        assert!(r["properties"].get(key).is_some(), "missing property {key}");
    }
}

#[test]
fn sarif_reports_unreadable_files_as_notifications() {
    let validator = sarif_validator();
    let dir = temp_dir();
    write(dir.path(), "good.md", COHERENT.as_bytes());
    write(dir.path(), "blob.md", b"\0\0\0");
    let run = check_in(
        dir.path(),
        &["--format", "sarif", "good.md", "blob.md", "gone.md"],
        None,
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let log = run.json();
    assert_valid_sarif(&validator, &log);
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notes = invocation["toolExecutionNotifications"]
        .as_array()
        .expect("notifications");
    assert_eq!(notes.len(), 2);
    assert!(notes.iter().all(|n| n["level"] == "error"));
    assert!(notes[0]["message"]["text"]
        .as_str()
        .is_some_and(|m| m.contains("binary")));
    assert_eq!(
        notes[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "gone.md"
    );
    assert_eq!(log["runs"][0]["results"].as_array().map(Vec::len), Some(0));
}

#[test]
fn sarif_for_the_corpus_is_valid_and_every_region_has_a_start_line() {
    let validator = sarif_validator();
    let run = segue(&[
        "check",
        "--format",
        "sarif",
        "docs/sample.md",
        "tests/corpus/ciborium-readme.md",
        "tests/corpus/nomicon-unwinding.txt",
    ]);
    let log = run.json();
    assert_valid_sarif(&validator, &log);
    // SARIF 2.1.0 Errata 01 requires a start line (or offset) in every region.
    for r in log["runs"][0]["results"].as_array().into_iter().flatten() {
        for loc in r["locations"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(r["relatedLocations"].as_array().into_iter().flatten())
        {
            assert!(
                loc["physicalLocation"]["region"]["startLine"].as_u64() >= Some(1),
                "{loc:#}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The README's sample, real documents and snapshots

#[test]
fn sample_document_flags_its_off_topic_sentence() {
    let source =
        std::fs::read_to_string(root().join("docs/sample.md")).expect("docs/sample.md is readable");
    let run = segue(&["check", "--format", "json", "docs/sample.md"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = run.json();
    let flagged = flagged_texts(&json, &source);
    assert!(
        flagged
            .iter()
            .any(|s| s.starts_with("My grandmother grows prize-winning tomatoes")),
        "{flagged:#?}"
    );
    // The code block is skipped: nothing in it is ever reported.
    assert!(
        flagged.iter().all(|s| !s.contains("openat")),
        "{flagged:#?}"
    );

    let text = segue(&["check", "docs/sample.md"]);
    assert_eq!(text.code, 1);
    assert!(
        text.stdout
            .contains("My grandmother grows prize-winning tomatoes"),
        "{}",
        text.stdout
    );
}

/// The corpus documents, as paths relative to the repository root.
const CORPUS: &[&str] = &[
    "tests/corpus/ciborium-readme.md",
    "tests/corpus/idna-readme.md",
    "tests/corpus/idna-adapter-readme.md",
    "tests/corpus/nomicon-unwinding.txt",
];

#[test]
fn snapshot_text_report_of_the_corpus() {
    if scorer_override().is_some() {
        return; // the snapshots record the default scorer
    }
    let mut args = vec!["check", "--tier", "0"];
    args.extend_from_slice(CORPUS);
    args.push("docs/sample.md");
    let run = segue(&args);
    assert!(
        run.code == 0 || run.code == 1,
        "{}{}",
        run.stdout,
        run.stderr
    );
    insta::assert_snapshot!("corpus_text", run.stdout);
}

#[test]
fn snapshot_json_report_of_the_corpus() {
    if scorer_override().is_some() {
        return; // the snapshots record the default scorer
    }
    for path in CORPUS {
        let run = segue(&["check", "--tier", "0", "--format", "json", path]);
        assert!(
            run.code == 0 || run.code == 1,
            "{}{}",
            run.stdout,
            run.stderr
        );
        let name = Path::new(path)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("doc")
            .replace('.', "_");
        insta::assert_json_snapshot!(format!("corpus_json_{name}"), run.json());
    }
}

#[test]
fn snapshot_github_report_of_the_sample() {
    if scorer_override().is_some() {
        return; // the snapshots record the default scorer
    }
    let run = segue(&["check", "--format", "github", "docs/sample.md"]);
    insta::assert_snapshot!("sample_github", run.stdout);
}

#[test]
fn explain_prints_what_a_rule_means_and_how_to_silence_it() {
    let list = segue(&["explain"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let json = segue(&[
        "check",
        "--format",
        "sarif",
        "--tier",
        "0",
        "docs/sample.md",
    ])
    .json();
    let rules = json["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("SARIF rules")
        .clone();
    assert_eq!(rules.len(), 2);
    for rule in &rules {
        let code = rule["id"].as_str().expect("a rule id");
        let summary = rule["shortDescription"]["text"]
            .as_str()
            .expect("a summary");
        assert!(
            list.stdout
                .lines()
                .any(|l| l.starts_with(code) && l.ends_with(summary)),
            "{}",
            list.stdout
        );
        let run = segue(&["explain", code]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stdout.starts_with(&format!("{code}: {summary}\n")),
            "{}",
            run.stdout
        );
        for part in ["What it means", "Why it fires", "How to silence it"] {
            assert!(
                run.stdout.contains(&format!("\n{part}\n")),
                "{}",
                run.stdout
            );
        }
        assert!(run.stdout.contains("segue-disable-next"), "{}", run.stdout);
        assert!(run.stdout.contains("--exit-zero"), "{}", run.stdout);
    }
    let unknown = segue(&["explain", "weak-sentense-transition"]);
    assert_eq!(unknown.code, 2);
    assert_eq!(unknown.stdout, "");
    assert!(
        unknown.stderr.contains(
            "unknown rule `weak-sentense-transition`; did you mean `weak-sentence-transition`?"
        ),
        "{}",
        unknown.stderr
    );
    assert!(
        unknown
            .stderr
            .contains("weak-sentence-transition, weak-paragraph-transition"),
        "{}",
        unknown.stderr
    );
}

/// A paragraph about gardens with one sentence about physics in the middle.
const OFF_TOPIC_GARDEN: &str = "The garden grows tomatoes in summer. The garden needs water when \
the garden is dry. Each garden bed holds tomatoes and a row of beans. The garden counts the beans \
in each bed of the garden. Quantum chromodynamics describes the strong force between quarks. The \
garden grows when new beds are added to the garden. The garden shrinks when old beds are dug up \
from the garden.";

/// Runs git in `dir`, failing the test when it fails.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=Segue Test",
            "-c",
            "user.email=test@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The zero-based lines of the findings of the first file of a JSON report.
fn finding_lines(json: &Value) -> Vec<u64> {
    json["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["range"]["start"]["line"].as_u64().expect("a line"))
        .collect()
}

#[test]
fn check_diff_reports_only_the_paragraphs_a_change_touched() {
    let dir = temp_dir();
    let repo = dir.path();
    git(repo, &["init", "-q"]);
    let text = format!("{OFF_TOPIC}\n# Gardens\n\n{OFF_TOPIC_GARDEN}\n");
    write(repo, "docs/doc.md", text.as_bytes());
    git(repo, &["add", "docs/doc.md"]);
    git(repo, &["commit", "-q", "-m", "first"]);
    let full = check_in(
        repo,
        &["--tier", "0", "--format", "json", "docs/doc.md"],
        None,
    );
    assert_eq!(full.code, 1, "{}{}", full.stdout, full.stderr);
    let lines = finding_lines(&full.json());
    assert!(
        lines.contains(&2) && lines.contains(&6),
        "both paragraphs are flagged: {lines:?}"
    );

    // Nothing changed: nothing reported, and a clean exit.
    let unchanged = check_in(
        repo,
        &["--tier", "0", "--diff", "HEAD", "docs/doc.md"],
        None,
    );
    assert_eq!(
        unchanged.code, 0,
        "{}{}",
        unchanged.stdout, unchanged.stderr
    );
    assert!(unchanged.stdout.contains("No weak transitions in 1 file."));

    // One word changed in the gardens paragraph: only its findings, scored in the whole document.
    let edited = text.replace("grows tomatoes", "grows red tomatoes");
    write(repo, "docs/doc.md", edited.as_bytes());
    let full = check_in(
        repo,
        &["--tier", "0", "--format", "json", "docs/doc.md"],
        None,
    )
    .json();
    let args = [
        "--tier",
        "0",
        "--format",
        "json",
        "--diff",
        "HEAD",
        "docs/doc.md",
    ];
    let run = check_in(repo, &args, None);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = run.json();
    let lines = finding_lines(&json);
    assert!(
        !lines.is_empty() && lines.iter().all(|&l| l == 6),
        "{lines:?}"
    );
    assert_eq!(json["files"][0]["score"], full["files"][0]["score"]);
    let kept: Vec<&Value> = full["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["range"]["start"]["line"] == 6)
        .collect();
    assert_eq!(
        json["files"][0]["findings"]
            .as_array()
            .map(|a| a.iter().collect::<Vec<_>>()),
        Some(kept)
    );

    // From a subfolder, and as a diff on stdin: the same findings.
    let sub = check_in(
        &repo.join("docs"),
        &[
            "--tier", "0", "--format", "json", "--diff", "HEAD", "doc.md",
        ],
        None,
    );
    assert_eq!(finding_lines(&sub.json()), lines);
    let diff = git(repo, &["diff", "HEAD"]);
    let piped = check_in(
        repo,
        &[
            "--tier",
            "0",
            "--format",
            "json",
            "--diff",
            "-",
            "docs/doc.md",
        ],
        Some(diff.as_bytes()),
    );
    assert_eq!(piped.code, 1, "{}", piped.stderr);
    assert_eq!(piped.stdout, run.stdout);

    // Every format: GitHub annotations and SARIF results only on line 7.
    let github = check_in(
        repo,
        &[
            "--tier",
            "0",
            "--format",
            "github",
            "--diff",
            "HEAD",
            "docs/doc.md",
        ],
        None,
    );
    assert_eq!(
        github.stdout.lines().count(),
        lines.len(),
        "{}",
        github.stdout
    );
    assert!(
        github
            .stdout
            .lines()
            .all(|l| l.starts_with("::warning file=docs/doc.md,line=7,")),
        "{}",
        github.stdout
    );
    let sarif = check_in(
        repo,
        &[
            "--tier",
            "0",
            "--format",
            "sarif",
            "--diff",
            "HEAD",
            "docs/doc.md",
        ],
        None,
    )
    .json();
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), lines.len());
    assert!(results
        .iter()
        .all(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"] == 7));

    // A file git does not know yet is new: all of it counts as changed.
    write(repo, "new.md", OFF_TOPIC.as_bytes());
    let new = check_in(
        repo,
        &[
            "--tier", "0", "--format", "json", "--diff", "HEAD", "new.md",
        ],
        None,
    );
    assert_eq!(new.code, 1, "{}{}", new.stdout, new.stderr);
    assert_eq!(finding_lines(&new.json()), [2]);

    // A revision git does not know is an error for the file.
    let bad = check_in(
        repo,
        &["--tier", "0", "--diff", "no-such-rev", "docs/doc.md"],
        None,
    );
    assert_eq!(bad.code, 2, "{}{}", bad.stdout, bad.stderr);
    assert!(
        bad.stderr.contains("git diff no-such-rev failed"),
        "{}",
        bad.stderr
    );
    // stdin cannot be both the diff and a document.
    let both = check_in(repo, &["--diff", "-", "-"], Some(b""));
    assert_eq!(both.code, 2);
}

// ---------------------------------------------------------------------------------------------
// score and eval

#[test]
fn score_prints_a_table_and_json() {
    let run = segue(&["score", "tests/corpus/nomicon-unwinding.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("sentence transitions"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("paragraph transitions"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("tier0"), "{}", run.stdout);
    assert!(
        run.stdout.lines().any(|l| l.starts_with("document")),
        "{}",
        run.stdout
    );
    // The header names every scorer of the JSON output, each its own word ("lexical" and
    // "lexical-noun" once ran together).
    let header = run
        .stdout
        .lines()
        .find(|l| l.starts_with("from → to"))
        .expect("a header line");
    let named: Vec<&str> = header.split_whitespace().skip(3).collect();
    let json = segue(&["score", "--json", "tests/corpus/nomicon-unwinding.txt"]).json();
    let scorers: Vec<&str> = json["document"]
        .as_object()
        .expect("document scores")
        .keys()
        .map(String::as_str)
        .collect();
    assert!(named.contains(&"lexical-noun"), "{header}");
    let mut sorted = named.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, scorers, "{header}");

    let json = segue(&["score", "--json", "tests/corpus/nomicon-unwinding.txt"]).json();
    assert_eq!(json["path"], "tests/corpus/nomicon-unwinding.txt");
    assert!(json["document"]["tier0"].is_number(), "{json:#}");
    let sentences = json["transitions"]["sentence"]
        .as_array()
        .expect("sentence transitions");
    assert!(!sentences.is_empty());
    for t in sentences {
        assert!(t["from"].is_string() && t["to"].is_string());
        let score = t["scores"]["tier0"].as_f64().expect("a tier0 score");
        assert!((0.0..=1.0).contains(&score));
    }
    assert!(json["transitions"]["paragraph"].is_array());

    assert_eq!(segue(&["score", "no/such/file.md"]).code, 2);
}

#[test]
fn eval_json_has_the_documented_shape() {
    let run = segue(&[
        "eval",
        "--data",
        "tests/fixtures/eval-small.jsonl",
        "--copies",
        "2",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["task"], "discrimination");
    assert_eq!(json["documents"], 5);
    let results = json["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for r in results {
        assert!(r["scorer"].is_string(), "{r}");
        assert!(r["level"] == "sentence" || r["level"] == "paragraph", "{r}");
        assert!(r["degradation"].is_string(), "{r}");
        let accuracy = r["accuracy"].as_f64().expect("accuracy");
        assert!((0.0..=1.0).contains(&accuracy), "{r}");
    }
    assert!(results.iter().any(|r| r["scorer"] == "tier0"));

    let table = segue(&[
        "eval",
        "--data",
        "tests/fixtures/eval-small.jsonl",
        "--copies",
        "1",
    ]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table.stdout.contains("discrimination accuracy"),
        "{}",
        table.stdout
    );
}

/// Reads a `--comparisons` file into its JSON objects.
fn read_comparisons(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("comparisons written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn eval_comparisons_add_up_to_the_accuracy_table() {
    let dir = temp_dir();
    let file = dir.path().join("comparisons.jsonl");
    let run = segue(&[
        "eval",
        "--data",
        "tests/fixtures/eval-small.jsonl",
        "--scorer",
        "tier0",
        "--scorer",
        "lexical",
        "--copies",
        "3",
        "--json",
        "--comparisons",
        file.to_str().expect("utf-8 temp path"),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let comparisons = read_comparisons(&file);
    let results = run.json()["results"].as_array().expect("results").clone();
    assert_eq!(results.len(), 2 * 2 * 7);
    let mut total = 0;
    for r in &results {
        let mine: Vec<&Value> = comparisons
            .iter()
            .filter(|c| {
                c["scorer"] == r["scorer"]
                    && c["level"] == r["level"]
                    && c["degradation"] == r["degradation"]
            })
            .collect();
        assert_eq!(
            mine.len() as u64,
            r["pairs"].as_u64().expect("pairs"),
            "{r}"
        );
        total += mine.len();
        if mine.is_empty() {
            continue;
        }
        let wins: f64 = mine
            .iter()
            .map(|c| {
                let (o, d) = (
                    c["original"].as_f64().unwrap(),
                    c["degraded"].as_f64().unwrap(),
                );
                if (o - d).abs() < 1e-12 {
                    0.5
                } else if o > d {
                    1.0
                } else {
                    0.0
                }
            })
            .sum();
        let accuracy = r["accuracy"].as_f64().expect("accuracy");
        assert!((wins / mine.len() as f64 - accuracy).abs() < 1e-9, "{r}");
        assert!(mine
            .iter()
            .all(|c| c["doc"].is_u64() && c["copy"].as_u64() < Some(3)));
    }
    assert_eq!(total, comparisons.len());
    assert!(total > 0);

    let unwritable = segue(&[
        "eval",
        "--data",
        "tests/fixtures/eval-small.jsonl",
        "--scorer",
        "lexical",
        "--comparisons",
        "/nonexistent/dir/comparisons.jsonl",
    ]);
    assert_eq!(unwritable.code, 2, "{}", unwritable.stderr);
    assert!(
        unwritable.stderr.contains("cannot write"),
        "{}",
        unwritable.stderr
    );
}

#[test]
fn tier1_flags_the_off_topic_sentence_of_the_sample() {
    if !models_installed() {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_segue"))
        .args([
            "check",
            "--tier",
            "1",
            "--scorer",
            "tier1",
            "--format",
            "json",
            "docs/sample.md",
        ])
        .current_dir(root())
        .output()
        .expect("segue runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(json["scorer"], "tier1");
    let source = std::fs::read_to_string(root().join("docs/sample.md")).expect("sample");
    let flagged = flagged_texts(&json, &source);
    assert!(
        flagged
            .iter()
            .any(|s| s.starts_with("My grandmother grows prize-winning tomatoes")),
        "{flagged:#?}"
    );
}

#[test]
fn train_tier0_writes_json_weights() {
    let dir = temp_dir();
    let out = dir.path().join("tier0");
    let out_s = out.to_str().expect("utf-8 temp path");
    let run = segue(&[
        "train",
        "tier0",
        "--data",
        "tests/fixtures/eval-small.jsonl",
        "--out",
        out_s,
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let summary: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON summary");
    assert!(
        summary["sentence"]["positives"].as_u64().unwrap_or(0) > 0,
        "{summary}"
    );
    for file in ["tier0.json", "entity_grid.json"] {
        let text = std::fs::read_to_string(out.join(file)).expect("weights written");
        serde_json::from_str::<serde_json::Value>(&text).expect("weights are JSON");
    }
    let bad = segue(&[
        "train",
        "bbscore",
        "--data",
        "tests/fixtures/eval-small.jsonl",
    ]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("tier0"), "{}", bad.stderr);
}

#[test]
fn tier1_check_reports_the_embedding_scorer_and_flags_the_sample() {
    if !models_installed() {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_segue"))
        .args([
            "check",
            "--verbose",
            "--tier",
            "1",
            "--format",
            "json",
            "docs/sample.md",
        ])
        .current_dir(root())
        .output()
        .expect("segue runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("tier 1: all-MiniLM-L6-v2"), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(json["scorer"], "embedding");
    assert_eq!(json["tier"], 1);
    let source = std::fs::read_to_string(root().join("docs/sample.md")).expect("sample");
    let flagged = flagged_texts(&json, &source);
    assert!(
        flagged
            .iter()
            .any(|s| s.starts_with("My grandmother grows prize-winning tomatoes")),
        "{flagged:#?}"
    );
}

/// What docs/models.md says: a plain `segue check` loads the models when they are installed and
/// reports `embedding`; `--tier 0`, or a built-in scorer named with `tier` at `auto`, never loads
/// them.
#[test]
fn a_plain_check_loads_the_models_and_tier0_does_not() {
    if !models_installed() {
        return;
    }
    for (args, scorer, loads) in [
        (&[][..], "embedding", true),
        (&["--tier", "0"][..], "tier0", false),
        (&["--scorer", "tier0"][..], "tier0", false),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_segue"))
            .args(["check", "--verbose"])
            .args(args)
            .args(["--format", "json", "docs/sample.md"])
            .current_dir(root())
            .output()
            .expect("segue runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let json: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
        assert_eq!(json["scorer"], scorer, "{args:?}");
        assert_eq!(stderr.contains("tier 1:"), loads, "{args:?}: {stderr}");
    }
}

#[test]
fn a_model_scorer_without_models_is_a_clear_error() {
    let run = segue(&["check", "--scorer", "embedding", "docs/sample.md"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("needs the tier 1 models"),
        "{}",
        run.stderr
    );
}

#[test]
fn reorder_names_what_exists_and_writes_a_permutation() {
    let dir = temp_dir();
    let text = "# Notes\n\n\
The cache stores vectors in memory and evicts old vectors.\n\n\
Penguins waddle across the Antarctic ice and eat krill.\n\n\
The cache evicts old vectors from memory when the cache is full.\n\n\
Krill swarm under the Antarctic ice where penguins eat them.\n";
    write(dir.path(), "notes.md", text.as_bytes());
    let file = dir.path().join("notes.md");
    let file = file.to_str().expect("utf-8 path");

    let run = segue(&["reorder", "--paragraph", "9", file]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("there is no paragraph 9: the document has 4 paragraphs (numbered from 1)"),
        "{}",
        run.stderr
    );
    let run = segue(&["reorder", "--section", "2", file]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("the document has 1 section (numbered from 1)"),
        "{}",
        run.stderr
    );

    // Segue's own judge at tier 0 is withheld: it says why and leaves the file alone.
    let run = segue(&["reorder", "--tier", "0", "--section", "1", "--write", file]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains(
            "the author's order stands: the tier0 judge does not reorder paragraphs by default"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(file).expect("read back"), text);

    // --write rewrites the file with the proposed order: the same bytes, permuted (a named
    // judge proposes wherever its rule says so).
    let run = segue(&[
        "reorder",
        "--scorer",
        "tier0",
        "--section",
        "1",
        "--write",
        file,
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let after = std::fs::read_to_string(file).expect("read back");
    assert_ne!(after, text);
    // The final newline stays at the end of the file, whichever paragraph comes last.
    assert!(
        after.ends_with(".\n") && !after.ends_with("\n\n"),
        "{after:?}"
    );
    assert_eq!(after.len(), text.len());
    let mut a: Vec<&str> = after.split("\n\n").map(str::trim_end).collect();
    let mut b: Vec<&str> = text.split("\n\n").map(str::trim_end).collect();
    assert_eq!(a.len(), b.len());
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "{after}");
}

/// Asserts that `after` holds the bytes of `before` in some order: a rewrite only permutes.
fn assert_permutes(after: &[u8], before: &[u8]) {
    let (mut a, mut b) = (after.to_vec(), before.to_vec());
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "a rewrite only permutes the bytes");
}

#[test]
fn a_plain_file_in_an_undeclared_8_bit_encoding_is_read_in_the_one_named() {
    // An old plain-text manual saved in Windows-1252: curly quotes at 0x93/0x94, "é" at 0xe9.
    let dir = temp_dir();
    let bytes = b"The caf\xe9 stores vectors in a cache and evicts old vectors.\n\n\
Penguins waddle across the \x93Antarctic\x94 ice and eat krill.\n\n\
The cache evicts old vectors from memory when the cache is full.\n\n\
Krill swarm under the Antarctic ice where penguins eat them.\n"
        .to_vec();
    write(dir.path(), "manual.txt", &bytes);
    write(dir.path(), "good.md", COHERENT.as_bytes());
    let file = dir.path().join("manual.txt");
    let file = file.to_str().expect("utf-8 path");
    // Refused without the option, and the error names it.
    let run = segue(&["check", "--tier", "0", file]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.contains("--encoding latin1"), "{}", run.stdout);
    // With it, the file is checked; a UTF-8 file beside it is still read as UTF-8.
    let folder = dir.path().to_str().expect("utf-8 path");
    let run = segue(&[
        "check",
        "--tier",
        "0",
        "--encoding",
        "cp1252",
        "--format",
        "json",
        folder,
    ]);
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    assert!(!run.stdout.contains("not valid UTF-8"), "{}", run.stdout);
    let run = segue(&["score", "--tier", "0", "--encoding", "windows-1252", file]);
    assert_eq!(run.code, 0, "{run:?}");
    // `reorder --write` writes it back in Windows-1252, a permutation of the bytes read.
    let run = segue(&[
        "reorder",
        "--scorer",
        "tier0",
        "--encoding",
        "cp1252",
        "--section",
        "1",
        "--write",
        file,
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let after = std::fs::read(file).expect("read back");
    assert_ne!(after, bytes);
    for word in [&b"caf\xe9"[..], b"\x93Antarctic\x94"] {
        assert!(after.windows(word.len()).any(|w| w == word), "{after:?}");
    }
    assert_permutes(&after, &bytes);
}

#[test]
fn a_latex_file_in_a_declared_8_bit_encoding_is_checked_and_reordered_in_it() {
    // As metapost's manual declares: `\usepackage[latin1]{inputenc}`, bytes that are not UTF-8.
    let dir = temp_dir();
    let mut bytes = b"\\documentclass{article}\n\\usepackage[latin1]{inputenc}\n\\begin{document}\n\\section{One}\n".to_vec();
    bytes.extend_from_slice(
        b"The cache stores vectors in M\xfcnchen and evicts old vectors.\n\n\
Penguins waddle across the Antarctic ice and eat krill.\n\n\
The cache evicts old vectors from memory when the cache is full.\n\n\
Krill swarm under the Antarctic ice where penguins eat them.\n\\end{document}\n",
    );
    write(dir.path(), "notes.tex", &bytes);
    let file = dir.path().join("notes.tex");
    let file = file.to_str().expect("utf-8 path");
    let run = segue(&["check", "--tier", "0", "--format", "json", file]);
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    assert!(!run.stderr.contains("not valid UTF-8"), "{}", run.stderr);
    let run = segue(&[
        "reorder",
        "--scorer",
        "tier0",
        "--section",
        "1",
        "--write",
        file,
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let after = std::fs::read(file).expect("read back");
    assert_ne!(after, bytes);
    // Written back in Latin-1, byte for byte a permutation of what was read.
    let word = b"M\xfcnchen";
    assert!(after.windows(word.len()).any(|w| w == word), "{after:?}");
    // What closes the document stays at its end, whichever paragraph moves last.
    assert!(after.ends_with(b"\\end{document}\n"), "{after:?}");
    assert_permutes(&after, &bytes);
}

#[test]
fn calibrate_replaces_only_the_scorers_it_measures() {
    let dir = temp_dir();
    let out = dir.path().join("calibration.json");
    let shipped = std::fs::read_to_string(root().join("models/calibration.json"))
        .expect("the shipped calibration");
    std::fs::write(&out, &shipped).expect("copied");
    let before: Value = serde_json::from_str(&shipped).expect("JSON");
    let out_arg = out.to_string_lossy().into_owned();
    let run = segue(&[
        "calibrate",
        "--tier",
        "0",
        "--scorer",
        "lexical",
        "--data",
        "tests/fixtures/eval-small.jsonl",
        "--out",
        &out_arg,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("calibrated: lexical"), "{}", run.stderr);
    let after: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("JSON");
    let p = &after["percentiles"];
    for kept in ["entity-grid", "lexical-noun", "tier0"] {
        assert_eq!(p[kept], before["percentiles"][kept], "{kept} was kept");
    }
    assert_ne!(p["lexical"], before["percentiles"]["lexical"]);
    for level in ["sentence", "paragraph"] {
        let pct = p["lexical"][level].as_array().expect("101 percentiles");
        assert_eq!(pct.len(), 101);
    }

    // The findings test reads it; a file that is not a calibration is an error, and calibrate
    // does not overwrite it.
    let run = segue(&[
        "eval",
        "--task",
        "findings",
        "--tier",
        "0",
        "--scorer",
        "lexical",
        "--data",
        "tests/fixtures/eval-small.jsonl",
        "--calibration",
        &out_arg,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::write(&out, "not json").expect("written");
    for args in [
        vec!["eval", "--task", "findings", "--tier", "0", "--calibration"],
        vec!["calibrate", "--tier", "0", "--out"],
    ] {
        let mut args = args;
        args.push(&out_arg);
        args.extend(["--data", "tests/fixtures/eval-small.jsonl"]);
        let run = segue(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("is not a calibration file"),
            "{}",
            run.stderr
        );
    }
    assert_eq!(std::fs::read_to_string(&out).expect("kept"), "not json");
}

/// The real-prose test on the committed slice of the corpus (`tests/prose/slice/`): every genre
/// and format of the slice is reported, sensitivity levels are nested, and the summary is
/// snapshotted (re-accept after reading it when the rules, weights or calibration change).
#[test]
fn eval_prose_on_the_committed_slice() {
    let run = segue(&[
        "eval",
        "--task",
        "prose",
        "--data",
        "tests/prose/slice",
        "--tier",
        "0",
        "--copies",
        "3",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.json();
    assert_eq!(out["documents"], 6);
    let rows = out["results"].as_array().expect("rows");
    let row = |group: &str, sensitivity: &str| {
        rows.iter()
            .find(|r| r["group"] == group && r["sensitivity"] == sensitivity)
            .unwrap_or_else(|| panic!("no row {group} {sensitivity}"))
    };
    for group in [
        "genre:essay",
        "genre:fiction",
        "genre:latex",
        "genre:readme",
        "genre:speech",
        "genre:tutorial",
        "format:markdown",
        "format:rst",
        "format:latex",
        "format:plain",
    ] {
        assert!(
            row(group, "medium")["words"].as_u64().unwrap() > 0,
            "{group}"
        );
    }
    let findings = |s| row("all", s)["findings"].as_u64().unwrap();
    assert!(findings("low") <= findings("medium") && findings("medium") <= findings("high"));
    assert!(row("all", "medium")["sentences_planted"].as_u64().unwrap() >= 10);
    let summary: Vec<String> = rows
        .iter()
        .filter(|r| r["group"] == "all" || r["group"].as_str().unwrap().starts_with("format:"))
        .map(|r| {
            format!(
                "{} {}: {} findings in {} words; planted sentences {:.3} of {}, paragraphs {:.3} of {}",
                r["group"].as_str().unwrap(),
                r["sensitivity"].as_str().unwrap(),
                r["findings"],
                r["words"],
                r["sentence_recall"].as_f64().unwrap(),
                r["sentences_planted"],
                r["paragraph_recall"].as_f64().unwrap(),
                r["paragraphs_planted"]
            )
        })
        .collect();
    insta::assert_snapshot!("prose_slice", summary.join("\n"));
}

/// The measuring stick at tier 1 gives the same evidence, to the last bit, on every run: the int8
/// encoder quantises each batch with its own scale and the embedding cache is shared, so
/// documents scored in parallel got slightly different vectors from run to run, and a borderline
/// finding came and went. The verdict rows hold every transition's features.
#[test]
fn eval_prose_at_tier1_gives_the_same_evidence_on_every_run() {
    if !models_installed() {
        return;
    }
    let dir = temp_dir();
    let rows = |k: usize| {
        let path = dir.path().join(format!("rows-{k}.jsonl"));
        let out = path.to_str().expect("utf-8 path").to_string();
        // The installed models, as `tier1_start_up_lines_only_with_verbose` runs them.
        let run = Command::new(env!("CARGO_BIN_EXE_segue"))
            .args(["eval", "--task", "prose", "--data", "tests/prose/slice"])
            .args(["--tier", "1", "--copies", "6", "--verdict-rows-out", &out])
            .current_dir(root())
            .output()
            .expect("segue runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(0), "{stderr}");
        std::fs::read_to_string(&path).expect("rows")
    };
    let (first, second) = (rows(0), rows(1));
    assert!(first.lines().count() > 10, "too few rows: {first}");
    // Six copies of six documents: in parallel, two runs differed in 2 of 3 tries here.
    // (Cut to `--copies 2`, they seldom do.)
    assert!(first == second, "the rows differ between two runs");
}

/// A section Segue does not reorder (too few units, or not running prose) keeps the author's
/// order, and an explicit `--section` says why.
#[test]
fn reorder_leaves_structure_and_short_sections_to_the_author() {
    let dir = temp_dir();
    let text = "# Two\n\nPenguins waddle across the ice.\n\nThe cache stores vectors.\n\n\
# Steps\n\nInstall it with:\n\n    cargo install segue\n\nThen run it on a file.\n\nThe moon is bright.\n";
    write(dir.path(), "short.md", text.as_bytes());
    let file = dir.path().join("short.md");
    let file = file.to_str().expect("utf-8 path");
    let run = segue(&["reorder", "--tier", "0", "--section", "1", file]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("the author's order stands: it has 2 units; Segue reorders 3 to 8"),
        "{}",
        run.stderr
    );
    let run = segue(&["reorder", "--tier", "0", "--section", "2", file]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("running prose only"), "{}", run.stderr);
    let run = segue(&[
        "reorder", "--tier", "0", "--scorer", "lexical", "--write", file,
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(std::fs::read_to_string(file).unwrap(), text);
}

/// `segue reorder` on a whole real document with several sections rewrites them all (or says the
/// order stands): never the permutation error.
#[test]
fn reorder_handles_every_section_of_a_real_document() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("why.md");
    let original =
        std::fs::read_to_string(root().join("tests/prose/slice/essay/click-why.md")).unwrap();
    // Shuffle the paragraphs of every section by hand: swap each section's first two.
    let mut text = String::new();
    for (i, section) in original.split("\n## ").enumerate() {
        let mut paras: Vec<&str> = section.split("\n\n").collect();
        if paras.len() > 3 {
            paras.swap(1, 2);
        }
        if i > 0 {
            text.push_str("\n## ");
        }
        text.push_str(&paras.join("\n\n"));
    }
    std::fs::write(&file, &text).unwrap();
    let f = file.to_str().unwrap();
    for scorer in ["tier0", "lexical"] {
        let run = segue(&["reorder", "--tier", "0", "--scorer", scorer, "--diff", f]);
        assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
        assert!(!run.stderr.contains("refusing to write"), "{}", run.stderr);
    }
    let run = segue(&[
        "reorder", "--tier", "0", "--scorer", "lexical", "--write", f,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut a: Vec<char> = std::fs::read_to_string(&file).unwrap().chars().collect();
    let mut b: Vec<char> = text.chars().collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "--write only permutes");
}
