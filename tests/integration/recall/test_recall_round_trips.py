"""What one recall sends the database: the feedback weights and the critical facts come with the
candidates, and the windows' messages and the recall event travel with the commit, so a recall over a
conversation runs three statements in a round trip of their own (the tenant, the scan settings, the
candidates) and two pipelines (a memory result's activity note with its graph lookup; the messages and
the event with the commit). The weights, the critical facts, the messages and the event were a round
trip each."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg


@contextmanager
def statements_sent() -> Iterator[list[tuple[str, bool]]]:
    """Every statement the process runs inside the block: (its text, whether it went in a pipeline)."""
    sent: list[tuple[str, bool]] = []
    original = psycopg.Cursor.execute

    def recording(cur: psycopg.Cursor[Any], query: Any, params: Any = None, **kw: Any) -> Any:
        text = query if isinstance(query, str) else query.as_string(cur.connection)
        sent.append((" ".join(text.split()), cur.connection._pipeline is not None))
        return original(cur, query, params, **kw)

    setattr(psycopg.Cursor, "execute", recording)  # noqa: B010 (mypy: an overloaded method)
    try:
        yield sent
    finally:
        setattr(psycopg.Cursor, "execute", original)  # noqa: B010


def test_a_conversation_recall_with_feedback_and_a_critical_fact_runs_three_statements(
    api: Any, drain: Any, tenant: Any
) -> None:
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall

    cid = api.post("/v1/conversations", {"namespace": "rt"}).body["id"]
    turns = [{"role": "user", "content": f"Note {i}: the harbour lantern was moved to pier {i}."} for i in range(6)]
    assert api.post(f"/v1/conversations/{cid}/messages", {"messages": turns}).status == 201
    fact = api.post("/v1/memories", {"content": "Never moor at pier 9.", "namespace": "rt", "critical": True})
    drain()
    question = {"query": "where is the harbour lantern?", "namespace": "rt", "touch": False}
    first = api.post("/v1/recall", question).body
    marked = first["results"][-1]["chunk"]["id"]
    assert api.post("/v1/feedback", {"recall_id": first["recall_id"], "useful": [marked]}).status == 201

    with statements_sent() as sent:
        found = recall(UUID(tenant.id), RecallRequest(**question, explain=True), embedder_from_env())

    hits = [h for h in found.results if hasattr(h, "chunk")]
    assert hits[0].memory_id == UUID(fact.body["memory"]["id"]) and hits[0].critical
    assert {h.chunk.id: h.explain.feedback for h in hits if h.explain}[UUID(marked)] == 1.25
    assert found.recall_id is not None
    on_their_own = [text for text, piped in sent if not piped]
    assert len(on_their_own) == 3, on_their_own
    assert "engram.tenant_id" in on_their_own[0] and "hnsw.iterative_scan" in on_their_own[1]
    assert "feedback_weights" in on_their_own[2] and "critical_rank" in on_their_own[2]
    in_pipelines = [text for text, piped in sent if piped]
    piped = [text.split(" (")[0].split(" AS ")[0] for text in in_pipelines]
    assert piped[0] == "INSERT INTO namespace_activity" and "subject" in piped[1]  # the memory's contradictions
    assert "FROM messages m" in in_pipelines[2]  # the messages, then the event, committed without a WAL wait
    assert piped[3:] == ["INSERT INTO recall_events", "SET LOCAL synchronous_commit = off"]
    assert all(h.messages for h in hits if h.conversation_id is not None)  # read after the pipeline's sync


def test_only_the_recall_commits_without_waiting_for_the_disk(api: Any, drain: Any, tenant: Any) -> None:
    """A recall's bookkeeping (its event, the touch, the activity note) commits asynchronously; the
    pooled connection's next transaction, which may be a write the caller is promised, waits again,
    and the recall's event is there for the feedback that names it."""
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.core.db import tenant_transaction
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall

    note = {"content": "The harbour lantern hangs at pier 4.", "namespace": "rt"}
    assert api.post("/v1/memories", note).status == 201
    drain()
    with tenant_transaction(UUID(tenant.id)) as conn:  # this thread's connection: the recall's session
        conn.execute("SET synchronous_commit = on")  # as a durable server runs (the tests' server does not)
    try:
        found = recall(UUID(tenant.id), RecallRequest(query="harbour lantern", namespace="rt"), embedder_from_env())
        with tenant_transaction(UUID(tenant.id)) as conn:
            setting = conn.execute("SELECT current_setting('synchronous_commit') AS value").fetchone()
            event = conn.execute("SELECT count(*) AS n FROM recall_events WHERE id = %s", (found.recall_id,)).fetchone()
    finally:
        with tenant_transaction(UUID(tenant.id)) as conn:
            conn.execute("RESET synchronous_commit")
    assert setting is not None and setting["value"] == "on"
    assert event is not None and event["n"] == 1


def test_the_shared_index_statement_puts_the_plan_setting_back(api: Any, drain: Any, tenant: Any) -> None:
    """Through the shared indexes the candidate statement runs with a generic plan; the transaction's
    plan_cache_mode is what it was before it, for the statements that follow."""
    from engram.core.db import tenant_transaction
    from engram.recall.candidate_store import CandidateQuery, ScanStrategy
    from engram.recall.models import RecallRequest
    from engram.recall.plan_store import plan_recall
    from engram.recall.store import candidate_rows

    note = {"content": "The harbour lantern hangs at pier 4.", "namespace": "rt"}
    assert api.post("/v1/memories", note).status == 201
    drain()
    req = RecallRequest(query="harbour lantern", namespace="rt")
    with tenant_transaction(UUID(tenant.id)) as conn:
        question = CandidateQuery(query=req.query, vector=None, k=10)
        rows = candidate_rows(conn, plan_recall(req), question, ScanStrategy())  # no scope: the shared indexes
        setting = conn.execute("SELECT current_setting('plan_cache_mode') AS mode").fetchone()
    assert [r.text for r in rows] == ["The harbour lantern hangs at pier 4."]
    assert setting is not None and setting["mode"] == "auto"


def test_the_candidates_read_critical_facts_only_where_the_namespaces_read_hold_one(
    api: Any, drain: Any, tenant: Any
) -> None:
    """The scan settings' round trip asks whether a critical memory is in the namespaces read; without
    one, the candidate statement leaves out the part that reads them, and a critical fact written next
    comes first in the next recall."""
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall

    elsewhere = {"content": "Never moor at pier 9.", "namespace": "other", "critical": True}
    assert api.post("/v1/memories", elsewhere).status == 201
    lantern = {"content": "The harbour lantern hangs at pier 4.", "namespace": "rt"}
    assert api.post("/v1/memories", lantern).status == 201
    drain()
    question = RecallRequest(query="where is the harbour lantern?", namespace="rt", touch=False)

    def candidate_statement(sent: list[tuple[str, bool]]) -> str:
        return next(text for text, _ in sent if "feedback_weights" in text or "kw AS" in text)

    with statements_sent() as sent:
        found = recall(UUID(tenant.id), question, embedder_from_env())
    assert "WHERE m.critical" not in candidate_statement(sent)
    assert [h.critical for h in found.results if hasattr(h, "critical")] == [False]

    fact = api.post("/v1/memories", {"content": "The lantern is lit at dusk.", "namespace": "rt", "critical": True})
    drain()
    with statements_sent() as sent:
        found = recall(UUID(tenant.id), question, embedder_from_env())
    assert "WHERE m.critical" in candidate_statement(sent)
    hits = [h for h in found.results if hasattr(h, "critical")]
    assert hits[0].critical and hits[0].memory_id == UUID(fact.body["memory"]["id"])
    # Every namespace read (no namespace named) holds the one in "other".
    everywhere = recall(UUID(tenant.id), RecallRequest(query="pier", touch=False), embedder_from_env())
    assert sum(h.critical for h in everywhere.results if hasattr(h, "critical")) == 2


def test_the_exact_scans_statement_is_never_prepared(api: Any, drain: Any, tenant: Any) -> None:
    """A prepared statement is planned generic once PostgreSQL finds that plan no dearer than the first
    five; for the exact scan that plan ignores the filters' values (a namespace and tag at 100k: 47 ms
    against 20), so its statement goes unnamed and is planned for its values every time."""
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.core.db import tenant_transaction
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall

    for i in range(3):
        note = {"content": f"The harbour lantern hangs at pier {i}.", "namespace": "rt", "tags": ["harbour"]}
        assert api.post("/v1/memories", note).status == 201
    drain()
    for query in ("lantern", "harbour", "pier", "where is it", "hangs", "the lantern at the pier", "harbour light"):
        request = RecallRequest(query=query, namespace="rt", tags=["harbour"], touch=False)
        assert recall(UUID(tenant.id), request, embedder_from_env()).results
    with tenant_transaction(UUID(tenant.id)) as conn:  # this thread's connection: the recalls' session
        prepared = conn.execute(
            "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE '%%scoped AS MATERIALIZED%%'"
        ).fetchone()
    assert prepared is not None and prepared["n"] == 0


def _chunk_rows_read(plan: dict[str, Any]) -> int:
    """Rows of chunks an EXPLAIN ANALYZE (FORMAT JSON) plan's scans of the table returned."""
    own = int(plan.get("Actual Rows", 0)) * int(plan.get("Actual Loops", 1)) if plan.get("Relation Name") else 0
    return (own if plan.get("Relation Name") == "chunks" else 0) + sum(
        _chunk_rows_read(p) for p in plan.get("Plans", [])
    )


def test_a_word_in_more_rows_than_the_weights_count_is_left_out_unread(api: Any, drain: Any, tenant: Any) -> None:
    """Through the text index, a word in more rows than the weights count (idf_rows: its weight would be
    ~0) is read only one row past that count and leaves the keyword list; the rare word's rows rank."""
    from psycopg import sql

    from engram.core.db import tenant_transaction
    from engram.recall.candidate_store import CandidateQuery, ScanStrategy, candidate_statement
    from engram.recall.models import RecallRequest
    from engram.recall.plan_store import plan_recall

    notes = [{"content": f"Harbour log {i}: calm water.", "namespace": "rt"} for i in range(40)]
    notes += [{"content": f"Harbour log {i}: the lantern was lit.", "namespace": "rt"} for i in range(40, 43)]
    assert api.post("/v1/memories/batch", {"items": notes}).status in (200, 201, 207)
    drain()
    req = RecallRequest(query="harbour lantern", namespace="rt", mode="keyword", touch=False)
    question = CandidateQuery(query=req.query, vector=None, k=100, idf_rows=10)
    with tenant_transaction(UUID(tenant.id)) as conn:
        statement, params = candidate_statement(plan_recall(req), question, ScanStrategy(pending_rows=0, scope_rows=43))
        rows = conn.execute(statement, params).fetchall()
        explained = conn.execute(sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) {}").format(statement), params).fetchone()
    ranked = [r for r in rows if r["rank"] is not None]
    assert len(ranked) == 3 and all("lantern" in r["text"] for r in ranked)
    assert explained is not None
    # "harbour": 11 of its 43 rows (one past the 10 counted), "lantern": its 3, the 3 candidates' rows.
    assert _chunk_rows_read(next(iter(explained.values()))[0]["Plan"]) <= 11 + 3 + 3
