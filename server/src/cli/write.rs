//! Writing new contents over a file that was read, for `segue reorder --write`, keeping what
//! makes the file the file.
//!
//! - A symlink is followed: its target is rewritten, in the target's own folder, and the link
//!   stays a link.
//! - A file with one link is replaced atomically: the new contents go to a temporary file in the
//!   same folder, which gets the file's owner, group and permission bits and is synced before it
//!   is renamed over the file. Readers see the old contents or the new, never a mix.
//! - A file with several hard links, or whose owner the temporary file cannot be given (only
//!   root may give a file away), is overwritten in place instead: the same inode, so every link,
//!   the owner and the permissions stay. This is not atomic against a crash in the middle of the
//!   write; when the write itself fails, the original bytes are written back.
//! - A read-only file (no write permission bit) is refused unless the caller forces it; forced,
//!   it stays read-only.
//! - Right before the rename (or the overwrite) the file is read again and compared with the
//!   [`Snapshot`] taken when it was read: which file it is, its size, its modification time and
//!   the SHA-256 of its contents. Any difference refuses the write and nothing is written, so a
//!   change made while the command ran (an editor's save, an appended line) is never lost.
//! - On Linux the rename itself closes the last gap: the new file and the old are *exchanged*
//!   atomically (`renameat2` with `RENAME_EXCHANGE`), and the file that comes out is compared
//!   with the snapshot once more; if it changed between the comparison and the exchange, the two
//!   are exchanged back, so the change stays at its path and the write is refused. Elsewhere, or
//!   on a file system that cannot exchange, a plain rename follows the comparison: a change made
//!   in the microseconds between the two is lost. (A program that keeps the old file open and
//!   writes to it after the exchange writes to the replaced file, as with any save by rename.)
//!
//! Extended attributes and ACLs are not copied to the temporary file.

use crate::input::read::{read_bounded, ReadError, Snapshot};
use std::fmt;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// How [`replace`] may write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Replace a read-only file too (it stays read-only).
    pub force: bool,
}

/// How a file was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// A temporary file renamed over it.
    Renamed,
    /// Overwritten in place, and why.
    InPlace(InPlaceReason),
}

/// Why a file was overwritten in place rather than replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InPlaceReason {
    /// It has this many hard links; a rename would split them.
    HardLinks(u64),
    /// A new file could not be given its owner and group.
    Owner,
}

impl fmt::Display for InPlaceReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InPlaceReason::HardLinks(n) => write!(f, "it has {n} hard links"),
            InPlaceReason::Owner => write!(f, "a new file could not be given its owner"),
        }
    }
}

/// Why a file was not (or not fully) written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The file is not what was read any more.
    #[error(
        "{} changed since it was read ({what}); nothing written: run the command again",
        path.display()
    )]
    Changed {
        /// The file as given.
        path: PathBuf,
        /// What differs.
        what: &'static str,
    },
    /// No write permission bit and no `force`.
    #[error(
        "{} is read-only; nothing written (--force replaces it anyway, and it stays read-only)",
        path.display()
    )]
    ReadOnly {
        /// The file as given.
        path: PathBuf,
    },
    /// Not a regular file (a folder, a device).
    #[error("{} is not a regular file; nothing written", path.display())]
    NotRegular {
        /// The file as given.
        path: PathBuf,
    },
    /// The file or the temporary file could not be created, written or renamed; the file is
    /// unchanged.
    #[error("cannot write {}: {error}; nothing written", path.display())]
    Io {
        /// The file (or folder) concerned.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The file changed between the last comparison and the exchange, and exchanging it back
    /// failed: the changed file is at `kept`, the new contents at `path`.
    #[error(
        "{} changed while it was being replaced and could not be put back ({error}); the changed \
         file is at {}",
        path.display(),
        kept.display()
    )]
    Stranded {
        /// The file as given.
        path: PathBuf,
        /// Where the changed file is.
        kept: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// Overwriting in place failed part way.
    #[error(
        "writing {} in place ({reason}) failed: {error}; {}",
        path.display(),
        if *restored { "its original contents were written back" } else { "it may be left partly written" }
    )]
    InPlace {
        /// The file as given.
        path: PathBuf,
        /// Why it was written in place.
        reason: InPlaceReason,
        /// What the operating system said.
        error: std::io::Error,
        /// Whether the original contents were written back.
        restored: bool,
    },
}

/// Writes `text` over the file at `path`, which held what `read` describes when it was read
/// (see the module documentation for what is kept and what is refused).
pub fn replace(
    path: &Path,
    text: &[u8],
    read: &Snapshot,
    options: WriteOptions,
) -> Result<Method, WriteError> {
    replace_hooked(path, text, read, options, &mut |_| {})
}

/// The moments of a write at which [`replace_hooked`] calls its hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moment {
    /// Right before the file is compared with what was read.
    Check,
    /// After that comparison, right before the new file takes the old one's place.
    Rename,
}

/// [`replace`], calling `hook` at each [`Moment`] (tests change the file there).
pub(crate) fn replace_hooked(
    path: &Path,
    text: &[u8],
    read: &Snapshot,
    options: WriteOptions,
    hook: &mut dyn FnMut(Moment),
) -> Result<Method, WriteError> {
    let mut before_check = || hook(Moment::Check);
    let io = |error| WriteError::Io {
        path: path.to_path_buf(),
        error,
    };
    // Follow symlinks: the target is what gets rewritten, in its own folder.
    let target = std::fs::canonicalize(path).map_err(io)?;
    let meta = std::fs::metadata(&target).map_err(io)?;
    if !meta.is_file() {
        return Err(WriteError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    if meta.permissions().readonly() && !options.force {
        return Err(WriteError::ReadOnly {
            path: path.to_path_buf(),
        });
    }
    if let Some(n) = hard_links(&meta) {
        let reason = InPlaceReason::HardLinks(n);
        return overwrite_in_place(path, &target, text, read, reason, &mut before_check);
    }
    let dir = target.parent().unwrap_or(Path::new("/"));
    let name = target
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let dir_error = |error| WriteError::Io {
        path: dir.to_path_buf(),
        error,
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".segue-tmp")
        .tempfile_in(dir)
        .map_err(dir_error)?;
    tmp.write_all(text).map_err(io)?;
    if !give_owner(tmp.as_file(), &meta) {
        drop(tmp);
        return overwrite_in_place(
            path,
            &target,
            text,
            read,
            InPlaceReason::Owner,
            &mut before_check,
        );
    }
    // After the owner: changing it may clear the set-user-ID bits.
    tmp.as_file()
        .set_permissions(meta.permissions())
        .map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    before_check();
    let mut current = File::open(&target).map_err(io)?;
    unchanged(path, &mut current, read)?;
    drop(current);
    hook(Moment::Rename);
    if exchange(tmp.path(), &target).map_err(io)? {
        // What stood at the path now stands at the temporary path: it must still be what was read.
        let out = File::open(tmp.path())
            .map_err(io)
            .and_then(|mut old| unchanged(path, &mut old, read));
        if let Err(refused) = out {
            // Put the changed file back; the new contents leave with the temporary file.
            if let Err(error) = exchange(tmp.path(), &target) {
                let kept = tmp.into_temp_path().keep().map_err(|e| io(e.error))?;
                return Err(WriteError::Stranded {
                    path: path.to_path_buf(),
                    kept,
                    error,
                });
            }
            return Err(refused);
        }
        // Dropping the temporary file removes the old contents from the temporary path.
        drop(tmp);
    } else {
        tmp.persist(&target).map_err(|e| io(e.error))?;
    }
    // Make the rename itself durable; a folder that cannot be synced is no reason to fail.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(Method::Renamed)
}

/// Exchanges the files at `a` and `b` atomically (`renameat2` with `RENAME_EXCHANGE`): `Ok(false)`
/// where the system or the file system cannot, and then nothing moved.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are NUL-terminated paths that live across the call; `AT_FDCWD` resolves them
    // as `rename` would.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if done == 0 {
        return Ok(true);
    }
    let error = std::io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP) => Ok(false),
        _ => Err(error),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Writes `text` to `path`, a file the command produces (an output, not a file it read): through
/// a temporary file in the same folder and a rename, following a symlink to its target and
/// keeping an existing file's permissions.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    if let Ok(meta) = std::fs::metadata(&target) {
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// Checks that `file` still holds what `read` describes; returns what it holds.
fn unchanged(path: &Path, file: &mut File, read: &Snapshot) -> Result<Vec<u8>, WriteError> {
    let io = |error| WriteError::Io {
        path: path.to_path_buf(),
        error,
    };
    let changed = |what| WriteError::Changed {
        path: path.to_path_buf(),
        what,
    };
    let meta = file.metadata().map_err(io)?;
    let bytes = match read_bounded(file, meta.len()) {
        Ok(bytes) => bytes,
        Err(ReadError::Io(e)) => return Err(io(e)),
        Err(_) => return Err(changed("it grew past the size limit")),
    };
    match read.difference(&Snapshot::of(&meta, &bytes)) {
        Some(what) => Err(changed(what)),
        None => Ok(bytes),
    }
}

/// Overwrites `target` in place after checking it is unchanged; writes the original back when
/// the write fails.
fn overwrite_in_place(
    path: &Path,
    target: &Path,
    text: &[u8],
    read: &Snapshot,
    reason: InPlaceReason,
    before_check: &mut dyn FnMut(),
) -> Result<Method, WriteError> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(target)
        .map_err(|error| WriteError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    before_check();
    let original = unchanged(path, &mut file, read)?;
    if let Err(error) = overwrite(&mut file, text) {
        let restored = overwrite(&mut file, &original).is_ok();
        return Err(WriteError::InPlace {
            path: path.to_path_buf(),
            reason,
            error,
            restored,
        });
    }
    Ok(Method::InPlace(reason))
}

fn overwrite(file: &mut File, bytes: &[u8]) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(0))?;
    file.write_all(bytes)?;
    file.set_len(bytes.len() as u64)?;
    file.sync_all()
}

/// The number of hard links, when there is more than one.
#[cfg(unix)]
fn hard_links(meta: &Metadata) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    Some(meta.nlink()).filter(|&n| n > 1)
}

#[cfg(not(unix))]
fn hard_links(_: &Metadata) -> Option<u64> {
    None
}

/// Gives `tmp` the owner and group of the file `meta` describes; false when not permitted.
#[cfg(unix)]
fn give_owner(tmp: &File, meta: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(mine) = tmp.metadata() else {
        return false;
    };
    if (mine.uid(), mine.gid()) == (meta.uid(), meta.gid()) {
        return true;
    }
    std::os::unix::fs::fchown(tmp, Some(meta.uid()), Some(meta.gid())).is_ok()
}

#[cfg(not(unix))]
fn give_owner(_: &File, _: &Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::read::read_file;

    fn file_with(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn entries(dir: &Path) -> usize {
        std::fs::read_dir(dir).unwrap().count()
    }

    #[test]
    fn replaces_an_unchanged_file() {
        let (dir, path) = file_with("one\n\ntwo\n");
        let read = read_file(&path).unwrap();
        let how = replace(
            &path,
            b"two\n\none\n",
            &read.snapshot,
            WriteOptions::default(),
        );
        assert_eq!(how.unwrap(), Method::Renamed);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n\none\n");
        assert_eq!(entries(dir.path()), 1, "no temporary file left");
    }

    /// Replaces `path` with two swapped paragraphs while a line is appended to it at the last
    /// moment, and returns the error that must follow.
    fn replace_after_an_append(path: &Path, snapshot: &Snapshot) -> WriteError {
        let mut append = |moment| {
            if moment == Moment::Check {
                let mut f = OpenOptions::new().append(true).open(path).unwrap();
                f.write_all(b"three\n").unwrap();
            }
        };
        replace_hooked(
            path,
            b"two\n\none\n",
            snapshot,
            WriteOptions::default(),
            &mut append,
        )
        .unwrap_err()
    }

    /// A line appended after the file was read, even at the last moment before the rename,
    /// refuses the write and survives it.
    #[test]
    fn a_change_after_reading_refuses_the_write() {
        let (dir, path) = file_with("one\n\ntwo\n");
        let read = read_file(&path).unwrap();
        let err = replace_after_an_append(&path, &read.snapshot);
        assert!(matches!(err, WriteError::Changed { .. }), "{err}");
        assert!(
            err.to_string().contains("changed since it was read"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "one\n\ntwo\nthree\n"
        );
        assert_eq!(entries(dir.path()), 1, "no temporary file left");
    }

    /// A change made after the last comparison, right before the new file takes the old one's
    /// place, is caught by the exchange: the changed file is put back and the write refused.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_change_between_the_check_and_the_rename_survives() {
        let (dir, path) = file_with("one\n\ntwo\n");
        let read = read_file(&path).unwrap();
        let mut appended = 0;
        let mut append = |moment: Moment| {
            if moment == Moment::Rename {
                let mut f = OpenOptions::new().append(true).open(&path).unwrap();
                f.write_all(b"three\n").unwrap();
                appended += 1;
            }
        };
        let err = replace_hooked(
            &path,
            b"two\n\none\n",
            &read.snapshot,
            WriteOptions::default(),
            &mut append,
        )
        .unwrap_err();
        assert_eq!(appended, 1);
        assert!(matches!(err, WriteError::Changed { .. }), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "one\n\ntwo\nthree\n"
        );
        assert_eq!(entries(dir.path()), 1, "no temporary file left");
        // A file replaced by another (an editor's save by rename) at that moment survives too.
        let read = read_file(&path).unwrap();
        let saved = dir.path().join("saved.tmp");
        let mut save = |moment: Moment| {
            if moment == Moment::Rename {
                std::fs::write(&saved, "saved\n").unwrap();
                std::fs::rename(&saved, &path).unwrap();
            }
        };
        let err = replace_hooked(
            &path,
            b"x\n",
            &read.snapshot,
            WriteOptions::default(),
            &mut save,
        )
        .unwrap_err();
        assert!(matches!(err, WriteError::Changed { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "saved\n");
        assert_eq!(entries(dir.path()), 1, "no temporary file left");
        // Unchanged, the exchange writes and leaves nothing behind.
        let read = read_file(&path).unwrap();
        let how = replace_hooked(
            &path,
            b"x\n",
            &read.snapshot,
            WriteOptions::default(),
            &mut |_| {},
        );
        assert_eq!(how.unwrap(), Method::Renamed);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "x\n");
        assert_eq!(entries(dir.path()), 1, "no temporary file left");
    }

    /// Same size, same modification time, other bytes: the hash tells.
    #[test]
    fn a_same_size_change_with_the_old_time_is_caught_by_the_hash() {
        let (_dir, path) = file_with("one\n");
        let read = read_file(&path).unwrap();
        let time = std::fs::metadata(&path).unwrap().modified().unwrap();
        let mut swap = |moment| {
            if moment == Moment::Check {
                std::fs::write(&path, "eno\n").unwrap();
                let f = OpenOptions::new().write(true).open(&path).unwrap();
                f.set_modified(time).unwrap();
            }
        };
        let err = replace_hooked(
            &path,
            b"xxx\n",
            &read.snapshot,
            WriteOptions::default(),
            &mut swap,
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                WriteError::Changed {
                    what: "its contents changed",
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "eno\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_change_to_a_hard_linked_file_refuses_the_in_place_write() {
        let (dir, path) = file_with("one\n\ntwo\n");
        std::fs::hard_link(&path, dir.path().join("b.md")).unwrap();
        let read = read_file(&path).unwrap();
        let err = replace_after_an_append(&path, &read.snapshot);
        assert!(matches!(err, WriteError::Changed { .. }), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "one\n\ntwo\nthree\n"
        );
        // Unchanged, the same file is written in place.
        let read = read_file(&path).unwrap();
        let how = replace(&path, b"x\n", &read.snapshot, WriteOptions::default()).unwrap();
        assert_eq!(how, Method::InPlace(InPlaceReason::HardLinks(2)));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("b.md")).unwrap(),
            "x\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn read_only_needs_force() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, path) = file_with("one\n");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let read = read_file(&path).unwrap();
        let err = replace(&path, b"two\n", &read.snapshot, WriteOptions::default()).unwrap_err();
        assert!(matches!(err, WriteError::ReadOnly { .. }), "{err}");
        assert!(err.to_string().contains("--force"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n");
        replace(
            &path,
            b"two\n",
            &read.snapshot,
            WriteOptions { force: true },
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o444);
    }
}
