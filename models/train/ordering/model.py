"""The ordering head: one network per level over a set of units (embedding + cue features).

For a set of n units with feature rows X [n, F]:

    h      = tanh(X W1 + b1)                                   unit states [n, H]
    h      = h + softmax(h Wq (h Wk)^T / sqrt(A)) h Wv          (optional) one attention layer over the set
    m      = mean_i h_i                                        the set's summary [H]
    z_ij   = relu(h_i Wa + h_j Wb + (h_i * h_j) Wc + q_ij Wq + b2)   pair states [n, n, H2]
             (= relu([h_i, h_j, h_i*h_j, h_i-h_j, q_ij] W + b2) with W folded; q_ij: pair cues)
    g_ij   = z_ij . wp ;  precedence_ij = g_ij - g_ji           logit of P(i before j), antisymmetric
    successor_ij = z_ij . ws                                   logit that j directly follows i
    p_i    = relu(h_i Wp1 + m Wp2 + (h_i * m) Wp3 + bp)         position states [n, Hp]
    opening_i = p_i . wo ;  closing_i = p_i . wc               logits over the set (softmax)

Losses: binary cross-entropy of sigmoid(precedence_ij) against the gold order for all pairs;
softmax cross-entropy of each unit's gold successor among the other units; softmax cross-entropy of
the gold first and last unit among the set.

The forward pass is written once for numpy / autograd.numpy (training) and exported as the same
graph in ONNX (export_onnx), checked against onnxruntime.
"""

import numpy as onp

SHAPES = None


def init(rng, F, H=64, H2=64, Hp=32, attention=0, Q=4):
    s = lambda *shape: rng.normal(0, 1, shape) / onp.sqrt(shape[0])  # noqa: E731
    p = {
        "W1": s(F, H), "b1": onp.zeros(H),
        "Wa": s(H, H2), "Wb": s(H, H2), "Wc": s(H, H2), "Wq2": s(Q, H2), "b2": onp.zeros(H2),
        "wp": s(H2, 1)[:, 0], "ws": s(H2, 1)[:, 0],
        "Wp1": s(H, Hp), "Wp2": s(H, Hp), "Wp3": s(H, Hp), "bp": onp.zeros(Hp),
        "wo": s(Hp, 1)[:, 0], "wc": s(Hp, 1)[:, 0],
    }
    if attention:
        p.update({"Wq": s(H, attention), "Wk": s(H, attention), "Wv": s(H, H) * 0.1})
    return p


def forward(np, p, X, mask, Q):
    """X [B, N, F], mask [B, N] (1 = real unit), Q [B, N, N, pair cues]. Returns (precedence, successor, opening, closing)
    logits: [B, N, N], [B, N, N], [B, N], [B, N] (padding entries are meaningless)."""
    h = np.tanh(np.matmul(X, p["W1"]) + p["b1"])
    cnt = np.sum(mask, axis=1)[:, None]
    if "Wq" in p:
        q = np.matmul(h, p["Wq"])
        k = np.matmul(h, p["Wk"])
        att = np.matmul(q, np.transpose(k, (0, 2, 1))) / onp.sqrt(p["Wq"].shape[1])
        att = att + (mask[:, None, :] - 1.0) * 1e9
        att = att - np.max(att, axis=2, keepdims=True)
        e = np.exp(att)
        a = e / np.sum(e, axis=2, keepdims=True)
        h = h + np.matmul(a, np.matmul(h, p["Wv"]))
    m = np.sum(h * mask[:, :, None], axis=1) / cnt  # [B, H]
    A = np.matmul(h, p["Wa"])
    Bv = np.matmul(h, p["Wb"])
    C = np.matmul(h[:, :, None, :] * h[:, None, :, :], p["Wc"])
    z = np.maximum(A[:, :, None, :] + Bv[:, None, :, :] + C + np.matmul(Q, p["Wq2"]) + p["b2"], 0.0)
    g = np.matmul(z, p["wp"])
    prec = g - np.transpose(g, (0, 2, 1))
    succ = np.matmul(z, p["ws"])
    pos = np.maximum(
        np.matmul(h, p["Wp1"]) + np.matmul(m, p["Wp2"])[:, None, :]
        + np.matmul(h * m[:, None, :], p["Wp3"]) + p["bp"], 0.0)
    opening = np.matmul(pos, p["wo"])
    closing = np.matmul(pos, p["wc"])
    return prec, succ, opening, closing


def export_onnx(p, path, F, doc=""):
    """Writes the head as an ONNX graph with inputs `units` [n, F] and `pairs` [n, n, Q] and outputs `precedence` [n, n],
    `successor` [n, n], `opening` [n], `closing` [n] (all logits)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    inits, nodes = [], []

    def const(name, arr, dtype=onp.float32):
        inits.append(numpy_helper.from_array(onp.asarray(arr, dtype=dtype), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name + "_op", **attrs))
        return name

    for k, v in p.items():
        const(k, v)
    const("ax0", [0], onp.int64)
    const("ax1", [1], onp.int64)
    const("col", [-1, 1], onp.int64)
    const("wp_col", onp.asarray(p["wp"]).reshape(-1, 1))
    const("ws_col", onp.asarray(p["ws"]).reshape(-1, 1))
    const("wo_col", onp.asarray(p["wo"]).reshape(-1, 1))
    const("wc_col", onp.asarray(p["wc"]).reshape(-1, 1))
    const("zero", 0.0)

    h = node("Tanh", [node("Add", [node("MatMul", ["units", "W1"], "xw1"), "b1"], "xw1b")], "h0")
    if "Wq" in p:
        q = node("MatMul", [h, "Wq"], "q")
        k = node("MatMul", [h, "Wk"], "k")
        kt = node("Transpose", [k], "kt", perm=[1, 0])
        const("scale", 1.0 / onp.sqrt(p["Wq"].shape[1]))
        s = node("Mul", [node("MatMul", [q, kt], "qk"), "scale"], "qks")
        a = node("Softmax", [s], "att", axis=1)
        v = node("MatMul", [h, "Wv"], "v")
        h = node("Add", [h, node("MatMul", [a, v], "av")], "h1")
    m = node("ReduceMean", [h], "m", axes=[0], keepdims=1)  # [1, H]
    A = node("MatMul", [h, "Wa"], "A")  # [n, H2]
    Bv = node("MatMul", [h, "Wb"], "B")
    hi = node("Unsqueeze", [h, "ax1"], "hi")  # [n, 1, H]
    hj = node("Unsqueeze", [h, "ax0"], "hj")  # [1, n, H]
    C = node("MatMul", [node("Mul", [hi, hj], "hh"), "Wc"], "C")  # [n, n, H2]
    Ai = node("Unsqueeze", [A, "ax1"], "Ai")
    Bj = node("Unsqueeze", [Bv, "ax0"], "Bj")
    Qp = node("MatMul", ["pairs", "Wq2"], "Qp")  # [n, n, H2]
    pre = node("Add", [node("Add", [node("Add", [node("Add", [Ai, Bj], "AB"), C], "ABC"), Qp], "ABCQ"), "b2"], "zpre")
    z = node("Relu", [pre], "z")
    const("sq2", [2], onp.int64)
    g = node("Squeeze", [node("MatMul", [z, "wp_col"], "g3"), "sq2"], "g")
    gt = node("Transpose", [g], "gt", perm=[1, 0])
    node("Sub", [g, gt], "precedence")
    node("Squeeze", [node("MatMul", [z, "ws_col"], "s3"), "sq2"], "successor")
    pos = node("Relu", [node("Add", [node("Add", [node("Add", [
        node("MatMul", [h, "Wp1"], "p1"), node("MatMul", [m, "Wp2"], "p2")], "p12"),
        node("MatMul", [node("Mul", [h, m], "hm"), "Wp3"], "p3")], "p123"), "bp"], "ppre")], "pos")
    node("Squeeze", [node("MatMul", [pos, "wo_col"], "o2"), "ax1"], "opening")
    node("Squeeze", [node("MatMul", [pos, "wc_col"], "c2"), "ax1"], "closing")

    # Drop initializers only used in training form.
    used = {i for n in nodes for i in n.input}
    inits = [t for t in inits if t.name in used]
    graph = helper.make_graph(
        nodes, "segue_ordering_head",
        [helper.make_tensor_value_info("units", TensorProto.FLOAT, ["n", F]),
         helper.make_tensor_value_info("pairs", TensorProto.FLOAT, ["n", "n", int(p["Wq2"].shape[0])])],
        [helper.make_tensor_value_info("precedence", TensorProto.FLOAT, ["n", "n"]),
         helper.make_tensor_value_info("successor", TensorProto.FLOAT, ["n", "n"]),
         helper.make_tensor_value_info("opening", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("closing", TensorProto.FLOAT, ["n"])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="segue-ordering")
    model.ir_version = 8
    model.doc_string = doc
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
