//! Property fuzzing of the frame reader (driver: [`crate::fuzzing`]), and the replay of the
//! hostile-input corpus in `tests/fuzz/corpus/` through both the frame reader and
//! [`crate::text::parse`].
//!
//! Inputs are read whole, in random chunk sizes, and from a stream that stays open after the
//! input (as an editor's pipe does while it waits for a reply). Properties: the reader never
//! panics; every body it yields is a JSON-RPC message that appears verbatim in the input; every
//! well-formed frame at a line start is delivered, in order, whatever junk or malformed frame
//! came before it; chunking does not change the bodies; and on an open stream the reader yields
//! every such frame before it waits for more input.

use super::{Frame, FrameReader, MAX_HEADER_BYTES, MAX_MESSAGE_BYTES};
use crate::fuzzing::fuzz;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use std::future::Future;
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, ReadBuf};

/// An input delivered in chunks of the given sizes (cycled), then either end of input or, for an
/// open stream, `Pending` for ever.
struct Chunked {
    data: Vec<u8>,
    at: usize,
    sizes: Vec<usize>,
    turn: usize,
    open: bool,
}

impl AsyncRead for Chunked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let left = self.data.len() - self.at;
        if left == 0 {
            return if self.open {
                Poll::Pending
            } else {
                Poll::Ready(Ok(()))
            };
        }
        let size = match self.sizes.get(self.turn % self.sizes.len().max(1)) {
            Some(&s) => s.max(1),
            None => left,
        };
        let n = size.min(left).min(buf.remaining());
        let at = self.at;
        buf.put_slice(&self.data[at..at + n]);
        self.at += n;
        self.turn += 1;
        Poll::Ready(Ok(()))
    }
}

/// What reading a whole input gave: the bodies, and whether the reader was left waiting for
/// more input on an open stream.
struct Read {
    bodies: Vec<Vec<u8>>,
    waiting: bool,
}

/// Reads frames from `data` in chunks of `sizes` until end of input or, on an open stream,
/// until the reader waits for input that will never come. Every chunk is ready at once, so the
/// reader returns `Pending` only when it needs bytes past the end of `data`.
fn read(data: &[u8], sizes: &[usize], open: bool) -> Read {
    let mut reader = FrameReader::new(Chunked {
        data: data.to_vec(),
        at: 0,
        sizes: sizes.to_vec(),
        turn: 0,
        open,
    });
    let mut cx = Context::from_waker(Waker::noop());
    let mut bodies = Vec::new();
    loop {
        let step = {
            let mut next = pin!(reader.next());
            next.as_mut().poll(&mut cx)
        };
        match step {
            Poll::Pending => {
                return Read {
                    bodies,
                    waiting: true,
                }
            }
            Poll::Ready(Err(e)) => panic!("an in-memory read failed: {e}"),
            Poll::Ready(Ok(None)) => {
                return Read {
                    bodies,
                    waiting: false,
                }
            }
            Poll::Ready(Ok(Some(Frame::Body(b)))) => bodies.push(b),
            Poll::Ready(Ok(Some(Frame::Dropped(_)))) => {}
        }
    }
}

/// Whether `needle` occurs in `hay`.
fn occurs(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// Every body is a JSON-RPC message (an object with `"jsonrpc"`) that appears in `input`.
fn bodies_come_from(input: &[u8], bodies: &[Vec<u8>]) -> Result<(), TestCaseError> {
    for body in bodies {
        prop_assert!(
            occurs(input, body),
            "body not in the input: {:?}",
            shown(body)
        );
        let value: serde_json::Value = serde_json::from_slice(body)
            .map_err(|e| TestCaseError::fail(format!("body is not JSON ({e})")))?;
        prop_assert!(value.get("jsonrpc").is_some(), "not JSON-RPC: {value}");
    }
    Ok(())
}

fn shown(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether `want` is a subsequence of `got`.
fn in_order(want: &[Vec<u8>], got: &[Vec<u8>]) -> bool {
    let mut got = got.iter();
    want.iter().all(|w| got.any(|g| g == w))
}

/// A well-formed frame: its bytes and its body.
#[derive(Debug, Clone)]
struct Good {
    bytes: Vec<u8>,
    body: Vec<u8>,
}

/// A JSON-RPC body with a unique id and an arbitrary string parameter.
fn body(id: u32, text: &str) -> Vec<u8> {
    serde_json::json!({"jsonrpc": "2.0", "method": "fuzz/m", "params": {"id": id, "t": text}})
        .to_string()
        .into_bytes()
}

/// How a header block is written: the name's spelling, the line end, extra headers and
/// padding around the value.
#[derive(Debug, Clone)]
struct Style {
    name: &'static str,
    eol: &'static str,
    extra: bool,
    pad: &'static str,
}

fn style() -> impl Strategy<Value = Style> {
    (
        select(vec![
            "Content-Length",
            "content-length",
            "CONTENT-LENGTH",
            "Content-length",
        ]),
        select(vec!["\r\n", "\n"]),
        any::<bool>(),
        select(vec!["", " ", "  ", "\t"]),
    )
        .prop_map(|(name, eol, extra, pad)| Style {
            name,
            eol,
            extra,
            pad,
        })
}

fn header(s: &Style, length: &str) -> Vec<u8> {
    let mut out = String::new();
    if s.extra {
        out.push_str("Content-Type: application/vscode-jsonrpc; charset=utf-8");
        out.push_str(s.eol);
    }
    out.push_str(&format!(
        "{}:{}{}{}{}{}",
        s.name, s.pad, length, s.pad, s.eol, s.eol
    ));
    out.into_bytes()
}

fn good(id: u32) -> impl Strategy<Value = Good> {
    (style(), "\\PC{0,40}").prop_map(move |(s, text)| {
        let body = body(id, &text);
        let bytes = [header(&s, &body.len().to_string()), body.clone()].concat();
        Good { bytes, body }
    })
}

/// A length value that is not a usable `Content-Length`.
fn bad_length() -> impl Strategy<Value = String> {
    prop_oneof![
        select(vec![
            "abc".to_string(),
            "-5".to_string(),
            "+2".to_string(),
            "".to_string(),
            "0x10".to_string(),
            "5x".to_string(),
            "99999999999999999999".to_string(),
            "184467440737095516160".to_string(),
            (MAX_MESSAGE_BYTES + 1).to_string(),
            "1 2".to_string(),
        ]),
        "[^\r\n]{0,12}",
    ]
}

/// Input that is not one well-formed frame (or is one whose body is not JSON-RPC).
fn bad(id: u32) -> BoxedStrategy<Vec<u8>> {
    let note = body(id, "bad");
    let n = note.len();
    let note2 = note.clone();
    let note3 = note.clone();
    let note4 = note.clone();
    let note5 = note.clone();
    prop_oneof![
        // Arbitrary bytes.
        vec(any::<u8>(), 0..200),
        // Printable junk, with line ends.
        "[ -~\r\n]{0,120}".prop_map(String::into_bytes),
        // A bad Content-Length, with the body that came with it.
        (style(), bad_length()).prop_map(move |(s, len)| [header(&s, &len), note.clone()].concat()),
        // Two lengths that disagree.
        (style(), 1usize..50).prop_map(move |(s, d)| {
            let mut h = format!("Content-Length: {}{}", n + d, s.eol).into_bytes();
            h.extend(header(&s, &n.to_string()));
            [h, note2.clone()].concat()
        }),
        // A body shorter or longer than declared, or cut off.
        (style(), 1usize..200, any::<bool>()).prop_map(move |(s, d, longer)| {
            let len = if longer { n + d } else { n.saturating_sub(d) };
            [header(&s, &len.to_string()), note3.clone()].concat()
        }),
        (style(), 0usize..60).prop_map(move |(s, cut)| {
            let whole = [header(&s, &n.to_string()), note4.clone()].concat();
            let keep = whole.len().saturating_sub(cut + 1);
            whole[..keep].to_vec()
        }),
        // A header line without a colon, a header with no end, a body that is not JSON-RPC.
        style().prop_map(move |s| {
            let mut h = format!("{}: {}{}nonsense{}{}", s.name, n, s.eol, s.eol, s.eol);
            h.push_str(&shown(&note5));
            h.into_bytes()
        }),
        Just(vec![b'x'; MAX_HEADER_BYTES + 10]),
        (style(), "[ -~]{0,30}").prop_map(|(s, t)| {
            let b = format!("{{\"hello\":{t:?}}}");
            [header(&s, &b.len().to_string()), b.into_bytes()].concat()
        }),
    ]
    .boxed()
}

/// One piece of a generated stream.
#[derive(Debug, Clone)]
enum Piece {
    Good(Good),
    /// Bad input, and the line end (or none) after it.
    Bad(Vec<u8>, &'static str),
}

fn pieces() -> impl Strategy<Value = Vec<Piece>> {
    vec(
        (any::<u32>(), any::<bool>(), select(vec!["", "\n", "\r\n"])),
        0..8,
    )
    .prop_flat_map(|specs| {
        specs
            .into_iter()
            .enumerate()
            .map(|(i, (_, is_good, eol))| {
                let id = i as u32;
                if is_good {
                    good(id).prop_map(Piece::Good).boxed()
                } else {
                    bad(1000 + id).prop_map(move |b| Piece::Bad(b, eol)).boxed()
                }
            })
            .collect::<Vec<_>>()
    })
}

/// The stream of `pieces`, and the bodies of the good frames that start a line.
fn assemble(pieces: &[Piece]) -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Good(g) => {
                if input.is_empty() || input.ends_with(b"\n") {
                    expected.push(g.body.clone());
                }
                input.extend_from_slice(&g.bytes);
            }
            Piece::Bad(b, eol) => {
                input.extend_from_slice(b);
                input.extend_from_slice(eol.as_bytes());
            }
        }
    }
    (input, expected)
}

fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![Just(vec![]), vec(1usize..40, 1..6), vec(1usize..4, 1..3)]
}

#[test]
fn fuzz_frames_arbitrary_bytes() {
    fuzz(
        "frames_arbitrary_bytes",
        file!(),
        (vec(any::<u8>(), 0..1500), chunk_sizes()),
        |(input, sizes)| {
            for open in [false, true] {
                let got = read(&input, &sizes, open);
                bodies_come_from(&input, &got.bodies)?;
                // At end of input the reader stops; on an open stream it waits.
                prop_assert_eq!(got.waiting, open);
            }
            Ok(())
        },
    );
}

#[test]
fn fuzz_frames_after_malformed_input() {
    fuzz(
        "frames_after_malformed_input",
        file!(),
        (pieces(), chunk_sizes()),
        |(pieces, sizes)| {
            let (input, expected) = assemble(&pieces);
            let whole = read(&input, &[], false);
            bodies_come_from(&input, &whole.bodies)?;
            prop_assert!(
                in_order(&expected, &whole.bodies),
                "a well-formed frame was lost:\nexpected {:?}\ngot {:?}\ninput {:?}",
                expected.iter().map(|b| shown(b)).collect::<Vec<_>>(),
                whole.bodies.iter().map(|b| shown(b)).collect::<Vec<_>>(),
                shown(&input)
            );
            let chunked = read(&input, &sizes, false);
            prop_assert_eq!(
                &chunked.bodies,
                &whole.bodies,
                "chunking changed the bodies"
            );
            // On an open stream, a final good frame is read without waiting for more input.
            let last = body(u32::MAX, "last");
            let tail = [
                format!("Content-Length: {}\r\n\r\n", last.len()).into_bytes(),
                last.clone(),
            ]
            .concat();
            let sep: &[u8] = if input.is_empty() || input.ends_with(b"\n") {
                b""
            } else {
                b"\r\n"
            };
            let open_input = [input.as_slice(), sep, tail.as_slice()].concat();
            let open = read(&open_input, &sizes, true);
            prop_assert!(
                open.bodies.last() == Some(&last),
                "the last frame was not read on an open stream: {:?}",
                shown(&open_input)
            );
            Ok(())
        },
    );
}

/// The corpus of hostile inputs (`tests/fuzz/corpus/`), with the bytes of each file.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fuzz/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p
                .file_name()
                .map_or_else(String::new, |n| shown(n.as_encoded_bytes()));
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (name, bytes)
        })
        .collect()
}

/// Every corpus file goes through the frame reader (whole, in small chunks, and on an open
/// stream followed by a good frame) and through the parser of every format.
#[test]
fn corpus_replays_through_the_frame_reader_and_the_parsers() {
    let files = corpus();
    assert!(
        files.len() >= 10,
        "the corpus is missing: {} files",
        files.len()
    );
    let last = body(7, "after the corpus file");
    let tail = [
        format!("Content-Length: {}\r\n\r\n", last.len()).into_bytes(),
        last.clone(),
    ]
    .concat();
    for (name, bytes) in &files {
        for sizes in [vec![], vec![1], vec![7, 3]] {
            let got = read(bytes, &sizes, false);
            if let Err(e) = bodies_come_from(bytes, &got.bodies) {
                panic!("{name}: {e}");
            }
        }
        let open = [bytes.as_slice(), b"\r\n", tail.as_slice()].concat();
        assert_eq!(
            read(&open, &[5], true).bodies.last(),
            Some(&last),
            "{name}: the frame after it was not read"
        );
        let text = String::from_utf8_lossy(bytes);
        for format in crate::text::Format::ALL {
            crate::text::test_support::check_spans(&text, format);
        }
    }
}

/// Inputs too big to commit, generated: a 1 MB single line of text and a header that never ends.
#[test]
fn huge_inputs_replay_through_the_frame_reader_and_the_parsers() {
    let line = "Segue reads every word of this line without a break. ".repeat(20_000);
    for format in crate::text::Format::ALL {
        crate::text::test_support::check_spans(&line, format);
    }
    let got = read(line.as_bytes(), &[], false);
    assert!(got.bodies.is_empty());
    let last = body(1, "x");
    let input = [
        line.as_bytes(),
        b"\r\n",
        format!("Content-Length: {}\r\n\r\n", last.len()).as_bytes(),
        &last,
    ]
    .concat();
    assert_eq!(read(&input, &[4096], true).bodies, vec![last]);
}
