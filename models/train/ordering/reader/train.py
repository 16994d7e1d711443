"""Fine-tunes all-MiniLM-L6-v2 as a *paragraph reader* for sentence order, on 2 CPU cores.

The set-aware model issue 8 asks for, in one encoder pass: the sentences of a paragraph, in a
random order, are read together as "[CLS] s1 [SEP] s2 [SEP] ... sn [SEP]" (token types alternate
0/1 by sentence, as in BERTSUM), so every sentence attends to every other one. Each sentence's
vector is the mean of its tokens' final states, and three small read-outs give
- a position score r_i (RankNet loss over every pair: i before j when r_i > r_j),
- precedence logits p_ij = a_i . b_j - a_j . b_i (binary cross-entropy over every pair),
- successor logits s_ij = c_i . d_j (softmax over the other sentences; the last one has none).
One pass gives all n(n-1) pairs, where the pair cross-encoder needs n(n-1) passes.

Train split only (the paragraphs finetune.py uses); dev: the 97 dev abstracts of 4-10 sentences
and the 500 held-out dev paragraphs of heldout.py (same sample), each read in a shuffled order
(seed 13), decoded exactly (subset DP) by each read-out and by their sum.

    target/xenc/venv/bin/python -m models.train.ordering.reader.train SECONDS
"""
from pathlib import Path
import json, os, random, sys, time
import numpy as np, torch
from transformers import BertModel
from tokenizers import Tokenizer

torch.set_num_threads(int(os.environ.get("THREADS", 2))); torch.manual_seed(0); random.seed(0)
from models.train.ordering import decode  # exact DP and metrics, shared with the heads' trainer
R = Path(__file__).resolve().parents[4]; M = str(R / "target/xenc/minilm")
SHARED = Path(os.environ.get("SEGUE_DATA_DIR") or R.parent / "shared" / "data")
from models.export.export_reader import unit_token_limit  # the export's and Rust's token budget
PER_SENTENCE = 40  # most tokens kept of one sentence (fewer when a set would not fit the encoder)
BATCH = int(os.environ.get("BATCH", 8))
tok = Tokenizer.from_file(M + "/tokenizer.json"); tok.no_truncation(); tok.no_padding()
CLS, SEP = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")


def paras(path, lo, hi, skip_first=False):
    out = []
    for l in open(path):
        d = json.loads(l)
        ps = [d["sentences"]] if "sentences" in d else d["paragraphs"]
        out += [p for p in (ps[1:] if skip_first else ps) if lo <= len(p) <= hi]
    return out


train = (paras(SHARED / "train.abstracts.jsonl", 3, 12) + paras(R / "target/ordering/train.paras.jsonl", 3, 10)
         + paras(R / "target/ordering/train.paras2.jsonl", 3, 10))
# EXTRA=path: a further training source (doc_sets.py's document-level sets, used for the shipped
# reader; ../../data/rustdoc_paras.py's Rust crate docs, tried), drawn for a share EXTRA_SHARE of
# each batch's sets (default 0.3) instead of its own size's share. EXTRA_MAX (default 12) is the
# largest set kept from it: 16 for doc_sets.py's sets.
extra = paras(Path(os.environ["EXTRA"]), 3, int(os.environ.get("EXTRA_MAX", 12))) if os.environ.get("EXTRA") else []
EXTRA_SHARE = float(os.environ.get("EXTRA_SHARE", 0.3)) if extra else 0.0
abstracts = paras(SHARED / "dev.abstracts.jsonl", 4, 10)
heldout = paras(SHARED / "dev.jsonl", 4, 10, skip_first=True)
random.Random(0).shuffle(heldout); heldout = heldout[:500]
print(len(train), "train paragraphs +", len(extra), "extra;", len(abstracts), "dev abstracts;", len(heldout), "held-out dev paragraphs", flush=True)


class Reader(torch.nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.bert = BertModel.from_pretrained(M, add_pooling_layer=False)
        self.pos = torch.nn.Linear(384, 1)
        self.prec = torch.nn.Linear(384, 2 * dim)
        self.succ = torch.nn.Linear(384, 2 * dim)
        self.dim = dim

    def forward(self, ids, types, mask, seg):
        """seg [B, S, T]: row i averages sentence i's tokens. Returns r [B, S], p [B, S, S], s [B, S, S]."""
        h = self.bert(input_ids=ids, token_type_ids=types, attention_mask=mask).last_hidden_state
        H = seg @ h  # [B, S, 384]
        r = self.pos(H)[..., 0]
        a, b = self.prec(H).split(self.dim, -1)
        ab = a @ b.transpose(1, 2)
        c, d = self.succ(H).split(self.dim, -1)
        return r, ab - ab.transpose(1, 2), c @ d.transpose(1, 2)


def encode(sentences):
    """Token ids, types and the pooling matrix of one paragraph read in the given order. Each
    sentence keeps PER_SENTENCE tokens, or fewer so that the set fits the encoder's positions."""
    ids, types, spans = [CLS], [0], []
    limit = unit_token_limit(len(sentences), PER_SENTENCE)
    for k, s in enumerate(sentences):
        t = tok.encode(s, add_special_tokens=False).ids[:limit]
        spans.append((len(ids), len(ids) + len(t)))
        ids += t + [SEP]; types += [k % 2] * (len(t) + 1)
    return ids, types, spans


def batch(paragraphs):
    encs = [encode(p) for p in paragraphs]
    T = max(len(e[0]) for e in encs); S = max(len(p) for p in paragraphs)
    ids = torch.zeros(len(encs), T, dtype=torch.long); ty = torch.zeros_like(ids); mk = torch.zeros_like(ids)
    seg = torch.zeros(len(encs), S, T)
    for b, (i, t, spans) in enumerate(encs):
        ids[b, :len(i)] = torch.tensor(i); ty[b, :len(t)] = torch.tensor(t); mk[b, :len(i)] = 1
        for k, (lo, hi) in enumerate(spans):
            seg[b, k, lo:max(hi, lo + 1)] = 1.0 / max(hi - lo, 1)
    return ids, ty, mk, seg


def loss_of(model, paragraphs, rng):
    """Each paragraph read in a random order; gold positions give the targets."""
    perms = [rng.sample(range(len(p)), len(p)) for p in paragraphs]
    r, p, s = model(*batch([[q[i] for i in perm] for q, perm in zip(paragraphs, perms)]))
    total = 0.0
    for b, perm in enumerate(perms):
        n = len(perm); gold = torch.tensor(perm)  # slot k holds gold sentence perm[k]
        before = (gold[:, None] < gold[None, :]).float()  # slot i's sentence comes before slot j's
        off = 1 - torch.eye(n)
        rb = r[b, :n]
        rank = torch.nn.functional.softplus(-(rb[:, None] - rb[None, :]) * (2 * before - 1))
        prec = torch.nn.functional.binary_cross_entropy_with_logits(p[b, :n, :n], before, reduction="none")
        sb = s[b, :n, :n].masked_fill(torch.eye(n, dtype=torch.bool), -1e4)
        slot = {g: k for k, g in enumerate(perm)}
        src = torch.tensor([slot[g] for g in range(n - 1)]); dst = torch.tensor([slot[g + 1] for g in range(n - 1)])
        succ = torch.nn.functional.cross_entropy(sb[src], dst)
        total = total + (rank * off).sum() / off.sum() + (prec * off).sum() / off.sum() + succ
    return total / len(perms)


@torch.no_grad()
def outputs(model, paragraphs, raw=False):
    """Per paragraph, read in a shuffled order (seed 13): r, log P(i before j), log-softmax successor
    (with `raw`, also the precedence and successor logits), indexed by gold position."""
    rng = random.Random(13); out = []
    for k in range(0, len(paragraphs), 16):
        chunk = paragraphs[k:k + 16]
        perms = [rng.sample(range(len(p)), len(p)) for p in chunk]
        r, p, s = model(*batch([[q[i] for i in perm] for q, perm in zip(chunk, perms)]))
        for b, perm in enumerate(perms):
            n = len(perm); inv = np.argsort(perm)  # gold g sits in slot inv[g]
            rb = r[b, :n].numpy()[inv]; pb = p[b, :n, :n].numpy()[np.ix_(inv, inv)]
            sb = s[b, :n, :n].numpy()[np.ix_(inv, inv)]; np.fill_diagonal(sb, -1e9)
            ls = sb - np.logaddexp.reduce(sb, axis=1, keepdims=True)
            lp = -np.logaddexp(0, -pb)
            out.append((rb, lp, ls, pb, s[b, :n, :n].numpy()[np.ix_(inv, inv)]) if raw else (rb, lp, ls))
    return out


def evaluate(model, paragraphs):
    """PMR and tau of each read-out decoded on its own, and of their sum."""
    model.eval(); res = {"rank": [], "prec": [], "succ": [], "all": []}
    for rb, lp, ls in outputs(model, paragraphs):
        n = len(rb)
        ls = np.where(np.eye(n, dtype=bool), 0.0, ls)  # the decoder never uses the diagonal
        orders = {
            "rank": list(np.argsort(-rb, kind="stable")),
            "prec": decode.exact(np.zeros((n, n)), prec=lp),
            "succ": decode.exact(ls),
            "all": decode.exact(ls, prec=lp),
        }
        for name, order in orders.items():
            res[name].append((decode.pmr(order), decode.tau(order)))
    model.train()
    return {k: (round(100 * float(np.mean([a for a, _ in v])), 2), round(float(np.mean([t for _, t in v])), 3)) for k, v in res.items()}


if __name__ == "__main__":
    BUDGET = float(sys.argv[1]) if len(sys.argv) > 1 else 1800  # training seconds
    model = Reader()
    if os.environ.get("RESUME"):
        model.load_state_dict(torch.load(os.environ["RESUME"]))
    bert = [p for n, p in model.named_parameters() if n.startswith("bert.")]
    heads = [p for n, p in model.named_parameters() if not n.startswith("bert.")]
    opt = torch.optim.AdamW([{"params": bert, "lr": float(os.environ.get("LR", 3e-5))}, {"params": heads, "lr": 1e-3}], weight_decay=0.01)
    rng = random.Random(int(os.environ.get("SEED", 0))); seen = 0; start = time.time(); last = start; losses = []
    every = float(os.environ.get("EVERY", 600))
    while time.time() - start < BUDGET:
        b = [extra[rng.randrange(len(extra))] if rng.random() < EXTRA_SHARE else train[rng.randrange(len(train))]
             for _ in range(BATCH)]
        loss = loss_of(model, b, rng)
        opt.zero_grad(); loss.backward(); opt.step()
        seen += len(b); losses.append(loss.item())
        if time.time() - last > every:
            last = time.time()
            print(f"{seen} paragraphs, {seen/(last-start):.2f}/s, loss {np.mean(losses[-50:]):.3f}, abstracts {evaluate(model, abstracts)}", flush=True)
    print(f"final: {seen} paragraphs in {time.time()-start:.0f}s, loss {np.mean(losses[-50:]):.3f}", flush=True)
    print("abstracts (PMR, tau):", evaluate(model, abstracts), flush=True)
    print("held-out paragraphs (PMR, tau):", evaluate(model, heldout), flush=True)
    torch.save(model.state_dict(), os.environ.get("SAVE", str(R / "target/xenc/reader.pt")))
