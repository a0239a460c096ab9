"""Long-conversation recall: evidence found within 2,000 / 4,000 / 8,000 returned characters, per question type.

Two-person chats of 300-700 turns over months (bench/quality/longconv_data.py) are ingested through the
real API (API Gateway stand-in, authorizer and route Lambdas, one conversation per session with
POST /v1/conversations and /messages, the SQS embed pipeline, embedded Postgres), then every
labelled question is asked with POST /v1/recall (limit 100, budget_chars 8000, no since/until).

    .venv/bin/python -m bench.quality.longconv_recall                       # defaults, before, keyword, vector
    .venv/bin/python -m bench.quality.longconv_recall --configs defaults,ts-rank,no-diversify,mmr-floor-0.0  # levers

A turn counts as found within N characters when its whole line lies in the first N characters of
the results (chunk texts concatenated in rank order), so longer chunks are not free. `--configs`
picks rows of CONFIGS (settings, ranking constants or request fields changed for that row only).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from bench.harness import RecallConfig, applied, call, local_stack, new_tenant, wait_for_vectors
from bench.quality.longconv_data import Conversation, conversations

BUDGETS = (2000, 4000, 8000)
QTYPES = ("single", "multi", "temporal", "inference")


W = {"ENGRAM_RECALL_FUSION": "weighted"}
RRF = {"ENGRAM_RECALL_FUSION": "rrf"}
CONFIGS: dict[str, RecallConfig] = {
    "defaults": RecallConfig(),
    "keyword": RecallConfig(request={"mode": "keyword"}),
    "vector": RecallConfig(request={"mode": "vector"}),
    # fusion: reciprocal rank fusion (the default, k = 10) and weighted scores
    "rrf-k10": RecallConfig(env=RRF, ranking={"RRF_K": 10}),
    "rrf-k20": RecallConfig(env=RRF, ranking={"RRF_K": 20}),
    "rrf-k40": RecallConfig(env=RRF, ranking={"RRF_K": 40}),
    "rrf-k60": RecallConfig(env=RRF, ranking={"RRF_K": 60}),
    # the keyword list's weight in RRF (ENGRAM_RECALL_RRF_KEYWORD_WEIGHT), the vector list's being 1
    **{f"kw-{v}": RecallConfig(env={"ENGRAM_RECALL_RRF_KEYWORD_WEIGHT": str(v)}) for v in (1.0, 0.5, 0.3, 0.15, 0.0)},
    # keyword rank: each matched word weighed by its rarity (the default) or ts_rank_cd alone
    "ts-rank": RecallConfig(ranking={"KEYWORD_IDF": False}),
    "ts-rank-keyword": RecallConfig(ranking={"KEYWORD_IDF": False}, request={"mode": "keyword"}),
    # diversity: MMR is on by default (lambda 0.5, cosine counted above 0.7); off, and its two constants
    "no-diversify": RecallConfig(request={"diversify": False}),
    # a named speaker's own statements for "would / likely" and "has / have" questions (on by default)
    "no-self-statement": RecallConfig(ranking={"SELF_STATEMENT_CUES": ()}),
    # the defaults before idf + MMR
    "before": RecallConfig(ranking={"KEYWORD_IDF": False}, request={"diversify": False}),
    **{f"mmr-lambda-{v}": RecallConfig(ranking={"MMR_LAMBDA": v}) for v in (0.3, 0.7, 0.9)},
    **{f"mmr-floor-{v}": RecallConfig(ranking={"MMR_FLOOR": v}) for v in (0.0, 0.5, 0.8)},
    "weighted": RecallConfig(env=W),
    "weighted-no-recency": RecallConfig(env=W, ranking={"W_RECENCY": 0.0}),
    "weighted-kw-0.5": RecallConfig(env=W, ranking={"W_KEYWORD": 0.5}),
    "weighted-kw-0.2": RecallConfig(env=W, ranking={"W_KEYWORD": 0.2}),
    "weighted-vec-0.7": RecallConfig(env=W, ranking={"W_VECTOR": 0.7, "W_KEYWORD": 0.3, "W_RECENCY": 0.0}),
    # the model-backed options: need a reranker (ENGRAM_RERANK_MODEL) or an LLM configured, else they stop the run
    "rerank": RecallConfig(request={"rerank": True}),
    "rewrite-query": RecallConfig(request={"rewrite_query": True}),
}


def ingest(key: str, conv: Conversation, namespace: str) -> list[str]:
    """One API conversation per session, all of it in one append; returns the conversation ids."""
    ids = []
    for n, session in enumerate(conv.sessions):
        status, out = call(key, "POST", "/v1/conversations", {"title": f"session {n + 1}", "namespace": namespace})
        assert status == 201, out
        msgs = [
            {
                "role": t.role,
                "content": t.content,
                "created_at": t.created_at.isoformat() + "+00:00",
                "metadata": {"speaker": t.speaker},
            }
            for t in session
        ]
        status, appended = call(key, "POST", f"/v1/conversations/{out['id']}/messages", {"messages": msgs})
        assert status == 201, appended
        ids.append(out["id"])
    return ids


def score(results: list[dict[str, Any]], evidence: dict[tuple[str, int], str]) -> dict[int, float]:
    """Fraction of evidence turns (conversation id, seq) -> content whose line ends within each budget of
    the result texts concatenated in rank order (either response form: full or compact)."""
    ends: dict[tuple[str, int], int] = {}
    offset = 0
    for hit in results:
        part = hit.get("chunk", hit)  # full form: hit.chunk; compact form: the hit itself
        text, lo, hi = part["text"], part.get("seq_from"), part.get("seq_to")
        conv: str = hit.get("conversation_id") or hit["id"]
        for seq in range(lo or 0, (hi or -1) + 1):
            content = evidence.get((conv, seq))
            if content is not None and (conv, seq) not in ends and content in text:
                ends[(conv, seq)] = offset + text.find(content) + len(content)
        offset += len(text)
    return {b: sum(1 for e in ends.values() if e <= b) / len(evidence) for b in BUDGETS}


Scores = dict[str, list[dict[int, float]]]  # question type (and "all") -> per-question scores


def ask_all(
    key: str,
    convs: list[Conversation],
    conv_ids: list[list[str]],
    config: RecallConfig,
    namespace: Callable[[int], str],
) -> tuple[Scores, float]:
    scores: Scores = defaultdict(list)
    started = time.perf_counter()
    n = 0
    with applied(config):
        for i, conv in enumerate(convs):
            for q in conv.questions:
                body = {
                    "query": q.text,
                    "namespace": namespace(i),
                    "limit": 100,
                    "budget_chars": max(BUDGETS),
                    "touch": False,
                    **config.request,
                }
                status, out = call(key, "POST", "/v1/recall", body)
                assert status == 200, out
                # An option that could not run would measure the defaults under its name.
                assert not [d for d in out["degraded"] if d.startswith(("rerank_", "rewrite_query_"))], out["degraded"]
                evidence = {(conv_ids[i][sess], seq): conv.sessions[sess][seq - 1].content for sess, seq in q.evidence}
                s = score(out["results"], evidence)
                scores[q.qtype].append(s)
                scores["all"].append(s)
                n += 1
    return scores, (time.perf_counter() - started) / max(n, 1)


def row(split: str, label: str, scores: Scores, per_query_s: float) -> str:
    def mean(qtype: str, budget: int) -> float:
        return sum(s[budget] for s in scores[qtype]) / len(scores[qtype])

    cells = [f"{mean('all', b):.3f}" for b in BUDGETS]
    cells += [f"{mean(t, max(BUDGETS)):.2f}" for t in QTYPES if scores.get(t)]
    return f"| {split} | {label} | " + " | ".join(cells) + f" | {per_query_s * 1000:.0f} |"


HEADER = (
    "| split | config | ev@2k | ev@4k | ev@8k | "
    + " | ".join(f"{t} @8k" for t in QTYPES)
    + " | ms/query |\n|---|---|---|---|---|"
    + "---|" * len(QTYPES)
    + "---|"
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--splits", default="train,heldout")
    parser.add_argument("--configs", default="defaults,before,keyword,vector")
    parser.add_argument("--conversations", type=int, default=3, help="per split")
    args = parser.parse_args()
    rows: list[str] = []
    with local_stack() as stack:
        key = new_tenant(stack, "bench-longconv", ["read", "write"]).key
        for split in args.splits.split(","):
            convs = conversations(split, args.conversations)
            started = time.perf_counter()
            conv_ids = [ingest(key, c, f"{split}{i}") for i, c in enumerate(convs)]
            wait_for_vectors(stack)
            turns = sum(c.turns for c in convs)
            print(
                f"# {split}: {len(convs)} conversations, {turns} turns, "
                f"{sum(len(c.questions) for c in convs)} questions; ingest + embed "
                f"{time.perf_counter() - started:.0f} s",
                file=sys.stderr,
            )
            for label in args.configs.split(","):
                scores, per_query = ask_all(key, convs, conv_ids, CONFIGS[label], f"{split}{{}}".format)
                rows.append(row(split, label, scores, per_query))
                print(rows[-1], file=sys.stderr)
    print(HEADER)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
