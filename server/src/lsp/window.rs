//! The bounded window a huge document is analysed in: an analysis costs time and memory in
//! proportion to the text, and runs again after every edit, so a document longer than
//! [`window_bytes`] is analysed only up to the last paragraph break within that many bytes. The
//! server says so once per document (`window/showMessage`, type Info, and the log); diagnostics,
//! hover and code actions then cover the window only.

use ropey::Rope;

/// The default window: 1 MiB, about 170,000 words of prose.
pub const DEFAULT_WINDOW_BYTES: usize = 1024 * 1024;

/// The window size: `SEGUE_WINDOW_BYTES` when set to a positive number, else
/// [`DEFAULT_WINDOW_BYTES`].
pub fn window_bytes() -> usize {
    std::env::var("SEGUE_WINDOW_BYTES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_WINDOW_BYTES)
}

/// The text to analyse: all of `rope` when it has at most `limit` bytes, else its beginning up to
/// the last paragraph break (a blank line) within `limit` bytes, else the last line break, else
/// the last whole character. The second value says whether it was cut.
pub fn analysed_text(rope: &Rope, limit: usize) -> (String, bool) {
    if rope.len_bytes() <= limit {
        return (rope.to_string(), false);
    }
    // The char index at or below `limit` bytes, then the text up to it.
    let chars = rope.byte_to_char(limit);
    let head = rope.slice(..chars).to_string();
    (cut(&head).to_string(), true)
}

/// `text` up to its last paragraph break, else its last line break, else all of it.
fn cut(text: &str) -> &str {
    if let Some(i) = text.rfind("\n\n").or_else(|| text.rfind("\r\n\r\n")) {
        return &text[..i + 1];
    }
    if let Some(i) = text.rfind('\n') {
        return &text[..=i];
    }
    text
}

/// The notice shown once per document analysed in a window.
pub fn notice(name: &str, total_bytes: usize, window: &str) -> String {
    let lines = window.lines().count();
    format!(
        "{name} is {:.1} MiB; Segue checks only its first {} (up to line {lines}) to keep the editor responsive",
        total_bytes as f64 / 1_048_576.0,
        if window.len() >= 512 * 1024 {
            format!("{:.1} MiB", window.len() as f64 / 1_048_576.0)
        } else {
            format!("{} KiB", window.len().div_ceil(1024))
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_within_the_limit_is_analysed_whole() {
        let rope = Rope::from_str("One.\n\nTwo.\n");
        assert_eq!(
            analysed_text(&rope, 100),
            ("One.\n\nTwo.\n".to_string(), false)
        );
    }

    #[test]
    fn a_longer_one_is_cut_at_its_last_paragraph_break_within_the_limit() {
        let text = "First para.\nStill first.\n\nSecond para here.\n\nThird.\n";
        let rope = Rope::from_str(text);
        let (window, cut) = analysed_text(&rope, 40);
        assert!(cut);
        assert_eq!(window, "First para.\nStill first.\n");
        assert!(text.starts_with(&window));
    }

    #[test]
    fn without_a_paragraph_break_it_cuts_at_a_line_then_a_character() {
        let rope = Rope::from_str("line one\nline two is long\n");
        assert_eq!(analysed_text(&rope, 12).0, "line one\n");
        // One line of multi-byte characters: never split inside one.
        let rope = Rope::from_str("ééééé");
        let (w, cut) = analysed_text(&rope, 5);
        assert!(cut);
        assert_eq!(w, "éé");
    }

    #[test]
    fn the_notice_names_the_size_and_the_last_line() {
        let n = notice("big.md", 3 * 1_048_576, "a\nb\n");
        assert!(n.contains("big.md is 3.0 MiB"), "{n}");
        assert!(n.contains("first 1 KiB (up to line 2)"), "{n}");
        let big = "word ".repeat(209_000);
        assert!(notice("big.md", 3 * 1_048_576, &big).contains("first 1.0 MiB (up to line 1)"));
    }
}
