//! Bylines: a paragraph that names who wrote the text ("By Sir ISAAC NEWTON, Knt.", "By Homer",
//! "*By Jane Doe and John Smith*"). It is title matter, like a heading or a LaTeX `\author`, not
//! a sentence of the running text; the document's assembly skips it as it skips a copyright
//! notice.

use super::Sentence;

/// Most words of a byline, "By" included.
const MAX_WORDS: usize = 10;

/// Words a byline's names may hold in lower case ("By Jane Doe and John Smith", "By Ludwig van
/// Beethoven").
const JOINERS: &[&str] = &[
    "and", "&", "of", "the", "de", "van", "von", "der", "du", "la", "le",
];

/// Whether `sentences`, a paragraph of their own, are a byline: one sentence, "By" and then only
/// names — words that open in capitals, or [`JOINERS`] — at most [`MAX_WORDS`] words in all.
/// "By default, the cache is off." and "By Friday we must ship." are prose.
pub(super) fn byline(sentences: &[Sentence]) -> bool {
    let [only] = sentences else {
        return false;
    };
    let mut words = only.text.split_whitespace();
    if words.next() != Some("By") {
        return false;
    }
    let names: Vec<&str> = words.collect();
    !names.is_empty()
        && names.len() < MAX_WORDS
        && names
            .first()
            .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase))
        && names.iter().all(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '&');
            w.is_empty()
                || JOINERS.contains(&w)
                || w.chars()
                    .next()
                    .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use crate::text::{parse, Format};

    /// The text of every sentence of `src`'s paragraphs.
    fn prose(src: &str, format: Format) -> Vec<String> {
        parse(src, format)
            .paragraphs()
            .flat_map(|p| p.sentences.iter().map(|s| s.text.clone()))
            .collect()
    }

    #[test]
    fn a_byline_is_title_matter() {
        // Newton's *Opticks* (plain text, as a compression library ships it as test data).
        let src = "OPTICKS.\n\nBy Sir _ISAAC NEWTON_, Knt.\n\nThe design in this first book is not to explain the properties of light by hypotheses.\n";
        let texts = prose(src, Format::Plain);
        assert!(!texts.iter().any(|t| t.contains("NEWTON")), "{texts:?}");
        let md = "# The Odyssey\n\n*By Homer*\n\nTell me, O muse, of that ingenious hero.\n";
        let texts = prose(md, Format::Markdown);
        assert!(!texts.iter().any(|t| t.contains("Homer")), "{texts:?}");
        for sentence in [
            "By default, the cache is off.",
            "By Friday we must ship the release.",
            "Written by Homer.",
        ] {
            let texts = prose(&format!("# T\n\n{sentence}\n"), Format::Markdown);
            assert_eq!(texts, [sentence], "prose");
        }
    }
}
