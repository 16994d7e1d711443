"""Low-rank compression of a fine-tuned MiniLM for a committed adapter (the format that
models/export/adapter.py reads): each encoder weight matrix's change truncated to rank r by SVD
(float16 factors), full float16 changes for the position and token-type tables, biases and
LayerNorms, the word-embedding table left at its base weights. `merged` rebuilds full weights from
an adapter, to measure what compression cost. Used by reader/adapter.py.
"""
import numpy as np
import torch


def compress(ft: dict, base: dict, rank: int) -> dict:
    """The adapter tensors (see the module docs) from fine-tuned and base weights."""
    out = {}
    for key, value in ft.items():
        if key.startswith("out."):
            out["head." + key[4:]] = value.numpy().astype(np.float32).reshape(-1)
            continue
        name = key.removeprefix("bert.")
        if name not in base:
            raise SystemExit(f"{key}: not in the base weights")
        if "word_embeddings" in name:
            continue
        delta = value.double() - torch.from_numpy(base[name]).double()
        if delta.dim() == 2 and name.startswith("encoder."):
            u, s, vh = torch.linalg.svd(delta, full_matrices=False)
            out[name + ".lora_b"] = (u[:, :rank] * s[:rank]).numpy().astype(np.float16)
            out[name + ".lora_a"] = vh[:rank].numpy().astype(np.float16)
        else:
            out[name + ".delta"] = delta.numpy().astype(np.float16)
    # Row-major copies: SVD factors come back column-major, and safetensors stores raw buffers.
    return {k: np.ascontiguousarray(v) for k, v in out.items()}


def merged(adapter: dict, base: dict) -> dict:
    """The fine-tuned model's weights as the adapter gives them (for the reference logits)."""
    w = {k: torch.from_numpy(v.astype(np.float32)) for k, v in base.items()}
    for key, value in adapter.items():
        t = torch.from_numpy(value.astype(np.float32))
        if key.endswith(".delta"):
            w[key[: -len(".delta")]] += t
        elif key.endswith(".lora_b"):
            name = key[: -len(".lora_b")]
            w[name] += t @ torch.from_numpy(adapter[name + ".lora_a"].astype(np.float32))
    sd = {"bert." + k: v for k, v in w.items() if not k.startswith("pooler.") and k != "embeddings.position_ids"}
    sd["out.weight"] = torch.from_numpy(adapter["head.weight"]).reshape(len(adapter["head.bias"]), -1)
    sd["out.bias"] = torch.from_numpy(adapter["head.bias"])
    return sd
