"""Topics: clustering quality on a labelled set, id stability, rebuild time at 10k and 100k memories
per namespace, and how much of a task's evidence prime covers against plain recall at one budget.

    .venv/bin/python -m bench.quality.topics [--per-subject 50] [--sizes 10000,100000] [--skip-scale]

1. Quality: 12 subjects in 6 pairs of near-topics that are easy to confuse (PostgreSQL indexes /
   replication, Python packaging / testing, sourdough / pastry, garden birds / insects, running /
   cycling, Kubernetes networking / storage), `--per-subject` memories each written from the
   subject's terms and templates shared by all subjects, embedded with the local MiniLM embedder.
   Leaves (engram.topics.clustering with the default parameters) against the labels: adjusted Rand
   index and NMI, for the leaves and for the top-level topics.
2. Stability: 10% more memories, rebuilt, ids matched as a rebuild matches them (match_ids): the
   share of the first memories whose leaf id is unchanged.
3. Scale: rebuild_tree through the service on a real PostgreSQL (row-level security on), memories
   with synthetic 384-d vectors around 400 centres loaded with COPY: load + cluster + name + publish.
4. Prime vs recall: tasks that span two or three subjects; the share of the task's subjects present
   in what prime returns, against recall with the same budget_chars.
"""

from __future__ import annotations

import argparse
import random
import time
from uuid import UUID, uuid4

import numpy as np

from bench.harness import local_stack, new_tenant
from engram.topics.clustering import TreeParams, build_leaves, build_tree, match_ids, normalise, walk

TEMPLATES = [
    "Remember that {a} matters most when {b} is involved.",
    "Note from today: {a} and {b} came up again.",
    "We decided to look at {a} before touching {b}.",
    "{a} turned out to depend on {b}.",
    "The checklist says: check {a}, then {b}.",
    "Lesson learned: {a} goes wrong without {b}.",
    "A reminder about {a}: keep {b} in mind.",
    "Question for later: how does {a} relate to {b}?",
]
SUBJECTS: dict[str, list[str]] = {
    "pg_indexes": [
        "a B-tree index",
        "a GIN index on the tags column",
        "index bloat",
        "CREATE INDEX CONCURRENTLY",
        "a partial index",
        "an index-only scan",
        "REINDEX",
        "a covering index with INCLUDE",
        "the planner choosing a sequential scan",
        "a multicolumn index order",
    ],
    "pg_replication": [
        "streaming replication",
        "replica lag",
        "WAL shipping",
        "a logical replication slot",
        "failover to the standby",
        "synchronous_commit",
        "pg_basebackup",
        "the replication origin",
        "a hot standby conflict",
        "promoting the replica",
    ],
    "py_packaging": [
        "the pyproject.toml build backend",
        "a wheel for manylinux",
        "the sdist",
        "pip install -e",
        "version pins in requirements",
        "publishing to PyPI with twine",
        "entry points",
        "a namespace package",
        "the lock file",
        "optional dependency extras",
    ],
    "py_testing": [
        "a pytest fixture",
        "parametrized tests",
        "mocking the HTTP client",
        "test coverage",
        "a flaky test",
        "the conftest.py file",
        "property-based tests with hypothesis",
        "snapshot tests",
        "the tmp_path fixture",
        "marking slow tests",
    ],
    "sourdough": [
        "the sourdough starter",
        "a long cold proof",
        "the dutch oven bake",
        "scoring the loaf",
        "rye flour in the levain",
        "the crumb structure",
        "stretch and folds",
        "hydration at 75 percent",
        "the autolyse",
        "a sour tang in the bread",
    ],
    "pastry": [
        "laminated croissant dough",
        "cold butter in the pastry",
        "blind baking a tart case",
        "choux pastry",
        "puff pastry folds",
        "a crème pâtissière",
        "egg wash on the pastry",
        "resting the shortcrust",
        "a soggy pastry bottom",
        "the mille-feuille layers",
    ],
    "birds": [
        "the robin at the feeder",
        "blue tits in the nest box",
        "goldfinches on the nyjer seed",
        "a sparrowhawk over the garden",
        "swallows nesting under the eaves",
        "the woodpecker drumming",
        "a wren in the hedge",
        "starlings murmurating",
        "the blackbird singing at dusk",
        "a bird bath",
    ],
    "insects": [
        "bumblebees on the lavender",
        "aphids on the roses",
        "ladybird larvae",
        "a bug hotel",
        "hoverflies in the border",
        "butterflies on the buddleia",
        "the ant nest under the patio",
        "wasps at the jam jar",
        "caterpillars eating the cabbages",
        "a moth trap overnight",
    ],
    "running": [
        "the long run on Sunday",
        "interval sessions on the track",
        "running shoes with 600 km",
        "a tempo run",
        "the marathon taper",
        "a running cadence of 180",
        "shin splints",
        "the parkrun time",
        "easy zone 2 runs",
        "a hill repeat session",
    ],
    "cycling": [
        "the road bike chain",
        "cycling cadence on the climbs",
        "tubeless tyres",
        "a power meter",
        "the group ride on Saturday",
        "bike fit and saddle height",
        "gear ratios for the hills",
        "a turbo trainer session",
        "cleats on the cycling shoes",
        "the sportive route",
    ],
    "k8s_networking": [
        "a Kubernetes Service of type LoadBalancer",
        "the ingress controller",
        "a NetworkPolicy",
        "CoreDNS in the cluster",
        "the CNI plugin",
        "kube-proxy iptables rules",
        "a headless Service",
        "the service mesh sidecar",
        "pod to pod traffic",
        "an egress gateway",
    ],
    "k8s_storage": [
        "a PersistentVolumeClaim",
        "the StorageClass for SSDs",
        "a StatefulSet volume",
        "the CSI driver",
        "volume snapshots in Kubernetes",
        "ReadWriteMany access mode",
        "an emptyDir volume",
        "resizing a persistent volume",
        "the reclaim policy Retain",
        "a hostPath volume",
    ],
}
LABELS = list(SUBJECTS)


def labelled_set(per_subject: int, rng: random.Random) -> tuple[list[str], list[int]]:
    texts, labels = [], []
    for k, terms in enumerate(SUBJECTS.values()):
        for _ in range(per_subject):
            a, b = rng.sample(terms, 2)
            text = rng.choice(TEMPLATES).format(a=a, b=b)
            texts.append(text[0].upper() + text[1:])
            labels.append(k)
    return texts, labels


def _comb2(x: np.ndarray) -> float:
    return float((x * (x - 1) / 2).sum())


def ari_nmi(labels: list[int], clusters: list[int]) -> tuple[float, float]:
    u, v = np.unique(labels, return_inverse=True)[1], np.unique(clusters, return_inverse=True)[1]
    table = np.zeros((u.max() + 1, v.max() + 1))
    np.add.at(table, (u, v), 1)
    n = table.sum()
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    index, expected = _comb2(table), _comb2(rows) * _comb2(cols) / (n * (n - 1) / 2)
    maximum = (_comb2(rows) + _comb2(cols)) / 2
    ari = (index - expected) / (maximum - expected) if maximum != expected else 1.0
    p = table / n
    nz = p > 0
    mi = float((p[nz] * np.log(p[nz] / np.outer(rows / n, cols / n)[nz])).sum())
    h = [-float((q[q > 0] * np.log(q[q > 0])).sum()) for q in (rows / n, cols / n)]
    nmi = mi / ((h[0] + h[1]) / 2) if sum(h) else 1.0
    return ari, nmi


def quality(per_subject: int, seed: int) -> tuple[list[str], list[int], np.ndarray]:
    from engram.adapters.embeddings.factory import embedder_from_env

    rng = random.Random(seed)
    texts, labels = labelled_set(per_subject, rng)
    extra_texts, _extra = labelled_set(max(1, per_subject // 10), random.Random(seed + 1))
    embedder = embedder_from_env()
    t = time.perf_counter()
    x = normalise(np.array(embedder.embed(texts + extra_texts)))
    print(
        f"labelled set: {len(texts)} memories on {len(SUBJECTS)} subjects (6 near-topic pairs), "
        f"embedded with {embedder.model_id} in {time.perf_counter() - t:.1f} s"
    )
    p = TreeParams()
    first = x[: len(texts)]
    roots = build_tree(first, p)
    nodes = walk(roots)
    leaves = [n for n, _p, _d in nodes if n.is_leaf]
    leaf_of = np.zeros(len(texts), dtype=int)
    for j, leaf in enumerate(leaves):
        leaf_of[leaf.members] = j
    top_of = np.zeros(len(texts), dtype=int)
    for j, root in enumerate(roots):
        top_of[root.members] = j
    ari, nmi = ari_nmi(labels, leaf_of.tolist())
    print(
        f"  leaves: {len(leaves)} (sizes {min(len(n.members) for n in leaves)}-"
        f"{max(len(n.members) for n in leaves)})  ARI {ari:.3f}  NMI {nmi:.3f}"
    )
    ari, nmi = ari_nmi(labels, top_of.tolist())
    print(f"  top-level topics: {len(roots)}  ARI {ari:.3f}  NMI {nmi:.3f}")
    pair_of = [k // 2 for k in labels]
    ari, nmi = ari_nmi(pair_of, leaf_of.tolist())
    print(f"  leaves against the 6 pairs (near-topics merged): ARI {ari:.3f}  NMI {nmi:.3f}")

    # Stability: the first build's leaves get ids; 10% more memories; the rebuild keeps ids by overlap.
    old = {f"t{j + 1}": frozenset(int(i) for i in leaf.members) for j, leaf in enumerate(leaves)}
    t = time.perf_counter()
    new_leaves = build_leaves(x, p)
    seconds = time.perf_counter() - t
    ids = match_ids([frozenset(int(i) for i in m) for m in new_leaves], old)
    new_id_of = {int(i): (tid or f"new{j}") for j, (m, tid) in enumerate(zip(new_leaves, ids, strict=True)) for i in m}
    old_id_of = {i: tid for tid, members in old.items() for i in members}
    kept = sum(1 for i in range(len(texts)) if new_id_of[i] == old_id_of[i])
    print(
        f"  +{len(extra_texts)} memories (10%), rebuilt in {seconds:.2f} s: {kept / len(texts):.1%} of the first "
        f"{len(texts)} keep their leaf id; {sum(1 for i in ids if i)} of {len(new_leaves)} leaves kept an id"
    )
    return texts, labels, x[: len(texts)]


def _load(dsn: str, tenant: UUID, namespace: str, texts: list[str], vectors: np.ndarray, model_id: str) -> None:
    import psycopg

    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        ids = [uuid4() for _ in texts]
        with cur.copy("COPY memories (id, tenant_id, namespace, content, content_hash) FROM STDIN") as copy:
            for mid, text in zip(ids, texts, strict=True):
                copy.write_row((mid, tenant, namespace, text, mid.bytes))
        with cur.copy(
            "COPY chunks (tenant_id, memory_id, namespace, kind, occurred_at, position, text, embedding,"
            " embedding_dim, model_id, embedded_at) FROM STDIN"
        ) as copy:
            for mid, text, v in zip(ids, texts, vectors, strict=True):
                copy.write_row(
                    (
                        tenant,
                        mid,
                        namespace,
                        "semantic",
                        "2026-11-01T00:00:00Z",
                        0,
                        text,
                        "[" + ",".join(f"{float(f):.6g}" for f in v) + "]",
                        len(v),
                        model_id,
                        "2026-11-01T00:00:00Z",
                    )
                )
        conn.commit()
        conn.execute("ANALYZE memories")
        conn.execute("ANALYZE chunks")


def scale(dsn: str, tenant: UUID, model_id: str, dim: int, sizes: list[int], seed: int) -> None:
    from engram.topics import service as topics

    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(3000)]
    for n in sizes:
        centres = normalise(rng.normal(size=(400, dim)))
        which = rng.integers(400, size=n)
        vectors = normalise(centres[which] + 0.06 * rng.normal(size=(n, dim)))
        texts = [" ".join(words[(c * 7 + k * 13) % 3000] for k in range(6)) + f" note {i}" for i, c in enumerate(which)]
        ns = f"scale-{n}"
        t = time.perf_counter()
        _load(dsn, tenant, ns, texts, vectors, model_id)
        loaded = time.perf_counter() - t
        for run in (1, 2):
            t = time.perf_counter()
            built = topics.rebuild(tenant, ns, use_llm=False)
            took = time.perf_counter() - t
            print(
                f"rebuild at {n:,} memories (run {run}): {took:.1f} s  (load {built.timings.get('load', 0):.1f} s,"
                f" cluster {built.timings.get('cluster', 0):.1f} s; {built.leaves} leaves, {built.topics} topics,"
                f" {built.kept_ids} ids kept)  [COPY of the rows: {loaded:.0f} s]"
            )


def coverage(
    dsn: str, tenant: UUID, texts: list[str], labels: list[int], x: np.ndarray, model_id: str, budget: int, seed: int
) -> None:
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.priming import service as priming
    from engram.priming.models import PrimeRequest
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall
    from engram.topics import service as topics

    ns = "coverage"
    _load(dsn, tenant, ns, texts, x, model_id)
    topics.rebuild(tenant, ns, use_llm=False)
    label_of = dict(zip(texts, labels, strict=True))
    embedder = embedder_from_env()
    rng = random.Random(seed)
    asks = {
        "pg_indexes": "slow queries and indexes",
        "pg_replication": "the standby replica",
        "py_packaging": "building and publishing the package",
        "py_testing": "the test suite",
        "sourdough": "the sourdough bread",
        "pastry": "the pastry",
        "birds": "the garden birds",
        "insects": "the insects in the garden",
        "running": "my running training",
        "cycling": "the bike rides",
        "k8s_networking": "cluster networking",
        "k8s_storage": "persistent volumes",
    }
    shares: dict[str, list[float]] = {"recall": [], "prime": []}
    for _ in range(40):
        subjects = rng.sample(LABELS, rng.choice((2, 3)))
        task = "Before I start: I need to sort out " + ", and ".join(asks[s] for s in subjects) + "."
        wanted = {LABELS.index(s) for s in subjects}
        hits = recall(
            tenant, RecallRequest(query=task, namespace=ns, limit=10, budget_chars=budget, touch=False), embedder
        ).results
        got = {label_of.get(h.chunk.text) for h in hits if hasattr(h, "chunk")}
        shares["recall"].append(len(wanted & got) / len(wanted))
        primed = priming.prime(
            tenant, PrimeRequest(task=task, namespace=ns, budget_chars=budget, limit=10), embedder
        ).results
        got = {label_of.get(r.text) for r in primed}
        shares["prime"].append(len(wanted & got) / len(wanted))
    r, p = np.mean(shares["recall"]), np.mean(shares["prime"])
    print(
        f"evidence coverage over 40 tasks spanning 2-3 subjects, {budget} chars, limit 10: "
        f"recall {r:.1%} of the task's subjects, prime {p:.1%} ({p / r:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-subject", type=int, default=50)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--budget", type=int, default=1500)
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    texts, labels, x = quality(args.per_subject, args.seed)

    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.indexing.vectors import ensure_embedding_space

    embedder = embedder_from_env()
    with local_stack(prefix="engram-bench-topics-") as stack:
        import psycopg
        from psycopg.rows import dict_row

        with psycopg.connect(stack.dsn, row_factory=dict_row) as owner:
            ensure_embedding_space(owner, embedder.model_id, x.shape[1])
        tenant = new_tenant(stack).tenant_id
        coverage(stack.dsn, tenant, texts, labels, x, embedder.model_id, args.budget, args.seed)
        if not args.skip_scale:
            scale(stack.dsn, tenant, embedder.model_id, x.shape[1], [int(s) for s in args.sizes.split(",")], args.seed)


if __name__ == "__main__":
    main()
