"""Recall over a real conversation's namespace, the recall agents make most: latency over HTTP, where it goes.

    .venv/bin/python -m bench.perf.conversation_recall_latency                    # HTTP p50 / p95
    .venv/bin/python -m bench.perf.conversation_recall_latency --explain --profile  # and where the time goes

Loads the development conversations (LoCoMo's development split, `../shared/data/locomo-dev` or
`ENGRAM_DIALOGUE_DATA`: five dialogues of 369-680 turns, one namespace each, one conversation per
session, as `bench/quality/dialogue_recall.py` ingests them) into `make dev`'s server on a free port,
analyzes the tables (as autovacuum's next pass would), then asks their questions over real HTTP
(`budget_chars` 2,000 / 4,000 / 8,000 and `limit` 10, touch off), the four shapes alternating question
by question so a load spike falls on all of them alike.
`bench/perf/recall_latency.py` is the same figure on bare memories.

`--phases`: the budget-4,000 request in process, the wall time of each step of a recall (the query's
embedding, the scan strategy, the candidate statement, the ranking, shaping, attaching messages, the
graph and evidence lookups, the recall event and commit) and of the request around it, median per request.
`--explain`: every SQL statement one recall runs (budget 4,000), replayed in its transaction with
`EXPLAIN (ANALYZE, BUFFERS)`; the median server time of each over the questions. `--profile`: the
request in process (gateway stand-in, handler, recall) under cProfile, its CPU time by function.
On a loaded machine wall-clock figures move from run to run; the two breakdowns move less. `--serve`
keeps the server up afterwards and prints its URL and key; `--compare URL KEY` (another build's server
kept up that way) then asks both servers every question in every shape in turn, this build's first: a
before / after in one run, the load falling on both alike. `--servers URL KEY URL KEY` asks two kept-up
servers (each build's `--serve`) and serves nothing itself: the client then shares neither server's
process, as an agent's does not.

    .venv/bin/python -m bench.perf.conversation_recall_latency --serve      # in the other build's tree
    .venv/bin/python -m bench.perf.conversation_recall_latency --compare http://127.0.0.1:PORT KEY
    .venv/bin/python -m bench.perf.conversation_recall_latency --servers URL1 KEY1 URL2 KEY2  # both kept up
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import re
import statistics
import time
import urllib.request
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from bench.harness import DevServer, call, clocked, dev_server, local_stack, p50_p95, wait_for_vectors
from bench.quality.dialogue_recall import Dialogue, ingest, load

SHAPES: dict[str, dict[str, Any]] = {
    "budget_chars 2000": {"budget_chars": 2000},
    "budget_chars 4000": {"budget_chars": 4000},
    "budget_chars 8000": {"budget_chars": 8000},
    "limit 10": {"limit": 10},
}


def questions(dialogues: list[Dialogue], n: int) -> list[tuple[str, str]]:
    """(namespace, question) pairs, taken round robin over the dialogues: n questions in all."""
    out: list[tuple[str, str]] = []
    for j in range(max(len(d.questions) for d in dialogues)):
        for i, d in enumerate(dialogues):
            if j < len(d.questions) and len(out) < n:
                out.append((f"d{i}", d.questions[j].text))
    return out


def side_by_side(
    builds: dict[str, tuple[str, dict[str, str]]], asked: list[tuple[str, str]]
) -> dict[str, dict[str, list[float]]]:
    """Each question asked of every build (name -> URL and headers) in turn: ms per request, by build and shape."""
    samples: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in builds}
    for one in asked:
        for name, (url, headers) in builds.items():
            for shape, ms in http_latency(url, headers, [one]).items():
                samples[name][shape] += ms
    return samples


def budget_4000(namespace: str, query: str) -> dict[str, Any]:
    return {"query": query, "namespace": namespace, "touch": False, "budget_chars": 4000}


def http_latency(url: str, headers: dict[str, str], asked: list[tuple[str, str]]) -> dict[str, list[float]]:
    """Each question in every shape, the shapes alternating: ms per request, by shape."""
    samples: dict[str, list[float]] = defaultdict(list)
    for namespace, query in asked:
        for shape, fields in SHAPES.items():
            body = json.dumps({"query": query, "namespace": namespace, "touch": False, **fields}).encode()
            req = urllib.request.Request(url + "/v1/recall", data=body, method="POST", headers=headers)
            started = time.perf_counter()
            with urllib.request.urlopen(req, timeout=30) as resp:
                resp.read()
            samples[shape].append((time.perf_counter() - started) * 1000)
    return samples


@contextmanager
def statements_recorded() -> Iterator[list[tuple[str, Any]]]:
    """Every statement the process runs inside the block, as (SQL text, params)."""
    import psycopg

    recorded: list[tuple[str, Any]] = []
    original = psycopg.Cursor.execute

    def recording(cur: psycopg.Cursor[Any], query: Any, params: Any = None, **kw: Any) -> Any:
        text = query if isinstance(query, str) else query.as_string(cur.connection)
        recorded.append((text, params))
        return original(cur, query, params, **kw)

    setattr(psycopg.Cursor, "execute", recording)  # noqa: B010 (mypy: an overloaded method)
    try:
        yield recorded
    finally:
        setattr(psycopg.Cursor, "execute", original)  # noqa: B010


def label(statement: str) -> str:
    """A short name for a statement: its first words and the CTEs it defines."""
    ctes = re.findall(r"(\w+) AS (?:MATERIALIZED )?\(", statement)
    head = " ".join(statement.split()[:3])
    return f"{head} ... [{', '.join(dict.fromkeys(ctes))}]" if ctes else " ".join(statement.split()[:6])


def explain(tenant_id: UUID, key: str, asked: list[tuple[str, str]]) -> None:
    """Each statement of a budget-4,000 recall replayed with EXPLAIN ANALYZE in one tenant transaction,
    in the order the recall ran them (its transaction-local scan settings first): median server ms,
    and the plan of the slowest statement for the first question."""
    from engram.core.db import tenant_transaction

    server_ms: dict[str, list[float]] = defaultdict(list)
    plans: dict[str, str] = {}
    for namespace, query in asked:
        with statements_recorded() as recorded:
            call(key, "POST", "/v1/recall", budget_4000(namespace, query))
        with tenant_transaction(tenant_id) as conn:
            for statement, params in recorded:
                if not statement.lstrip().upper().startswith(("SELECT", "WITH")) or "engram." in statement:
                    continue  # the transaction's own settings: tenant_transaction made them
                row = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + statement, params).fetchone()
                assert row is not None
                plan = row["QUERY PLAN"][0]
                server_ms[label(statement)].append(plan["Planning Time"] + plan["Execution Time"])
                if label(statement) not in plans:
                    text = conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + statement, params).fetchall()
                    plans[label(statement)] = "\n".join(r["QUERY PLAN"] for r in text)
    ranked = sorted(server_ms.items(), key=lambda kv: -statistics.median(kv[1]))
    print(f"\nSQL per budget-4,000 recall, server time (planning + execution), median of {len(asked)} questions:")
    for name, ms in ranked:
        print(f"  {statistics.median(ms):7.2f} ms  x{len(ms) / len(asked):.0f}  {name}")
    print(f"  {sum(statistics.median(ms) for _, ms in ranked):7.2f} ms  in all")
    print(f"\nThe slowest, for the first question:\n{plans[ranked[0][0]]}")


def settle_statistics(dsn: str) -> None:
    """ANALYZE what the load wrote, as autovacuum does once its next pass comes (a minute at most; the load
    changed far more than the tenth of each table that sets it off). Without it, some questions met the
    plans of an empty table's statistics and the rest those of the loaded one, whichever way autovacuum's
    pass fell in the run (budget 4,000 p50 48.0 ms before it against 41.6 ms after, one run)."""
    from engram.core.db import owner_connection

    with owner_connection(dsn) as owner:
        owner.execute("ANALYZE")


def dev_tenant(dsn: str) -> UUID:
    """The dev server's tenant (engram_local.serve.dev_key made it)."""
    from engram.core.db import owner_connection

    with owner_connection(dsn) as owner:
        row = owner.execute("SELECT id FROM tenants WHERE name = 'dev'").fetchone()
    assert row is not None
    return UUID(str(row["id"]))


def profile(key: str, asked: list[tuple[str, str]], top: int) -> None:
    """The budget-4,000 recall in process under cProfile: CPU per request, by function (cumulative)."""
    profiler = cProfile.Profile()
    cpu = time.process_time()
    profiler.enable()
    for namespace, query in asked:
        call(key, "POST", "/v1/recall", budget_4000(namespace, query))
    profiler.disable()
    per_request = (time.process_time() - cpu) * 1000 / len(asked)
    print(f"\nIn process (gateway stand-in, handler, recall), budget 4,000: {per_request:.1f} ms CPU per request")
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(top)


# The steps of engram.recall.service.recall that --phases times, by the names the service calls them.
PHASES = (
    "_embed_query",
    "scan_strategy",
    "candidate_rows",
    "_rank",
    "shape_results",
    "_attach_messages",
    "_touch_and_attach_graph",
    "attach_evidence",
)


def phases(key: str, asked: list[tuple[str, str]]) -> None:
    """The budget-4,000 request in process, each recall step's wall time (the service's functions wrapped
    with a clock), and what is left: the transaction, the recall event and commit, the response, the
    gateway stand-in and handler. Median ms per request."""
    from engram.recall import service
    from engram_http.routes import recall as route

    per_request: dict[str, list[float]] = defaultdict(list)
    with clocked(service, (*PHASES, "recall")) as spent:
        original_route = getattr(route, "recall")  # noqa: B009 (mypy: imported by name, not exported)
        setattr(route, "recall", service.recall)  # noqa: B010 (the route imported the function itself)
        try:
            for namespace, query in asked:
                spent.clear()
                started = time.perf_counter()
                call(key, "POST", "/v1/recall", budget_4000(namespace, query))
                total = (time.perf_counter() - started) * 1000
                for name in PHASES:
                    per_request[name].append(spent[name])
                per_request["rest of recall (transaction, event, commit, response)"].append(
                    spent["recall"] - sum(spent[name] for name in PHASES)
                )
                per_request["around recall (gateway stand-in, authorizer, handler, JSON)"].append(
                    total - spent["recall"]
                )
                per_request["whole request"].append(total)
        finally:
            setattr(route, "recall", original_route)  # noqa: B010
    print(f"\nIn process, budget 4,000, wall ms per request (median of {len(asked)}):")
    for name, ms in per_request.items():
        print(f"  {statistics.median(ms):7.2f} ms  {name}")


def _kept_up(url: str, key: str) -> tuple[str, dict[str, str]]:
    """A kept-up server's URL and request headers."""
    other = DevServer(url, key)
    return other.url, other.headers


def compare(builds: dict[str, tuple[str, dict[str, str]]], asked: list[tuple[str, str]]) -> None:
    """Two servers asked every question in every shape in turn, each warmed alike first: p50 / p95 and
    the first's over the second's."""
    for url, headers in builds.values():
        http_latency(url, headers, asked[:10])  # warm: the embedder, the plans, the caches
    compared = side_by_side(builds, asked)
    (a, b) = builds
    print(f"Side by side, {len(asked)} questions, every shape, {a} then {b}, in turn:")
    for shape in SHAPES:
        (m50, m95), (o50, o95) = (p50_p95(compared[name][shape]) for name in builds)
        print(
            f"  {shape:18s} {a} p50 {m50:6.1f} / p95 {m95:6.1f} ms   {b} p50 {o50:6.1f} / p95 {o95:6.1f} ms"
            f"   ratio {m50 / o50:.2f} / {m95 / o95:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=150, help="questions, round robin over the dialogues")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN ANALYZE each statement of a recall")
    parser.add_argument("--profile", action="store_true", help="cProfile the request in process")
    parser.add_argument("--phases", action="store_true", help="each recall step's wall time, in process")
    parser.add_argument("--top", type=int, default=40, help="functions the profile prints")
    parser.add_argument(
        "--serve", action="store_true", help="after the figures, keep the server up (its URL and key printed)"
    )
    parser.add_argument(
        "--compare", nargs=2, metavar=("URL", "KEY"), help="ask this server and another build's in turn"
    )
    parser.add_argument(
        "--servers", nargs=4, metavar=("URL1", "KEY1", "URL2", "KEY2"), help="ask two kept-up servers in turn"
    )
    args = parser.parse_args()
    dialogues = load()
    asked = questions(dialogues, args.questions)
    if args.servers:
        first, second = _kept_up(*args.servers[:2]), _kept_up(*args.servers[2:])
        compare({"first": first, "second": second}, asked)
        return
    # Durable, as `make dev` runs: a recall commits its bookkeeping (the recall event, the activity note).
    with local_stack(durable=True, prefix="engram-convlat-") as stack, dev_server(stack) as server:
        started = time.perf_counter()
        for i, dialogue in enumerate(dialogues):
            ingest(server.key, dialogue, f"d{i}", one_conversation=False)
        wait_for_vectors(stack)
        settle_statistics(stack.dsn)
        turns = sum(d.turns for d in dialogues)
        print(f"# {len(dialogues)} dialogues, {turns} turns; ingest + embed {time.perf_counter() - started:.0f} s")
        http_latency(server.url, server.headers, asked[:10])  # warm: the embedder, the plans, the caches
        samples = http_latency(server.url, server.headers, asked)
        print(f"POST /v1/recall over HTTP, {len(asked)} questions over {len(dialogues)} conversations' namespaces:")
        for shape, ms in samples.items():
            p50, p95 = p50_p95(ms)
            print(f"  {shape:18s} p50 {p50:6.1f} ms   p95 {p95:6.1f} ms")
        if args.compare:
            compare({"this build": (server.url, server.headers), "other build": _kept_up(*args.compare)}, asked)
        if args.explain:
            explain(dev_tenant(stack.dsn), server.key, asked[:40])
        if args.phases:
            phases(server.key, asked)
        if args.profile:
            profile(server.key, asked, args.top)
        if args.serve:  # another client (another build's server beside it) asks the same questions
            print(json.dumps({"url": server.url, "key": server.key}), flush=True)
            while True:
                time.sleep(60)


if __name__ == "__main__":
    main()
