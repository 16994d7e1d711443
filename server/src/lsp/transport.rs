//! A guard in front of the JSON-RPC transport.
//!
//! tower-lsp-server stops reading its input at the first frame it cannot decode (tokio-util's
//! `FramedRead` ends the stream after a decoder error), so one malformed message would end the
//! session. [`forward_valid_frames`] sits between the real stdin and the server: it reads frames
//! with the resynchronising [`FrameReader`], forwards every JSON-RPC request, notification or
//! response, and drops malformed frames with a logged warning. A dropped request gets no reply:
//! there is no reliable id to answer. The guard returns when the input ends, which is how the
//! server learns that the editor is gone ([`super::lifecycle`]).

use super::frame::{Frame, FrameReader};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tracing::warn;

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
    use tokio::io::AsyncReadExt;

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
        // Forwarded frames are re-framed canonically.
        assert_eq!(text, frame(good).repeat(3));
    }

    #[tokio::test]
    async fn ends_when_the_input_ends() {
        let good = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let out = run(format!("{}Content-Length: 99\r\n\r\n{{", frame(good)).as_bytes()).await;
        assert_eq!(String::from_utf8(out).expect("utf8"), frame(good));
        assert!(run(b"").await.is_empty());
    }
}
