"""`make dev`: the local stack plus an HTTP server in front of the real handlers.

Prints the base URL and `API key: <key>` for the dev tenant: the same key on every start, kept
in a 0600 file beside the database (the database stores only its hash). A key that was revoked
or lost is replaced, and the replaced dev keys are revoked, so keys do not pile up.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from engram.consolidation.dispatch import resend_open_runs
from engram.core.config import settings
from engram.ops.operations import backfill
from engram_local.http_server import DevServer
from engram_local.postgres import dev_data_dir, legacy_dev_data_dir
from engram_local.stack import LocalStack

PROJECT_ROOT = Path(__file__).resolve().parents[2]


DEV_KEY_NAME = "make dev"


def _read_key(key_file: Path | None) -> str | None:
    try:
        return key_file.read_text().strip() or None if key_file else None
    except OSError:
        return None


def _write_key(key_file: Path, api_key: str) -> None:
    """Owner-only from the first byte (0600), replaced whole."""
    key_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = key_file.with_name(key_file.name + ".tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(api_key + "\n")
    os.replace(tmp, key_file)


def dev_key(dsn: str, key_file: Path | None = None, tenant: str = "dev") -> str:
    """The dev tenant (created once) and its admin key: the one saved in `key_file` while it is
    still active, else a new one (saved there; the tenant's earlier dev keys are revoked).
    Without `key_file`, a new key each call."""
    from engram.core.db import owner_connection
    from engram.tenancy.store import create_tenant, hash_key, issue_key

    saved = _read_key(key_file)
    with owner_connection(dsn) as owner:
        row = owner.execute("SELECT id FROM tenants WHERE name = %s ORDER BY created_at LIMIT 1", (tenant,)).fetchone()
        tenant_id = row["id"] if row else create_tenant(owner, tenant)
        if (
            saved
            and owner.execute(
                "SELECT 1 FROM api_keys WHERE tenant_id = %s AND key_hash = %s AND revoked_at IS NULL",
                (tenant_id, hash_key(saved)),
            ).fetchone()
        ):
            return saved
        if key_file is not None:  # the saved key is gone or revoked: so are the dev keys before it
            owner.execute(
                "UPDATE api_keys SET revoked_at = now() WHERE tenant_id = %s AND name = %s AND revoked_at IS NULL",
                (tenant_id, DEV_KEY_NAME),
            )
        key = issue_key(owner, tenant_id, ["read", "write", "admin"], name=DEV_KEY_NAME)
        owner.commit()
    if key_file is not None:
        _write_key(key_file, key.api_key)
    return key.api_key


def make_server(host: str, port: int, authorizer_cache_s: float = 0) -> DevServer:
    """`authorizer_cache_s`: how long the gateway keeps an authorizer verdict per key (make dev: the
    setting dev_authorizer_cache_s, API Gateway's 300 s; tests: none, a revoked key stops at once)."""
    return DevServer(host, port, authorizer_cache_s=authorizer_cache_s)


def _stop_on_signals(server: DevServer) -> None:
    """SIGTERM and SIGINT end serve_forever, which main follows with the database's shutdown. Any
    later one is ignored: make passes its group's signal on (`timeout`, a supervisor or Ctrl-C send
    two), and an exception raised by a second one would cut the shutdown short and leave the database
    running. Nothing is raised from the handler either, so a signal during the start lets the start
    finish and then stops."""

    def stop(_signum: int, _frame: object) -> None:
        for name in (signal.SIGTERM, signal.SIGINT):
            signal.signal(name, signal.SIG_IGN)
        server.stop_serving()

    for name in (signal.SIGTERM, signal.SIGINT):
        signal.signal(name, stop)


def main() -> int:
    s = settings()
    port, host = s.dev_port, s.dev_host
    try:
        server = make_server(host, port, s.dev_authorizer_cache_s)  # first: a busy port fails before anything starts
    except OSError as exc:
        print(f"cannot listen on {host}:{port} ({exc.strerror}); try PORT=9000 make dev", file=sys.stderr)
        return 1
    _stop_on_signals(server)
    # A fixed port: a dev database left running by a killed server is found and reused.
    pg_port = s.dev_pg_port
    data_dir = dev_data_dir(PROJECT_ROOT)
    legacy = legacy_dev_data_dir(PROJECT_ROOT)
    if not (data_dir / "PG_VERSION").exists() and (legacy / "PG_VERSION").exists():
        print(
            f"Note: an earlier database is in {legacy} (under /tmp, lost on reboot); to keep it, stop"
            f" this server and move that folder to {data_dir}",
            file=sys.stderr,
            flush=True,
        )
    stack = LocalStack(data_dir=data_dir, pg_port=pg_port, objects_dir=data_dir.parent / "s3").start()
    api_key = dev_key(stack.dsn, key_file=data_dir.parent / "dev-api-key")
    # The local queue lives in memory: jobs of an earlier run are gone, so re-enqueue what is pending.
    pending = backfill(stack.dsn)
    resumed = resend_open_runs(stack.dsn)  # consolidation runs the last process left open
    print(f"Engram API on http://{host}:{port}  (database {stack.dsn})", flush=True)
    print(f"API key: {api_key}", flush=True)
    if stack.postgres:
        print(f"Database files: {data_dir} (crash-safe: fsync on; kept across restarts and reboots)", flush=True)
    print(f"Uploaded objects: {stack.objects_dir} (kept on disk until ingested)", flush=True)
    print(f"Try: curl -s http://{host}:{port}/v1/health", flush=True)
    print(f"Console: http://{host}:{port}/console (paste the key above)", flush=True)
    print(f"MCP: http://{host}:{port}/mcp (Authorization: Bearer <the key>), or .venv/bin/engram mcp", flush=True)
    if pending:
        print(f"Re-enqueued {pending} chunks still waiting for a vector", flush=True)
    if stack.restored_objects:
        print(f"Re-sent {stack.restored_objects} uploaded objects the last stop left un-ingested", flush=True)
    if resumed:
        print(f"Resumed {len(resumed)} consolidation runs the last stop left open", flush=True)
    print(f"CLI: ENGRAM_DATABASE_URL={stack.dsn} .venv/bin/engram create-tenant <name>", flush=True)
    if stack.consolidation_schedule:
        print(
            f"Consolidation: namespaces in use, every {stack.consolidation_schedule.interval_s:.0f} s"
            " (ENGRAM_CONSOLIDATION_INTERVAL_S; 0 turns it off)",
            flush=True,
        )
    try:
        server.serve_forever()
    finally:
        server.close()
        stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
