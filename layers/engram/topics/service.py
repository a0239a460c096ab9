"""Topics: rebuild a namespace's tree (consolidation's last step), keep it fresh as vectors land,
and read it (the tree, a topic, its members; the filters and indexes other capabilities use).

- ``rebuild_tree(conn, tenant_id, namespace, *, ask, run_id)``: inside the caller's transaction;
  the tree is published whole (named) or not at all. ``ask(purpose, system, prompt)`` is the
  caller's metered LLM call (None: keyword names only).
- ``assign_new_memories(tenant_id, chunk_ids)``: the embed worker's cheap path.
- ``list_topics``, ``get_topic``, ``lookup``: the routes.
- ``memory_ids_in_topics``, ``leaf_index``, ``leaves_of_memories``, ``memory_vectors``: for recall,
  resume and prime, inside their transactions.
- ``tree_image``, ``restore_tree``, ``place_unplaced``: a consolidation run keeps the tree it
  replaces and its undo puts it back; ``leaves_of_size``: the leaves topic distillation looks at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any
from uuid import UUID

import numpy as np
from aws_lambda_powertools import Logger

from engram.adapters import llm
from engram.core.db import Conn, tenant_transaction
from engram.core.errors import NotFound
from engram.indexing.vectors import active_space, vector_literal
from engram.topics import store
from engram.topics.clustering import normalise
from engram.topics.models import (
    ErasedFromTopics,
    HeldTopic,
    LeafMembers,
    TopicDetail,
    TopicLookupRequest,
    TopicLookupResponse,
    TopicMember,
    TopicMembers,
    TopicNode,
    TopicTree,
)
from engram.topics.naming import keyword_label, name_without, words
from engram.topics.rebuild import Ask, RebuildSummary, rebuild_tree, tree_params
from engram.topics.rows import MemberRow, TopicRecord

# The rebuild and the row types consolidation and erasure hold are part of this service too.
__all__ = [
    "assign_new_memories",
    "erased_words",
    "forget_memories",
    "forget_namespace",
    "get_topic",
    "leaf_index",
    "leaves_of_memories",
    "leaves_of_size",
    "list_topics",
    "llm_asker",
    "lookup",
    "memory_ids_in_topics",
    "memory_vectors",
    "place_unplaced",
    "rebuild",
    "rebuild_tree",
    "restore_tree",
    "scrub_tree_image",
    "topics_holding",
    "tree_image",
]

logger = Logger()

SAMPLES_PER_TOPIC = 3
SAMPLE_CHARS = 80


def llm_asker(tenant_id: UUID) -> Ask:
    """A metered call outside consolidation (a direct rebuild): failures give None."""

    def ask(purpose: str, system: str, prompt: str) -> str | None:
        try:
            return llm.complete(tenant_id, purpose, system, prompt, max_tokens=1024).text
        except llm.LlmError as exc:
            logger.warning("topic naming call failed", extra={"error": str(exc)[:200]})
            return None

    return ask


def rebuild(tenant_id: UUID, namespace: str, *, use_llm: bool = True) -> RebuildSummary:
    """A rebuild in its own transaction (CLI, benches)."""
    with tenant_transaction(tenant_id) as conn:
        return rebuild_tree(conn, tenant_id, namespace, ask=llm_asker(tenant_id) if use_llm else None)


# --- incremental upkeep ---------------------------------------------------------------------------


def assign_new_memories(tenant_id: UUID | str, chunk_ids: Sequence[UUID]) -> int:
    """Memories whose vectors just landed join the nearest leaf of their namespace's tree (cosine >=
    the assign threshold) in one statement; the others each become a new top-level leaf named by
    their own words. Namespaces without a tree wait for their first rebuild. Returns how many started
    a leaf of their own."""
    if not chunk_ids:
        return 0
    tid = UUID(str(tenant_id))
    with tenant_transaction(tid) as conn:
        return _place(conn, tid, chunk_ids)


def _place(conn: Conn, tenant_id: UUID, chunk_ids: Sequence[UUID]) -> int:
    space = active_space(conn)
    if space is None or not chunk_ids:
        return 0
    p = tree_params(conn)
    left = store.assign_new_members(conn, chunk_ids, space.model_id, space.dimension, p.assign_threshold)
    if left:
        ids = store.allocate_topic_ids(conn, tenant_id, len(left))
        texts = store.texts_of(conn, [r.id for r in left])
        singles = []
        for new_id, r in zip(ids, left, strict=True):
            kw = [w for w, _n in Counter(words(texts.get(r.id, ""))).most_common(3)] or ["misc"]
            v = normalise(np.array([[float(x) for x in r.v[1:-1].split(",")]]))[0]
            singles.append((new_id, r.namespace, r.id, vector_literal(v.tolist()), keyword_label(kw), kw))
        store.add_singleton_leaves(conn, tenant_id, singles)
    return len(left)


def leaves_of_size(conn: Conn, namespace: str, min_members: int) -> list[LeafMembers]:
    """Leaves with at least `min_members` live memories (documents left out), largest first: what
    topic distillation looks at, in the caller's transaction."""
    return store.leaves_of_size(conn, namespace, min_members)


# --- undo of a rebuild ----------------------------------------------------------------------------


def tree_image(conn: Conn, namespace: str) -> dict[str, Any]:
    """The namespace's tree as it stands (JSON): a consolidation run keeps it as the before-image of
    its rebuild, so undo can put it back."""
    return store.tree_image(conn, namespace)


def restore_tree(conn: Conn, namespace: str, image: dict[str, Any]) -> None:
    """Undo of a rebuild, in the caller's transaction: the tree `tree_image` saved comes back (ids,
    names, membership). Memories placed into the rebuilt tree since are placed again by
    `place_unplaced`, once the caller has put back everything else."""
    store.restore_tree_image(conn, namespace, image)


def place_unplaced(conn: Conn, tenant_id: UUID, namespace: str) -> int:
    """Live memories of the namespace with a vector and no leaf join the tree as new vectors do
    (nothing without a tree). Returns how many started a leaf of their own."""
    space = active_space(conn)
    if space is None:
        return 0
    return _place(conn, tenant_id, store.unplaced_chunk_ids(conn, namespace, space.model_id))


# --- reading --------------------------------------------------------------------------------------


def _node(row: TopicRecord, samples: dict[str, list[str]]) -> TopicNode:
    return TopicNode(
        id=row.id,
        name=row.name,
        keywords=row.keywords,
        named_by=row.named_by,
        depth=row.depth,
        parent_id=row.parent_id,
        is_leaf=row.is_leaf,
        member_count=row.member_count,
        samples=samples.get(row.id, []),
    )


def list_topics(tenant_id: UUID, namespace: str = "default", depth: int | None = None) -> TopicTree:
    """The namespace's tree, top-level topics first, children nested, down to `depth` (0: top level only)."""
    with tenant_transaction(tenant_id) as conn:
        info = store.tree_info(conn, namespace)
        rows = store.topics_of_namespace(conn, namespace, depth)
        samples = store.samples(conn, [r.id for r in rows], SAMPLES_PER_TOPIC, SAMPLE_CHARS)
    nodes = {r.id: _node(r, samples) for r in rows}
    top: list[TopicNode] = []
    for r in rows:
        parent = nodes.get(r.parent_id) if r.parent_id else None
        (parent.children if parent else top).append(nodes[r.id])
    return TopicTree(
        namespace=namespace,
        built_at=info.built_at if info else None,
        version=info.version if info else 0,
        memories=info.memories if info else 0,
        leaves=info.leaves if info else 0,
        topics=top,
    )


def _members(row: TopicRecord, found: list[MemberRow], offset: int, limit: int) -> TopicMembers:
    """A page of a topic's members from `member_pages`' rows (limit + 1 of them: one more says a next page)."""
    page = found[:limit]
    return TopicMembers(
        id=row.id,
        name=row.name,
        member_count=row.member_count,
        memories=[
            TopicMember(
                memory_id=m.id,
                namespace=m.namespace,
                kind=m.kind,
                layer=m.layer,
                tags=m.tags,
                importance=m.importance,
                created_at=m.created_at,
                summary=m.summary,
                truncated=m.truncated,
                leaf_id=m.topic_id,
                similarity=m.similarity,
            )
            for m in page
        ],
        next_offset=offset + limit if len(found) > limit else None,
    )


def lookup(tenant_id: UUID, req: TopicLookupRequest) -> TopicLookupResponse:
    """Each topic's name and members (a node: its leaves' members), a page each: two statements
    whatever the number of ids."""
    ids = list(dict.fromkeys(req.ids))
    with tenant_transaction(tenant_id) as conn:
        rows = {r.id: r for r in store.topics_by_id(conn, ids)}
        found = [i for i in ids if i in rows]
        pages = store.member_pages(conn, found, req.order, req.offset, req.limit, req.summary_chars)
    topics = [_members(rows[i], pages[i], req.offset, req.limit) for i in found]
    return TopicLookupResponse(topics=topics, missing=[i for i in ids if i not in rows])


def get_topic(tenant_id: UUID, topic_id: str, limit: int = 20) -> TopicDetail:
    """A topic, its children, its path from the top, and its first members."""
    with tenant_transaction(tenant_id) as conn:
        found = store.topics_by_id(conn, [topic_id])
        if not found:
            raise NotFound(f"topic {topic_id} not found")
        row = found[0]
        path = [*store.ancestor_ids(conn, topic_id, 63), row.id]
        kids = store.children_of(conn, [topic_id])
        samples = store.samples(conn, [topic_id] + [k.id for k in kids], SAMPLES_PER_TOPIC, SAMPLE_CHARS)
        members = _members(row, store.member_pages(conn, [topic_id], "importance", 0, limit, 300)[topic_id], 0, limit)
    node = _node(row, samples)
    return TopicDetail(
        **node.model_dump(exclude={"children"}),
        children=[_node(k, samples) for k in kids],
        path=path,
        namespace=row.namespace,
        memories=members,
    )


# --- for other capabilities, inside their transactions ---------------------------------------------


def forget_namespace(conn: Conn, namespace: str) -> None:
    """A purged namespace's tree goes with it (its ids are never given again)."""
    store.delete_namespace_tree(conn, namespace)


def memory_ids_in_topics(conn: Conn, topic_ids: Sequence[str]) -> list[UUID]:
    """Memories of these topics (recall's `topics` filter)."""
    return store.memory_ids_under(conn, topic_ids)


def leaf_index(conn: Conn, namespaces: Sequence[str]) -> list[TopicNode]:
    """Every leaf of these namespaces, largest first (resume's index)."""
    return [_node(r, {}) for r in store.leaf_index(conn, namespaces)]


def leaves_of_memories(conn: Conn, memory_ids: Sequence[UUID]) -> dict[UUID, tuple[str, str]]:
    """memory id -> (leaf id, leaf name), for the memories that have a leaf."""
    return store.leaves_of_memories(conn, memory_ids) if memory_ids else {}


def memory_vectors(conn: Conn, memory_ids: Sequence[UUID]) -> dict[UUID, list[float]]:
    """Each memory's unit mean vector in the active space (the tree's view of a memory)."""
    space = active_space(conn)
    if space is None or not memory_ids:
        return {}
    raw = store.mean_vectors(conn, memory_ids, space.model_id, space.dimension)
    out: dict[UUID, list[float]] = {}
    for mid, v in raw.items():
        n = float(np.linalg.norm(v)) or 1.0
        out[mid] = [x / n for x in v]
    return out


# --- erasure ---------------------------------------------------------------------------------------


def topics_holding(conn: Conn, memory_ids: Sequence[UUID]) -> list[HeldTopic]:
    """Before an erasure deletes these memories: their leaves and the topics above (forget_memories' input)."""
    return store.topics_holding(conn, memory_ids) if memory_ids else []


def erased_words(texts: Sequence[str]) -> set[str]:
    """Every word a topic name could have taken from these texts."""
    return {w for t in texts for w in words(t, None)}


def forget_memories(conn: Conn, holding: Sequence[HeldTopic], gone_words: set[str]) -> ErasedFromTopics:
    """After an erasure deleted memories (topics_holding taken before): each topic that held one loses
    it from its count, and its name the words only the erased memories said (a leaf keeps a word a
    remaining member says; a topic above drops every such word until the next rebuild names it afresh);
    leaves left empty are removed. Cheap: no clustering, no LLM."""
    out = ErasedFromTopics()
    for t in holding:
        renamed = None
        if t.is_leaf:
            counts: Counter[str] = Counter()
            for text in store.leaf_member_texts(conn, t.id):
                counts.update(set(words(text)))
            renamed = name_without(t.name, t.keywords, gone_words - set(counts), [w for w, _ in counts.most_common(12)])
        else:
            renamed = name_without(t.name, t.keywords, gone_words)
        store.shrink_topic(conn, t.id, t.erased, *(renamed or (None, None)))
        if renamed is not None:
            out.renamed.append((t.id, t.name, renamed[0]))
    out.removed = store.delete_empty_topics(conn, [t.id for t in holding])
    return out


def scrub_tree_image(
    image: dict[str, Any], memory_ids: set[str], gone_words: set[str]
) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    """A saved tree (a rebuild's before-image) without these memories: their membership out, and the
    names of the topics that held them without the erased words (as forget_memories does above a leaf).
    Returns the image and the renamed topics (id, old name, new name)."""
    members = image.get("members") or {}
    keep = [i for i, m in enumerate(members.get("memory_id") or []) if m not in memory_ids]
    held: Counter[str] = Counter(
        t for m, t in zip(members.get("memory_id") or [], members.get("topic_id") or [], strict=True) if m in memory_ids
    )
    topics = {t["id"]: dict(t) for t in image.get("topics") or []}
    gone_under: Counter[str] = Counter()
    renamed: list[tuple[str, str, str]] = []
    for leaf, n in held.items():
        tid: str | None = leaf
        while tid is not None and tid in topics:
            gone_under[tid] += n
            tid = topics[tid].get("parent_id")
    for tid, n in gone_under.items():
        t = topics[tid]
        t["member_count"] = max(0, int(t.get("member_count") or 0) - n)
        new = name_without(t.get("name") or "", t.get("keywords") or [], gone_words)
        if new is not None:
            renamed.append((tid, t.get("name") or "", new[0]))
            t["name"], t["keywords"], t["named_by"] = new[0], new[1], "keywords"
    scrubbed = {
        **image,
        "topics": [topics[t["id"]] for t in image.get("topics") or []],
        "members": {k: [v[i] for i in keep] for k, v in members.items()},
    }
    return scrubbed, renamed
