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

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import numpy as np
from aws_lambda_powertools import Logger
from psycopg.rows import DictRow

from engram.adapters import llm
from engram.core.db import tenant_transaction
from engram.core.errors import NotFound
from engram.indexing.vectors import active_space, vector_literal
from engram.topics import store
from engram.topics.clustering import Node, TreeParams, build_tree, match_ids, normalise, walk
from engram.topics.models import (
    TopicDetail,
    TopicLookupRequest,
    TopicLookupResponse,
    TopicMember,
    TopicMembers,
    TopicNode,
    TopicTree,
)
from engram.topics.naming import (
    NAMING_BATCH,
    TOPIC_NAMING_SYSTEM,
    keyword_label,
    keyword_names,
    name_without,
    naming_prompt,
    parse_names,
    words,
)

logger = Logger()

Ask = Callable[[str, str, str], str | None]  # (purpose, system, prompt) -> the answer, None when refused/failed
SAMPLES_PER_TOPIC = 3
SAMPLE_CHARS = 80


@dataclass
class RebuildSummary:
    namespace: str
    memories: int = 0
    leaves: int = 0
    topics: int = 0
    kept_ids: int = 0  # topics that kept an id of the previous tree
    new_ids: int = 0
    llm_named: int = 0
    llm_calls: int = 0
    seconds: float = 0.0
    skipped: str | None = None
    timings: dict[str, float] = field(default_factory=dict)


def tree_params(conn: store.Conn) -> TreeParams:
    """Defaults, with the active embedding space's calibrated `topic_*` values over them."""
    row = conn.execute("SELECT consolidation_thresholds FROM embedding_spaces WHERE active").fetchone()
    return TreeParams.from_overrides(row["consolidation_thresholds"] if row else None)


def _word_counts(nodes: list[tuple[Node, Node | None, int]], member_words: list[set[str]]) -> dict[int, Counter[str]]:
    """Per node (by id()): in how many of its memories each word occurs. Children before parents."""
    counts: dict[int, Counter[str]] = {}
    for node, _parent, _depth in reversed(nodes):
        c: Counter[str] = Counter()
        if node.is_leaf:
            for i in node.members:
                c.update(member_words[int(i)])
        else:
            for child in node.children:
                c.update(counts[id(child)])
        counts[id(node)] = c
    return counts


def _llm_names(ask: Ask, dirty: list[tuple[str, list[str], list[str]]], taken: set[str]) -> tuple[dict[str, str], int]:
    names: dict[str, str] = {}
    calls = 0
    for start in range(0, len(dirty), NAMING_BATCH):
        batch = dirty[start : start + NAMING_BATCH]
        answer = ask("topic_naming", TOPIC_NAMING_SYSTEM, naming_prompt(batch, sorted(taken | set(names.values()))))
        if answer is None:
            break  # refused (cap, LLM off) or failed: the rest keep their keyword names
        calls += 1
        names.update(parse_names(answer, [t[0] for t in batch], taken | set(names.values())))
    return names, calls


def rebuild_tree(
    conn: store.Conn,
    tenant_id: UUID,
    namespace: str,
    *,
    ask: Ask | None = None,
    run_id: UUID | None = None,
    params: TreeParams | None = None,
) -> RebuildSummary:
    """Cluster the namespace's memories into a fresh tree and publish it in the caller's transaction."""
    started = time.monotonic()
    summary = RebuildSummary(namespace)
    space = active_space(conn)
    if space is None:
        summary.skipped = "no embedding space yet: nothing to cluster"
        return summary
    p = params or tree_params(conn)
    loaded = store.memory_vectors(conn, namespace, space.model_id, space.dimension)
    summary.timings["load"] = round(time.monotonic() - started, 3)
    x = normalise(loaded.vectors)
    roots = build_tree(x, p) if len(loaded.ids) else []
    summary.timings["cluster"] = round(time.monotonic() - started - summary.timings["load"], 3)
    nodes = walk(roots)

    previous = {r["id"]: r for r in store.previous_topics(conn, namespace)}
    old_sets = _previous_member_sets(conn, namespace, previous)
    new_sets = [frozenset(loaded.ids[int(i)] for i in node.members) for node, _p, _d in nodes]
    matched = match_ids(new_sets, {k: frozenset(v) for k, v in old_sets.items()})
    fresh = iter(store.allocate_topic_ids(conn, tenant_id, sum(1 for m in matched if m is None)))
    for (node, _p, _d), tid in zip(nodes, matched, strict=True):
        node.id = tid or next(fresh)
    summary.kept_ids = sum(1 for m in matched if m is not None)
    summary.new_ids = len(matched) - summary.kept_ids

    # Names: keywords against siblings for all; the LLM for topics that are new or changed.
    counts = _word_counts(nodes, [set(words(t)) for t in loaded.texts])
    groups = [roots] + [node.children for node, _p, _d in nodes if node.children]
    named = keyword_names([[counts[id(n)] for n in g] for g in groups])
    kw_of = {id(n): kw for g, kws in zip(groups, named, strict=True) for n, kw in zip(g, kws, strict=True)}
    names: dict[str, tuple[str, str]] = {}
    dirty: list[tuple[str, list[str], list[str]]] = []
    for node, new_set in zip((n for n, _p, _d in nodes), new_sets, strict=True):
        assert node.id is not None
        old = previous.get(node.id)
        if old is not None and old["named_by"] == "llm" and old_sets.get(node.id) == set(new_set):
            names[node.id] = (old["name"], "llm")  # unchanged: its name stands, no call
            continue
        names[node.id] = (keyword_label(kw_of[id(node)]), "keywords")
        dirty.append((node.id, kw_of[id(node)], [loaded.texts[int(i)][:200] for i in node.members[:4]]))
    if ask is not None and dirty and llm.llm_unavailable(optional=True) is None:
        taken = {n for tid, (n, by) in names.items() if by == "llm"}
        given, summary.llm_calls = _llm_names(ask, dirty, taken)
        for tid, name in given.items():
            names[tid] = (name, "llm")
        summary.llm_named = len(given)

    rows: list[store.TopicRow] = []
    members: list[tuple[str, UUID, float]] = []
    for node, parent, depth in nodes:
        assert node.id is not None
        old = previous.get(node.id)
        name, by = names[node.id]
        rows.append(
            store.TopicRow(
                id=node.id,
                parent_id=parent.id if parent else None,
                depth=depth,
                is_leaf=node.is_leaf,
                name=name,
                keywords=kw_of[id(node)],
                named_by=by,
                member_count=len(node.members),
                centroid=vector_literal(node.centroid.tolist()),
                created_at=old["created_at"] if old else None,
            )
        )
        if node.is_leaf:
            sims = x[node.members] @ node.centroid
            members += [
                (node.id, loaded.ids[int(i)], round(float(s), 4)) for i, s in zip(node.members, sims, strict=True)
            ]
    store.publish_tree(
        conn,
        tenant_id,
        namespace,
        rows,
        members,
        model_id=space.model_id,
        dimension=space.dimension,
        memories=len(loaded.ids),
        run_id=run_id,
    )
    summary.memories, summary.topics = len(loaded.ids), len(rows)
    summary.leaves = sum(1 for r in rows if r.is_leaf)
    summary.seconds = round(time.monotonic() - started, 3)
    return summary


def _previous_member_sets(conn: store.Conn, namespace: str, previous: dict[str, DictRow]) -> dict[str, set[UUID]]:
    """Members of every previous topic: a leaf's own, a node's through its leaves."""
    sets = store.previous_leaf_members(conn, namespace)
    children: dict[str, list[str]] = {}
    for tid, row in previous.items():
        if row["parent_id"]:
            children.setdefault(row["parent_id"], []).append(tid)

    def gather(tid: str, depth: int = 0) -> set[UUID]:
        if tid in sets or depth > 64:
            return sets.get(tid, set())
        out: set[UUID] = set()
        for child in children.get(tid, []):
            out |= gather(child, depth + 1)
        sets[tid] = out
        return out

    for tid in previous:
        gather(tid)
    return sets


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


def _place(conn: store.Conn, tenant_id: UUID, chunk_ids: Sequence[UUID]) -> int:
    space = active_space(conn)
    if space is None or not chunk_ids:
        return 0
    p = tree_params(conn)
    left = store.assign_new_members(conn, chunk_ids, space.model_id, space.dimension, p.assign_threshold)
    if left:
        ids = store.allocate_topic_ids(conn, tenant_id, len(left))
        texts = store.texts_of(conn, [r["id"] for r in left])
        singles = []
        for new_id, r in zip(ids, left, strict=True):
            kw = [w for w, _n in Counter(words(texts.get(r["id"], ""))).most_common(3)] or ["misc"]
            v = normalise(np.array([[float(x) for x in r["v"][1:-1].split(",")]]))[0]
            singles.append((new_id, r["namespace"], r["id"], vector_literal(v.tolist()), keyword_label(kw), kw))
        store.add_singleton_leaves(conn, tenant_id, singles)
    return len(left)


@dataclass(frozen=True)
class LeafMembers:
    id: str
    name: str
    memory_ids: list[UUID]


def leaves_of_size(conn: store.Conn, namespace: str, min_members: int) -> list[LeafMembers]:
    """Leaves with at least `min_members` live memories (documents left out), largest first: what
    topic distillation looks at, in the caller's transaction."""
    return [
        LeafMembers(r["id"], r["name"], list(r["memory_ids"]))
        for r in store.leaves_of_size(conn, namespace, min_members)
    ]


# --- undo of a rebuild ----------------------------------------------------------------------------


def tree_image(conn: store.Conn, namespace: str) -> dict[str, Any]:
    """The namespace's tree as it stands (JSON): a consolidation run keeps it as the before-image of
    its rebuild, so undo can put it back."""
    return store.tree_image(conn, namespace)


def restore_tree(conn: store.Conn, namespace: str, image: dict[str, Any]) -> None:
    """Undo of a rebuild, in the caller's transaction: the tree `tree_image` saved comes back (ids,
    names, membership). Memories placed into the rebuilt tree since are placed again by
    `place_unplaced`, once the caller has put back everything else."""
    store.restore_tree_image(conn, namespace, image)


def place_unplaced(conn: store.Conn, tenant_id: UUID, namespace: str) -> int:
    """Live memories of the namespace with a vector and no leaf join the tree as new vectors do
    (nothing without a tree). Returns how many started a leaf of their own."""
    space = active_space(conn)
    if space is None:
        return 0
    return _place(conn, tenant_id, store.unplaced_chunk_ids(conn, namespace, space.model_id))


# --- reading --------------------------------------------------------------------------------------


def _node(row: DictRow, samples: dict[str, list[str]]) -> TopicNode:
    return TopicNode(
        id=row["id"],
        name=row["name"],
        keywords=row["keywords"],
        named_by=row["named_by"],
        depth=row["depth"],
        parent_id=row["parent_id"],
        is_leaf=row["is_leaf"],
        member_count=row["member_count"],
        samples=samples.get(row["id"], []),
    )


def list_topics(tenant_id: UUID, namespace: str = "default", depth: int | None = None) -> TopicTree:
    """The namespace's tree, top-level topics first, children nested, down to `depth` (0: top level only)."""
    with tenant_transaction(tenant_id) as conn:
        info = store.tree_info(conn, namespace)
        rows = store.topics_of_namespace(conn, namespace, depth)
        samples = store.samples(conn, [r["id"] for r in rows], SAMPLES_PER_TOPIC, SAMPLE_CHARS)
    nodes = {r["id"]: _node(r, samples) for r in rows}
    top: list[TopicNode] = []
    for r in rows:
        parent = nodes.get(r["parent_id"]) if r["parent_id"] else None
        (parent.children if parent else top).append(nodes[r["id"]])
    return TopicTree(
        namespace=namespace,
        built_at=info["built_at"] if info else None,
        version=info["version"] if info else 0,
        memories=info["memories"] if info else 0,
        leaves=info["leaves"] if info else 0,
        topics=top,
    )


def _members(row: DictRow, found: list[DictRow], offset: int, limit: int) -> TopicMembers:
    """A page of a topic's members from `member_pages`' rows (limit + 1 of them: one more says a next page)."""
    page = found[:limit]
    return TopicMembers(
        id=row["id"],
        name=row["name"],
        member_count=row["member_count"],
        memories=[
            TopicMember(
                memory_id=m["id"],
                namespace=m["namespace"],
                kind=m["kind"],
                layer=m["layer"],
                tags=m["tags"],
                importance=m["importance"],
                created_at=m["created_at"],
                summary=m["summary"],
                truncated=m["truncated"],
                leaf_id=m["topic_id"],
                similarity=m["similarity"],
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
        rows = {r["id"]: r for r in store.topics_by_id(conn, ids)}
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
        path = [*store.ancestor_ids(conn, topic_id, 63), row["id"]]
        kids = store.children_of(conn, [topic_id])
        samples = store.samples(conn, [topic_id] + [k["id"] for k in kids], SAMPLES_PER_TOPIC, SAMPLE_CHARS)
        members = _members(row, store.member_pages(conn, [topic_id], "importance", 0, limit, 300)[topic_id], 0, limit)
    node = _node(row, samples)
    return TopicDetail(
        **node.model_dump(exclude={"children"}),
        children=[_node(k, samples) for k in kids],
        path=path,
        namespace=row["namespace"],
        memories=members,
    )


# --- for other capabilities, inside their transactions ---------------------------------------------


def forget_namespace(conn: store.Conn, namespace: str) -> None:
    """A purged namespace's tree goes with it (its ids are never given again)."""
    store.delete_namespace_tree(conn, namespace)


def memory_ids_in_topics(conn: store.Conn, topic_ids: Sequence[str]) -> list[UUID]:
    """Memories of these topics (recall's `topics` filter)."""
    return store.memory_ids_under(conn, topic_ids)


def leaf_index(conn: store.Conn, namespaces: Sequence[str]) -> list[TopicNode]:
    """Every leaf of these namespaces, largest first (resume's index)."""
    return [_node(r, {}) for r in store.leaf_index(conn, namespaces)]


def leaves_of_memories(conn: store.Conn, memory_ids: Sequence[UUID]) -> dict[UUID, tuple[str, str]]:
    """memory id -> (leaf id, leaf name), for the memories that have a leaf."""
    return store.leaves_of_memories(conn, memory_ids) if memory_ids else {}


def memory_vectors(conn: store.Conn, memory_ids: Sequence[UUID]) -> dict[UUID, list[float]]:
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


@dataclass
class ErasedFromTopics:
    renamed: list[tuple[str, str, str]] = field(default_factory=list)  # (topic id, old name, new name)
    removed: int = 0


def topics_holding(conn: store.Conn, memory_ids: Sequence[UUID]) -> list[DictRow]:
    """Before an erasure deletes these memories: their leaves and the topics above (forget_memories' input)."""
    return store.topics_holding(conn, memory_ids) if memory_ids else []


def erased_words(texts: Sequence[str]) -> set[str]:
    """Every word a topic name could have taken from these texts."""
    return {w for t in texts for w in words(t, None)}


def forget_memories(conn: store.Conn, holding: Sequence[DictRow], gone_words: set[str]) -> ErasedFromTopics:
    """After an erasure deleted memories (topics_holding taken before): each topic that held one loses
    it from its count, and its name the words only the erased memories said (a leaf keeps a word a
    remaining member says; a topic above drops every such word until the next rebuild names it afresh);
    leaves left empty are removed. Cheap: no clustering, no LLM."""
    out = ErasedFromTopics()
    for t in holding:
        renamed = None
        if t["is_leaf"]:
            counts: Counter[str] = Counter()
            for text in store.leaf_member_texts(conn, t["id"]):
                counts.update(set(words(text)))
            renamed = name_without(
                t["name"], t["keywords"], gone_words - set(counts), [w for w, _ in counts.most_common(12)]
            )
        else:
            renamed = name_without(t["name"], t["keywords"], gone_words)
        store.shrink_topic(conn, t["id"], t["erased"], *(renamed or (None, None)))
        if renamed is not None:
            out.renamed.append((t["id"], t["name"], renamed[0]))
    out.removed = store.delete_empty_topics(conn, [t["id"] for t in holding])
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
