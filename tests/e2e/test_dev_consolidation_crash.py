"""`make dev` killed with SIGKILL while a consolidation run applies: the restart resumes the run
(its queue lived in the dead process), so it finishes; undo then puts back everything it changed,
the part committed before the kill included, and the namespace takes a new run at once."""

from __future__ import annotations

import json
import signal
import time
from typing import Any

import psycopg

from tests.support.dev_process import DevProcess, wait_for_vectors
from tests.support.server_http import request

FACTS = 40
COPIES = 3  # copies of each fact in other case and punctuation: dedupe merges them without an LLM


def _memories(conn: psycopg.Connection[Any]) -> list[Any]:
    return conn.execute("SELECT to_jsonb(m)::text FROM memories m WHERE namespace = 'crash' ORDER BY id").fetchall()


def _run_row(conn: psycopg.Connection[Any], run_id: str) -> tuple[str, int, int]:
    row = conn.execute(
        "SELECT r.status, r.interruptions, (SELECT count(*) FROM consolidation_actions a"
        " WHERE a.run_id = r.id AND a.applied AND a.step = 'dedupe') FROM consolidation_runs r WHERE r.id = %s",
        (run_id,),
    ).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


def test_sigkill_mid_run_resumes_at_restart_and_undo_restores_the_committed_part(dev_env):
    env, _ = dev_env
    env.update(
        ENGRAM_LLM_LEVEL="off",
        ENGRAM_CONSOLIDATION_BATCH_SIZE="1",  # many small batches: the kill lands between two of them
        ENGRAM_CONSOLIDATION_INTERVAL_S="0",  # no scheduled run of the dev server's own
    )
    base = f"http://127.0.0.1:{env['PORT']}"
    dsn = f"postgresql://postgres@127.0.0.1:{env['ENGRAM_DEV_PG_PORT']}/engram"
    dev = DevProcess(env)
    key = dev.said("API key:")
    facts = [f"The backup of shard {f} runs at {f % 24}:15 UTC." for f in range(FACTS)]
    copies = [(fact, fact.lower().rstrip("."), fact.upper().rstrip(".") + "!")[:COPIES] for fact in facts]
    items = [{"content": c, "namespace": "crash"} for group in copies for c in group]
    for i in range(0, len(items), 50):
        assert request(base, "POST", "/v1/memories/batch", {"items": items[i : i + 50]}, key)[0] in (200, 201)
    assert wait_for_vectors(base, key) == 0
    with psycopg.connect(dsn) as conn:
        before = _memories(conn)
    status, _, raw = request(base, "POST", "/v1/consolidate", {"namespace": "crash", "dry_run": False}, key)
    assert status == 202, raw
    run_id = json.loads(raw)["id"]

    deadline = time.monotonic() + 120
    with psycopg.connect(dsn, autocommit=True) as conn:
        while _run_row(conn, run_id)[2] < 3:  # some merges committed
            assert time.monotonic() < deadline, "the run never merged anything"
            time.sleep(0.005)
        dev.proc.send_signal(signal.SIGKILL)
        dev.proc.wait()
        killed_status, _, merged_at_kill = _run_row(conn, run_id)
    assert killed_status == "running", "the run finished before the kill: nothing was cut off"

    restarted = DevProcess(env)
    try:
        assert restarted.said("Resumed").startswith("1 consolidation run")
        deadline = time.monotonic() + 180
        while True:
            run = json.loads(request(base, "GET", f"/v1/consolidation-runs/{run_id}", None, key)[2])
            if run["status"] not in ("queued", "running"):
                break
            assert time.monotonic() < deadline, f"the run is still {run['status']} after the restart"
            time.sleep(0.5)
        assert run["status"] == "done", run  # resumed from its checkpoint, not started again
        with psycopg.connect(dsn) as conn:
            _, interruptions, merged = _run_row(conn, run_id)
            assert interruptions == 1 and merged > merged_at_kill
            live = conn.execute(
                "SELECT count(*) FROM memories WHERE namespace = 'crash' AND status = 'active' AND valid_to IS NULL"
            ).fetchone()
            assert live == (FACTS,)  # each fact kept once: no merge lost, none applied twice
        status, _, raw = request(base, "POST", f"/v1/consolidation-runs/{run_id}/undo", {}, key)
        assert status == 200, raw
        with psycopg.connect(dsn) as conn:
            assert _memories(conn) == before
        status, _, raw = request(base, "POST", "/v1/consolidate", {"namespace": "crash", "dry_run": False}, key)
        assert status == 202, raw
    finally:
        restarted.proc.send_signal(signal.SIGTERM)
        restarted.proc.wait(60)
