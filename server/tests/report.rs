//! End-to-end tests of `segue report` and `segue check --format html`: a real multi-section
//! document (docs/sample.md), a published essay from the prose slice and a document full of
//! markup rendered into one self-contained page; the main elements are there, document text is
//! escaped, and nothing is loaded from elsewhere. tests/report/run opens the same page in a
//! headless browser.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in a folder of the repository")
        .to_path_buf()
}

fn segue(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_segue"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("SEGUE_MODELS_DIR", "/nonexistent/segue-models")
        .output()
        .expect("run segue")
}

/// The three inputs, as paths relative to the repository root; the markup document is written
/// into `dir`.
fn inputs(dir: &Path) -> Vec<String> {
    let markup = dir.join("markup.md");
    std::fs::write(
        &markup,
        "# Markup\n\nThis paragraph quotes markup on purpose. The report shows \
         <script>alert('pwned')</script> as text and never runs it.\n\nTags like <img src=x onerror=\"alert(1)\"> \
         and & signs stay text. Volcanoes erupt molten basalt across the remote ocean floor.\n",
    )
    .expect("write the markup document");
    vec![
        "docs/sample.md".to_string(),
        "tests/prose/slice/essay/click-why.md".to_string(),
        markup.display().to_string(),
    ]
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn the_report_draws_strips_plots_findings_and_reorders_for_every_document() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let out = dir.path().join("report.html");
    // At `high`, so that the page has several flagged units to draw whatever the default's rate.
    let mut args = vec!["report", "--tier", "0", "--sensitivity", "high"];
    let files = inputs(dir.path());
    args.extend(files.iter().map(String::as_str));
    let out_arg = out.display().to_string();
    args.extend(["-o", &out_arg]);
    let run = segue(&args);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "stderr: {stderr}");
    assert!(stderr.contains("wrote"), "stderr: {stderr}");
    let html = std::fs::read_to_string(&out).expect("the page is written");

    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    assert_eq!(count(&html, "<section class=\"document\""), 3);
    assert_eq!(count(&html, "<svg class=\"strip\""), 3);
    assert!(count(&html, "<g class=\"band") > 40, "too few bands");
    assert!(count(&html, "<g class=\"band flagged\"") >= 2);
    assert!(html.contains("<figure class=\"plot plot-sentence\">"));
    assert!(html.contains("<figure class=\"plot plot-paragraph\">"));
    assert!(html.contains("<polyline class=\"scores\""));
    assert!(count(&html, "<li class=\"finding\">") >= 3);
    assert_eq!(
        count(&html, "<blockquote class=\"before\">"),
        count(&html, "<blockquote class=\"flagged\">")
    );
    assert_eq!(count(&html, "<h3>Proposed reorders</h3>"), 3);
    assert!(html.contains("@media print"));
    // The sample's headings mark the sections along the strip and the plots.
    assert!(html.contains("<title>Section 2: "));

    // Document text is escaped everywhere: quotes, tooltips, headings.
    assert!(!html.contains("<script"), "a <script> reached the page");
    assert!(!html.contains("<img"), "an <img> reached the page");
    assert!(html.contains("&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;"));
    assert!(html.contains("onerror=&quot;alert(1)&quot;"));

    // Self-contained: nothing to fetch.
    for external in [
        "src=\"",
        "href=\"http",
        "url(http",
        "@import",
        "<link",
        "@font-face",
    ] {
        assert!(!html.contains(external), "the page refers to {external}");
    }
}

#[test]
fn check_format_html_writes_the_same_page_to_stdout() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let files = inputs(dir.path());
    let mut check = vec!["check", "--tier", "0", "--format", "html"];
    check.extend(files.iter().map(String::as_str));
    let checked = segue(&check);
    // Findings: exit 1, as every format of `segue check`.
    assert_eq!(
        checked.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let mut report = vec!["report", "--tier", "0", "-o", "-"];
    report.extend(files.iter().map(String::as_str));
    let reported = segue(&report);
    assert_eq!(reported.status.code(), Some(0));
    assert!(!checked.stdout.is_empty());
    assert_eq!(checked.stdout, reported.stdout);
}

#[test]
fn a_file_that_cannot_be_read_is_reported_in_the_page_and_exits_2() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let out = dir.path().join("report.html");
    let missing = dir.path().join("missing.md");
    std::fs::write(dir.path().join("there.md"), "# A\n\nOne line. Two lines.\n").expect("write");
    let there = dir.path().join("there.md");
    let run = segue(&[
        "report",
        "--tier",
        "0",
        &there.display().to_string(),
        &missing.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("missing.md: cannot read"),
        "stderr: {stderr}"
    );
    let html = std::fs::read_to_string(&out).expect("the page is written all the same");
    assert_eq!(count(&html, "<section class=\"document\""), 2);
    assert!(html.contains("<p class=\"error\">Not checked: cannot read"));
    assert_eq!(count(&html, "<svg class=\"strip\""), 1);
}

#[test]
fn report_needs_an_output_file() {
    let run = segue(&["report", "docs/sample.md"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--output"));
}
