"""The low-rank adapter format of Segue's fine-tuned encoders (`models/ordering/reader.safetensors`).

Only what fine-tuning changed is committed: low-rank factors for the encoder's weight matrices
(`NAME.lora_a`, `NAME.lora_b`) and full changes (`NAME.delta`) for the position and token-type
tables, biases and LayerNorms, plus the read-out head (`head.*`), in float16; the safetensors
metadata says `format: 1`. `apply` adds the small changes to the base tensors elementwise (exact
IEEE float32 additions, the same bytes on every machine) and keeps each low-rank change as two
small matrices beside its weight, y = x·W^T + b + (x·A^T)·B^T, so no matrix product is computed
and an export is byte-for-byte deterministic for the pinned numpy / onnx / protobuf
(models/export/requirements.txt), which lets models/install check its sha256.
"""

from pathlib import Path

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file


def load_adapter(path: Path):
    """(tensors, metadata) of the adapter; float16 tensors are widened exactly to float32."""
    with safe_open(str(path), "np") as f:
        meta = f.metadata() or {}
    if meta.get("format") != "1":
        raise SystemExit(f"{path}: not a format-1 adapter (metadata {meta})")
    return {k: v.astype(np.float32) for k, v in load_file(str(path)).items()}, meta


def apply(base: dict, adapter: dict):
    """Base weights with the adapter's full changes added, and the low-rank factors by weight."""
    w = dict(base)
    lora = {}
    for key, value in adapter.items():
        if key.endswith(".delta"):
            name = key[: -len(".delta")]
            if name not in w or w[name].shape != value.shape:
                raise SystemExit(f"adapter tensor {key} does not fit the base weights")
            w[name] = (w[name] + value).astype(np.float32)
        elif key.endswith(".lora_a"):
            name = key[: -len(".lora_a")]
            b = adapter.get(name + ".lora_b")
            if name not in w or b is None or b.shape[0] != w[name].shape[0] or value.shape[1] != w[name].shape[1]:
                raise SystemExit(f"adapter factors of {name} do not fit the base weights")
            lora[name] = (value, b)
    return w, lora
