//! Parallel openings: units that open alike, one after another, are the items of an implicit
//! list, not steps of running prose.
//!
//! A speech's grievances ("He has refused …", "He has called together …", "He has dissolved …")
//! or a history's dated entries ("Debian 6.0 Squeeze (February 2011): …", "Debian 7.0 Wheezy (May
//! 2013): …") follow one another because they are alike, not because each takes up the last one's
//! words. Where at least [`MIN_RUN`] adjacent units open with the same two words (numbers count
//! as one word, whatever their digits), or are all entries of a directory or a timeline
//! ("Urbanility - French website …", "August: LDAP:// and FILE:// support added."), the
//! transitions inside that run are not judged, as those between the items of a marked-up list
//! are not. A unit planted among them breaks the run.

use unicode_segmentation::UnicodeSegmentation;

/// The fewest adjacent units that open alike to make a run: two units opening alike is common
/// ("It is …", "The …"); three in a row is a pattern the writer chose.
pub const MIN_RUN: usize = 3;

/// The opening of a unit's first sentence as it counts for a run: [`ENTRY`] for the entry of a
/// directory ([`entry`]) or a timeline ([`labelled`]), else its first two words, lowercased,
/// with every number as `#`. `None` when it has fewer than two words.
pub fn opening(sentence: &str) -> Option<String> {
    if entry(sentence) || labelled(sentence) {
        return Some(ENTRY.to_string());
    }
    let mut words = sentence.unicode_words().map(|w| {
        if w.chars().any(|c| c.is_ascii_digit())
            && w.chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            "#".to_string()
        } else {
            w.to_lowercase()
        }
    });
    let (first, second) = (words.next()?, words.next()?);
    Some(format!("{first} {second}"))
}

/// The opening every entry of a directory or a timeline shares ([`entry`], [`labelled`]).
pub const ENTRY: &str = "<name> -";

/// The most words of the name that opens a directory entry.
const MAX_NAME_WORDS: usize = 6;

/// Whether `sentence` opens an entry of a directory set as paragraphs: a short name, a spaced
/// dash, then what the name is ("Urbanility - French website for local neighbourhood assets",
/// "SABnzbd – Open Source Binary Newsreader written in Python"), as a project's "who uses it"
/// page or a README's list of related tools gives them. Entries of a run follow one another
/// because they are alike, whatever their names.
pub fn entry(sentence: &str) -> bool {
    let Some((at, dash)) = [" - ", " – ", " — "]
        .into_iter()
        .filter_map(|d| sentence.find(d).map(|at| (at, d)))
        .min()
    else {
        return false;
    };
    let name = &sentence[..at];
    let words = name.unicode_words().count();
    let what = sentence[at + dash.len()..].trim();
    // "Python - like most languages - has …": a dash that a second one closes a few words on
    // sets off an aside.
    let aside = what
        .find(dash)
        .is_some_and(|close| what[..close].unicode_words().count() <= MAX_NAME_WORDS);
    (1..=MAX_NAME_WORDS).contains(&words)
        && !aside
        && !name.contains(". ")
        && !name.contains([',', ';', ':', '!', '?', '(', '"', '“'])
        && name.chars().next().is_some_and(|c| !c.is_lowercase())
        && what
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || matches!(c, '"' | '“'))
}

/// The most words of a label before its colon ([`labelled`]).
const MAX_LABEL_WORDS: usize = 3;

/// Whether `sentence` opens with a short label and a colon, then says what it labels: a
/// timeline's "August: LDAP:// and FILE:// support added.", "December 28: added the project on
/// Sourceforge …", a step's "Step 2: run the tests.". The label dates or names what follows;
/// entries so labelled follow one another because they are alike, like [`entry`]'s.
pub fn labelled(sentence: &str) -> bool {
    let Some((label, what)) = sentence.split_once(": ") else {
        return false;
    };
    let words = label.unicode_words().count();
    (1..=MAX_LABEL_WORDS).contains(&words)
        && label
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        && label
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '.' | '/' | '\''))
        && what.chars().next().is_some_and(char::is_alphanumeric)
}

/// `pairs` (adjacent units, as indices) without the pairs inside runs of at least [`MIN_RUN`]
/// units that open alike (`opening` gives a unit's opening). A run follows pairs that chain (one
/// pair's later unit is the next pair's earlier unit).
pub fn without_runs(
    pairs: Vec<(usize, usize)>,
    opening: impl Fn(usize) -> Option<String>,
) -> Vec<(usize, usize)> {
    let openings: Vec<(Option<String>, Option<String>)> = pairs
        .iter()
        .map(|&(a, b)| (opening(a), opening(b)))
        .collect();
    // Whether pair k joins two units that open alike.
    let alike: Vec<bool> = openings
        .iter()
        .map(|(a, b)| a.is_some() && a == b)
        .collect();
    without_chains(pairs, |k| alike[k], |units| units.len() >= MIN_RUN)
}

/// `pairs` without the pairs of every chain that `is_run` takes for a run. A chain is a maximal
/// stretch of pairs that each `joins` (given a pair's index) and that follow one another (one
/// pair's later unit is the next pair's earlier unit); `is_run` sees the units it goes through.
pub fn without_chains(
    pairs: Vec<(usize, usize)>,
    joins: impl Fn(usize) -> bool,
    is_run: impl Fn(&[usize]) -> bool,
) -> Vec<(usize, usize)> {
    let mut keep = vec![true; pairs.len()];
    let mut k = 0;
    while k < pairs.len() {
        if !joins(k) {
            k += 1;
            continue;
        }
        let mut end = k + 1;
        while end < pairs.len() && joins(end) && pairs[end].0 == pairs[end - 1].1 {
            end += 1;
        }
        // Pairs k..end chain through end - k + 1 units.
        let units: Vec<usize> = std::iter::once(pairs[k].0)
            .chain(pairs[k..end].iter().map(|p| p.1))
            .collect();
        if is_run(&units) {
            keep[k..end].iter_mut().for_each(|x| *x = false);
        }
        k = end;
    }
    pairs
        .into_iter()
        .zip(keep)
        .filter_map(|(p, keep)| keep.then_some(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_two_words_with_numbers_alike() {
        assert_eq!(
            opening("He has refused his Assent to Laws.").as_deref(),
            Some("he has")
        );
        assert_eq!(
            opening("Debian 7.0 Wheezy (May 2013): named for the rubber toy penguin.").as_deref(),
            Some("debian #")
        );
        assert_eq!(
            opening("Debian 6.0 Squeeze (February 2011).").as_deref(),
            Some("debian #")
        );
        assert_eq!(opening("Done."), None);
    }

    #[test]
    fn directory_entries_open_alike() {
        // CherryPy's "Why CherryPy?" page lists the sites that run it, one paragraph each.
        for entry_text in [
            "Urbanility - French website for local neighbourhood assets in Rennes, France.",
            "Almad's Homepage - Simple homepage with blog.",
            "Fight.Watch - Twitch.tv web portal for fighting games.",
            "SABnzbd – Open Source Binary Newsreader written in Python.",
            "Headphones  - Third-party add-on for SABnzbd.",
        ] {
            assert_eq!(opening(entry_text).as_deref(), Some(ENTRY), "{entry_text}");
        }
        for prose in [
            "Python - like most languages - has a garbage collector.",
            "the cache - when it is warm - answers at once.",
            "It works well, though - most of the time.",
            "Rennes is in France.",
            "Version 3 - 2 = 1 is the joke.",
        ] {
            assert_ne!(opening(prose).as_deref(), Some(ENTRY), "{prose}");
        }
    }

    #[test]
    fn labelled_entries_open_alike() {
        // curl's history, one dated entry per paragraph.
        for entry_text in [
            "August: LDAP:// and FILE:// support added.",
            "December 28: added the project on Sourceforge and started using its services.",
            "Step 2: run the tests.",
        ] {
            assert!(labelled(entry_text), "{entry_text}");
            assert_eq!(opening(entry_text).as_deref(), Some(ENTRY), "{entry_text}");
        }
        for prose in [
            "The reason is simple: nobody asked.",
            "Note that the rule has one exception: a list.",
            "He said it plainly: \"no\".",
            "OpenSSL took over and SSLeay was abandoned.",
        ] {
            assert!(!labelled(prose), "{prose}");
        }
    }

    #[test]
    fn runs_of_three_alike_are_not_judged() {
        // As the Declaration of Independence lists its grievances.
        let units = [
            "The history of the present King is a history of repeated injuries.",
            "He has refused his Assent to Laws.",
            "He has forbidden his Governors to pass Laws.",
            "He has called together legislative bodies at places unusual.",
            "In every stage of these Oppressions We have Petitioned for Redress.",
        ];
        let pairs: Vec<(usize, usize)> = (1..units.len()).map(|i| (i - 1, i)).collect();
        let kept = without_runs(pairs.clone(), |i| opening(units[i]));
        assert_eq!(kept, vec![(0, 1), (3, 4)]);
        // Two alike are not a run.
        let two = [units[0], units[1], units[2], units[4]];
        let pairs3: Vec<(usize, usize)> = (1..two.len()).map(|i| (i - 1, i)).collect();
        assert_eq!(without_runs(pairs3.clone(), |i| opening(two[i])), pairs3);
        // A unit planted in the middle breaks the run.
        let planted = [
            units[1],
            units[2],
            "Penguins waddle across the ice.",
            units[3],
        ];
        let pairs4: Vec<(usize, usize)> = (1..planted.len()).map(|i| (i - 1, i)).collect();
        assert_eq!(
            without_runs(pairs4.clone(), |i| opening(planted[i])),
            pairs4
        );
        // A run does not chain across a gap between pairs.
        assert_eq!(
            without_runs(vec![(1, 2), (3, 4)], |i| opening(units[i.min(3)])),
            vec![(1, 2), (3, 4)]
        );
    }
}
