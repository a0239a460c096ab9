"""Export and import keep what extraction derived: a derived memory's evidence turns, the
conversation's summary and how far extraction read it, the namespace's extraction settings, and the
runs with their actions (still undoable). Real worker, real Anthropic client against a scripted
Messages API (tests/support/messages_api.py), real PostgreSQL, moto S3/SQS."""

from __future__ import annotations

import json
from typing import Any

from tests.support.atlas_conversation import append, by_content, first_answer, start
from tests.support.export_files import HEADER, export_bytes, export_file, import_file, memory_line
from tests.support.messages_api import ScriptedModel

PREFERENCE = "The user prefers blue-green deploys on Tuesdays."


def _derive(api: Any, model: ScriptedModel, stack: Any, drain: Any) -> str:
    """A conversation with one extraction run (three memories and a summary), then a second that
    updates the preference (a supersedes link) and a pushed text's run; the namespace's settings."""
    assert (
        api.put("/v1/extraction/settings", {"namespace": "atlas", "instructions": "Deploy habits matter."}).status
        == 200
    )
    model.then(first_answer)
    conversation_id = start(api)
    assert stack.extraction_poller.drain() == 1

    def second(body: dict[str, Any]) -> dict[str, Any]:
        return {
            "summary": "Atlas deploys blue-green on Thursdays now.",
            "memories": [
                {
                    "action": "update",
                    "kind": "preference",
                    "content": "The user prefers blue-green deploys on Thursdays.",
                    "evidence": [5],
                    "target": ScriptedModel.stored(body)[PREFERENCE],
                }
            ],
        }

    model.then(second)
    drain()  # the first run's vectors: the stored preference is found by meaning too
    append(
        api,
        conversation_id,
        [
            ("user", "From now on we deploy on Thursdays.", "2025-06-02T10:00:00Z"),
            ("assistant", "Thursdays it is.", "2025-06-02T10:01:00Z"),
            ("user", "Thanks.", "2025-06-02T10:02:00Z"),
            ("user", "Bye.", "2025-06-02T10:03:00Z"),
        ],
    )
    assert stack.extraction_poller.drain() == 1
    model.then(
        {
            "summary": "",
            "memories": [{"action": "add", "kind": "fact", "content": "Atlas has an SLO.", "evidence": [1]}],
        }
    )
    assert api.post("/v1/extract", {"text": "Atlas has a 99.9% SLO.", "namespace": "atlas"}).status == 200
    return conversation_id


def _derivation(api: Any, conversation_id: str) -> dict[str, Any]:
    """What the API shows of the derivation (message ids aside: messages are numbered, not kept)."""
    memories = by_content(api)
    evidence = {
        content: [
            (e["conversation_id"], e["seq"], e["content"]) for e in api.get(f"/v1/memories/{m['id']}").body["evidence"]
        ]
        for content, m in memories.items()
    }
    runs = api.get("/v1/extraction/runs?namespace=atlas").body["items"]
    details = [api.get(f"/v1/extraction/runs/{r['id']}").body for r in runs]
    conversation = api.get(f"/v1/conversations/{conversation_id}").body
    return {
        "memories": {c: (m["id"], m["source"], m["metadata"], m["valid_to"]) for c, m in memories.items()},
        "evidence": evidence,
        "summary": (conversation["summary"], conversation["summary_updated_at"], conversation["extracted_seq"]),
        "runs": [
            {k: v for k, v in d.items() if k != "actions"}
            | {"actions": [{k: v for k, v in a.items() if k != "evidence"} for a in d["actions"]]}
            for d in details
        ],
        "action_evidence": [[[(e["seq"], e["content"]) for e in a["evidence"]] for a in d["actions"]] for d in details],
        "settings": api.get("/v1/extraction/settings?namespace=atlas").body,
    }


def test_derived_memories_come_back_with_their_evidence_runs_and_settings(api, tenant, model, stack, drain):
    conversation_id = _derive(api, model, stack, drain)
    before = _derivation(api, conversation_id)
    assert before["evidence"]["The user prefers blue-green deploys on Thursdays."] == [
        (conversation_id, 5, "From now on we deploy on Thursdays.")
    ]
    assert len(before["runs"]) == 3 and before["settings"]["instructions"] == "Deploy habits matter."

    job, data = export_file(api, stack, "atlas")
    counts = job["counts"]
    assert (counts["extraction_runs"], counts["extraction_settings"], counts["messages"]) == (3, 1, 8)
    assert counts["evidence"] == 1 + 1 + 1 + 1 + 4 + 4  # three memories, the update, two summaries' windows
    assert api.post("/v1/namespaces/atlas/purge").status == 200
    assert by_content(api) == {} and api.get("/v1/extraction/runs?namespace=atlas").body["items"] == []

    done = import_file(api, stack, data)
    assert done["status"] == "done", done["report"]["refused"]
    report = done["report"]
    assert report["imported"]["evidence"] == counts["evidence"] and report["imported"]["extraction_runs"] == 3
    assert report["deduplicated"]["extraction_settings"] == 1  # the namespace kept its settings through the purge
    assert report["mapped_ids"] == 0
    assert _derivation(api, conversation_id) == before

    again = import_file(api, stack, data)  # everything is there already
    assert again["report"]["imported"] == {k: 0 for k in again["report"]["imported"]}
    assert again["report"]["deduplicated"]["extraction_runs"] == 3
    assert _derivation(api, conversation_id) == before

    # An imported run is undoable: the update is reversed, the older preference holds again.
    update_run = next(r for r in before["runs"] if r["counts"] == {"update": 1})
    assert api.post(f"/v1/extraction/runs/{update_run['id']}/undo", {}).status == 200
    assert by_content(api)[PREFERENCE]["valid_to"] is None
    # And erasing the conversation erases what was learned from it: the evidence came back.
    erased = api.post("/v1/erasures", {"selector": {"conversation_id": conversation_id}})
    assert erased.status == 202, erased.body
    assert list(by_content(api)) == ["Atlas has an SLO."]  # from the pushed text: no turns cited


def test_mapped_ids_are_mapped_alike_in_evidence_metadata_and_runs(api, api_for, make_tenant, model, stack, drain):
    conversation_id = _derive(api, model, stack, drain)
    _, data = export_file(api, stack)
    other = api_for(make_tenant("derived-b").key)
    done = import_file(other, stack, data, id_policy="map", namespace="copy")
    assert done["status"] == "done", done
    (conversation,) = other.get("/v1/conversations?namespace=copy").body["items"]
    new_conversation = conversation["id"]
    assert new_conversation != conversation_id and conversation["extracted_seq"] == 8
    assert other.get(f"/v1/conversations/{new_conversation}").body["summary"].startswith("Atlas deploys")

    runs = {r["id"]: r for r in other.get("/v1/extraction/runs?namespace=copy").body["items"]}
    assert len(runs) == 3 and not set(runs) & {r["id"] for r in api.get("/v1/extraction/runs").body["items"]}
    memories = by_content(other, "copy")
    thursday = memories["The user prefers blue-green deploys on Thursdays."]
    origin = thursday["metadata"]["extraction"]
    assert origin["conversation_id"] == new_conversation and origin["run_id"] in runs
    (turn,) = other.get(f"/v1/memories/{thursday['id']}").body["evidence"]
    assert (turn["conversation_id"], turn["seq"]) == (new_conversation, 5)
    messages = other.get(f"/v1/conversations/{new_conversation}/messages").body["items"]
    assert turn["message_id"] == messages[4]["id"]

    detail = other.get(f"/v1/extraction/runs/{origin['run_id']}").body
    (action,) = detail["actions"]
    assert detail["conversation_id"] == new_conversation and action["memory_id"] == thursday["id"]
    assert action["target_id"] == memories[PREFERENCE]["id"]
    summary = next(m for m in memories.values() if m["source"] == "conversation_summary")
    assert summary["metadata"]["conversation_id"] == new_conversation
    # The link the update made is the mapped one: undo removes it, the older preference holds again.
    assert other.post(f"/v1/extraction/runs/{detail['id']}/undo", {}).status == 200
    assert by_content(other, "copy")[PREFERENCE]["valid_to"] is None
    assert by_content(api)[PREFERENCE]["valid_to"] is not None  # the first tenant's stays as it was


def test_derivation_lines_that_name_what_the_file_lacks_are_refused(api, stack):
    conversation = {
        "type": "conversation",
        "id": "6f1c2a9e-0000-4000-8000-000000000001",
        "created_at": "2026-11-01T00:00:00Z",
    }
    message = {"type": "message", "conversation_id": conversation["id"], "seq": 1, "role": "user", "content": "hi"}
    elsewhere = "6f1c2a9e-0000-4000-8000-000000000002"
    data = export_bytes(
        memory_line("Derived.", "d", source="extraction", evidence=[{"conversation_id": elsewhere, "seq": 1}]),
        {**conversation, "extracted_seq": 3},
        message,
        {
            "type": "extraction_run",
            "id": elsewhere,
            "namespace": "d",
            "conversation_id": elsewhere,
            "trigger": "turns",
            "status": "done",
            "created_at": "2026-11-01T00:00:00Z",
        },
        {"type": "extraction_settings", "namespace": "d", "kinds": ["gossip"]},
    )
    done = import_file(api, stack, data)
    assert done["status"] == "failed"
    assert [(r["line"], r["reason"]) for r in done["report"]["refused"]] == [
        (2, f"memory.evidence: conversation {elsewhere} is not in the file"),
        (3, "conversation.extracted_seq: 3 is more than its 1 messages"),
        (5, f"extraction_run.conversation_id: conversation {elsewhere} is not in the file"),
        (6, "extraction_settings.kinds.0: Input should be 'fact', 'preference', 'decision' or 'event'"),
    ]
    assert by_content(api, "d") == {}
    assert json.loads(data.splitlines()[0]) == HEADER
