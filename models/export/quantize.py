#!/usr/bin/env python3
"""Writes an int8 copy of an exported fp32 ONNX model whose results do not depend on the batch.

Usage: quantize.py SRC.onnx DST.onnx

- Every MatMul with a constant 2-D weight becomes a MatMulInteger: the weight is int8 with one
  symmetric scale per output column; its input is quantised at run time with one symmetric scale
  per token (per row of the last axis: `QuantizeLinear` with one block the width of the row, zero
  point 128), and the int32 product is scaled back by the two scales.
- The word-embedding table (a Gather on a constant 2-D table) is int8 with one scale per row; a
  lookup gathers the rows and their scales.
- Everything else stays float32.

Per-token scales are what make the copy batch-independent: onnxruntime's dynamic quantiser
(`quantize_dynamic`) uses one scale per tensor, so a sentence's vector depended on the other
sentences of its batch and on their padding (up to 0.04 in the cosine of two adjacent sentences).
Here a token's scale depends on that token's values alone; a sentence embedded alone and in any
batch gets the same vector up to float rounding (`server/tests/model.rs`,
`a_sentences_vector_does_not_depend_on_its_batch`).

The graph is converted to opset 21 first (blocked `QuantizeLinear`). The output is byte-for-byte
reproducible for the same input and the pinned onnx, so models/install checks it against
manifest.tsv like every other file. docs/performance.md has the speed and docs/evaluation.md the
quality measured against the fp32 model.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, version_converter

OPSET = 21
# The smallest weight (rows and columns) worth quantising: a low-rank adapter's thin product
# costs more to quantise than to multiply in float32.
MIN_DIM = 128


def weight_int8_per_column(w):
    """Symmetric int8 weights with one scale per output column."""
    scale = np.abs(w).max(axis=0) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def rows_int8(table):
    """Symmetric int8 rows with one scale per row."""
    scale = np.abs(table).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(table / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


class Rewriter:
    def __init__(self, model):
        self.model = model
        self.graph = model.graph
        self.inits = {i.name: i for i in self.graph.initializer}
        self.nodes = []
        self.quantised_inputs = {}
        self.replaced = set()
        self.const("q_axes_last", np.array([-1], np.int64))
        self.const("q_eps", np.array(1e-12, np.float32))
        self.const("q_127", np.array(127.0, np.float32))
        self.const("q_zero_point", np.array(128, np.uint8))

    def const(self, name, array):
        self.graph.initializer.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, **attrs))

    def constant_2d(self, name):
        init = self.inits.get(name)
        return None if init is None or len(init.dims) != 2 else numpy_helper.to_array(init)

    def per_token(self, x, width):
        """The uint8 copy of activation `x` (zero point 128) and its per-token scale."""
        if x not in self.quantised_inputs:
            p = f"{x}_q"
            self.node("Abs", [x], [p + "_abs"])
            self.node("ReduceMax", [p + "_abs", "q_axes_last"], [p + "_max"], keepdims=1)
            self.node("Max", [p + "_max", "q_eps"], [p + "_max_eps"])
            self.node("Div", [p + "_max_eps", "q_127"], [p + "_scale"])
            self.node("Shape", [p + "_scale"], [p + "_shape"])
            self.node("Expand", ["q_zero_point", p + "_shape"], [p + "_zero_point"])
            self.node(
                "QuantizeLinear",
                [x, p + "_scale", p + "_zero_point"],
                [p + "_u8"],
                axis=-1,
                block_size=width,
            )
            self.quantised_inputs[x] = (p + "_u8", p + "_scale")
        return self.quantised_inputs[x]

    def matmul(self, node, w):
        k, n = w.shape
        qx, sx = self.per_token(node.input[0], k)
        p = node.input[1]
        q, scale = weight_int8_per_column(w.astype(np.float32))
        self.const(p + "_int8", q)
        self.const(p + "_scale", scale)
        out = node.output[0]
        self.node("MatMulInteger", [qx, p + "_int8", "q_zero_point"], [out + "_i32"])
        self.node("Cast", [out + "_i32"], [out + "_f32"], to=TensorProto.FLOAT)
        self.node("Mul", [out + "_f32", sx], [out + "_token_scaled"])
        self.node("Mul", [out + "_token_scaled", p + "_scale"], [out])
        self.replaced.add(p)

    def gather(self, node, table):
        p = node.input[0]
        q, scale = rows_int8(table.astype(np.float32))
        self.const(p + "_int8", q)
        self.const(p + "_scale", scale)
        ids, out = node.input[1], node.output[0]
        self.node("Gather", [p + "_int8", ids], [out + "_int8"], axis=0)
        self.node("Gather", [p + "_scale", ids], [out + "_row_scale"], axis=0)
        self.node("Unsqueeze", [out + "_row_scale", "q_axes_last"], [out + "_row_scale_1"])
        self.node("Cast", [out + "_int8"], [out + "_f32"], to=TensorProto.FLOAT)
        self.node("Mul", [out + "_f32", out + "_row_scale_1"], [out])
        self.replaced.add(p)

    def run(self):
        for node in self.graph.node:
            w = self.constant_2d(node.input[1]) if node.op_type == "MatMul" else None
            table = self.constant_2d(node.input[0]) if node.op_type == "Gather" else None
            axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
            if w is not None and min(w.shape) >= MIN_DIM:
                self.matmul(node, w)
            elif table is not None and axis == 0 and table.shape[0] >= MIN_DIM:
                self.gather(node, table)
            else:
                self.nodes.append(node)
        used = {i for n in self.nodes for i in n.input}
        kept = [
            i for i in self.graph.initializer if i.name not in self.replaced or i.name in used
        ]
        del self.graph.initializer[:]
        self.graph.initializer.extend(kept)
        del self.graph.node[:]
        self.graph.node.extend(self.nodes)
        return self.model


def quantise(model):
    """The batch-independent int8 copy of an fp32 `model` (onnx.ModelProto)."""
    model = version_converter.convert_version(model, OPSET)
    model = Rewriter(model).run()
    onnx.checker.check_model(model)
    return model


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    onnx.save(quantise(onnx.load(sys.argv[1])), sys.argv[2])


if __name__ == "__main__":
    main()
