//! End-to-end tests of how the `segue` binary reads and writes files: the size cap applied while
//! reading (files and stdin), refusing devices and FIFOs, the byte-order mark, and what
//! `segue reorder --write` keeps (symlinks, hard links, owner, permissions) or refuses
//! (read-only files without `--force`).

#![cfg(unix)]

use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What a run of the binary produced.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// A deadline that only stops a runaway child (one reading an endless input): a correct run
/// finishes in well under a second.
const DEADLINE: Duration = Duration::from_secs(120);

fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_segue"));
    cmd.args(args)
        .env("NO_COLOR", "1")
        .env("SEGUE_MODELS_DIR", "/nonexistent/segue-models")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Waits for `child`, killing it (and failing the test) if it outlives [`DEADLINE`].
fn finish(mut child: Child) -> Run {
    let start = Instant::now();
    // Drain the pipes on threads so that a chatty child never blocks on a full pipe.
    let mut out = child.stdout.take().expect("stdout is piped");
    let mut err = child.stderr.take().expect("stderr is piped");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait on segue") {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("segue still running after {DEADLINE:?}: it reads without a bound");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

fn segue(args: &[&str]) -> Run {
    finish(
        command(args)
            .stdin(Stdio::null())
            .spawn()
            .expect("segue runs"),
    )
}

/// Four paragraphs on two topics, interleaved: the built-in judge proposes grouping them.
const NOTES: &str = "# Notes\n\n\
The cache stores vectors in memory and evicts old vectors.\n\n\
Penguins waddle across the Antarctic ice and eat krill.\n\n\
The cache evicts old vectors from memory when the cache is full.\n\n\
Krill swarm under the Antarctic ice where penguins eat them.\n";

fn reorder_write(path: &Path, extra: &[&str]) -> Run {
    let p = path.to_str().expect("utf-8 path");
    let mut args = vec!["reorder", "--tier", "0", "--scorer", "tier0", "--write"];
    args.extend_from_slice(extra);
    args.push(p);
    segue(&args)
}

/// `text` holds the paragraphs of [`NOTES`], in some order, and nothing else.
fn is_reordered_notes(text: &str) {
    assert_ne!(text, NOTES, "the file was not reordered");
    assert_eq!(text.len(), NOTES.len());
    let mut a: Vec<&str> = text.split("\n\n").map(str::trim_end).collect();
    let mut b: Vec<&str> = NOTES.split("\n\n").map(str::trim_end).collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "{text}");
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("read back")
}

#[test]
fn write_through_a_symlink_rewrites_the_target_and_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.path().join("real/notes.md");
    std::fs::write(&target, NOTES).unwrap();
    let link = dir.path().join("link.md");
    std::os::unix::fs::symlink("real/notes.md", &link).unwrap();

    let run = reorder_write(&link, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "{}: reordered the paragraphs of section 1\n",
            link.display()
        ),
        "{run:?}"
    );
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link became a file");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("real/notes.md")
    );
    is_reordered_notes(&read(&target));
    // No temporary file left behind in either folder.
    for d in [dir.path(), &dir.path().join("real")] {
        let names: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(names.len() <= 2, "{names:?}");
    }
}

#[test]
fn write_keeps_hard_links() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.md");
    let b = dir.path().join("b.md");
    std::fs::write(&a, NOTES).unwrap();
    std::fs::hard_link(&a, &b).unwrap();
    let inode = std::fs::metadata(&a).unwrap().ino();

    let run = reorder_write(&a, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    is_reordered_notes(&read(&a));
    assert_eq!(read(&a), read(&b), "the other link still sees the file");
    let meta = std::fs::metadata(&a).unwrap();
    assert_eq!(meta.ino(), inode);
    assert_eq!(meta.nlink(), 2);
}

#[test]
fn write_keeps_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.md");
    std::fs::write(&file, NOTES).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();

    let run = reorder_write(&file, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    is_reordered_notes(&read(&file));
    let mode = std::fs::metadata(&file).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o640, "{mode:o}");
}

/// Run as root (where the test can give the file away), the owner and group stay.
#[test]
fn write_keeps_the_owner() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.md");
    std::fs::write(&file, NOTES).unwrap();
    if std::os::unix::fs::chown(&file, Some(4321), Some(4322)).is_err() {
        eprintln!("skipped: not permitted to change a file's owner here");
        return;
    }
    let run = reorder_write(&file, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    is_reordered_notes(&read(&file));
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (4321, 4322));
}

/// Run as root with `setpriv` at hand: a user who may write a file of someone else's (mode
/// 0666 in a shared folder) but may not give a new file away rewrites it in place, and the
/// owner stays.
#[test]
fn write_keeps_an_owner_it_cannot_give_away() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.md");
    std::fs::write(&file, NOTES).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let owner = std::fs::metadata(&file).unwrap();
    let (uid, gid, inode) = (owner.uid(), owner.gid(), owner.ino());
    let nobody = "65534";
    let can_switch = uid == 0
        && Command::new("setpriv")
            .args([
                "--reuid",
                nobody,
                "--regid",
                nobody,
                "--clear-groups",
                "true",
            ])
            .status()
            .is_ok_and(|s| s.success());
    if !can_switch {
        eprintln!("skipped: needs root and setpriv to run segue as another user");
        return;
    }
    let run = finish(
        Command::new("setpriv")
            .args(["--reuid", nobody, "--regid", nobody, "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_segue"))
            .args(["reorder", "--tier", "0", "--scorer", "tier0", "--write"])
            .arg(&file)
            .env("NO_COLOR", "1")
            .env("SEGUE_MODELS_DIR", "/nonexistent/segue-models")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("setpriv runs"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("written in place"), "{}", run.stderr);
    is_reordered_notes(&read(&file));
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!((meta.uid(), meta.gid(), meta.ino()), (uid, gid, inode));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn read_only_files_need_force() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.md");
    std::fs::write(&file, NOTES).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();

    let run = reorder_write(&file, &[]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("read-only") && run.stderr.contains("--force"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&file), NOTES, "nothing written");

    let run = reorder_write(&file, &["--force"]);
    assert_eq!(run.code, 0, "{run:?}");
    is_reordered_notes(&read(&file));
    let mode = std::fs::metadata(&file).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o444, "still read-only: {mode:o}");
}

#[test]
fn a_byte_order_mark_is_kept_and_the_heading_stays_a_heading() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.md");
    let with_bom = format!("\u{feff}{NOTES}");
    std::fs::write(&file, &with_bom).unwrap();

    // The heading is a heading: `score` sees the four paragraphs only.
    let run = segue(&["score", "--tier", "0", file.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("4 sentences, 4 paragraphs"),
        "{}",
        run.stdout.lines().next().unwrap_or("")
    );

    let run = reorder_write(&file, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let bytes = std::fs::read(&file).unwrap();
    assert!(
        bytes.starts_with("\u{feff}# Notes\n\n".as_bytes()),
        "{:?}",
        String::from_utf8_lossy(&bytes[..bytes.len().min(40)])
    );
    is_reordered_notes(std::str::from_utf8(&bytes[3..]).unwrap());
}

#[test]
fn a_symlink_to_dev_zero_is_refused_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("zero.md");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let good = dir.path().join("good.md");
    std::fs::write(&good, NOTES).unwrap();

    let run = segue(&[
        "check",
        "--format",
        "json",
        link.to_str().unwrap(),
        good.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    // The other file is still checked and reported.
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let files = json["files"].as_array().expect("files");
    assert_eq!(files.len(), 2);
    assert!(files.iter().any(|f| f["score"].is_number()), "{json}");

    let run = segue(&["reorder", link.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
}

#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.md");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let run = segue(&["check", fifo.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
}

#[test]
fn stdin_from_dev_zero_stops_at_the_limit() {
    let zero = std::fs::File::open("/dev/zero").expect("/dev/zero");
    let run = finish(
        command(&["check", "-"])
            .stdin(Stdio::from(zero))
            .spawn()
            .expect("segue runs"),
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("too large") && run.stderr.contains("8 MiB"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_oversize_file_names_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.md");
    std::fs::write(&file, vec![b'a'; 8 * 1024 * 1024 + 1]).unwrap();
    let run = segue(&["check", file.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("too large") && run.stderr.contains("the limit is 8 MiB"),
        "{}",
        run.stderr
    );
}

/// `segue check` reports the same findings at the same positions with or without a
/// byte-order mark: positions are counted as editors show the file, without the mark.
#[test]
fn check_counts_positions_without_the_byte_order_mark() {
    let dir = tempfile::tempdir().unwrap();
    // One line: every position is on the first line, where the mark stands.
    let text = "The cache stores vectors in memory. The cache evicts old vectors when the cache is full. \
Each cache entry holds vectors and a counter of hits. The cache counts the hits on the vectors of each entry. \
Penguins waddle across the Antarctic ice at dawn. The cache grows when new vectors are added to the cache. \
The cache shrinks when old vectors are evicted from the cache.\n";
    let plain = dir.path().join("plain.md");
    let marked = dir.path().join("marked.md");
    std::fs::write(&plain, text).unwrap();
    std::fs::write(&marked, format!("\u{feff}{text}")).unwrap();
    let findings = |path: &Path| {
        let run = segue(&[
            "check",
            "--tier",
            "0",
            "--sensitivity",
            "high",
            "--format",
            "json",
            path.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 1, "{run:?}");
        let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
        json["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| (f["code"].clone(), f["range"].clone(), f["related"].clone()))
            .collect::<Vec<_>>()
    };
    let want = findings(&plain);
    assert!(!want.is_empty());
    assert_eq!(findings(&marked), want);
}
