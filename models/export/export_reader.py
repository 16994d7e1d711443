#!/usr/bin/env python3
"""Export Segue's paragraph reader to ONNX without PyTorch.

The paragraph reader is all-MiniLM-L6-v2 fine-tuned to read all the sentences of a paragraph at
once, `[CLS] s1 [SEP] s2 [SEP] … sn [SEP]` with token types alternating 0/1 by sentence, and say
in which order they belong (models/train/ordering/reader/). Only what the fine-tuning changed is
committed, as the adapter `models/ordering/reader.safetensors` (adapter.py describes the format
and why the export is byte-for-byte deterministic). After the encoder:

- `pooling` [batch, sentences, sequence] (float32) averages each sentence's tokens: row i holds
  1/len on sentence i's tokens and 0 elsewhere, so H = pooling · states is [batch, sentences, 384];
- three read-outs of H: `position` [batch, sentences] (a higher score means earlier),
  `precedence` [batch, sentences, sentences] = A·Bᵀ − (A·Bᵀ)ᵀ (the logit that sentence i comes
  before sentence j; antisymmetric) and `successor` [batch, sentences, sentences] = C·Dᵀ (the
  logit that j directly follows i; the softmax over j ≠ i is the caller's), where [A | B] and
  [C | D] are linear maps of H.

Usage: export_reader.py MODEL_DIR ADAPTER OUT_ONNX [--check FIXTURE]
  MODEL_DIR holds config.json and model.safetensors (the package's `model/` folder); with --check,
  the export must reproduce the fixture's outputs (computed by PyTorch in the reader's adapter.py),
  with the tokenizer beside OUT_ONNX's encoder (onnx/minilm/tokenizer.json).
"""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def build(model_dir: Path, adapter_path: Path):
    """The ONNX model (onnx.ModelProto). The export's packages are imported here, so that `feed`
    can be used from a venv without them (models/train/ordering/reader/tune.py)."""
    import onnx
    from onnx import TensorProto, helper
    from safetensors.numpy import load_file
    from adapter import apply, load_adapter
    from export_minilm import BERT_LAYER, OPSET, Graph, encoder, layer_norm, linear, mask_bias

    cfg = json.loads((model_dir / "config.json").read_text())
    adapter, meta = load_adapter(adapter_path)
    heads = {k[len("head."):]: v for k, v in adapter.items() if k.startswith("head.")}
    w, lora = apply(load_file(str(model_dir / "model.safetensors")), {k: v for k, v in adapter.items() if not k.startswith("head.")})
    eps = float(cfg["layer_norm_eps"])
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
    _, bias = mask_bias(g)
    x = encoder(g, x, w, cfg, bias, BERT_LAYER, "masked", lora=lora)

    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"]) for n in ["input_ids", "attention_mask", "token_type_ids"]]
    if "flow.weight" in heads:
        # The flow judge: one logit per row from the [CLS] state.
        cls = g.op("Gather", [x, g.const("index0", np.array([0], np.int64))], "cls", axis=1)  # [batch, 1, hidden]
        flow = linear(g, cls, heads["flow.weight"], heads["flow.bias"], "flow")  # [batch, 1, 1]
        g.nodes.append(helper.make_node("Squeeze", [flow, g.const("axes12", np.array([1, 2], np.int64))], ["flow"], name="flow"))
        outs = [helper.make_tensor_value_info("flow", TensorProto.FLOAT, ["batch"])]
        name = "segue-flow-judge"
        doc = ("Segue flow judge: all-MiniLM-L6-v2 fine-tuned to read a container's units in the order given "
               f"([CLS] u1 [SEP] u2 [SEP] ...), rank-{meta.get('rank', '?')} adapter; output: one logit per row, "
               "high when the order reads as an author's; exported by segue models/export/export_reader.py")
    else:
        h = g.op("MatMul", ["pooling", x], "sentences")  # [batch, sentences, hidden]
        position = linear(g, h, heads["pos.weight"], heads["pos.bias"], "pos")
        g.nodes.append(helper.make_node("Squeeze", [position, g.const("axis2", np.array([2], np.int64))], ["position"], name="position"))

        def bilinear(name):
            half = heads[name + ".weight"].shape[0] // 2
            ab = linear(g, h, heads[name + ".weight"], heads[name + ".bias"], name)
            a = g.op("Slice", [ab, g.const("lo", np.array([0], np.int64)), g.const("mid", np.array([half], np.int64)), g.const("ax", np.array([2], np.int64))], name + ".a")
            b = g.op("Slice", [ab, g.const("mid", np.array([half], np.int64)), g.const("hi", np.array([2 * half], np.int64)), g.const("ax", np.array([2], np.int64))], name + ".b")
            return g.op("MatMul", [a, g.op("Transpose", [b], name + ".bt", perm=[0, 2, 1])], name + ".ab")

        ab = bilinear("prec")
        g.nodes.append(helper.make_node("Sub", [ab, g.op("Transpose", [ab], "prec.abt", perm=[0, 2, 1])], ["precedence"], name="precedence"))
        g.nodes.append(helper.make_node("Identity", [bilinear("succ")], ["successor"], name="successor"))
        inputs.append(helper.make_tensor_value_info("pooling", TensorProto.FLOAT, ["batch", "sentences", "sequence"]))
        outs = [
            helper.make_tensor_value_info("position", TensorProto.FLOAT, ["batch", "sentences"]),
            helper.make_tensor_value_info("precedence", TensorProto.FLOAT, ["batch", "sentences", "sentences"]),
            helper.make_tensor_value_info("successor", TensorProto.FLOAT, ["batch", "sentences", "sentences"]),
        ]
        name = "segue-paragraph-reader"
        doc = ("Segue paragraph reader: all-MiniLM-L6-v2 fine-tuned to read a paragraph's sentences at once "
               f"([CLS] s1 [SEP] s2 [SEP] ...), rank-{meta.get('rank', '?')} adapter; outputs position, precedence, "
               "successor logits per sentence (pair); exported by segue models/export/export_reader.py")
    graph = helper.make_graph(g.nodes, name, inputs, outs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="segue-export", producer_version="1")
    model.ir_version = 8
    model.doc_string = doc
    onnx.checker.check_model(model, full_check=True)
    return model


MAX_POSITIONS = 512  # the encoder's


def unit_token_limit(n, per_sentence):
    """Tokens kept of each of `n` sentences: `per_sentence`, or fewer so that `[CLS]`, the
    sentences and their `[SEP]`s fit the encoder's positions (server/src/model/reader.rs,
    `reader_input`; the trainer uses it too)."""
    return min(per_sentence, max(1, (MAX_POSITIONS - 1 - n) // max(n, 1)))


def feed(tok, sentences, per_sentence):
    """The model's inputs for one paragraph read in the given order (as the Rust side builds them:
    each sentence cut to `unit_token_limit` tokens)."""
    ids, types, spans = [tok.token_to_id("[CLS]")], [0], []
    limit = unit_token_limit(len(sentences), per_sentence)
    for k, s in enumerate(sentences):
        t = tok.encode(s, add_special_tokens=False).ids[:limit]
        spans.append((len(ids), len(ids) + len(t)))
        ids += t + [tok.token_to_id("[SEP]")]
        types += [k % 2] * (len(t) + 1)
    pooling = np.zeros((1, len(sentences), len(ids)), np.float32)
    for k, (lo, hi) in enumerate(spans):
        pooling[0, k, lo:max(hi, lo + 1)] = 1.0 / max(hi - lo, 1)
    return {
        "input_ids": np.array([ids], np.int64),
        "attention_mask": np.ones((1, len(ids)), np.int64),
        "token_type_ids": np.array([types], np.int64),
        "pooling": pooling,
    }


def check(onnx_path: Path, fixture_path: Path):
    """The export's outputs on the fixture's paragraphs must match PyTorch's (adapter.py)."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    fixture = json.loads(fixture_path.read_text())
    tok = Tokenizer.from_file(str(onnx_path.parent.parent / "minilm" / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    worst = 0.0
    if "flow" in fixture:
        # The flow judge: one logit per set read in the given order (no pooling input).
        for p, want in zip(fixture["sets"], fixture["flow"]):
            inputs = feed(tok, p, fixture["per_sentence_tokens"])
            del inputs["pooling"]
            (got,) = sess.run(["flow"], inputs)
            worst = max(worst, abs(float(got[0]) - want))
        if worst > 1e-3:
            raise SystemExit(f"{onnx_path}: outputs differ from the fixture by up to {worst:.2e}")
        print(f"{onnx_path}: matches {fixture_path.name} ({len(fixture['sets'])} sets, largest difference {worst:.1e})")
        return
    for p in fixture["paragraphs"]:
        pos, prec, succ = sess.run(["position", "precedence", "successor"], feed(tok, p["sentences"], fixture["per_sentence_tokens"]))
        for got, want in ((pos[0], p["pos"]), (prec[0], p["precedence"]), (succ[0], p["successor"])):
            worst = max(worst, float(np.abs(np.asarray(got) - np.asarray(want, np.float32)).max()))
    if worst > 1e-3:
        raise SystemExit(f"{onnx_path}: outputs differ from the fixture by up to {worst:.2e}")
    print(f"{onnx_path}: matches {fixture_path.name} ({len(fixture['paragraphs'])} paragraphs, largest difference {worst:.1e})")


def main():
    args = sys.argv[1:]
    fixture = None
    if "--check" in args:
        i = args.index("--check")
        fixture = Path(args[i + 1])
        del args[i : i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    from export_minilm import write

    out = Path(args[2])
    write(build(Path(args[0]), Path(args[1])), out)
    if fixture:
        check(out, fixture)


if __name__ == "__main__":
    main()
