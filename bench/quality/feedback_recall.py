"""Feedback that moves ranking, on real dialogue: what POST /v1/feedback on half of the questions does to
the evidence found for them, and for the other half, asked again.

The real multi-session conversations of bench/quality/dialogue_recall.py (../shared/data/locomo-dev) are
ingested through the API as there. Every question is asked as an agent asks (budget_chars 2,000 and
4,000, touch off) and its evidence recall measured, twice (the run-to-run noise). Then, for every other
question (the "feedback" half), an agent that read the results of a 100-result recall gives feedback: its
evidence turns useful (by their message ids) and the results that outranked its last evidence turn found
not useful (at most 100). Every question is asked again: the feedback half should find more of its
evidence, the other half ("control") lose no more than the noise.

    .venv/bin/python -m bench.quality.feedback_recall [--dialogues N] [--budgets 2000,4000] [--steps 0.5,0.1]

`--steps useful,not_useful`: the weight steps (engram.feedback.weights) tried instead of the defaults.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from bench.harness import call, local_stack, new_tenant, wait_for_vectors
from bench.quality.dialogue_recall import Dialogue, Question, found_within, ingest, load


def evidence_recall(key: str, asked: list[tuple[str, Question]], budgets: tuple[int, ...]) -> dict[int, float]:
    """Mean evidence recall of these questions at each budget, each asked with that budget_chars."""
    totals = dict.fromkeys(budgets, 0.0)
    for namespace, q in asked:
        for b in budgets:
            status, out = call(
                key, "POST", "/v1/recall", {"query": q.text, "namespace": namespace, "budget_chars": b, "touch": False}
            )
            assert status == 200, out
            totals[b] += found_within(out["results"], q.evidence, (b,))[b]
    return {b: totals[b] / len(asked) for b in budgets}


def give_feedback(key: str, namespace: str, q: Question) -> tuple[int, int]:
    """One agent's feedback on a 100-result recall of the question: (useful ids, not useful ids) sent."""
    status, out = call(
        key, "POST", "/v1/recall", {"query": q.text, "namespace": namespace, "limit": 100, "touch": False}
    )
    assert status == 200, out
    useful: list[str] = []
    passed: list[str] = []  # non-evidence results ranked above the last evidence turn seen so far
    not_useful: list[str] = []
    for hit in out["results"]:
        evidence = [m["id"] for m in hit.get("messages") or [] if (m.get("metadata") or {}).get("dia_id") in q.evidence]
        if evidence:
            useful += evidence
            not_useful += passed
            passed = []
        else:
            passed.append(hit["chunk"]["id"])
    if not useful:
        body: dict[str, Any] = {"recall_id": out["recall_id"], "failure_class": "missing_content"}
    else:
        body = {"recall_id": out["recall_id"], "useful": useful[:100], "not_useful": not_useful[:100]}
    status, given = call(key, "POST", "/v1/feedback", body)
    assert status == 201, given
    return len(body.get("useful", [])), len(body.get("not_useful", []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialogues", type=int, default=0, help="the first N dialogues only (0: all)")
    parser.add_argument("--budgets", default="2000,4000")
    parser.add_argument("--steps", help="useful,not_useful weight steps instead of the defaults")
    args = parser.parse_args()
    if args.steps:  # the API runs in this process: the steps it reads are these
        from engram.feedback import weights

        weights.STEP_USEFUL, weights.STEP_NOT_USEFUL = (float(x) for x in args.steps.split(","))
    budgets = tuple(int(b) for b in args.budgets.split(","))
    dialogues: list[Dialogue] = load()[: args.dialogues or None]
    questions = [(f"d{i}", q) for i, d in enumerate(dialogues) for q in d.questions]
    halves = {"feedback": questions[0::2], "control": questions[1::2]}
    with local_stack(durable=False, prefix="engram-feedback-") as stack:
        key = new_tenant(stack, "bench-feedback", ["read", "write"]).key
        started = time.perf_counter()
        for i, dialogue in enumerate(dialogues):
            ingest(key, dialogue, f"d{i}", one_conversation=False)
        wait_for_vectors(stack)
        print(f"# {len(questions)} questions; ingest + embed {time.perf_counter() - started:.0f} s", file=sys.stderr)
        before = {half: evidence_recall(key, asked, budgets) for half, asked in halves.items()}
        again = {half: evidence_recall(key, asked, budgets) for half, asked in halves.items()}
        sent = [give_feedback(key, ns, q) for ns, q in halves["feedback"]]
        after = {half: evidence_recall(key, asked, budgets) for half, asked in halves.items()}
    useful, not_useful = sum(u for u, _ in sent), sum(n for _, n in sent)
    print(f"# {len(dialogues)} dialogues; feedback on {len(sent)} questions: {useful} useful, {not_useful} not useful")
    cols = " | ".join(f"ev@{b // 1000}k before / again / after (change)" for b in budgets)
    print(f"| half | questions | {cols} |\n|---|---|" + "---|" * len(budgets))
    for half, asked in halves.items():
        b0, b1, b2 = before[half], again[half], after[half]
        cells = [f"{b0[b]:.3f} / {b1[b]:.3f} / {b2[b]:.3f} ({b2[b] - b0[b]:+.3f})" for b in budgets]
        print(f"| {half} | {len(asked)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
