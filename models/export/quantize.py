#!/usr/bin/env python3
"""Writes an int8 copy of an exported fp32 ONNX model (dynamic quantisation, weights per channel).

Usage: quantize.py SRC.onnx DST.onnx

The weights of MatMul, Gather and the other operators onnxruntime's dynamic quantiser supports
become int8 with one scale per output channel; activations are quantised at run time. The output
is byte-for-byte reproducible for the same input and the pinned onnxruntime, so models/install
checks it against manifest.tsv like every other file. docs/performance.md has the speed and
docs/evaluation.md the quality measured against the fp32 model.
"""

import logging
import sys

from onnxruntime.quantization import QuantType, quantize_dynamic


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    # The quantiser suggests shape-inference pre-processing; it changes nothing for these graphs.
    logging.getLogger().setLevel(logging.ERROR)
    quantize_dynamic(sys.argv[1], sys.argv[2], weight_type=QuantType.QInt8, per_channel=True)


if __name__ == "__main__":
    main()
