"""Conflict keys (seed 002's policy): a memory written with a key ("user.city") supersedes the namespace's
current memory with the same key at once, deterministically and without a model. The replacement is a
`supersedes` link written through the graph, which ends the older memory's validity (recall leaves it
out from then on) and which GET /v1/memories/{id}/history shows as the chain.

A value stated again after it was replaced (Paris, then Berlin, then Paris) is the stored Paris memory
(writes deduplicate by content): the link that replaced it ends, which gives it back its validity, and
it supersedes Berlin.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from engram.core.db import Conn
from engram.graph.models import LinkCreate
from engram.graph.service import reinstate, write_links
from engram.memories.store import current_keyed_memories, lock_conflict_key, valid_now


def supersede_by_key(
    conn: Conn, tenant_id: UUID, memory_id: UUID, namespace: str, key: str, later: Sequence[UUID] = ()
) -> list[UUID]:
    """In the writer's transaction: `memory_id` becomes the key's current memory; the ids it replaced.
    `later`: memories a batch writes after this one, which replace it in their turn, not it them."""
    lock_conflict_key(conn, namespace, key)
    if not valid_now(conn, memory_id):
        reinstate(conn, memory_id)
    older = current_keyed_memories(conn, namespace, key, [memory_id, *later])
    write_links(
        conn,
        tenant_id,
        [
            LinkCreate(from_id=memory_id, to_id=old, relation="supersedes", metadata={"conflict_key": key})
            for old in older
        ],
        created_by="api",
    )
    return older
