"""Conversation turns in fusion: the session list and the speaker a query names (engram.recall.ranking)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engram.core.select_lists import field_names
from engram.recall.ranking import (
    RRF_K,
    SELF_STATEMENT_CUES,
    SPEAKER_BOOST,
    Candidate,
    fuse,
    named_speakers,
    rank_sessions,
)
from engram.recall.rows import CandidateRow

CONV = uuid.uuid4()
DAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def _row(**fields: Any) -> CandidateRow:
    """A candidate row with the fields a test names (the others None)."""
    blank: dict[str, Any] = dict.fromkeys(field_names(CandidateRow))
    return CandidateRow(**(blank | {"importance": 0.5} | fields))


def turn(
    session_total: float | None, day: int = 0, speaker: str | None = None, keyword: float = 0.5, text: str = ""
) -> Candidate:
    """A turn whose session's candidate turns hold query words weighing session_total (the store sums them)."""
    row = _row(conversation_id=CONV, occurred_at=DAY + timedelta(days=day), session_total=session_total, text=text)
    return Candidate(row=row, keyword=keyword, speaker=speaker)


def test_a_session_ranks_by_the_query_words_its_turns_hold_together() -> None:
    # Day 0: two turns hold "adoption" (2.0) and "agency" (1.5), one each; day 1: one turn holds both. Day 2's
    # turn holds only a common word (0.1); day 3's none of its own (found by its neighbours or its vector).
    a, b = turn(3.5), turn(3.5)
    c = turn(3.5, day=1)
    d = turn(0.1, day=2)
    e = turn(None, day=3)
    rank_sessions([a, b, c, d, e])
    assert (a.session_rank, b.session_rank, c.session_rank) == (1, 1, 1)  # 3.5 each: ties share a rank
    assert d.session_rank == 3  # two sessions hold a higher sum
    assert e.session_rank is None


def test_with_rewrites_a_session_takes_its_highest_sum() -> None:
    question, rewrite = turn(1.0), turn(2.5)  # the same session, found by the question and by a rewrite
    other = turn(2.0, day=1)
    rank_sessions([question, rewrite, other])
    assert (question.session_rank, rewrite.session_rank, other.session_rank) == (1, 1, 2)


def test_memories_have_no_session() -> None:
    memory = Candidate(row=_row(occurred_at=DAY))
    rank_sessions([memory, turn(1.0)])
    assert memory.session_rank is None


def test_the_session_list_reorders_turns_within_their_places() -> None:
    # The two lists disagree (keyword ranks 1 and 2, vector ranks 2 and 1): the session list decides.
    alone, together = turn(1.0, day=0, keyword=0.9), turn(2.0, day=1, keyword=0.8)
    alone.vector, together.vector = 0.5, 0.6
    fuse([alone, together], "rrf", keyword_weight=1.0)
    assert together.fused > alone.fused
    factor = 1 + 0.1 * 0.0 + 0.1 * 0.5
    place = (1 / (RRF_K + 1) + 1 / (RRF_K + 2)) * factor  # both hold the same place beside any memory
    assert together.fused == pytest.approx(place) and alone.fused == pytest.approx(place)


def test_turn_signals_never_lift_a_turn_over_a_memory_ranked_above_it() -> None:
    memory = Candidate(row=_row(occurred_at=DAY), keyword=0.9)
    hers = turn(1.0, speaker="Caroline", keyword=0.8)
    his = turn(1.0, day=1, speaker="Melanie", keyword=0.85)
    fuse([memory, hers, his], "rrf", keyword_weight=1.0, query="What did Caroline say?")
    assert memory.fused > hers.fused > his.fused  # the speaker boost swapped the turns, not the memory's place


def test_a_named_speaker_is_singled_out_only_when_another_is_not_named() -> None:
    turns = [turn(1.0, speaker="Caroline"), turn(1.0, speaker="Melanie"), turn(None, speaker=None)]
    assert named_speakers(turns, "What did Caroline research?") == {"Caroline"}
    assert named_speakers(turns, "what did caroline's friend say") == {"Caroline"}
    assert named_speakers(turns, "Did Caroline and Melanie meet?") == set()  # both: neither singled out
    assert named_speakers(turns, "What did Carol say?") == set()  # whole words only
    assert named_speakers(turns, "who went hiking") == set()


def test_a_named_speakers_turns_lead_the_other_speakers() -> None:
    hers, his = turn(1.0, speaker="Caroline", keyword=0.8), turn(1.0, speaker="Melanie", keyword=0.9)
    fuse([his, hers], "rrf", keyword_weight=1.0, query="When did anyone paint?")
    assert his.fused > hers.fused
    fuse([his, hers], "rrf", keyword_weight=1.0, query="When did Caroline paint?")
    assert hers.fused > his.fused
    assert SPEAKER_BOOST > 0


def test_asked_what_a_named_speaker_would_do_their_turns_about_themselves_lead() -> None:
    # The keyword list puts her turn about a book first; her turn about her own writing is the answer.
    about_a_book = turn(1.0, speaker="Caroline", keyword=0.9, text="That book on writing was great.")
    about_herself = turn(1.0, day=1, speaker="Caroline", keyword=0.8, text="I've been writing a lot lately.")
    his = turn(1.0, day=2, speaker="Melanie", keyword=0.85, text="I write too, now and then.")
    turns = [about_a_book, about_herself, his]
    fuse(turns, "rrf", keyword_weight=1.0, query="Would Caroline likely pursue writing?")
    assert about_herself.fused > about_a_book.fused > his.fused  # another speaker's "I" is not hers
    # Asked what she did, not what she would do or has done: the keyword list's order stands.
    fuse(turns, "rrf", keyword_weight=1.0, query="What did Caroline write?")
    assert about_a_book.fused > about_herself.fused > his.fused
    # Naming no one, "would" singles out nobody's turns.
    fuse(turns, "rrf", keyword_weight=1.0, query="Would anyone pursue writing?")
    assert about_a_book.fused > his.fused > about_herself.fused


def test_asked_what_a_named_speaker_has_done_their_turns_about_themselves_lead_by_a_smaller_boost() -> None:
    would, has = (boost for _, boost in SELF_STATEMENT_CUES)
    assert would > has > 0
    # Her first-person turn ranks second by keyword, one place behind her other turn: "has" lifts it past.
    about_a_book = turn(1.0, speaker="Caroline", keyword=0.9, text="That book on painting was great.")
    about_herself = turn(1.0, day=1, speaker="Caroline", keyword=0.85, text="I painted a lake last week.")
    his = turn(1.0, day=2, speaker="Melanie", keyword=0.1, text="Nice!")  # a speaker the question leaves out
    turns = [about_a_book, about_herself, his]
    fuse(turns, "rrf", keyword_weight=1.0, query="What has Caroline painted?")
    assert about_herself.fused > about_a_book.fused
    fuse(turns, "rrf", keyword_weight=1.0, query="What did Caroline paint?")
    assert about_a_book.fused > about_herself.fused
