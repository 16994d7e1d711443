//! Back matter: the sections a document closes with that stand outside its argument.
//!
//! A README ends with who sponsors it, who drew its logo, under which licence it ships; a
//! manual with its credits. Each paragraph there is on a subject of its own by design
//! ("The logo is licensed under a Creative Commons licence.", "Available as part of the
//! Tidelift Subscription"), so judging it against its neighbours only finds what the writer
//! meant; so is where to report a vulnerability. Segue leaves the transitions inside such
//! sections unjudged.

use crate::text::{Document, Heading};

/// Words that, standing in a short heading, name back matter.
const WORDS: &[&str] = &[
    "license",
    "licence",
    "licenses",
    "licences",
    "licensing",
    "copyright",
    "credits",
    "acknowledgements",
    "acknowledgments",
    "acknowledgement",
    "acknowledgment",
    "thanks",
    "sponsors",
    "sponsor",
    "sponsorship",
    "sponsorships",
    "backers",
    "funding",
    "donate",
    "donations",
    "donating",
    "logo",
    "authors",
    "maintainers",
    "contributors",
    "enterprise",
];

/// Words that make a heading on security back matter: where to report a vulnerability
/// ("Security Reporting", "Security contact", "Security Policy"), not a discussion of security.
const SECURITY_WORDS: &[&str] = &[
    "report",
    "reporting",
    "reports",
    "policy",
    "contact",
    "contacts",
    "disclosure",
    "issues",
    "vulnerability",
    "vulnerabilities",
];

/// Most words in a heading that names back matter ("Other Backers and Sponsors").
const MAX_WORDS: usize = 5;

/// Whether `heading` opens a back-matter section: a short heading with a word of [`WORDS`]
/// ("License", "Glob Logo", "Commander for enterprise", "Other Backers and Sponsors").
pub fn is_back_matter(heading: &Heading) -> bool {
    let words: Vec<String> = heading
        .title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    !words.is_empty()
        && words.len() <= MAX_WORDS
        && (has(WORDS)
            || (words.iter().any(|w| w == "security") && has(SECURITY_WORDS))
            || words.iter().any(|w| w.starts_with("vulnerabilit")))
}

/// Openings of a sentence that thanks someone: acknowledgements set as a paragraph of the running
/// text, at a paper's or a manual's end, without a heading of their own ("I would like to thank
/// all the geniuses who wrote the packages …").
const THANKS: &[&str] = &[
    "i would like to thank",
    "we would like to thank",
    "i'd like to thank",
    "we'd like to thank",
    "i wish to thank",
    "we wish to thank",
    "i want to thank",
    "we want to thank",
    "i thank",
    "we thank",
    "i am grateful",
    "we are grateful",
    "i am indebted",
    "we are indebted",
    "we gratefully acknowledge",
    "i gratefully acknowledge",
    "the authors thank",
    "the author thanks",
    "the authors would like to thank",
    "the author would like to thank",
    "many thanks to",
    "special thanks to",
    "thanks also to",
];

/// Whether `sentence` thanks someone ([`THANKS`], or "Thanks to … for …" without the comma of
/// "Thanks to its cache, lookups are fast", where "thanks to" means "because of"): a paragraph
/// that opens so is back matter set in the running text, on a subject of its own by design.
pub fn thanks(sentence: &str) -> bool {
    let lower = sentence.trim_start().to_lowercase().replace('’', "'");
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let opens = |phrase: &str| {
        let p: Vec<&str> = phrase.split(' ').collect();
        words.len() > p.len()
            && p.iter()
                .zip(&words)
                .all(|(a, b)| b.trim_end_matches(',') == *a)
    };
    THANKS.iter().any(|p| opens(p))
        || (opens("thanks to")
            && lower.contains(" for ")
            && !lower.split(" for ").next().is_some_and(|h| h.contains(',')))
}

/// For each section of `doc`, whether it is back matter: its heading names back matter, or it
/// sits under one that does ("Sponsors" › "Gold").
pub fn back_matter_sections(doc: &Document) -> Vec<bool> {
    // The levels and verdicts of the headings the current section sits under.
    let mut open: Vec<(u8, bool)> = Vec::new();
    doc.sections
        .iter()
        .map(|section| {
            let Some(heading) = &section.heading else {
                return open.last().is_some_and(|&(_, back)| back);
            };
            while open
                .last()
                .is_some_and(|&(level, _)| level >= heading.level)
            {
                open.pop();
            }
            let back = open.last().is_some_and(|&(_, back)| back) || is_back_matter(heading);
            open.push((heading.level, back));
            back
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_paragraph_of_thanks_is_back_matter() {
        // LaTeX for musicians, in its last section: "The End".
        assert!(super::thanks(
            "I would like to thank all the geniuses who wrote the packages and programs described here."
        ));
        assert!(super::thanks("Thanks to Alice Smith for the logo."));
        assert!(super::thanks("We are grateful to the reviewers."));
        assert!(!super::thanks("Thanks to its cache, lookups are fast."));
        assert!(!super::thanks("Thanks."));
        assert!(!super::thanks("I thought about it for a while."));
    }

    use super::*;
    use crate::text::Span;

    fn heading(title: &str) -> Heading {
        Heading {
            span: Span::new(0, title.len()),
            title: title.to_string(),
            level: 2,
        }
    }

    #[test]
    fn a_readmes_closing_sections_are_back_matter() {
        // From published READMEs (glob, commander, webpack) and manuals.
        for title in [
            "License",
            "Glob Logo",
            "Commander for enterprise",
            "Other Backers and Sponsors",
            "Credits",
            "Acknowledgements",
            "Copyright and licensing",
            "Security Reporting",
            "Security contact",
            "Reporting a vulnerability",
        ] {
            assert!(is_back_matter(&heading(title)), "{title}");
        }
        for title in [
            "Installation",
            "Choosing the right license for a library you publish",
            "Support",
            "Security",
            "Security considerations",
            "",
            "Licensed software in the enterprise: what to check first",
        ] {
            assert!(!is_back_matter(&heading(title)), "{title}");
        }
    }

    #[test]
    fn sections_under_back_matter_are_back_matter() {
        let src = "# Tool\n\nIt runs.\n\n## Sponsors\n\nThanks.\n\n### Gold\n\nAcme pays.\n\n\
                   ## Usage\n\nRun it.\n";
        let doc = crate::text::parse(src, crate::text::Format::Markdown);
        assert_eq!(back_matter_sections(&doc), vec![false, true, true, false]);
    }
}
