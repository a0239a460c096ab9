"""The SQL of the graph: functions that take the caller's connection (a tenant transaction)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, kwargs_row, scalar_row

from engram.core.db import Conn
from engram.core.pagination import newest_first
from engram.core.select_lists import select_list
from engram.graph.models import (
    SUMMARY_CHARS,
    CreatedBy,
    Direction,
    EndedReason,
    Link,
    LinkCreate,
    MemorySummary,
    MemoryVersion,
)
from engram.graph.rows import LINK_PREFIX, NESTED, ChainStep, ConflictRow, RootedWalkStep, WalkStep

LINK_COLUMNS = select_list(Link, "l")
SUMMARY_COLUMNS = select_list(
    MemorySummary,
    "m",
    expressions={
        "summary": sql.SQL("left(m.content, {})").format(sql.Literal(SUMMARY_CHARS)),
        "truncated": sql.SQL("length(m.content) > {}").format(sql.Literal(SUMMARY_CHARS)),
    },
)
# A memory's summary and a link in one row (graph.rows.MemoryAndLink splits them again).
SUMMARY_AND_LINK = sql.SQL("{}, {}").format(SUMMARY_COLUMNS, select_list(Link, "l", prefix=LINK_PREFIX))


@dataclass(frozen=True)
class MemoryValidity:
    id: UUID
    valid_from: datetime | None
    valid_to: datetime | None


_VALIDITY = select_list(MemoryValidity)


def lock_active_memories(conn: Conn, ids: Sequence[UUID], to_update: Sequence[UUID]) -> dict[UUID, MemoryValidity]:
    """The active memories among `ids` this tenant can see (row-level security hides the others),
    with their validity: locked, so a concurrent delete waits for us. The rows this transaction
    will update (`to_update`) are locked first, with the lock the UPDATE takes, then the others
    FOR SHARE, each set in id order: a shared lock later raised to an update lock is how two
    writers each end up waiting for the other."""
    updated = sorted(set(to_update))
    shared = sorted(set(ids) - set(updated))
    cur = conn.cursor(row_factory=class_row(MemoryValidity))
    active = sql.SQL("SELECT {} FROM memories WHERE id = ANY(%s) AND status = 'active' ORDER BY id").format(_VALIDITY)
    rows = cur.execute(sql.SQL("{} FOR NO KEY UPDATE").format(active), (updated,)).fetchall()
    rows += cur.execute(sql.SQL("{} FOR SHARE").format(active), (shared,)).fetchall()
    return {r.id: r for r in rows}


def lock_supersedes_writers(conn: Conn, tenant_id: UUID) -> None:
    """Writers of a tenant's supersedes links take turns (until commit), so each checks for a
    cycle seeing the links the others committed."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('engram.supersedes:' || %s::text, 0))", (tenant_id,))


def supersedes_cycle(conn: Conn, tenant_id: UUID, link_id: UUID) -> list[UUID] | None:
    """The memories of a cycle of live supersedes links through this link (its from_id first and
    last), or None. Followed from the link's to_id, newer to older, cycle-safe."""
    cur = conn.cursor(row_factory=scalar_row)
    path: list[UUID] | None = cur.execute(
        "WITH RECURSIVE start AS (SELECT from_id, to_id FROM links WHERE id = %(link)s),"
        " chain(node, path) AS ("
        "  SELECT s.to_id, ARRAY[s.from_id, s.to_id] FROM start s"
        "  UNION ALL"
        "  SELECT l.to_id, c.path || l.to_id FROM chain c JOIN links l"
        "   ON l.tenant_id = %(tenant)s AND l.from_id = c.node AND l.relation = 'supersedes' AND l.ended_at IS NULL"
        # a path ends when it is back at the start; no other memory is entered twice
        "  WHERE c.node <> c.path[1] AND (l.to_id = c.path[1] OR NOT l.to_id = ANY(c.path)))"
        " SELECT c.path FROM chain c WHERE c.node = c.path[1] ORDER BY cardinality(c.path) LIMIT 1",
        {"link": link_id, "tenant": tenant_id},
    ).fetchone()
    return path


def insert_links(
    conn: Conn,
    tenant_id: UUID,
    specs: Sequence[LinkCreate],
    created_by: CreatedBy,
    run_id: UUID | None,
) -> list[Link]:
    """Insert links in one statement; they come back in the order of `specs`."""
    links = (
        conn.cursor(row_factory=class_row(Link))
        .execute(
            sql.SQL(
                "WITH new AS (SELECT * FROM unnest(%s::uuid[], %s::uuid[], %s::text[], %s::real[], %s::timestamptz[],"
                " %s::timestamptz[], %s::jsonb[]) WITH ORDINALITY"
                " AS n(from_id, to_id, relation, strength, valid_from, valid_to, metadata, ord)),"
                " ins AS (INSERT INTO links AS l (tenant_id, from_id, to_id, relation, strength, valid_from, valid_to,"
                " metadata, created_by, run_id) SELECT %s, from_id, to_id, relation, strength,"
                " COALESCE(valid_from, now()), valid_to, metadata, %s, %s FROM new ORDER BY ord RETURNING {})"
                # valid_from is part of the key: two links of one triple in one call cannot share it (overlap)
                " SELECT ins.* FROM ins JOIN new ON (new.from_id, new.to_id, new.relation)"
                " = (ins.from_id, ins.to_id, ins.relation) AND COALESCE(new.valid_from, now()) = ins.valid_from"
                " ORDER BY new.ord"
            ).format(LINK_COLUMNS),
            (
                [s.from_id for s in specs],
                [s.to_id for s in specs],
                [s.relation for s in specs],
                [s.strength for s in specs],
                [s.valid_from for s in specs],
                [s.valid_to for s in specs],
                [json.dumps(s.metadata) for s in specs],
                tenant_id,
                created_by,
                run_id,
            ),
        )
        .fetchall()
    )
    assert len(links) == len(specs)
    return links


def memory_validity(conn: Conn, memory_id: UUID) -> MemoryValidity | None:
    """As it is now in this transaction (an earlier link of the same batch may have changed it)."""
    query = sql.SQL("SELECT {} FROM memories WHERE id = %s").format(_VALIDITY)
    return conn.cursor(row_factory=class_row(MemoryValidity)).execute(query, (memory_id,)).fetchone()


def record_supersession(
    conn: Conn, link_id: UUID, older_id: UUID, before: datetime | None, new_valid_to: datetime
) -> None:
    """Shorten the older memory's validity and remember, on the link, what it was."""
    conn.execute("UPDATE memories SET valid_to = %s, updated_at = now() WHERE id = %s", (new_valid_to, older_id))
    conn.execute(
        "UPDATE links SET supersede_applied = true, superseded_valid_to_before = %s,"
        " superseded_valid_to_set = %s WHERE id = %s",
        (before, new_valid_to, link_id),
    )


def revert_supersessions(conn: Conn, link_ids: Sequence[UUID]) -> None:
    """Give older memories back the valid_to these links took, unless it was changed since."""
    conn.execute(
        "UPDATE memories m SET valid_to = l.superseded_valid_to_before, updated_at = now() FROM links l"
        " WHERE l.id = ANY(%s) AND l.supersede_applied AND m.id = l.to_id"
        " AND m.valid_to IS NOT DISTINCT FROM l.superseded_valid_to_set",
        (list(link_ids),),
    )


def live_supersessions_of(conn: Conn, memory_id: UUID) -> list[UUID]:
    """The live supersedes links that replace this memory (to it)."""
    cur = conn.cursor(row_factory=scalar_row)
    return cur.execute(
        "SELECT id FROM links WHERE to_id = %s AND relation = 'supersedes' AND ended_at IS NULL ORDER BY id",
        (memory_id,),
    ).fetchall()


def end_links(conn: Conn, link_ids: Sequence[UUID], reason: EndedReason) -> list[Link]:
    """End live links now, keeping them as history (their validity stops at now)."""
    return (
        conn.cursor(row_factory=class_row(Link))
        .execute(
            sql.SQL(
                "UPDATE links AS l SET ended_at = now(), ended_reason = %s, valid_to_before_end = l.valid_to,"
                " valid_to = GREATEST(l.valid_from, LEAST(COALESCE(l.valid_to, 'infinity'), now()))"
                " WHERE l.id = ANY(%s) AND l.ended_at IS NULL RETURNING {}"
            ).format(LINK_COLUMNS),
            (reason, list(link_ids)),
        )
        .fetchall()
    )


def find_links(conn: Conn, *, link_ids: Sequence[UUID] | None = None, run_id: UUID | None = None) -> list[Link]:
    """Links by id, by the consolidation run that wrote them, or both (no condition: none)."""
    clauses: list[sql.Composable] = []
    params: list[Any] = []
    if link_ids is not None:
        clauses.append(sql.SQL("l.id = ANY(%s)"))
        params.append(list(link_ids))
    if run_id is not None:
        clauses.append(sql.SQL("l.run_id = %s"))
        params.append(run_id)
    if not clauses:
        return []
    return (
        conn.cursor(row_factory=class_row(Link))
        .execute(
            sql.SQL("SELECT {} FROM links l WHERE {}").format(LINK_COLUMNS, sql.SQL(" AND ").join(clauses)), params
        )
        .fetchall()
    )


def delete_links(conn: Conn, link_ids: Sequence[UUID]) -> list[Link]:
    """Remove links for good (an undone consolidation run)."""
    return (
        conn.cursor(row_factory=class_row(Link))
        .execute(
            sql.SQL("DELETE FROM links AS l WHERE l.id = ANY(%s) RETURNING {}").format(LINK_COLUMNS), (list(link_ids),)
        )
        .fetchall()
    )


def list_links(
    conn: Conn,
    *,
    memory_id: UUID | None,
    relations: Sequence[str] | None,
    direction: Direction,
    include_ended: bool,
    cursor: str | None,
    limit: int,
) -> tuple[list[Link], str | None]:
    """Newest first, keyset-paginated on (created_at, id)."""
    ends = {"out": "l.from_id = %s", "in": "l.to_id = %s", "both": "(l.from_id = %s OR l.to_id = %s)"}
    end_values = None if memory_id is None else (memory_id,) * (2 if direction == "both" else 1)
    return newest_first(
        conn,
        Link,
        select=sql.SQL("SELECT {} FROM links l").format(LINK_COLUMNS),
        filters=[
            (ends[direction], end_values),
            ("l.relation = ANY(%s)", list(relations or [])),
            ("l.ended_at IS NULL AND (l.valid_to IS NULL OR l.valid_to > now())", not include_ended),
        ],
        cursor=cursor,
        limit=limit,
        alias="l",
    )


def memory_summaries(conn: Conn, ids: Sequence[UUID], *, active_only: bool = True) -> dict[UUID, MemorySummary]:
    status = sql.SQL("AND m.status = 'active'") if active_only else sql.SQL("")
    cur = conn.cursor(row_factory=class_row(MemorySummary))
    rows = cur.execute(
        sql.SQL("SELECT {} FROM memories m WHERE m.id = ANY(%s) {}").format(SUMMARY_COLUMNS, status), (list(ids),)
    ).fetchall()
    return {r.id: r for r in rows}


# A memory valid at %(as_of)s, as recall reads memories: valid_from (or, without one, the creation
# time) <= as_of < valid_to; %(include_expired)s drops the upper bound.
MEMORY_VALID_AT = sql.SQL(
    "COALESCE(m.valid_from, m.created_at) <= %(as_of)s"
    " AND (%(include_expired)s OR m.valid_to IS NULL OR m.valid_to > %(as_of)s)"
)


def _steps(direction: Direction, relations: Sequence[str] | None) -> sql.Composable:
    """One hop from the frontier memory f.id: the links valid at as_of, in the asked direction(s)."""
    relation = sql.SQL(" AND l.relation = ANY(%(relations)s)") if relations else sql.SQL("")
    valid = sql.SQL(" AND l.valid_from <= %(as_of)s AND (l.valid_to IS NULL OR l.valid_to > %(as_of)s)")
    out = sql.SQL(
        "SELECT l.to_id AS node, l.from_id AS parent, l.id AS edge, l.strength FROM links l"
        " WHERE l.tenant_id = %(tenant)s AND l.from_id = f.id{}{}"
    ).format(relation, valid)
    into = sql.SQL(
        "SELECT l.from_id AS node, l.to_id AS parent, l.id AS edge, l.strength FROM links l"
        " WHERE l.tenant_id = %(tenant)s AND l.to_id = f.id{}{}"
    ).format(relation, valid)
    return {"out": out, "in": into, "both": sql.SQL("{} UNION ALL {}").format(out, into)}[direction]


def walk_sql(
    root: sql.Composable, direction: Direction, relations: Sequence[str] | None, *, memories_valid: bool = False
) -> sql.Composable:
    """Breadth-first walk from `root` in one recursive query, one row per level.

    Each level row carries the memories first reached at that level, the memory each was reached
    from, and the link used; `visited` carries every memory seen so far, so a cycle can never be
    walked twice and a memory reachable by many paths is reported once, at its smallest depth
    (strongest link first). The walk stops at %(depth)s levels, or one memory past %(limit)s (so
    the caller can tell the limit cut it short). Deleted memories are never entered; with
    `memories_valid` (recall), neither are memories not valid at %(as_of)s (MEMORY_VALID_AT).
    """
    validity = sql.SQL(" AND {}").format(MEMORY_VALID_AT) if memories_valid else sql.SQL("")
    return sql.SQL(
        "WITH RECURSIVE walk(depth, frontier, visited, nodes, parents, edges) AS ("
        " SELECT 0, ARRAY[{root}]::uuid[], ARRAY[{root}]::uuid[], '{{}}'::uuid[], '{{}}'::uuid[], '{{}}'::uuid[]"
        " UNION ALL"
        " SELECT w.depth + 1, x.nodes, w.visited || x.nodes, x.nodes, x.parents, x.edges"
        " FROM walk w CROSS JOIN LATERAL ("
        "  SELECT array_agg(s.node ORDER BY s.strength DESC, s.edge) AS nodes,"
        "   array_agg(s.parent ORDER BY s.strength DESC, s.edge) AS parents,"
        "   array_agg(s.edge ORDER BY s.strength DESC, s.edge) AS edges"
        "  FROM (SELECT n.* FROM ("
        "    SELECT DISTINCT ON (step.node) step.node, step.parent, step.edge, step.strength"
        "    FROM unnest(w.frontier) AS f(id) CROSS JOIN LATERAL ({steps}) step"
        "    JOIN memories m ON m.id = step.node AND m.status = 'active'{validity}"
        "    WHERE step.node <> ALL (w.visited)"
        "    ORDER BY step.node, step.strength DESC, step.edge) n"
        "   ORDER BY n.strength DESC, n.edge"
        "   LIMIT GREATEST(%(limit)s + 2 - cardinality(w.visited), 0)) s"
        " ) x"
        " WHERE w.depth < %(depth)s AND cardinality(w.visited) <= %(limit)s + 1 AND x.nodes IS NOT NULL)"
        " SELECT w.depth, t.node, t.parent, t.edge, t.ord FROM walk w"
        " CROSS JOIN LATERAL unnest(w.nodes, w.parents, w.edges) WITH ORDINALITY AS t(node, parent, edge, ord)"
        " WHERE w.depth > 0"
    ).format(root=root, steps=_steps(direction, relations), validity=validity)


def walk(
    conn: Conn,
    tenant_id: UUID,
    root: UUID,
    *,
    depth: int,
    direction: Direction,
    relations: Sequence[str] | None,
    as_of: datetime,
    limit: int,
) -> list[WalkStep]:
    """The walk from one memory with each reached memory's summary and the link that reached it."""
    query = sql.SQL(
        "SELECT {step}, {summary_and_link} FROM ({walk}) r"
        " JOIN memories m ON m.id = r.node JOIN links l ON l.id = r.edge ORDER BY r.depth, r.ord"
    ).format(
        step=select_list(WalkStep, "r", leave_out=NESTED),
        summary_and_link=SUMMARY_AND_LINK,
        walk=walk_sql(sql.SQL("%(root)s::uuid"), direction, relations),
    )
    return (
        conn.cursor(row_factory=kwargs_row(WalkStep.from_columns))
        .execute(
            query,
            {
                "root": root,
                "tenant": tenant_id,
                "depth": depth,
                "limit": limit,
                "as_of": as_of,
                "relations": list(relations or []),
            },
        )
        .fetchall()
    )


def walk_many(
    conn: Conn,
    tenant_id: UUID,
    roots: Sequence[UUID],
    *,
    depth: int,
    direction: Direction,
    relations: Sequence[str] | None,
    as_of: datetime,
    include_expired: bool,
    limit: int,
) -> list[RootedWalkStep]:
    """The same walk from each of several memories, in one query (recall expansion): only through
    memories valid at as_of, as recall's results are."""
    query = sql.SQL(
        "SELECT {step}, {summary_and_link}"
        " FROM unnest(%(roots)s::uuid[]) AS r0(root) CROSS JOIN LATERAL ({walk}) r"
        " JOIN memories m ON m.id = r.node JOIN links l ON l.id = r.edge ORDER BY r0.root, r.depth, r.ord"
    ).format(
        step=select_list(RootedWalkStep, "r", leave_out=NESTED, expressions={"root": sql.SQL("r0.root")}),
        summary_and_link=SUMMARY_AND_LINK,
        walk=walk_sql(sql.SQL("r0.root"), direction, relations, memories_valid=True),
    )
    return (
        conn.cursor(row_factory=kwargs_row(RootedWalkStep.from_columns))
        .execute(
            query,
            {
                "roots": list(roots),
                "tenant": tenant_id,
                "depth": depth,
                "limit": limit,
                "as_of": as_of,
                "include_expired": include_expired,
                "relations": list(relations or []),
            },
        )
        .fetchall()
    )


def conflicts(
    conn: Conn, tenant_id: UUID, ids: Sequence[UUID], as_of: datetime, include_expired: bool
) -> list[ConflictRow]:
    """`contradicts` links, either way, between each of `ids` and another active memory valid at as_of."""
    return (
        conn.cursor(row_factory=kwargs_row(ConflictRow.from_columns))
        .execute(
            sql.SQL(
                "SELECT {subject}, {summary_and_link} FROM ("
                " SELECT l.from_id AS subject, l.to_id AS other, l.id AS edge FROM links l"
                "  WHERE l.tenant_id = %(tenant)s AND l.from_id = ANY(%(ids)s) AND l.relation = 'contradicts'"
                "  AND l.valid_from <= %(as_of)s AND (l.valid_to IS NULL OR l.valid_to > %(as_of)s)"
                " UNION ALL"
                " SELECT l.to_id, l.from_id, l.id FROM links l"
                "  WHERE l.tenant_id = %(tenant)s AND l.to_id = ANY(%(ids)s) AND l.relation = 'contradicts'"
                "  AND l.valid_from <= %(as_of)s AND (l.valid_to IS NULL OR l.valid_to > %(as_of)s)) c"
                " JOIN memories m ON m.id = c.other AND m.status = 'active' AND {valid}"
                " JOIN links l ON l.id = c.edge ORDER BY c.subject, l.strength DESC, l.id"
            ).format(
                subject=select_list(ConflictRow, "c", leave_out=NESTED),
                summary_and_link=SUMMARY_AND_LINK,
                valid=MEMORY_VALID_AT,
            ),
            {"tenant": tenant_id, "ids": list(ids), "as_of": as_of, "include_expired": include_expired},
        )
        .fetchall()
    )


def supersession_chain(
    conn: Conn, tenant_id: UUID, memory_id: UUID, *, newer: bool, max_steps: int = 100
) -> list[ChainStep]:
    """Follow `supersedes` links from a memory: to what it replaced (newer=False), or to what
    replaced it (newer=True), transitively, cycle-safe; deleted memories included (history)."""
    step_from, step_to = ("l.to_id", "l.from_id") if newer else ("l.from_id", "l.to_id")
    query = sql.SQL(
        "WITH RECURSIVE chain(node, edge, steps, path) AS ("
        " SELECT {step_to}, l.id, 1, ARRAY[%(start)s::uuid, {step_to}] FROM links l"
        "  WHERE l.tenant_id = %(tenant)s AND {step_from} = %(start)s AND l.relation = 'supersedes'"
        "  AND l.ended_reason IS DISTINCT FROM 'link_deleted'"
        " UNION ALL"
        " SELECT {step_to}, l.id, c.steps + 1, c.path || {step_to} FROM chain c JOIN links l"
        "  ON l.tenant_id = %(tenant)s AND {step_from} = c.node AND l.relation = 'supersedes'"
        "  AND l.ended_reason IS DISTINCT FROM 'link_deleted'"
        "  WHERE NOT {step_to} = ANY(c.path) AND c.steps < %(max_steps)s)"
        " SELECT {step}, {summary_and_link} FROM chain c JOIN memories m ON m.id = c.node"
        " JOIN links l ON l.id = c.edge ORDER BY c.steps, l.valid_from, l.id"
    ).format(
        step_from=sql.SQL(step_from),
        step_to=sql.SQL(step_to),
        step=select_list(ChainStep, "c", leave_out=NESTED),
        summary_and_link=SUMMARY_AND_LINK,
    )
    cur = conn.cursor(row_factory=kwargs_row(ChainStep.from_columns))
    return cur.execute(query, {"tenant": tenant_id, "start": memory_id, "max_steps": max_steps}).fetchall()


def previous_versions(conn: Conn, memory_id: UUID) -> list[MemoryVersion]:
    query = sql.SQL("SELECT {} FROM memory_versions WHERE memory_id = %s ORDER BY version").format(
        select_list(MemoryVersion)
    )
    return conn.cursor(row_factory=class_row(MemoryVersion)).execute(query, (memory_id,)).fetchall()


def current_version(conn: Conn, memory_id: UUID) -> MemoryVersion | None:
    """The version the memory is at (it was replaced by nothing yet)."""
    query = sql.SQL("SELECT {} FROM memories WHERE id = %s AND status = 'active'").format(
        select_list(MemoryVersion, expressions={"changed_at": sql.SQL("NULL::timestamptz")})
    )
    return conn.cursor(row_factory=class_row(MemoryVersion)).execute(query, (memory_id,)).fetchone()
