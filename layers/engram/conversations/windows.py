"""Conversation chunk windows (seed 004): overlapping runs of messages, formatted for retrieval.

Windows of `size` messages start every `stride` messages, until one reaches the last message:
ten messages with 5/3 give 1-5, 4-8, 7-10. A window that ends before `size` messages is
*partial*; it is the only one an append can change, so appending replaces the partial tail
and adds new windows, and never rebuilds the rest of the conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Window:
    seq_from: int  # inclusive, 1-based like message sequence numbers
    seq_to: int  # inclusive

    def full(self, size: int) -> bool:
        return self.seq_to - self.seq_from + 1 >= size


def windows(count: int, size: int, stride: int) -> list[Window]:
    """The windows covering messages 1..count."""
    if count <= 0:
        return []
    size, stride = max(size, 1), max(1, min(stride, size))  # a stride above size would skip messages
    out: list[Window] = []
    start = 1
    while True:
        end = min(start + size - 1, count)
        out.append(Window(start, end))
        if end >= count:
            return out
        start += stride


def windows_to_rebuild(
    existing: Sequence[Window], count: int, size: int, stride: int
) -> tuple[list[Window], list[Window]]:
    """After an append up to `count` messages: (windows to delete, windows to insert).

    Full windows already stored are kept as they are; stored windows that are not part of the
    new layout (the partial tail) are deleted; windows of the new layout not stored are inserted.
    """
    target = windows(count, size, stride)
    have = set(existing)
    wanted = set(target)
    delete = sorted((w for w in existing if w not in wanted), key=lambda w: w.seq_from)
    insert = [w for w in target if w not in have]
    return delete, insert


def _speaker(role: str, metadata: Any) -> str:
    """The speaker's name when the message gives one, else its role."""
    if isinstance(metadata, dict):
        for key in ("speaker", "name"):
            name = metadata.get(key)
            if isinstance(name, str) and name.strip():
                return name.strip()[:60]
    return role


def format_window(messages: Sequence[dict[str, Any]], title: str | None = None) -> str:
    """`[speaker]: content` lines; a date line wherever the day changes (and at the start), so
    time words in a query and the day of a turn meet in the keyword index. The speaker is the name
    the message gives (metadata `speaker` or `name`), else its role. Short on purpose: a result pays
    for its header out of the caller's budget, chat turns are often shorter than the header used to
    be (42 characters), and the weekday and the role beside a name bought no recall
    (bench/RESULTS-conversations.md).
    """
    lines: list[str] = []
    day = None
    for m in messages:
        created: datetime = m["created_at"]
        this_day = created.date().isoformat()
        if this_day != day:
            day = this_day
            header = f"({created.strftime('%d %B %Y')})"
            lines.append(f"{header} {title}" if title and not lines else header)
        label = _speaker(m["role"], m.get("metadata"))
        if m.get("tool_name"):
            label = f"{label} {m['tool_name']}"
        lines.append(f"[{label}]: {m['content']}")
    return "\n".join(lines)
