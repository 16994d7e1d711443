//! The text edit that reorders units (paragraphs or sentences) without touching anything else.
//!
//! Given the units' spans in source order and a permutation, slot `i` (the place where unit `i`
//! stood) receives the bytes of unit `order[i]`, and the text *between* slot `i` and slot `i + 1`
//! (blank lines, spaces, comments, code blocks) stays where it is. Text before the first unit and
//! after the last one (trailing whitespace, the final newline) is never touched. The result is a
//! permutation of the units byte for byte with every separator fixed in place.

use crate::text::Span;

/// Why no permutation edit could be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PermuteError {
    /// The order is not a permutation of `0..n`.
    #[error("the order is not a permutation of the {0} units")]
    NotAPermutation(usize),
    /// A span is out of range, not on a character boundary, or the spans overlap or are unsorted.
    #[error("unit spans are out of range, overlapping or unsorted")]
    BadSpans,
}

/// One replacement: the bytes `span` of the original text become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The replaced byte range of the original text.
    pub span: Span,
    /// The new text.
    pub text: String,
}

/// The edit that puts unit `order[i]` in slot `i`, keeping separators in place. Returns `None`
/// when the order leaves the text unchanged. The replacement is trimmed to the smallest byte range
/// that differs (on character boundaries).
pub fn permute(
    text: &str,
    spans: &[Span],
    order: &[usize],
) -> Result<Option<Replacement>, PermuteError> {
    let n = spans.len();
    let mut seen = vec![false; n];
    if order.len() != n {
        return Err(PermuteError::NotAPermutation(n));
    }
    for &i in order {
        match seen.get_mut(i) {
            Some(s) if !*s => *s = true,
            _ => return Err(PermuteError::NotAPermutation(n)),
        }
    }
    let (Some(first), Some(last)) = (spans.first(), spans.last()) else {
        return Ok(None);
    };
    for (i, s) in spans.iter().enumerate() {
        let sorted = i == 0 || spans.get(i - 1).is_some_and(|p| p.end <= s.start);
        if !sorted || s.start > s.end || text.get(s.start..s.end).is_none() {
            return Err(PermuteError::BadSpans);
        }
    }
    let mut out = String::with_capacity(last.end - first.start);
    for (slot, &unit) in order.iter().enumerate() {
        let (Some(u), Some(here)) = (spans.get(unit), spans.get(slot)) else {
            return Err(PermuteError::BadSpans);
        };
        out.push_str(u.slice(text));
        if let Some(next) = spans.get(slot + 1) {
            out.push_str(
                text.get(here.end..next.start)
                    .ok_or(PermuteError::BadSpans)?,
            );
        }
    }
    let region = Span::new(first.start, last.end);
    let old = region.slice(text);
    if old == out {
        return Ok(None);
    }
    // Trim the common prefix and suffix, keeping both cuts on character boundaries.
    let mut pre = old
        .bytes()
        .zip(out.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !(old.is_char_boundary(pre) && out.is_char_boundary(pre)) {
        pre -= 1;
    }
    let max_suf = old.len().min(out.len()) - pre;
    let mut suf = old
        .bytes()
        .rev()
        .zip(out.bytes().rev())
        .take(max_suf)
        .take_while(|(a, b)| a == b)
        .count();
    while !(old.is_char_boundary(old.len() - suf) && out.is_char_boundary(out.len() - suf)) {
        suf -= 1;
    }
    Ok(Some(Replacement {
        span: Span::new(region.start + pre, region.end - suf),
        text: out[pre..out.len() - suf].to_string(),
    }))
}

/// Applies a replacement to `text` (for tests and for checking an edit before sending it).
pub fn apply(text: &str, r: &Replacement) -> Option<String> {
    let mut out = String::with_capacity(text.len() + r.text.len());
    out.push_str(text.get(..r.span.start)?);
    out.push_str(&r.text);
    out.push_str(text.get(r.span.end..)?);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn spans_of(text: &str, units: &[&str]) -> Vec<Span> {
        let mut from = 0;
        units
            .iter()
            .map(|u| {
                let start = text[from..]
                    .find(u)
                    .map(|i| i + from)
                    .expect("unit in text");
                from = start + u.len();
                Span::new(start, from)
            })
            .collect()
    }

    #[test]
    fn swaps_paragraphs_and_keeps_separators_and_trailing_text() {
        let text = "# T\n\nFirst para.\n\n<!-- c -->\n\nSecond para.\r\n\r\nThird.\n\n";
        let spans = spans_of(text, &["First para.", "Second para.", "Third."]);
        let r = permute(text, &spans, &[2, 0, 1]).unwrap().unwrap();
        assert_eq!(
            apply(text, &r).unwrap(),
            "# T\n\nThird.\n\n<!-- c -->\n\nFirst para.\r\n\r\nSecond para.\n\n"
        );
        assert_eq!(permute(text, &spans, &[0, 1, 2]).unwrap(), None);
    }

    #[test]
    fn trims_to_the_changed_region_on_char_boundaries() {
        let text = "Aé x. Aé y.";
        let spans = spans_of(text, &["Aé x.", "Aé y."]);
        let r = permute(text, &spans, &[1, 0]).unwrap().unwrap();
        assert_eq!(apply(text, &r).unwrap(), "Aé y. Aé x.");
        assert!(r.span.start >= 3, "{r:?}");
        assert!(text.is_char_boundary(r.span.start) && text.is_char_boundary(r.span.end));
    }

    #[test]
    fn rejects_bad_input_instead_of_panicking() {
        let text = "ab cd";
        assert_eq!(
            permute(text, &[Span::new(0, 2), Span::new(3, 5)], &[0, 0]),
            Err(PermuteError::NotAPermutation(2))
        );
        assert_eq!(
            permute(text, &[Span::new(0, 2), Span::new(3, 5)], &[1]),
            Err(PermuteError::NotAPermutation(2))
        );
        assert_eq!(
            permute(text, &[Span::new(3, 5), Span::new(0, 2)], &[1, 0]),
            Err(PermuteError::BadSpans)
        );
        assert_eq!(
            permute(text, &[Span::new(0, 2), Span::new(3, 9)], &[1, 0]),
            Err(PermuteError::BadSpans)
        );
        assert_eq!(
            permute("é", &[Span::new(0, 1)], &[0]),
            Err(PermuteError::BadSpans)
        );
        assert_eq!(permute(text, &[], &[]), Ok(None));
    }

    fn case() -> impl Strategy<Value = (String, Vec<String>, Vec<String>, String, Vec<usize>)> {
        (1usize..7).prop_flat_map(|n| {
            (
                "[ \n\r\t]{0,3}",
                proptest::collection::vec("[a-zé😀.]{1,6}", n),
                proptest::collection::vec("[ \n\r\t<!->%]{0,4}", n),
                "[ \n\r]{0,3}",
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
            )
        })
    }

    proptest! {
        /// The result is the units permuted with the separators (and the text around) fixed,
        /// byte for byte.
        #[test]
        fn permutes_units_and_keeps_separators((prefix, units, seps, suffix, order) in case()) {
            let mut text = prefix.clone();
            let mut spans = Vec::new();
            for (i, u) in units.iter().enumerate() {
                let start = text.len();
                text.push_str(u);
                spans.push(Span::new(start, text.len()));
                if i + 1 < units.len() {
                    text.push_str(&seps[i]);
                }
            }
            text.push_str(&suffix);
            let mut expected = prefix.clone();
            for (slot, &u) in order.iter().enumerate() {
                expected.push_str(&units[u]);
                if slot + 1 < units.len() {
                    expected.push_str(&seps[slot]);
                }
            }
            expected.push_str(&suffix);
            match permute(&text, &spans, &order).unwrap() {
                Some(r) => prop_assert_eq!(apply(&text, &r).unwrap(), expected),
                None => prop_assert_eq!(text, expected),
            }
        }
    }
}
