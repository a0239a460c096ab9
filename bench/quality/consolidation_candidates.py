"""Which pairs should reconcile ask the LLM about? Candidate rules compared on the corpus of
bench/quality/consolidation.py (planted updates among templated facts), without a database: exact
nearest neighbours in numpy over the cached MiniLM vectors, then each rule's pairs and how many
planted updates they keep.

    .venv/bin/python -m bench.quality.consolidation_candidates [--size 10000] [--k 5 10]

Run bench/quality/consolidation.py once for the size first (it embeds the texts and caches the vectors
under .local/bench/). The pair classes come from engram.consolidation.similarity, as in a run:
the similarity window (cosine >= the calibrated reconcile_min_cosine, the newer side >= 1 h
newer), then the rules:
  window          every pair in the window (the rule before the rare-token one)
  top-1 older     each memory's most similar older neighbour in the window
  mutual          the older's most similar newer neighbour is the newer, and the other way round
  rare token      the pair shares a token in at most reconcile_rare_share of the memories (or
                  reconcile_rare_min): the rule reconcile uses
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

from bench.quality.consolidation import VECTOR_CACHE, build_corpus
from engram.consolidation.settings import ConsolidationSettings
from engram.consolidation.similarity import (
    SimilarityThresholds,
    classify_pair,
    common_tokens,
    shared_rare_tokens,
    thresholds_for,
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument(
        "--k", type=int, nargs="+", default=[5], help="neighbours per memory (ENGRAM_CONSOLIDATION_NEIGHBOURS)"
    )
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    from engram.adapters.embeddings.local import MODEL_ID

    corpus = build_corpus(args.size, args.seed)
    memories = corpus.memories
    vectors = np.load(VECTOR_CACHE / f"consolidation-{args.size}-{args.seed}-{MODEL_ID}.npy")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    settings = ConsolidationSettings()
    defaults = SimilarityThresholds(
        **{f: getattr(settings, f"consolidation_{f}") for f in SimilarityThresholds.__dataclass_fields__}
    )
    t = thresholds_for(defaults, MODEL_ID, None)  # the calibrated MiniLM values, as a run has them

    neighbours: list[list[tuple[int, float]]] = []
    for start in range(0, len(memories), 2000):
        sims = vectors[start : start + 2000] @ vectors.T
        sims[np.arange(sims.shape[0]), np.arange(start, start + sims.shape[0])] = -1
        top = np.argpartition(-sims, max(args.k), axis=1)[:, : max(args.k)]
        for row, idx in enumerate(top):
            ranked = sorted(idx, key=sims[row].__getitem__, reverse=True)
            neighbours.append([(int(j), float(sims[row, j])) for j in ranked])

    def in_window(i: int, j: int, cosine: float) -> bool:
        a, b = memories[i], memories[j]
        verdict = classify_pair(a.content, b.content, a.created_at, b.created_at, cosine, t)
        return (
            verdict.cls in ("reconcile_candidate", "merge_candidate")
            and abs((a.created_at - b.created_at).total_seconds()) >= t.reconcile_min_gap_s
        )

    index = {m.id: i for i, m in enumerate(memories)}
    updates = {frozenset((index[new], index[old])) for new, old in corpus.updates}
    common = common_tokens((m.content for m in memories), t.reconcile_rare_share, t.reconcile_rare_min)
    for k in args.k:
        compare(k, memories, neighbours, in_window, updates, common)


def compare(
    k: int,
    memories: list[Any],
    neighbours: list[list[tuple[int, float]]],
    in_window: Callable[[int, int, float], bool],
    updates: set[frozenset[int]],
    common: frozenset[str],
) -> None:
    window: set[frozenset[int]] = set()
    best_older: dict[int, int] = {}
    best_newer: dict[int, int] = {}
    for i, found in enumerate(neighbours):
        for j, cosine in found[:k]:  # most similar first
            if not in_window(i, j, cosine):
                continue
            window.add(frozenset((i, j)))
            side = best_older if memories[j].created_at < memories[i].created_at else best_newer
            side.setdefault(i, j)

    def rare(pair: frozenset[int]) -> bool:
        i, j = tuple(pair)
        return bool(shared_rare_tokens(memories[i].content, memories[j].content, common))

    top1 = {frozenset((i, j)) for i, j in best_older.items()}
    mutual = {frozenset((i, j)) for i, j in best_older.items() if best_newer.get(j) == i}
    rules = {
        "window": window,
        "top-1 older": top1,
        "mutual": mutual,
        "rare token": {p for p in window if rare(p)},
        "top-1 older + rare token": {p for p in top1 if rare(p)},
    }
    n = len(memories)
    print(f"\n{n:,} memories, {len(updates)} planted updates, k = {k}; {len(common)} common tokens")
    print(f"planted updates among each other's {k} nearest neighbours: {len(updates & window)}")
    print(f"{'rule':26} {'pairs':>7} {'per 1k':>7} {'updates kept':>13}")
    for name, pairs in rules.items():
        print(f"{name:26} {len(pairs):7d} {len(pairs) / n * 1000:7.0f} {len(pairs & updates):>7}/{len(updates)}")


if __name__ == "__main__":
    main()
