"""Extraction's cost and lag, with a model at the HTTP boundary that answers at once (so the lag is ours alone).

    .venv/bin/python -m bench.perf.extraction_cost [--dialogues N] [--lag-rounds 10]

1. Cost: the development conversations of ../shared/data/locomo-dev are appended session by session
   through the API (one conversation per session, as an agent appends them); appends queue jobs past
   ENGRAM_EXTRACTION_MIN_TURNS, the sweep queues the rest; the real extraction worker drains them
   against a stand-in Messages API that answers every call with one derived memory and a summary.
   Printed: model calls and prompt characters per 1,000 turns, and tokens per 1,000 turns estimated at
   4 characters a token (Claude's tokenizer is not here: the real figure is in llm_usage once a real
   model runs). Output tokens depend on the model's answer and are not estimated.
2. Lag: `make dev`'s server and pollers (the local stack with its pollers on); each round appends
   ENGRAM_EXTRACTION_MIN_TURNS turns over HTTP and polls recall until the derived memory comes back:
   the time from the append's answer to a recallable derived memory (the queue's poll, the worker, the
   embed worker).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
import uuid
from typing import Any

import httpx

from bench.harness import call, dev_server, local_stack, new_tenant, p50_p95, wait_for_vectors
from bench.quality.dialogue_recall import ingest, load
from engram_local.json_stand_in import JsonStandIn, Request, message, tool_message


class Counted:
    """The stand-in model: one derived memory per window (citing its first turn), a line of project
    status for a session distillation, and what it was sent."""

    def __init__(self) -> None:
        self.calls = 0
        self.distillations = 0
        self.prompt_chars = 0
        self.stand_in = JsonStandIn(self.respond)

    def respond(self, request: Request) -> dict[str, Any]:
        body = request.body
        self.calls += 1
        sent = body["system"] + body["messages"][0]["content"] + json.dumps(body.get("tools", []))
        self.prompt_chars += len(sent)
        if "tools" not in body:  # session distillation: plain text
            self.distillations += 1
            return message(body, "Project status: the sessions so far.", (math.ceil(len(sent) / 4), 20))
        turns = [
            json.loads(line)
            for line in body["messages"][0]["content"].split("<turns>\n")[1].split("\n</turns>")[0].splitlines()
        ]
        first = turns[0]
        answer = {
            "summary": f"{len(turns)} turns from {turns[0]['time']} on.",
            "memories": [
                {
                    "action": "add",
                    "kind": "fact",
                    "content": f"Lag probe {first['text'][:200]}",
                    "evidence": [first["seq"]],
                }
            ],
        }
        return tool_message(body, answer, (math.ceil(len(sent) / 4), 60))


def environment(model: Counted, **extra: str) -> None:
    os.environ.update(
        {
            "ANTHROPIC_API_KEY": "sk-stand-in",
            "ENGRAM_ANTHROPIC_BASE_URL": model.stand_in.url,
            "ENGRAM_LLM_LEVEL": "auto",
            "ENGRAM_EXTRACTION_QUIET_S": "0",
            "ENGRAM_EXTRACTION_DAILY_TOKENS": str(10**12),
            **extra,
        }
    )


def cost(dialogues: int) -> None:
    from engram.extraction.service import sweep
    from engram_local.stack import LocalStack

    model = Counted()
    environment(model)
    with local_stack(durable=False, prefix="engram-extract-cost-") as stack:
        LocalStack.refresh_settings()
        key = new_tenant(stack, "bench-extract").key
        chosen = load()[: dialogues or None]
        for i, dialogue in enumerate(chosen):
            ingest(key, dialogue, f"d{i}", one_conversation=False)
        turns = sum(d.turns for d in chosen)
        started = time.perf_counter()
        while True:
            stack.extraction_poller.drain()
            if not sweep():
                break
        seconds = time.perf_counter() - started
        wait_for_vectors(stack)
        status, runs = call(key, "GET", "/v1/extraction/runs?limit=200")
        assert status == 200, runs
    per = 1000 / turns
    print(
        f"{len(chosen)} dialogues, {turns} turns, {len(runs['items'])} runs: {model.calls} calls"
        f" ({model.distillations} session distillations), {model.prompt_chars:,} prompt characters"
    )
    print(
        f"per 1,000 turns: {model.calls * per:.1f} calls, {model.prompt_chars * per:,.0f} prompt characters"
        f" (~{model.prompt_chars * per / 4:,.0f} input tokens at 4 characters a token);"
        f" worker time {seconds * per:.1f} s with an instant model"
    )
    model.stand_in.close()


def lag(rounds: int) -> None:
    from engram_local.stack import LocalStack

    model = Counted()
    environment(model, ENGRAM_EXTRACTION_MIN_TURNS="4")
    with local_stack(start_poller=True, prefix="engram-extract-lag-") as stack, dev_server(stack) as dev:
        LocalStack.refresh_settings()
        samples: list[float] = []
        with httpx.Client(base_url=dev.url, headers=dev.headers, timeout=30) as http:
            for n in range(rounds):
                marker = uuid.uuid4().hex[:10]
                conv = http.post("/v1/conversations", json={"namespace": "lag"}).json()
                turns = [{"role": "user", "content": f"probe{marker} turn {i} of round {n}"} for i in range(4)]
                assert (
                    http.post(f"/v1/conversations/{conv['id']}/messages", json={"messages": turns}).status_code == 201
                )
                started = time.perf_counter()
                while time.perf_counter() - started < 60:
                    found = http.post(
                        "/v1/recall", json={"query": f"probe{marker}", "namespace": "lag", "touch": False}
                    )
                    if any(r.get("source") == "extraction" for r in found.json()["results"]):
                        samples.append((time.perf_counter() - started) * 1000)
                        break
                    time.sleep(0.05)
    p50, p95 = p50_p95(samples)
    print(
        f"append -> recallable derived memory over HTTP ({len(samples)} of {rounds} rounds):"
        f" p50 {p50:.0f} ms, p95 {p95:.0f} ms"
    )
    model.stand_in.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialogues", type=int, default=0, help="the first N development dialogues (0: all)")
    parser.add_argument("--lag-rounds", type=int, default=10)
    args = parser.parse_args()
    cost(args.dialogues)
    lag(args.lag_rounds)


if __name__ == "__main__":
    main()
