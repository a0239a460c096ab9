"""What the recall-quality benches share: requests through the local API Gateway stand-in (authorizer
and route Lambdas run for real, in process) and waiting for the embed pipeline."""

from __future__ import annotations

import json
import time
from typing import Any


def call(key: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One request with the tenant's key: (status, parsed JSON body)."""
    from engram_local import gateway

    resp = gateway.handle(
        method,
        path,
        {"authorization": f"Bearer {key}", "content-type": "application/json"},
        b"" if body is None else json.dumps(body, default=str).encode(),
    )
    return resp.status, json.loads(resp.body)


def wait_for_vectors(stack: Any) -> None:
    """Drain the embed queue until every chunk has its vector. A drain stops when the queue answers
    empty, but a job that failed on a loaded machine is invisible until its visibility timeout: asking
    then would score the first rows with vectors missing (keyword only for those turns)."""
    import psycopg

    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        while True:
            stack.embed_poller.drain()
            row = conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NULL").fetchone()
            if row is None or row[0] == 0:
                return
            time.sleep(1)
