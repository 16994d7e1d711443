"""How often the paragraph reader puts a pair of units in the right order, on the kinds of sets
`tier1` could give it (docs: models/tier1/README.md, "The reader's terms"). Runs the installed
ONNX export (models/onnx/reader/model.onnx) as Segue does: each set read once, its units sorted by
their normalised text, a unit cut to 40 tokens.

- windows: 8 consecutive sentences (non-overlapping) of the first 15 dev documents sampled evenly;
- abstracts: the first 40 dev abstracts of 4-10 sentences, whole;
- short documents: every dev document of 3-12 sentences, all its sentences as one set;
- paragraphs: every dev document of 3-12 paragraphs, each paragraph as one unit.

    models/train/.venv/bin/python models/train/tier1/reader_probe.py
"""
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[3]
MODELS = ROOT / "models"
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(MODELS / "export"))
from export_reader import feed  # noqa: E402

PER_UNIT = 40
tok = Tokenizer.from_file(str(MODELS / "onnx" / "minilm" / "tokenizer.json"))
tok.no_truncation()
tok.no_padding()
options = ort.SessionOptions()
options.intra_op_num_threads = 2
session = ort.InferenceSession(str(MODELS / "onnx" / "reader" / "model.onnx"), options, providers=["CPUExecutionProvider"])


def pair_accuracy(units):
    """Share of pairs i < j (given order) whose precedence logit says i comes first."""
    perm = sorted(range(len(units)), key=lambda i: (" ".join(units[i].split()), i))
    _, prec, _ = session.run(["position", "precedence", "successor"], feed(tok, [units[i] for i in perm], PER_UNIT))
    inv = np.argsort(perm)
    x = prec[0][np.ix_(inv, inv)]
    return float((x[np.triu_indices(len(units), 1)] > 0).mean())


def report(name, sets):
    acc = [pair_accuracy(s) for s in sets]
    print(f"{name:<16} {100 * np.mean(acc):5.1f} % of pairs in order ({len(acc)} sets)")


docs = [json.loads(line) for line in open(DATA / "dev.jsonl")]
sample = docs[:: max(1, len(docs) // 40)][:15]
windows = []
for d in sample:
    s = [x for p in d["paragraphs"] for x in p]
    windows += [s[k:k + 8] for k in range(0, len(s) - 7, 8)]
abstracts = [d["sentences"] for d in map(json.loads, open(DATA / "dev.abstracts.jsonl")) if 4 <= len(d["sentences"]) <= 10][:40]
short = [s for s in ([x for p in d["paragraphs"] for x in p] for d in docs) if 3 <= len(s) <= 12]
paragraphs = [[" ".join(p) for p in d["paragraphs"]] for d in docs if 3 <= len(d["paragraphs"]) <= 12]
report("windows", windows)
report("abstracts", abstracts)
report("short documents", short)
report("paragraphs", paragraphs)
