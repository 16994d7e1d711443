//! Opening cues: the connectives, anaphors and demonstratives with which a unit announces that it
//! leans on what comes before it (*however*, *for example*, *this*, *they*, …).
//!
//! A writer who opens a sentence with such a cue has marked the link explicitly, so the cue is
//! both a feature of the `tier0` model and evidence that findings weigh (a unit that opens with a
//! cue is not weak for lack of shared words).

use super::memo::Memo;
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

/// Kinds of opening cue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cue {
    Contrast,
    Result,
    Addition,
    Example,
    Sequence,
    Opening,
    Personal,
    Demonstrative,
    /// Quoted speech: a turn of a dialogue.
    Quotation,
    /// A pointer on to more about what was just said, anywhere in the sentence ("Watch the talk
    /// to learn more.").
    Pointer,
    /// An answer: the unit before ends with a question ([`asks`]), which this one takes up
    /// ("Why not make it configurable? Because …", "Is Debian free? Yes.").
    Answer,
    /// A question: the unit opens by asking what the text goes on to take up ("Want to chat?",
    /// "Why can a program deviate from the instructions given by its author?"), a turn the
    /// writer marks.
    Question,
}

/// An explicit link ([`explicit_link`]): its kind and the words that make it ("However", "In
/// this case", "this", "they"), for messages that quote them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Link {
    /// The kind of link.
    pub cue: Cue,
    /// The words of the sentence that make it, as written (for an [`Cue::Answer`], the question
    /// mark of the sentence before).
    pub words: String,
}

/// Whether `word` names the writer or the reader ("you", "we", "your", "our", "us", in any
/// case): a [`Cue::Personal`] opening that addresses someone rather than referring back.
pub fn speaker_or_reader(word: &str) -> bool {
    ["you", "we", "your", "our", "us", "yours", "ours"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(word.trim()))
}

/// Opening phrases and their kinds; longer phrases are tried first.
const CUES: &[(&str, Cue)] = &[
    ("however", Cue::Contrast),
    ("but", Cue::Contrast),
    ("yet", Cue::Contrast),
    ("nevertheless", Cue::Contrast),
    ("nonetheless", Cue::Contrast),
    ("still", Cue::Contrast),
    ("instead", Cue::Contrast),
    ("conversely", Cue::Contrast),
    ("though", Cue::Contrast),
    ("whereas", Cue::Contrast),
    ("otherwise", Cue::Contrast),
    ("rather", Cue::Contrast),
    ("unfortunately", Cue::Contrast),
    ("on the other hand", Cue::Contrast),
    ("in contrast", Cue::Contrast),
    ("by contrast", Cue::Contrast),
    ("on the contrary", Cue::Contrast),
    ("even so", Cue::Contrast),
    ("therefore", Cue::Result),
    ("thus", Cue::Result),
    ("hence", Cue::Result),
    ("so", Cue::Result),
    ("consequently", Cue::Result),
    ("accordingly", Cue::Result),
    ("as a result", Cue::Result),
    ("for this reason", Cue::Result),
    ("in short", Cue::Result),
    ("in summary", Cue::Result),
    ("in conclusion", Cue::Result),
    ("to summarize", Cue::Result),
    ("overall", Cue::Result),
    ("all in all", Cue::Result),
    ("to sum up", Cue::Result),
    ("in sum", Cue::Result),
    ("in brief", Cue::Result),
    ("in a nutshell", Cue::Result),
    ("also", Cue::Addition),
    ("moreover", Cue::Addition),
    ("furthermore", Cue::Addition),
    ("additionally", Cue::Addition),
    ("besides", Cue::Addition),
    ("likewise", Cue::Addition),
    ("similarly", Cue::Addition),
    ("in addition", Cue::Addition),
    ("and", Cue::Addition),
    ("or", Cue::Addition),
    ("nor", Cue::Addition),
    ("again", Cue::Addition),
    ("what is more", Cue::Addition),
    ("for example", Cue::Example),
    ("for instance", Cue::Example),
    ("in particular", Cue::Example),
    ("specifically", Cue::Example),
    ("namely", Cue::Example),
    ("that is", Cue::Example),
    ("in other words", Cue::Example),
    ("indeed", Cue::Example),
    ("in fact", Cue::Example),
    ("of course", Cue::Example),
    ("after all", Cue::Example),
    ("especially", Cue::Example),
    ("notably", Cue::Example),
    ("then", Cue::Sequence),
    ("next", Cue::Sequence),
    ("finally", Cue::Sequence),
    ("lastly", Cue::Sequence),
    ("second", Cue::Sequence),
    ("secondly", Cue::Sequence),
    ("third", Cue::Sequence),
    ("thirdly", Cue::Sequence),
    ("afterwards", Cue::Sequence),
    ("afterward", Cue::Sequence),
    ("later", Cue::Sequence),
    ("subsequently", Cue::Sequence),
    ("eventually", Cue::Sequence),
    ("meanwhile", Cue::Sequence),
    ("in the end", Cue::Sequence),
    ("at last", Cue::Sequence),
    ("first", Cue::Opening),
    ("firstly", Cue::Opening),
    ("first of all", Cue::Opening),
    ("to begin", Cue::Opening),
    ("initially", Cue::Opening),
    ("at first", Cue::Opening),
    ("he", Cue::Personal),
    ("she", Cue::Personal),
    ("it", Cue::Personal),
    ("they", Cue::Personal),
    ("his", Cue::Personal),
    ("her", Cue::Personal),
    ("its", Cue::Personal),
    ("their", Cue::Personal),
    ("him", Cue::Personal),
    ("them", Cue::Personal),
    ("this", Cue::Demonstrative),
    ("these", Cue::Demonstrative),
    ("that", Cue::Demonstrative),
    ("those", Cue::Demonstrative),
    ("such", Cue::Demonstrative),
    ("both", Cue::Demonstrative),
    ("another", Cue::Demonstrative),
    ("the latter", Cue::Demonstrative),
    ("the former", Cue::Demonstrative),
    ("the same", Cue::Demonstrative),
    ("the other", Cue::Demonstrative),
];

/// Opening quotation marks: a sentence that opens with one is quoted speech, a turn of a
/// dialogue that leans on the turn before it.
const OPENING_QUOTES: &[char] = &['"', '“', '‘', '`', '\'', '«', '„', '‹'];

/// The opening cue of `sentence`, with the words that make it up as written, if it has one.
/// Longer phrases win over shorter ones ("on the other hand" over "on").
pub fn opening_cue(sentence: &str) -> Option<(Cue, String)> {
    let head: Vec<&str> = sentence.unicode_words().take(4).collect();
    let lower: Vec<String> = head.iter().map(|w| w.to_lowercase()).collect();
    longest_opening(CUES.iter(), &lower).map(|(cue, n)| (cue, head[..n].join(" ")))
}

/// The longest of `phrases` that `lower` (a sentence's first words, lower-cased) opens with,
/// with its length in words.
fn longest_opening<'p>(
    phrases: impl Iterator<Item = &'p (&'static str, Cue)>,
    lower: &[String],
) -> Option<(Cue, usize)> {
    let mut best: Option<(Cue, usize)> = None;
    for &(phrase, cue) in phrases {
        // The words compared first: most phrases differ at their first word.
        if !phrase.split(' ').zip(lower).all(|(p, w)| p == w) {
            continue;
        }
        let n = phrase.split(' ').count();
        if n <= lower.len() && best.is_none_or(|(_, m)| n > m) {
            best = Some((cue, n));
        }
    }
    best
}

/// Opening phrases that link back without being one of the `tier0` model's cues (which stay as
/// trained): a demonstrative inside a short phrase, or an adverb that points to what was just said.
const LINKING_PHRASES: &[(&str, Cue)] = &[
    ("in this case", Cue::Demonstrative),
    ("in that case", Cue::Demonstrative),
    ("in that spirit", Cue::Demonstrative),
    ("because of that", Cue::Result),
    ("for that reason", Cue::Result),
    ("with that", Cue::Sequence),
    ("in such cases", Cue::Demonstrative),
    ("in this way", Cue::Demonstrative),
    ("to do this", Cue::Demonstrative),
    ("to do so", Cue::Demonstrative),
    ("in doing so", Cue::Demonstrative),
    ("because of this", Cue::Result),
    ("as such", Cue::Result),
    ("in turn", Cue::Sequence),
    ("as a consequence", Cue::Result),
    ("further", Cue::Addition),
    ("in the meantime", Cue::Sequence),
    ("at the same time", Cue::Addition),
    ("in practice", Cue::Example),
    ("here", Cue::Demonstrative),
    ("now", Cue::Sequence),
    ("if so", Cue::Result),
    ("if not", Cue::Contrast),
    ("unlike", Cue::Contrast),
    ("despite", Cue::Contrast),
    ("although", Cue::Contrast),
    ("while", Cue::Contrast),
    ("when", Cue::Sequence),
    ("after", Cue::Sequence),
    ("before", Cue::Sequence),
    ("once", Cue::Sequence),
    ("we", Cue::Personal),
    ("you", Cue::Personal),
    // An example of what was just said, under a label ("Example: 'fmt - filter for simple
    // filling of text'.", "Some examples are: …").
    ("example", Cue::Example),
    ("examples", Cue::Example),
    ("some examples", Cue::Example),
    ("e.g", Cue::Example),
    ("to a lesser extent", Cue::Addition),
    ("to a greater extent", Cue::Addition),
    // A comparison with what was just said ("Similar problems could prevent Emacs from
    // building", "Other systems allow …").
    ("similar", Cue::Addition),
    ("a similar", Cue::Addition),
    ("other", Cue::Addition),
    // A definite shell noun ("The idea is called tar pitting") is [`shell_noun`].
    ("the first", Cue::Sequence),
    ("the second", Cue::Sequence),
    ("the next", Cue::Sequence),
    ("the last", Cue::Sequence),
    // A pointer to more on what was just said ("See the FAQ for details.").
    ("see", Cue::Demonstrative),
    ("for more", Cue::Addition),
    ("for details", Cue::Addition),
    ("for further", Cue::Addition),
    ("for info", Cue::Addition),
    ("for information", Cue::Addition),
    // An aside the writer marks as one.
    ("note", Cue::Addition),
    ("tip", Cue::Addition),
    ("warning", Cue::Addition),
    ("caution", Cue::Addition),
    ("nb", Cue::Addition),
    ("n.b", Cue::Addition),
    // A turn to the next topic that the writer marks as one ("As for control issues, …",
    // "Concerning the total volume of material, …").
    ("as for", Cue::Sequence),
    ("as to", Cue::Sequence),
    ("as regards", Cue::Sequence),
    ("regarding", Cue::Sequence),
    ("concerning", Cue::Sequence),
    ("with regard to", Cue::Sequence),
    ("with respect to", Cue::Sequence),
    ("speaking of", Cue::Sequence),
    ("turning to", Cue::Sequence),
    // A reminder of what was said before ("Recall that by extension, …", "As noted above, …").
    ("recall that", Cue::Demonstrative),
    ("remember that", Cue::Demonstrative),
    ("as mentioned", Cue::Demonstrative),
    ("as noted", Cue::Demonstrative),
    ("as discussed", Cue::Demonstrative),
    ("as described", Cue::Demonstrative),
    ("as explained", Cue::Demonstrative),
    ("as shown", Cue::Demonstrative),
    ("as we saw", Cue::Demonstrative),
    ("as we have seen", Cue::Demonstrative),
    ("as you can see", Cue::Demonstrative),
    ("as before", Cue::Demonstrative),
    ("as above", Cue::Demonstrative),
    // A hypothetical or a case set up to show what was just said ("Imagine we want to download
    // the HTML source of …", "Consider the unsung heroine, groupby.").
    ("imagine", Cue::Example),
    ("suppose", Cue::Example),
    ("consider", Cue::Example),
];

/// Sentence adverbs that say how a sentence stands to what was just said ([`sentence_adverb`]):
/// conjunctive ("Alternatively", "Independently", "Incidentally") and evaluative of what was
/// just said ("Fortunately", "Surprisingly", "Admittedly"). Adverbs of frequency, generality or
/// stance ("Typically", "Generally", "Obviously") are not among them: they open a statement
/// that stands on its own as often as one that follows on.
const SENTENCE_ADVERBS: &[&str] = &[
    "admittedly",
    "alternatively",
    "analogously",
    "correspondingly",
    "equally",
    "fittingly",
    "fortunately",
    "importantly",
    "incidentally",
    "independently",
    "interestingly",
    "ironically",
    "luckily",
    "naturally",
    "inevitably",
    "curiously",
    "oddly",
    "strangely",
    "thankfully",
    "happily",
    "predictably",
    "regrettably",
    "relatedly",
    "sadly",
    "separately",
    "suitably",
    "surprisingly",
    "understandably",
    "unsurprisingly",
];

/// The sentence adverb with which `sentence` opens, set off by a comma ("Fortunately, Vim supports
/// both methods", "Independently, a first proposal …"): the writer's comment on how the sentence
/// stands to what was just said, as a connective is.
fn sentence_adverb(sentence: &str) -> Option<&str> {
    set_off_opening(sentence, SENTENCE_ADVERBS, &[','])
}

/// The word of `words` with which `sentence` opens, as written, when one of `marks` sets it off
/// right after it ("Fortunately, …", "Ah!, but …").
fn set_off_opening<'s>(sentence: &'s str, words: &[&str], marks: &[char]) -> Option<&'s str> {
    let t = sentence.trim_start();
    let end = t.find(|c: char| !c.is_alphabetic())?;
    let (word, rest) = t.split_at(end);
    (rest.starts_with(marks) && words.contains(&word.to_lowercase().as_str())).then_some(word)
}

/// Interjections that, set off at a sentence's start, react to what was just said ("Ah!, but be
/// aware that …", "Well, that depends.", "Alas, …"). Not "Yes" and "No": they answer a question,
/// and where none stands before them they are out of place (an FAQ's answer moved elsewhere).
const INTERJECTIONS: &[&str] = &["ah", "oh", "well", "alas", "anyway"];

/// The interjection with which `sentence` opens, set off by a comma, an exclamation mark or a
/// dash, as written.
fn interjection(sentence: &str) -> Option<&str> {
    set_off_opening(sentence, INTERJECTIONS, &[',', '!', '—', '–'])
}

/// "This" and "that" standing for something said before when punctuation follows them at once
/// among a sentence's first words ("Beyond *that*, we recommend …", "I've nothing to add about
/// *that*, but …"): the conjunction "that" and a determiner are never followed by a comma.
fn standing_pronoun(sentence: &str) -> Option<String> {
    let t = sentence.trim_start();
    t.unicode_word_indices()
        .take(POINTER_REACH)
        .find(|(at, word)| {
            matches!(word.to_lowercase().as_str(), "this" | "that")
                && t[at + word.len()..].starts_with([',', ';', ':', '.', '!', '?'])
        })
        .map(|(_, word)| word.to_string())
}

/// The position of "for example" or "for instance" among a sentence's first words, set inside
/// the clause ("Consider *for example* the unsung heroine", "The parser is, *for instance*,
/// slow"): like "however" there, it presents the sentence as an example of what was just said.
fn inner_example(lower: &[String]) -> Option<usize> {
    lower
        .windows(2)
        .take(POINTER_REACH)
        .position(|w| w[0] == "for" && (w[1] == "example" || w[1] == "instance"))
}

/// Demonstratives that, as the subject right after a sentence's fronted phrase, point back as
/// surely as at its start ("In combination with other packages that use a lot of them, *this*
/// can go over the limits").
const FRONTED_POINTERS: &[&str] = &["this", "that", "these", "those"];

/// Verbs and auxiliaries that, after a [`FRONTED_POINTERS`] word, make it the subject rather
/// than a determiner ("this *can* go", not "this file").
const SUBJECT_VERBS: &[&str] = &[
    "is", "are", "was", "were", "can", "could", "will", "would", "may", "might", "must", "should",
    "shall", "does", "do", "did", "has", "have", "had", "means", "meant", "makes", "made", "gives",
    "lets", "allows", "requires", "works", "happens", "helps", "leads",
];

/// How far into a sentence (in words) its first comma may stand for [`fronted_pointer`].
const FRONTED_REACH: usize = 20;

/// The demonstrative that stands as the subject right after the phrase a sentence opens with
/// ("In combination with …, *this* can go over the limits"), if any.
fn fronted_pointer(sentence: &str) -> Option<String> {
    let t = sentence.trim_start();
    let comma = t.find(',')?;
    if t[..comma].unicode_words().count() > FRONTED_REACH {
        return None;
    }
    let mut after = t[comma + 1..].unicode_words();
    let subject = after.next()?;
    let lower = subject.to_lowercase();
    let verb = match lower.rsplit_once(['\'', '’']) {
        // "that's", "this'll": the verb is contracted onto the subject.
        Some((stem, _)) if FRONTED_POINTERS.contains(&stem) => return Some(subject.to_string()),
        _ => after.next()?.to_lowercase(),
    };
    (FRONTED_POINTERS.contains(&lower.as_str()) && SUBJECT_VERBS.contains(&verb.as_str()))
        .then(|| subject.to_string())
}

/// Words that point back to something already said when they appear near a sentence's start:
/// demonstratives ("There are exceptions to *this* rule") and connectives inside the clause ("It
/// *also* adds a flag", "The parser is, *however*, slow").
const POINTERS: &[&str] = &[
    "this",
    "these",
    "those",
    "such",
    "above",
    "aforementioned",
    "latter",
    "former",
    "resulting",
    "same",
    "also",
    "again",
    "however",
    "therefore",
    "thus",
    "instead",
    "otherwise",
];

/// How far into a sentence (in words) a pointer still marks a link to what came before.
const POINTER_REACH: usize = 8;

/// How far into a sentence (in words) "these" ([`PLURAL_POINTERS`]) still marks a link: "If you
/// feel a social pressure not to say *these* things, …" (the tenth word).
const PLURAL_REACH: usize = 12;

/// Demonstratives that, later in a sentence than [`POINTER_REACH`], still point back: "these"
/// rarely points ahead or stands for a clause of its own sentence, as "this" and "that" do, nor
/// opens a restrictive phrase, as "those who" does.
const PLURAL_POINTERS: &[&str] = &["these"];

/// Whether the word at `i` of `lower` is the "such" of "such as", which introduces examples
/// ("Tools such as k6 …") rather than pointing back.
fn such_as(lower: &[String], i: usize) -> bool {
    lower[i] == "such" && lower.get(i + 1).is_some_and(|w| w == "as")
}

/// Words that open a subject naming an example ("*A common* example would be …").
const EXAMPLE_ARTICLES: &[&str] = &["a", "an", "one"];

/// The length in words of a subject that names an example of what was just said ("A common
/// example would be exposing metrics …", "One example is …", "A good example of this is …"): an
/// article, at most two modifiers, and "example" or "examples".
fn example_subject(lower: &[String]) -> Option<usize> {
    if !EXAMPLE_ARTICLES.contains(&lower.first()?.as_str()) {
        return None;
    }
    lower
        .iter()
        .take(4)
        .position(|w| w == "example" || w == "examples")
        .filter(|&i| i > 0)
        .map(|i| i + 1)
}

/// Shell nouns: abstract nouns that, made definite, sum up or take up what was just said ("*The
/// practice* began in …", "*The explicit exceptions* are …", "*The alternative* is to …").
const SHELL_NOUNS: &[&str] = &[
    "idea",
    "issue",
    "problem",
    "cause",
    "solution",
    "reason",
    "result",
    "answer",
    "point",
    "goal",
    "aim",
    "purpose",
    "difference",
    "advantage",
    "benefit",
    "downside",
    "drawback",
    "catch",
    "caveat",
    "trick",
    "rest",
    "remainder",
    "practice",
    "alternative",
    "approach",
    "explanation",
    "exception",
    "consequence",
    "effect",
    "outcome",
    "upshot",
    "lesson",
    "rationale",
    "motivation",
    "choice",
    "decision",
    "remedy",
    "workaround",
    "limitation",
    "implication",
    "conclusion",
    "distinction",
    "situation",
    "question",
];

/// Words that, right after a shell noun, say that it names what follows rather than what was
/// said ("The problem *of* deadlocks is …", "The difference *between* …").
const SHELL_COMPLEMENTS: &[&str] = &["of", "between", "with", "for", "to", "in", "on", "from"];

/// The length in words of a definite shell-noun subject that takes up what was just said ("The
/// practice", "The explicit exceptions", "Often the difference"): "the" (after at most one adverb
/// of frequency), at most one modifier other than "following", and a
/// [`SHELL_NOUNS`] word, singular or plural, not followed by a complement that names what it is
/// about instead ("The problem of deadlocks is …"; "The rest of …" always takes up what was
/// said).
fn shell_noun(lower: &[String]) -> Option<usize> {
    // A fronted adverb of frequency first ("Often the difference is not too big").
    let skip = usize::from(
        lower
            .first()
            .is_some_and(|w| FREQUENCY_ADVERBS.contains(&w.as_str())),
    );
    let lower = &lower[skip..];
    if lower.first()? != "the" || lower.get(1).is_some_and(|w| w == "following") {
        return None;
    }
    let is_shell = |w: &str| {
        SHELL_NOUNS.contains(&w)
            || w.strip_suffix('s').is_some_and(|stem| {
                SHELL_NOUNS.contains(&stem)
                    || stem
                        .strip_suffix('e')
                        .is_some_and(|s| SHELL_NOUNS.contains(&s))
            })
    };
    let n = (1..3).find(|&i| lower.get(i).is_some_and(|w| is_shell(w)))? + 1;
    // "The rest of …" takes up the part not yet said, whatever follows it.
    let partitive = matches!(lower[n - 1].as_str(), "rest" | "remainder");
    let complemented = lower
        .get(n)
        .is_some_and(|w| SHELL_COMPLEMENTS.contains(&w.as_str()));
    (partitive || !complemented).then_some(skip + n)
}

/// Adverbs of frequency that may stand before a [`shell_noun`] subject.
const FREQUENCY_ADVERBS: &[&str] = &["often", "sometimes", "usually", "typically", "generally"];

/// Whether the word at `i` points back wherever it stands among a sentence's first words: the
/// pronoun "that" in "that's" (which cannot be the conjunction "that"). ("Do so" points back
/// wherever it stands in the sentence: [`stands_for_an_action`].)
fn points_back(original: &[&str], i: usize) -> bool {
    let word = original[i].to_lowercase();
    matches!(word.as_str(), "that's" | "that’s")
}

/// Third-person pronouns: near a sentence's start they stand for someone or something named
/// before ("If it doesn't find *it*, …", "Alice looked down at *them*").
const PRONOUNS: &[&str] = &[
    "it", "its", "they", "them", "their", "he", "him", "his", "she", "her",
];

/// How far into a sentence (in words) a third-person pronoun still marks a link: a pronoun later
/// in a long sentence usually refers to something inside the sentence itself.
const PRONOUN_REACH: usize = 5;

/// Endings of English contractions, after the apostrophe ("It*'s*", "You*'re*", "We*'d*").
const CONTRACTION_ENDINGS: &[&str] = &["s", "re", "ll", "d", "ve", "m"];

/// `word` in lower case without a contraction's ending: "That's" → "that", "You're" → "you".
/// Other words (including "don't") are only lowered.
fn base_word(word: &str) -> String {
    let lower = word.to_lowercase();
    match lower.rsplit_once(['\'', '’']) {
        Some((stem, ending)) if !stem.is_empty() && CONTRACTION_ENDINGS.contains(&ending) => {
            stem.to_string()
        }
        _ => lower,
    }
}

/// Sentences whose explicit link [`explicit_link`] keeps (per generation; see [`Memo`]).
const MEMO_SENTENCES: usize = 16_384;

/// The explicit link with which `sentence` leans on what comes before it: its opening cue
/// ([`opening_cue`]), a linking phrase, or a pointer word among its first words. `None` when the
/// sentence opens with nothing of the kind. Memoized per sentence text for the whole process
/// (every analysis reads it for the first sentence of every unit).
pub fn explicit_link(sentence: &str) -> Option<(Cue, String)> {
    static MEMO: OnceLock<Memo<Option<(Cue, String)>>> = OnceLock::new();
    MEMO.get_or_init(|| Memo::new(MEMO_SENTENCES))
        .get_or(sentence, read_explicit_link)
}

/// [`explicit_link`], computed.
fn read_explicit_link(sentence: &str) -> Option<(Cue, String)> {
    if let Some(cue) = opening_cue(sentence) {
        return Some(cue);
    }
    if let Some(q) = sentence
        .trim_start()
        .chars()
        .next()
        .filter(|c| OPENING_QUOTES.contains(c))
    {
        return Some((Cue::Quotation, q.to_string()));
    }
    if let Some(open) = parenthetical(sentence) {
        return Some((Cue::Addition, open.to_string()));
    }
    let words: Vec<&str> = sentence.unicode_words().take(PLURAL_REACH).collect();
    let lower: Vec<String> = words.iter().map(|w| base_word(w)).collect();
    // The model's own cues, also when contracted ("That's", "It's", "They're").
    if let Some((cue, n)) = longest_opening(CUES.iter().chain(LINKING_PHRASES), &lower) {
        return Some((cue, words[..n].join(" ")));
    }
    if let Some(adverb) = sentence_adverb(sentence) {
        return Some((Cue::Addition, adverb.to_string()));
    }
    if let Some(n) = example_subject(&lower) {
        return Some((Cue::Example, words[..n].join(" ")));
    }
    if let Some(n) = shell_noun(&lower) {
        return Some((Cue::Demonstrative, words[..n].join(" ")));
    }
    lower
        .iter()
        .enumerate()
        .find_map(|(i, w)| {
            if i >= POINTER_REACH {
                PLURAL_POINTERS
                    .contains(&w.as_str())
                    .then_some((Cue::Demonstrative, i))
            } else if (POINTERS.contains(&w.as_str()) && !such_as(&lower, i))
                || points_back(&words, i)
            {
                Some((Cue::Demonstrative, i))
            } else if i < PRONOUN_REACH && PRONOUNS.contains(&w.as_str()) {
                Some((Cue::Personal, i))
            } else {
                None
            }
        })
        .map(|(cue, i)| (cue, words[i].to_string()))
        .or_else(|| stands_for_an_action(sentence).map(|w| (Cue::Demonstrative, w)))
        .or_else(|| fronted_pointer(sentence).map(|w| (Cue::Demonstrative, w)))
        .or_else(|| standing_pronoun(sentence).map(|w| (Cue::Demonstrative, w)))
        .or_else(|| inner_example(&lower).map(|n| (Cue::Example, words[n..n + 2].join(" "))))
        .or_else(|| points_to_more(sentence).map(|p| (Cue::Pointer, p.to_string())))
        .or_else(|| points_to_address(sentence).map(|w| (Cue::Pointer, w)))
        .or_else(|| interjection(sentence).map(|w| (Cue::Addition, w.to_string())))
}

/// Forms of "do" that, before "so", stand for an action named before ("Anyone who tries to sell
/// you on the idea that they *do so* is simply mistaken.").
const DO_FORMS: &[&str] = &["do", "does", "did", "doing", "done"];

/// The "do so" of `sentence`, as written, wherever it stands: it always stands for an action that
/// the text before it names.
fn stands_for_an_action(sentence: &str) -> Option<String> {
    let words: Vec<&str> = sentence.unicode_words().collect();
    words.windows(2).find_map(|w| {
        (DO_FORMS.contains(&w[0].to_lowercase().as_str()) && w[1].eq_ignore_ascii_case("so"))
            .then(|| format!("{} {}", w[0], w[1]))
    })
}

/// Phrases that send the reader on for more on what was just said, wherever they stand in the
/// sentence ("Watch the PyCon 2019 talk *to learn more*.", "The Twilio blog has a *deeper dive*.").
const MORE_POINTERS: &[&str] = &[
    "learn more",
    "read more",
    "find out more",
    "more information",
    "more details",
    "more detail",
    "full details",
    "deeper dive",
    "further reading",
    "further details",
    "further information",
    "see also",
];

/// The phrase of [`MORE_POINTERS`] that `sentence` holds, as whole words, if any.
fn points_to_more(sentence: &str) -> Option<&'static str> {
    let words: Vec<String> = sentence.unicode_words().map(str::to_lowercase).collect();
    MORE_POINTERS.iter().copied().find(|phrase| {
        let parts: Vec<&str> = phrase.split(' ').collect();
        words
            .windows(parts.len())
            .any(|w| w.iter().zip(&parts).all(|(a, b)| a == b))
    })
}

/// Verbs that send the reader to a web address ("Consult the howto guide at https://… for
/// recipes", "See <http://…> for the proxy").
const ADDRESS_VERBS: &[&str] = &[
    "see", "consult", "visit", "refer", "read", "check", "browse",
];

/// The verb of [`ADDRESS_VERBS`] with which `sentence` sends the reader to the web or mail
/// address it holds ([`super::tokens::addresses`]), as written: a pointer to more, like
/// [`MORE_POINTERS`].
fn points_to_address(sentence: &str) -> Option<String> {
    if super::tokens::addresses(sentence).is_empty() {
        return None;
    }
    sentence
        .unicode_words()
        .find(|w| ADDRESS_VERBS.contains(&w.to_lowercase().as_str()))
        .map(str::to_string)
}

/// Characters that may close a sentence after its question mark: quotes, brackets and the
/// emphasis marks of Markdown and reStructuredText (`**Why not?**`, "“Who is it?”").
const CLOSERS: &[char] = &['"', '”', '’', '\'', '»', '›', ')', ']', '}', '*', '_', '`'];

/// Whether `sentence` asks a question: it ends with a question mark, before any closing quotes,
/// brackets or emphasis marks. The unit after such a sentence answers it or takes it up, which
/// links the two as surely as an opening "However" would.
pub fn asks(sentence: &str) -> bool {
    sentence
        .trim_end()
        .trim_end_matches(CLOSERS)
        .ends_with(['?', '？'])
}

/// The opening bracket of a sentence that stands wholly in parentheses or brackets ("(White space
/// is ignored between the entries.)"): a remark on what was just said, not a step of its own.
fn parenthetical(sentence: &str) -> Option<char> {
    let t = sentence.trim();
    let open = t.chars().next()?;
    let close = match open {
        '(' => ')',
        '[' => ']',
        _ => return None,
    };
    let body = t.trim_end_matches(['.', '!', '?']);
    let inner = body.strip_prefix(open)?.strip_suffix(close)?;
    // One bracketed span, not "(a) first … (b) second".
    (!inner.contains(close) && !inner.trim().is_empty()).then_some(open)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_is_asked_before_closing_quotes_and_emphasis() {
        // From the corpus: flask-design.rst, alice-in-wonderland.txt, debian-faq.txt.
        assert!(asks("Why shouldn't it?"));
        assert!(asks("\u{201c}Did you say pig, or fig?\u{201d}"));
        assert!(!asks(
            "\u{201c}Did you say pig, or fig?\u{201d} said the Cat."
        ));
        assert!(asks("**Is Debian free software?**"));
        assert!(asks("(Or does it?)"));
        assert!(asks("Who is it? "));
        assert!(!asks("The question is why it matters."));
        assert!(!asks("Is it? No."));
        assert!(!asks("See `?` for help."));
    }

    #[test]
    fn finds_the_longest_opening_phrase() {
        assert_eq!(
            opening_cue("On the other hand, it is slow."),
            Some((Cue::Contrast, "On the other hand".to_string()))
        );
        assert_eq!(
            opening_cue("In this case, start validating the input."),
            None
        );
        assert_eq!(
            opening_cue("This works."),
            Some((Cue::Demonstrative, "This".to_string()))
        );
        assert_eq!(
            opening_cue("Finally we stop.").map(|(c, _)| c),
            Some(Cue::Sequence)
        );
        assert_eq!(opening_cue("Penguins waddle."), None);
    }

    #[test]
    fn a_phrase_longer_than_the_sentence_does_not_open_it() {
        // "for example" starts with the whole sentence's only word.
        assert_eq!(opening_cue("For."), None);
        assert_eq!(
            opening_cue("For example, this."),
            Some((Cue::Example, "For example".to_string()))
        );
        // The longest phrase wins over a shorter one it starts with.
        assert_eq!(
            opening_cue("For this reason we stop.").map(|(c, _)| c),
            Some(Cue::Result)
        );
    }

    #[test]
    fn memoized_links_match_computed_ones() {
        for s in [
            "However, it works.",
            "This rule holds.",
            "Penguins waddle.",
            "“Go,” she said.",
        ] {
            assert_eq!(explicit_link(s), read_explicit_link(s));
            assert_eq!(explicit_link(s), read_explicit_link(s));
        }
    }

    #[test]
    fn explicit_links_include_phrases_and_pointers() {
        let link = |s: &str| explicit_link(s).map(|(_, w)| w);
        assert_eq!(
            link("In this case, start validating the input."),
            Some("In this case".to_string())
        );
        assert_eq!(
            link("To do this, open the file."),
            Some("To do this".to_string())
        );
        assert_eq!(
            link("There are exceptions to this rule."),
            Some("this".to_string())
        );
        assert_eq!(
            link("Exceptions to this rule exist."),
            Some("this".to_string())
        );
        assert_eq!(link("However, it fails."), Some("However".to_string()));
        assert_eq!(link("The moon is bright tonight."), None);
        assert_eq!(
            link("“Speak English!” said the Eaglet."),
            Some("“".to_string())
        );
        assert_eq!(link("Penguins waddle across Antarctic ice."), None);
        // From published documents: a narrative's "further on", a README's "the resulting
        // design".
        assert_eq!(
            link("Further on, from the bright red windows of the inn, there came such rays."),
            Some("Further".to_string())
        );
        assert_eq!(
            link("The resulting design is radically simpler than older competitors."),
            Some("resulting".to_string())
        );
        // A comparison with what was just said (Emacs's PROBLEMS file).
        assert_eq!(
            link("Similar problems could prevent Emacs from building."),
            Some("Similar".to_string())
        );
        assert_eq!(
            link("Other systems allow to set LD_RUN_PATH in a similar way."),
            Some("Other".to_string())
        );
        assert_eq!(link("Similarity search is fast."), None);
        assert_eq!(
            link("Example: 'fmt - filter for simple filling of text'."),
            Some("Example".to_string())
        );
    }

    #[test]
    fn definite_shell_nouns_and_reminders_link_back() {
        let link = |s: &str| explicit_link(s).map(|(_, w)| w);
        // Washington's 1796 message, RevTeX's guide, PARI's users' guide, TUGboat's guide.
        assert_eq!(
            link("The practice began in the reign of the first Congress."),
            Some("The practice".to_string())
        );
        assert_eq!(
            link("The explicit exceptions are genfrac and the ams math fonts."),
            Some("The explicit exceptions".to_string())
        );
        assert_eq!(
            link("The alternatives are worse."),
            Some("The alternatives".to_string())
        );
        assert_eq!(
            link("Recall that by extension, a number is exact."),
            Some("Recall that".to_string())
        );
        assert_eq!(
            link("As noted above, the cache is shared."),
            Some("As noted".to_string())
        );
        assert_eq!(
            link("The rest of the code is unchanged."),
            Some("The rest".to_string())
        );
        assert_eq!(
            link("Often the difference is not too big (maybe 1-2 %)."),
            Some("Often the difference".to_string())
        );
        assert_eq!(link("The following questions are common."), None);
        // xz's history, a TUGboat paper.
        assert_eq!(
            link("Naturally, the compression ratio varied across packages."),
            Some("Naturally".to_string())
        );
        assert_eq!(
            link("Ah!, but be aware that Computer Modern is a neoclassical font."),
            Some("Ah".to_string())
        );
        assert_eq!(link("Ahead of time compilation is fast."), None);
        // A shell noun with its own complement names what it is about.
        assert_eq!(link("The problem of deadlocks is old."), None);
        assert_eq!(
            link("The difference between them is small."),
            Some("them".to_string())
        );
        // Not a shell noun, or not definite.
        assert_eq!(link("The Python logo is trademarked."), None);
        assert_eq!(link("A practice run takes an hour."), None);
    }

    #[test]
    fn a_demonstrative_subject_after_a_fronted_phrase_links_back() {
        // pexpect's overview and qtree's notes.
        assert_eq!(
            explicit_link("Yes, that does appear to be DOS-style."),
            Some((Cue::Demonstrative, "that".to_string()))
        );
        assert_eq!(
            explicit_link(
                "In combination with other packages that use a lot of registers, this can go \
                 over the limits."
            ),
            Some((Cue::Demonstrative, "this".to_string()))
        );
        assert_eq!(
            explicit_link("With the birds gone south, that's the end of summer.").map(|(c, _)| c),
            Some(Cue::Demonstrative)
        );
        // toolz's control.rst, renpy's quickstart, tamethebeast.
        assert_eq!(
            explicit_link("Consider for example the unsung heroine, groupby.").map(|(c, _)| c),
            Some(Cue::Example)
        );
        assert_eq!(
            explicit_link("Memory is, for instance, not returned at once."),
            Some((Cue::Example, "for instance".to_string()))
        );
        assert_eq!(
            explicit_link("Imagine we want to download the HTML source of several pages.")
                .map(|(c, _)| c),
            Some(Cue::Example)
        );
        assert_eq!(
            explicit_link("Beyond that, we recommend checking out the forums."),
            Some((Cue::Demonstrative, "that".to_string()))
        );
        assert_eq!(
            explicit_link("I've nothing to add about that, but it is useful to know."),
            Some((Cue::Demonstrative, "that".to_string()))
        );
        assert_eq!(
            explicit_link("Suitably, a lot of work has gone into the standards.").map(|(c, _)| c),
            Some(Cue::Addition)
        );
        // Twisted's Deferred introduction sums up the paragraphs before.
        assert_eq!(
            explicit_link(
                "All in all, things are pretty good, and all of the explanation above holds."
            )
            .map(|(c, _)| c),
            Some(Cue::Result)
        );
        // The conjunction "that"; "for" without an example.
        assert_eq!(explicit_link("Birds know that winter is coming."), None);
        assert_eq!(explicit_link("Birds wait for examples of spring."), None);
        // A determiner, not a subject; no demonstrative after the comma.
        assert_eq!(
            explicit_link(
                "Far beyond the mountains and rivers of the southern continent, those nests \
                 fill quickly."
            ),
            None
        );
        assert_eq!(explicit_link("Yesterday, the birds flew south."), None);
    }

    #[test]
    fn asides_and_pointers_link_back() {
        // From grfguide.tex and flask-design.rst.
        assert_eq!(
            explicit_link("(White space is ignored between the entries.)"),
            Some((Cue::Addition, "(".to_string()))
        );
        assert_eq!(
            explicit_link("[Needs a recent kernel.]").map(|(c, _)| c),
            Some(Cue::Addition)
        );
        assert_eq!(
            explicit_link("See :doc:`/async-await` for more discussion.").map(|(c, _)| c),
            Some(Cue::Demonstrative)
        );
        assert!(explicit_link("For more details, read the manual.").is_some());
        // A pointer to more at the end of the sentence: README paragraphs that close a section.
        assert_eq!(
            explicit_link("Watch the PyCon 2019 talk to learn more."),
            Some((Cue::Pointer, "learn more".to_string()))
        );
        assert_eq!(
            explicit_link("The Twilio blog has a deeper dive to learn more.").map(|(c, _)| c),
            Some(Cue::Pointer)
        );
        assert_eq!(explicit_link("Birds learn moreover to fly."), None);
        // Curio's tutorial: a sentence that sends the reader to an address.
        assert_eq!(
            explicit_link(
                "Consult the \"howto\" guide at https://curio.readthedocs.io/en/latest/howto.html \
                 for cookbook-style coding recipes."
            ),
            Some((Cue::Pointer, "Consult".to_string()))
        );
        assert_eq!(explicit_link("Read the docs for recipes."), None);
        // sphinx-quickstart.rst: a cross-reference deep in its sentence.
        assert_eq!(
            explicit_link(
                "For a great introduction to writing docs in general -- the whys and hows, see \
                 also Write the docs, written by Eric Holscher."
            ),
            Some((Cue::Pointer, "see also".to_string()))
        );
        assert_eq!(
            explicit_link("Far away over the sea, migrating birds see their destination."),
            None
        );
        // gnu-maintain.txt: "these" as the tenth word; "this" as the tenth says nothing.
        assert_eq!(
            explicit_link(
                "If you feel a social pressure not to say these things, you may be wrong."
            ),
            Some((Cue::Demonstrative, "these".to_string()))
        );
        assert_eq!(
            explicit_link("Birds of many kinds fly south and return in this season."),
            None
        );
        assert_eq!(
            explicit_link(
                "Birds of many kinds fly south every winter and they return to these nests."
            ),
            None
        );
        // A README's closing pointer (unified).
        assert!(
            explicit_link("For info on how to submit a security report, see our policy.").is_some()
        );
        // A sentence that only starts with a bracket is not an aside.
        assert_eq!(explicit_link("(a) Cats purr, and (b) dogs bark."), None);
        assert_eq!(explicit_link("(Optional) Penguins waddle."), None);
        assert_eq!(explicit_link("Seeds grow."), None);
    }

    #[test]
    fn sentence_adverbs_notes_and_marked_turns_link_back() {
        let link = |s: &str| explicit_link(s).map(|(_, w)| w);
        // vim-usr_30.txt, latex-encguide.tex.
        assert_eq!(
            link("Fortunately, Vim supports both methods quite well."),
            Some("Fortunately".to_string())
        );
        assert_eq!(
            link("Independently, a first proposal was worked out by Justin Ziegler."),
            Some("Independently".to_string())
        );
        // Not set off by a comma, not an adverb, or an adverb of generality that opens a
        // statement of its own.
        assert_eq!(link("Fortunately Vim supports both methods."), None);
        assert_eq!(link("Italy, France and Spain border the sea."), None);
        assert_eq!(link("Typically, birds fly south in winter."), None);
        // debian-faq.txt: an aside marked as one.
        assert_eq!(
            link("NB: not all methods are supported by all computer architectures."),
            Some("NB".to_string())
        );
        // docutils-policies.rst, loc-electronic-texts-workshop.txt: a turn the writer marks.
        assert_eq!(
            link("As for control issues, Emmett Plant put it well."),
            Some("As for".to_string())
        );
        assert_eq!(
            link("Concerning the total volume of material that has been processed, AM has seven."),
            Some("Concerning".to_string())
        );
        assert_eq!(link("As the birds fly south, the nights grow cold."), None);
        // pyramid's design defense: "do so" stands for the action named before, however deep.
        assert_eq!(
            link("Anyone who tries to sell you on the idea that they do so is simply mistaken."),
            Some("do so".to_string())
        );
        assert_eq!(link("Birds do not fly so high in winter."), None);
        // fastify's recommendations: an example of what was just said, and the "such" of "such
        // as", which names examples and refers to nothing before it.
        assert_eq!(
            link("A common example would be exposing metrics endpoints on a separate port."),
            Some("A common example".to_string())
        );
        assert_eq!(
            link("One example is the metrics endpoint."),
            Some("One example".to_string())
        );
        assert_eq!(link("A sample of birds flew south."), None);
        assert_eq!(
            link("Tools such as k6 or autocannon can be used for performance tests."),
            None
        );
        assert_eq!(
            link("Tools of such quality are rare."),
            Some("such".to_string())
        );
    }

    #[test]
    fn contractions_and_pronouns_link_back() {
        let link = |s: &str| explicit_link(s).map(|(_, w)| w);
        // From published documents: a guide's "You're taking action …", a README's "If it
        // doesn't find it, …", a novel's "Alice looked down at them".
        assert_eq!(
            link("You're taking action when most people decide to sit and watch."),
            Some("You're".to_string())
        );
        assert_eq!(
            link("That’s precisely when we need your support most."),
            Some("That’s".to_string())
        );
        assert_eq!(
            link("If it doesn't find it, it gives an error."),
            Some("it".to_string())
        );
        assert_eq!(
            link("Alice looked down at them, and considered a little."),
            Some("them".to_string())
        );
        // A pronoun late in a long sentence refers inside it; "don't" is not "do".
        assert_eq!(
            link("Contributors who send patches should sign them before sending."),
            None
        );
        assert_eq!(link("Don't panic."), None);
        // A shell noun, "that's" and "do so" inside the sentence, a marked aside.
        assert_eq!(
            link("The idea is called tar pitting."),
            Some("The idea".to_string())
        );
        assert_eq!(
            link("Maybe that's what you wanted."),
            Some("that's".to_string())
        );
        assert_eq!(
            link("Setting things up to do so can seem cumbersome."),
            Some("do so".to_string())
        );
        assert_eq!(
            link("Note: the braces are mandatory."),
            Some("Note".to_string())
        );
        assert_eq!(link("I think that pip works."), None);
        assert_eq!(base_word("Don't"), "don't");
        assert_eq!(base_word("We'd"), "we");
    }
}
