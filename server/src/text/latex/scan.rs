//! Byte-level helpers for the passes that read a document's declarations before the scanner
//! runs ([`super::short_verb`], [`super::user_envs`]).

/// Where the source's comments are: one pass, so that asking about every declaration of a long
/// line stays linear.
pub(super) struct Comments {
    /// (where a `%` opens a comment, where its line ends), in order.
    spans: Vec<(usize, usize)>,
}

impl Comments {
    pub(super) fn new(b: &[u8]) -> Self {
        let mut spans = Vec::new();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'%' => {
                    let end = b[i..]
                        .iter()
                        .position(|&c| matches!(c, b'\n' | b'\r'))
                        .map_or(b.len(), |k| i + k);
                    spans.push((i, end));
                    i = end;
                }
                _ => i += 1,
            }
        }
        Comments { spans }
    }

    /// Whether byte `at` sits inside a comment.
    pub(super) fn holds(&self, at: usize) -> bool {
        let k = self.spans.partition_point(|&(start, _)| start < at);
        k.checked_sub(1)
            .and_then(|k| self.spans.get(k))
            .is_some_and(|&(_, end)| at < end)
    }
}

/// Each use of one of the control words `names` outside comments, in order: the name and the
/// byte right after it. `\MakeShortVerbs` is not a use of `MakeShortVerb`.
pub(super) fn commands<'a>(
    source: &'a str,
    names: &'a [&'a str],
) -> impl Iterator<Item = (&'a str, usize)> + 'a {
    let b = source.as_bytes();
    let comments = Comments::new(b);
    let mut i = 0;
    std::iter::from_fn(move || {
        while let Some(at) = source.get(i..).and_then(|s| s.find('\\')) {
            let start = i + at;
            i = start + 1;
            let rest = &b[start + 1..];
            let name = names.iter().copied().find(|n| {
                rest.starts_with(n.as_bytes())
                    && !rest.get(n.len()).is_some_and(u8::is_ascii_alphabetic)
            });
            if let Some(name) = name.filter(|_| !comments.holds(start)) {
                return Some((name, start + 1 + name.len()));
            }
        }
        None
    })
}

/// The first byte at or after `j` that is not white space or a comment (as after
/// `\newenvironment{x}[7]%`).
pub(super) fn skip_blanks(b: &[u8], mut j: usize) -> usize {
    while let Some(&c) = b.get(j) {
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => j += 1,
            b'%' => {
                while !matches!(b.get(j), Some(b'\n' | b'\r') | None) {
                    j += 1;
                }
            }
            _ => break,
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_outside_comments_are_found_once_each() {
        let src = "\\Make{a} % \\Make{b}\n\\Makes \\Make\\% \\Make";
        let found: Vec<usize> = commands(src, &["Make"]).map(|(_, after)| after).collect();
        assert_eq!(found, vec![5, 32, 40]);
        assert_eq!(skip_blanks(b"  % note\n  x", 0), 11);
        assert!(Comments::new(b"a % b\nc").holds(3));
        assert!(!Comments::new(b"a \\% b\nc").holds(4));
    }
}
