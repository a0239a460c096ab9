"""Conversation chunk windows: overlapping runs of messages, formatted for retrieval.

Windows of `size` messages start every `stride` messages, until one reaches the last message:
ten messages with 5/3 give 1-5, 4-8, 7-10. A window that ends before `size` messages is
*partial*; it is the only one an append can change, so appending replaces the partial tail
and adds new windows, and never rebuilds the rest of the conversation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engram.conversations.models import Message

# A turn whose content starts with its speaker's name ("Caroline: I went to ..."), as chat logs
# pasted into a memory service often are: one to three capitalised words, then a colon.
NAMED_TURN = re.compile(r"^([A-Z][\w.'-]{0,29}(?: [A-Z][\w.'-]{0,29}){0,2}): ")


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


def turn_speaker(line: str) -> str | None:
    """The speaker a formatted turn line names (`[Ana]: ...`, or `Ana: ...` when the content named
    its speaker itself), or None."""
    if line.startswith("["):
        end = line.find("]: ")
        return line[1:end] if end > 1 else None
    named = NAMED_TURN.match(line)
    return named.group(1) if named else None


DATE_LINE = re.compile(r"^\(\d{2} \w+ \d{4}\)")  # format_window's day header


def one_turn_speaker(text: str) -> str | None:
    """The speaker of a one-message window, from its formatted text (after its day header)."""
    lines = text.split("\n", 2)
    line = lines[1] if len(lines) > 1 and DATE_LINE.match(lines[0]) else lines[0]
    return turn_speaker(line)


def neighbour_context(before: Message | None, after: Message | None, first: datetime, last: datetime) -> str | None:
    """The words a window's keyword index holds beside its own (chunks.context, weight D): the turn
    before it and the turn after it, each only when said on the same day as the window's edge (the
    next session is another subject). On real dialogue the answer to "what did X research?" is often
    the reply to the turn that holds the question's words (bench/dialogue_recall.py)."""
    parts = [
        m.content
        for m, edge in ((before, first), (after, last))
        if m is not None and m.created_at.astimezone(UTC).date() == edge.astimezone(UTC).date()
    ]
    return "\n".join(parts) or None


def format_window(messages: Sequence[Message], title: str | None = None) -> str:
    """`[speaker]: content` lines; a date line wherever the day changes (and at the start), so
    time words in a query and the day of a turn meet in the keyword index. The speaker is the name
    the message gives (metadata `speaker` or `name`), else its role; a content that starts with its
    speaker's name ("Ana: ...") is shown as it is, without a label. Short on purpose: a result pays
    for its header out of the caller's budget, chat turns are often shorter than the header used to
    be (42 characters), and the weekday and the role beside a name bought no recall
    (bench/RESULTS-conversations.md).
    """
    lines: list[str] = []
    day = None
    for m in messages:
        created = m.created_at
        this_day = created.date().isoformat()
        if this_day != day:
            day = this_day
            header = f"({created.strftime('%d %B %Y')})"
            lines.append(f"{header} {title}" if title and not lines else header)
        label = _speaker(m.role, m.metadata)
        if m.tool_name:
            label = f"{label} {m.tool_name}"
        named = NAMED_TURN.match(m.content)
        if named and not m.tool_name and label in (m.role, named.group(1)):
            lines.append(m.content)  # "[user]: Ana: ..." would say the speaker twice
        else:
            lines.append(f"[{label}]: {m.content}")
    return "\n".join(lines)
