"""Rebuilding a namespace's topic tree: cluster its memories, keep the ids of the topics that
stayed, name what is new or changed, and publish the tree whole in the caller's transaction."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

from engram.adapters import llm
from engram.core.db import Conn
from engram.indexing.vectors import active_space, vector_literal
from engram.topics import store
from engram.topics.clustering import Matrix, Node, TreeParams, build_tree, match_ids, normalise, walk
from engram.topics.models import NamedBy
from engram.topics.naming import (
    NAMING_BATCH,
    TOPIC_NAMING_SYSTEM,
    keyword_label,
    keyword_names,
    naming_prompt,
    parse_names,
    words,
)
from engram.topics.rows import MemoryVectors, PreviousTopic, TopicRow

Ask = Callable[[str, str, str], str | None]  # (purpose, system, prompt) -> the answer, None when refused/failed
Placed = list[tuple[Node, Node | None, int]]  # every node of a tree with its parent and depth, parents first
Naming = tuple[str, NamedBy]


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


def tree_params(conn: Conn) -> TreeParams:
    """Defaults, with the active embedding space's calibrated `topic_*` values over them."""
    return TreeParams.from_overrides(store.space_thresholds(conn))


def rebuild_tree(
    conn: Conn,
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

    previous = {t.id: t for t in store.previous_topics(conn, namespace)}
    old_sets = _previous_member_sets(conn, namespace, previous)
    new_sets = [frozenset(loaded.ids[int(i)] for i in node.members) for node, _p, _d in nodes]
    _give_ids(conn, tenant_id, nodes, new_sets, old_sets, summary)
    kw_of = _keywords(roots, nodes, loaded.texts)
    names = _names(nodes, new_sets, previous, old_sets, kw_of, loaded.texts, ask, summary)
    rows, members = _tree_rows(nodes, names, kw_of, previous, x, loaded)
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


def _give_ids(
    conn: Conn,
    tenant_id: UUID,
    nodes: Placed,
    new_sets: list[frozenset[UUID]],
    old_sets: dict[str, set[UUID]],
    summary: RebuildSummary,
) -> None:
    """Each node takes the id of the previous topic its members match, or a new one."""
    matched = match_ids(new_sets, {k: frozenset(v) for k, v in old_sets.items()})
    fresh = iter(store.allocate_topic_ids(conn, tenant_id, sum(1 for m in matched if m is None)))
    for (node, _p, _d), tid in zip(nodes, matched, strict=True):
        node.id = tid or next(fresh)
    summary.kept_ids = sum(1 for m in matched if m is not None)
    summary.new_ids = len(matched) - summary.kept_ids


def _keywords(roots: list[Node], nodes: Placed, texts: list[str]) -> dict[int, list[str]]:
    """Per node (by id()): the words that set it apart from its siblings."""
    counts = _word_counts(nodes, [set(words(t)) for t in texts])
    groups = [roots] + [node.children for node, _p, _d in nodes if node.children]
    named = keyword_names([[counts[id(n)] for n in g] for g in groups])
    return {id(n): kw for g, kws in zip(groups, named, strict=True) for n, kw in zip(g, kws, strict=True)}


def _names(
    nodes: Placed,
    new_sets: list[frozenset[UUID]],
    previous: dict[str, PreviousTopic],
    old_sets: dict[str, set[UUID]],
    kw_of: dict[int, list[str]],
    texts: list[str],
    ask: Ask | None,
    summary: RebuildSummary,
) -> dict[str, Naming]:
    """Keywords against siblings for all; the LLM for topics that are new or changed."""
    names: dict[str, Naming] = {}
    dirty: list[tuple[str, list[str], list[str]]] = []
    for node, new_set in zip((n for n, _p, _d in nodes), new_sets, strict=True):
        assert node.id is not None
        old = previous.get(node.id)
        if old is not None and old.named_by == "llm" and old_sets.get(node.id) == set(new_set):
            names[node.id] = (old.name, "llm")  # unchanged: its name stands, no call
            continue
        names[node.id] = (keyword_label(kw_of[id(node)]), "keywords")
        dirty.append((node.id, kw_of[id(node)], [texts[int(i)][:200] for i in node.members[:4]]))
    if ask is not None and dirty and llm.llm_unavailable(optional=True) is None:
        taken = {n for tid, (n, by) in names.items() if by == "llm"}
        given, summary.llm_calls = _llm_names(ask, dirty, taken)
        for tid, name in given.items():
            names[tid] = (name, "llm")
        summary.llm_named = len(given)
    return names


def _tree_rows(
    nodes: Placed,
    names: dict[str, Naming],
    kw_of: dict[int, list[str]],
    previous: dict[str, PreviousTopic],
    x: Matrix,
    loaded: MemoryVectors,
) -> tuple[list[TopicRow], list[tuple[str, UUID, float]]]:
    """The topics to publish, and each leaf's members with their cosine to its centroid."""
    rows: list[TopicRow] = []
    members: list[tuple[str, UUID, float]] = []
    for node, parent, depth in nodes:
        assert node.id is not None
        old = previous.get(node.id)
        name, by = names[node.id]
        rows.append(
            TopicRow(
                id=node.id,
                parent_id=parent.id if parent else None,
                depth=depth,
                is_leaf=node.is_leaf,
                name=name,
                keywords=kw_of[id(node)],
                named_by=by,
                member_count=len(node.members),
                centroid=vector_literal(node.centroid.tolist()),
                created_at=old.created_at if old else None,
            )
        )
        if node.is_leaf:
            sims = x[node.members] @ node.centroid
            members += [
                (node.id, loaded.ids[int(i)], round(float(s), 4)) for i, s in zip(node.members, sims, strict=True)
            ]
    return rows, members


def _word_counts(nodes: Placed, member_words: list[set[str]]) -> dict[int, Counter[str]]:
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


def _previous_member_sets(conn: Conn, namespace: str, previous: dict[str, PreviousTopic]) -> dict[str, set[UUID]]:
    """Members of every previous topic: a leaf's own, a node's through its leaves."""
    sets = store.previous_leaf_members(conn, namespace)
    children: dict[str, list[str]] = {}
    for tid, row in previous.items():
        if row.parent_id:
            children.setdefault(row.parent_id, []).append(tid)

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
