"""Cheap discourse cues of one unit (sentence or paragraph), computed identically here and in Rust.

Sentence ordering on real prose leans on surface cues a frozen sentence embedding blurs: an opening
pronoun or demonstrative ("It", "These") or a connective ("However", "Finally") says the unit
follows something; "In this chapter" or a colon at the end says where it sits. Each cue is a number
per unit; the list below is written into the model's metadata JSON (`features`), and the Rust side
(`server/src/score/ordering/`) evaluates that same JSON, so the two cannot drift apart.

Tokenisation (both sides): split the sentence on ASCII whitespace (space, tab, LF, CR, FF, VT);
lower-case ASCII letters only; strip leading and trailing characters that are not ASCII letters or
digits; cut the token at its first apostrophe (' or U+2019: "we’ll" -> "we", "it's" -> "it");
drop empty tokens.

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
     "phrases": ["it", "its", "he", "she", "they", "his", "her", "their", "them", "him"]},
    {"name": "first_second_person", "kind": "starts_with",
     "phrases": ["we", "i", "you", "our", "my", "your", "us", "let"]},
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
_KEEP = set("abcdefghijklmnopqrstuvwxyz0123456789")
_LOWER = {ord(c): ord(c) + 32 for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
_APOSTROPHES = ("'", "\u2019")


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
                t = t[i:j]
                for k, c in enumerate(t):
                    if c in _APOSTROPHES:
                        t = t[:k]
                        break
                if t:
                    out.append(t)
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


# ---- pair cues -----------------------------------------------------------------------------------
#
# Directed features of the ordered pair (a, b), "a comes before b", from content tokens: tokens of
# at least 3 characters that are not stop words, with one trailing "s" removed when the token is
# longer than 3 ("vectors" -> "vector").
#   head_given   share of b's first `head` content tokens (first sentence) that occur anywhere in a
#   jaccard      |A ∩ B| / |A ∪ B| over all content tokens of the two units
#   boundary     |last(a) ∩ first(b)| / min(|last(a)|, |first(b)|): a's last sentence, b's first
#   introduced   some content token follows "a"/"an"/"another" in a (within 2 tokens) and follows a
#                definite determiner in b (within 2 tokens): "a closure ... the closure"
# The diagonal (a == b) is all zeros.

PAIRS = {
    "features": ["head_given", "jaccard", "boundary", "introduced"],
    "head": 8,
    "min_len": 3,
    "indefinite": ["a", "an", "another"],
    "definite": ["the", "this", "these", "that", "those", "such", "its", "their"],
    "stop_words": sorted(set("""
        a about above after again against all also am an and any are as at be because been before
        being below between both but by can cannot could did do does doing down during each either
        else etc even ever every few for from further had has have having he her here hers herself
        him himself his how however i if in into is it its itself just let like may me might more
        most much must my myself no nor not now of off often on once one only or other our ours
        ourselves out over own per rather same shall she should so some such than that the their
        theirs them themselves then there these they this those though through thus to too under
        until up upon us use used uses using very via was we well were what when where whether which
        while who whom whose why will with within without would yet you your yours yourself
        yourselves also e.g i.e
    """.split())),
}


def _content(toks, spec=PAIRS):
    stop = set(spec["stop_words"])
    out = []
    for t in toks:
        if len(t) >= spec["min_len"] and t not in stop:
            out.append(t[:-1] if len(t) > 3 and t.endswith("s") else t)
    return out


def _after(toks, dets, spec=PAIRS):
    """Content tokens within 2 tokens after one of `dets`."""
    out = set()
    for k, t in enumerate(toks):
        if t in dets:
            out.update(_content(toks[k + 1:k + 3], spec))
    return out


def unit_profile(sentences, spec=PAIRS):
    """What the pair cues need of one unit."""
    toks = [tokens(s) for s in sentences] or [[]]
    every = [t for ts in toks for t in ts]
    return {
        "all": set(_content(every, spec)),
        "head": _content(toks[0], spec)[: spec["head"]],
        "first": set(_content(toks[0], spec)),
        "last": set(_content(toks[-1], spec)),
        "indef": _after(every, set(spec["indefinite"]), spec),
        "def": _after(every, set(spec["definite"]), spec),
    }


def pair_cues(a, b):
    """Directed pair cues of profiles a (before) and b (after)."""
    head = b["head"]
    head_given = sum(1 for t in head if t in a["all"]) / len(head) if head else 0.0
    union = len(a["all"] | b["all"])
    jaccard = len(a["all"] & b["all"]) / union if union else 0.0
    m = min(len(a["last"]), len(b["first"]))
    boundary = len(a["last"] & b["first"]) / m if m else 0.0
    introduced = 1.0 if a["indef"] & b["def"] else 0.0
    return [head_given, jaccard, boundary, introduced]


def pair_matrix(units):
    """[n, n, 4] pair cues of a set of units (each a list of sentences)."""
    import numpy as np
    prof = [unit_profile(u) for u in units]
    n = len(units)
    q = np.zeros((n, n, len(PAIRS["features"])), dtype=np.float32)
    for i in range(n):
        for j in range(n):
            if i != j:
                q[i, j] = pair_cues(prof[i], prof[j])
    return q
