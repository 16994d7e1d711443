"""Exact order decoding by dynamic programming over subsets (numpy), the Python twin of
server/src/order/decode.rs's decoder, and the order metrics used to choose weights on dev.

Objective of an order o of n units:
    sum_k adj[o_k, o_k+1] + sum_{k<l} prec[o_k, o_l] + opening[o_0] + closing[o_n-1]
"""

import itertools
import math

import numpy as np


def exact(adj, prec=None, opening=None, closing=None):
    """The order maximising the objective (n <= 16)."""
    n = adj.shape[0]
    if n <= 1:
        return list(range(n))
    opening = np.zeros(n) if opening is None else opening
    closing = np.zeros(n) if closing is None else closing
    full = (1 << n) - 1
    masks = np.arange(full + 1)
    # prec_in[mask, v] = sum over i in mask of prec[i, v]
    prec_in = np.zeros((full + 1, n))
    if prec is not None:
        for b in range(n):
            prec_in[1 << b: 2 << b] = prec_in[: 1 << b] + prec[b]
    best = np.full((full + 1, n), -np.inf)
    back = np.full((full + 1, n), -1, dtype=np.int64)
    for u in range(n):
        best[1 << u, u] = opening[u]
    popcount = np.array([bin(m).count("1") for m in masks])
    for k in range(2, n + 1):
        layer = masks[popcount == k]
        for last in range(n):
            sel = layer[(layer >> last) & 1 == 1]
            prev_mask = sel ^ (1 << last)
            vals = best[prev_mask] + adj[:, last][None, :]
            arg = np.argmax(vals, axis=1)
            best[sel, last] = vals[np.arange(len(sel)), arg] + prec_in[prev_mask, last]
            back[sel, last] = arg
    final = best[full] + closing
    last = int(np.argmax(final))
    order = []
    mask = full
    while last >= 0:
        order.append(last)
        prev = int(back[mask, last])
        mask ^= 1 << last
        last = prev
    return order[::-1]


def objective(order, adj, prec=None, opening=None, closing=None):
    v = sum(adj[a, b] for a, b in zip(order, order[1:]))
    if prec is not None:
        v += sum(prec[order[i], order[j]] for i in range(len(order)) for j in range(i + 1, len(order)))
    if opening is not None:
        v += opening[order[0]]
    if closing is not None:
        v += closing[order[-1]]
    return v


def greedy(adj):
    """Best greedy chain over all start units (as server/src/order/decode.rs's greedy)."""
    n = adj.shape[0]
    best = None
    for s in range(n):
        used = [False] * n
        used[s] = True
        order = [s]
        while len(order) < n:
            last = order[-1]
            cand = [j for j in range(n) if not used[j]]
            nxt = max(cand, key=lambda j: (adj[last, j], -j))
            used[nxt] = True
            order.append(nxt)
        sc = sum(adj[a, b] for a, b in zip(order, order[1:]))
        if best is None or sc > best[0]:
            best = (sc, order)
    return best[1]


# ---- metrics (gold is the identity) -------------------------------------------------------------


def pmr(pred):
    return float(list(pred) == list(range(len(pred))))


def acc(pred):
    return sum(int(p == i) for i, p in enumerate(pred)) / len(pred)


def tau(pred):
    n = len(pred)
    if n < 2:
        return 1.0
    inv = sum(1 for i, j in itertools.combinations(range(n), 2) if pred[i] > pred[j])
    return 1 - 2 * inv / (n * (n - 1) / 2)


def wlcs_l(pred, w=1.2):
    """WLCS-l of seed 000 (py-rouge ROUGE-W F, weight 1.2, doubled recall denominator) of pred
    against the identity: a port of server/src/order/metrics.rs `rouge_w`."""
    x, y = list(range(len(pred))), list(pred)
    m, n = len(x), len(y)
    if m == 0 or n == 0:
        return 0.0
    dirs = [[0] * (n + 1) for _ in range(m + 1)]
    prev_vals, prev_lens = [0.0] * (n + 1), [0] * (n + 1)
    for i in range(1, m + 1):
        vals, lens = [0.0] * (n + 1), [0] * (n + 1)
        for j in range(1, n + 1):
            if x[i - 1] == y[j - 1]:
                run = prev_lens[j - 1]
                vals[j] = prev_vals[j - 1] + float(run + 1) ** w - float(run) ** w
                lens[j] = run + 1
                dirs[i][j] = 1
            elif prev_vals[j] >= vals[j - 1]:
                vals[j] = prev_vals[j]
                dirs[i][j] = 2
            else:
                vals[j] = vals[j - 1]
                dirs[i][j] = 3
        prev_vals, prev_lens = vals, lens
    marked = [False] * m
    i, j = m, n
    while i and j:
        d = dirs[i][j]
        if d == 1:
            i, j = i - 1, j - 1
            marked[i] = True
        elif d == 2:
            i -= 1
        else:
            j -= 1
    total, run = 0.0, 0
    for k, hit in enumerate(marked):
        if hit:
            run += 1
            if k + 1 >= m or not marked[k + 1]:
                total += float(run) ** w
                run = 0
    p = (total / float(n) ** w) ** (1 / w)
    r = (total / (float(m) ** w) ** w) ** (1 / w)
    return 0.0 if p == 0 or r == 0 else p * r / (0.5 * p + 0.5 * r)


def metrics(preds):
    out = {"pmr": 0.0, "acc": 0.0, "tau": 0.0, "wlcs": 0.0}
    for p in preds:
        out["pmr"] += pmr(p)
        out["acc"] += acc(p)
        out["tau"] += tau(p)
        out["wlcs"] += wlcs_l(p)
    k = max(len(preds), 1)
    return {key: v / k for key, v in out.items()}


def log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    for n in range(1, 8):
        adj = rng.random((n, n))
        prec = rng.normal(size=(n, n))
        op, cl = rng.random(n), rng.random(n)
        o = exact(adj, prec, op, cl)
        best = max(objective(list(p), adj, prec, op, cl) for p in itertools.permutations(range(n)))
        assert math.isclose(objective(o, adj, prec, op, cl), best, rel_tol=1e-9), n
    print("decode: DP equals brute force")
