"""The duty login roles: a statement injected into a request cannot leave row-level security, and the
migrate function gives each role the password of its own secret."""

from __future__ import annotations

import json

import boto3
import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from engram.core.config import secrets_provider
from engram.core.db import app_connection, set_tenant
from engram.schema.logins import provision_logins


@pytest.fixture
def api_login(stack):
    """engram_api able to log in (the local server's trust authentication needs no password)."""
    with psycopg.connect(stack.dsn, autocommit=True) as owner:
        owner.execute("ALTER ROLE engram_api LOGIN")
    yield make_conninfo(stack.dsn, user="engram_api")
    with psycopg.connect(stack.dsn, autocommit=True) as owner:
        owner.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'engram_api'")
        owner.execute("ALTER ROLE engram_api NOLOGIN")


@pytest.fixture
def two_tenants(api_for, make_tenant):
    tenants = [make_tenant("inject-a"), make_tenant("inject-b")]
    for t in tenants:
        assert api_for(t.key).post("/v1/memories", {"content": f"secret of {t.id}"}).status == 201
    return tenants


def _injected(dsn: str, tenant_id: str, injection: str) -> list[tuple]:
    """A request's transaction (tenant set, as the request role) running an injected statement, then
    reading every memory it can see."""
    with app_connection(dsn) as conn:
        set_tenant(conn, tenant_id)
        conn.execute(injection)
        rows = conn.execute("SELECT tenant_id FROM memories").fetchall()
        return [tuple(r.values()) for r in rows]


@pytest.mark.parametrize("injection", ["RESET ROLE", "SET ROLE NONE", "SET SESSION AUTHORIZATION DEFAULT"])
def test_a_login_role_cannot_leave_row_level_security(api_login, two_tenants, injection):
    a, _ = two_tenants
    # Without the injection, the request sees its own tenant only.
    with app_connection(api_login) as conn:
        set_tenant(conn, a.id)
        assert {str(r["tenant_id"]) for r in conn.execute("SELECT tenant_id FROM memories")} == {a.id}
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        _injected(api_login, a.id, injection)


def test_a_login_role_cannot_become_the_owner(api_login, stack):
    owner = conninfo_to_dict(stack.dsn)["user"]
    with app_connection(api_login) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(str(owner))))


def test_the_owner_login_the_functions_used_before_could(stack, two_tenants):
    """What the duty roles close: logged in as the owner, RESET ROLE saw every tenant."""
    a, b = two_tenants
    seen = {str(t) for (t,) in _injected(stack.dsn, a.id, "RESET ROLE")}
    assert {a.id, b.id} <= seen


@pytest.fixture
def secrets(monkeypatch, stack):
    """Secrets Manager on the local stack's moto server. Not mock_aws: it shares the server's in-process
    backends and resets them when it ends, which would take the stack's queues with it."""
    assert stack.aws is not None
    monkeypatch.setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", f"http://127.0.0.1:{stack.aws.port}")
    secrets_provider.cache_clear()
    yield boto3.client("secretsmanager")
    secrets_provider.cache_clear()


def test_migrate_gives_a_duty_role_its_secrets_password(stack, secrets):
    target = conninfo_to_dict(stack.dsn)
    secret = {
        "username": "engram_worker",
        "password": "rotated-by-secrets-manager",
        "host": target["host"],
        "port": int(target["port"]),
        "dbname": target["dbname"],
    }
    arn = secrets.create_secret(Name="engram-test/db-worker", SecretString=json.dumps(secret))["ARN"]
    try:
        with psycopg.connect(stack.dsn, row_factory=psycopg.rows.dict_row) as owner:
            assert provision_logins(owner, {"engram_worker": arn}) == ["engram_worker"]
            row = owner.execute(
                "SELECT rolcanlogin, rolpassword LIKE 'SCRAM-SHA-256$%%' AS scram FROM pg_authid "
                "WHERE rolname = 'engram_worker'"
            ).fetchone()
        assert row == {"rolcanlogin": True, "scram": True}
        with (
            pytest.raises(ValueError, match="logs in as 'engram_worker'"),
            psycopg.connect(stack.dsn, row_factory=psycopg.rows.dict_row) as owner,
        ):
            provision_logins(owner, {"engram_api": arn})
    finally:
        with psycopg.connect(stack.dsn, autocommit=True) as owner:
            owner.execute("ALTER ROLE engram_worker NOLOGIN PASSWORD NULL")
