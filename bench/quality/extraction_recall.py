"""Evidence recall on real dialogue with derived memories beside the turns, extracted by the real Claude.

    ANTHROPIC_API_KEY=... .venv/bin/python -m bench.quality.extraction_recall [--dialogues N] [--budgets 2000,4000,8000]

The development conversations of ../shared/data/locomo-dev are appended through the API as
bench/quality/dialogue_recall.py appends them; every question is asked (budget_chars, as an agent asks)
before extraction, then again after the extraction worker read every turn with the configured model
(ENGRAM_LLM_MODEL; ENGRAM_LLM_PROVIDER=bedrock works too, with AWS credentials). A turn counts as found
when a conversation window returns it or a derived memory returns it as evidence, within the budget.
Prints both rows, the model's calls and tokens (llm_usage), and the derived memories per 1,000 turns.

Without a key (no model can be called from a machine without one) it says so and measures nothing.
"""

from __future__ import annotations

import argparse
import os
import sys

from bench.harness import RecallConfig, call, local_stack, new_tenant, wait_for_vectors
from bench.quality.dialogue_recall import BUDGETS, ask, ingest, load, table_header, table_row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialogues", type=int, default=0, help="the first N dialogues only (0: all)")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    args = parser.parse_args()
    if not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ENGRAM_LLM_PROVIDER") == "bedrock"):
        print(
            "did not run: no model is configured"
            " (set ANTHROPIC_API_KEY, or ENGRAM_LLM_PROVIDER=bedrock with AWS credentials)"
        )
        return
    from engram.extraction.service import sweep
    from engram_local.stack import LocalStack

    os.environ.setdefault("ENGRAM_LLM_LEVEL", "auto")
    os.environ["ENGRAM_EXTRACTION_QUIET_S"] = "0"
    budgets = tuple(int(b) for b in args.budgets.split(","))
    dialogues = load()[: args.dialogues or None]
    with local_stack(durable=False, prefix="engram-extract-quality-") as stack:
        LocalStack.refresh_settings()
        key = new_tenant(stack, "bench-extract-quality").key
        for i, dialogue in enumerate(dialogues):
            ingest(key, dialogue, f"d{i}", one_conversation=False)
        wait_for_vectors(stack)
        rows = [table_row("turns only", "budget", ask(key, dialogues, RecallConfig(), "budget", budgets), budgets)]
        while True:  # every window of every conversation, through the real worker
            stack.extraction_poller.drain()
            if not sweep():
                break
        wait_for_vectors(stack)
        rows.append(
            table_row("with derived", "budget", ask(key, dialogues, RecallConfig(), "budget", budgets), budgets)
        )
        _, usage = call(key, "GET", "/v1/usage")
        _, runs = call(key, "GET", "/v1/extraction/runs?limit=200")
    turns = sum(d.turns for d in dialogues)
    print(table_header(budgets))
    print("\n".join(rows))
    print(f"{turns} turns; usage: {usage}", file=sys.stderr)
    print(f"runs (first page): {[(r['status'], r['counts']) for r in runs['items']][:20]}", file=sys.stderr)


if __name__ == "__main__":
    main()
