"""A second, larger dev measurement for the sentence level: 500 dev paragraphs of 4–10 sentences
that are not first paragraphs (a fixed random sample, seed 0), beside the 97 dev abstracts that
weight_search.py uses. One abstract is one point of PMR, so model choices need this sample too.

Usage, from the repository root (python -m models.train.ordering.heldout …):

  NAME ONNX WEIGHTS_JSON   figures on the 500 paragraphs for each named weight set,
                           e.g. '{"shipped": {...}, "alone": {"cross_precedence": 1}}';
                           ONNX "-" for the heads alone
  --write-sample           writes the sample's paragraphs (target/ordering/dev.heldout.jsonl),
                           so that only they need embedding
  --joint NAME ONNX        weights searched on the abstracts and the paragraphs together,
                           figures on each, and 2-fold over the abstracts (the
                           paragraphs always in the fitting set)

Set-model logits are cached in target/xenc/heldout-NAME-*.npz. Needs models/train/.venv, the
sentence head's parameters (target/ordering/params-sentence.npz) and the dev embedding caches.
"""
import json
import random
import sys
from pathlib import Path

import numpy as np

from models.train.ordering import data, decode
from models.train.ordering import train as T
from models.train.ordering import weight_search as TU

SAMPLE = 500


SAMPLE_FILE = T.WORK / "dev.heldout.jsonl"


def sample_texts():
    """The sample's paragraphs as (document id, sentences), chosen from the text alone: the same
    paragraphs, in the same order, as `paragraphs()` draws from the instances."""
    found = [(d, p) for d, ps in data.read_jsonl(T.SHARED / "dev.jsonl") for p in ps[1:] if 4 <= len(p) <= 10]
    random.Random(0).shuffle(found)
    return found[:SAMPLE]


def paragraphs():
    """The 500 sampled paragraphs with their embeddings: from the cache of all of dev.jsonl when
    there is one, else from that of the sample alone (`heldout.py --write-sample`, then embed.py
    target/ordering/dev.heldout.jsonl: 3,500 sentences instead of dev.jsonl's 25,000)."""
    if not (data.EMB / "dev.npz").exists() and SAMPLE_FILE.exists():
        return data.sentence_instances(data.load(SAMPLE_FILE), 4, 10)
    docs = [(d, ps[1:], rs[1:]) for d, ps, rs in data.load(T.SHARED / "dev.jsonl")]
    insts = data.sentence_instances(docs, 4, 10)
    random.Random(0).shuffle(insts)
    return insts[:SAMPLE]


def abstracts():
    return data.sentence_instances(data.load(T.SHARED / "dev.abstracts.jsonl"), 4, 10)


def logits(name, kind, onnx, insts):
    cache = TU.ROOT / "target" / "xenc" / f"heldout-{name}-{kind}.npz"
    if cache.exists():
        z = np.load(cache)
        return [(z[f"d{k}"], z[f"n{k}"] if f"n{k}" in z else None) for k in range(len(insts))]
    TU.ONNX = Path(onnx)
    xs = TU.logits([[t[0] for t in i.texts] for i in insts])
    arrays = {f"d{k}": x for k, (x, _) in enumerate(xs)}
    arrays.update({f"n{k}": y for k, (_, y) in enumerate(xs) if y is not None})
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, **arrays)
    return xs


def components(name, kind, onnx, insts, params):
    base = [T.components(params, i) for i in insts]
    return T.shuffled(base if onnx == "-" else TU.with_cross(base, logits(name, kind, onnx, insts)))


def main():
    args = sys.argv[1:]
    if args and args[0] == "--write-sample":
        SAMPLE_FILE.parent.mkdir(parents=True, exist_ok=True)
        with SAMPLE_FILE.open("w", encoding="utf-8") as f:
            for d, p in sample_texts():
                f.write(json.dumps({"id": d, "paragraphs": [p]}, ensure_ascii=False) + "\n")
        print(f"wrote {SAMPLE_FILE}")
        return
    params = dict(np.load(TU.ROOT / "target" / "ordering" / "params-sentence.npz"))
    params.pop("info", None)
    if args and args[0] == "--joint":
        name, onnx = args[1:3]
        ia = abstracts()
        ca = components(name, "abstracts", onnx, ia, params)
        cp = components(name, "paragraphs", onnx, paragraphs(), params)
        has_next = "xnext" in ca[0][1]
        keys = TU.KEYS + (TU.NEXT_KEYS if has_next else ())
        meta = json.loads((TU.MODELS / "ordering" / "ordering.json").read_text())
        start = dict(meta["levels"]["sentence"]["weights"], cross_precedence=1.0, cross_borda=0.1,
                     **({"cross_next": 0.5} if has_next else {}))
        w, _ = T.tune(ca + cp, keys=keys, start=start)
        print(name, "weights", json.dumps({k: v for k, v in w.items() if v}))
        print(name, "abstracts", TU.rounded(decode.metrics(T.decode_all(ca, w))))
        print(name, "paragraphs", TU.rounded(decode.metrics(T.decode_all(cp, w))))
        print(name, "abstracts 2-fold", TU.rounded(TU.two_fold(ia, ca, keys, start, always=cp)))
    elif len(args) == 3:
        name, onnx, weights = args
        insts = paragraphs()
        comps = components(name, "paragraphs", onnx, insts, params)
        for wname, w in json.loads(weights).items():
            print(name, wname, len(insts), TU.rounded(decode.metrics(T.decode_all(comps, w))))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
