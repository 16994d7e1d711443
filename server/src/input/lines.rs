//! Lines of a stream read with a bound: the JSON-lines input of `segue score --jsonl` and
//! `segue check --format jsonl`. A line longer than the bound is skipped to its end without being
//! kept, so no line, however long, costs more memory than the bound.

use std::io::{self, BufRead};

/// One line of the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The line's number, 1 for the first.
    pub number: u64,
    /// Its bytes without the end of line (`\n`, or `\r\n`), or why they were not kept.
    pub bytes: Result<Vec<u8>, LineError>,
}

/// Why a line's bytes were not kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// The line is longer than the bound.
    #[error("line is too large (more than {} MiB; the limit is {} MiB)", limit / 1_048_576, limit / 1_048_576)]
    TooLong {
        /// The bound in bytes.
        limit: usize,
    },
}

/// The lines of `input`, each at most `limit` bytes (without its end of line); see [`Line`].
/// Reading stops at the end of input; an I/O error ends the iteration with that error.
pub struct BoundedLines<R> {
    input: R,
    limit: usize,
    number: u64,
    done: bool,
}

impl<R: BufRead> BoundedLines<R> {
    /// Lines of `input` of at most `limit` bytes each.
    pub fn new(input: R, limit: usize) -> Self {
        BoundedLines {
            input,
            limit,
            number: 0,
            done: false,
        }
    }

    /// Reads the next line; `None` at the end of input.
    fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut kept = Vec::new();
        let mut too_long = false;
        let mut seen_any = false;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                if !seen_any {
                    return Ok(None);
                }
                break;
            }
            seen_any = true;
            let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], Some(i + 1)),
                None => (buf, None),
            };
            if !too_long {
                if kept.len() + chunk.len() > self.limit.saturating_add(1) {
                    // One byte of slack for the `\r` of a `\r\n` ending, checked below.
                    too_long = true;
                    kept = Vec::new();
                } else {
                    kept.extend_from_slice(chunk);
                }
            }
            let used = found.unwrap_or(buf.len());
            self.input.consume(used);
            if found.is_some() {
                break;
            }
        }
        if kept.last() == Some(&b'\r') {
            kept.pop();
        }
        if kept.len() > self.limit {
            too_long = true;
        }
        self.number += 1;
        Ok(Some(Line {
            number: self.number,
            bytes: if too_long {
                Err(LineError::TooLong { limit: self.limit })
            } else {
                Ok(kept)
            },
        }))
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_line() {
            Ok(Some(line)) => Some(Ok(line)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(
        input: &[u8],
        limit: usize,
        capacity: usize,
    ) -> Vec<(u64, Result<Vec<u8>, LineError>)> {
        BoundedLines::new(io::BufReader::with_capacity(capacity, input), limit)
            .map(|l| l.map(|l| (l.number, l.bytes)))
            .collect::<io::Result<_>>()
            .unwrap_or_default()
    }

    #[test]
    fn lines_are_numbered_without_their_ends() {
        for capacity in [1, 3, 64] {
            let got = lines(b"ab\r\n\ncd\nlast", 10, capacity);
            assert_eq!(
                got,
                [
                    (1, Ok(b"ab".to_vec())),
                    (2, Ok(Vec::new())),
                    (3, Ok(b"cd".to_vec())),
                    (4, Ok(b"last".to_vec()))
                ]
            );
        }
        assert!(lines(b"", 10, 8).is_empty());
        assert_eq!(lines(b"x\n", 10, 8), [(1, Ok(b"x".to_vec()))]);
    }

    #[test]
    fn a_long_line_is_skipped_and_the_next_one_read() {
        for capacity in [1, 4, 64] {
            let got = lines(b"12345\n123456\r\n1234567\nok", 6, capacity);
            assert_eq!(got[0], (1, Ok(b"12345".to_vec())));
            assert_eq!(got[1], (2, Ok(b"123456".to_vec())));
            assert_eq!(got[2], (3, Err(LineError::TooLong { limit: 6 })));
            assert_eq!(got[3], (4, Ok(b"ok".to_vec())));
        }
    }
}
