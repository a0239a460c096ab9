"""The temporal graph: links between memories, traversal, history.

Links are typed and directed ("A supersedes B": from A, to B), hold during [valid_from, valid_to),
and are never lost by accident: deleting a link or trashing a memory ends it (history), and only
an undone consolidation run removes links for good.

Other capabilities write and remove links inside their own tenant transaction (consolidation):

    write_links(conn, tenant_id, links: Sequence[LinkCreate], *, created_by="consolidation",
                run_id: UUID | None = None) -> list[Link]
        All or nothing. Both memories must be active memories of the tenant (else NotFound);
        a self-link or an empty validity is InvalidField; a link overlapping one of the same
        (from, to, relation) is Conflict. On an error the caller's transaction stays usable
        (each insert runs in a savepoint) and nothing of this call is kept. `supersedes` shortens
        the older memory's (to_id) valid_to to the newer one's valid_from, else the link's
        valid_from (default now), in the same transaction; a supersedes link that would close a
        cycle of live supersedes links is Conflict (the cycle in its details). Writers of a
        tenant's supersedes links take turns, so concurrent ones neither deadlock nor together
        make a cycle.

    remove_links(conn, *, link_ids: Sequence[UUID] | None = None, run_id: UUID | None = None) -> list[Link]
        Deletes for good the links given by id and/or written by a run (undo), and gives each
        superseded memory back the valid_to it had, unless that was changed since.

    end_links(conn, link_ids: Sequence[UUID]) -> list[Link]
        Ends live links now, kept as history (what DELETE /v1/links/{id} does); also reverts
        the supersedes effect as remove_links does.

    apply_supersedes(conn, tenant_id, link_ids: Sequence[UUID]) -> None
        For links another capability inserted as they were (an import): each live supersedes
        link among them is checked for a cycle (Conflict naming it, as write_links) and ends
        its older memory as write_links does (an older memory already ended is left as it is).

`LinkCreate` is re-exported here: `from engram.graph.service import LinkCreate, write_links`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import psycopg
from pydantic import ValidationError

from engram.core.config import settings
from engram.core.db import Conn, in_tenant_transaction, tenant_transaction
from engram.core.errors import Conflict, EngramError, InvalidField, NotFound
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.graph import store
from engram.graph.models import (
    MAX_DEPTH,
    MAX_NODES,
    ChainLink,
    CreatedBy,
    Direction,
    Link,
    LinkBatchItemResult,
    LinkBatchResult,
    LinkCreate,
    LinkPage,
    MemoryHistory,
    MemorySummary,
    Traversal,
    TraversalNode,
)
from engram.graph.rows import ChainStep, RootedWalkStep
from engram.graph.shaping import superseded_valid_to, traversal_nodes

__all__ = [
    "apply_supersedes",
    "conflicting_memories",
    "create_link",
    "create_link_batch",
    "delete_link",
    "end_links",
    "history",
    "linked_memories",
    "list_links",
    "reinstate",
    "remove_links",
    "traverse",
    "write_links",
]


def _prepared(spec: LinkCreate, now: datetime) -> LinkCreate:
    """The link as it will be stored (valid_from defaults to now), or InvalidField."""
    if spec.from_id == spec.to_id:
        raise InvalidField("to_id", "a memory cannot be linked to itself")
    if spec.valid_from is None:
        spec = spec.model_copy(update={"valid_from": now})
        if spec.valid_to is not None and spec.valid_to <= now:
            raise InvalidField("valid_to", "must be later than valid_from, which defaults to now")
    assert spec.valid_from is not None
    if spec.valid_to is not None and spec.valid_to <= spec.valid_from:
        raise InvalidField("valid_to", "must be later than valid_from")
    return spec


def write_links(
    conn: Conn,
    tenant_id: UUID,
    links: Sequence[LinkCreate],
    *,
    created_by: CreatedBy = "consolidation",
    run_id: UUID | None = None,
) -> list[Link]:
    """Write links inside the caller's tenant transaction: see the module docstring."""
    if (created_by == "consolidation") != (run_id is not None):
        raise ValueError("consolidation links carry their run_id; API links carry none")
    now = datetime.now(UTC)
    links = [_prepared(spec, now) for spec in links]
    superseded = [s.to_id for s in links if s.relation == "supersedes"]
    if superseded:
        store.lock_supersedes_writers(conn, tenant_id)
    memories = store.lock_active_memories(conn, [i for s in links for i in (s.from_id, s.to_id)], superseded)
    for spec in links:
        for field, memory_id in (("from_id", spec.from_id), ("to_id", spec.to_id)):
            if memory_id not in memories:
                raise NotFound(f"memory {memory_id} not found", {"field": field})
    if not links:
        return []
    try:
        with conn.transaction():  # a savepoint: on a conflict the caller's transaction stays usable
            written = store.insert_links(conn, tenant_id, links, created_by, run_id)
            for spec, link in zip(links, written, strict=True):
                if spec.relation == "supersedes":
                    _refuse_cycle(conn, tenant_id, link.id)
                    _apply_supersedes(conn, link, memories[spec.from_id])
    except (psycopg.errors.UniqueViolation, psycopg.errors.ExclusionViolation) as exc:
        raise Conflict(
            "a link with the same from_id, to_id and relation already holds during this validity",
            {"constraint": "links_no_overlap"},
        ) from exc
    except psycopg.errors.ForeignKeyViolation as exc:  # a memory vanished under us: never say whose
        raise NotFound("memory not found") from exc
    return written


def _refuse_cycle(conn: Conn, tenant_id: UUID, link_id: UUID) -> None:
    """A memory cannot, through supersedes links, replace itself: each would end the other."""
    cycle = store.supersedes_cycle(conn, tenant_id, link_id)
    if cycle is not None:
        names = " supersedes ".join(str(m) for m in cycle)
        raise Conflict(
            f"supersedes links would form a cycle: {names}",
            {"constraint": "supersedes_acyclic", "cycle": [str(m) for m in cycle]},
        )


def _apply_supersedes(conn: Conn, link: Link, newer: store.MemoryValidity) -> None:
    """The older memory (to_id) stops being valid when the newer one (from_id) starts."""
    older = store.memory_validity(conn, link.to_id)
    if older is None:
        return
    starts = newer.valid_from or link.valid_from
    new_valid_to = superseded_valid_to(older.valid_from, older.valid_to, starts)
    if new_valid_to is not None:
        store.record_supersession(conn, link.id, link.to_id, older.valid_to, new_valid_to)


def apply_supersedes(conn: Conn, tenant_id: UUID, link_ids: Sequence[UUID]) -> None:
    """The rules of write_links for supersedes links already inserted: see the module docstring."""
    order = {link_id: n for n, link_id in enumerate(link_ids)}
    found = sorted(store.find_links(conn, link_ids=link_ids), key=lambda link: order[link.id])
    live = [link for link in found if link.relation == "supersedes" and link.ended_at is None]
    if not live:
        return
    store.lock_supersedes_writers(conn, tenant_id)
    for link in live:
        _refuse_cycle(conn, tenant_id, link.id)
        newer = store.memory_validity(conn, link.from_id)
        if newer is not None:
            _apply_supersedes(conn, link, newer)


def remove_links(conn: Conn, *, link_ids: Sequence[UUID] | None = None, run_id: UUID | None = None) -> list[Link]:
    """Delete links for good (undo of a consolidation run): see the module docstring."""
    if link_ids is None and run_id is None:
        raise ValueError("give link_ids, run_id or both")
    ids = [link.id for link in store.find_links(conn, link_ids=link_ids, run_id=run_id)]
    store.revert_supersessions(conn, ids)
    return store.delete_links(conn, ids)


def end_links(conn: Conn, link_ids: Sequence[UUID]) -> list[Link]:
    """End live links now, keeping them as history: see the module docstring."""
    store.revert_supersessions(conn, link_ids)
    return store.end_links(conn, link_ids, "link_deleted")


def reinstate(conn: Conn, memory_id: UUID) -> list[Link]:
    """A superseded fact stated again (a conflict key's value back to an earlier one): the live supersedes
    links that replaced it end as end_links does, which gives it back its validity."""
    return end_links(conn, store.live_supersessions_of(conn, memory_id))


# The API: each call is one tenant transaction.


def create_link(tenant_id: UUID, req: LinkCreate, idempotency: IdempotencyKey | None = None) -> Link:
    def write(conn: Conn) -> Link:
        if (first := replay(conn, idempotency, Link)) is not None:
            return first
        link = write_links(conn, tenant_id, [req], created_by="api")[0]
        remember(conn, idempotency, link)
        return link

    return in_tenant_transaction(tenant_id, write)


def _error_body(exc: ValidationError | EngramError) -> dict[str, Any]:
    """One batch item's error, in the same envelope a single request would get."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        exc = InvalidField(
            ".".join(str(p) for p in first["loc"]) or "item", str(first["msg"]).removeprefix("Value error, ")
        )
    return {"code": exc.code, "message": exc.message, "details": exc.details}


def create_link_batch(
    tenant_id: UUID, items: list[dict[str, Any]], idempotency: IdempotencyKey | None = None
) -> LinkBatchResult:
    """Up to max_batch_items, as /v1/memories/batch: each item lands or fails on its own, in one
    transaction (a failing item rolls back to its savepoint)."""
    limit = settings().max_batch_items
    if len(items) > limit:
        raise InvalidField("items", f"at most {limit} items per batch, got {len(items)}", limit=limit)
    results: dict[int, LinkBatchItemResult] = {}
    valid: dict[int, LinkCreate] = {}
    now = datetime.now(UTC)
    for index, raw in enumerate(items):
        try:
            valid[index] = _prepared(LinkCreate.model_validate(raw), now)
        except (ValidationError, InvalidField) as exc:
            valid.pop(index, None)
            results[index] = LinkBatchItemResult(index=index, status="error", error=_error_body(exc))

    def write(conn: Conn) -> LinkBatchResult:
        if (first := replay(conn, idempotency, LinkBatchResult)) is not None:
            return first
        written = dict(results)
        try:  # the common case, every item good: one statement for all
            links = write_links(conn, tenant_id, list(valid.values()), created_by="api")
            written.update(
                {
                    i: LinkBatchItemResult(index=i, status="created", link=link)
                    for i, link in zip(valid, links, strict=True)
                }
            )
        except (NotFound, Conflict):  # then item by item, each in its own savepoint
            for index, spec in valid.items():
                try:
                    link = write_links(conn, tenant_id, [spec], created_by="api")[0]
                except (NotFound, Conflict) as exc:
                    written[index] = LinkBatchItemResult(index=index, status="error", error=_error_body(exc))
                    continue
                written[index] = LinkBatchItemResult(index=index, status="created", link=link)
        ordered = [written[i] for i in sorted(written)]
        created = sum(r.status == "created" for r in ordered)
        result = LinkBatchResult(results=ordered, created=created, failed=len(ordered) - created)
        remember(conn, idempotency, result)
        return result

    return in_tenant_transaction(tenant_id, write)


def delete_link(tenant_id: UUID, link_id: UUID) -> Link:
    """End a link now (it stays as history); 404 when it does not exist or has ended already."""
    # The UPDATE decides, under the row lock: a link ended by a concurrent request is a 404 (the
    # raise rolls back anything done before), not an empty result read as a link.
    ended = in_tenant_transaction(tenant_id, lambda conn: end_links(conn, [link_id]))
    if not ended:
        raise NotFound(f"link {link_id} not found")
    return ended[0]


def list_links(
    tenant_id: UUID,
    *,
    memory_id: UUID | None = None,
    relations: Sequence[str] | None = None,
    direction: Direction = "both",
    include_ended: bool = False,
    cursor: str | None = None,
    limit: int = 50,
) -> LinkPage:
    with tenant_transaction(tenant_id) as conn:
        links, next_cursor = store.list_links(
            conn,
            memory_id=memory_id,
            relations=relations,
            direction=direction,
            include_ended=include_ended,
            cursor=cursor,
            limit=limit,
        )
    return LinkPage(items=links, next_cursor=next_cursor)


def _root(conn: Conn, memory_id: UUID) -> MemorySummary:
    found = store.memory_summaries(conn, [memory_id])
    if memory_id not in found:
        raise NotFound(f"memory {memory_id} not found")
    return found[memory_id]


def traverse(
    tenant_id: UUID,
    memory_id: UUID,
    *,
    depth: int = 1,
    direction: Direction = "both",
    relations: Sequence[str] | None = None,
    as_of: datetime | None = None,
    limit: int = 100,
) -> Traversal:
    """Memories reachable from one memory through links valid at as_of (default now)."""
    if not 1 <= depth <= MAX_DEPTH:
        raise InvalidField("depth", f"must be between 1 and {MAX_DEPTH}", limit=MAX_DEPTH)
    if not 1 <= limit <= MAX_NODES:
        raise InvalidField("limit", f"must be between 1 and {MAX_NODES}", limit=MAX_NODES)
    at = as_of or datetime.now(UTC)
    if at.tzinfo is None:  # an instant without an offset is UTC
        at = at.replace(tzinfo=UTC)
    with tenant_transaction(tenant_id) as conn:
        root = _root(conn, memory_id)
        rows = store.walk(
            conn, tenant_id, memory_id, depth=depth, direction=direction, relations=relations, as_of=at, limit=limit
        )
    nodes, truncated = traversal_nodes(memory_id, rows, limit)
    return Traversal(root=root, nodes=nodes, truncated=truncated, as_of=at)


def history(tenant_id: UUID, memory_id: UUID) -> MemoryHistory:
    """Every version of a memory, and what it replaced and what replaced it, oldest first."""
    with tenant_transaction(tenant_id) as conn:
        current = store.current_version(conn, memory_id)
        if current is None:
            raise NotFound(f"memory {memory_id} not found")
        # A version at or past the current one belongs to a change that was undone (a consolidation
        # run put the row back): the memory never had it as a past.
        versions = [
            *(v for v in store.previous_versions(conn, memory_id) if v.version < current.version),
            current,
        ]
        older = store.supersession_chain(conn, tenant_id, memory_id, newer=False)
        newer = store.supersession_chain(conn, tenant_id, memory_id, newer=True)

    def chain(steps: list[ChainStep]) -> list[ChainLink]:
        return [ChainLink(memory=s.memory, link=s.link) for s in steps]

    return MemoryHistory(
        memory_id=memory_id,
        versions=versions,
        supersedes=chain(older[::-1]),
        superseded_by=chain(newer),
    )


# Recall: links of many results at once, inside recall's transaction.


def linked_memories(
    conn: Conn,
    tenant_id: UUID,
    memory_ids: Sequence[UUID],
    *,
    relations: Sequence[str] | None,
    depth: int,
    as_of: datetime,
    include_expired: bool = False,
    limit_per_memory: int,
) -> dict[UUID, list[TraversalNode]]:
    """For each memory, what its links (either way) valid at as_of reach within `depth`, through
    memories valid at as_of (include_expired: or since expired), as recall reads memories: one
    query for all."""
    if not memory_ids:
        return {}
    rows = store.walk_many(
        conn,
        tenant_id,
        memory_ids,
        depth=depth,
        direction="both",
        relations=relations,
        as_of=as_of,
        include_expired=include_expired,
        limit=limit_per_memory,
    )
    by_root: dict[UUID, list[RootedWalkStep]] = {}
    for step in rows:
        by_root.setdefault(step.root, []).append(step)
    return {root: traversal_nodes(root, found, limit_per_memory)[0] for root, found in by_root.items()}


def conflicting_memories(
    conn: Conn,
    tenant_id: UUID,
    memory_ids: Sequence[UUID],
    as_of: datetime,
    include_expired: bool = False,
) -> dict[UUID, list[ChainLink]]:
    """For each memory, the active memories linked to it by `contradicts` (either way) at as_of and
    valid then (include_expired: or since expired)."""
    if not memory_ids:
        return {}
    found: dict[UUID, list[ChainLink]] = {}
    for c in store.conflicts(conn, tenant_id, memory_ids, as_of, include_expired):
        found.setdefault(c.subject, []).append(ChainLink(memory=c.memory, link=c.link))
    return found
