#!/usr/bin/env python3
"""Discrimination on dev split by document length (fewer than 21 units or at least 21), for the
scorers of eval.py; prints Markdown tables. Needs target/bbscore/head.npz and clf.npz (run.sh)."""
import numpy as np
from models.train.bbscore import bb
from models.train.bbscore.eval import load_head, load_clf, Scorers
from models.train.bbscore.data import Corpus, SHARED, WORK
from collections import defaultdict
head,meta=load_head(WORK/"head.npz"); sc=Scorers(head,meta,load_clf(WORK/"clf.npz"))
dev=Corpus(SHARED/"dev.jsonl")
t=defaultdict(lambda:[0,0]); docs=defaultdict(set)
levels=["sentence","paragraph"]
for di,(i,src,paras,S,P) in enumerate(dev.docs):
  for level in levels:
    X=S if level=="sentence" else P; n=len(X)
    if n<2: continue
    g=">=21" if n>=21 else "<21"
    Z=sc.latents(X); o0=sc.score_all(X,Z,list(range(n)),level)
    for k,kind in enumerate(bb.DEGRADATIONS):
      rng=np.random.default_rng([13,di,k,levels.index(level)])
      for _ in range(5):
        o=bb.degrade(kind,n,rng)
        if o is None: break
        d=sc.score_all(X,Z,o,level)
        for name,v in o0.items():
          w=0.5 if abs(v-d[name])<1e-12 else float(v>d[name])
          for gg in ("all",g):
            tt=t[(level,gg,name,kind)]; tt[0]+=w; tt[1]+=1; docs[(level,gg)].add(di)
names=["embedding","bbscore","bbscore-path","bbscore-pair","bbscore-clf"]
out=[]
for level in levels:
  for g in ("all",">=21","<21"):
    print(f"\n{level} {g} ({len(docs[(level,g)])} documents)")
    print("| scorer | "+" | ".join(bb.DEGRADATIONS)+" |")
    for nm in names:
      print(f"| {nm} | "+" | ".join(f"{100*t[(level,g,nm,k)][0]/t[(level,g,nm,k)][1]:.2f}" if t[(level,g,nm,k)][1] else "–" for k in bb.DEGRADATIONS)+" |")
