"""Sets the paragraph reader's weights in the sentence level's order objective, on dev, and writes
them to models/ordering/ordering.json (`cross`, kind `reader`).

The reader is the installed ONNX export (models/onnx/reader/model.onnx, made by models/install from
the committed adapter), run here with ONNX Runtime as Segue runs it: each paragraph read once, its
sentences in the canonical order Segue uses (sorted by their normalised text), so the logits do
not depend on the order a set comes in. Its antisymmetric precedence logits take the place of the pair cross-encoder's X
and its successor logits the place of N, so the objective's terms are those of ../weight_search.py:
w.cross_precedence·log σ(X) of adjacent units, a Borda potential w.cross_borda, and
w.cross_next·log-softmax N of adjacent units.

The lesson of the pair model's tuning (docs/research-log.md): weights searched on the 97 dev abstracts alone overfit
them. So the weights are searched on the abstracts and the 500 held-out dev paragraphs of
../heldout.py together, and the script reports both sets in-sample and a 2-fold estimate over
the abstracts (weights searched on half of them plus the paragraphs, measured on the other half).

With `--level paragraph` it sets the reader's weights in the paragraph level's objective instead
(2026-11-24): the sets are the 316 dev documents of 2-16 paragraphs the heads' weights were set on
(target/ordering/dev.le16.jsonl), each paragraph read as one unit (its sentences joined by a space
and cut to the reader's 40 tokens, as Segue reads paragraphs), the weights searched on them with a
2-fold estimate, and written to `cross.levels.paragraph` beside the sentence level's.

Needs the heads' parameters (target/ordering/params-sentence.npz, params-paragraph.npz) and the dev
embeddings cache, as ../weight_search.py does. Run with models/train/.venv after `models/install`:
  models/train/.venv/bin/python -m models.train.ordering.reader.tune [--no-write] [--start JSON] [--level paragraph] [--prose]
      [--hide GENRE]... [--tag T] [--out DIR]
With --prose the weights are searched on the prose corpus's dev containers too (../prose.py): the
criterion is the mean of that of the reference dev sets and that of the prose containers; --hide
leaves a genre's containers out, --tag reads train.py's params-LEVEL{T}.npz and --out DIR writes
DIR/ordering.json instead of models/ordering/ordering.json (the hidden-genre check).
"""
import hashlib
import json
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from models.export.export_reader import feed
from models.train.ordering import decode
from models.train.ordering import heldout as HO
from models.train.ordering import train as T
from models.train.ordering import weight_search as TU
from models.train.ordering import prose

MODELS = TU.MODELS
ONNX = MODELS / "onnx" / "reader" / "model.onnx"

PER_SENTENCE = 40
MAX_UNITS = 16


def logits(sentence_sets):
    """(X, N) per set in gold order: the reader's precedence and successor logits."""
    tok = Tokenizer.from_file(str(MODELS / "onnx" / "minilm" / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(str(ONNX), so, providers=["CPUExecutionProvider"])
    out = []
    for p in sentence_sets:
        # The canonical order Segue reads a set in (server/src/model/reader.rs): sorted by the
        # whitespace-normalised text, ties by position.
        perm = sorted(range(len(p)), key=lambda i: (" ".join(p[i].split()), i))
        _, prec, succ = sess.run(["position", "precedence", "successor"], feed(tok, [p[i] for i in perm], PER_SENTENCE))
        inv = np.argsort(perm)  # gold sentence g was read in slot inv[g]
        X = prec[0][np.ix_(inv, inv)].astype(np.float64)
        N = succ[0][np.ix_(inv, inv)].astype(np.float64)
        np.fill_diagonal(X, 0.0)
        np.fill_diagonal(N, 0.0)
        out.append((X, N))
    return out


def option(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def option_list(name):
    return [sys.argv[k + 1] for k, a in enumerate(sys.argv[:-1]) if a == name]


def load_params(level):
    """The head's parameters train.py saved (target/ordering/params-LEVEL[--tag].npz)."""
    params = dict(np.load(TU.ROOT / "target" / "ordering" / f"params-{level}{option('--tag', '')}.npz"))
    params.pop("info", None)
    return params


def prose_components(params, level):
    """With --prose, the prose corpus's dev containers of `level` (../prose.py) with the reader's
    logits, shuffled, for the weight search (one group beside the reference dev sets); else []."""
    if "--prose" not in sys.argv:
        return []
    insts = [i for _, i in prose.instances(prose.load("dev", option_list("--hide")), level)]
    if level == "sentence":
        sets = [[t[0] for t in i.texts] for i in insts]
    else:
        sets = [[" ".join(unit) for unit in i.texts] for i in insts]
    base = [T.components(params, i) for i in insts]
    return T.shuffled(TU.with_cross(base, prose.cached_logits(sets, logits, level)))


def paragraph_level(meta, meta_path):
    """The reader's weights in the paragraph level's objective (module docs)."""
    params = load_params("paragraph")
    insts = T.data.paragraph_instances(T.data.load(T.WORK / "dev.le16.jsonl"), 2, 16)
    base = [T.components(params, i) for i in insts]
    xs = prose.cached_logits([[" ".join(unit) for unit in i.texts] for i in insts], logits, "paragraph")
    comps = T.shuffled(TU.with_cross(base, xs))
    keys = TU.KEYS + TU.NEXT_KEYS
    head_w = meta["levels"]["paragraph"]["weights"]
    start = dict(head_w, cross_precedence=1.0, cross_borda=0.1, cross_next=0.5)
    if "--start" in sys.argv:
        start = json.loads(sys.argv[sys.argv.index("--start") + 1])
    head = decode.metrics(T.decode_all(comps, head_w))
    alone = decode.metrics(T.decode_all(comps, {"cross_precedence": 1.0, "cross_next": 1.0}))
    cprose = prose_components(params, "paragraph")
    groups = [(0, len(comps)), (len(comps), len(comps) + len(cprose))] if cprose else None
    w, _ = T.tune(comps + cprose, keys=keys, start=start, groups=groups)
    m = decode.metrics(T.decode_all(comps, w))
    cv = TU.two_fold(insts, comps, keys, start)
    weights = {k: v for k, v in w.items() if v}
    print("paragraph level:", len(insts), "dev documents of 2-16 paragraphs")
    print("head only (shipped weights)", TU.rounded(head))
    print("reader alone (precedence + successor)", TU.rounded(alone))
    print("head + reader, weights", json.dumps(weights))
    print("head + reader", TU.rounded(m))
    print("head + reader, 2-fold", TU.rounded(cv))
    if cprose:
        print("head + reader, prose dev", TU.rounded(decode.metrics(T.decode_all(cprose, w))))
    if "--no-write" in sys.argv:
        return
    cross = meta["cross"]
    cross["levels"]["paragraph"] = {"weights": weights}
    cross["dev"]["paragraph"] = {
        "instances": len(insts),
        "head_only": TU.rounded(head),
        "reader_alone": TU.rounded(alone),
        "head_and_reader": TU.rounded(m),
        "head_and_reader_2fold": TU.rounded(cv),
        **({"prose_instances": len(cprose),
            "head_and_reader_prose": TU.rounded(decode.metrics(T.decode_all(cprose, w)))} if cprose else {}),
    }
    meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {meta_path}")


def main():
    meta_path = Path(option("--out", MODELS / "ordering")) / "ordering.json"
    meta = json.loads(meta_path.read_text())
    if "--level" in sys.argv and sys.argv[sys.argv.index("--level") + 1] == "paragraph":
        return paragraph_level(meta, meta_path)
    params = load_params("sentence")
    ia, ip = HO.abstracts(), HO.paragraphs()
    base_a = [T.components(params, i) for i in ia]
    base_p = [T.components(params, i) for i in ip]
    xa = prose.cached_logits([[t[0] for t in i.texts] for i in ia], logits, "sentence")
    xp = prose.cached_logits([[t[0] for t in i.texts] for i in ip], logits, "sentence")
    ca = T.shuffled(TU.with_cross(base_a, xa))
    cp = T.shuffled(TU.with_cross(base_p, xp))
    keys = TU.KEYS + TU.NEXT_KEYS
    # Coordinate ascent finds a local optimum: it starts from the heads' weights plus the set
    # model's terms, or from --start JSON (e.g. the weights a previous search found).
    start = dict(meta["levels"]["sentence"]["weights"], cross_precedence=1.0, cross_borda=0.1, cross_next=0.5)
    if "--start" in sys.argv:
        start = json.loads(sys.argv[sys.argv.index("--start") + 1])
    head = decode.metrics(T.decode_all(ca, meta["levels"]["sentence"]["weights"]))
    alone = decode.metrics(T.decode_all(ca, {"cross_precedence": 1.0, "cross_next": 1.0}))
    cprose = prose_components(params, "sentence")
    n = len(ca) + len(cp)
    groups = [(0, n), (n, n + len(cprose))] if cprose else None
    w, _ = T.tune(ca + cp + cprose, keys=keys, start=start, groups=groups)
    ma = decode.metrics(T.decode_all(ca, w))
    mp = decode.metrics(T.decode_all(cp, w))
    cv = TU.two_fold(ia, ca, keys, start, always=cp)
    weights = {k: v for k, v in w.items() if v}
    print("head only (shipped weights), abstracts", TU.rounded(head))
    print("reader alone (precedence + successor), abstracts", TU.rounded(alone))
    print("head + reader, weights", json.dumps(weights))
    print("head + reader, abstracts", TU.rounded(ma))
    print("head + reader, held-out paragraphs", TU.rounded(mp))
    print("head + reader, abstracts 2-fold", TU.rounded(cv))
    if cprose:
        print("head + reader, prose dev", TU.rounded(decode.metrics(T.decode_all(cprose, w))))
    meta["cross"] = {
        "kind": "reader",
        "file": "onnx/reader/model.onnx",
        "sha256": hashlib.sha256(ONNX.read_bytes()).hexdigest(),
        "per_sentence_tokens": PER_SENTENCE,
        "max_units": MAX_UNITS,
        "levels": {"sentence": {"weights": weights}},
        "dev": {
            "instances": len(ia),
            "heldout_paragraphs": len(ip),
            "head_only": TU.rounded(head),
            "reader_alone": TU.rounded(alone),
            "head_and_reader": TU.rounded(ma),
            "head_and_reader_heldout": TU.rounded(mp),
            "head_and_reader_2fold": TU.rounded(cv),
            **({"prose_instances": len(cprose),
                "head_and_reader_prose": TU.rounded(decode.metrics(T.decode_all(cprose, w)))} if cprose else {}),
        },
    }
    if "--no-write" in sys.argv:
        return
    meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {meta_path}")


if __name__ == "__main__":
    main()
