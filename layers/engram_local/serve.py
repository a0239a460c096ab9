"""`make dev`: the local stack plus an HTTP server in front of the real handlers.

Prints the base URL and `API key: <key>` for the dev tenant (a new key each start; keys are
shown once and stored hashed).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from engram.ops.operations import backfill
from engram_local.http_server import DevServer
from engram_local.postgres import dev_data_dir
from engram_local.stack import LocalStack

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def dev_key(dsn: str) -> str:
    """The dev tenant (created once) and a fresh admin key for it."""
    from engram.core.db import owner_connection
    from engram.tenancy.store import create_tenant, issue_key

    with owner_connection(dsn) as owner:
        row = owner.execute("SELECT id FROM tenants WHERE name = 'dev' ORDER BY created_at LIMIT 1").fetchone()
        tenant_id = row["id"] if row else create_tenant(owner, "dev")
        key = issue_key(owner, tenant_id, ["read", "write", "admin"], name="make dev")
        owner.commit()
    return key.api_key


def make_server(host: str, port: int) -> DevServer:
    return DevServer(host, port)


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    port = int(os.environ.get("PORT", "8080"))
    host = os.environ.get("HOST", "127.0.0.1")
    try:
        server = make_server(host, port)  # first: a busy port fails before anything starts
    except OSError as exc:
        print(f"cannot listen on {host}:{port} ({exc.strerror}); try PORT=9000 make dev", file=sys.stderr)
        return 1
    # A fixed port: a dev database left running by a killed server is found and reused.
    pg_port = int(os.environ.get("ENGRAM_DEV_PG_PORT", "54329"))
    stack = LocalStack(data_dir=dev_data_dir(PROJECT_ROOT), pg_port=pg_port).start()
    api_key = dev_key(stack.dsn)
    # The local queue lives in memory: jobs of an earlier run are gone, so re-enqueue what is pending.
    pending = backfill(stack.dsn)
    signal.signal(signal.SIGTERM, _interrupt)  # stop like Ctrl-C: the database is shut down too
    print(f"Engram API on http://{host}:{port}  (database {stack.dsn})", flush=True)
    print(f"API key: {api_key}", flush=True)
    print(f"Try: curl -s http://{host}:{port}/v1/health", flush=True)
    if pending:
        print(f"Re-enqueued {pending} chunks still waiting for a vector", flush=True)
    print(f"CLI: ENGRAM_DATABASE_URL={stack.dsn} .venv/bin/engram create-tenant <name>", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
