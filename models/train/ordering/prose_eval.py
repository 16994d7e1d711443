#!/usr/bin/env python3
"""Compares sets of ordering heads on dev, per genre: the reference dev sets the weights are set
on (the dev abstracts at the sentence level, the dev documents of 2-16 paragraphs at the
paragraph level) and the prose corpus's dev containers (prose.py), one row per genre.

Each folder holds an `ordering.json` and the heads it names (models/ordering/, or a copy with
other heads). For each level it decodes every set exactly (decode.py) in a fixed shuffled order
with the heads' own weights (`levels.*.weights`) and with the heads and the paragraph reader
(`cross.levels.*.weights`, the objective the `ordering` scorer uses), and prints PMR and Kendall τ.
The reader's logits are computed once per set and cached under target/xenc/ (prose.cached_logits).

  models/train/.venv/bin/python -m models.train.ordering.prose_eval NAME=DIR [NAME=DIR ...] [--json OUT]
"""

import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

HERE = Path(__file__).resolve().parent
from models.train.ordering import data, decode, prose  # noqa: E402
from models.train.ordering import train as T  # noqa: E402
from models.train.ordering import weight_search as TU  # noqa: E402
from models.train.ordering.reader import tune as RT  # noqa: E402  (the reader's logits as Segue reads a set)

def dev_sets(level):
    """Named dev sets of `level`: the reference set, then one per prose genre."""
    if level == "sentence":
        sets = {"reference": data.sentence_instances(data.load(T.SHARED / "dev.abstracts.jsonl"), 4, 10)}
    else:
        sets = {"reference": data.paragraph_instances(data.load(T.WORK / "dev.le16.jsonl"), 2, 16)}
    for genre, inst in prose.instances(prose.load("dev"), level):
        sets.setdefault(genre, []).append(inst)
    return sets


def reader_logits(level, insts):
    if level == "sentence":
        sets = [[t[0] for t in i.texts] for i in insts]
    else:
        sets = [[" ".join(unit) for unit in i.texts] for i in insts]
    return prose.cached_logits(sets, RT.logits, level)


def head_components(onnx_path, insts):
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    out = []
    for inst in insts:
        outputs = sess.run(["precedence", "successor", "opening", "closing"],
                           {"units": inst.x.astype(np.float32), "pairs": inst.q.astype(np.float32)})
        out.append(T.components_of(outputs, inst))
    return out


def main():
    args = [a for a in sys.argv[1:] if "=" in a]
    json_out = Path(sys.argv[sys.argv.index("--json") + 1]) if "--json" in sys.argv else None
    dirs = {a.split("=", 1)[0]: Path(a.split("=", 1)[1]) for a in args}
    results = {}
    for level in ["sentence", "paragraph"]:
        sets = dev_sets(level)
        xs = {name: reader_logits(level, insts) for name, insts in sets.items()}
        for tag, d in dirs.items():
            meta = json.loads((d / "ordering.json").read_text())
            head_w = meta["levels"][level]["weights"]
            cross_w = meta["cross"]["levels"][level]["weights"]
            for name, insts in sets.items():
                comps = head_components(d / meta["levels"][level]["file"], insts)
                alone = T.shuffled(comps)
                both = T.shuffled(TU.with_cross(comps, xs[name]))
                row = {"instances": len(insts),
                       "heads": TU.rounded(decode.metrics(T.decode_all(alone, head_w))),
                       "heads+reader": TU.rounded(decode.metrics(T.decode_all(both, cross_w)))}
                results.setdefault(level, {}).setdefault(name, {})[tag] = row
                print(f"{level:<10} {name:<10} {tag:<10} n={len(insts):<4} "
                      f"heads PMR {row['heads']['pmr'] * 100:5.1f} τ {row['heads']['tau']:.3f}   "
                      f"heads+reader PMR {row['heads+reader']['pmr'] * 100:5.1f} τ {row['heads+reader']['tau']:.3f}",
                      flush=True)
    if json_out:
        json_out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
