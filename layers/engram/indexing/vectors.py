"""Embedding spaces and chunk vectors.

Exactly one (model, dimension) space is active. Vectors are stored in an untyped `vector`
column with the model id beside them; each dimension gets an HNSW index over a halfvec
expression (half the memory, same recall at these sizes), partial on that dimension, so a
model change leaves old vectors in place until they are re-embedded: nothing is destroyed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, tuple_row

from engram.adapters.embeddings.base import Embedder
from engram.core.db import Conn, tenant_transaction
from engram.core.select_lists import select_list


@dataclass(frozen=True)
class EmbeddingSpace:
    model_id: str
    dimension: int


class EmbeddingSpaceMismatch(RuntimeError):
    """The configured embedder is not the active space: re-embedding must be asked for."""


def vector_literal(values: Sequence[float]) -> str:
    """pgvector's text form; parsed server-side by the ::vector cast."""
    return "[" + ",".join(f"{float(x):.7g}" for x in values) + "]"


def parse_vector(text: str) -> list[float]:
    return [float(x) for x in text.strip("[]").split(",")] if text and text != "[]" else []


def hnsw_index_name(dimension: int) -> str:
    return f"chunks_embedding_hnsw_{int(dimension)}"


_space_cache: tuple[float, EmbeddingSpace | None] | None = None
SPACE_CACHE_SECONDS = 60.0


def cached_active_space(conn: Conn) -> EmbeddingSpace | None:
    """The active space, re-read at most once a minute: it changes only on a deliberate switch."""
    global _space_cache
    now = time.monotonic()
    if _space_cache is None or now - _space_cache[0] > SPACE_CACHE_SECONDS or _space_cache[1] is None:
        _space_cache = (now, active_space(conn))
    return _space_cache[1]


def hnsw_index_sql(dimension: int) -> sql.Composed:
    """The shared HNSW graph of one dimension (partial on it), as the service and the benches build it.

    ef_construction 128, not pgvector's 64: with 64, a 300k-chunk table of clustered vectors built a
    graph in which some clusters could not be reached from the entry point (a query's recall@40 0.025
    whatever ef_search; mean 0.93), with 128 none (min 0.95, mean 0.986). It costs build and insert
    time (100 s against ~60 s for 300k rows on 2 cores), not query time. An index built before keeps
    its graph until `REINDEX INDEX CONCURRENTLY` (migration 0017 set its ef_construction to 128)."""
    return sql.SQL(
        "CREATE INDEX IF NOT EXISTS {name} ON chunks USING hnsw ((embedding::halfvec({d})) halfvec_cosine_ops)"
        " WITH (m = 16, ef_construction = 128) WHERE embedding_dim = {d}"
    ).format(name=sql.Identifier(hnsw_index_name(dimension)), d=sql.Literal(int(dimension)))


def ensure_embedding_space(owner: Conn, model_id: str, dimension: int, activate: bool = False) -> EmbeddingSpace:
    """Register the space (owner connection). The first one becomes active; switching needs activate."""
    dimension = int(dimension)
    active = active_space(owner)
    if active and active.model_id != model_id and not activate:
        raise EmbeddingSpaceMismatch(
            f"the database holds vectors of {active.model_id} ({active.dimension}-d); "
            f"the embedder is {model_id} ({dimension}-d). Run `engram embedding-space --activate` "
            "to switch on purpose, then `engram backfill` to re-embed."
        )
    owner.execute(
        "INSERT INTO embedding_spaces (model_id, dimension) VALUES (%s, %s) ON CONFLICT (model_id) DO NOTHING",
        (model_id, dimension),
    )
    if activate or not active:
        owner.execute("UPDATE embedding_spaces SET active = false WHERE active AND model_id <> %s", (model_id,))
        owner.execute("UPDATE embedding_spaces SET active = true WHERE model_id = %s", (model_id,))
    owner.execute(hnsw_index_sql(dimension))
    owner.commit()
    global _space_cache
    _space_cache = None
    return EmbeddingSpace(model_id, dimension)


def active_space(conn: Conn) -> EmbeddingSpace | None:
    query = sql.SQL("SELECT {} FROM embedding_spaces WHERE active").format(select_list(EmbeddingSpace))
    return conn.cursor(row_factory=class_row(EmbeddingSpace)).execute(query).fetchone()


def embed_chunks(tenant_id: UUID | str, chunk_ids: Sequence[UUID | str], embedder: Embedder) -> int:
    """Fill the vectors of these chunks that still need one; return how many were written.

    Idempotent: a redelivered job finds its chunks done and writes nothing. Chunks deleted
    since the job was sent are skipped.
    """
    with tenant_transaction(tenant_id) as conn:
        # Cached: the worker settles every record of a batch through here. A switch made by another
        # process is seen within a minute; vectors written meanwhile carry the old model id, so
        # recall ignores them and backfill re-embeds them: nothing is mixed.
        space = cached_active_space(conn)
        if space is None or space.model_id != embedder.model_id:
            raise EmbeddingSpaceMismatch(
                f"active space is {space}, embedder is {embedder.model_id}: refusing to mix vectors"
            )
        rows: list[tuple[UUID, str]] = (
            conn.cursor(row_factory=tuple_row)
            .execute(
                "SELECT id, text FROM chunks WHERE id = ANY(%s::uuid[])"
                " AND (embedding IS NULL OR model_id IS DISTINCT FROM %s)",
                ([str(c) for c in chunk_ids], space.model_id),
            )
            .fetchall()
        )
    if not rows:
        return 0
    vectors = embedder.embed([text for _, text in rows])  # outside the transaction: no lock held
    with tenant_transaction(tenant_id) as conn, conn.cursor() as writer:
        writer.executemany(
            "UPDATE chunks SET embedding = %s::vector, embedding_dim = %s, model_id = %s, embedded_at = now()"
            " WHERE id = %s",
            [
                (vector_literal(v), space.dimension, space.model_id, chunk_id)
                for (chunk_id, _), v in zip(rows, vectors, strict=True)
            ],
        )
    return len(rows)


@dataclass(frozen=True)
class PendingChunk:
    tenant_id: UUID
    id: UUID


def pending_chunks(
    owner: Conn, model_id: str, limit: int = 100_000, tenant_id: UUID | str | None = None
) -> list[PendingChunk]:
    """Chunks without a vector of the active model (owner connection, for backfill): every
    tenant's, or one tenant's."""
    query = sql.SQL(
        "SELECT {} FROM chunks WHERE (embedding IS NULL OR model_id IS DISTINCT FROM %s)"
        " AND (%s::uuid IS NULL OR tenant_id = %s::uuid) ORDER BY tenant_id, created_at LIMIT %s"
    ).format(select_list(PendingChunk))
    cur = owner.cursor(row_factory=class_row(PendingChunk))
    return cur.execute(query, (model_id, tenant_id, tenant_id, limit)).fetchall()
