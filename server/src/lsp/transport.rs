//! A guard in front of the JSON-RPC transport.
//!
//! tower-lsp-server stops reading its input at the first frame it cannot decode (tokio-util's
//! `FramedRead` ends the stream after a decoder error), so one malformed message would end the
//! session. [`forward_valid_frames`] sits between the real stdin and the server: it reads
//! `Content-Length` frames itself, forwards every frame whose body is a JSON-RPC request,
//! notification or response, and drops (with a logged warning) headers without a valid
//! `Content-Length`, bodies that are not JSON-RPC, and bodies over [`MAX_MESSAGE_BYTES`] (skipped
//! as they stream by, never buffered). A dropped request gets no reply: there is no reliable id to
//! answer.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tower_lsp_server::jsonrpc::{Request, Response};
use tracing::{debug, warn};

/// Largest header block read before giving up on it and resynchronizing.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;
/// Largest message body accepted (an 8 MiB document, JSON-escaped, fits many times over).
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

const READ_CHUNK: usize = 64 * 1024;

/// One step of the frame reader.
#[derive(Debug, PartialEq, Eq)]
enum Frame {
    /// A complete body.
    Body(Vec<u8>),
    /// Something was dropped, and why.
    Dropped(String),
}

struct FrameReader<R> {
    input: R,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    fn new(input: R) -> Self {
        FrameReader {
            input,
            buf: Vec::with_capacity(READ_CHUNK),
        }
    }

    /// Reads more input; `false` at end of input.
    async fn fill(&mut self) -> std::io::Result<bool> {
        self.buf.reserve(READ_CHUNK);
        Ok(self.input.read_buf(&mut self.buf).await? > 0)
    }

    /// The next frame, or `None` at end of input.
    async fn next(&mut self) -> std::io::Result<Option<Frame>> {
        loop {
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                let length = content_length(self.buf.get(..end).unwrap_or_default());
                self.buf.drain(..end + 4);
                return match length {
                    Err(why) => Ok(Some(Frame::Dropped(why))),
                    Ok(n) if n > MAX_MESSAGE_BYTES => {
                        self.skip(n).await?;
                        Ok(Some(Frame::Dropped(format!(
                            "message of {n} bytes is over the {MAX_MESSAGE_BYTES}-byte limit"
                        ))))
                    }
                    Ok(n) => {
                        while self.buf.len() < n {
                            if !self.fill().await? {
                                return Ok(None);
                            }
                        }
                        let rest = self.buf.split_off(n);
                        Ok(Some(Frame::Body(std::mem::replace(&mut self.buf, rest))))
                    }
                };
            }
            if self.buf.len() > MAX_HEADER_BYTES {
                // No header end in sight: drop up to the next `Content-Length`, if any.
                let keep_from = find(self.buf.get(1..).unwrap_or_default(), b"Content-Length")
                    .map_or(self.buf.len().saturating_sub(16), |i| i + 1);
                self.buf.drain(..keep_from);
                return Ok(Some(Frame::Dropped(
                    "input without a message header".to_string(),
                )));
            }
            if !self.fill().await? {
                if !self.buf.iter().all(u8::is_ascii_whitespace) {
                    debug!(
                        "{} bytes of incomplete input at end of stream",
                        self.buf.len()
                    );
                }
                return Ok(None);
            }
        }
    }

    /// Discards `n` body bytes without keeping them.
    async fn skip(&mut self, mut n: usize) -> std::io::Result<()> {
        loop {
            let take = n.min(self.buf.len());
            self.buf.drain(..take);
            n -= take;
            if n == 0 || !self.fill().await? {
                return Ok(());
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The `Content-Length` of a header block (other headers are ignored).
fn content_length(header: &[u8]) -> Result<usize, String> {
    let text =
        std::str::from_utf8(header).map_err(|_| "message header is not UTF-8".to_string())?;
    for line in text.split("\r\n") {
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                return value
                    .trim()
                    .parse::<usize>()
                    .map_err(|e| format!("bad Content-Length `{}`: {e}", value.trim()));
            }
        }
    }
    Err("message header has no Content-Length".to_string())
}

/// Whether `body` is a JSON-RPC message tower-lsp-server can decode.
fn is_jsonrpc(body: &[u8]) -> Result<(), String> {
    match serde_json::from_slice::<Request>(body) {
        Ok(_) => Ok(()),
        Err(request_error) => match serde_json::from_slice::<Response>(body) {
            Ok(_) => Ok(()),
            Err(_) => Err(request_error.to_string()),
        },
    }
}

/// Copies well-formed frames from `input` to `output` until `input` ends or `output` closes.
pub async fn forward_valid_frames<R, W>(input: R, mut output: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = FrameReader::new(input);
    loop {
        match reader.next().await {
            Ok(Some(Frame::Body(body))) => {
                if let Err(e) = is_jsonrpc(&body) {
                    warn!(
                        "dropped a message that is not JSON-RPC ({} bytes): {e}",
                        body.len()
                    );
                    continue;
                }
                let header = format!("Content-Length: {}\r\n\r\n", body.len());
                let sent = async {
                    output.write_all(header.as_bytes()).await?;
                    output.write_all(&body).await?;
                    output.flush().await
                };
                if sent.await.is_err() {
                    break;
                }
            }
            Ok(Some(Frame::Dropped(why))) => warn!("dropped malformed input: {why}"),
            Ok(None) => break,
            Err(e) => {
                warn!("reading the client's messages failed: {e}");
                break;
            }
        }
    }
    let _ = output.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(input: &[u8]) -> Vec<u8> {
        let (mut w, mut r) = tokio::io::duplex(1 << 20);
        forward_valid_frames(input, &mut w).await;
        drop(w);
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).await;
        out
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[tokio::test]
    async fn forwards_good_frames_and_drops_bad_ones() {
        let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let input = format!(
            "{}{}garbage\r\n\r\n{}Content-Length: x\r\n\r\n{}Content-Type: a\r\nContent-Length: {}\r\n\r\n{good}",
            frame(good),
            frame("{not json"),
            frame(r#"{"hello":1}"#),
            frame(good),
            good.len()
        );
        let out = run(input.as_bytes()).await;
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(text.matches(good).count(), 3, "{text}");
        assert!(!text.contains("not json"));
    }

    #[tokio::test]
    async fn skips_huge_bodies_and_survives_truncated_input() {
        let good = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let huge = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE_BYTES + 1);
        let out = run(format!("{huge}{good}").as_bytes()).await;
        assert!(out.is_empty());
        let out = run(format!("{}Content-Length: 99\r\n\r\n{{", frame(good)).as_bytes()).await;
        assert_eq!(String::from_utf8(out).expect("utf8"), frame(good));
        let out = run(&[b'x'; MAX_HEADER_BYTES * 2]).await;
        assert!(out.is_empty());
    }
}
