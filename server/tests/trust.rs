//! The trust boundary: a project's `segue.toml` cannot choose code or models to load, project
//! settings are looked for no higher than the project root, and the user's own configuration (the
//! user settings file, flags, editor settings) is honoured. Over the real binary, CLI and server.

mod common;

use common::{file_uri, lsp, push_caps, Client, BLATANT_MD};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A folder holding a "library" and a "models folder" that must never be loaded: if Segue
/// followed them, its errors would name them.
struct Bogus {
    dir: tempfile::TempDir,
}

impl Bogus {
    fn new() -> Bogus {
        let dir = tempfile::tempdir().expect("tempdir");
        let models = dir.path().join("bogus-models");
        for f in [
            "lib/libonnxruntime.so.1.31.1",
            "onnx/minilm/model.onnx",
            "onnx/minilm/tokenizer.json",
        ] {
            let p = models.join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, "not a library or a model").expect("write");
        }
        std::fs::write(dir.path().join("bogus.so"), "not a library").expect("write");
        Bogus { dir }
    }

    fn library(&self) -> PathBuf {
        self.dir.path().join("bogus.so")
    }

    fn models(&self) -> PathBuf {
        self.dir.path().join("bogus-models")
    }

    /// `segue.toml` text that names both.
    fn toml(&self) -> String {
        format!(
            "ort_dylib = {:?}\nmodels_dir = {:?}\n",
            self.library().display().to_string(),
            self.models().display().to_string()
        )
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Runs `segue ARGS` in `cwd` with the user's configuration folder at `config_home` (an empty one
/// unless a test writes `segue/segue.toml` there) and none of the model variables set, so only
/// what the test wrote decides where the models come from: `SEGUE_MODELS_DIR` points at a
/// missing folder, so that an honoured project `models_dir` would show in the messages.
fn segue_in(cwd: &Path, config_home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_segue"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("XDG_CONFIG_HOME", config_home)
        .env("SEGUE_MODELS_DIR", "/nonexistent/segue-models")
        .env_remove("SEGUE_ORT_DYLIB")
        .env_remove("ORT_DYLIB_PATH")
        .output()
        .expect("segue runs")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_ignores_code_paths_in_a_project_file_with_a_warning() {
    let bogus = Bogus::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
    write(&repo.join("segue.toml"), &bogus.toml());
    write(&repo.join("docs").join("a.md"), BLATANT_MD);
    let config_home = dir.path().join("config");
    let out = segue_in(&repo, &config_home, &["check", "--tier", "1", "docs/a.md"]);
    let (stdout, stderr) = text(&out);
    assert!(
        stderr.contains("`ort_dylib` is ignored: a project's settings cannot choose code"),
        "{stderr}"
    );
    assert!(stderr.contains("`models_dir` is ignored"), "{stderr}");
    assert!(stderr.contains("SEGUE_ORT_DYLIB"), "{stderr}");
    // Tier 1 is looked for where the user said (here: nowhere), never in the project's paths.
    assert!(!stderr.contains("bogus"), "{stderr}");
    assert!(stderr.contains("/nonexistent/segue-models"), "{stderr}");
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    // `--config` names a project file too.
    let out = segue_in(
        &repo,
        &config_home,
        &[
            "check",
            "--config",
            "segue.toml",
            "--tier",
            "1",
            "docs/a.md",
        ],
    );
    let (_, stderr) = text(&out);
    assert!(stderr.contains("`ort_dylib` is ignored"), "{stderr}");
    assert!(!stderr.contains("bogus-models/"), "{stderr}");
}

#[test]
fn cli_honours_the_user_file_and_flags() {
    let bogus = Bogus::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let config_home = dir.path().join("config");
    write(&config_home.join("segue").join("segue.toml"), &bogus.toml());
    write(&dir.path().join("a.md"), BLATANT_MD);
    // From the user's own file, the paths are followed (and this "model" fails to load).
    let out = segue_in(dir.path(), &config_home, &["check", "--tier", "1", "a.md"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&bogus.models().display().to_string()),
        "{stderr}"
    );
    assert!(!stderr.contains("is ignored"), "{stderr}");
    let out = segue_in(dir.path(), &config_home, &["doctor"]);
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains(&format!(
            "{} (found via the ort_dylib setting)",
            bogus.library().display()
        )),
        "{stdout}"
    );
    // A flag beats the user file; relative to the folder it is typed in.
    let other = dir.path().join("other.so");
    std::fs::write(&other, "not a library either").expect("write");
    let out = segue_in(
        dir.path(),
        &config_home,
        &["doctor", "--ort-dylib", "other.so"],
    );
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains(&format!("ONNX Runtime:    {} (found", other.display())),
        "{stdout}"
    );
    // A relative path in a settings file is refused: it would depend on the working folder.
    write(
        &config_home.join("segue").join("segue.toml"),
        "ort_dylib = \"bogus.so\"\n",
    );
    let out = segue_in(dir.path(), &config_home, &["check", "--tier", "0", "a.md"]);
    let (_, stderr) = text(&out);
    assert!(stderr.contains("an absolute path"), "{stderr}");
}

#[test]
fn cli_project_settings_stop_at_the_repository_root() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config_home = dir.path().join("config");
    // Above the repository: never read. (If it were, only plain text would be checked and the
    // Markdown file would be skipped: "no plain-text files found".)
    write(&dir.path().join("segue.toml"), "formats = [\"plain\"]\n");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
    write(&repo.join("docs").join("a.md"), "# A\n\nShort and fine.\n");
    let out = segue_in(&repo, &config_home, &["check", "--tier", "0", "docs"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    // Without `.git`, only the starting folder is looked at.
    let loose = dir.path().join("loose");
    write(&loose.join("docs").join("a.md"), "# A\n\nShort and fine.\n");
    let out = segue_in(&loose, &config_home, &["check", "--tier", "0", "docs"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    // Inside the repository, the nearest file counts.
    write(&repo.join("segue.toml"), "formats = [\"plain\"]\n");
    let out = segue_in(&repo, &config_home, &["check", "--tier", "0", "docs"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no plain-text files found"), "{stderr}");
    // A user file's settings apply, and the project's win over them key by key.
    write(
        &config_home.join("segue").join("segue.toml"),
        "formats = [\"markdown\"]\nsensitivity = \"low\"\n",
    );
    let out = segue_in(&repo, &config_home, &["check", "--tier", "0", "docs"]);
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    std::fs::remove_file(repo.join("segue.toml")).expect("rm");
    write(&repo.join("docs").join("b.txt"), "Short and fine.\n");
    let out = segue_in(
        &repo,
        &config_home,
        &["check", "--tier", "0", "--format", "json", "docs"],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stdout.contains("b.txt"), "{stdout}");
}

fn spawn(config_home: &Path) -> Client {
    let home = config_home.display().to_string();
    Client::spawn_with_env(&[
        ("XDG_CONFIG_HOME", home.as_str()),
        ("SEGUE_ORT_DYLIB", ""),
        ("ORT_DYLIB_PATH", ""),
    ])
}

#[test]
fn server_ignores_code_paths_in_a_project_file_with_a_warning() {
    let bogus = Bogus::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    write(&root.join("segue.toml"), &bogus.toml());
    let mut c = spawn(&dir.path().join("config"));
    c.initialize(push_caps(), Some(&root), Some(json!({"tier": "1"})));
    let w = c.wait_notification::<lsp::notification::ShowMessage>(|p| {
        p.message.contains("`ort_dylib` is ignored")
    });
    assert!(w.message.contains("SEGUE_ORT_DYLIB"), "{}", w.message);
    c.wait_notification::<lsp::notification::ShowMessage>(|p| {
        p.message.contains("`models_dir` is ignored")
    });
    // The models were looked for where the user said (SEGUE_MODELS_DIR: nowhere).
    let failed = c.wait_notification::<lsp::notification::ShowMessage>(|p| {
        p.message.contains("did not load")
    });
    assert!(
        failed.message.contains("/nonexistent/segue-models"),
        "{}",
        failed.message
    );
    assert!(!failed.message.contains("bogus"), "{}", failed.message);
    assert!(c.shutdown_and_exit().success());
}

#[test]
fn server_honours_the_user_file_and_stops_at_the_workspace_root() {
    let bogus = Bogus::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let config_home = dir.path().join("config");
    write(
        &config_home.join("segue").join("segue.toml"),
        &format!("{}severity = \"error\"\n", bogus.toml()),
    );
    // Above the workspace folder: never read.
    write(&dir.path().join("segue.toml"), "severity = \"hint\"\n");
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).expect("mkdir");
    let mut c = spawn(&config_home);
    c.initialize(
        push_caps(),
        Some(&root),
        Some(json!({"debounce": 0, "scorer": "lexical", "tier": "1"})),
    );
    // The user's models folder is followed (and its "model" fails to load).
    let failed = c.wait_notification::<lsp::notification::ShowMessage>(|p| {
        p.message.contains("did not load")
    });
    assert!(
        failed
            .message
            .contains(&bogus.models().display().to_string()),
        "{}",
        failed.message
    );
    let uri = file_uri(&root.join("doc.md"));
    c.open(&uri, "markdown", 1, BLATANT_MD);
    let diags = c.diagnostics(&uri, 1);
    assert!(!diags.is_empty());
    assert!(
        diags
            .iter()
            .all(|d| d.severity == Some(lsp::DiagnosticSeverity::ERROR)),
        "{diags:#?}"
    );
    assert!(c.shutdown_and_exit().success());
}
