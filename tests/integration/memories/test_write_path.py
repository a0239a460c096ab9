"""The one write path: `memories.service.write_memory` (what memories, documents and consolidation call)
and the one chunk store, on real PostgreSQL."""

from __future__ import annotations

from uuid import UUID

from engram.core.db import tenant_transaction
from engram.core.models import NewMemory
from engram.core.text import content_hash
from engram.memories.service import get_memory, write_memories, write_memory


def _chunks(tenant_id: str, memory_id: UUID) -> list[dict]:
    with tenant_transaction(tenant_id) as conn:
        return conn.execute(
            "SELECT id, namespace, kind, tags, source, position, char_start, text, seq_from, embedding"
            " FROM chunks WHERE memory_id = %s ORDER BY position",
            (memory_id,),
        ).fetchall()


def test_write_memory_stores_row_and_chunks_then_bumps_the_duplicate(tenant) -> None:
    new = NewMemory(
        namespace="writers",
        content="merged: the deploy runs on Tuesdays",
        kind="procedural",
        layer="working",
        importance=0.8,
        tags=["ops"],
        source="consolidation",
    )
    with tenant_transaction(tenant.id) as conn:
        first = write_memory(conn, UUID(tenant.id), new)
    assert first.inserted and len(first.chunk_ids) == 1
    memory = get_memory(UUID(tenant.id), first.id)
    assert (memory.layer, memory.kind, memory.repetition_count) == ("working", "procedural", 0)
    [chunk] = _chunks(tenant.id, first.id)
    assert chunk["id"] == first.chunk_ids[0]
    assert (chunk["namespace"], chunk["kind"], chunk["tags"], chunk["source"]) == (
        "writers",
        "procedural",
        ["ops"],
        "consolidation",
    )
    assert chunk["seq_from"] is None and chunk["embedding"] is None

    with tenant_transaction(tenant.id) as conn:
        again = write_memory(conn, UUID(tenant.id), new)
    assert (again.id, again.inserted, again.chunk_ids) == (first.id, False, [])
    assert get_memory(UUID(tenant.id), first.id).repetition_count == 1


def test_write_memory_chunks_the_given_source_in_order_and_dedupes_on_the_given_hash(tenant) -> None:
    body = "\n\n".join(f"Paragraph {i}: " + "lantern harbor signal " * 40 for i in range(20))
    new = NewMemory(
        namespace="docs",
        content="a synopsis of the body",
        content_hash=content_hash(body),
        chunk_source=body,
        document_tier=1,
    )
    with tenant_transaction(tenant.id) as conn:
        written = write_memory(conn, UUID(tenant.id), new)
    chunks = _chunks(tenant.id, written.id)
    assert len(chunks) > 1 and [c["id"] for c in chunks] == written.chunk_ids
    assert [c["position"] for c in chunks] == list(range(len(chunks)))
    assert "".join(c["text"] for c in chunks) == body  # document mode cuts the source without loss
    assert all(body[c["char_start"] :].startswith(c["text"]) for c in chunks)

    other_synopsis = new.model_copy(update={"content": "another synopsis of the same body"})
    with tenant_transaction(tenant.id) as conn:
        assert not write_memory(conn, UUID(tenant.id), other_synopsis).inserted


def test_write_memories_writes_a_batch_with_each_owners_fields(tenant) -> None:
    long = "\n\n".join(f"Part {i}: " + "copper meadow ledger " * 40 for i in range(12))
    news = [
        NewMemory(namespace="batch", content="first", tags=["a", "b"], source="s1"),
        NewMemory(namespace="batch", content="second", tags=[]),
        NewMemory(namespace="batch", content=long, tags=["c"], kind="episodic"),
        NewMemory(namespace="batch", content="first", tags=["ignored"]),
    ]  # a duplicate of the first
    with tenant_transaction(tenant.id) as conn:
        written = write_memories(conn, UUID(tenant.id), news)
    assert [w.inserted for w in written] == [True, True, True, False]
    assert written[3].id == written[0].id and written[3].chunk_ids == []
    assert len(written[2].chunk_ids) > 1
    expected = {0: (["a", "b"], "s1", "semantic"), 1: ([], None, "semantic"), 2: (["c"], None, "episodic")}
    for i, (tags, source, kind) in expected.items():
        chunks = _chunks(tenant.id, written[i].id)
        assert [c["id"] for c in chunks] == written[i].chunk_ids
        assert all(
            (c["tags"], c["source"], c["kind"], c["namespace"]) == (tags, source, kind, "batch") for c in chunks
        ), i
    assert get_memory(UUID(tenant.id), written[0].id).repetition_count == 1
