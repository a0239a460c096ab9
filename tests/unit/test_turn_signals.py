"""Conversation turns in fusion: the session list and the speaker a query names (engram.recall.ranking)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from engram.recall.ranking import RRF_K, SESSION_WEIGHT, SPEAKER_BOOST, Candidate, fuse, named_speakers, rank_sessions

CONV = uuid.uuid4()
DAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def turn(terms: dict[str, float] | None, day: int = 0, speaker: str | None = None, keyword: float = 0.5) -> Candidate:
    row = {"importance": 0.5, "conversation_id": CONV, "occurred_at": DAY + timedelta(days=day), "terms": terms}
    return Candidate(row=row, keyword=keyword, speaker=speaker)


def test_a_session_ranks_by_the_query_words_its_turns_hold_together() -> None:
    # Day 0: two turns hold "adoption" and "agency" (one each); day 1: one turn holds both, and "adoption" twice
    # counts once. Day 2's turn holds only a common word.
    a, b = turn({"adoption": 2.0}), turn({"agency": 1.5})
    c = turn({"adoption": 2.0, "agency": 1.5}, day=1)
    d = turn({"went": 0.1}, day=2)
    e = turn(None, day=3)  # no query word of its own (found by its neighbours or its vector)
    rank_sessions([a, b, c, d, e])
    assert (a.session_rank, b.session_rank, c.session_rank) == (1, 1, 1)  # 3.5 each: ties share a rank
    assert d.session_rank == 3  # two sessions hold a higher sum
    assert e.session_rank is None


def test_memories_have_no_session() -> None:
    memory = Candidate(row={"importance": 0.5, "conversation_id": None, "occurred_at": DAY, "terms": None})
    rank_sessions([memory, turn({"x": 1.0})])
    assert memory.session_rank is None


def test_the_session_list_adds_its_weight_to_the_fused_score() -> None:
    alone, together = turn({"x": 1.0}, day=0, keyword=0.9), turn({"y": 1.0, "z": 1.0}, day=1, keyword=0.8)
    fuse([alone, together], "rrf", keyword_weight=1.0)
    # keyword ranks 1 and 2; session ranks 2 and 1
    factor = 1 + 0.1 * 0.0 + 0.1 * 0.5
    assert alone.fused == (1 / (RRF_K + 1) + SESSION_WEIGHT / (RRF_K + 2)) * factor
    assert together.fused == (1 / (RRF_K + 2) + SESSION_WEIGHT / (RRF_K + 1)) * factor


def test_a_named_speaker_is_singled_out_only_when_another_is_not_named() -> None:
    turns = [turn({"x": 1.0}, speaker="Caroline"), turn({"x": 1.0}, speaker="Melanie"), turn(None, speaker=None)]
    assert named_speakers(turns, "What did Caroline research?") == {"Caroline"}
    assert named_speakers(turns, "what did caroline's friend say") == {"Caroline"}
    assert named_speakers(turns, "Did Caroline and Melanie meet?") == set()  # both: neither singled out
    assert named_speakers(turns, "What did Carol say?") == set()  # whole words only
    assert named_speakers(turns, "who went hiking") == set()


def test_a_named_speakers_turns_gain_the_boost() -> None:
    hers, his = turn({"x": 1.0}, speaker="Caroline", keyword=0.9), turn({"x": 1.0}, speaker="Melanie", keyword=0.9)
    fuse([his, hers], "rrf", keyword_weight=1.0, query="When did Caroline paint?")
    assert hers.fused > his.fused
    fuse([his, hers], "rrf", keyword_weight=1.0, query="When did anyone paint?")
    unnamed_his = his.fused
    fuse([his, hers], "rrf", keyword_weight=1.0, query="When did Melanie paint?")
    assert his.fused == unnamed_his * (1 + SPEAKER_BOOST)
