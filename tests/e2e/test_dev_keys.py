"""`make dev` keeps one dev key: reused across starts, in an owner-only file, replaced when revoked."""

from __future__ import annotations

import stat
import uuid

import psycopg


def _active_dev_keys(dsn: str, tenant: str) -> int:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT count(*) FROM api_keys k JOIN tenants t ON t.id = k.tenant_id"
            " WHERE t.name = %s AND k.revoked_at IS NULL",
            (tenant,),
        ).fetchone()[0]


def test_the_dev_key_is_reused_across_starts_from_a_0600_file(stack, tmp_path):
    from engram_local.serve import dev_key

    tenant, key_file = f"dev-{uuid.uuid4().hex[:8]}", tmp_path / "dev-api-key"
    first = dev_key(stack.dsn, key_file=key_file, tenant=tenant)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert key_file.read_text().strip() == first
    for _ in range(3):
        assert dev_key(stack.dsn, key_file=key_file, tenant=tenant) == first
    assert _active_dev_keys(stack.dsn, tenant) == 1


def test_a_revoked_or_lost_dev_key_is_replaced_and_older_dev_keys_revoked(stack, tmp_path):
    from engram_local.serve import dev_key

    tenant, key_file = f"dev-{uuid.uuid4().hex[:8]}", tmp_path / "dev-api-key"
    first = dev_key(stack.dsn, key_file=key_file, tenant=tenant)
    with psycopg.connect(stack.dsn) as conn:
        conn.execute(
            "UPDATE api_keys SET revoked_at = now() WHERE name = 'make dev' AND tenant_id ="
            " (SELECT id FROM tenants WHERE name = %s)",
            (tenant,),
        )
    second = dev_key(stack.dsn, key_file=key_file, tenant=tenant)
    assert second != first and key_file.read_text().strip() == second
    key_file.unlink()  # lost: a new key, and the one it replaces stops working
    third = dev_key(stack.dsn, key_file=key_file, tenant=tenant)
    assert third != second and _active_dev_keys(stack.dsn, tenant) == 1
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
