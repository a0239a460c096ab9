"""A framework's session as an Engram conversation, for the adapters (openai_agents, strands).

A session is one conversation, found by a tag made from its session id (`session:` and a hash), so
the same id finds it again from any process. Each item the framework hands over is appended as one
message, verbatim: its text as the message's content (what recall searches) and the item itself in
the message's metadata, so it comes back exactly. Conversations are append-only ledgers: removing
the latest item (`pop`) appends a marker that hides it from the session (the conversation keeps the
words, and recall may still find them; `clear` deletes the conversation with its messages).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engram_client import endpoints
from engram_client.endpoints import NewMessage
from engram_client.models import Conversation, CursorPage, Message, MessagePage
from engram_client.plans import Plan

MARK = "engram_session"  # the metadata key of what the adapters write
APPEND_LIMIT = 200  # messages per append
ROLES = ("user", "assistant", "system", "tool")


def session_tag(session_id: str) -> str:
    return "session:" + hashlib.sha256(session_id.encode()).hexdigest()[:40]


@dataclass(frozen=True)
class Entry:
    """One item of a session: the message's sequence number and the framework's item."""

    seq: int
    item: Any


def as_message(item: Any, role: str, text: str) -> NewMessage:
    """`item` as a message: `role` (a framework's other roles are sent as "tool"), `text` as content."""
    return {
        "role": role if role in ROLES else "tool",  # type: ignore[typeddict-item]  # checked against ROLES
        "content": text,
        "metadata": {MARK: {"item": item}},
    }


def text_of(content: Any) -> str:
    """The words of a message's content: a string, or the text of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return json.dumps(content, ensure_ascii=False, default=str) if content is not None else ""


def find_conversation(session_id: str, namespace: str | None) -> Plan[Conversation | None]:
    page: CursorPage[Conversation] = yield endpoints.list_conversations(
        namespace=namespace, tags=[session_tag(session_id)], limit=1
    )
    return page.items[0] if page.items else None


def open_conversation(session_id: str, namespace: str | None, agent_id: str | None) -> Plan[Conversation]:
    """The session's conversation, created on first use."""
    found = yield from find_conversation(session_id, namespace)
    if found is not None:
        return found
    tag = session_tag(session_id)
    created: Conversation = yield endpoints.create_conversation(
        title=session_id[:500],
        namespace=namespace,
        agent_id=agent_id,
        tags=[tag],
        metadata={MARK: {"session_id": session_id}},
    )
    return created


def read_entries(conversation_id: str) -> Plan[list[Entry]]:
    """The session's items in order, without those a later marker removed."""
    messages: list[Message] = []
    from_seq: int | None = None
    while True:
        page: MessagePage = yield endpoints.list_messages(conversation_id, from_seq=from_seq, limit=200)
        messages += page.items
        from_seq = page.next_from_seq
        if from_seq is None:
            break
    removed = set()
    entries = []
    for message in messages:
        mark = message.metadata.get(MARK) if isinstance(message.metadata, dict) else None
        if isinstance(mark, dict) and "removes" in mark:
            removed.add(mark["removes"])
        else:  # a message written by other means is an item too: its role and content
            item = mark["item"] if isinstance(mark, dict) and "item" in mark else None
            entries.append(Entry(message.seq, item if item is not None else _plain(message)))
    return [e for e in entries if e.seq not in removed]


def _plain(message: Message) -> dict[str, Any]:
    return {"role": message.role, "content": message.content}


def append(conversation_id: str, messages: Sequence[NewMessage]) -> Plan[None]:
    for start in range(0, len(messages), APPEND_LIMIT):
        yield endpoints.append_conversation(conversation_id, list(messages[start : start + APPEND_LIMIT]))
    return None


def remove_latest(conversation_id: str) -> Plan[Entry | None]:
    """Hide the latest item (a marker message naming its sequence number); None when there is none."""
    entries = yield from read_entries(conversation_id)
    if not entries:
        return None
    latest = entries[-1]
    marker: NewMessage = {"role": "system", "content": "", "metadata": {MARK: {"removes": latest.seq}}}
    yield endpoints.append_conversation(conversation_id, [marker])
    return latest


def delete(session_id: str, namespace: str | None) -> Plan[None]:
    found = yield from find_conversation(session_id, namespace)
    if found is not None:
        yield endpoints.delete_conversation(found.id)
    return None
