"""The SQL of topics: memory vectors in, the published tree out, lookups. Functions take the caller's
connection (a tenant transaction) and open none."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

import numpy as np
from psycopg import sql
from psycopg.rows import class_row, scalar_row, tuple_row
from psycopg.types.json import Jsonb

from engram.core.db import Conn
from engram.core.select_lists import select_list
from engram.topics.models import HeldTopic, LeafMembers
from engram.topics.rows import (
    MemberRow,
    MemoryVectors,
    PreviousTopic,
    TopicRecord,
    TopicRow,
    TreeInfo,
    Unplaced,
)

MEMBER_TEXT_CHARS = 600


def space_thresholds(conn: Conn) -> dict[str, Any] | None:
    """The active embedding space's calibrated thresholds, if it has any."""
    cur = conn.cursor(row_factory=scalar_row)
    thresholds: dict[str, Any] | None = cur.execute(
        "SELECT consolidation_thresholds FROM embedding_spaces WHERE active"
    ).fetchone()
    return thresholds


def _live(alias: str) -> sql.Composable:
    return sql.SQL("{m}.status = 'active' AND ({m}.valid_to IS NULL OR {m}.valid_to > now())").format(
        m=sql.Identifier(alias)
    )


def memory_vectors(conn: Conn, namespace: str, model_id: str, dimension: int) -> MemoryVectors:
    """Each live memory of the namespace with at least one vector of the space: the mean of its
    chunks' vectors (pgvector's avg), and the start of its content (for names)."""
    d = sql.Literal(int(dimension))
    cur = conn.cursor(row_factory=tuple_row)
    rows: list[tuple[UUID, str, str]] = cur.execute(
        sql.SQL(
            "SELECT m.id, left(m.content, {chars}), avg(c.embedding::vector({d}))::text"
            " FROM memories m JOIN chunks c ON c.memory_id = m.id"
            " WHERE m.namespace = %s AND {live} AND c.embedding_dim = {d} AND c.model_id = %s"
            " GROUP BY m.id ORDER BY m.id"
        ).format(chars=sql.Literal(MEMBER_TEXT_CHARS), d=d, live=_live("m")),
        (namespace, model_id),
    ).fetchall()
    if not rows:
        return MemoryVectors([], [], np.zeros((0, int(dimension)), dtype=np.float32))
    # One C-level parse of all vectors: parsing 100k x 1024 floats one by one in Python takes minutes.
    flat = np.fromstring(",".join(v[1:-1] for _, _, v in rows), sep=",", dtype=np.float32)
    return MemoryVectors([i for i, _, _ in rows], [t for _, t, _ in rows], flat.reshape(len(rows), -1))


def previous_topics(conn: Conn, namespace: str) -> list[PreviousTopic]:
    """The published topics of the namespace: id, parent, leaf or not, name, how named, created_at."""
    query = sql.SQL("SELECT {} FROM topics WHERE namespace = %s").format(select_list(PreviousTopic))
    with conn.cursor(row_factory=class_row(PreviousTopic)) as cur:
        return cur.execute(query, (namespace,)).fetchall()


def previous_leaf_members(conn: Conn, namespace: str) -> dict[str, set[UUID]]:
    cur = conn.cursor(row_factory=tuple_row)
    rows: list[tuple[str, UUID]] = cur.execute(
        "SELECT tm.topic_id, tm.memory_id FROM topic_members tm JOIN topics t"
        " ON t.tenant_id = tm.tenant_id AND t.id = tm.topic_id WHERE t.namespace = %s",
        (namespace,),
    ).fetchall()
    out: dict[str, set[UUID]] = {}
    for topic_id, memory_id in rows:
        out.setdefault(topic_id, set()).add(memory_id)
    return out


def allocate_topic_ids(conn: Conn, tenant_id: UUID, count: int) -> list[str]:
    """`count` new ids of the tenant (t1, t2, ...): the counter row is locked until commit, so two
    rebuilds never hand out one number twice."""
    if count <= 0:
        return []
    cur = conn.cursor(row_factory=scalar_row)
    first: int | None = cur.execute(
        "INSERT INTO topic_counters AS tc (tenant_id, next_no) VALUES (%s, 1 + %s)"
        " ON CONFLICT (tenant_id) DO UPDATE SET next_no = tc.next_no + %s RETURNING next_no - %s",
        (tenant_id, count, count, count),
    ).fetchone()
    assert first is not None
    return [f"t{first + i}" for i in range(count)]


def publish_tree(
    conn: Conn,
    tenant_id: UUID,
    namespace: str,
    topics: Sequence[TopicRow],
    members: Sequence[tuple[str, UUID, float]],
    *,
    model_id: str,
    dimension: int,
    memories: int,
    run_id: UUID | None,
) -> None:
    """Replace the namespace's tree in the caller's transaction: readers see the old tree until commit."""
    conn.execute("DELETE FROM topics WHERE namespace = %s", (namespace,))  # members go with their topics
    # COPY is refused under row-level security: the topics (a few hundred) in one pipelined batch,
    # the members (up to every memory) in one statement over arrays.
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO topics (tenant_id, id, namespace, parent_id, depth, is_leaf, name, keywords, named_by,"
            " member_count, centroid, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::halfvec,"
            " COALESCE(%s, now()))",
            [
                (
                    tenant_id,
                    t.id,
                    namespace,
                    t.parent_id,
                    t.depth,
                    t.is_leaf,
                    t.name,
                    t.keywords,
                    t.named_by,
                    t.member_count,
                    t.centroid,
                    t.created_at,
                )
                for t in topics
            ],
        )
    if members:
        conn.execute(
            "INSERT INTO topic_members (tenant_id, topic_id, memory_id, similarity)"
            " SELECT %s, * FROM unnest(%s::text[], %s::uuid[], %s::real[])",
            (tenant_id, [m[0] for m in members], [m[1] for m in members], [m[2] for m in members]),
        )
    conn.execute(
        "INSERT INTO topic_trees (tenant_id, namespace, model_id, dimension, memories, leaves, run_id)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (tenant_id, namespace) DO UPDATE SET"
        " version = topic_trees.version + 1, model_id = EXCLUDED.model_id, dimension = EXCLUDED.dimension,"
        " memories = EXCLUDED.memories, leaves = EXCLUDED.leaves, run_id = EXCLUDED.run_id, built_at = now()",
        (tenant_id, namespace, model_id, dimension, memories, sum(1 for t in topics if t.is_leaf), run_id),
    )


def tree_image(conn: Conn, namespace: str) -> dict[str, Any]:
    """The namespace's published tree as JSON, to put back with `restore_tree_image`: its
    topic_trees row (None: no tree), its topics as the database renders them, and the leaf
    membership as three parallel arrays (a tenth of the size of one object per member)."""
    cur = conn.cursor(row_factory=scalar_row)
    image: dict[str, Any] | None = cur.execute(
        "SELECT jsonb_build_object('tree', (SELECT to_jsonb(tt) FROM topic_trees tt WHERE tt.namespace = %(ns)s),"
        " 'topics', COALESCE((SELECT jsonb_agg(to_jsonb(t) ORDER BY t.id) FROM topics t WHERE t.namespace = %(ns)s),"
        " '[]'),"
        " 'members', (SELECT jsonb_build_object('topic_id', COALESCE(jsonb_agg(tm.topic_id ORDER BY tm.memory_id),"
        "  '[]'), 'memory_id', COALESCE(jsonb_agg(tm.memory_id ORDER BY tm.memory_id), '[]'),"
        "  'similarity', COALESCE(jsonb_agg(tm.similarity ORDER BY tm.memory_id), '[]'))"
        "  FROM topic_members tm JOIN topics t ON t.tenant_id = tm.tenant_id AND t.id = tm.topic_id"
        "  WHERE t.namespace = %(ns)s))",
        {"ns": namespace},
    ).fetchone()
    assert image is not None
    return image


def restore_tree_image(conn: Conn, namespace: str, image: dict[str, Any]) -> None:
    """The namespace's tree becomes the one `tree_image` saved (no tree, if none was saved). Its
    version moves on (readers that cache by version see a change); members whose memory is gone for
    good are left out."""
    current = tree_info(conn, namespace)
    delete_namespace_tree(conn, namespace)
    if image["tree"] is None:
        return
    conn.execute(
        "INSERT INTO topics SELECT * FROM jsonb_populate_recordset(NULL::topics, %s)", (Jsonb(image["topics"]),)
    )
    members = image["members"]
    conn.execute(
        "INSERT INTO topic_members (tenant_id, topic_id, memory_id, similarity)"
        " SELECT engram_current_tenant(), u.topic_id, u.memory_id, u.similarity"
        " FROM unnest(%s::text[], %s::uuid[], %s::real[]) AS u(topic_id, memory_id, similarity)"
        " WHERE EXISTS (SELECT 1 FROM memories m WHERE m.id = u.memory_id)",
        (members["topic_id"], members["memory_id"], [None if v is None else float(v) for v in members["similarity"]]),
    )
    tree = {**image["tree"], "version": max(image["tree"]["version"], current.version if current else 0) + 1}
    conn.execute("INSERT INTO topic_trees SELECT * FROM jsonb_populate_record(NULL::topic_trees, %s)", (Jsonb(tree),))


def unplaced_chunk_ids(conn: Conn, namespace: str, model_id: str) -> list[UUID]:
    """One embedded chunk of each live memory of the namespace that belongs to no leaf (what
    `assign_new_members` takes)."""
    cur = conn.cursor(row_factory=scalar_row)
    return cur.execute(
        sql.SQL(
            "SELECT DISTINCT ON (c.memory_id) c.id FROM chunks c JOIN memories m ON m.id = c.memory_id"
            " WHERE m.namespace = %s AND {live} AND c.model_id = %s AND c.embedding IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM topic_members tm WHERE tm.memory_id = m.id)"
            " ORDER BY c.memory_id, c.position"
        ).format(live=_live("m")),
        (namespace, model_id),
    ).fetchall()


def tree_info(conn: Conn, namespace: str) -> TreeInfo | None:
    query = sql.SQL("SELECT {} FROM topic_trees WHERE namespace = %s").format(select_list(TreeInfo))
    with conn.cursor(row_factory=class_row(TreeInfo)) as cur:
        return cur.execute(query, (namespace,)).fetchone()


_TOPIC_COLUMNS = select_list(TopicRecord, "t")


def _topics(conn: Conn, query: sql.Composed, params: Sequence[Any]) -> list[TopicRecord]:
    with conn.cursor(row_factory=class_row(TopicRecord)) as cur:
        return cur.execute(query, params).fetchall()


def topics_of_namespace(conn: Conn, namespace: str, max_depth: int | None) -> list[TopicRecord]:
    return _topics(
        conn,
        sql.SQL(
            "SELECT {cols} FROM topics t WHERE t.namespace = %s"
            " AND (%s::int IS NULL OR t.depth <= %s::int)"
            " ORDER BY t.depth, t.member_count DESC, t.id"
        ).format(cols=_TOPIC_COLUMNS),
        (namespace, max_depth, max_depth),
    )


def topics_by_id(conn: Conn, ids: Sequence[str]) -> list[TopicRecord]:
    return _topics(
        conn, sql.SQL("SELECT {cols} FROM topics t WHERE t.id = ANY(%s)").format(cols=_TOPIC_COLUMNS), (list(ids),)
    )


def ancestor_ids(conn: Conn, topic_id: str, limit: int) -> list[str]:
    """The ids above a topic, the top-level one first (at most `limit` of them), in one statement."""
    cur = conn.cursor(row_factory=scalar_row)
    return cur.execute(
        "WITH RECURSIVE up(id, parent_id, n) AS ("
        " SELECT t.id, t.parent_id, 0 FROM topics t WHERE t.id = %s"
        " UNION ALL SELECT t.id, t.parent_id, up.n + 1 FROM topics t JOIN up ON t.id = up.parent_id WHERE up.n < %s)"
        " SELECT id FROM up WHERE n > 0 ORDER BY n DESC",
        (topic_id, limit),
    ).fetchall()


def children_of(conn: Conn, ids: Sequence[str]) -> list[TopicRecord]:
    return _topics(
        conn,
        sql.SQL("SELECT {cols} FROM topics t WHERE t.parent_id = ANY(%s) ORDER BY t.member_count DESC, t.id").format(
            cols=_TOPIC_COLUMNS
        ),
        (list(ids),),
    )


def leaf_index(conn: Conn, namespaces: Sequence[str]) -> list[TopicRecord]:
    """Every leaf of these namespaces, largest first (resume's topic index)."""
    return _topics(
        conn,
        sql.SQL(
            "SELECT {cols} FROM topics t WHERE t.namespace = ANY(%s) AND t.is_leaf ORDER BY t.member_count DESC, t.id"
        ).format(cols=_TOPIC_COLUMNS),
        (list(namespaces),),
    )


_LEAVES_UNDER = sql.SQL(
    "WITH RECURSIVE sub AS (SELECT id, id AS root, is_leaf FROM topics WHERE id = ANY(%(ids)s)"
    " UNION ALL SELECT t.id, sub.root, t.is_leaf FROM topics t JOIN sub ON t.parent_id = sub.id)"
)


def samples(conn: Conn, topic_ids: Sequence[str], per_topic: int, chars: int) -> dict[str, list[str]]:
    """A few member texts per topic (the most important of its leaves' members), cut to `chars`."""
    if not topic_ids:
        return {}
    cur = conn.cursor(row_factory=tuple_row)
    rows: list[tuple[str, str]] = cur.execute(
        sql.SQL(
            "{sub} SELECT root, text FROM (SELECT sub.root, left(m.content, %(chars)s) AS text,"
            " row_number() OVER (PARTITION BY sub.root ORDER BY m.importance DESC, m.created_at DESC, m.id) AS n"
            " FROM sub JOIN topic_members tm ON tm.topic_id = sub.id JOIN memories m ON m.id = tm.memory_id"
            " WHERE sub.is_leaf AND m.status = 'active') s WHERE n <= %(per)s ORDER BY root, n"
        ).format(sub=_LEAVES_UNDER),
        {"ids": list(topic_ids), "chars": chars, "per": per_topic},
    ).fetchall()
    out: dict[str, list[str]] = {}
    for root, text in rows:
        out.setdefault(root, []).append(text)
    return out


_MEMBER_ORDER = {
    "importance": sql.SQL("m.importance DESC, m.created_at DESC, m.id"),
    "newest": sql.SQL("m.created_at DESC, m.id"),
}


def member_pages(
    conn: Conn, topic_ids: Sequence[str], order: str, offset: int, limit: int, chars: int
) -> dict[str, list[MemberRow]]:
    """Members of each topic (its leaves' members), `limit + 1` rows from `offset` each: one
    statement for all the topics, each numbered in its own order."""
    if not topic_ids:
        return {}
    member = select_list(
        MemberRow,
        "m",
        expressions={
            "root": sql.SQL("sub.root"),
            "summary": sql.SQL("left(m.content, %(chars)s)"),
            "truncated": sql.SQL("length(m.content) > %(chars)s"),
            "topic_id": sql.SQL("tm.topic_id"),
            "similarity": sql.SQL("tm.similarity"),
            "n": sql.SQL("row_number() OVER (PARTITION BY sub.root ORDER BY {})").format(_MEMBER_ORDER[order]),
        },
    )
    query = sql.SQL(
        "{sub} SELECT {fields} FROM (SELECT {member} FROM sub JOIN topic_members tm ON tm.topic_id = sub.id"
        " JOIN memories m ON m.id = tm.memory_id WHERE sub.is_leaf AND {live}) p"
        " WHERE n > %(offset)s AND n <= %(offset)s + %(limit)s ORDER BY root, n"
    ).format(sub=_LEAVES_UNDER, fields=select_list(MemberRow, "p"), member=member, live=_live("m"))
    with conn.cursor(row_factory=class_row(MemberRow)) as cur:
        rows = cur.execute(
            query, {"ids": list(topic_ids), "chars": chars, "offset": offset, "limit": limit + 1}
        ).fetchall()
    out: dict[str, list[MemberRow]] = {tid: [] for tid in topic_ids}
    for r in rows:
        out[r.root].append(r)
    return out


def leaves_of_size(conn: Conn, namespace: str, min_members: int) -> list[LeafMembers]:
    """Leaves of the namespace with at least `min_members` live memories that are not documents (a
    document's memory holds its synopsis): id, name and those memories' ids, largest first."""
    query = sql.SQL(
        "SELECT {fields} FROM topics t"
        " JOIN topic_members tm ON tm.tenant_id = t.tenant_id AND tm.topic_id = t.id"
        " JOIN memories m ON m.id = tm.memory_id"
        " WHERE t.namespace = %s AND t.is_leaf AND {live} AND m.document_tier IS NULL"
        " GROUP BY t.id, t.name HAVING count(*) >= %s ORDER BY count(*) DESC, t.id"
    ).format(
        fields=select_list(LeafMembers, "t", expressions={"memory_ids": sql.SQL("array_agg(m.id ORDER BY m.id)")}),
        live=_live("m"),
    )
    with conn.cursor(row_factory=class_row(LeafMembers)) as cur:
        return cur.execute(query, (namespace, min_members)).fetchall()


def memory_ids_under(conn: Conn, topic_ids: Sequence[str]) -> list[UUID]:
    """Memories of these topics (leaves' members, nodes through their leaves)."""
    cur = conn.cursor(row_factory=scalar_row)
    return cur.execute(
        sql.SQL(
            "{sub} SELECT DISTINCT tm.memory_id FROM sub JOIN topic_members tm"
            " ON tm.topic_id = sub.id WHERE sub.is_leaf"
        ).format(sub=_LEAVES_UNDER),
        {"ids": list(topic_ids)},
    ).fetchall()


def leaves_of_memories(conn: Conn, memory_ids: Sequence[UUID]) -> dict[UUID, tuple[str, str]]:
    """memory id -> (leaf id, leaf name)."""
    cur = conn.cursor(row_factory=tuple_row)
    rows: list[tuple[UUID, str, str]] = cur.execute(
        "SELECT tm.memory_id, t.id, t.name FROM topic_members tm JOIN topics t"
        " ON t.tenant_id = tm.tenant_id AND t.id = tm.topic_id WHERE tm.memory_id = ANY(%s)",
        (list(memory_ids),),
    ).fetchall()
    return {memory_id: (leaf_id, name) for memory_id, leaf_id, name in rows}


def mean_vectors(conn: Conn, memory_ids: Sequence[UUID], model_id: str, dimension: int) -> dict[UUID, list[float]]:
    """Each memory's mean chunk vector in the space (those with one)."""
    d = sql.Literal(int(dimension))
    cur = conn.cursor(row_factory=tuple_row)
    rows: list[tuple[UUID, str]] = cur.execute(
        sql.SQL(
            "SELECT c.memory_id, avg(c.embedding::vector({d}))::text FROM chunks c"
            " WHERE c.memory_id = ANY(%s) AND c.embedding_dim = {d} AND c.model_id = %s GROUP BY c.memory_id"
        ).format(d=d),
        (list(memory_ids), model_id),
    ).fetchall()
    return {memory_id: [float(x) for x in v[1:-1].split(",")] for memory_id, v in rows}


def assign_new_members(
    conn: Conn, chunk_ids: Sequence[UUID], model_id: str, dimension: int, threshold: float
) -> list[Unplaced]:
    """Memories of these chunks that have a vector and no leaf yet join the nearest leaf of their
    namespace's tree when its centroid is within `threshold` cosine: one statement. Returns the
    memories left without a leaf (namespace, id, vector) for singleton leaves."""
    d = sql.Literal(int(dimension))
    query = sql.SQL(
        "WITH mem AS (SELECT c.memory_id AS id, m.namespace, avg(c.embedding::vector({d})) AS v"
        "  FROM chunks c JOIN memories m ON m.id = c.memory_id"
        "  WHERE c.memory_id IN (SELECT memory_id FROM chunks WHERE id = ANY(%(chunks)s))"
        "  AND c.embedding_dim = {d} AND c.model_id = %(model)s AND m.status = 'active'"
        "  AND NOT EXISTS (SELECT 1 FROM topic_members tm WHERE tm.memory_id = m.id)"
        "  AND EXISTS (SELECT 1 FROM topic_trees tt WHERE tt.namespace = m.namespace AND tt.model_id = %(model)s)"
        "  GROUP BY c.memory_id, m.namespace),"
        " best AS (SELECT mem.id, mem.namespace, mem.v, b.topic_id, b.sim FROM mem LEFT JOIN LATERAL"
        "  (SELECT t.id AS topic_id, 1 - (t.centroid <=> mem.v::halfvec) AS sim FROM topics t"
        "   WHERE t.namespace = mem.namespace AND t.is_leaf ORDER BY t.centroid <=> mem.v::halfvec LIMIT 1) b"
        "  ON true),"
        " joined AS (INSERT INTO topic_members (tenant_id, topic_id, memory_id, similarity)"
        "  SELECT engram_current_tenant(), topic_id, id, sim FROM best WHERE sim >= %(threshold)s"
        "  ON CONFLICT DO NOTHING RETURNING topic_id),"
        " counted AS (UPDATE topics t SET member_count = t.member_count + j.n, updated_at = now()"
        "  FROM (SELECT topic_id, count(*) AS n FROM joined GROUP BY topic_id) j WHERE t.id = j.topic_id"
        "  RETURNING t.id)"
        " SELECT {fields} FROM best WHERE topic_id IS NULL OR sim < %(threshold)s"
    ).format(d=d, fields=select_list(Unplaced, expressions={"v": sql.SQL("v::text")}))
    with conn.cursor(row_factory=class_row(Unplaced)) as cur:
        return cur.execute(query, {"chunks": list(chunk_ids), "model": model_id, "threshold": threshold}).fetchall()


def add_singleton_leaves(
    conn: Conn, tenant_id: UUID, leaves: Sequence[tuple[str, str, UUID, str, str, list[str]]]
) -> None:
    """(topic id, namespace, memory id, vector text, name, keywords): a new top-level leaf each."""
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO topics (tenant_id, id, namespace, parent_id, depth, is_leaf, name, keywords, named_by,"
            " member_count, centroid) VALUES (%s, %s, %s, NULL, 0, true, %s, %s, 'keywords', 1, %s::halfvec)",
            [(tenant_id, tid, ns, name, kw, v) for tid, ns, _m, v, name, kw in leaves],
        )
        cur.executemany(
            "INSERT INTO topic_members (tenant_id, topic_id, memory_id, similarity)"
            " VALUES (%s, %s, %s, 1) ON CONFLICT DO NOTHING",
            [(tenant_id, tid, m) for tid, _ns, m, _v, _n, _k in leaves],
        )


def texts_of(conn: Conn, memory_ids: Sequence[UUID]) -> dict[UUID, str]:
    cur = conn.cursor(row_factory=tuple_row)
    rows: list[tuple[UUID, str]] = cur.execute(
        "SELECT id, left(content, %s) FROM memories WHERE id = ANY(%s)", (MEMBER_TEXT_CHARS, list(memory_ids))
    ).fetchall()
    return dict(rows)


def delete_namespace_tree(conn: Conn, namespace: str) -> None:
    conn.execute("DELETE FROM topics WHERE namespace = %s", (namespace,))  # members go with their topics
    conn.execute("DELETE FROM topic_trees WHERE namespace = %s", (namespace,))


def topics_holding(conn: Conn, memory_ids: Sequence[UUID]) -> list[HeldTopic]:
    """The leaves these memories belong to and every topic above them, with how many of the memories
    each holds (`erased`): what an erasure renames."""
    query = sql.SQL(
        "WITH RECURSIVE up(id, n) AS ("
        " SELECT tm.topic_id, count(*) FROM topic_members tm WHERE tm.memory_id = ANY(%s) GROUP BY tm.topic_id"
        " UNION ALL SELECT t.parent_id, up.n FROM topics t JOIN up ON t.id = up.id WHERE t.parent_id IS NOT NULL)"
        " SELECT {fields} FROM up JOIN topics t ON t.id = up.id"
        " GROUP BY t.id, t.parent_id, t.is_leaf, t.name, t.keywords, t.named_by"
    ).format(fields=select_list(HeldTopic, "t", expressions={"erased": sql.SQL("sum(up.n)::int")}))
    with conn.cursor(row_factory=class_row(HeldTopic)) as cur:
        return cur.execute(query, (list(memory_ids),)).fetchall()


def leaf_member_texts(conn: Conn, topic_id: str) -> list[str]:
    cur = conn.cursor(row_factory=scalar_row)
    return cur.execute(
        "SELECT left(m.content, %s) FROM topic_members tm JOIN memories m ON m.id = tm.memory_id"
        " WHERE tm.topic_id = %s",
        (MEMBER_TEXT_CHARS, topic_id),
    ).fetchall()


def shrink_topic(conn: Conn, topic_id: str, members_gone: int, name: str | None, kw: list[str] | None) -> None:
    """Fewer members, and a new keyword name when given."""
    conn.execute(
        "UPDATE topics SET member_count = greatest(member_count - %s, 0), updated_at = now(),"
        " name = COALESCE(%s, name), keywords = COALESCE(%s, keywords),"
        " named_by = CASE WHEN %s::text IS NULL THEN named_by ELSE 'keywords' END WHERE id = %s",
        (members_gone, name, kw, name, topic_id),
    )


def delete_empty_topics(conn: Conn, topic_ids: Sequence[str]) -> int:
    rows = conn.execute(
        "DELETE FROM topics WHERE id = ANY(%s) AND member_count = 0 RETURNING id", (list(topic_ids),)
    ).fetchall()
    return len(rows)
