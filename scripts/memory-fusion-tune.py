#!/usr/bin/env python3
"""Chooses the hybrid fusion of `bob memory query` on DEV queries only, and reports the choice
on the held-out ones.

usage: scripts/memory-fusion-tune.py DEBIAN_DETAIL.json DEV_PARAPHRASE_DETAIL.json \
           HELDOUT_PARAPHRASE_DETAIL.json

Each input is the output of `bob memory bench --json --detail --dataset SET.jsonl` with local
embeddings (`per_query`: every query's best 40 lexical and semantic hits with their scores,
the pools the hybrid ranking of a top-10 query fuses). The Debian queries are split by
position: even-numbered ones are dev, odd-numbered ones held out; the paraphrase sets are of
two seeds (`scripts/memory-eval-sets.py OUT --seed 27` for dev, the reported seed 26 held out).

Fusions tried (scores: the lexical score in 0..1, the cosine):
  linear w         w * cos + (1 - w) * lex
  confident w,g,c  linear w, but when the lexical ranking is confident (its best score is at
                   least c and ahead of its second by at least g), the lexical best is put first
  rrf k,w          w / (k + semantic rank) + (1 - w) / (k + lexical rank)
  coverage w,b,p   w * cos + (1 - w) * lex * c^p + b * c^p, where c is the share of the query's
                   words (weighted by rarity) the memory holds, as bob computes it (the
                   `coverage` of each detail hit; src/memory/fusion.rs)
Criterion, on dev only: the worst margin of hybrid over lexical on the Debian dev half (recall@1,
5, 10, MRR, nDCG@10), among the fusions that keep paraphrase recall@5 >= 0.90 and >= lexical +
0.15 and whose worst margin over semantic on the paraphrase dev set is at least -0.05.
"""
import itertools
import json
import math
import sys


def load(path):
    return json.load(open(path))["per_query"]


def metrics(queries, rank_fn):
    r1 = r5 = r10 = mrr = ndcg = 0.0
    for q in queries:
        ranked = rank_fn(q)[:10]
        rel = set(q["relevant"])
        n = max(len(rel), 1)
        at = lambda k: sum(1 for i in ranked[:k] if i in rel) / n
        r1 += at(1)
        r5 += at(5)
        r10 += at(10)
        first = next((i for i, x in enumerate(ranked) if x in rel), None)
        mrr += 0 if first is None else 1 / (first + 1)
        dcg = sum(1 / math.log2(i + 2) for i, x in enumerate(ranked) if x in rel)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(len(rel), 10)))
        ndcg += dcg / ideal if ideal else 0
    n = max(len(queries), 1)
    return [r1 / n, r5 / n, r10 / n, mrr / n, ndcg / n]


def pools(q):
    lex = [(h["id"], h["score"]) for h in q["ranked"]["lexical"]]
    sem = [(h["id"], h["score"]) for h in q["ranked"]["semantic"]]
    return lex, sem


def coverage_of(q):
    c = {}
    for mode in ("lexical", "semantic"):
        for h in q["ranked"][mode]:
            c[h["id"]] = h.get("coverage", 0.0)
    return c


def covered(w, b, p):
    def f(q):
        lex, sem = pools(q)
        cov = coverage_of(q)
        s = {}
        for i, x in lex:
            s[i] = s.get(i, 0) + (1 - w) * x * cov.get(i, 0.0) ** p
        for i, x in sem:
            s[i] = s.get(i, 0) + w * x
        for i in s:
            s[i] += b * cov.get(i, 0.0) ** p
        return sorted(s, key=lambda i: (-s[i], i))
    return f


def lexical(q):
    return [i for i, _ in pools(q)[0]]


def hybrid(q):
    return [h["id"] for h in q["ranked"]["hybrid"]]


def semantic(q):
    return [i for i, _ in pools(q)[1]]


def linear(w):
    def f(q):
        lex, sem = pools(q)
        s = {}
        for i, x in lex:
            s[i] = s.get(i, 0) + (1 - w) * x
        for i, x in sem:
            s[i] = s.get(i, 0) + w * x
        return sorted(s, key=lambda i: (-s[i], i))
    return f


def confident(w, gap, floor):
    base = linear(w)

    def f(q):
        lex, _ = pools(q)
        ranked = base(q)
        if lex and lex[0][1] >= floor and (len(lex) < 2 or lex[0][1] - lex[1][1] >= gap):
            top = lex[0][0]
            ranked = [top] + [i for i in ranked if i != top]
        return ranked
    return f


def rrf(k, w):
    def f(q):
        lex, sem = pools(q)
        s = {}
        for r, (i, _) in enumerate(lex):
            s[i] = s.get(i, 0) + (1 - w) / (k + r + 1)
        for r, (i, _) in enumerate(sem):
            s[i] = s.get(i, 0) + w / (k + r + 1)
        return sorted(s, key=lambda i: (-s[i], i))
    return f


def fmt(m):
    return " ".join(f"{x:.3f}" for x in m)


def main():
    debian, para_dev, para_held = (load(p) for p in sys.argv[1:4])
    dev = debian[0::2]
    held = debian[1::2]
    candidates = {}
    for w in [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9]:
        candidates[f"linear w={w}"] = linear(w)
        for gap, floor in itertools.product([0.05, 0.1, 0.15, 0.2, 0.25, 0.3], [0.5, 0.6, 0.7, 0.8]):
            candidates[f"confident w={w} gap={gap} floor={floor}"] = confident(w, gap, floor)
    for k, w in itertools.product([1, 10, 30, 60], [0.5, 0.6, 0.7, 0.8]):
        candidates[f"rrf k={k} w={w}"] = rrf(k, w)
    for w, b, p in itertools.product([0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9],
                                     [0, 0.05, 0.1, 0.15, 0.2, 0.3], [1, 2, 3]):
        candidates[f"coverage w={w} b={b} p={p}"] = covered(w, b, p)
    lex_dev, lex_pdev = metrics(dev, lexical), metrics(para_dev, lexical)
    sem_pdev = metrics(para_dev, semantic)
    scored = []
    for name, f in candidates.items():
        p = metrics(para_dev, f)
        if p[1] < 0.90 or p[1] < lex_pdev[1] + 0.15:
            continue
        if min(a - b for a, b in zip(p, sem_pdev)) < -0.05:
            continue
        d = metrics(dev, f)
        margin = min(a - b for a, b in zip(d, lex_dev))
        scored.append((margin, sum(d) + sum(p), name))
    scored.sort(reverse=True)
    print("best on dev (worst margin over lexical on Debian dev, then the sum of all dev metrics):")
    for margin, total, name in scored[:10]:
        print(f"  {margin:+.4f} {total:.3f} {name}")
    chosen = scored[0][2]
    print(f"\nchosen: {chosen}\n")
    print("set | mode | recall@1 recall@5 recall@10 MRR nDCG@10")
    for label, qs in [("debian dev (even)", dev), ("debian held out (odd)", held),
                      ("debian all", debian), ("paraphrase dev", para_dev),
                      ("paraphrase held out", para_held)]:
        for mode, f in [("lexical", lexical), ("semantic", semantic),
                        ("hybrid before (linear 0.85)", linear(0.85)),
                        ("hybrid of the detail run", hybrid), (chosen, candidates[chosen])]:
            print(f"{label} | {mode} | {fmt(metrics(qs, f))}")


if __name__ == "__main__":
    main()
