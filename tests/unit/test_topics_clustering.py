"""The topic tree's pure parts: clustering of synthetic vectors, stable ids, keyword names."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from engram.topics.clustering import (
    TreeParams,
    build_leaves,
    build_tree,
    match_ids,
    normalise,
    spherical_kmeans,
    walk,
)
from engram.topics.naming import keyword_names, parse_names, words


def _blobs(centres: int, per: int, spread: float, dim: int = 64, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    c = normalise(rng.normal(size=(centres, dim)))
    x = np.concatenate([c[i] + spread * rng.normal(size=(per, dim)) for i in range(centres)])
    return normalise(x), np.repeat(np.arange(centres), per)


def _purity(leaves: list[np.ndarray], labels: np.ndarray) -> float:
    return sum(Counter(labels[m]).most_common(1)[0][1] for m in leaves) / len(labels)


def test_kmeans_separates_clear_blobs():
    x, labels = _blobs(4, 30, 0.05)
    found = spherical_kmeans(x, 4, np.random.default_rng(0), 20)
    assert _purity([np.flatnonzero(found == j) for j in range(4)], labels) == 1.0


def test_leaves_follow_the_subjects_and_stay_within_the_size_limit():
    x, labels = _blobs(6, 40, 0.08)
    leaves = build_leaves(x, TreeParams(max_leaf_size=50))
    assert _purity(leaves, labels) == 1.0
    assert all(len(m) <= 50 for m in leaves)
    assert sorted(int(i) for m in leaves for i in m) == list(range(len(labels)))  # every row once


def test_an_oversized_subject_is_split_and_the_budget_holds():
    x, _ = _blobs(2, 100, 0.08)
    leaves = build_leaves(x, TreeParams(max_leaf_size=30, leaf_budget=5))
    assert len(leaves) <= 5
    assert len(leaves) > 2


def test_tiny_leaves_are_absorbed_by_a_close_neighbour():
    x, _ = _blobs(1, 30, 0.05)
    rng = np.random.default_rng(3)
    x = np.concatenate([x, normalise(x.mean(axis=0, keepdims=True) + 0.12 * rng.normal(size=(1, 64)))])  # near
    leaves = build_leaves(x, TreeParams(max_leaf_size=100))
    assert len(leaves) == 1


def test_the_hierarchy_groups_leaves_under_at_most_branching_top_level_topics():
    x, _ = _blobs(30, 10, 0.03)
    roots = build_tree(x, TreeParams(max_leaf_size=12, branching=4, merge_threshold=0.99))
    assert len(roots) <= 4
    nodes = walk(roots)
    leaves = [n for n, _p, _d in nodes if n.is_leaf]
    assert len(leaves) >= 20
    assert all(len(n.children) != 1 for n, _p, _d in nodes)  # no single-child nodes
    for n, _p, _d in nodes:
        if not n.is_leaf:
            assert sorted(n.members.tolist()) == sorted(i for c in n.children for i in c.members.tolist())


def test_the_tree_is_deterministic():
    x, _ = _blobs(5, 20, 0.1)
    a = [m.tolist() for m in build_leaves(x, TreeParams())]
    b = [m.tolist() for m in build_leaves(x, TreeParams())]
    assert a == b


def test_a_topic_keeps_its_id_when_it_keeps_most_of_its_members():
    old = {"t1": frozenset(range(10)), "t2": frozenset(range(10, 20)), "t3": frozenset(range(20, 24))}
    new = [
        frozenset(range(1, 12)),  # most of t1 (9 of 10), and mostly t1's
        frozenset(range(12, 14)),  # a sliver of t2: new id
        frozenset(range(20, 30)),
    ]  # t3's 4 members are under half of its 10
    assert match_ids(new, old) == ["t1", None, None]


def test_an_old_id_goes_to_one_topic_only():
    old = {"t1": frozenset(range(10))}
    assert match_ids([frozenset(range(6)), frozenset(range(10))], old) == [None, "t1"]


def test_params_take_calibrated_overrides():
    p = TreeParams.from_overrides({"topic_max_leaf_size": 20, "topic_merge_threshold": 0.6, "dedupe_cosine": 0.9})
    assert p.max_leaf_size == 20 and p.merge_threshold == 0.6 and isinstance(p.max_leaf_size, int)


def test_keyword_names_are_distinctive_against_siblings():
    docs = {
        "cooking": [
            "Sourdough bread needs a starter fed daily",
            "Knead the bread dough, proof the sourdough",
            "Bake sourdough at 250C in a dutch oven",
        ],
        "deploys": [
            "Deploy the payments service with terraform",
            "Terraform plan before every deploy",
            "The payments deploy pipeline runs terraform apply",
        ],
    }
    group = [Counter(w for d in texts for w in set(words(d))) for texts in docs.values()]
    (names,) = keyword_names([group])
    assert "sourdough" in names[0] and "bread" in names[0]
    assert "terraform" in names[1]
    assert not set(names[0]) & set(names[1])
    assert all(2 <= len(n) <= 4 for n in names)


def test_siblings_never_share_a_name():
    same = Counter({"alpha": 3, "beta": 3, "gamma": 3, "delta": 2})
    other = Counter({"alpha": 3, "beta": 3, "gamma": 3, "omega": 2})
    (names,) = keyword_names([[same, other]])
    assert names[0] != names[1]


@pytest.mark.parametrize(
    "answer,expected",
    [
        ('{"t1": "Sourdough baking", "t2": "Payments deploys"}', {"t1": "Sourdough baking", "t2": "Payments deploys"}),
        ('Here: {"t1": "Same", "t2": "same"}', {"t1": "Same"}),  # no name twice
        ('{"t1": "Taken name"}', {}),
        ("not json", {}),
        ('{"t9": "Unknown id", "t1": 5}', {}),
    ],
)
def test_llm_names_are_checked(answer, expected):
    assert parse_names(answer, ["t1", "t2"], {"taken name"}) == expected


def test_a_tree_rebuilt_unchanged_keeps_every_id_nodes_included():
    x, _ = _blobs(12, 10, 0.05)
    nodes = walk(build_tree(x, TreeParams(max_leaf_size=12, branching=3)))
    sets = [frozenset(n.members.tolist()) for n, _p, _d in nodes]
    assert any(not n.is_leaf for n, _p, _d in nodes)
    old = {f"t{i}": s for i, s in enumerate(sets)}  # a memory is in its leaf and in the nodes above it
    assert match_ids(sets, old) == list(old)
