//! `Content-Length` framing that resynchronises after malformed input.
//!
//! An LSP message is a header block (`Content-Length: N`, possibly other `name: value` headers,
//! each line ended by CRLF or a bare LF, then an empty line) and N bytes of JSON. Header names are
//! case-insensitive, as in HTTP. [`FrameReader`] yields the body of every well-formed frame whose
//! body is a JSON-RPC message, and reports each malformed frame once: a header block without a
//! usable `Content-Length` (missing, not plain digits, over [`MAX_MESSAGE_BYTES`], two that
//! disagree), a header line that is not `name: value`, no header end within [`MAX_HEADER_BYTES`],
//! or a body that is not JSON-RPC at its declared length (shorter or longer than declared).
//!
//! After a malformed frame the reader skips to the next *frame start*: `Content-Length`, a colon,
//! digits and a line end, anywhere in the input. A frame start never occurs inside valid JSON (the
//! name can only sit in a string, and a JSON string cannot hold a raw line break), so it is also
//! looked for inside a body that is still arriving: one there means the body was shorter than
//! declared, and the reader drops it at once instead of waiting for bytes that would swallow the
//! next messages.

use tokio::io::{AsyncRead, AsyncReadExt};
use tower_lsp_server::jsonrpc::{Request, Response};
use tracing::debug;

/// Largest header block read before it counts as malformed.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;
/// Largest message body accepted (an 8 MiB document, JSON-escaped, fits many times over).
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

const READ_CHUNK: usize = 64 * 1024;
/// The header that starts a frame, lowercase (matched case-insensitively).
const NAME: &[u8] = b"content-length";
/// How far past the header name a frame start may run before its line end.
const MAX_START_TAIL: usize = 64;

/// One step of the frame reader.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// The body of a well-formed frame: a JSON-RPC request, notification or response.
    Body(Vec<u8>),
    /// A malformed frame was dropped, and why.
    Dropped(String),
}

/// A header block at the start of the input, as far as it has arrived.
#[derive(Debug, PartialEq, Eq)]
enum Header {
    /// No empty line yet.
    Incomplete,
    /// Not a usable header block, and why.
    Malformed(String),
    /// `length` body bytes follow the `size` bytes of the header block.
    Complete { size: usize, length: usize },
}

/// Parses the header block at the start of `buf`.
fn parse_header(buf: &[u8]) -> Header {
    let mut length: Option<usize> = None;
    let mut at = 0;
    loop {
        let rest = buf.get(at..).unwrap_or_default();
        let Some(newline) = rest.iter().position(|&b| b == b'\n') else {
            return if buf.len() > MAX_HEADER_BYTES {
                Header::Malformed(format!("no end of header within {MAX_HEADER_BYTES} bytes"))
            } else {
                Header::Incomplete
            };
        };
        let raw = rest.get(..newline).unwrap_or_default();
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        at += newline + 1;
        if at > MAX_HEADER_BYTES {
            return Header::Malformed(format!("header block over {MAX_HEADER_BYTES} bytes"));
        }
        if line.is_empty() {
            return match length {
                Some(length) => Header::Complete { size: at, length },
                None => Header::Malformed("message header has no Content-Length".to_string()),
            };
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return Header::Malformed(format!("`{}` is not a header line", shown(line)));
        };
        let (name, value) = line.split_at(colon);
        let value = value.get(1..).unwrap_or_default();
        if name.is_empty() || !name.iter().copied().all(is_token) {
            return Header::Malformed(format!("`{}` is not a header line", shown(line)));
        }
        if name.eq_ignore_ascii_case(NAME) {
            let n = match parse_length(value) {
                Ok(n) => n,
                Err(why) => return Header::Malformed(why),
            };
            match length {
                Some(m) if m != n => {
                    return Header::Malformed(format!(
                        "two Content-Length headers disagree ({m} and {n})"
                    ))
                }
                _ => length = Some(n),
            }
        }
    }
}

/// A `Content-Length` value: plain ASCII digits (no sign), at most [`MAX_MESSAGE_BYTES`].
fn parse_length(value: &[u8]) -> Result<usize, String> {
    let digits = value.trim_ascii();
    let bad = || format!("bad Content-Length `{}`", shown(digits));
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let n = std::str::from_utf8(digits)
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .ok_or_else(|| format!("{}: too large", bad()))?;
    if n > MAX_MESSAGE_BYTES {
        return Err(format!(
            "message of {n} bytes is over the {MAX_MESSAGE_BYTES}-byte limit"
        ));
    }
    Ok(n)
}

/// Whether `b` may appear in a header name (an HTTP token character).
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A short, printable excerpt of raw input for a log line.
fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes.get(..40).unwrap_or(bytes));
    let mut out: String = text.escape_debug().collect();
    if bytes.len() > 40 {
        out.push('…');
    }
    out
}

/// Where the next frame start is.
#[derive(Debug, PartialEq, Eq)]
enum Start {
    /// A frame start begins here.
    Found(usize),
    /// The input ends inside what may be a frame start beginning here.
    Partial(usize),
    /// None; a header name cut off at the end of the input begins at or after this offset.
    Absent(usize),
}

/// The first frame start in `buf` at or after `from`: the header name (any case), optional
/// blanks, `:`, optional blanks, digits, optional blanks and a line end.
fn frame_start(buf: &[u8], from: usize) -> Start {
    let mut i = from;
    while i + NAME.len() <= buf.len() {
        let candidate = buf.get(i..i + NAME.len()).unwrap_or_default();
        if candidate.eq_ignore_ascii_case(NAME) {
            match start_tail(buf.get(i + NAME.len()..).unwrap_or_default()) {
                Some(true) => return Start::Found(i),
                None => return Start::Partial(i),
                Some(false) => {}
            }
        }
        i += 1;
    }
    Start::Absent(i.max(from))
}

/// Whether what follows a header name completes a frame start (`None`: cannot tell yet).
fn start_tail(rest: &[u8]) -> Option<bool> {
    #[derive(Clone, Copy)]
    enum At {
        Name,
        Colon,
        Digits,
        Blanks,
        Return,
    }
    let mut at = At::Name;
    for (i, &b) in rest.iter().enumerate() {
        if i > MAX_START_TAIL {
            return Some(false);
        }
        at = match (at, b) {
            (At::Name, b' ' | b'\t') => At::Name,
            (At::Name, b':') => At::Colon,
            (At::Colon, b' ' | b'\t') => At::Colon,
            (At::Colon | At::Digits, b'0'..=b'9') => At::Digits,
            (At::Digits | At::Blanks, b' ' | b'\t') => At::Blanks,
            (At::Digits | At::Blanks, b'\r') => At::Return,
            (At::Digits | At::Blanks | At::Return, b'\n') => return Some(true),
            _ => return Some(false),
        };
    }
    None
}

/// Whether `body` is a JSON-RPC message tower-lsp-server can decode; the parse error if not.
fn is_jsonrpc(body: &[u8]) -> Result<(), String> {
    match serde_json::from_slice::<Request>(body) {
        Ok(_) => Ok(()),
        Err(request_error) => match serde_json::from_slice::<Response>(body) {
            Ok(_) => Ok(()),
            Err(_) => Err(request_error.to_string()),
        },
    }
}

/// Reads frames from a byte stream, resynchronising after malformed ones.
pub struct FrameReader<R> {
    input: R,
    buf: Vec<u8>,
    /// Skipping to the next frame start after a malformed frame.
    resyncing: bool,
    /// Bytes skipped by the current resynchronisation.
    skipped: usize,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    /// A reader of `input`.
    pub fn new(input: R) -> Self {
        FrameReader {
            input,
            buf: Vec::with_capacity(READ_CHUNK),
            resyncing: false,
            skipped: 0,
        }
    }

    /// Reads more input; `false` at end of input.
    async fn fill(&mut self) -> std::io::Result<bool> {
        self.buf.reserve(READ_CHUNK);
        Ok(self.input.read_buf(&mut self.buf).await? > 0)
    }

    /// Discards the first `n` buffered bytes.
    fn discard(&mut self, n: usize) {
        let n = n.min(self.buf.len());
        self.buf.drain(..n);
        self.skipped += n;
    }

    /// Drops the frame at the start of the buffer: resynchronises from its second byte on.
    fn drop_frame(&mut self, why: String) -> Frame {
        self.skipped = 0;
        self.discard(1);
        self.resyncing = true;
        Frame::Dropped(why)
    }

    /// The next frame, or `None` at end of input.
    pub async fn next(&mut self) -> std::io::Result<Option<Frame>> {
        loop {
            if self.resyncing {
                match frame_start(&self.buf, 0) {
                    Start::Found(at) => {
                        self.discard(at);
                        self.resyncing = false;
                        debug!("skipped {} bytes to the next message", self.skipped);
                        continue;
                    }
                    Start::Partial(at) | Start::Absent(at) => self.discard(at),
                }
            } else {
                // Blank lines between messages are harmless.
                let blank = self
                    .buf
                    .iter()
                    .take_while(|&&b| b == b'\r' || b == b'\n')
                    .count();
                self.buf.drain(..blank);
                match parse_header(&self.buf) {
                    Header::Incomplete => {}
                    Header::Malformed(why) => return Ok(Some(self.drop_frame(why))),
                    Header::Complete { size, length } => return self.body(size, length).await,
                }
            }
            if !self.fill().await? {
                if !self.resyncing && !self.buf.is_empty() {
                    debug!(
                        "{} bytes of incomplete input at end of stream",
                        self.buf.len()
                    );
                }
                return Ok(None);
            }
        }
    }

    /// Reads the `length`-byte body after a `size`-byte header block.
    async fn body(&mut self, size: usize, length: usize) -> std::io::Result<Option<Frame>> {
        let end = size + length;
        let mut scanned = size;
        while self.buf.len() < end {
            match frame_start(&self.buf, scanned) {
                Start::Found(at) => {
                    self.discard(at);
                    return Ok(Some(Frame::Dropped(format!(
                        "a new message starts {} bytes into a body of {length} bytes: the body is \
                         shorter than its Content-Length",
                        at - size
                    ))));
                }
                Start::Partial(at) | Start::Absent(at) => scanned = at,
            }
            if !self.fill().await? {
                debug!(
                    "end of input {} bytes into a body of {length} bytes",
                    self.buf.len() - size
                );
                return Ok(None);
            }
        }
        let body = self.buf.get(size..end).unwrap_or_default();
        if let Err(e) = is_jsonrpc(body) {
            return Ok(Some(self.drop_frame(format!(
                "the {length}-byte body is not a JSON-RPC message ({e})"
            ))));
        }
        let rest = self.buf.split_off(end);
        let mut frame = std::mem::replace(&mut self.buf, rest);
        frame.drain(..size);
        Ok(Some(Frame::Body(frame)))
    }
}

#[cfg(test)]
mod fuzz;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;

    const GOOD: &str = r#"{"jsonrpc":"2.0","id":7,"method":"shutdown"}"#;
    const NOTE: &str = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    /// Every frame of a complete input.
    async fn frames(input: &[u8]) -> Vec<Frame> {
        let mut reader = FrameReader::new(input);
        let mut out = Vec::new();
        while let Some(f) = reader.next().await.expect("read") {
            out.push(f);
        }
        out
    }

    fn bodies(frames: &[Frame]) -> Vec<String> {
        frames
            .iter()
            .filter_map(|f| match f {
                Frame::Body(b) => Some(String::from_utf8_lossy(b).into_owned()),
                Frame::Dropped(_) => None,
            })
            .collect()
    }

    /// Feeds `bad` then a good request through a stream that stays open (like an editor waiting
    /// for the reply), and returns the bodies read until the good request's.
    async fn survives(bad: &[u8]) -> Vec<String> {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        client.write_all(bad).await.expect("write");
        client.write_all(&frame(GOOD)).await.expect("write");
        let mut reader = FrameReader::new(server);
        let mut got = Vec::new();
        loop {
            // A hang guard, not a timing assertion: the input stays open, so a reader that
            // waits for more bytes would never return.
            let next = tokio::time::timeout(Duration::from_secs(10), reader.next())
                .await
                .expect("the good request is read while the input stays open")
                .expect("read")
                .expect("not at end of input");
            if let Frame::Body(b) = next {
                let body = String::from_utf8(b).expect("utf8");
                let done = body == GOOD;
                got.push(body);
                if done {
                    return got;
                }
            }
        }
    }

    /// A malformed frame (with the body that came with it): dropped, and the next request read.
    macro_rules! dropped_then_resynchronised {
        ($($name:ident: $bad:expr;)*) => {$(
            #[tokio::test]
            async fn $name() {
                let bad: Vec<u8> = $bad;
                assert_eq!(survives(&bad).await, vec![GOOD.to_string()]);
                let all = frames(&[bad.as_slice(), frame(GOOD).as_slice()].concat()).await;
                assert!(matches!(all.first(), Some(Frame::Dropped(_))), "{all:?}");
                assert_eq!(bodies(&all), vec![GOOD.to_string()]);
            }
        )*};
    }

    dropped_then_resynchronised! {
        missing_content_length: format!("X-Whatever: 1\r\n\r\n{NOTE}").into_bytes();
        content_type_only: format!("Content-Type: application/json\r\n\r\n{NOTE}").into_bytes();
        non_numeric_length: format!("Content-Length: abc\r\n\r\n{NOTE}").into_bytes();
        negative_length: format!("Content-Length: -5\r\n\r\n{NOTE}").into_bytes();
        overflowing_length: format!("Content-Length: 99999999999999999999\r\n\r\n{NOTE}").into_bytes();
        huge_length: format!("Content-Length: {}\r\n\r\n{NOTE}", MAX_MESSAGE_BYTES + 1).into_bytes();
        signed_length: format!("Content-Length: +2\r\n\r\n{NOTE}").into_bytes();
        empty_length: format!("Content-Length:\r\n\r\n{NOTE}").into_bytes();
        disagreeing_lengths: format!(
            "Content-Length: {}\r\nContent-Length: {}\r\n\r\n{NOTE}", NOTE.len(), NOTE.len() + 7
        ).into_bytes();
        body_shorter_than_declared: format!("Content-Length: {}\r\n\r\n{NOTE}", NOTE.len() + 40).into_bytes();
        body_much_shorter_than_declared: format!("Content-Length: 100000\r\n\r\n{NOTE}").into_bytes();
        body_longer_than_declared: format!("Content-Length: {}\r\n\r\n{NOTE}", NOTE.len() - 10).into_bytes();
        body_not_json: b"Content-Length: 9\r\n\r\n{not json".to_vec();
        body_not_jsonrpc: b"Content-Length: 11\r\n\r\n{\"hello\":1}".to_vec();
        empty_body: b"Content-Length: 0\r\n\r\n".to_vec();
        junk_line: b"garbage garbage\r\n".to_vec();
        junk_without_line_end: vec![b'x'; MAX_HEADER_BYTES * 2];
        header_line_without_colon: format!("Content-Length: {}\r\nnonsense\r\n\r\n{NOTE}", NOTE.len()).into_bytes();
        junk_glued_to_a_header: format!("{NOTE}Content-Length: 5\r\n\r\n{{}}{{}}").into_bytes();
    }

    /// Frames that are unusual but well formed: read, and so is the next request.
    macro_rules! accepted {
        ($($name:ident: $input:expr;)*) => {$(
            #[tokio::test]
            async fn $name() {
                let input: Vec<u8> = $input;
                assert_eq!(survives(&input).await, vec![NOTE.to_string(), GOOD.to_string()]);
            }
        )*};
    }

    accepted! {
        lowercase_header_name: format!("content-length: {}\r\n\r\n{NOTE}", NOTE.len()).into_bytes();
        mixed_case_header_name: format!("CONTENT-length: {}\r\n\r\n{NOTE}", NOTE.len()).into_bytes();
        bare_line_feeds: format!("Content-Length: {}\n\n{NOTE}", NOTE.len()).into_bytes();
        agreeing_duplicate_lengths: format!(
            "Content-Length: {0}\r\nContent-Length: {0}\r\n\r\n{NOTE}", NOTE.len()
        ).into_bytes();
        other_headers_and_blanks: format!(
            "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length:  {} \r\n\r\n{NOTE}",
            NOTE.len()
        ).into_bytes();
        blank_lines_between_messages: [b"\r\n\r\n".as_slice(), frame(NOTE).as_slice(), b"\r\n".as_slice()].concat();
    }

    #[tokio::test]
    async fn bodies_may_mention_the_header() {
        // JSON cannot hold a raw line break inside a string, so this is no frame start.
        let body = r#"{"jsonrpc":"2.0","method":"x","params":{"t":"Content-Length: 5\r\n\r\n{}"}}"#;
        assert_eq!(bodies(&frames(&frame(body)).await), vec![body.to_string()]);
    }

    #[tokio::test]
    async fn a_frame_start_split_across_reads_is_found() {
        let (mut client, server) = tokio::io::duplex(64);
        let mut reader = FrameReader::new(server);
        let input = [
            b"Content-Length: x\r\n\r\njunk".as_slice(),
            frame(GOOD).as_slice(),
        ]
        .concat();
        let writer = tokio::spawn(async move {
            for chunk in input.chunks(3) {
                client.write_all(chunk).await.expect("write");
                tokio::task::yield_now().await;
            }
            client
        });
        assert!(matches!(
            reader.next().await.expect("read"),
            Some(Frame::Dropped(_))
        ));
        assert_eq!(
            reader.next().await.expect("read"),
            Some(Frame::Body(GOOD.as_bytes().to_vec()))
        );
        drop(writer.await.expect("writer"));
    }

    #[tokio::test]
    async fn truncated_input_ends_cleanly() {
        let input = [frame(GOOD), b"Content-Length: 99\r\n\r\n{".to_vec()].concat();
        assert_eq!(bodies(&frames(&input).await), vec![GOOD.to_string()]);
        assert!(frames(b"Content-Len").await.is_empty());
    }

    #[test]
    fn frame_starts_need_digits_and_a_line_end() {
        assert_eq!(frame_start(b"xxContent-Length: 12\r\n", 0), Start::Found(2));
        assert_eq!(frame_start(b"content-length:3\n", 0), Start::Found(0));
        assert_eq!(frame_start(b"Content-Length: 12", 0), Start::Partial(0));
        assert_eq!(
            frame_start(b"Content-Length: abc\r\nContent-Length: 1\r\n", 0),
            Start::Found(21)
        );
        assert_eq!(frame_start(b"\"Content-Length\": 1\n", 0), Start::Absent(7));
        assert_eq!(frame_start(b"abc", 0), Start::Absent(0));
    }

    #[test]
    fn headers_parse_strictly() {
        assert_eq!(
            parse_header(b"Content-Length: 5\r\n\r\n"),
            Header::Complete {
                size: 21,
                length: 5
            }
        );
        assert_eq!(parse_header(b"Content-Length: 5\r\n"), Header::Incomplete);
        for bad in [
            "Content-Length: 5x\r\n\r\n",
            "Content-Length: 0x10\r\n\r\n",
            "Content Length: 5\r\n\r\n",
            "{}Content-Length: 5\r\n\r\n",
        ] {
            assert!(
                matches!(parse_header(bad.as_bytes()), Header::Malformed(_)),
                "{bad:?}"
            );
        }
    }
}
