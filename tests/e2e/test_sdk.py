"""The Python SDK (clients/python, `engram_client`) against the local server over real HTTP: every
capability an agent uses, typed results, pagination, typed errors and the document upload."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engram_client import (
    UNSET,
    AsyncEngram,
    Conflict,
    Engram,
    Forbidden,
    InvalidField,
    NewMessage,
    NotFound,
    Unauthorized,
    UploadFailed,
    UploadProgress,
    WaitTimedOut,
)
from engram_client.models import CompactHit, RecallHit


@pytest.fixture
def engram(server: str, make_tenant: Any) -> Iterator[Engram]:
    with Engram(server, make_tenant("sdk").key) as client:
        yield client


def wait_embedded(engram: Engram, ids: list[str]) -> None:
    deadline = time.monotonic() + 60
    while not all(engram.get_memory(i).embedding_status == "ready" for i in ids):
        assert time.monotonic() < deadline, "embeddings never became ready"
        time.sleep(0.2)


def test_the_readme_snippet_runs(server: str, make_tenant: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """README.md's "Connect an agent" SDK lines, run as written against the local server."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    snippet = readme.split("**Python SDK**", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    code = snippet.replace("http://127.0.0.1:8080", server).replace("egk_...", make_tenant("sdk-readme").key)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == "The deploy freeze starts on Friday.\n"


def test_memories_round_trip(engram: Engram) -> None:
    written = engram.store_memory(
        "The deploy freeze starts on Friday at 18:00.", namespace="ops", tags=["process"], source="standup"
    )
    assert not written.deduplicated and written.memory.layer == "buffer"
    memory = written.memory
    again = engram.store_memory("The deploy freeze starts on Friday at 18:00.", namespace="ops")
    assert again.deduplicated and again.memory.id == memory.id and again.memory.repetition_count == 1

    got = engram.get_memory(memory.id)
    assert got.content == memory.content and got.tags == ["process"] and isinstance(got.created_at, datetime)

    changed = engram.update_memory(memory.id, content="The deploy freeze starts on Friday at 17:00.", source=None)
    assert changed.version == 2 and changed.source is None and changed.tags == ["process"]
    untouched = engram.update_memory(memory.id, importance=0.9, tags=UNSET)
    assert untouched.importance == 0.9 and untouched.tags == ["process"]

    history = engram.memory_history(memory.id)
    assert [v.content for v in history.versions][:1] == ["The deploy freeze starts on Friday at 18:00."]

    assert engram.forget(memory.id).status == "deleted"
    assert [m.id for m in engram.iter_trash(namespace="ops")] == [memory.id]
    assert engram.restore_memory(memory.id).status == "active"


def test_iterators_walk_every_page(engram: Engram) -> None:
    batch = engram.store_memories(
        [{"content": f"Inventory note number {i}.", "namespace": "inv", "tags": ["stock"]} for i in range(7)]
        + [{"content": "x", "namespace": "inv", "tags": ["a" * 70]}]  # a tag over 64 characters: this item fails alone
    )
    assert (batch.created, batch.failed) == (7, 1)
    assert batch.results[7].status == "error" and batch.results[7].error is not None

    first = engram.list_memories(namespace="inv", limit=3)
    assert len(first.items) == 3 and first.next_cursor
    walked = list(engram.iter_memories(namespace="inv", tags=["stock"], limit=3))
    # One batch shares one created_at: the order within it is the API's tie-break, so compare as sets
    # (each memory once: no page repeats or skips one).
    assert sorted(m.content for m in walked) == [f"Inventory note number {i}." for i in range(7)]
    assert list(engram.iter_memories(namespace="inv", kind="procedural")) == []
    hour_ago = datetime.now(UTC) - timedelta(hours=1)  # an offset: "+00:00" must reach the server encoded
    assert len(list(engram.iter_memories(namespace="inv", since=hour_ago))) == 7
    assert list(engram.iter_memories(namespace="inv", until=hour_ago)) == []


def test_recall_with_its_options(engram: Engram) -> None:
    pie = engram.store_memory("Grandma's apple pie needs three Granny Smith apples and cinnamon.", namespace="r")
    ticket = engram.store_memory("Ticket OPS-7781: the nightly backup fails on a full disk.", namespace="r")
    wait_embedded(engram, [pie.memory.id, ticket.memory.id])

    found = engram.recall("how do I bake a fruit dessert?", namespace="r", mode="vector", explain=True, limit=1)
    hit = found.results[0]
    assert isinstance(hit, RecallHit) and hit.memory_id == pie.memory.id and found.degraded == []
    assert hit.explain is not None and hit.explain.vector is not None and "apple" in hit.text

    compact = engram.recall("OPS-7781", namespaces=["r"], format="compact", budget_chars=100)
    top = compact.results[0]
    assert isinstance(top, CompactHit) and top.id == ticket.memory.id and compact.used_chars <= 100

    before = datetime.now(UTC) - timedelta(days=1)
    assert engram.recall("apple pie", namespace="r", as_of=before).results == []
    assert engram.recall("apple pie", namespace="r", kinds=["episodic"], touch=False).results == []


def test_typed_errors_carry_code_and_details(engram: Engram, server: str, make_tenant: Any) -> None:
    with pytest.raises(InvalidField) as invalid:
        engram.store_memory("x", tags=["a" * 70])
    assert invalid.value.status == 422 and invalid.value.code == "invalid_field"
    assert invalid.value.field == "tags.0" and invalid.value.details["limit"] == 64

    with pytest.raises(NotFound) as missing:
        engram.get_memory("00000000-0000-4000-8000-000000000000")
    assert missing.value.code == "not_found"

    with Engram(server, "egk_not_a_key") as stranger, pytest.raises(Unauthorized):
        stranger.list_memories()
    with Engram(server, make_tenant("sdk-reader", ["read"]).key) as reader, pytest.raises(Forbidden) as forbidden:
        reader.store_memory("a reader cannot write")
    assert forbidden.value.details["required_scope"] == "write"


def test_graph(engram: Engram) -> None:
    a = engram.store_memory("Decision: the ledger runs on PostgreSQL.").memory
    b = engram.store_memory("Decision: the ledger moves to SQLite.").memory
    c = engram.store_memory("Benchmarks show SQLite cannot take our write load.").memory
    supersedes = engram.link_memories(b.id, a.id, "supersedes")
    assert supersedes.relation == "supersedes" and supersedes.created_by == "api"
    batch = engram.link_memories_batch([{"from_id": c.id, "to_id": b.id, "relation": "contradicts", "strength": 0.8}])
    assert batch.created == 1
    with pytest.raises(Conflict):
        engram.link_memories(c.id, b.id, "contradicts")

    walk = engram.traverse(a.id, depth=2, direction="both")
    assert {n.memory.id for n in walk.nodes} == {b.id, c.id}
    assert [lk.id for lk in engram.iter_links(memory_id=b.id, relations=["supersedes"], limit=1)] == [supersedes.id]
    assert [link.memory.id for link in engram.memory_history(b.id).supersedes] == [a.id]

    ended = engram.unlink(supersedes.id)
    assert ended.ended_reason == "link_deleted"
    assert [lk.id for lk in engram.iter_links(memory_id=a.id)] == []
    assert [lk.id for lk in engram.iter_links(memory_id=a.id, include_ended=True)] == [supersedes.id]


def test_conversations(engram: Engram) -> None:
    conv = engram.start_conversation(title="Planning", namespace="chat", agent_id="planner", tags=["q3"])
    first = engram.append_conversation(
        conv.id,
        [
            {"role": "user", "content": "Can we ship on Friday?"},
            {"role": "assistant", "content": "Not before the freeze lifts.", "metadata": {"confidence": 0.7}},
        ],
    )
    assert (first.seq_from, first.seq_to, first.replayed) == (1, 2, False)
    turns: list[NewMessage] = [{"role": "user", "content": f"turn {i}"} for i in range(5)]
    keyed = engram.append_conversation(conv.id, turns, idempotency_key="batch-7")
    replay = engram.append_conversation(conv.id, turns, idempotency_key="batch-7")
    assert replay.replayed and replay.seq_from == keyed.seq_from == 3

    page = engram.list_messages(conv.id, from_seq=2, to_seq=3)
    assert [m.content for m in page.items] == ["Not before the freeze lifts.", "turn 0"]
    assert [m.seq for m in engram.iter_messages(conv.id, limit=2)] == list(range(1, 8))
    assert engram.get_conversation(conv.id).message_count == 7
    assert [c.id for c in engram.iter_conversations(namespace="chat", agent_id="planner")] == [conv.id]
    assert engram.delete_conversation(conv.id).messages == 7
    with pytest.raises(NotFound):
        engram.get_conversation(conv.id)


def test_documents_inline_and_query(engram: Engram) -> None:
    body = "# Runbook\n\n## Backups\n\nThe nightly backup runs at 02:00 and keeps 14 copies.\n"
    doc = engram.store_document(body, namespace="docs", tags=["runbook"])
    assert doc.document.tier == 0 and doc.document.sha256 == hashlib.sha256(body.encode()).hexdigest()
    answer = engram.query_document(doc.memory.id, "how many copies does the backup keep?", substrings=["copies"])
    assert any("14 copies" in span.text for span in answer.spans)

    # A ticket whose PUT never comes stays pending: a wait ends in WaitTimedOut, naming the status.
    ticket = engram.create_upload(len(body), hashlib.sha256(body.encode()).hexdigest(), namespace="docs")
    assert ticket.status == "pending" and ticket.headers["Content-Length"] == str(len(body))
    with pytest.raises(WaitTimedOut, match="still pending"):
        engram.wait_for_upload(ticket.upload_id, timeout=0)


@pytest.mark.usefixtures("workers")
def test_upload_document_reports_progress_until_ready(engram: Engram, tmp_path: Path) -> None:
    # Just over 8 MiB: Tier 2, whose chunks come from the synopsis only (a Tier 1 body of a few MiB
    # would keep the embed worker busy for half a minute), and nine 1 MiB blocks to report.
    path = tmp_path / "handbook.md"
    path.write_text("# Handbook\n\n" + "".join(f"Rule {i}: write it down.\n" for i in range(310_000)))
    size = path.stat().st_size
    seen: list[UploadProgress] = []
    status = engram.upload_document(path, namespace="docs", tags=["handbook"], progress=seen.append, poll_interval=0.1)

    assert status.status == "ready" and status.memory_id and status.size_bytes == size and status.document_tier == 2
    sent = [p.bytes_sent for p in seen if p.stage == "uploading"]
    assert len(sent) == -(-size // 2**20) == 9 and sent == sorted(sent) and sent[-1] == size  # 1 MiB blocks
    assert seen[-1].stage == "ready" and seen[-1].status == status
    memory = engram.get_memory(status.memory_id)
    assert memory.document_tier == status.document_tier and memory.tags == ["handbook"]
    assert any("Rule 309999:" in span.text for span in engram.query_document(status.memory_id, "Rule 309999").spans)


@pytest.mark.usefixtures("workers")
def test_upload_of_a_file_that_is_not_utf8_fails_with_the_reason(engram: Engram, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"caf\xe9 au lait\n")  # Latin-1, not UTF-8
    with pytest.raises(UploadFailed) as failed:
        engram.upload_document(path, poll_interval=0.1)
    assert failed.value.reason and "UTF-8" in failed.value.reason


def test_topics_resume_and_prime(engram: Engram) -> None:
    engram.store_memory("Always run the migrations before deploying.", namespace="brief", kind="procedural")
    tree = engram.list_topics(namespace="brief")
    assert tree.namespace == "brief" and tree.topics == []
    lookup = engram.lookup_topics(["t1"])
    assert lookup.missing == ["t1"]
    with pytest.raises(NotFound):
        engram.get_topic("t999")
    briefing = engram.resume(namespace="brief", budget_chars=1000)
    assert "migrations" in briefing.text and briefing.used_chars <= 1000
    assert "migrations" in engram.resume_text(namespace="brief")
    primed = engram.prime("deploy the service", namespace="brief")
    assert [p.text for p in primed.results] == ["Always run the migrations before deploying."]


@pytest.mark.usefixtures("workers")
def test_consolidation_run_and_undo(engram: Engram) -> None:
    engram.store_memory("Never deploy on a Friday afternoon.", namespace="cons", kind="procedural")
    plan = engram.consolidate(namespace="cons", dry_run=True)
    assert plan.dry_run and plan.status == "queued"
    assert engram.wait_for_consolidation(plan.id, poll_interval=0.1).status == "done"
    planned = list(engram.iter_consolidation_actions(plan.id, limit=1))
    assert planned and not any(a.applied for a in planned)
    assert [a.seq for a in planned] == [a.seq for a in engram.consolidation_run(plan.id, limit=200).actions.items]

    run = engram.consolidate(namespace="cons", steps=["decay"])
    done = engram.wait_for_consolidation(run.id, poll_interval=0.1)
    assert done.status == "done" and [c.step for c in done.step_counts] == ["decay"]
    assert [r.id for r in engram.iter_consolidation_runs(namespace="cons", limit=1)] == [run.id, plan.id]
    actions = engram.consolidation_run(run.id).actions
    assert actions.items and actions.items[0].step == "decay"
    assert engram.undo_consolidation(run.id).status == "undone"


@pytest.mark.usefixtures("workers")
def test_export_to_a_file_and_import_it_into_another_tenant(
    engram: Engram, server: str, make_tenant: Any, tmp_path: Path
) -> None:
    engram.store_memory("Portable fact: the ledger runs on PostgreSQL.", namespace="port", tags=["ledger"])
    conv = engram.create_conversation(namespace="port", title="moving")
    engram.append_conversation(conv.id, [{"role": "user", "content": "Pack the ledger notes."}])
    path = tmp_path / "export.jsonl"
    job = engram.export_to_file(path, namespace="port", poll_interval=0.1)
    assert job.status == "ready" and job.counts is not None and (job.counts.memories, job.counts.messages) == (1, 1)
    assert path.stat().st_size == job.bytes and path.read_bytes().count(b"\n") >= 3

    with Engram(server, make_tenant("sdk-import").key) as other:
        seen: list[UploadProgress] = []
        imported = other.import_file(path, progress=seen.append, poll_interval=0.1)
        assert imported.status == "done" and imported.report is not None
        assert (imported.report.imported.memories, imported.report.refused_count) == (1, 0)
        assert seen[0].stage == "uploading" and seen[-1].stage == "ready" and seen[-1].status == imported
        assert [m.tags for m in other.iter_memories(namespace="port")] == [["ledger"]]
        again = other.import_file(path, poll_interval=0.1)
        assert again.report is not None and again.report.deduplicated.memories == 1


def test_admin(engram: Engram, server: str) -> None:
    assert engram.health() == {"status": "ok", "database": "ok"}
    issued = engram.create_key(["read"], name="sdk-reader")
    assert issued.api_key.startswith("egk_") and issued.scopes == ["read"]
    assert issued.key_id in {k.id for k in engram.list_keys()}
    with Engram(server, issued.api_key) as reader:
        assert reader.list_memories().items == []
    engram.revoke_key(issued.key_id)
    with Engram(server, issued.api_key) as revoked, pytest.raises(Unauthorized):
        revoked.list_memories()
    assert engram.usage().calls == 0
    engram.store_memory("counted", namespace="adm")
    assert "adm" in str(engram.stats())
    assert engram.purge_namespace("adm").memories == 1


# ---- the asyncio client: the same methods, awaited ----------------------------------------------


def test_async_client_end_to_end(server: str, make_tenant: Any, tmp_path: Path, workers: None) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nThe staging database is rebuilt every Sunday at 04:00.\n")

    async def scenario() -> None:
        async with AsyncEngram(server, make_tenant("sdk-async").key) as engram:
            stored = await engram.store_memory("The office closes early on Fridays.", namespace="async")
            assert stored.memory.namespace == "async" and not stored.deduplicated
            batch = await engram.store_memories(
                [{"content": f"async note {i}", "namespace": "async"} for i in range(4)]
            )
            assert batch.created == 4
            walked = [m.id async for m in engram.iter_memories(namespace="async", limit=2)]
            assert len(walked) == len(set(walked)) == 5 and stored.memory.id in walked

            found = await engram.recall("office Fridays", namespace="async", mode="keyword")
            assert isinstance(found.results[0], RecallHit) and found.results[0].memory_id == stored.memory.id

            conv = await engram.create_conversation(namespace="async")
            await engram.append_conversation(conv.id, [{"role": "user", "content": f"m{i}"} for i in range(3)])
            assert [m.content async for m in engram.iter_messages(conv.id, limit=1)] == ["m0", "m1", "m2"]

            seen: list[UploadProgress] = []
            status = await engram.upload_document(path, namespace="async", progress=seen.append, poll_interval=0.1)
            assert status.status == "ready" and seen[0].stage == "uploading" and seen[-1].stage == "ready"
            assert (await engram.get_memory(status.memory_id or "")).content.startswith("# Notes")

            exported = await engram.export_to_file(tmp_path / "async.jsonl", namespace="async", poll_interval=0.1)
            assert exported.counts is not None and exported.counts.memories == 6  # 5 notes and the document
            reimported = await engram.import_file(tmp_path / "async.jsonl", poll_interval=0.1)
            assert reimported.report is not None and reimported.report.deduplicated.memories == 6

            with pytest.raises(InvalidField) as invalid:
                await engram.recall("x", limit=1000)
            assert invalid.value.field == "limit"
            with pytest.raises(NotFound):
                await engram.forget("00000000-0000-4000-8000-000000000000")

    asyncio.run(scenario())


def test_critical_facts_conflict_keys_trace_feedback_and_tasks(engram: Engram) -> None:
    allergy = engram.store_memory("The user is allergic to penicillin.", namespace="sdk-agent", critical=True)
    paris = engram.store_memory("The user lives in Paris.", namespace="sdk-agent", conflict_key="user.city")
    berlin = engram.store_memory("The user lives in Berlin.", namespace="sdk-agent", conflict_key="user.city")
    assert allergy.memory.critical and berlin.superseded == [paris.memory.id]
    wait_embedded(engram, [allergy.memory.id, berlin.memory.id])
    found = engram.recall("where does the user live?", namespace="sdk-agent", trace=[paris.memory.id])
    assert found.results[0].critical and found.recall_id and found.trace is not None
    assert found.trace.items[0].reasons == ["superseded"]
    given = engram.feedback(found.recall_id, useful=[berlin.memory.id], failure_class="stale_ranking")
    assert given.weights[0].ranking_factor == 1.25
    task = engram.start_task("Plan the move", namespace="sdk-agent")
    engram.record_task_events(task.id, [{"role": "agent", "content": "Booked the van."}])
    engram.checkpoint_task(task.id, "Van booked", pending=["pack"])
    assert engram.redact_task_event(task.id, 1).redacted_at is not None
    context = engram.task_context_text(task.id, query="what is left?", budget_chars=1000)
    assert context.index("penicillin") < context.index("Van booked") and len(context) <= 1000
    assert engram.end_task(task.id, outcome="moved").status == "done"
