"""Brownian-bridge maths shared by the BBScore trainer, the classifier trainer and the evaluation.

Everything here has a twin in server/src/score/bbscore.rs; the two must agree (the Rust tests
check a handful of values written by export.py into models/bbscore/reference.json).

Notation (seed 001, after Time Control): a trajectory z_0 … z_T of T + 1 latents (one per unit,
in a given order). Interior point i (0 < i < T) is modelled as

    z_i ~ N(mu_i, s_i^2 I),  mu_i = z_0 + (i / T)(z_T - z_0),  s_i^2 = (i (T - i) / T) * sigma_m

so its log-likelihood is  ln L_i = -(d/2) ln(2 pi s_i^2) - |z_i - mu_i|^2 / (2 s_i^2).
The document score is  B = |sum_i ln L_i| / (T - 1)  over the T - 1 interior points (the seed's
|ln prod_{i=2}^{n-1} L_i| / (n - 2) with n = T + 1 sentences, 1-based).
"""

import math

import numpy as np

LOG_2PI = math.log(2 * math.pi)


def bridge_terms(z: np.ndarray):
    """Per interior point of the trajectory z [n, d]: squared residual |z_i - mu_i|^2 and the
    bridge variance factor i (T - i) / T. Empty arrays when n < 3."""
    n = len(z)
    if n < 3:
        return np.zeros(0), np.zeros(0)
    T = n - 1
    i = np.arange(1, T, dtype=np.float64)
    a = (i / T)[:, None]
    mu = z[0][None, :] * (1 - a) + z[-1][None, :] * a
    r2 = ((z[1:-1] - mu) ** 2).sum(axis=1)
    return r2, i * (T - i) / T


def log_likelihoods(z: np.ndarray, sigma: float) -> np.ndarray:
    """ln L_i of every interior point of z [n, d] under the bridge with diffusion sigma."""
    d = z.shape[1]
    r2, v = bridge_terms(z)
    s2 = v * sigma
    return -0.5 * d * (LOG_2PI + np.log(s2)) - r2 / (2 * s2)


def bbscore(z: np.ndarray, sigma: float) -> float:
    """Seed 001's B: |sum of ln L_i| / number of interior points (NaN when n < 3). Lower is more
    coherent."""
    ll = log_likelihoods(z, sigma)
    if len(ll) == 0:
        return float("nan")
    return abs(ll.sum()) / len(ll)


def sigma_mle(trajectories) -> float:
    """Maximum-likelihood sigma_m over trajectories (each [n, d]): the mean over all interior
    points of |z_i - mu_i|^2 / (d * i (T - i) / T)."""
    num, count = 0.0, 0
    for z in trajectories:
        r2, v = bridge_terms(z)
        num += (r2 / v).sum()
        count += len(r2) * z.shape[1]
    return num / max(count, 1)


def window_excess(z: np.ndarray, sigma: float, w: int) -> np.ndarray:
    """Local score of every unit: |z_i - mu|^2 / (d s^2) for the bridge from z_{i-w} to z_{i+w}
    (clipped at the ends; a unit with no neighbour on one side gets NaN). 1 is a typical deviation;
    larger means the unit leaves the trajectory of its neighbours."""
    n, d = z.shape
    out = np.full(n, np.nan)
    if n < 3:
        return out
    i = np.arange(1, n - 1)
    lo, hi = np.maximum(0, i - w), np.minimum(n - 1, i + w)
    T, t = (hi - lo).astype(np.float64), (i - lo).astype(np.float64)
    a = (t / T)[:, None]
    mu = z[lo] * (1 - a) + z[hi] * a
    s2 = t * (T - t) / T * sigma
    out[1:-1] = ((z[i] - mu) ** 2).sum(axis=1) / (d * s2)
    return out


def step_excess(z: np.ndarray, sigma: float) -> np.ndarray:
    """|z_{i+1} - z_i|^2 / (d sigma) for every adjacent pair: the Brownian increment's deviation
    (1 is typical)."""
    d = z.shape[1]
    return ((z[1:] - z[:-1]) ** 2).sum(axis=1) / (d * sigma)


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


def head_forward(params, x):
    """The projection head: tanh(x W1 + b1) W2 + b2 (x: [n, 384] unit-length MiniLM vectors)."""
    h = np.tanh(x @ params["W1"] + params["b1"])
    return h @ params["W2"] + params["b2"]


def path_log_likelihoods(z: np.ndarray, sigma: float) -> np.ndarray:
    """ln p(z_i | z_{i-1}, z_T) for 0 < i < T: the exact (Markov) factorisation of the bridge's
    joint likelihood of the path, given its end points. Each unit is judged from the one before it,
    pulled towards the last unit."""
    n, d = z.shape
    if n < 3:
        return np.zeros(0)
    T = n - 1
    i = np.arange(1, T, dtype=np.float64)
    rem = T - i + 1  # time left from the previous unit to the end
    a = (1 / rem)[:, None]
    mu = z[:-2] * (1 - a) + z[-1][None, :] * a
    s2 = (rem - 1) / rem * sigma
    r2 = ((z[1:-1] - mu) ** 2).sum(axis=1)
    return -0.5 * d * (LOG_2PI + np.log(s2)) - r2 / (2 * s2)


def path_bbscore(z: np.ndarray, sigma: float) -> float:
    ll = path_log_likelihoods(z, sigma)
    if len(ll) == 0:
        return float("nan")
    return abs(ll.sum()) / len(ll)


# Features of one order for the supervised variant (BBScore+CLF). Rust computes the same list in
# the same order (server/src/score/bbscore.rs, `clf_features`).
FEATURES = [
    "bb",  # B / d: seed 001's score per latent dimension (global bridge from first to last unit)
    "global_mean",  # mean over interior units of ln(1 + q), q = |z_i - mu_i|^2 / (d s_i^2)
    "global_max",  # max of ln(1 + q) over interior units
    "path_bb",  # the same as bb for the path likelihood (path_bbscore)
    "local1_mean",  # the same for the bridge of each unit's two neighbours (window 1)
    "local1_max",
    "local2_mean",  # window 2 (neighbours two away; clipped at the ends)
    "local2_max",
    "step_mean",  # mean over adjacent pairs of ln(1 + |z_{i+1} - z_i|^2 / (d sigma))
    "step_max",
    "cos_mean",  # mean adjacent cosine of the encoder's (384-d) vectors
    "cos_min",
    "log_units",  # ln(number of units)
    "paragraph",  # 1 at paragraph level, 0 at sentence level
]


def _mean_max(v):
    v = v[~np.isnan(v)]
    if len(v) == 0:
        return 0.0, 0.0
    v = np.log1p(v)
    return float(v.mean()), float(v.max())


def features(z: np.ndarray, e: np.ndarray, sigma: float, paragraph: bool) -> np.ndarray:
    """The FEATURES of the trajectory z [n, d] (latents in the order judged) with encoder vectors
    e [n, 384] in the same order."""
    n, d = z.shape
    out = np.zeros(len(FEATURES))
    r2, v = bridge_terms(z)
    if len(r2):
        out[0] = bbscore(z, sigma) / d
        out[1], out[2] = _mean_max(r2 / (d * v * sigma))
        out[3] = path_bbscore(z, sigma) / d
    out[4], out[5] = _mean_max(window_excess(z, sigma, 1))
    out[6], out[7] = _mean_max(window_excess(z, sigma, 2))
    if n >= 2:
        out[8], out[9] = _mean_max(step_excess(z, sigma))
        cos = (e[1:] * e[:-1]).sum(axis=1) / np.maximum(np.linalg.norm(e[1:], axis=1) * np.linalg.norm(e[:-1], axis=1), 1e-12)
        out[10], out[11] = float(cos.mean()), float(cos.min())
    out[12] = np.log(max(n, 1))
    out[13] = 1.0 if paragraph else 0.0
    return out


def mlp_forward(p, x):
    """The classifier: three layers, ReLU, one logit per row (x already standardised)."""
    h = np.maximum(x @ p["C1"] + p["c1"], 0)
    h = np.maximum(h @ p["C2"] + p["c2"], 0)
    return (h @ p["C3"] + p["c3"])[..., 0]


# Degradations, as server/src/eval/degrade.rs defines them (the random streams differ).
def degrade(kind: str, n: int, rng) -> list | None:
    if n < 2:
        return None
    ident = list(range(n))
    for _ in range(32):
        if kind == "R":
            o = list(rng.permutation(n))
        elif kind[0] == "R":
            o = ident[:]
            for _ in range(int(kind[1:])):
                f = int(rng.integers(0, n))
                t = int(rng.integers(0, n - 1))
                if t >= f:
                    t += 1
                u = o.pop(f)
                o.insert(t, u)
        else:
            b = int(kind[1:])
            blocks = [ident[i:i + b] for i in range(0, n, b)]
            if len(blocks) < 2:
                return None
            o = [u for k in rng.permutation(len(blocks)) for u in blocks[k]]
        if o != ident:
            return [int(u) for u in o]
    return None


DEGRADATIONS = ["R1", "R2", "R", "D1", "D2", "D5", "D10"]

