"""Conversation recall quality: evidence recall at a context budget, recall@k and MRR, per question type.

Ingests generated multi-session chats (bench/quality/conversation_data.py) through the real API (the
API Gateway stand-in, authorizer and route Lambdas, SQS embed pipeline, embedded Postgres) and
asks the labelled questions. Compares keyword-only, vector-only and fused ranking (weighted and
RRF) for several window shapes, on the training variant and on a held-out variant whose
phrasings, values and filler the defaults were never chosen on.

    .venv/bin/python -m bench.quality.conversation_recall [--shapes 5/3,3/2,1/1] [--variants train,heldout]

A turn counts as found within N characters when its whole line lies in the first N characters of
the results (chunk texts concatenated in rank order), so longer windows are not free.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from typing import Any

from bench.harness import call, local_stack, new_tenant
from bench.quality.conversation_data import Dataset, datasets

BUDGETS = (2000, 4000, 8000)
METHODS = {  # label -> (recall mode, fusion)
    "keyword": ("keyword", "weighted"),
    "vector": ("vector", "weighted"),
    "fused-weighted": ("hybrid", "weighted"),
    "fused-rrf": ("hybrid", "rrf"),
}


def ingest(key: str, ds: Dataset, namespace: str) -> list[str]:
    ids = []
    for n, session in enumerate(ds.sessions):
        status, conv = call(key, "POST", "/v1/conversations", {"title": f"session {n + 1}", "namespace": namespace})
        assert status == 201, conv
        msgs = [
            {"role": t.role, "content": t.content, "created_at": t.created_at.isoformat() + "+00:00"} for t in session
        ]
        status, out = call(key, "POST", f"/v1/conversations/{conv['id']}/messages", {"messages": msgs})
        assert status == 201, out
        ids.append(conv["id"])
    return ids


def score(results: list[dict[str, Any]], evidence: set[tuple[str, int]]) -> dict[str, float]:
    found_at: dict[tuple[str, int], int] = {}  # evidence turn -> character offset where its line ends
    found_rank: dict[tuple[str, int], int] = {}
    offset, first_rank = 0, None
    for rank, hit in enumerate(results, 1):
        text = hit["chunk"]["text"]
        for m in hit.get("messages") or []:
            turn = (hit["conversation_id"], m["seq"])
            if turn not in evidence:
                continue
            pos = text.find(m["content"])
            end = offset + (pos + len(m["content"]) if pos >= 0 else len(text))
            found_at[turn] = min(found_at.get(turn, end), end)
            found_rank.setdefault(turn, rank)
            first_rank = first_rank or rank
        offset += len(text)
    n = len(evidence)
    out = {f"ev@{b // 1000}k": sum(1 for e in found_at.values() if e <= b) / n for b in BUDGETS}
    for k in (5, 10):
        out[f"R@{k}"] = sum(1 for r in found_rank.values() if r <= k) / n
    out["MRR"] = 1.0 / first_rank if first_rank else 0.0
    return out


def run_shape(stack: Any, shape: str, variant: str) -> dict[str, dict[str, list[dict[str, float]]]]:
    from engram_local.stack import LocalStack

    size, stride = shape.split("/")
    os.environ["ENGRAM_CONVERSATION_WINDOW_SIZE"], os.environ["ENGRAM_CONVERSATION_WINDOW_STRIDE"] = size, stride
    LocalStack.refresh_settings()
    key = new_tenant(stack, f"bench-{variant}-{shape}", ["read", "write"]).key
    sets = datasets(variant)
    conv_ids = [ingest(key, ds, f"user{i}") for i, ds in enumerate(sets)]
    stack.embed_poller.drain()
    scores: dict[str, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    for label, (mode, fusion) in METHODS.items():
        os.environ["ENGRAM_RECALL_FUSION"] = fusion
        LocalStack.refresh_settings()
        for i, ds in enumerate(sets):
            for q in ds.questions:
                body: dict[str, Any] = {
                    "query": q.text,
                    "namespace": f"user{i}",
                    "mode": mode,
                    "limit": 40,
                    "touch": False,
                }
                if q.since and q.until:
                    body["since"], body["until"] = q.since.isoformat() + "+00:00", q.until.isoformat() + "+00:00"
                status, out = call(key, "POST", "/v1/recall", body)
                assert status == 200, out
                evidence = {(conv_ids[i][s], seq) for s, seq in q.evidence}
                scores[label][q.qtype].append(score(out["results"], evidence))
                scores[label]["all"].append(scores[label][q.qtype][-1])
    return scores


def table(rows: list[tuple[str, str, str, dict[str, list[dict[str, float]]]]]) -> str:
    cols = [f"ev@{b // 1000}k" for b in BUDGETS] + ["R@5", "R@10", "MRR"]
    lines = [
        "| variant | window | method | " + " | ".join(cols) + " | ev@4k by type |",
        "|---|---|---|" + "---|" * len(cols) + "---|",
    ]
    for variant, shape, label, by_type in rows:
        allq = by_type["all"]
        mean = {c: sum(s[c] for s in allq) / len(allq) for c in cols}
        per = ", ".join(
            f"{t} {sum(s['ev@4k'] for s in v) / len(v):.2f}" for t, v in sorted(by_type.items()) if t != "all"
        )
        lines.append(f"| {variant} | {shape} | {label} | " + " | ".join(f"{mean[c]:.3f}" for c in cols) + f" | {per} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shapes", default="5/3,3/2,1/1")
    parser.add_argument("--variants", default="train,heldout")
    args = parser.parse_args()

    rows = []
    with local_stack() as stack:
        for variant in args.variants.split(","):
            n = sum(len(d.questions) for d in datasets(variant))
            turns = sum(d.turns for d in datasets(variant))
            print(f"# {variant}: {turns} turns, {n} questions", file=sys.stderr)
            for shape in args.shapes.split(","):
                scores = run_shape(stack, shape, variant)
                rows += [(variant, shape, label, scores[label]) for label in METHODS]
                print(table(rows[-len(METHODS) :]), file=sys.stderr)
    print(table(rows))


if __name__ == "__main__":
    main()
