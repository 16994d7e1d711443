//! Reading the files and standard input that Segue checks, with bounds: regular files only
//! (devices, FIFOs and sockets are refused before they are opened), at most [`MAX_FILE_BYTES`]
//! read from any input (checked while reading, so an endless input costs no more than the
//! limit), and text only (UTF-8 without NUL bytes). A byte-order mark stays in the text; the
//! parsers skip it ([`crate::text::blocks`]).

use sha2::{Digest, Sha256};
use std::fs::Metadata;
use std::io::Read;
use std::path::Path;
use std::string::FromUtf8Error;
use std::time::SystemTime;

/// Largest input checked, in bytes (files and standard input).
pub const MAX_FILE_BYTES: usize = 8 * 1024 * 1024;

const MIB: f64 = 1_048_576.0;

/// Why an input was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The operating system refused (missing file, no permission, …).
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// A device, FIFO, socket or folder: only regular files are read.
    #[error("not a regular file ({0}); not checked")]
    NotRegular(&'static str),
    /// More than [`MAX_FILE_BYTES`]; `size` when known (a regular file's length).
    #[error(
        "file is too large to check ({}; the limit is {} MiB)",
        size.map_or_else(
            || format!("more than {} MiB", MAX_FILE_BYTES / 1_048_576),
            |s| format!("{:.1} MiB", s as f64 / MIB)
        ),
        MAX_FILE_BYTES / 1_048_576
    )]
    TooLarge {
        /// The file's size in bytes, when known before reading.
        size: Option<u64>,
    },
    /// NUL bytes among the first 8 KiB.
    #[error("file looks binary (it contains NUL bytes); not checked")]
    Binary,
    /// Not UTF-8 and no encoding declared or given; the offset of the first bad byte.
    #[error(
        "file is not valid UTF-8 (first bad byte at offset {0}) and declares no encoding; not \
         checked (`--encoding latin1`, `latin9` or `cp1252` reads such files in that encoding)"
    )]
    NotUtf8(usize),
}

/// What a file held when it was read: enough to tell, before writing it back, whether it
/// changed since (the CLI's `--write` checks it before replacing a file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Size in bytes.
    pub len: u64,
    /// Last modification time, where the platform has one.
    pub modified: Option<SystemTime>,
    /// SHA-256 of the bytes read.
    pub hash: [u8; 32],
    /// Device and inode: which file was read (Unix).
    pub identity: Option<(u64, u64)>,
}

impl Snapshot {
    /// The snapshot of a file with metadata `meta` whose contents are `bytes`.
    pub fn of(meta: &Metadata, bytes: &[u8]) -> Snapshot {
        Snapshot {
            len: meta.len(),
            modified: meta.modified().ok(),
            hash: Sha256::digest(bytes).into(),
            identity: identity(meta),
        }
    }

    /// What differs between the snapshot taken when reading (`self`) and `now`, if anything:
    /// "its size", "its modification time", "its contents" or "it is another file".
    pub fn difference(&self, now: &Snapshot) -> Option<&'static str> {
        if self.identity != now.identity {
            Some("it is another file now")
        } else if self.len != now.len {
            Some("its size changed")
        } else if self.modified != now.modified {
            Some("its modification time changed")
        } else if self.hash != now.hash {
            Some("its contents changed")
        } else {
            None
        }
    }
}

#[cfg(unix)]
fn identity(meta: &Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_: &Metadata) -> Option<(u64, u64)> {
    None
}

/// A file's text and what it held when read.
#[derive(Debug, Clone)]
pub struct FileText {
    /// The text, byte-order mark included when there is one.
    pub text: String,
    /// The encoding the file was read in, and is written back in.
    pub encoding: Encoding,
    /// Size, time and hash when read.
    pub snapshot: Snapshot,
}

/// The encoding of a file Segue reads: UTF-8; the 8-bit encoding a LaTeX file declares with
/// `\usepackage[latin1]{inputenc}` or `[latin9]` ([`declared_encoding`]); or, for a file that is
/// neither, the 8-bit encoding the user names (`segue check --encoding latin1`). In an 8-bit
/// encoding every byte is one character and every character one byte, so a line's characters
/// are its bytes, and a permutation of the text's units encodes back to a permutation of the
/// file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// UTF-8 (the default; what every format but declared LaTeX is read as).
    #[default]
    Utf8,
    /// ISO 8859-1: byte `b` is the character `U+00bb`.
    Latin1,
    /// ISO 8859-15: ISO 8859-1 with the eight characters of [`LATIN9`] in place of others.
    Latin9,
    /// Windows-1252: ISO 8859-1 with the printable characters of [`WINDOWS_1252`] (curly quotes,
    /// dashes, the euro sign, …) in place of the C1 controls at `0x80`–`0x9f`. The five bytes it
    /// leaves undefined read as the C1 controls they are in ISO 8859-1, so every file decodes and
    /// encodes back to the same bytes.
    Windows1252,
}

/// The bytes at which ISO 8859-15 differs from ISO 8859-1, and its characters there.
const LATIN9: [(u8, char); 8] = [
    (0xA4, '€'),
    (0xA6, 'Š'),
    (0xA8, 'š'),
    (0xB4, 'Ž'),
    (0xB8, 'ž'),
    (0xBC, 'Œ'),
    (0xBD, 'œ'),
    (0xBE, 'Ÿ'),
];

/// The bytes at which Windows-1252 differs from ISO 8859-1, and its characters there.
const WINDOWS_1252: [(u8, char); 27] = [
    (0x80, '€'),
    (0x82, '‚'),
    (0x83, 'ƒ'),
    (0x84, '„'),
    (0x85, '…'),
    (0x86, '†'),
    (0x87, '‡'),
    (0x88, 'ˆ'),
    (0x89, '‰'),
    (0x8A, 'Š'),
    (0x8B, '‹'),
    (0x8C, 'Œ'),
    (0x8E, 'Ž'),
    (0x91, '\u{2018}'),
    (0x92, '\u{2019}'),
    (0x93, '\u{201C}'),
    (0x94, '\u{201D}'),
    (0x95, '•'),
    (0x96, '–'),
    (0x97, '—'),
    (0x98, '˜'),
    (0x99, '™'),
    (0x9A, 'š'),
    (0x9B, '›'),
    (0x9C, 'œ'),
    (0x9E, 'ž'),
    (0x9F, 'Ÿ'),
];

impl Encoding {
    /// Where this 8-bit encoding differs from ISO 8859-1 (nowhere for UTF-8 and Latin-1).
    fn differences(self) -> &'static [(u8, char)] {
        match self {
            Encoding::Utf8 | Encoding::Latin1 => &[],
            Encoding::Latin9 => &LATIN9,
            Encoding::Windows1252 => &WINDOWS_1252,
        }
    }

    /// The text that `bytes` stand for in this 8-bit encoding (UTF-8 is decoded elsewhere).
    fn decode(self, bytes: &[u8]) -> String {
        let differences = self.differences();
        bytes
            .iter()
            .map(|&b| {
                differences
                    .iter()
                    .find(|&&(at, _)| at == b)
                    .map_or(char::from(b), |&(_, c)| c)
            })
            .collect()
    }

    /// `text` as bytes in this encoding; `None` when a character has no byte in it.
    pub fn encode(self, text: &str) -> Option<Vec<u8>> {
        if self == Encoding::Utf8 {
            return Some(text.as_bytes().to_vec());
        }
        let differences = self.differences();
        text.chars()
            .map(|c| match differences.iter().find(|&&(_, d)| d == c) {
                Some(&(b, _)) => Some(b),
                None => u8::try_from(u32::from(c))
                    .ok()
                    .filter(|b| !differences.iter().any(|&(at, _)| at == *b)),
            })
            .collect()
    }

    /// The encoding's name, as `inputenc` spells it (`cp1252` for Windows-1252).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf8",
            Encoding::Latin1 => "latin1",
            Encoding::Latin9 => "latin9",
            Encoding::Windows1252 => "cp1252",
        }
    }
}

/// How far into a file the `inputenc` declaration is looked for: the preamble.
const PREAMBLE_BYTES: usize = 64 * 1024;

/// The 8-bit encoding that a LaTeX file declares in its preamble with
/// `\usepackage[latin1]{inputenc}` or `\usepackage[latin9]{inputenc}` (options may list others
/// before or after it), if any.
fn declared_encoding(bytes: &[u8]) -> Option<Encoding> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(PREAMBLE_BYTES)]);
    head.match_indices("{inputenc}").find_map(|(at, _)| {
        let before = &head[..at];
        let options = before.strip_suffix(']')?;
        let open = options.rfind('[')?;
        before[..open]
            .trim_end()
            .ends_with("\\usepackage")
            .then_some(())?;
        options[open + 1..].split(',').find_map(|o| match o.trim() {
            "latin1" => Some(Encoding::Latin1),
            "latin9" => Some(Encoding::Latin9),
            _ => None,
        })
    })
}

/// Reads the regular file at `path` (following symlinks) as text: UTF-8, or the 8-bit encoding
/// a LaTeX preamble declares ([`decode_file`]).
pub fn read_file(path: &Path) -> Result<FileText, ReadError> {
    read_file_in(path, None)
}

/// Reads the regular file at `path` as [`read_file`] does, reading a file that is neither UTF-8
/// nor declares an encoding in `fallback`, when given ([`decode_file_in`]).
pub fn read_file_in(path: &Path, fallback: Option<Encoding>) -> Result<FileText, ReadError> {
    // Look before opening: opening a FIFO waits for a writer, and a device may never end.
    let meta = std::fs::metadata(path)?;
    regular(&meta)?;
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(ReadError::TooLarge {
            size: Some(meta.len()),
        });
    }
    let mut file = std::fs::File::open(path)?;
    // What was opened (the path may have been replaced in between).
    let meta = file.metadata()?;
    regular(&meta)?;
    let bytes = read_bounded(&mut file, meta.len())?;
    let snapshot = Snapshot::of(&meta, &bytes);
    let (text, encoding) = decode_file_in(bytes, fallback)?;
    Ok(FileText {
        text,
        encoding,
        snapshot,
    })
}

/// Decodes a file's bytes as [`read_file`] does: UTF-8 text (see [`read_text`]), or, when they
/// are not UTF-8, in the 8-bit encoding a LaTeX preamble declares.
pub fn decode_file(bytes: Vec<u8>) -> Result<(String, Encoding), ReadError> {
    decode_file_in(bytes, None)
}

/// Decodes a file's bytes as [`decode_file`] does, and bytes that are neither UTF-8 nor declare
/// an encoding in `fallback` when there is one. UTF-8 and a declaration win over the fallback:
/// a folder of UTF-8 files with a few old 8-bit ones reads right with one option.
pub fn decode_file_in(
    bytes: Vec<u8>,
    fallback: Option<Encoding>,
) -> Result<(String, Encoding), ReadError> {
    Ok(match text_or_bytes(bytes)? {
        Ok(text) => (text, Encoding::Utf8),
        // Only a file that is not UTF-8 is looked at for a declared encoding.
        Err(not_utf8) => {
            match declared_encoding(not_utf8.as_bytes())
                .or(fallback.filter(|&e| e != Encoding::Utf8))
            {
                Some(encoding) => (encoding.decode(not_utf8.as_bytes()), encoding),
                None => return Err(ReadError::NotUtf8(not_utf8.utf8_error().valid_up_to())),
            }
        }
    })
}

/// Reads standard input as text, at most [`MAX_FILE_BYTES`].
pub fn read_stdin() -> Result<String, ReadError> {
    read_text(read_bounded(&mut std::io::stdin().lock(), 0)?)
}

/// Reads standard input as a document's text, as [`decode_file_in`] reads a file's bytes.
pub fn read_stdin_in(fallback: Option<Encoding>) -> Result<String, ReadError> {
    let bytes = read_bounded(&mut std::io::stdin().lock(), 0)?;
    decode_file_in(bytes, fallback).map(|(text, _)| text)
}

/// Reads at most [`MAX_FILE_BYTES`] from `input` (one byte more tells that there is more);
/// `expected` sizes the buffer.
pub fn read_bounded(input: &mut impl Read, expected: u64) -> Result<Vec<u8>, ReadError> {
    let limit = MAX_FILE_BYTES as u64;
    let capacity = usize::try_from(expected.min(limit + 1)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    input.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(ReadError::TooLarge { size: None });
    }
    Ok(bytes)
}

/// Refuses anything but a regular file, naming what it is.
fn regular(meta: &Metadata) -> Result<(), ReadError> {
    if meta.is_file() {
        return Ok(());
    }
    Err(ReadError::NotRegular(kind(meta)))
}

#[cfg(unix)]
fn kind(meta: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn kind(meta: &Metadata) -> &'static str {
    if meta.is_dir() {
        "a folder"
    } else {
        "a special file"
    }
}

/// Checks that `bytes` are text: at most [`MAX_FILE_BYTES`], no NUL byte among the first
/// 8 KiB, valid UTF-8.
pub fn read_text(bytes: Vec<u8>) -> Result<String, ReadError> {
    text_or_bytes(bytes)?.map_err(|e| ReadError::NotUtf8(e.utf8_error().valid_up_to()))
}

/// Checks size and NUL bytes as [`read_text`] does, then decodes UTF-8, handing the bytes back
/// (inside the error) when they are not UTF-8.
fn text_or_bytes(bytes: Vec<u8>) -> Result<Result<String, FromUtf8Error>, ReadError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(ReadError::TooLarge {
            size: Some(bytes.len() as u64),
        });
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ReadError::Binary);
    }
    Ok(String::from_utf8(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_latex_file_that_declares_an_8_bit_encoding_is_read_in_it() {
        // As metapost's manual (latin1) and covington's (latin9) declare theirs.
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("manual.tex");
        let mut bytes = b"\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[latin9]{inputenc}\n".to_vec();
        bytes.extend_from_slice(b"J\xfcrgen paid 5 \xa4 for \xbduvre.\n");
        std::fs::write(&path, &bytes).expect("write");
        let file = read_file(&path).expect("read");
        assert_eq!(file.encoding, Encoding::Latin9);
        assert!(
            file.text.ends_with("Jürgen paid 5 € for œuvre.\n"),
            "{}",
            file.text
        );
        assert_eq!(
            file.encoding.encode(&file.text).as_deref(),
            Some(&bytes[..])
        );
        // Latin-1 reads 0xA4 as the currency sign.
        let latin1 = b"\\usepackage[utf8x,latin1]{inputenc}\nGr\xfc\xdfe \xa4.\n".to_vec();
        assert_eq!(declared_encoding(&latin1), Some(Encoding::Latin1));
        let body = latin1.split(|&b| b == b'\n').nth(1).expect("a second line");
        assert_eq!(Encoding::Latin1.decode(body), "Grüße ¤.");
        assert_eq!(Encoding::Latin1.encode("€"), None);
        assert_eq!(Encoding::Latin9.encode("¤"), None);
        // Without a declaration, or declared in a comment's words only, the file is refused.
        for head in [
            &b""[..],
            b"% inputenc latin1\n",
            b"\\usepackage{inputenc}\n",
        ] {
            let path = dir.path().join("plain.tex");
            let mut bytes = head.to_vec();
            bytes.extend_from_slice(b"Gr\xfc\xdfe.\n");
            std::fs::write(&path, &bytes).expect("write");
            assert!(matches!(read_file(&path), Err(ReadError::NotUtf8(_))));
        }
        // A UTF-8 file that declares latin1 is read as the UTF-8 it is.
        std::fs::write(&path, "\\usepackage[latin1]{inputenc}\nGrüße.\n").expect("write");
        assert_eq!(read_file(&path).expect("read").encoding, Encoding::Utf8);
    }

    #[test]
    fn every_8_bit_encoding_reads_and_writes_back_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        for encoding in [Encoding::Latin1, Encoding::Latin9, Encoding::Windows1252] {
            let text = encoding.decode(&all);
            assert_eq!(
                text.chars().count(),
                256,
                "{encoding:?}: one character a byte"
            );
            assert_eq!(
                encoding.encode(&text).as_deref(),
                Some(&all[..]),
                "{encoding:?}"
            );
        }
        assert_eq!(
            Encoding::Windows1252.decode(b"\x93Quoted\x94 \x96 5 \x80"),
            "\u{201C}Quoted\u{201D} \u{2013} 5 \u{20AC}"
        );
        // Undefined in Windows-1252, 0x81 stays the C1 control it is in Latin-1.
        assert_eq!(Encoding::Windows1252.decode(b"\x81"), "\u{81}");
        assert_eq!(Encoding::Windows1252.encode("\u{93}"), None);
    }

    #[test]
    fn a_file_without_a_declaration_is_read_in_the_fallback_and_utf_8_wins() {
        let latin1 = b"Gr\xfc\xdfe.\n".to_vec();
        assert!(matches!(
            decode_file_in(latin1.clone(), None),
            Err(ReadError::NotUtf8(2))
        ));
        let (text, encoding) =
            decode_file_in(latin1, Some(Encoding::Latin1)).expect("read as latin1");
        assert_eq!((text.as_str(), encoding), ("Grüße.\n", Encoding::Latin1));
        // UTF-8 text stays UTF-8, and a LaTeX declaration wins over the fallback.
        let (text, encoding) =
            decode_file_in("Grüße.\n".into(), Some(Encoding::Latin1)).expect("utf-8");
        assert_eq!((text.as_str(), encoding), ("Grüße.\n", Encoding::Utf8));
        let declared = b"\\usepackage[latin9]{inputenc}\n\xa4\n".to_vec();
        let (text, encoding) =
            decode_file_in(declared, Some(Encoding::Windows1252)).expect("latin9");
        assert_eq!(encoding, Encoding::Latin9);
        assert!(text.ends_with("€\n"), "{text}");
    }

    #[test]
    fn refuses_binary_huge_and_non_utf8() {
        assert!(matches!(
            read_text(b"a\0b".to_vec()),
            Err(ReadError::Binary)
        ));
        let huge = read_text(vec![b'a'; MAX_FILE_BYTES + 1]).unwrap_err();
        assert!(huge.to_string().contains("the limit is 8 MiB"), "{huge}");
        assert!(matches!(
            read_text(vec![b'a', 0xff, b'b']),
            Err(ReadError::NotUtf8(1))
        ));
        assert_eq!(read_text(b"ok".to_vec()).unwrap(), "ok");
    }

    /// An endless input is read up to the limit and one byte more, never further.
    #[test]
    fn an_endless_input_stops_one_byte_past_the_limit() {
        let mut endless = std::io::repeat(b'a');
        let err = read_bounded(&mut endless, 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "file is too large to check (more than 8 MiB; the limit is 8 MiB)"
        );
        let mut exact = std::io::repeat(b'a').take(MAX_FILE_BYTES as u64);
        assert_eq!(
            read_bounded(&mut exact, 0).unwrap().len(),
            MAX_FILE_BYTES,
            "the limit itself is allowed"
        );
    }

    #[test]
    fn an_oversize_file_is_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.md");
        let file = std::fs::File::create(&path).unwrap();
        // Sparse: 9 MiB of length, no data written.
        file.set_len(9 * 1024 * 1024).unwrap();
        let err = read_file(&path).unwrap_err();
        assert_eq!(
            err.to_string(),
            "file is too large to check (9.0 MiB; the limit is 8 MiB)"
        );
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_folders_are_not_regular_files() {
        let err = read_file(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a regular file (a character device); not checked"
        );
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_file(dir.path()),
            Err(ReadError::NotRegular("a folder"))
        ));
    }

    #[test]
    fn a_snapshot_tells_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "one\n").unwrap();
        let read = read_file(&path).unwrap();
        assert_eq!(read.text, "one\n");
        let again = read_file(&path).unwrap();
        assert_eq!(read.snapshot.difference(&again.snapshot), None);
        let mut other = again.snapshot.clone();
        other.hash[0] ^= 1;
        assert_eq!(
            read.snapshot.difference(&other),
            Some("its contents changed")
        );
        other.len += 1;
        assert_eq!(read.snapshot.difference(&other), Some("its size changed"));
    }
}
