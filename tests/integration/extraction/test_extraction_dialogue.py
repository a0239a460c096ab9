"""Extraction's mechanics on real dialogue: the first session of a development conversation of
../shared/data/locomo-dev is appended as verbatim turns; a scripted model at the HTTP boundary answers
the gold facts of the questions whose evidence lies in that session (the answer, citing the evidence
turns by the sequence numbers it was shown); asked again as an agent asks, each question's derived
memory comes back with its evidence turns, word for word, inside the budget. The quality of a real
model's extraction is bench/quality/extraction_recall.py's to measure, where a key is set."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "locomo-dev" / "26.json"


def session_one() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    raw = json.loads(DATA.read_text())
    when = datetime.strptime(raw["session_1_date_time"].strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    turns = [
        {
            "role": "user" if t["speaker"] == raw["speaker_a"] else "assistant",
            "content": f"{t['speaker']}: {t['text']}",
            "created_at": when.isoformat(),
            "metadata": {"dia_id": t["dia_id"]},
        }
        for t in raw["session_1"]
    ]
    said = {t["metadata"]["dia_id"] for t in turns}
    questions = [
        q
        for q in raw["qa"]
        if q.get("category") in (1, 2, 3, 4)
        and (ev := re.findall(r"D\d+:\d+", " ".join(q.get("evidence", []))))
        and set(ev) <= said
    ]
    return turns, questions[:5]


def test_gold_facts_come_back_with_their_evidence_turns_within_the_budget(api, model, stack, drain):
    turns, questions = session_one()
    assert len(questions) >= 3, "the first session answers a handful of questions"
    seq_of = {t["metadata"]["dia_id"]: n for n, t in enumerate(turns, start=1)}

    def gold(body: dict[str, Any]) -> dict[str, Any]:
        shown = {
            json.loads(line)["seq"]
            for line in model.prompt(body).split("<turns>\n")[1].split("\n</turns>")[0].splitlines()
        }
        assert shown == set(seq_of.values())  # the whole session in one window
        return {
            "summary": "Caroline and Melanie catch up: a support group, a painting, plans.",
            "memories": [
                {
                    "action": "add",
                    "kind": "event" if q["category"] == 2 else "fact",
                    "content": f"{q['question']} {q['answer']}",
                    "evidence": [seq_of[e] for e in re.findall(r"D\d+:\d+", " ".join(q["evidence"]))],
                }
                for q in questions
            ],
        }

    model.then(gold)
    conv = api.post("/v1/conversations", {"namespace": "locomo-26", "title": "session 1"}).body
    assert api.post(f"/v1/conversations/{conv['id']}/messages", {"messages": turns}).status == 201
    assert stack.extraction_poller.drain() == 1
    drain()
    for q in questions:
        found = api.post("/v1/recall", {"query": q["question"], "namespace": "locomo-26", "budget_chars": 2000}).body
        assert found["used_chars"] <= 2000
        derived = [r for r in found["results"] if r.get("source") == "extraction"]
        hit = next(r for r in derived if r["chunk"]["text"].startswith(q["question"]))
        evidence = {e["metadata"]["dia_id"]: e["content"] for e in hit["evidence"]}
        wanted = set(re.findall(r"D\d+:\d+", " ".join(q["evidence"])))
        assert set(evidence) == wanted, (q["question"], evidence)
        assert all(evidence[d] == turns[seq_of[d] - 1]["content"] for d in wanted)  # verbatim
