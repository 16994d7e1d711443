//! Rendered examples: a manual shows a listing of LaTeX source, then what it typesets ("It
//! produces this output." over a `minipage` holding the same text). The typeset copy repeats the
//! listing's words, not the author's prose, so it is not read.

use super::super::Block;
use std::collections::HashSet;

/// Environments whose content is a listing of source, as a manual shows it.
const LISTINGS: &[&str] = &[
    "lstlisting",
    "verbatim",
    "Verbatim",
    "minted",
    "LTXexample",
    "sourcecode",
];

/// How far before a block (in bytes) the listing it repeats may end: a short line ("It produces
/// this output.") and the environments around the typeset copy stand between them.
const REACH: usize = 400;

/// The share of a block's words that must appear in the listing for it to be the listing's
/// typeset copy.
const REPEATED_SHARE: f64 = 0.8;

/// Fewest words (of three letters or more) in a block for the test to say anything.
const MIN_WORDS: usize = 5;

/// Replaces each prose block that repeats the listing just before it with a break.
pub(super) fn drop_rendered_copies(source: &str, listings: &[Listing], blocks: &mut [Block]) {
    if listings.is_empty() {
        return;
    }
    for block in blocks.iter_mut() {
        let Block::Prose { span, prose, .. } = block else {
            continue;
        };
        // The last listing that ends before the block, if it ends close enough.
        let ended = listings.partition_point(|l| l.end <= span.start);
        let Some(listing) = ended.checked_sub(1).and_then(|i| listings.get(i)) else {
            continue;
        };
        if span.start - listing.end > REACH {
            continue;
        }
        let own = words(prose.text());
        if own.len() < MIN_WORDS {
            continue;
        }
        let listed = words(source.get(listing.content.clone()).unwrap_or(""));
        let repeated = own.iter().filter(|w| listed.contains(*w)).count();
        if repeated as f64 >= REPEATED_SHARE * own.len() as f64 {
            *block = Block::Break;
        }
    }
}

/// A listing environment in the source.
pub(super) struct Listing {
    /// Its content, between `\begin{…}` and `\end{…}`.
    pub(super) content: std::ops::Range<usize>,
    /// Where it ends, after `\end{…}`.
    pub(super) end: usize,
}

/// Every listing environment of `source`, in order: one pass over its `\begin{`s, a listing's
/// content skipped (a listing that shows another listing is one).
pub(super) fn listings(source: &str) -> Vec<Listing> {
    const BEGIN: &str = "\\begin{";
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(b) = source.get(at..).and_then(|r| r.find(BEGIN)) {
        let name_at = at + b + BEGIN.len();
        at = name_at;
        let Some(name) = LISTINGS.iter().find(|name| {
            source
                .get(name_at..)
                .and_then(|r| r.strip_prefix(**name))
                .is_some_and(|r| r.starts_with('}'))
        }) else {
            continue;
        };
        let start = name_at + name.len() + 1;
        let close = format!("\\end{{{name}}}");
        let Some(e) = source.get(start..).and_then(|r| r.find(&close)) else {
            break;
        };
        let end = start + e + close.len();
        out.push(Listing {
            content: start..start + e,
            end,
        });
        at = end;
    }
    out
}

/// The distinct words of three letters or more in `text`, in lower case.
fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}
