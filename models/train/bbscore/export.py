#!/usr/bin/env python3
"""Exports the trained head (and classifier) to models/bbscore/ as ONNX, with sigma.json and the
reference values the Rust tests check.

  head.onnx   embedding [n, 384] float32 -> latent [n, d]:  tanh(x W1 + b1) W2 + b2
  clf.onnx    features [n, F] float32 -> logit [n]: a 3-layer ReLU MLP; the feature standardisation
              (mean, std from training) is folded into the first layer
  sigma.json  sigma_m per level (maximum likelihood on the training documents), dimensions, the
              classifier's feature list, and training facts for the model card
  reference.json  latents, B, local scores, features and logits for fixed inputs (Rust parity)

Graphs are built with onnx.helper (no PyTorch), opset 17, deterministic for pinned versions.

Usage, from the repository root: python -m models.train.bbscore.export [--head target/bbscore/head.npz] [--clf target/bbscore/clf.npz] [--out models/bbscore]
"""

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from models.train.bbscore import bb
from models.train.bbscore.data import ROOT, WORK

OPSET = 17


def const(inits, name, array):
    inits.append(numpy_helper.from_array(np.ascontiguousarray(array.astype(np.float32)), name))
    return name


def model(nodes, inits, inp, out, width, out_shape, doc):
    graph = helper.make_graph(
        nodes,
        doc,
        [helper.make_tensor_value_info(inp, TensorProto.FLOAT, ["n", width])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, out_shape)],
        inits,
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="segue-bbscore")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def head_graph(p):
    inits, nodes = [], []
    nodes.append(helper.make_node("MatMul", ["embedding", const(inits, "W1", p["W1"])], ["h1m"]))
    nodes.append(helper.make_node("Add", ["h1m", const(inits, "b1", p["b1"])], ["h1a"]))
    nodes.append(helper.make_node("Tanh", ["h1a"], ["h1"]))
    nodes.append(helper.make_node("MatMul", ["h1", const(inits, "W2", p["W2"])], ["zm"]))
    nodes.append(helper.make_node("Add", ["zm", const(inits, "b2", p["b2"])], ["latent"]))
    return model(nodes, inits, "embedding", "latent", p["W1"].shape[0], ["n", p["W2"].shape[1]], "bbscore_head")


def clf_graph(c):
    inits, nodes = [], []
    C1 = c["C1"] / c["std"][:, None]
    c1 = c["c1"] - (c["mean"] / c["std"]) @ c["C1"]
    nodes.append(helper.make_node("MatMul", ["features", const(inits, "C1", C1)], ["a1m"]))
    nodes.append(helper.make_node("Add", ["a1m", const(inits, "c1", c1)], ["a1a"]))
    nodes.append(helper.make_node("Relu", ["a1a"], ["a1"]))
    nodes.append(helper.make_node("MatMul", ["a1", const(inits, "C2", c["C2"])], ["a2m"]))
    nodes.append(helper.make_node("Add", ["a2m", const(inits, "c2", c["c2"])], ["a2a"]))
    nodes.append(helper.make_node("Relu", ["a2a"], ["a2"]))
    nodes.append(helper.make_node("MatMul", ["a2", const(inits, "C3", c["C3"])], ["a3m"]))
    nodes.append(helper.make_node("Add", ["a3m", const(inits, "c3", c["c3"])], ["a3"]))
    inits.append(numpy_helper.from_array(np.array([1], np.int64), "axis1"))
    nodes.append(helper.make_node("Squeeze", ["a3", "axis1"], ["logit"]))
    return model(nodes, inits, "features", "logit", len(bb.FEATURES), ["n"], "bbscore_clf")


def reference_inputs(n=6, width=384):
    """Fixed unit-length inputs that Rust rebuilds the same way: x[k][j] = sin(0.37 (j+1)(k+1))."""
    j = np.arange(1, width + 1)
    x = np.stack([np.sin(0.37 * j * (k + 1)) for k in range(n)])
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--head", type=Path, default=WORK / "head.npz")
    ap.add_argument("--clf", type=Path, default=WORK / "clf.npz")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "bbscore")
    args = ap.parse_args()
    p = {k: v.astype(np.float32).astype(np.float64) for k, v in np.load(args.head).items()}
    meta = json.loads(args.head.with_suffix(".json").read_text())
    args.out.mkdir(parents=True, exist_ok=True)
    onnx.save(head_graph(p), args.out / "head.onnx")
    clf = None
    if args.clf.exists():
        clf = {k: v.astype(np.float32).astype(np.float64) for k, v in np.load(args.clf).items()}
        onnx.save(clf_graph(clf), args.out / "clf.onnx")
        clf_meta = json.loads(args.clf.with_suffix(".json").read_text())
    else:
        (args.out / "clf.onnx").unlink(missing_ok=True)
        clf_meta = None

    sigma = meta["sigma"]
    x = reference_inputs()
    z = bb.head_forward(p, x)
    ref = {
        "inputs": "x[k][j] = sin(0.37 (j+1)(k+1)), k < 6, j < 384, each row scaled to unit length",
        "latents": z.round(6).tolist(),
        "bbscore_sentence": bb.bbscore(z, sigma["sentence"]),
        "local2_sentence": [None if np.isnan(v) else v for v in bb.window_excess(z, sigma["sentence"], 2)],
        "features_paragraph": bb.features(z, x, sigma["paragraph"], True).tolist(),
    }
    if clf is not None:
        f = bb.features(z, x, sigma["paragraph"], True)
        ref["logit_paragraph"] = float(bb.mlp_forward(clf, ((f - clf["mean"]) / clf["std"])[None, :])[0])
    (args.out / "reference.json").write_text(json.dumps(ref, indent=1) + "\n")

    out = {
        "encoder": "all-minilm-l6-v2",
        "input_dim": int(p["W1"].shape[0]),
        "hidden": int(p["W1"].shape[1]),
        "dim": int(p["W2"].shape[1]),
        "sigma": sigma,
        "features": bb.FEATURES if clf is not None else [],
        "training": {k: meta[k] for k in meta if k != "sigma"},
        "classifier": clf_meta,
        "sha256": {f: sha256(args.out / f) for f in ("head.onnx", "clf.onnx") if (args.out / f).exists()},
    }
    (args.out / "sigma.json").write_text(json.dumps(out, indent=2) + "\n")
    for f in sorted(args.out.iterdir()):
        print(f"{f}: {f.stat().st_size} bytes")


if __name__ == "__main__":
    main()
