"""Building a topic tree from unit vectors (a topic hierarchy), pure numpy: spherical k-means,
split of loose or oversized leaves, merge of close leaves, absorption of tiny ones, a leaf budget,
a hierarchy over leaf centroids, and stable ids by member overlap with the previous tree.

Deterministic: every random choice comes from a generator seeded by the caller (same input, same tree).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
Indices = npt.NDArray[np.int64]


@dataclass(frozen=True)
class TreeParams:
    """The topic tree's parameters; the leaf size and the coherence floor are calibrated for the local
    MiniLM embedder (docs/topics.md); an embedding space's row may override any of them."""

    assign_threshold: float = 0.30  # a new memory joins its nearest leaf at this cosine or above
    merge_threshold: float = 0.55  # leaves whose centroids are this close become one
    max_leaf_size: int = 60  # a leaf larger than this is split (8 fragments subjects)
    # A leaf is split when its two halves (2-means) are less alike than this: they are two topics.
    # Halves of one subject sit at 0.33-0.65 with MiniLM, different subjects at 0.06-0.17.
    min_internal_sim: float = 0.35
    absorb_threshold: float = 0.40  # a leaf of <= absorb_size members joins its nearest leaf at this cosine
    absorb_size: int = 2
    leaf_budget: int = 256  # at most this many leaves per namespace
    branching: int = 8  # at most this many children per node, and top-level topics
    kmeans_iterations: int = 12
    passes: int = 10  # split/merge passes until stable
    seed: int = 7

    @classmethod
    def from_overrides(cls, overrides: Mapping[str, Any] | None) -> TreeParams:
        """Defaults with an embedding space's calibrated values (keys `topic_<field>`) laid over them."""
        if not overrides:
            return cls()
        names = {f.name: f.type for f in fields(cls)}
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            name = key.removeprefix("topic_")
            if key.startswith("topic_") and name in names and isinstance(value, int | float):
                changes[name] = int(value) if names[name] in ("int", int) else float(value)
        return replace(cls(), **changes)


@dataclass
class Node:
    """A topic: a leaf holds member rows (indices into the input), a node holds children."""

    members: Indices
    centroid: Matrix
    children: list[Node] = field(default_factory=list)
    id: str | None = None

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def leaves(self) -> list[Node]:
        return [self] if self.is_leaf else [leaf for c in self.children for leaf in c.leaves()]


def normalise(vectors: npt.ArrayLike) -> Matrix:
    m = np.asarray(vectors, dtype=np.float32)
    if m.ndim != 2:
        raise ValueError("vectors must be a 2-d array")
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return np.asarray(m / np.where(norms == 0, 1, norms), dtype=np.float32)


def _unit(v: npt.NDArray[Any]) -> Matrix:
    n = float(np.linalg.norm(v))
    return np.asarray(v / n if n > 0 else v, dtype=np.float32)


def _centroid(x: Matrix, members: Indices) -> Matrix:
    return _unit(x[members].sum(axis=0))


def _seeds(x: Matrix, k: int, rng: np.random.Generator) -> Matrix:
    """Greedy k-means++ (a few candidates per seed, the one that most reduces the spread wins) on
    a sample: seeding reads the rows once per seed, so at 100k rows the sample keeps it cheap."""
    n = x.shape[0]
    sample = x if n <= max(2000, 40 * k) else x[rng.choice(n, size=max(2000, 40 * k), replace=False)]
    m = sample.shape[0]
    trials = 2 + int(np.log(k + 1))
    first = int(rng.integers(m))
    centers = [sample[first]]
    closest = np.clip(1.0 - sample @ sample[first], 0, None)
    for _ in range(1, k):
        weights = closest**2
        total = float(weights.sum())
        picks = rng.choice(m, size=trials, p=weights / total) if total > 0 else rng.integers(m, size=1)
        options = np.minimum(closest[:, None], np.clip(1.0 - sample @ sample[picks].T, 0, None))
        best = int(np.argmin((options**2).sum(axis=0)))
        centers.append(sample[picks[best]])
        closest = options[:, best]
    return np.stack(centers).astype(np.float32)


def _cluster_sums(x: Matrix, labels: npt.NDArray[np.int64], k: int) -> Matrix:
    """Row sums per label (np.add.at is an order of magnitude slower at 100k rows)."""
    order = np.argsort(labels, kind="stable")
    present, starts = np.unique(labels[order], return_index=True)
    sums = np.zeros((k, x.shape[1]), dtype=np.float32)
    sums[present] = np.add.reduceat(x[order], starts, axis=0)
    return sums


def spherical_kmeans(x: Matrix, k: int, rng: np.random.Generator, iterations: int) -> npt.NDArray[np.int64]:
    """Cluster labels of unit rows by cosine: k-means++ seeding, then assign/update rounds.
    An emptied cluster is re-seeded with the row furthest from its centroid."""
    n = x.shape[0]
    k = max(1, min(k, n))
    c = _seeds(x, k, rng)
    labels = np.zeros(n, dtype=np.int64)
    for i in range(iterations):
        sims = x @ c.T
        new = np.argmax(sims, axis=1)
        if i and np.array_equal(new, labels):
            break
        labels = new
        sums = _cluster_sums(x, labels, k)
        counts = np.bincount(labels, minlength=k)
        for j in np.flatnonzero(counts == 0):
            far = int(np.argmin(sims[np.arange(n), labels]))
            sums[j] = x[far]
            labels[far] = j
        c = normalise(sums)
    return labels


def _bisect(x: Matrix, members: Indices, rng: np.random.Generator, p: TreeParams) -> tuple[Indices, Indices, float]:
    """The best of three 2-means cuts (a single run on a few rows often cuts across the topics):
    the halves whose centroids are least alike, and that cosine."""
    best: tuple[Indices, Indices, float] = (members, members[:0], 1.0)
    for _ in range(3):
        labels = spherical_kmeans(x[members], 2, rng, p.kmeans_iterations)
        a, b = members[labels == 0], members[labels == 1]
        if len(a) and len(b):
            cos = float(_centroid(x, a) @ _centroid(x, b))
            if cos < best[2] or not len(best[1]):
                best = (a, b, cos)
    return best


def _split(x: Matrix, leaves: list[Indices], p: TreeParams, rng: np.random.Generator) -> tuple[list[Indices], bool]:
    """Each leaf is cut in two, and the cut kept when the leaf is oversized or its halves are less
    alike than min_internal_sim (the intra-cluster similarity), while the budget lasts."""
    out: list[Indices] = []
    changed = False
    room = p.leaf_budget - len(leaves)
    for members in sorted(leaves, key=len, reverse=True):
        if room > 0 and len(members) >= 2:
            a, b, cos = _bisect(x, members, rng, p)
            if len(b) and (len(members) > p.max_leaf_size or cos < p.min_internal_sim):
                out += [a, b]
                room -= 1
                changed = True
                continue
        out.append(members)
    return out, changed


def _merge(x: Matrix, leaves: list[Indices], p: TreeParams) -> tuple[list[Indices], bool]:
    """Greedy: the closest pair of leaves above the threshold first, unless the union is too large.
    merge_threshold > min_internal_sim, so a merged pair is never split again as two topics."""
    if len(leaves) < 2:
        return leaves, False
    cents = np.stack([_centroid(x, m) for m in leaves])
    sims = cents @ cents.T
    np.fill_diagonal(sims, -1.0)
    sizes = np.array([len(m) for m in leaves])
    pairs = np.argwhere(np.triu(sims >= p.merge_threshold, 1))
    order = sorted(map(tuple, pairs), key=lambda ij: -sims[ij[0], ij[1]])
    used: set[int] = set()
    merged: list[Indices] = []
    for i, j in order:
        if i in used or j in used or sizes[i] + sizes[j] > p.max_leaf_size:
            continue
        used |= {i, j}
        merged.append(np.concatenate([leaves[i], leaves[j]]))
    rest = [m for i, m in enumerate(leaves) if i not in used]
    return merged + rest, bool(merged)


def _absorb(x: Matrix, leaves: list[Indices], p: TreeParams) -> list[Indices]:
    """Leaves of a member or two join their nearest larger leaf when their members sit, on average,
    within absorb_threshold of its centroid (not the small leaf's own centroid: the unit mean of two
    unlike rows overstates how close they are to anything)."""
    big = [m for m in leaves if len(m) > p.absorb_size]
    small = [m for m in leaves if len(m) <= p.absorb_size]
    if not big or not small:
        return leaves
    cents = np.stack([_centroid(x, m) for m in big])
    extra: list[list[Indices]] = [[] for _ in big]
    kept: list[Indices] = []
    for m in small:
        sims = (x[m] @ cents.T).mean(axis=0)
        j = int(np.argmax(sims))
        if sims[j] >= p.absorb_threshold:
            extra[j].append(m)
        else:
            kept.append(m)
    return [np.concatenate([m, *e]) if e else m for m, e in zip(big, extra, strict=True)] + kept


def _refine(x: Matrix, leaves: list[Indices], iterations: int) -> list[Indices]:
    """Each row to its nearest leaf centroid, a few rounds: bisection never moves a row that went
    down the wrong branch; this does. Emptied leaves disappear."""
    for _ in range(iterations):
        cents = np.stack([_centroid(x, m) for m in leaves])
        labels = np.argmax(x @ cents.T, axis=1)
        moved = [np.flatnonzero(labels == j) for j in range(len(leaves))]
        moved = [m for m in moved if len(m)]
        if len(moved) == len(leaves) and all(np.array_equal(a, np.sort(b)) for a, b in zip(moved, leaves, strict=True)):
            break
        leaves = moved
    return leaves


def build_leaves(x: Matrix, p: TreeParams) -> list[Indices]:
    """Leaves of unit rows: k-means to a start, split/merge passes until stable, the leaf budget,
    absorption of tiny leaves. Each leaf's member indices are sorted."""
    n = x.shape[0]
    if n == 0:
        return []
    rng = np.random.default_rng(p.seed)
    k = min(p.leaf_budget, max(1, int(np.ceil(n / p.max_leaf_size))))
    labels = spherical_kmeans(x, k, rng, p.kmeans_iterations)
    leaves = [np.flatnonzero(labels == j) for j in range(int(labels.max()) + 1)]
    leaves = [m for m in leaves if len(m)]
    for _ in range(p.passes):
        leaves, split = _split(x, leaves, p, rng)
        leaves, merged = _merge(x, leaves, p)
        leaves = _refine(x, leaves, 3)
        if not split and not merged:
            break
    if len(leaves) > p.leaf_budget:  # merges of far leaves: the budget wins over the thresholds
        cents = np.stack([_centroid(x, m) for m in leaves])
        groups = spherical_kmeans(cents, p.leaf_budget, rng, p.kmeans_iterations)
        leaves = [np.concatenate([leaves[i] for i in np.flatnonzero(groups == g)]) for g in np.unique(groups)]
    leaves = _refine(x, _absorb(x, leaves, p), 3)
    return sorted((np.sort(m) for m in leaves), key=lambda m: (-len(m), int(m[0])))


def build_hierarchy(x: Matrix, leaves: Sequence[Indices], p: TreeParams) -> list[Node]:
    """Top-level nodes over the leaves: leaf centroids grouped by k-means, level by level, until at
    most `branching` remain. A group of one is not a node (single-child pruning)."""
    rng = np.random.default_rng(p.seed + 1)
    level = [Node(members=m, centroid=_centroid(x, m)) for m in leaves]
    while len(level) > p.branching:
        k = max(p.branching, int(np.ceil(len(level) / p.branching)))
        k = min(k, len(level) - 1)
        cents = np.stack([node.centroid for node in level])
        labels = spherical_kmeans(cents, k, rng, p.kmeans_iterations)
        grouped: list[Node] = []
        for g in np.unique(labels):
            kids = [level[i] for i in np.flatnonzero(labels == g)]
            if len(kids) == 1:
                grouped.append(kids[0])
                continue
            members = np.sort(np.concatenate([kid.members for kid in kids]))
            grouped.append(Node(members=members, centroid=_centroid(x, members), children=kids))
        if len(grouped) == len(level):  # nothing grouped: stop rather than loop
            break
        level = grouped
    return sorted(level, key=lambda node: -len(node.members))


def build_tree(x: Matrix, p: TreeParams) -> list[Node]:
    return build_hierarchy(x, build_leaves(x, p), p)


def walk(roots: Sequence[Node]) -> list[tuple[Node, Node | None, int]]:
    """Every node with its parent and depth, parents before children."""
    out: list[tuple[Node, Node | None, int]] = []
    stack: list[tuple[Node, Node | None, int]] = [(r, None, 0) for r in reversed(roots)]
    while stack:
        node, parent, depth = stack.pop()
        out.append((node, parent, depth))
        stack.extend((c, node, depth + 1) for c in reversed(node.children))
    return out


def match_ids(new_sets: Sequence[frozenset[Any]], old: Mapping[str, frozenset[Any]]) -> list[str | None]:
    """Stable ids: a new topic takes the id of the old topic it shares most members with, when
    the shared members are more than half of both (it kept most of its members and is mostly
    them); each old id goes to one topic at most, largest overlaps first. None: a new id."""
    by_member: dict[Any, list[str]] = {}  # a memory is in its leaf and in every node above it
    for tid, members in old.items():
        for m in members:
            by_member.setdefault(m, []).append(tid)
    proposals: list[tuple[int, int, str]] = []
    for i, members in enumerate(new_sets):
        counts: dict[str, int] = {}
        for m in members:
            for owner in by_member.get(m, ()):
                counts[owner] = counts.get(owner, 0) + 1
        for owner, shared in counts.items():
            if 2 * shared > len(members) and 2 * shared > len(old[owner]):
                proposals.append((shared, i, owner))
    ids: list[str | None] = [None] * len(new_sets)
    taken: set[str] = set()
    for _shared, i, tid in sorted(proposals, key=lambda t: (-t[0], t[1], t[2])):
        if ids[i] is None and tid not in taken:
            ids[i] = tid
            taken.add(tid)
    return ids
