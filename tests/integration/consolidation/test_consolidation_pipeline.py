"""The scheduled consolidation pipeline on a real PostgreSQL and moto SQS: the dispatcher starts one
run per active namespace (never a second while one is open, nothing for idle ones), the worker runs
cycles through the queue with continuations, a duplicated or redelivered message changes nothing,
a poison message lands in the DLQ without blocking others, lost and abandoned runs are recovered,
and the CLI runs a cycle to the end."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterator
from contextlib import redirect_stdout
from typing import Any
from uuid import UUID

import psycopg
import pytest

from engram_local.aws import LocalAws
from engram_local.lambda_runtime import invoke

DUP_A = "The staging database is db-stage-01 in eu-west-1."
DUP_B = "the staging database is  db-stage-01 in eu-west-1"


@pytest.fixture
def settings_env(settings_env: Callable[..., None]) -> Callable[..., None]:
    settings_env(ENGRAM_LLM_LEVEL="off")  # no LLM unless a test turns it on
    return settings_env


@pytest.fixture
def queue(stack: Any, drain_consolidation: Callable[[], int]) -> Iterator[Any]:
    """The consolidate-jobs queue, emptied before and after (other tests' runs are not ours)."""
    drain_consolidation()
    yield stack
    drain_consolidation()


def _sqs_event(body: str, receive_count: int = 1) -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": "m1",
                "receiptHandle": "r",
                "body": body,
                "attributes": {"ApproximateReceiveCount": str(receive_count)},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:engram-consolidate-jobs",
                "awsRegion": "us-east-1",
            }
        ]
    }


def _runs(dsn: str, tenant_id: str) -> list[dict[str, Any]]:
    with psycopg.connect(dsn, row_factory=psycopg.rows.dict_row) as conn:
        return conn.execute(
            "SELECT id, namespace, status, trigger, dry_run, cycles, error FROM consolidation_runs"
            " WHERE tenant_id = %s ORDER BY created_at",
            (tenant_id,),
        ).fetchall()


def _tenant_state(dsn: str, tenant_id: str) -> dict[str, Any]:
    with psycopg.connect(dsn) as conn:
        memories = conn.execute(
            "SELECT to_jsonb(m)::text FROM memories m WHERE tenant_id = %s ORDER BY id", (tenant_id,)
        ).fetchall()
        runs = conn.execute(
            "SELECT to_jsonb(r)::text FROM consolidation_runs r WHERE tenant_id = %s ORDER BY id", (tenant_id,)
        ).fetchall()
        actions = conn.execute(
            "SELECT count(*) FROM consolidation_actions WHERE tenant_id = %s", (tenant_id,)
        ).fetchone()
    return {"memories": memories, "runs": runs, "actions": actions}


def _queued_bodies(url: str) -> list[dict[str, str]]:
    """Read what is waiting without consuming it (it becomes visible again at once)."""
    sqs = LocalAws.sqs()
    seen: list[dict[str, Any]] = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=5).get("Messages", [])
        if not got:
            break
        seen += got
    for m in seen:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0)
    return [json.loads(m["Body"]) for m in seen]


def _dispatch() -> dict[str, int]:
    return invoke("consolidation_dispatcher", {"source": "aws.scheduler"})


def _mine(result_runs: list[dict[str, Any]], namespace: str) -> list[dict[str, Any]]:
    return [r for r in result_runs if r["namespace"] == namespace]


def test_active_namespaces_get_one_run_each_and_idle_ones_none(api, tenant, queue, settings_env, drain_consolidation):
    for ns in ("alpha", "beta"):
        api.post("/v1/memories", {"content": f"{ns}: {DUP_A}", "namespace": ns})
    _dispatch()
    runs = _runs(queue.dsn, tenant.id)
    assert sorted(r["namespace"] for r in runs) == ["alpha", "beta"]
    assert {(r["status"], r["trigger"], r["dry_run"]) for r in runs} == {("queued", "schedule", False)}
    bodies = _queued_bodies(queue.consolidate_queue_url)
    assert sorted(b["run_id"] for b in bodies if b["tenant_id"] == tenant.id) == sorted(str(r["id"]) for r in runs)

    _dispatch()  # nothing new happened: no second run, no second message
    assert len(_runs(queue.dsn, tenant.id)) == 2
    api.post("/v1/memories", {"content": "alpha again", "namespace": "alpha"})
    _dispatch()  # new activity, but alpha's run is still queued: it waits for that one
    assert len(_runs(queue.dsn, tenant.id)) == 2

    drain_consolidation()
    assert {r["status"] for r in _runs(queue.dsn, tenant.id)} == {"done"}
    _dispatch()  # alpha's last write came after its run was queued: one more run; beta is idle
    runs = _runs(queue.dsn, tenant.id)
    assert [r["namespace"] for r in runs[2:]] == ["alpha"]
    drain_consolidation()
    _dispatch()
    assert len(_runs(queue.dsn, tenant.id)) == 3  # everything idle now: no run, no decay


def test_a_run_longer_than_its_budget_continues_through_the_queue(
    api, tenant, queue, settings_env, drain_consolidation
):
    settings_env(ENGRAM_CONSOLIDATION_TIME_BUDGET_S="0.001", ENGRAM_CONSOLIDATION_BATCH_SIZE="5")
    api.post(
        "/v1/memories/batch",
        {"items": [{"content": f"fact {i} about the fleet", "namespace": "long"} for i in range(30)]},
    )
    _dispatch()
    (run,) = _mine(_runs(queue.dsn, tenant.id), "long")
    delivered = drain_consolidation()
    (run,) = _mine(_runs(queue.dsn, tenant.id), "long")
    assert run["status"] == "done"
    assert run["cycles"] >= 2 and delivered >= run["cycles"] + 1  # each continuation was one more message


def test_a_duplicated_message_for_a_finished_run_changes_nothing(
    api, tenant, queue, settings_env, drain_consolidation, drain
):
    api.post("/v1/memories", {"content": DUP_A, "namespace": "dups"})
    api.post("/v1/memories", {"content": DUP_B, "namespace": "dups"})
    drain()
    _dispatch()
    drain_consolidation()
    (run,) = _mine(_runs(queue.dsn, tenant.id), "dups")
    assert run["status"] == "done"
    before = _tenant_state(queue.dsn, tenant.id)
    body = json.dumps({"tenant_id": tenant.id, "run_id": str(run["id"])})
    assert invoke("consolidation_worker", _sqs_event(body, receive_count=2)) == {"batchItemFailures": []}
    assert _tenant_state(queue.dsn, tenant.id) == before
    assert _queued_bodies(queue.consolidate_queue_url) == []  # and no continuation was sent


def test_a_redelivered_message_resumes_without_applying_twice(api, make_tenant, api_for, queue, settings_env, drain):
    from engram.consolidation.dispatch import work_on_run
    from engram.consolidation.service import run_cycle

    settings_env(ENGRAM_CONSOLIDATION_BATCH_SIZE="2")
    counts = []
    for crash in (False, True):
        t = make_tenant(f"resume-{crash}")
        client = api_for(t.key)
        for i in range(6):
            client.post("/v1/memories", {"content": f"{DUP_A} #{i % 3}", "namespace": "r"})
        drain()
        _dispatch()
        (run,) = _runs(queue.dsn, t.id)
        if crash:  # the worker died after its first batch, before sending a continuation
            assert run_cycle(None, UUID(t.id), run["id"], time_budget_s=0.0001).status == "continue"
        # SQS delivers the original message again (the local queue's copy is delivered below too).
        assert work_on_run(UUID(t.id), run["id"], receive_count=2).status == "done"
        with psycopg.connect(queue.dsn) as conn:
            counts.append(
                conn.execute(
                    "SELECT step, action, count(*) FROM consolidation_actions"
                    " WHERE run_id = %s GROUP BY 1, 2 ORDER BY 1, 2",
                    (run["id"],),
                ).fetchall()
            )
    assert counts[0] == counts[1]


def test_poison_message_goes_to_the_dlq_without_blocking_others(api, tenant, queue, settings_env, drain_consolidation):
    sqs = LocalAws.sqs()
    sqs.send_message(QueueUrl=queue.consolidate_queue_url, MessageBody="{not json")
    api.post("/v1/memories", {"content": "healthy run after poison", "namespace": "healthy"})
    _dispatch()
    deadline = time.monotonic() + 30
    moved: list[dict[str, Any]] = []
    while time.monotonic() < deadline and not moved:
        drain_consolidation()
        moved = sqs.receive_message(QueueUrl=queue.consolidate_dlq_url, MaxNumberOfMessages=10).get("Messages", [])
        time.sleep(0.5)
    assert [m["Body"] for m in moved] == ["{not json"]
    assert [r["status"] for r in _mine(_runs(queue.dsn, tenant.id), "healthy")] == ["done"]


def test_a_run_whose_worker_keeps_failing_is_marked_failed_on_the_last_receive(
    api, tenant, queue, settings_env, monkeypatch
):
    from engram.consolidation import dispatch, service

    api.post("/v1/memories", {"content": "doomed", "namespace": "doomed"})
    _dispatch()
    (run,) = _mine(_runs(queue.dsn, tenant.id), "doomed")

    def database_gone(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("the database went away")

    monkeypatch.setattr(service, "run_cycle", database_gone)
    for receive in (1, 2):
        with pytest.raises(ConnectionError):
            dispatch.work_on_run(UUID(tenant.id), run["id"], receive_count=receive)
        assert _mine(_runs(queue.dsn, tenant.id), "doomed")[0]["status"] == "queued"  # retried by SQS
    with pytest.raises(ConnectionError):
        dispatch.work_on_run(UUID(tenant.id), run["id"], receive_count=3)  # the local queue's maxReceiveCount
    (run,) = _mine(_runs(queue.dsn, tenant.id), "doomed")
    assert run["status"] == "failed" and "ConnectionError" in run["error"]


def test_a_lost_message_is_sent_again_and_an_abandoned_run_is_failed(
    api, tenant, queue, settings_env, drain_consolidation
):
    api.post("/v1/memories", {"content": "lost", "namespace": "lost"})
    api.post("/v1/memories", {"content": "stuck", "namespace": "stuck"})
    _dispatch()
    drain_consolidation()  # ... and imagine the messages had never arrived:
    with psycopg.connect(queue.dsn) as conn:
        conn.execute(
            "UPDATE consolidation_runs SET status = 'queued', updated_at = now() - interval '2 hours'"
            " WHERE tenant_id = %s AND namespace = 'lost'",
            (tenant.id,),
        )
        conn.execute(
            "UPDATE consolidation_runs SET status = 'running', updated_at = now() - interval '13 hours'"
            " WHERE tenant_id = %s AND namespace = 'stuck'",
            (tenant.id,),
        )
    result = _dispatch()
    assert result["resent"] >= 1 and result["abandoned"] >= 1
    (stuck,) = _mine(_runs(queue.dsn, tenant.id), "stuck")
    assert stuck["status"] == "failed" and stuck["error"].startswith("abandoned")
    drain_consolidation()
    (lost,) = _mine(_runs(queue.dsn, tenant.id), "lost")
    assert lost["status"] == "done"


def test_the_cli_runs_a_cycle_to_the_end(api, tenant, stack, settings_env, drain):
    from engram.ops.cli import main

    api.post("/v1/memories", {"content": DUP_A, "namespace": "cli"})
    api.post("/v1/memories", {"content": DUP_B, "namespace": "cli"})
    drain()
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["consolidate", "--tenant", tenant.id, "--namespace", "cli", "--dry-run"]) == 0
    run = json.loads(out.getvalue())
    assert (run["status"], run["dry_run"], run["trigger"]) == ("done", True, "cli")
    assert _mine(_runs(stack.dsn, tenant.id), "cli")[0]["status"] == "done"


def test_the_database_allows_one_open_applying_run_per_namespace(tenant: Any) -> None:
    """POST /v1/consolidate and the dispatcher look for an open run under different locks; the
    unique index settles the race: the second applying run is a Conflict, dry runs are not limited,
    and the caller's transaction stays usable after the refusal."""
    from engram.consolidation import service
    from engram.core.db import tenant_transaction
    from engram.core.errors import Conflict

    tenant_id = UUID(tenant.id)
    with tenant_transaction(tenant_id) as conn:
        first = service.start_run(conn, tenant_id, "race", dry_run=False, steps=None, trigger="api")
        with pytest.raises(Conflict) as refused:
            service.start_run(conn, tenant_id, "race", dry_run=False, steps=None, trigger="schedule")
        assert refused.value.details == {"namespace": "race"}
        dry = service.start_run(conn, tenant_id, "race", dry_run=True, steps=None, trigger="api")
        other = service.start_run(conn, tenant_id, "race-2", dry_run=False, steps=None, trigger="api")
        rows = conn.execute(
            "SELECT id FROM consolidation_runs WHERE namespace LIKE 'race%%' ORDER BY created_at"
        ).fetchall()
    assert {r["id"] for r in rows} == {first, dry, other}


def _died_after_one_batch(tenant_id: str, run_id: UUID) -> None:
    """A worker that took the run, committed one batch, and died: its connection ends without it
    letting go (PostgreSQL releases the lock; the run's worker mark stays)."""
    from engram.consolidation import service, store

    with service._run_connection(None) as conn:
        assert store.hold_run(conn, run_id, 1.0)
        assert service._claim(conn, UUID(tenant_id), run_id) is None
        assert service._batch(conn, UUID(tenant_id), run_id)[0] is None


def _action_counts(dsn: str, run_id: UUID) -> list[Any]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT step, action, count(*) FROM consolidation_actions WHERE run_id = %s AND applied"
            " GROUP BY 1, 2 ORDER BY 1, 2",
            (run_id,),
        ).fetchall()


def _start(tenant_id: str, namespace: str) -> UUID:
    """An applying run whose message is gone (as when the process that would work on it died)."""
    from engram.consolidation import service
    from engram.core.db import tenant_transaction

    with tenant_transaction(UUID(tenant_id)) as conn:
        return service.start_run(conn, UUID(tenant_id), namespace, dry_run=False, steps=None, trigger="api")


def test_a_run_whose_worker_died_is_resent_by_the_next_dispatch_and_resumes(
    api, make_tenant, api_for, queue, settings_env, drain, drain_consolidation
):
    settings_env(ENGRAM_CONSOLIDATION_BATCH_SIZE="2")
    counts = []
    for died in (False, True):
        t = make_tenant(f"died-{died}")
        client = api_for(t.key)
        for i in range(6):
            client.post("/v1/memories", {"content": f"{DUP_A} #{i % 3}", "namespace": "d"})
        drain()
        run_id = _start(t.id, "d")
        if died:
            _died_after_one_batch(t.id, run_id)
            assert _dispatch()["resent"] >= 1  # at once: no waiting for the 12-hour abandon rule
        else:
            from engram.adapters.queue import enqueue_consolidation

            enqueue_consolidation(t.id, run_id)
        drain_consolidation()
        with psycopg.connect(queue.dsn) as conn:
            status, interruptions, mark = conn.execute(
                "SELECT status, interruptions, worker_started_at FROM consolidation_runs WHERE id = %s", (run_id,)
            ).fetchone()
        assert (status, interruptions, mark) == ("done", int(died), None)
        counts.append(_action_counts(queue.dsn, run_id))
    assert counts[0] == counts[1] and counts[0]  # nothing applied twice, nothing left out


def test_a_run_a_live_worker_holds_is_neither_resent_nor_worked_twice(
    api, tenant, queue, settings_env, monkeypatch, drain
):
    from engram.consolidation import service, store

    api.post("/v1/memories", {"content": DUP_A, "namespace": "held"})
    drain()
    run_id = _start(tenant.id, "held")
    with service._run_connection(None) as live:
        assert store.hold_run(live, run_id, 1.0)
        assert service._claim(live, UUID(tenant.id), run_id) is None
        assert str(run_id) not in _dispatch_result()["resent"]
        monkeypatch.setattr(service, "DEAD_WORKER_WAIT_S", 0.2)
        assert service.run_cycle(None, UUID(tenant.id), run_id, time_budget_s=60).status == "busy"
        (run,) = _mine(_runs(queue.dsn, tenant.id), "held")
        assert run["status"] == "queued"  # the duplicate did nothing; the live worker carries the run on


def _dispatch_result() -> dict[str, Any]:
    from dataclasses import asdict

    from engram.consolidation.dispatch import dispatch

    return asdict(dispatch())


def test_a_run_that_keeps_killing_its_worker_is_failed_and_its_committed_part_undone(
    api, tenant, queue, settings_env, drain, drain_consolidation
):
    settings_env(ENGRAM_CONSOLIDATION_BATCH_SIZE="1", ENGRAM_CONSOLIDATION_MAX_INTERRUPTIONS="2")
    for i in range(6):
        api.post("/v1/memories", {"content": f"{DUP_A} #{i % 3}", "namespace": "poison"})
    drain()
    before = _tenant_state(queue.dsn, tenant.id)["memories"]
    run_id = _start(tenant.id, "poison")
    _died_after_one_batch(tenant.id, run_id)
    _died_after_one_batch(tenant.id, run_id)  # resumed once (interruption 1), died again
    from engram.consolidation.dispatch import work_on_run

    progress = work_on_run(UUID(tenant.id), run_id)
    assert progress.status == "failed" and progress.error is not None
    assert progress.error.startswith("interrupted 2 times")
    (run,) = _mine(_runs(queue.dsn, tenant.id), "poison")
    assert run["status"] == "failed"
    assert _action_counts(queue.dsn, run_id)  # its first batches committed
    assert api.post(f"/v1/consolidation-runs/{run_id}/undo", {}).status == 200
    assert _tenant_state(queue.dsn, tenant.id)["memories"] == before
    assert api.post("/v1/consolidate", {"namespace": "poison", "dry_run": False}).status == 202
    drain_consolidation()


def test_make_dev_start_resends_every_open_run_of_every_tenant(
    make_tenant, api_for, queue, settings_env, drain, drain_consolidation
):
    from engram.consolidation.dispatch import resend_open_runs

    settings_env(ENGRAM_CONSOLIDATION_BATCH_SIZE="2")
    runs = []
    for name in ("start-a", "start-b"):
        t = make_tenant(name)
        for i in range(4):
            api_for(t.key).post("/v1/memories", {"content": f"{DUP_A} #{i % 2}", "namespace": "s"})
        drain()
        runs.append((t.id, _start(t.id, "s")))
    _died_after_one_batch(*runs[1])  # one running (its worker died), one still queued
    assert set(resend_open_runs()) >= {r for _, r in runs}
    drain_consolidation()
    for tenant_id, _ in runs:
        assert [r["status"] for r in _mine(_runs(queue.dsn, tenant_id), "s")] == ["done"]
