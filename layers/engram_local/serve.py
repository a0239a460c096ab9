"""`make dev`: the local stack plus an HTTP server in front of the real handlers.

Prints the base URL and `API key: <key>` for the dev tenant (a new key each start; keys are
shown once and stored hashed).
"""

from __future__ import annotations

import os
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

from engram.ops.operations import backfill
from engram_local import gateway
from engram_local.postgres import dev_data_dir
from engram_local.stack import LocalStack

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class GatewayHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "engram-local"

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        resp = gateway.handle(self.command, self.path, dict(self.headers.items()), body)
        self.send_response(resp.status)
        for key, value in resp.headers.items():
            if key != "content-length":
                self.send_header(key, value)
        self.send_header("content-length", str(len(resp.body)))
        self.end_headers()
        self.wfile.write(resp.body)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

    def log_message(self, format: str, *args: object) -> None:
        if os.environ.get("ENGRAM_ACCESS_LOG"):
            super().log_message(format, *args)


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


class PooledHTTPServer(HTTPServer):
    """Requests run on a fixed pool of threads, like warm Lambda containers: each keeps its
    database connection across requests instead of opening one per request."""

    def __init__(self, address: tuple[str, int], workers: int = 16) -> None:
        super().__init__(address, GatewayHandler)
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="engram-http")

    def process_request(self, request: Any, client_address: Any) -> None:
        self.pool.submit(self._serve_one, request, client_address)

    def _serve_one(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)

    def server_close(self) -> None:
        super().server_close()
        self.pool.shutdown(wait=False, cancel_futures=True)


def make_server(host: str, port: int) -> PooledHTTPServer:
    return PooledHTTPServer((host, port))


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
        server.server_close()
        stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
