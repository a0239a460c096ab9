"""Reads that tolerate replica lag go to the reader: GET /v1/stats and the export worker's snapshot.
The reader here is a second connection string: to the same database (a reader that has caught up),
or to a second migrated database that lacks the export's claim (a reader that lags behind)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any
from uuid import uuid4

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from engram.core import db
from engram.schema.migrate import apply_migrations

pytestmark = pytest.mark.integration


def reader_url(dsn: str, application_name: str, dbname: str | None = None) -> str:
    params: dict[str, Any] = {**conninfo_to_dict(dsn), "application_name": application_name}
    if dbname:
        params["dbname"] = dbname
    return make_conninfo(**params)


@pytest.fixture
def lagging_database(stack: Any) -> Any:
    """A second migrated database on the same server: a reader that has replayed none of this test's writes."""
    name = f"lagging_{uuid4().hex[:8]}"
    with psycopg.connect(stack.dsn, autocommit=True) as owner:
        owner.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    apply_migrations(make_conninfo(stack.dsn, dbname=name))
    yield name
    db.reset_connections()
    with psycopg.connect(stack.dsn, autocommit=True) as owner:
        owner.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


def test_stats_are_read_on_the_reader(api, stack, settings_env, lagging_database):
    """The reader lags (its database holds none of this tenant's memories): stats show what it holds."""
    api.post("/v1/memories", {"content": "counted on the writer", "namespace": "reader-stats"})
    assert api.get("/v1/stats").body["memories"] == 1
    settings_env(ENGRAM_DATABASE_READER_URL=reader_url(stack.dsn, "engram-reader", lagging_database))
    on_reader = api.get("/v1/stats")
    assert on_reader.status == 200 and on_reader.body["memories"] == 0 and on_reader.body["namespaces"] == []


def test_an_unreachable_reader_leaves_stats_to_the_writer(api, stack, settings_env):
    api.post("/v1/memories", {"content": "counted on the writer", "namespace": "reader-down"})
    settings_env(ENGRAM_DATABASE_READER_URL="postgresql://engram@127.0.0.1:9/engram")
    r = api.get("/v1/stats")
    assert r.status == 200
    assert [n["namespace"] for n in r.body["namespaces"]] == ["reader-down"]


def settled_export(api, stack, export_id: str) -> list[dict[str, Any]]:
    stack.export_poller.drain()
    done = api.get(f"/v1/exports/{export_id}")
    assert done.body["status"] == "ready", done.body
    with urllib.request.urlopen(done.body["download_url"]) as f:
        return [json.loads(line) for line in f.read().splitlines()]


def test_an_export_reads_on_a_reader_that_has_caught_up(api, stack, tenant, settings_env, lagging_database):
    """The reader has replayed the export's claim, and holds a memory the writer does not: the file has it."""
    api.post("/v1/memories", {"content": "only on the writer", "namespace": "reader-export"})
    job = api.post("/v1/exports", {"namespace": "reader-export"})
    with psycopg.connect(make_conninfo(stack.dsn, dbname=lagging_database), autocommit=True) as reader:
        reader.execute("INSERT INTO tenants (id, name) VALUES (%s, 'caught up')", (tenant.id,))
        reader.execute(
            "INSERT INTO exports (id, tenant_id, namespace, status, s3_key, attempts) "
            "VALUES (%s, %s, 'reader-export', 'running', 'x', 1)",
            (job.body["id"], tenant.id),
        )
        reader.execute(
            "INSERT INTO memories (tenant_id, namespace, content, content_hash) "
            "VALUES (%s, 'reader-export', 'only on the reader', '\\x00')",
            (tenant.id,),
        )
    settings_env(ENGRAM_DATABASE_READER_URL=reader_url(stack.dsn, "engram-reader", lagging_database))
    lines = settled_export(api, stack, job.body["id"])
    assert [line["content"] for line in lines if line["type"] == "memory"] == ["only on the reader"]


def test_an_export_never_reads_a_reader_that_lags_behind_its_claim(api, stack, settings_env, lagging_database):
    """The lagging reader has not replayed the claim: had the export read it, the file would hold nothing."""
    api.post("/v1/memories", {"content": "written after the reader's snapshot", "namespace": "reader-lag"})
    job = api.post("/v1/exports", {"namespace": "reader-lag"})
    settings_env(ENGRAM_DATABASE_READER_URL=reader_url(stack.dsn, "engram-reader", lagging_database))
    lines = settled_export(api, stack, job.body["id"])
    assert [line["content"] for line in lines if line["type"] == "memory"] == ["written after the reader's snapshot"]
