"""Conversation chunk windows: layout, the partial tail, and formatting."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import pytest

from engram.conversations.models import Message
from engram.conversations.windows import (
    Window,
    format_window,
    neighbour_context,
    one_turn_speaker,
    windows,
    windows_to_rebuild,
)


def msg(**kw: Any) -> Message:
    """A stored message (what the formatter reads), with `kw` for the fields a test sets."""
    base: dict[str, Any] = {
        "id": uuid4(),
        "conversation_id": uuid4(),
        "seq": 1,
        "role": "user",
        "content": "",
        "tool_call_id": None,
        "tool_name": None,
        "metadata": {},
        "created_at": datetime(2024, 1, 1, tzinfo=UTC),
    }
    return Message(**{**base, **kw})


def spans(ws: list[Window]) -> list[tuple[int, int]]:
    return [(w.seq_from, w.seq_to) for w in ws]


def test_seed_004_layout_five_stride_three():
    assert spans(windows(10, 5, 3)) == [(1, 5), (4, 8), (7, 10)]
    assert spans(windows(5, 5, 3)) == [(1, 5)]
    assert spans(windows(6, 5, 3)) == [(1, 5), (4, 6)]
    assert spans(windows(2, 5, 3)) == [(1, 2)]
    assert windows(0, 5, 3) == []


@pytest.mark.parametrize("size,stride", [(5, 3), (3, 2), (1, 1), (4, 4), (6, 1)])
@pytest.mark.parametrize("count", range(1, 40))
def test_every_message_is_covered_and_windows_overlap_by_size_minus_stride(count, size, stride):
    ws = windows(count, size, stride)
    covered = {q for w in ws for q in range(w.seq_from, w.seq_to + 1)}
    assert covered == set(range(1, count + 1))
    assert ws[-1].seq_to == count
    assert all(b.seq_from - a.seq_from == stride for a, b in itertools.pairwise(ws))
    assert all(w.full(size) for w in ws[:-1])


def test_stride_above_size_is_clamped_so_no_message_is_skipped():
    assert spans(windows(7, 2, 5)) == [(1, 2), (3, 4), (5, 6), (7, 7)]


@pytest.mark.parametrize("old,new", [(6, 10), (5, 6), (1, 200), (8, 9), (10, 11), (7, 7)])
def test_append_replaces_only_the_partial_tail(old, new):
    existing = windows(old, 5, 3)
    delete, insert = windows_to_rebuild(existing, new, 5, 3)
    assert not any(w.full(5) for w in delete)  # full windows are never rebuilt
    assert len(delete) <= 1
    after = sorted((set(existing) - set(delete)) | set(insert), key=lambda w: w.seq_from)
    assert after == windows(new, 5, 3)


def test_format_has_dates_and_speakers_or_roles():
    day1 = datetime(2024, 3, 4, 9, tzinfo=UTC)
    day2 = datetime(2024, 3, 5, 9, tzinfo=UTC)
    text = format_window(
        [
            msg(role="user", content="Can you check the logs?", created_at=day1, metadata={"speaker": "Ana"}),
            msg(role="tool", content='{"errors": []}', created_at=day1, tool_name="logs", metadata={}),
            msg(role="assistant", content="Nothing there.", created_at=day2, metadata={}),
        ]
    )
    assert text.splitlines() == [
        "(04 March 2024)",
        "[Ana]: Can you check the logs?",
        '[tool logs]: {"errors": []}',
        "(05 March 2024)",
        "[assistant]: Nothing there.",
    ]


def test_a_content_that_names_its_speaker_is_shown_once():
    day = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    named = msg(role="user", content="Caroline: I went to a support group.", created_at=day, metadata={})
    text = format_window([named])
    assert text == "(08 May 2023)\nCaroline: I went to a support group."  # not "[user]: Caroline: ..."
    assert one_turn_speaker(text) == "Caroline"
    same = format_window([named.model_copy(update={"metadata": {"speaker": "Caroline"}})])
    assert same == text
    other = format_window([named.model_copy(update={"metadata": {"speaker": "Mel"}})])
    assert other.endswith("[Mel]: Caroline: I went to a support group.") and one_turn_speaker(other) == "Mel"
    plain = format_window([named.model_copy(update={"content": "no name here: lower case"})])
    assert plain.endswith("[user]: no name here: lower case") and one_turn_speaker(plain) == "user"
    assert one_turn_speaker("(08 May 2023) a title\nDr Who: hello") == "Dr Who"


def test_the_keyword_context_is_the_neighbouring_turns_of_the_same_day():
    day, next_day = datetime(2023, 5, 8, 23, 50, tzinfo=UTC), datetime(2023, 5, 9, 0, 10, tzinfo=UTC)
    before = msg(content="Melanie: What did you research?", created_at=day)
    after = msg(content="Melanie: Wow!", created_at=next_day)
    assert neighbour_context(before, after, day, day) == "Melanie: What did you research?"
    assert neighbour_context(before, after.model_copy(update={"created_at": day}), day, day) == (
        "Melanie: What did you research?\nMelanie: Wow!"
    )
    assert neighbour_context(None, None, day, day) is None
    assert neighbour_context(None, after, day, next_day) == "Melanie: Wow!"  # the window's last turn is the edge
