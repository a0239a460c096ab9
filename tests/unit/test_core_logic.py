"""Pure pieces of the core library: chunking, fusion, the storable-text rule, cursors, keys."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import pytest
from pydantic import ValidationError

from engram.core.errors import InvalidField
from engram.core.pagination import decode_cursor, encode_cursor
from engram.core.select_lists import field_names
from engram.indexing.chunking import SINGLE_CHUNK_BELOW, chunk_text
from engram.memories.models import MemoryCreate
from engram.recall.models import RecallRequest
from engram.recall.ranking import Candidate, fuse
from engram.recall.rows import CandidateRow
from engram.tenancy.store import _check_scopes, hash_key


def _row(**fields: Any) -> CandidateRow:
    """A candidate row with the fields a test names (the others None)."""
    blank: dict[str, Any] = dict.fromkeys(field_names(CandidateRow))
    return CandidateRow(**(blank | {"importance": 0.5} | fields))


def test_short_text_is_one_chunk_and_long_text_is_cut_at_boundaries():
    assert [c.text for c in chunk_text("one small fact")] == ["one small fact"]
    paragraphs = "\n\n".join(f"Paragraph {i}. " + "word " * 150 for i in range(40))
    chunks = chunk_text(paragraphs)
    assert len(paragraphs) > SINGLE_CHUNK_BELOW and len(chunks) > 5
    assert "".join(c.text for c in chunks) == paragraphs  # nothing lost, nothing repeated
    assert all(paragraphs[c.char_start : c.char_start + len(c.text)] == c.text for c in chunks)
    assert all(1000 <= len(c.text) <= 2000 for c in chunks[:-1])
    assert all(c.text.endswith(("\n\n", " ")) for c in chunks[:-1])  # never mid-word


def _candidate(vector: float | None, keyword: float | None, importance: float = 0.5, recency: float = 1.0) -> Candidate:
    return Candidate(row=_row(importance=importance), vector=vector, keyword=keyword, recency=recency)


@pytest.mark.parametrize("fusion", ["weighted", "rrf"])
def test_a_hit_found_both_ways_outranks_one_found_one_way(fusion):
    both, vec_only, kw_only = _candidate(0.6, 0.3), _candidate(0.6, None), _candidate(None, 0.3)
    fuse([both, vec_only, kw_only], fusion)
    assert both.fused > max(vec_only.fused, kw_only.fused)


def test_importance_and_recency_break_ties():
    a, b, c = (
        _candidate(0.5, None, importance=0.9),
        _candidate(0.5, None, importance=0.1),
        _candidate(0.5, None, importance=0.9, recency=0.1),
    )
    fuse([a, b, c], "weighted")
    assert a.fused > b.fused and a.fused > c.fused


def test_text_postgres_cannot_store_is_refused_with_the_field_name():
    with pytest.raises(ValidationError) as err:
        MemoryCreate(content="fine", metadata={"nested": ["ok", "bad\x00"]})
    assert err.value.errors()[0]["loc"] == ("metadata",)
    with pytest.raises(ValidationError):
        RecallRequest(query="lone \ud800 surrogate")
    assert MemoryCreate(content="unicode is fine: naïve café 日本 🚀").content.endswith("🚀")


def test_cursors_round_trip_and_garbage_is_a_field_error():
    when, row = datetime(2026, 11, 26, 12, 0, tzinfo=UTC), uuid4()
    assert decode_cursor(encode_cursor(when, row)) == (when, row)
    with pytest.raises(InvalidField) as err:
        decode_cursor("not-a-cursor")
    assert err.value.details["field"] == "cursor"


def test_keys_hash_deterministically_and_scopes_are_checked():
    assert hash_key("egk_a_b") == hash_key("egk_a_b") != hash_key("egk_a_c")
    assert _check_scopes(["read", "read", "write"]) == ("read", "write")
    with pytest.raises(InvalidField):
        _check_scopes(["root"])
    with pytest.raises(InvalidField):
        _check_scopes([])
