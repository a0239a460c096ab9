"""Consolidation at scale: time per step, memories/s, LLM calls per 1k memories, precision and recall
of merges and supersessions, and the continuations a Lambda worker needs within its time budget.

    .venv/bin/python -m bench.quality.consolidation [--sizes 10000 100000] [--llm off,fake] [--budget 600]
                                            [--vectors real|synthetic] [--recall-quality]

One namespace per size and LLM mode, loaded with COPY (not through the API), most of it in the
`working` layer as an established namespace is, the newest 150 memories in `buffer`:
  - duplicates (5% of the memories): a fact restated; half near-exact (case, spacing, a word
    added or dropped), half reworded (the LLM's business);
  - updates (2%): the same subject with one value changed, written 1-3 days later (the newer one
    should supersede the older);
  - near-misses (2% pairs): the same template and subject kind, a different subject and values
    (related but different: nothing may merge or supersede);
  - the rest: distinct facts from the same templates.
Vectors: the local MiniLM model (`real`, embedded once per size and seed and cached under
.local/bench/: 100k texts take a few minutes), or `synthetic` ones built per fact with the cosines
MiniLM gives such pairs (duplicates ~0.95, updates and near-misses ~0.85, unrelated ~0.1). Rows are
loaded with COPY and the HNSW index built once afterwards.

Before the first applied run of a size, a plan (a dry run of reconcile alone) counts the pairs
reconcile would ask the LLM about; up to 20k memories also with the rare-token rule off (every
token counted as rare), the window alone.

The run is driven batch by batch (run_cycle with a tiny budget returns after each committed
batch), so each batch's time is attributed to its step; continuations are then counted as the
worker would need them with --budget seconds per invocation. With `--llm fake`, a local Messages
API answers from the ground truth (merge a real duplicate, "update" a real update, keep_both
otherwise), so precision and recall measure the pipeline, not a model.

--recall-quality: the conversation bench's user turns (bench/quality/conversation_data.py) and every turn
of the long conversations (bench/quality/longconv_data.py) stored as memories, one namespace per
conversation; evidence recall at 2k/4k/8k characters before and after an applied run (LLM off).
Conversation turns themselves (POST /v1/conversations/...) are never touched by consolidation, so
bench/quality/conversation_recall.py's own figures cannot change with a run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import numpy as np

from bench.harness import local_stack, new_tenant
from engram_local.json_stand_in import JsonStandIn, Request, message

VECTOR_CACHE = Path(__file__).resolve().parents[2] / ".local" / "bench"  # MiniLM vectors per size and seed

SERVICES = [
    "billing",
    "search",
    "checkout",
    "ledger",
    "auth",
    "mailer",
    "reports",
    "catalog",
    "pricing",
    "inventory",
    "gateway",
    "profile",
    "payments",
    "shipping",
    "notify",
    "metrics",
    "archive",
    "tickets",
]
PEOPLE = [
    "Ana",
    "Bram",
    "Chloe",
    "Dmitri",
    "Esme",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Kenji",
    "Lior",
    "Maren",
    "Nadia",
    "Oskar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tomas",
    "Uma",
    "Viktor",
    "Wanda",
    "Yusuf",
]
REGIONS = ["eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1", "sa-east-1"]
DRINKS = ["green tea", "espresso", "oat latte", "sparkling water", "rooibos", "flat white"]
CITIES = ["Lisbon", "Oslo", "Kyoto", "Quito", "Tunis", "Tallinn", "Perth", "Bogota", "Hanoi", "Zagreb"]
FOODS = ["sesame", "shellfish", "peanuts", "kiwi", "gluten", "mustard"]
TEAMS = ["platform", "data", "mobile", "growth", "security", "infra", "web", "ml"]

# Each template: text with slots, and the slot that an update changes.
TEMPLATES: list[tuple[str, str]] = [
    ("The {svc} service in {region} runs {n} replicas behind load balancer lb-{id}.", "n"),
    ("{person} (profile {id}) prefers {drink} in the morning and no meetings before {hour}:00.", "drink"),
    ("Deploys of {svc} are frozen on Fridays; ticket OPS-{id} tracks the exception until week {week}.", "week"),
    ("The {team} team's on-call rotation changes every {n} days; pager alias {team}-oncall-{id}.", "n"),
    ("Backup job {svc}-backup-{id} writes to bucket {team}-archive-{id} at {hour}:30 UTC.", "hour"),
    ("{person} is allergic to {food}; team lunch orders go through account {id}.", "food"),
    ("The {svc} database db-{id} listens on port {port} with a connection pool of {n}.", "port"),
    ("Invoice INV-{id} for the {team} team is due on day {day} of the month, {amount} EUR.", "amount"),
    ("{person} flies to {city} on flight EW{id}, leaving at {hour}:15 from terminal {n}.", "hour"),
    ("Restart {svc} with `systemctl restart {svc}-{id}` after rotating its certificates every {n} weeks.", "n"),
    ("{person} leads the {team} team and reviews pull requests on repository {svc}-{id}.", "team"),
    ("Feature flag {svc}_beta_{id} is enabled for {n} percent of users in {region}.", "n"),
]
REWORD = [
    ("prefers", "likes"),
    ("runs", "operates"),
    ("writes to", "stores into"),
    ("changes every", "rotates every"),
    ("listens on", "uses"),
    ("leaves at", "departs at"),
    ("leads", "manages"),
    ("enabled for", "turned on for"),
    ("is due on", "must be paid by"),
    ("tracks", "covers"),
    ("go through", "use"),
    ("after rotating", "once it rotates"),
]


def slots(rng: random.Random, fact: int) -> dict[str, Any]:
    return {
        "svc": rng.choice(SERVICES),
        "region": rng.choice(REGIONS),
        "n": rng.randint(2, 90),
        "id": 1000 + fact,
        "person": rng.choice(PEOPLE),
        "drink": rng.choice(DRINKS),
        "hour": rng.randint(7, 11),
        "week": rng.randint(1, 52),
        "team": rng.choice(TEAMS),
        "food": rng.choice(FOODS),
        "port": rng.randint(5400, 5499),
        "day": rng.randint(1, 28),
        "amount": rng.randint(100, 9999),
        "city": rng.choice(CITIES),
    }


def changed(rng: random.Random, values: dict[str, Any], slot: str) -> dict[str, Any]:
    """The same subject with the update slot changed to a different value."""
    new = dict(values)
    while new[slot] == values[slot]:
        new[slot] = slots(rng, values["id"] - 1000)[slot]
    return new


def near_exact(rng: random.Random, text: str) -> str:
    choice = rng.randrange(4)
    if choice == 0:
        return text.lower().rstrip(".")
    if choice == 1:
        return text.replace(" ", "  ", 2)
    if choice == 2:
        return "Note: " + text
    return text.rstrip(".") + " (confirmed)."


def reworded(rng: random.Random, text: str) -> str:
    out = text
    for a, b in REWORD:
        if a in out:
            out = out.replace(a, b, 1)
    return "To remember: " + out if out == text else out


@dataclass
class Memory:
    id: UUID
    content: str
    created_at: datetime
    layer: str
    fact: int
    role: str  # unique, dup_source, dup, old, new, miss_a, miss_b
    style: str = ""  # near_exact | reworded, for duplicates


@dataclass
class Corpus:
    memories: list[Memory] = field(default_factory=list)
    duplicates: set[frozenset[UUID]] = field(default_factory=set)
    updates: set[tuple[UUID, UUID]] = field(default_factory=set)  # (newer, older)
    near_misses: set[frozenset[UUID]] = field(default_factory=set)
    by_content: dict[str, Memory] = field(default_factory=dict)


def build_corpus(n: int, seed: int) -> Corpus:
    rng = random.Random(seed)
    now = datetime.now(UTC)
    corpus = Corpus()
    n_dup, n_upd, n_miss = n * 5 // 100, n * 2 // 100, n * 2 // 100
    n_unique = n - 2 * n_dup - 2 * n_upd - 2 * n_miss + n_dup  # a duplicate's source is a unique fact too
    fact = 0

    def add(content: str, role: str, created: datetime, style: str = "") -> Memory:
        assert content not in corpus.by_content, content
        m = Memory(uuid4(), content, created, "working", fact, role, style)
        corpus.memories.append(m)
        corpus.by_content[content] = m
        return m

    for i in range(n_unique):
        fact += 1
        template, _ = TEMPLATES[fact % len(TEMPLATES)]
        text = template.format(**slots(rng, fact))
        created = now - timedelta(days=rng.uniform(3, 200))
        src = add(text, "dup_source" if i < n_dup else "unique", created)
        if i < n_dup:
            style = "near_exact" if i % 2 == 0 else "reworded"
            twin = near_exact(rng, text) if style == "near_exact" else reworded(rng, text)
            dup = add(twin, "dup", created + timedelta(hours=rng.uniform(0.1, 48)), style)
            corpus.duplicates.add(frozenset((src.id, dup.id)))
    for _ in range(n_upd):
        fact += 1
        template, slot = TEMPLATES[fact % len(TEMPLATES)]
        values = slots(rng, fact)
        created = now - timedelta(days=rng.uniform(4, 200))
        old = add(template.format(**values), "old", created)
        new = add(template.format(**changed(rng, values, slot)), "new", created + timedelta(days=rng.uniform(1, 3)))
        corpus.updates.add((new.id, old.id))
    for _ in range(n_miss):
        fact += 1
        template, _ = TEMPLATES[fact % len(TEMPLATES)]
        created = now - timedelta(days=rng.uniform(4, 200))
        a = add(template.format(**slots(rng, fact)), "miss_a", created)
        fact += 1
        b = add(template.format(**slots(rng, fact)), "miss_b", created + timedelta(days=rng.uniform(1, 3)))
        corpus.near_misses.add(frozenset((a.id, b.id)))
    corpus.memories.sort(key=lambda m: m.created_at)
    for m in corpus.memories[-150:]:
        m.layer = "buffer"  # what arrived since the last run
    return corpus


# --- vectors ----------------------------------------------------------------------------------


def real_vectors(texts: list[str]) -> np.ndarray:
    from engram.adapters.embeddings.factory import embedder_from_env

    embedder = embedder_from_env()
    out = []
    for i in range(0, len(texts), 256):
        out += embedder.embed(texts[i : i + 256])
    return np.asarray(out, dtype=np.float32)


def synthetic_vectors(corpus: Corpus, dim: int, seed: int) -> np.ndarray:
    """Per fact a random direction; a duplicate sits at cosine ~0.95 of its source, an update's newer
    side and a near-miss's partner at ~0.85 of their counterpart (what MiniLM gives such pairs)."""
    rng = np.random.default_rng(seed)
    index = {m.id: i for i, m in enumerate(corpus.memories)}
    vecs = rng.normal(size=(len(corpus.memories), dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)

    def near(src: np.ndarray, cosine: float) -> np.ndarray:
        noise = rng.normal(size=dim).astype(np.float32)
        noise -= noise.dot(src) * src
        noise /= np.linalg.norm(noise)
        return cosine * src + np.sqrt(1 - cosine**2) * noise

    for pair in corpus.duplicates:
        a, b = sorted(pair, key=str)
        vecs[index[b]] = near(vecs[index[a]], rng.uniform(0.93, 0.98))
    for newer, older in corpus.updates:
        vecs[index[newer]] = near(vecs[index[older]], rng.uniform(0.75, 0.92))
    for pair in corpus.near_misses:
        a, b = sorted(pair, key=str)
        vecs[index[b]] = near(vecs[index[a]], rng.uniform(0.75, 0.92))
    return vecs


# --- loading ----------------------------------------------------------------------------------


def load(dsn: str, tenant_id: str, namespace: str, corpus: Corpus, vecs: np.ndarray, model_id: str) -> None:
    import psycopg
    from psycopg import sql

    from engram.core.text import content_hash
    from engram.indexing.vectors import hnsw_index_name, hnsw_index_sql, vector_literal

    dim = vecs.shape[1]
    index = sql.Identifier(hnsw_index_name(dim))
    with psycopg.connect(dsn) as conn:
        # Inserting 100k rows into a live HNSW graph took over 27 minutes on a busy machine: drop it,
        # COPY, and build it once afterwards (the same definition engram.indexing.vectors creates).
        conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(index))
        with conn.cursor().copy(
            "COPY memories (id, tenant_id, namespace, kind, layer, content, content_hash, importance, tags,"
            " created_at, updated_at, layer_epoch) FROM STDIN"
        ) as copy:
            for m in corpus.memories:
                copy.write_row(
                    (
                        m.id,
                        tenant_id,
                        namespace,
                        "semantic",
                        m.layer,
                        m.content,
                        content_hash(m.content),
                        0.5,
                        ["bench"],
                        m.created_at,
                        m.created_at,
                        0,
                    )
                )
        with conn.cursor().copy(
            "COPY chunks (tenant_id, memory_id, namespace, kind, tags, occurred_at, position, text, embedding,"
            " embedding_dim, model_id, embedded_at) FROM STDIN"
        ) as copy:
            for m, v in zip(corpus.memories, vecs, strict=True):
                copy.write_row(
                    (
                        tenant_id,
                        m.id,
                        namespace,
                        "semantic",
                        ["bench"],
                        m.created_at,
                        0,
                        m.content,
                        vector_literal(v.tolist()),
                        dim,
                        model_id,
                        m.created_at,
                    )
                )
        conn.commit()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(hnsw_index_sql(dim))
        conn.execute("VACUUM ANALYZE memories")
        conn.execute("VACUUM ANALYZE chunks")


# --- a Messages API that knows the truth ---------------------------------------------------------


class TruthfulClaude:
    def __init__(self, corpus: Corpus) -> None:
        self.calls: dict[str, int] = defaultdict(int)
        self.corpus = corpus

        def respond(request: Request) -> dict[str, Any]:
            prompt = request.body["messages"][0]["content"]
            text = self.answer(request.body.get("system") or "", prompt)
            return message(request.body, text, (len(prompt) // 4 + 150, len(text) // 4 + 5))

        self.stand_in = JsonStandIn(respond)
        self.url = self.stand_in.url

    def answer(self, system: str, prompt: str) -> str:
        by = self.corpus.by_content.get
        if "near-duplicate" in system:
            self.calls["merge"] += 1
            parts = [p.split(":\n", 1)[1] for p in prompt.split("\n\n") if p.startswith("Memory ")]
            a, b = (by(p) for p in parts[:2])
            if a and b and frozenset((a.id, b.id)) in self.corpus.duplicates:
                return json.dumps({"merge": True, "content": parts[0]})
            return '{"merge": false}'
        if "same topic" in system:
            self.calls["reconcile"] += 1
            older, newer = prompt.split("\n\nB (newer):\n", 1)
            a, b = by(older.removeprefix("A (older):\n")), by(newer)
            if a and b and (b.id, a.id) in self.corpus.updates:
                return '{"decision": "update"}'
            return '{"decision": "keep_both"}'
        self.calls["gate"] += 1
        return '{"decision": "reject"}'

    def stop(self) -> None:
        self.stand_in.close()


# --- running and scoring --------------------------------------------------------------------------


@dataclass
class RunFigures:
    seconds_by_step: dict[str, float]
    batches_by_step: dict[str, int]
    total_s: float
    continuations: int
    invocations: int
    llm_calls: int
    actions: dict[str, int]
    merges: set[frozenset[UUID]]
    supersessions: set[tuple[UUID, UUID]]
    extrapolated: dict[str, int] = field(default_factory=dict)  # step -> batches measured (the rest estimated)
    per_invocation: list[float] = field(default_factory=list)  # seconds of each worker invocation
    longest_batch: tuple[float, str] = (0.0, "")  # seconds, and of what (a batch's step, or an invocation)


def _skip_rest_of_step(dsn: str, run_id: UUID) -> None:
    """Move the run's checkpoint to the next step, as the service does when a step ends."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        conn.execute(
            "UPDATE consolidation_runs SET step_index = step_index + 1,"
            " step_cursor = jsonb_build_object('since', step_cursor->'since') WHERE id = %s",
            (run_id,),
        )


def drive(
    dsn: str, tenant_id: str, namespace: str, budget_s: float, sample: int | None = None, memories: int = 0
) -> RunFigures:
    """Run a whole cycle as the worker does: run_cycle with the time budget, one connection per
    invocation, a continuation while it says so. With `sample`, batch by batch instead, dedupe and
    reconcile stopping after that many batches, the rest of the step estimated from their mean."""
    from engram.consolidation import service
    from engram.core.db import tenant_transaction

    with tenant_transaction(tenant_id) as conn:
        run_id = service.start_run(conn, UUID(tenant_id), namespace, dry_run=False, steps=None, trigger="cli")
    if sample:
        return _drive_by_batch(dsn, tenant_id, run_id, budget_s, sample, memories)
    per_invocation: list[float] = []
    batches = 0
    while True:
        t0 = time.perf_counter()
        progress = service.run_cycle(dsn, UUID(tenant_id), run_id, time_budget_s=budget_s)
        per_invocation.append(time.perf_counter() - t0)
        batches += progress.batches
        if progress.status != "continue":
            assert progress.status == "done", progress
            break
    run = service.get_run(UUID(tenant_id), run_id)
    seconds = {c.step: c.seconds for c in run.step_counts}
    return _figures(dsn, run_id, seconds, {"all": batches}, per_invocation, {}, (max(per_invocation), "invocation"))


def _drive_by_batch(dsn: str, tenant_id: str, run_id: UUID, budget_s: float, sample: int, memories: int) -> RunFigures:
    import psycopg

    from engram.consolidation import service
    from engram.consolidation.settings import consolidation_settings
    from engram.core.config import settings

    seconds: dict[str, float] = defaultdict(float)
    batches: dict[str, int] = defaultdict(int)
    durations: list[float] = []
    extrapolated: dict[str, int] = {}
    longest = (0.0, "")
    batch_size = consolidation_settings().consolidation_batch_size
    pair_batch = batch_size if settings().llm_level == "off" else min(batch_size, 50)
    with psycopg.connect(dsn) as conn:
        while True:
            row = conn.execute("SELECT steps, step_index FROM consolidation_runs WHERE id = %s", (run_id,)).fetchone()
            conn.commit()
            assert row is not None
            step = row[0][row[1]] if row[1] < len(row[0]) else "finish"
            t0 = time.perf_counter()
            progress = service.run_cycle(dsn, UUID(tenant_id), run_id, time_budget_s=1e-6)
            took = time.perf_counter() - t0
            seconds[step] += took
            batches[step] += 1
            durations.append(took)
            longest = max(longest, (took, f"batch ({step})"))
            if progress.status != "continue":
                assert progress.status == "done", progress
                break
            if step in ("dedupe", "reconcile") and batches[step] >= sample:
                total = -(-memories // pair_batch)
                if total > batches[step]:
                    mean = seconds[step] / batches[step]
                    extrapolated[step] = batches[step]
                    durations += [mean] * (total - batches[step])
                    seconds[step] = mean * total
                    batches[step] = total
                    _skip_rest_of_step(dsn, run_id)
    # The worker checks its deadline after each batch: replay the batch times against the budget.
    per_invocation = [0.0]
    for d in durations:
        if per_invocation[-1] >= budget_s:
            per_invocation.append(0.0)
        per_invocation[-1] += d
    return _figures(dsn, run_id, dict(seconds), dict(batches), per_invocation, extrapolated, longest)


def _figures(
    dsn: str,
    run_id: UUID,
    seconds: dict[str, float],
    batches: dict[str, int],
    per_invocation: list[float],
    extrapolated: dict[str, int],
    longest: tuple[float, str],
) -> RunFigures:
    import psycopg

    with psycopg.connect(dsn) as conn:
        actions = conn.execute(
            "SELECT action, memory_ids, details FROM consolidation_actions WHERE run_id = %s", (run_id,)
        ).fetchall()
        run = conn.execute("SELECT llm_calls FROM consolidation_runs WHERE id = %s", (run_id,)).fetchone()
        assert run is not None, run_id
        llm_calls = run[0]
    counts: dict[str, int] = defaultdict(int)
    merges: set[frozenset[UUID]] = set()
    supersessions: set[tuple[UUID, UUID]] = set()
    for action, ids, details in actions:
        counts[action] += 1
        if action == "merge":
            merges.add(frozenset(UUID(str(i)) for i in ids))
        elif action == "supersede":
            supersessions.add((UUID(details["survivor"]), UUID(details["superseded"])))
    return RunFigures(
        seconds,
        batches,
        sum(per_invocation),
        len(per_invocation) - 1,
        len(per_invocation),
        llm_calls,
        dict(counts),
        merges,
        supersessions,
        extrapolated,
        per_invocation,
        longest,
    )


def reconcile_plan(dsn: str, tenant_id: str, namespace: str, rare_rule: bool) -> tuple[int, float]:
    """The pairs reconcile would ask about, as a plan counts them (a dry run of that step: no call,
    nothing changes); with rare_rule False every token counts as rare (the similarity window alone)."""
    from engram.consolidation import service
    from engram.core.db import tenant_transaction
    from engram_local.stack import LocalStack

    if not rare_rule:
        os.environ["ENGRAM_CONSOLIDATION_RECONCILE_RARE_SHARE"] = "1"
        LocalStack.refresh_settings()
    try:
        with tenant_transaction(tenant_id) as conn:
            run_id = service.start_run(
                conn, UUID(tenant_id), namespace, dry_run=True, steps=["reconcile"], trigger="cli"
            )
        t0 = time.perf_counter()
        while service.run_cycle(dsn, UUID(tenant_id), run_id, time_budget_s=1e9).status == "continue":
            pass
        took = time.perf_counter() - t0
    finally:
        os.environ.pop("ENGRAM_CONSOLIDATION_RECONCILE_RARE_SHARE", None)
        LocalStack.refresh_settings()
    counts = service.get_run(UUID(tenant_id), run_id).step_counts
    return sum(c.candidates for c in counts if c.step == "reconcile"), took


def precision_recall(found: set[Any], truth: set[Any]) -> tuple[float, float]:
    hit = len(found & truth)
    return (hit / len(found) if found else 1.0), (hit / len(truth) if truth else 1.0)


def report(n: int, mode: str, vectors: str, corpus: Corpus, f: RunFigures, budget: float) -> None:
    merge_p, merge_r = precision_recall(f.merges, corpus.duplicates)
    dup_style = {m.id: m.style for m in corpus.memories if m.role == "dup"}
    by_style: dict[str, tuple[int, int]] = {}
    for style in ("near_exact", "reworded"):
        truth = {p for p in corpus.duplicates if any(dup_style.get(i) == style for i in p)}
        by_style[style] = (len(f.merges & truth), len(truth))
    sup_p, sup_r = precision_recall(f.supersessions, corpus.updates)
    wrong = {p for p in corpus.near_misses if p in f.merges or any(frozenset(s) == p for s in f.supersessions)}
    print(f"\n## {n:,} memories, LLM {mode}, {vectors} vectors")
    print("step          batches   seconds")
    for step, secs in f.seconds_by_step.items():
        note = (
            f"   (estimated: {f.extrapolated[step]} batches measured, the rest at their mean)"
            if step in f.extrapolated
            else ""
        )
        batches = f.batches_by_step.get(step)
        print(f"  {step:12s} {batches if batches is not None else '':>7} {secs:9.2f}{note}")
    print(f"  {'total':12s} {sum(f.batches_by_step.values()):7d} {f.total_s:9.2f}   {n / f.total_s:,.0f} memories/s")
    if "all" in f.batches_by_step:
        print("  (seconds per step: inside its batches; the total also counts commits and the worker's own work)")
    print(f"actions: {json.dumps(f.actions, sort_keys=True)}")
    if f.extrapolated:
        print("(precision and recall below cover only the measured batches)")
    print(
        f"merges:        precision {merge_p:.3f} recall {merge_r:.3f}  (near-exact {by_style['near_exact'][0]}/"
        f"{by_style['near_exact'][1]}, reworded {by_style['reworded'][0]}/{by_style['reworded'][1]})"
    )
    print(
        f"supersessions: precision {sup_p:.3f} recall {sup_r:.3f}  ({len(f.supersessions)} made, "
        f"{len(corpus.updates)} planted)"
    )
    print(f"near-misses merged or superseded: {len(wrong)} of {len(corpus.near_misses)}")
    updates = {frozenset(p) for p in corpus.updates}
    false_merges = f.merges - corpus.duplicates
    if false_merges:
        as_update = false_merges & updates
        print(
            f"false merges: {len(false_merges)}, of which {len(as_update)} were update pairs merged as duplicates"
            " (the older text survives)"
        )
    print(f"LLM calls: {f.llm_calls} ({f.llm_calls / n * 1000:.1f} per 1k memories)")
    print(
        f"worker invocations at a {budget:.0f} s budget: {f.invocations} ({f.continuations} continuations),"
        f" seconds each: {', '.join(f'{x:.0f}' for x in f.per_invocation)}; longest {f.longest_batch[1]}"
        f" {f.longest_batch[0]:.1f} s; Lambda allows 900 s per invocation"
    )


# --- recall quality before and after --------------------------------------------------------------


def load_turns_as_memories(
    dsn: str, tenant: str, sets: list[Any], model_id: str, roles: set[str], prefix: str
) -> list[tuple[str, Any, set[UUID]]]:
    """Each turn of `roles` a memory (one namespace per conversation), as an agent that notes what it
    is told would write them; returns (namespace, question, evidence memory ids) for the questions."""
    import psycopg

    evidence: list[tuple[str, Any, set[UUID]]] = []
    for u, ds in enumerate(sets):
        ns = f"{prefix}{u}"
        ids: dict[tuple[int, int], UUID] = {}
        corpus = Corpus()
        for s, session in enumerate(ds.sessions):
            for seq, turn in enumerate(session, start=1):
                if turn.role not in roles or turn.content in corpus.by_content:
                    continue
                m = Memory(uuid4(), turn.content, turn.created_at.replace(tzinfo=UTC), "buffer", 0, "unique")
                corpus.memories.append(m)
                corpus.by_content[m.content] = m
                ids[(s, seq)] = m.id
        load(dsn, tenant, ns, corpus, real_vectors([m.content for m in corpus.memories]), model_id)
        for q in ds.questions:
            wanted = {ids[e] for e in q.evidence if e in ids}
            if wanted:
                evidence.append((ns, q, wanted))
    with psycopg.connect(dsn, autocommit=True) as conn:  # as an agent wrote them: never consolidated
        conn.execute(
            "UPDATE memories SET layer_epoch = NULL WHERE tenant_id = %s AND namespace LIKE %s", (tenant, f"{prefix}%")
        )
    return evidence


def absorbed_by(dsn: str, tenant: str) -> dict[UUID, UUID]:
    """Memory -> the memory a merge of the tenant's runs folded it into (chains followed): its text
    lives on there, so finding that one finds the evidence."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT details->>'superseded', details->>'survivor' FROM consolidation_actions"
            " WHERE tenant_id = %s AND action = 'merge' AND applied",
            (tenant,),
        ).fetchall()
    into = {UUID(a): UUID(b) for a, b in rows}
    for memory in list(into):
        seen = {memory}
        while into[memory] in into and into[memory] not in seen:
            seen.add(into[memory])
            into[memory] = into[into[memory]]
    return into


def recall_quality(dsn: str, make_tenant: Any, budget_s: float) -> None:
    """Evidence recall before and after an applied run (LLM off) on two sets: the conversation bench's
    user turns, and every turn of the long conversations (chit-chat sharing the facts' vocabulary:
    near-duplicates that consolidation may merge). A merged evidence memory counts as found when
    its survivor is (the survivor holds its text)."""
    import psycopg

    from bench.quality.conversation_data import datasets
    from bench.quality.longconv_data import conversations
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.recall.models import RecallHit, RecallRequest
    from engram.recall.service import recall

    tenant = make_tenant("recall-quality")
    embedder = embedder_from_env()
    benches: list[tuple[str, list[Any], set[str], str]] = [
        ("conversation bench (held-out): user turns", datasets("heldout"), {"user"}, "conv"),
        ("long conversations (held-out): every turn", conversations("heldout"), {"user", "assistant"}, "long"),
    ]
    for title, sets, roles, prefix in benches:
        evidence = load_turns_as_memories(dsn, tenant, sets, embedder.model_id, roles, prefix)

        def measure(into: dict[UUID, UUID], evidence: list[tuple[str, Any, set[UUID]]] = evidence) -> list[float]:
            found: dict[int, list[float]] = {b: [] for b in (2000, 4000, 8000)}
            for ns, q, wanted in evidence:
                res = recall(
                    UUID(tenant),
                    RecallRequest(
                        query=q.text,
                        namespace=ns,
                        limit=40,
                        touch=False,
                        since=getattr(q, "since", None),
                        until=getattr(q, "until", None),
                    ),
                    embedder,
                )
                targets = {into.get(w, w): w for w in wanted}
                used, seen = 0, {b: set[UUID]() for b in found}
                for hit in res.results:
                    assert isinstance(hit, RecallHit)  # the full format, the request's default
                    used += len(hit.chunk.text)
                    for b in found:
                        if used <= b and hit.memory_id in targets:
                            seen[b].add(targets[hit.memory_id])
                for b in found:
                    found[b].append(len(seen[b]) / len(wanted))
            return [statistics.mean(v) for v in found.values()]

        before = measure({})
        for ns in sorted({ns for ns, _, _ in evidence}):
            drive(dsn, tenant, ns, budget_s)
        after = measure(absorbed_by(dsn, tenant))
        with psycopg.connect(dsn) as conn:
            tally = conn.execute(
                "SELECT count(*), count(*) FILTER (WHERE valid_to IS NOT NULL),"
                " count(*) FILTER (WHERE status <> 'active') FROM memories WHERE tenant_id = %s AND namespace LIKE %s",
                (tenant, f"{prefix}%"),
            ).fetchone()
        assert tally is not None
        print(f"\n## recall quality: {title} as memories, one namespace per conversation")
        print(
            f"{len(evidence)} questions, {tally[0]} memories; after the run {tally[1]} merged away,"
            f" {tally[2]} in the trash"
        )
        print("evidence recall  @2k    @4k    @8k")
        print("before run       " + "  ".join(f"{v:.3f}" for v in before))
        print("after run        " + "  ".join(f"{v:.3f}" for v in after))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--llm", default="off,fake", help="comma-separated: off, fake")
    parser.add_argument("--budget", type=float, default=600.0, help="seconds per worker invocation")
    parser.add_argument("--vectors", choices=("real", "synthetic"), default="real")
    parser.add_argument("--recall-quality", action="store_true")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--sample",
        type=int,
        default=None,
        help="measure only this many dedupe/reconcile batches and estimate the rest (large sizes)",
    )
    args = parser.parse_args()

    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress shows in a redirected log
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    os.environ["ENGRAM_CONSOLIDATION_LLM_RUN_CALLS"] = "1000000"  # the caps are tested elsewhere:
    os.environ["ENGRAM_CONSOLIDATION_LLM_RUN_TOKENS"] = "1000000000"  # here every LLM decision is made
    os.environ["ENGRAM_CONSOLIDATION_LLM_DAILY_CALLS"] = "1000000"
    os.environ["ENGRAM_CONSOLIDATION_LLM_DAILY_TOKENS"] = "1000000000"
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram_local.stack import LocalStack

    with local_stack() as stack:
        model_id = embedder_from_env().model_id

        def make_tenant(name: str) -> str:
            return str(new_tenant(stack, name).tenant_id)

        for n in args.sizes:
            corpus = build_corpus(n, args.seed)
            kind = args.vectors
            t0 = time.perf_counter()
            cache = VECTOR_CACHE / f"consolidation-{n}-{args.seed}-{model_id}.npy"
            if kind == "real" and cache.exists():  # the texts are deterministic: embed them once
                vecs = np.load(cache)
            elif kind == "real":
                vecs = real_vectors([m.content for m in corpus.memories])
                cache.parent.mkdir(parents=True, exist_ok=True)
                np.save(cache, vecs)
            else:
                vecs = synthetic_vectors(corpus, 384, args.seed)
            print(
                f"\n{n:,} memories: {len(corpus.duplicates)} duplicate pairs, {len(corpus.updates)} updates,"
                f" {len(corpus.near_misses)} near-miss pairs; {kind} vectors in {time.perf_counter() - t0:.0f} s"
            )
            texts = [m.content for m in corpus.memories]
            for i, mode in enumerate(args.llm.split(",")):
                corpus = build_corpus(n, args.seed)  # the same texts, fresh ids for this tenant's copy
                assert [m.content for m in corpus.memories] == texts
                if kind == "synthetic":
                    vecs = synthetic_vectors(corpus, 384, args.seed)
                fake = None
                if mode == "fake":
                    fake = TruthfulClaude(corpus)
                    os.environ.update(
                        ENGRAM_LLM_LEVEL="auto",
                        ANTHROPIC_API_KEY="sk-bench",
                        ENGRAM_ANTHROPIC_BASE_URL=fake.url,
                        ENGRAM_LLM_BACKOFF_S="0.01",
                    )
                else:
                    os.environ["ENGRAM_LLM_LEVEL"] = "off"
                LocalStack.refresh_settings()
                tenant = make_tenant(f"bench-{n}-{mode}")
                t0 = time.perf_counter()
                load(stack.dsn, tenant, "bench", corpus, vecs, model_id)
                print(f"loaded for LLM {mode} in {time.perf_counter() - t0:.0f} s (COPY, HNSW build, VACUUM ANALYZE)")
                if i == 0:
                    for rare_rule in (False, True) if n <= 20_000 else (True,):
                        pairs, took = reconcile_plan(stack.dsn, tenant, "bench", rare_rule)
                        print(
                            f"reconcile plan, rare-token rule {'on' if rare_rule else 'off'}: {pairs} pairs to ask"
                            f" ({pairs / n * 1000:.0f} per 1k memories), planned in {took:.0f} s"
                        )
                figures = drive(stack.dsn, tenant, "bench", args.budget, args.sample, n)
                report(n, mode, kind, corpus, figures, args.budget)
                if fake is not None:
                    print(f"fake LLM answered: {dict(fake.calls)}")
                    fake.stop()
        if args.recall_quality:
            os.environ["ENGRAM_LLM_LEVEL"] = "off"
            LocalStack.refresh_settings()
            recall_quality(stack.dsn, make_tenant, args.budget)


if __name__ == "__main__":
    main()
