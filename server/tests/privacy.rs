//! No network access, ever, and no files outside what the user asked for: a tier 1 run with the
//! real ONNX Runtime opens no internet socket, looks up no host name, and writes nothing under
//! `$HOME/.cache/Microsoft` (where ONNX Runtime's telemetry keeps its device id and event
//! database unless it is turned off; see `segue::model::runtime::disable_telemetry`).
//!
//! Needs the models (`models/install`) and, for the network check, `strace`; each test says why
//! it skips when they are not there.

use std::path::Path;
use std::process::{Command, Output};

fn models_installed() -> bool {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    let ok = models.join("onnx/minilm/model.onnx").is_file()
        && models
            .join("lib")
            .join(segue::model::files::ORT_LIB_FILE)
            .is_file();
    if !ok {
        eprintln!("skipping: the tier 1 models are not installed (run models/install)");
    }
    ok
}

/// Whether `strace` runs here (installed, and ptrace allowed).
fn strace_works() -> bool {
    let ok = Command::new("strace")
        .args(["-f", "-e", "trace=network", "-o", "/dev/null", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipping the network check: strace is not installed or cannot trace here");
    }
    ok
}

const TEXT: &str = "# Caches\n\nThe cache stores vectors in memory. The cache evicts old vectors \
    when memory runs low.\n\nPenguins waddle across the ice. Krill swarm beneath it.\n";

/// A command with a fresh home folder, no user configuration, the models from the source tree,
/// and none of the variables that would turn telemetry off from outside: the process must do it.
fn isolated(program: &str, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env_remove("ORT_DISABLE_TELEMETRY")
        .env_remove("SEGUE_MODELS_DIR")
        .env_remove("SEGUE_ORT_DYLIB")
        .env_remove("ORT_DYLIB_PATH")
        .env("SEGUE_DEVICE", "cpu")
        .env("NO_COLOR", "1");
    cmd
}

/// Everything written under `home` (relative paths).
fn written(home: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, base, out);
            }
            out.push(p.strip_prefix(base).unwrap_or(&p).display().to_string());
        }
    }
    let mut out = Vec::new();
    walk(home, home, &mut out);
    out.sort();
    out
}

fn assert_tier1_ran(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.contains("tier 1: all-MiniLM-L6-v2"), "{stderr}");
}

#[test]
fn a_tier1_check_writes_nothing_under_home() {
    if !models_installed() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let doc = tempfile::tempdir().expect("tempdir");
    std::fs::write(doc.path().join("a.md"), TEXT).expect("write");
    let out = isolated(env!("CARGO_BIN_EXE_segue"), home.path())
        .args(["check", "--verbose", "--tier", "1", "a.md"])
        .current_dir(doc.path())
        .output()
        .expect("segue runs");
    assert_tier1_ran(&out);
    assert_eq!(written(home.path()), Vec::<String>::new());
}

#[test]
fn a_tier1_check_opens_no_network_socket_and_resolves_no_name() {
    if !models_installed() || !strace_works() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let doc = tempfile::tempdir().expect("tempdir");
    std::fs::write(doc.path().join("a.md"), TEXT).expect("write");
    let trace = doc.path().join("trace.txt");
    let out = isolated("strace", home.path())
        .args(["-f", "-e", "trace=network", "-o"])
        .arg(&trace)
        .args([
            env!("CARGO_BIN_EXE_segue"),
            "check",
            "--verbose",
            "--tier",
            "1",
            "a.md",
        ])
        .current_dir(doc.path())
        .output()
        .expect("strace runs");
    assert_tier1_ran(&out);
    let trace = std::fs::read_to_string(&trace).expect("the trace");
    // Internet sockets (IPv4, IPv6) are what a DNS lookup or an upload needs; a lookup through
    // the name service cache daemon shows as a connect to its socket.
    let network: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("AF_INET") || l.contains("nscd") || l.contains("htons(53)"))
        .collect();
    assert!(
        network.is_empty(),
        "network access:\n{}",
        network.join("\n")
    );
    assert_eq!(written(home.path()), Vec::<String>::new());
}

/// Run by [`a_program_using_the_library_keeps_telemetry_off`] in a child process (with its own
/// home folder); does nothing otherwise.
#[test]
fn library_child() {
    if std::env::var_os("SEGUE_PRIVACY_CHILD").is_none() {
        return;
    }
    let options = segue::model::ModelOptions {
        device: segue::config::Device::Cpu,
        ..segue::model::ModelOptions::from_env()
    };
    let encoder = segue::model::shared_encoder(&options).expect("the encoder loads");
    let v = encoder
        .embed(&["The cache stores vectors."])
        .expect("it encodes");
    assert_eq!(v.len(), 1);
}

#[test]
fn a_program_using_the_library_keeps_telemetry_off() {
    if !models_installed() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let exe = std::env::current_exe().expect("this test binary");
    let out = isolated(&exe.display().to_string(), home.path())
        .env("SEGUE_PRIVACY_CHILD", "1")
        .args(["--exact", "library_child", "--test-threads", "1"])
        .output()
        .expect("the child runs");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{all}");
    assert!(all.contains("1 passed"), "{all}");
    assert_eq!(written(home.path()), Vec::<String>::new());
}
