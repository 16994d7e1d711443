"""The exports of the encoder and the paragraph reader to ONNX (run by models/install)."""
