"""The Python SDK's extraction calls against the local server over real HTTP: extract, extraction runs
(list, get, undo), settings and the budget in usage, with typed results; the model is the scripted
Messages API at the HTTP boundary (tests/support/messages_api.py), the worker the real one."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from engram_client import Conflict, Engram, InvalidField, NewMessage
from engram_client.models import EvidenceTurn, ExtractionRun, ExtractionRunDetail, NamespaceExtraction
from tests.support.atlas_conversation import TURNS, first_answer
from tests.support.messages_api import ScriptedModel


@pytest.fixture
def engram(server: str, make_tenant: Any) -> Iterator[Engram]:
    with Engram(server, make_tenant("sdk-extraction").key) as client:
        yield client


def test_extract_runs_undo_and_settings_typed(engram: Engram, model: ScriptedModel, stack: Any) -> None:
    decision = {"action": "add", "kind": "decision", "content": "Atlas uses Terraform.", "evidence": [2]}
    model.then({"summary": "", "memories": [decision]})
    dry = engram.extract(text="Notes, 3 June.\n\nWe chose Terraform for Atlas.", namespace="notes", dry_run=True)
    assert isinstance(dry, ExtractionRunDetail) and dry.dry_run and dry.status == "done"
    assert (dry.actions[0].action, dry.actions[0].memory_id, dry.actions[0].evidence_seqs) == ("add", None, [2])

    model.then(first_answer)
    conv = engram.start_conversation(title="Atlas planning", namespace="atlas")
    turns: list[NewMessage] = [{"role": r, "content": c, "created_at": t} for r, c, t in TURNS]
    engram.append_conversation(conv.id, turns)
    assert stack.extraction_poller.drain() == 1  # the append queued one job: the worker runs it

    page = engram.list_extraction_runs(conversation_id=conv.id)
    (run,) = page.items
    assert isinstance(run, ExtractionRun) and run.finished and run.counts == {"add": 3}
    assert [r.id for r in engram.iter_extraction_runs(namespace="atlas", limit=1)] == [run.id]
    detail = engram.get_extraction_run(run.id)
    event = next(a for a in detail.actions if a.kind == "event")
    assert event.event_date == date(2025, 5, 6) and isinstance(event.evidence[0], EvidenceTurn)
    assert event.evidence[0].content == TURNS[3][1] and event.evidence[0].conversation_id == conv.id
    fact = next(a for a in detail.actions if a.kind == "fact")
    assert fact.memory_id is not None
    memory = engram.get_memory(fact.memory_id)
    assert memory.source == "extraction" and [e.seq for e in memory.evidence] == [2]
    assert engram.get_conversation(conv.id).summary is not None

    undone = engram.undo_extraction(run.id)
    assert undone.status == "undone" and undone.undone_at is not None
    with pytest.raises(Conflict):
        engram.undo_extraction(run.id)

    defaults = engram.get_extraction_settings("atlas")
    assert isinstance(defaults, NamespaceExtraction) and defaults.enabled and defaults.updated_at is None
    put = engram.put_extraction_settings("atlas", kinds=["fact", "decision"], instructions="Only infrastructure.")
    assert put.kinds == ["fact", "decision"] and put.updated_at is not None
    assert engram.get_extraction_settings("atlas") == put
    with pytest.raises(InvalidField) as bad:
        engram.put_extraction_settings("atlas", kinds=[])
    assert bad.value.field == "kinds"

    spend = engram.usage().extraction
    assert spend is not None and spend.extraction_tokens_today == 2 * 1020 and not spend.over_budget


def test_extract_without_an_llm_is_a_conflict_naming_the_setting(engram: Engram) -> None:
    with pytest.raises(Conflict, match="extraction needs an LLM"):
        engram.extract(text="We use Rust.")
