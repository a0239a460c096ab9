"""What recall's options add to a recall's latency on our side: `rerank` (Bedrock's Rerank API),
`rewrite_query` (one LLM call, its rewrites embedded and searched) and `trace` (each list searched 1,000
deep, the expected chunks looked up), beside the same recall without them.

    .venv/bin/python -m bench.perf.recall_options_latency [--conversations 1] [--rounds 3] [--limit 10]

A long conversation (bench/quality/longconv_data.py, ~500 turns) is ingested through the real API (API Gateway
stand-in, route Lambdas, SQS embed pipeline, local MiniLM, embedded Postgres) and its labelled questions
are asked with POST /v1/recall. Bedrock and the Messages API are local stand-ins that answer at once,
so the figures are our side only: the real client building, signing and sending the request and parsing
the answer, the daily-cap check and the usage row, the rewrites' embedding and candidate queries. The
model's own time (Bedrock's reranker, Claude's answer) is not measurable here and comes on top.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import call, local_stack, new_tenant, p50_p95, wait_for_vectors
from bench.quality.longconv_data import conversations
from bench.quality.longconv_recall import ingest
from engram_local.json_stand_in import JsonStandIn, Request, message


def rerank_answer(request: Request) -> dict[str, Any]:
    """Bedrock's Rerank: each document scored by the question words it shares."""
    body = request.body
    words = set(body["queries"][0]["textQuery"]["text"].lower().split())
    texts = [s["inlineDocumentSource"]["textDocument"]["text"] for s in body["sources"]]
    scores = [len(words & set(t.lower().split())) / (len(words) or 1) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: -scores[i])
    return {"results": [{"index": i, "relevanceScore": scores[i]} for i in order]}


def messages_answer(request: Request) -> dict[str, Any]:
    """The Messages API: three rewrites made of the question's words, with token counts of their size."""
    question = request.body["messages"][0]["content"]
    words = question.rstrip("?").split()
    text = "\n".join([" ".join(words[1:]), " ".join(reversed(words)), " ".join(w for w in words if len(w) > 3)])
    return message(request.body, text, (120 + len(words), 3 * len(words)))


def timed(key: str, question: str, namespace: str, limit: int, **options: Any) -> float:
    """Milliseconds of one recall with these options."""
    body = {"query": question, "namespace": namespace, "limit": limit, "touch": False, **options}
    started = time.perf_counter()
    status, out = call(key, "POST", "/v1/recall", body)
    took = (time.perf_counter() - started) * 1000
    assert status == 200, out
    assert not out["degraded"], out["degraded"]  # an option that did not run measures nothing
    return took


OPTIONS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "rerank": {"rerank": True},
    "rewrite_query": {"rewrite_query": True},
    "both": {"rerank": True, "rewrite_query": True},
    # Two phrases of the conversation's turns: where they went (bench/quality/longconv_data.py says "I").
    "trace": {"trace": {"expected": ["I", "we"]}},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=10)
    args = parser.parse_args()

    rerank, messages = JsonStandIn(rerank_answer), JsonStandIn(messages_answer)
    rerank_url, messages_url = rerank.url, messages.url
    tmp = Path(tempfile.mkdtemp(prefix="engram-bench-aws-"))  # no AWS config or credentials file
    os.environ.update(
        ENGRAM_RERANK_MODEL="amazon.rerank-v1:0",
        ENGRAM_BEDROCK_AGENT_ENDPOINT_URL=rerank_url,
        AWS_REGION="us-east-1",
        AWS_ACCESS_KEY_ID="AKIDBENCHBENCH",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_EC2_METADATA_DISABLED="true",
        AWS_CONFIG_FILE=str(tmp / "no-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp / "no-credentials"),
        ANTHROPIC_API_KEY="sk-bench",
        ENGRAM_ANTHROPIC_BASE_URL=messages_url,
        ENGRAM_LLM_LEVEL="auto",
        ENGRAM_CONSOLIDATION_LLM_DAILY_CALLS="1000000",
    )
    os.environ.pop("AWS_PROFILE", None)
    try:
        with local_stack() as stack:
            key = new_tenant(stack, "bench-options", ["read", "write"]).key
            convs = conversations("train", args.conversations)
            for i, conv in enumerate(convs):
                ingest(key, conv, f"c{i}")
            wait_for_vectors(stack)
            ask = [(f"c{i}", [q.text for q in conv.questions]) for i, conv in enumerate(convs)]
            turns, n = sum(c.turns for c in convs), sum(len(qs) for _, qs in ask)
            # The first call of each option imports its client (boto3, anthropic): a cold start's cost.
            first = {label: timed(key, ask[0][1][0], ask[0][0], args.limit, **OPTIONS[label]) for label in OPTIONS}
            rows: dict[str, list[float]] = {label: [] for label in OPTIONS}
            for _ in range(args.rounds):
                for ns, questions in ask:
                    for q in questions:  # the options in turn on each question: a load change hits them alike
                        for label, options in OPTIONS.items():
                            rows[label].append(timed(key, q, ns, args.limit, **options))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        rerank.close()
        messages.close()

    base50, base95 = p50_p95(rows["defaults"])
    print(f"# {turns} turns, {n} questions x {args.rounds} rounds, limit {args.limit}; stand-ins answer at once")
    print("| recall | p50 ms | p95 ms | added p50 | added p95 |\n|---|---|---|---|---|")
    for label, values in rows.items():
        p50, p95 = p50_p95(values)
        print(f"| {label} | {p50:.1f} | {p95:.1f} | {p50 - base50:+.1f} | {p95 - base95:+.1f} |")
    print(
        f"\nfirst call (imports its client): rerank {first['rerank']:.0f} ms, "
        f"rewrite_query {first['rewrite_query']:.0f} ms"
    )


if __name__ == "__main__":
    main()
