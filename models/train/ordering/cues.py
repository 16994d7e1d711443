"""Cheap discourse cues of one unit (sentence or paragraph), computed identically here and in Rust.

Sentence ordering on real prose leans on surface cues a frozen sentence embedding blurs: an opening
pronoun or demonstrative ("It", "These") or a connective ("However", "Finally") says the unit
follows something; "In this chapter" or a colon at the end says where it sits. Each cue is a number
per unit; the list below is written into the model's metadata JSON (`features`), and the Rust side
(`server/src/order/model.rs`) evaluates that same JSON, so the two cannot drift apart.

Tokenisation (both sides): split the sentence on ASCII whitespace (space, tab, LF, CR, FF, VT);
lower-case ASCII letters only; strip leading and trailing characters that are not ASCII letters,
digits or the apostrophe; drop empty tokens.

Feature kinds:
  starts_with  the unit's first sentence starts with one of `phrases` (token sequences)
  within       one of `words` occurs among tokens [skip, window) of the first sentence
  ends_with    the unit's last sentence, right-trimmed, ends with one of `chars`
  begins_with  the unit's first sentence, left-trimmed, begins with one of `chars`
  log_words    scale * ln(1 + number of tokens in the unit)
  log_sents    scale * ln(1 + number of sentences in the unit)
"""

import math

VERSION = 1

FEATURES = [
    {"name": "third_person", "kind": "starts_with",
     "phrases": ["it", "its", "he", "she", "they", "his", "her", "their", "them", "him", "it's"]},
    {"name": "first_second_person", "kind": "starts_with",
     "phrases": ["we", "i", "you", "our", "my", "your", "us", "let's", "let us"]},
    {"name": "demonstrative", "kind": "starts_with",
     "phrases": ["this", "these", "that", "those", "such", "here", "there"]},
    {"name": "contrast", "kind": "starts_with",
     "phrases": ["however", "but", "yet", "nevertheless", "nonetheless", "still", "although", "though",
                 "instead", "conversely", "on the other hand", "in contrast", "whereas", "otherwise",
                 "even so", "unfortunately", "fortunately", "of course"]},
    {"name": "result", "kind": "starts_with",
     "phrases": ["therefore", "thus", "hence", "consequently", "so", "accordingly", "as a result",
                 "because", "since", "as such", "for this reason", "this means", "that means"]},
    {"name": "additive", "kind": "starts_with",
     "phrases": ["also", "moreover", "furthermore", "additionally", "in addition", "besides", "further",
                 "likewise", "similarly", "and", "or", "nor", "another", "again", "as well"]},
    {"name": "example", "kind": "starts_with",
     "phrases": ["for example", "for instance", "e.g", "i.e", "in particular", "specifically", "namely",
                 "that is", "note", "notice", "see", "consider", "in fact", "indeed"]},
    {"name": "sequence_start", "kind": "starts_with",
     "phrases": ["first", "firstly", "to begin", "initially", "in this chapter", "in this section",
                 "this chapter", "this section", "this document", "this guide", "the following",
                 "below", "in the following", "introduction", "overview"]},
    {"name": "sequence_later", "kind": "starts_with",
     "phrases": ["second", "secondly", "third", "thirdly", "next", "then", "after", "afterwards",
                 "later", "subsequently", "finally", "lastly", "last", "now", "at last", "at length",
                 "meanwhile", "when", "once"]},
    {"name": "conclusion", "kind": "starts_with",
     "phrases": ["in summary", "in conclusion", "to summarize", "to summarise", "overall", "in short",
                 "to conclude", "all in all", "in the end", "ultimately", "in sum", "together"]},
    {"name": "definite", "kind": "starts_with", "phrases": ["the"]},
    {"name": "indefinite", "kind": "starts_with", "phrases": ["a", "an", "one", "some", "many", "most", "every", "each"]},
    {"name": "conditional", "kind": "starts_with",
     "phrases": ["if", "while", "unless", "whenever", "before", "in order", "to", "with", "without", "for", "in", "on", "by", "as"]},
    {"name": "also_early", "kind": "within", "skip": 1, "window": 6, "words": ["also", "too", "again", "still", "then"]},
    {"name": "anaphor_early", "kind": "within", "skip": 1, "window": 5,
     "words": ["this", "these", "that", "those", "such", "it", "they", "its", "their", "he", "she", "his", "her"]},
    {"name": "reference_early", "kind": "within", "skip": 0, "window": 8,
     "words": ["same", "both", "other", "another", "either", "neither", "former", "latter", "above",
               "aforementioned", "previous", "previously", "earlier", "preceding", "already", "further"]},
    {"name": "forward_reference", "kind": "within", "skip": 0, "window": 12,
     "words": ["following", "below", "next", "later", "chapter", "section", "introduces", "describes",
               "overview", "explains"]},
    {"name": "ends_colon", "kind": "ends_with", "chars": [":"]},
    {"name": "ends_question", "kind": "ends_with", "chars": ["?"]},
    {"name": "ends_exclamation", "kind": "ends_with", "chars": ["!"]},
    {"name": "opens_quote", "kind": "begins_with", "chars": ["\"", "\u201c", "'", "\u2018"]},
    {"name": "log_words", "kind": "log_words", "scale": 0.25},
    {"name": "log_sentences", "kind": "log_sents", "scale": 0.5},
]

ASCII_WS = " \t\n\r\x0c\x0b"
_KEEP = set("abcdefghijklmnopqrstuvwxyz0123456789'")
_LOWER = {ord(c): ord(c) + 32 for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def tokens(sentence: str) -> list[str]:
    """The sentence's tokens as the cue features see them (see the module docstring)."""
    out = []
    word = []
    for ch in sentence + " ":
        if ch in ASCII_WS:
            if word:
                t = "".join(word).translate(_LOWER)
                i, j = 0, len(t)
                while i < j and t[i] not in _KEEP:
                    i += 1
                while j > i and t[j - 1] not in _KEEP:
                    j -= 1
                if i < j:
                    out.append(t[i:j])
                word = []
        else:
            word.append(ch)
    return out


def _starts_with(toks: list[str], phrase: str) -> bool:
    words = phrase.split(" ")
    return len(toks) >= len(words) and toks[: len(words)] == words


def _strip_ws(s: str) -> str:
    return s.strip(ASCII_WS)


def unit_cues(sentences: list[str], features=FEATURES) -> list[float]:
    """The cue vector of a unit given as its sentences (a sentence-level unit has one)."""
    if not sentences:
        return [0.0] * len(features)
    first = tokens(sentences[0])
    n_tokens = sum(len(tokens(s)) for s in sentences)
    first_text = _strip_ws(sentences[0])
    last_text = _strip_ws(sentences[-1])
    out = []
    for f in features:
        kind = f["kind"]
        if kind == "starts_with":
            v = any(_starts_with(first, p) for p in f["phrases"])
        elif kind == "within":
            words = set(f["words"])
            v = any(t in words for t in first[f["skip"]: f["window"]])
        elif kind == "ends_with":
            v = any(last_text.endswith(c) for c in f["chars"])
        elif kind == "begins_with":
            v = any(first_text.startswith(c) for c in f["chars"])
        elif kind == "log_words":
            v = f["scale"] * math.log1p(n_tokens)
        elif kind == "log_sents":
            v = f["scale"] * math.log1p(len(sentences))
        else:
            raise ValueError(f"unknown feature kind {kind}")
        out.append(float(v))
    return out
