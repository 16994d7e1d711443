"""Fine-tunes all-MiniLM-L6-v2 as a cross-encoder for sentence order on 2 CPU cores.

Output 0: P(a before b) from "[CLS] a [SEP] b [SEP]" (precedence, at any distance in a paragraph).
With NEXT=1 a second output is trained beside it: P(b directly follows a) (the successor), on the
same pairs, half of them adjacent. Train split only; dev pairwise accuracy and exact (subset DP)
ordering on the dev abstracts (4-10 sentences): PMR, tau (and, with NEXT=1, successor top-1
accuracy and PMR, tau of decoding with the successor alone)."""
from pathlib import Path
import itertools, json, math, os, random, sys, time
import numpy as np, torch
from transformers import BertModel
from tokenizers import Tokenizer
torch.set_num_threads(2); torch.manual_seed(0); random.seed(0)
R = str(Path(__file__).resolve().parents[4]) + "/"; M = R + "target/xenc/minilm"
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import decode  # noqa: E402  (exact DP over subsets and the metrics, shared with the heads' trainer)
BUDGET = float(sys.argv[1]) if len(sys.argv) > 1 else 1200  # training seconds
tok = Tokenizer.from_file(M + "/tokenizer.json"); tok.enable_truncation(128); tok.no_padding()

def paras(path, lo, hi, key="sentences"):
    out = []
    for l in open(path):
        d = json.loads(l)
        ps = [d["sentences"]] if "sentences" in d else d["paragraphs"]
        out += [p for p in ps if lo <= len(p) <= hi]
    return out
train = paras("/work/shared/data/train.abstracts.jsonl", 3, 12) + paras(R + "target/ordering/train.paras.jsonl", 3, 10) + paras(R + "target/ordering/train.paras2.jsonl", 3, 10)
dev = paras("/work/shared/data/dev.abstracts.jsonl", 4, 10)
print(len(train), "train paragraphs", len(dev), "dev", flush=True)

NEXT = os.environ.get("NEXT") == "1"
OUTPUTS = 2 if NEXT else 1

class Cross(torch.nn.Module):
    def __init__(self, outputs=OUTPUTS):
        super().__init__()
        self.bert = BertModel.from_pretrained(M, add_pooling_layer=False)
        self.out = torch.nn.Linear(384, outputs)
    def forward(self, ids, types, mask):
        """[batch] precedence logits, or [batch, 2] (precedence, successor) with two outputs."""
        h = self.bert(input_ids=ids, token_type_ids=types, attention_mask=mask).last_hidden_state
        m = mask.unsqueeze(-1).float()
        y = self.out((h * m).sum(1) / m.sum(1))
        return y.squeeze(-1) if y.shape[-1] == 1 else y

def batch(pairs):
    encs = tok.encode_batch([(a, b) for a, b in pairs])
    w = max(len(e.ids) for e in encs)
    ids = torch.zeros(len(encs), w, dtype=torch.long); ty = torch.zeros_like(ids); mk = torch.zeros_like(ids)
    for r, e in enumerate(encs):
        n = len(e.ids); ids[r, :n] = torch.tensor(e.ids); ty[r, :n] = torch.tensor(e.type_ids); mk[r, :n] = 1
    return ids, ty, mk

def sample(rng):
    """(a, b, a before b, b directly follows a)."""
    p = train[rng.randrange(len(train))]; i, j = sorted(rng.sample(range(len(p)), 2))
    if NEXT:
        if rng.random() < 0.5: j = i + 1  # half adjacent: the successor needs positives
    elif rng.random() < 0.5 and j != i + 1 and rng.random() < 0.5: j = i + 1  # some extra adjacent pairs
    return (p[i], p[j], 1.0, float(j == i + 1)) if rng.random() < 0.5 else (p[j], p[i], 0.0, 0.0)

@torch.no_grad()
def dev_eval(model):
    model.eval(); accs = []; pmr = []; taus = []; nacc = []; npmr = []; ntaus = []
    for p in dev:
        n = len(p); pairs = [(p[i], p[j]) for i in range(n) for j in range(n) if i != j]
        logit = []
        for s in range(0, len(pairs), 64):
            logit += model(*batch(pairs[s:s + 64])).tolist()
        L = np.zeros((n, n)); N = np.full((n, n), -1e9); k = 0
        for i in range(n):
            for j in range(n):
                if i != j:
                    L[i, j], N[i, j] = (logit[k], 0.0) if not NEXT else logit[k]; k += 1
        P = 1 / (1 + np.exp(-(L - L.T) / 2))  # symmetrised: P[i,j] = P(i before j)
        accs += [P[i, j] > 0.5 for i in range(n) for j in range(i + 1, n)]
        lp = np.log(np.clip(P, 1e-6, 1))
        # exact: best order maximising sum over i before j of log P(i before j)
        order = decode.exact(np.zeros((n, n)), prec=lp)
        pmr.append(decode.pmr(order)); taus.append(decode.tau(order))
        if NEXT:
            # successor alone: log-softmax over the candidates for each unit's next
            ls = N - np.logaddexp.reduce(N, axis=1, keepdims=True)
            nacc += [int(np.argmax(N[i])) == i + 1 for i in range(n - 1)]
            order = decode.exact(np.where(np.eye(n, dtype=bool), 0.0, ls))
            npmr.append(decode.pmr(order)); ntaus.append(decode.tau(order))
    model.train()
    out = (float(np.mean(accs)), 100 * float(np.mean(pmr)), float(np.mean(taus)))
    if NEXT:
        out += (float(np.mean(nacc)), 100 * float(np.mean(npmr)), float(np.mean(ntaus)))
    return tuple(round(x, 4) for x in out)

model = Cross()
RESUME = os.environ.get("RESUME")  # continue from a saved state (target/xenc/cross.pt)
if RESUME:
    state = torch.load(RESUME)
    if NEXT and state["out.weight"].shape[0] == 1:  # a precedence-only state: add the successor row
        w, b = model.out.weight.data.clone(), model.out.bias.data.clone()
        w[0], b[0] = state["out.weight"][0], state["out.bias"][0]
        w[1] *= 0.1; b[1] = -1.0
        state["out.weight"], state["out.bias"] = w, b
    model.load_state_dict(state)
t0 = time.time(); print("dev (pair acc, PMR, tau" + (", next top-1, next PMR, next tau" if NEXT else "") + ") before:", dev_eval(model), f"{time.time()-t0:.0f}s", flush=True)
opt = torch.optim.AdamW(model.parameters(), lr=3e-5, weight_decay=0.01)
rng = random.Random(int(os.environ.get("SEED", 0))); step = 0; seen = 0; start = time.time(); last = start; losses = []
while time.time() - start < BUDGET:
    b = [sample(rng) for _ in range(16)]
    y = torch.tensor([c[2:] for c in b]) if NEXT else torch.tensor([c[2] for c in b])
    logit = model(*batch([(c[0], c[1]) for c in b]))
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, y)
    opt.zero_grad(); loss.backward(); opt.step()
    step += 1; seen += len(b); losses.append(loss.item())
    if time.time() - last > float(os.environ.get("EVERY", 300)):
        last = time.time()
        print(f"{seen} pairs, {seen/(last-start):.1f} pairs/s, loss {np.mean(losses[-100:]):.3f}, dev (pair acc, PMR, tau) {dev_eval(model)}", flush=True)
print(f"final: {seen} pairs in {time.time()-start:.0f}s, dev (pair acc, PMR, tau) {dev_eval(model)}", flush=True)
torch.save(model.state_dict(), os.environ.get("SAVE", R + "target/xenc/cross.pt"))
