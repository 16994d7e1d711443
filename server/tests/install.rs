//! Installing like the peers: where the models folder is looked for and where `segue models
//! install` installs, over the library and the real binary. The full install from an empty
//! `CARGO_HOME` is `tests/install/run`.

use segue::config::sources::xdg_data_dir;
use segue::model::bundle;
use segue::model::files::search_order;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn segue(args: &[&str], cwd: &Path, env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_segue"));
    cmd.args(args).current_dir(cwd);
    for var in [
        "SEGUE_MODELS_DIR",
        "SEGUE_ORT_DYLIB",
        "ORT_DYLIB_PATH",
        "XDG_DATA_HOME",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run segue")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_data_folder_comes_after_the_build_places_and_before_the_system_one() {
    let order = search_order(
        Path::new("/src/models"),
        Some(Path::new("/opt/segue/bin")),
        Some(Path::new("/home/u/.local/share/segue/models")),
    );
    let paths: Vec<PathBuf> = order.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(
        paths,
        vec![
            PathBuf::from("/src/models"),
            PathBuf::from("/opt/segue/bin/models"),
            PathBuf::from("/opt/segue/bin/../../models"),
            PathBuf::from("/home/u/.local/share/segue/models"),
            PathBuf::from("/opt/segue/bin/../share/segue/models"),
        ]
    );
    let hows: Vec<&str> = order.iter().map(|(_, how)| *how).collect();
    assert_eq!(hows[3], "the user data folder");
    assert_eq!(
        search_order(Path::new("/src/models"), None, None).len(),
        1,
        "without an executable or a home, only the source tree"
    );
}

#[test]
fn the_data_folder_follows_xdg() {
    let home = Some(PathBuf::from("/home/u"));
    assert_eq!(
        xdg_data_dir(None, home.clone()),
        Some(PathBuf::from("/home/u/.local/share"))
    );
    assert_eq!(
        xdg_data_dir(Some("/data".into()), home.clone()),
        Some(PathBuf::from("/data"))
    );
    assert_eq!(
        xdg_data_dir(Some("relative/data".into()), home),
        Some(PathBuf::from("/home/u/.local/share")),
        "a relative XDG_DATA_HOME is ignored"
    );
    assert_eq!(xdg_data_dir(None, None), None);
}

#[test]
fn models_install_help_names_the_data_folder_and_dry_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = segue(&["models", "install", "--help"], dir.path(), &[]);
    assert!(out.status.success());
    let help = stdout(&out);
    assert!(help.contains("$XDG_DATA_HOME/segue/models"), "{help}");
    assert!(help.contains("--dry-run"), "{help}");
}

#[test]
fn dry_run_names_the_folder_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("models");
    let out = segue(
        &["models", "install", "--dry-run"],
        dir.path(),
        &[("SEGUE_MODELS_DIR", &target)],
    );
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "models folder: {} (the models_dir setting / SEGUE_MODELS_DIR)",
            target.display()
        )),
        "{text}"
    );
    let n = bundle::FILES.len();
    assert!(
        text.contains(&format!("would write {n} of the {n} files bundled")),
        "{text}"
    );
    assert!(!target.exists(), "--dry-run wrote {}", target.display());

    // Without a setting, this test binary (run from its checkout when the target folder is inside
    // it) installs into the checkout's models/, else into the data folder.
    let data = dir.path().join("data");
    let out = segue(
        &["models", "install", "--dry-run"],
        dir.path(),
        &[("XDG_DATA_HOME", &data)],
    );
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(|r| r.canonicalize().ok())
        .expect("repository root");
    let exe = Path::new(env!("CARGO_BIN_EXE_segue"))
        .canonicalize()
        .expect("exe");
    if exe.starts_with(&root) {
        assert!(
            text.contains("(the source tree this binary runs from)")
                && text.contains("would run its own install script"),
            "{text}"
        );
    } else {
        let want = data.join("segue").join("models");
        assert!(
            text.contains(&format!(
                "models folder: {} (the user data folder)",
                want.display()
            )),
            "{text}"
        );
    }
}

#[test]
fn a_project_file_cannot_choose_where_models_are_installed() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    let evil = dir.path().join("evil");
    std::fs::write(
        dir.path().join("segue.toml"),
        format!("models_dir = {:?}\n", evil.display().to_string()),
    )
    .expect("write");
    let target = dir.path().join("mine");
    let out = segue(
        &["models", "install", "--dry-run"],
        dir.path(),
        &[("SEGUE_MODELS_DIR", &target)],
    );
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains(&target.display().to_string()), "{text}");
    assert!(!text.contains("evil"), "{text}");
}

#[test]
fn install_lays_the_bundle_out_then_runs_its_script() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("models");
    // The script stops at once without a Python, after the binary laid its files out.
    let out = segue(
        &["models", "install", "--no-gpu"],
        dir.path(),
        &[
            ("SEGUE_MODELS_DIR", &target),
            ("PYTHON", Path::new("/nonexistent/python3")),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let text = stdout(&out);
    let n = bundle::FILES.len();
    assert!(
        text.contains(&format!("models: {n} bundled files written, 0 up to date")),
        "{text}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/python3 not found"), "{err}");
    assert!(target.join(bundle::MARKER).is_file());
    assert!(bundle::stale(&target).is_empty());
    assert!(!bundle::is_own_tree(&target));

    // `segue models verify` names a changed bundled file (and the models it lacks).
    std::fs::write(target.join("bbscore").join("sigma.json"), "{}").expect("write");
    let out = segue(
        &["models", "verify"],
        dir.path(),
        &[("SEGUE_MODELS_DIR", &target)],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).contains("STALE      bbscore/sigma.json"),
        "{out:?}"
    );
}
