"""The Atlas planning conversation the extraction tests append, and the model's first answer to it:
three memories, each with the turn it came from as evidence."""

from __future__ import annotations

from typing import Any

from tests.support.messages_api import ScriptedModel

TURNS = [
    ("user", "Hi! I'm planning the database work for the Atlas project.", "2025-05-12T09:00:00Z"),
    ("user", "We run PostgreSQL 16 in production for Atlas.", "2025-05-12T09:01:00Z"),
    ("assistant", "Noted. Anything about how you deploy?", "2025-05-12T09:02:00Z"),
    ("user", "I prefer blue-green deploys, always on a Tuesday. We shipped v2 last Tuesday.", "2025-05-12T09:03:00Z"),
]


def start(api: Any, turns: list[tuple[str, str, str]] = TURNS, namespace: str = "atlas") -> str:
    conv = api.post("/v1/conversations", {"namespace": namespace, "title": "Atlas planning"})
    assert conv.status == 201, conv.body
    append(api, conv.body["id"], turns)
    return str(conv.body["id"])


def append(api: Any, conversation_id: str, turns: list[tuple[str, str, str]]) -> None:
    body = {"messages": [{"role": r, "content": c, "created_at": t} for r, c, t in turns]}
    reply = api.post(f"/v1/conversations/{conversation_id}/messages", body)
    assert reply.status == 201, reply.body


def first_answer(body: dict[str, Any]) -> dict[str, Any]:
    # The turns reach the model quoted, with their dates: "last Tuesday" said on Monday 12 May is 6 May.
    assert '"seq": 4' in ScriptedModel.prompt(body) and "2025-05-12 09:03 Monday" in ScriptedModel.prompt(body)
    return {
        "summary": "Planning Atlas's database work: PostgreSQL 16 in production; blue-green deploys on Tuesdays.",
        "memories": [
            {"action": "add", "kind": "fact", "content": "Atlas runs PostgreSQL 16 in production.", "evidence": [2]},
            {
                "action": "add",
                "kind": "preference",
                "content": "The user prefers blue-green deploys on Tuesdays.",
                "evidence": [4],
            },
            {
                "action": "add",
                "kind": "event",
                "content": "Atlas v2 shipped on 2025-05-06.",
                "evidence": [4],
                "event_date": "2025-05-06",
            },
        ],
    }


def by_content(api: Any, namespace: str = "atlas") -> dict[str, dict[str, Any]]:
    items = api.get(f"/v1/memories?namespace={namespace}&limit=200").body["items"]
    return {m["content"]: m for m in items}
