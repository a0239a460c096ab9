"""The local server over real HTTP: one per test module, with the embed poller `make dev` runs; and
the environment of a `make dev` process of its own (dev_env)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engram_local.aws import SqsPoller, complete_s3_notification
from engram_local.postgres import free_port


@pytest.fixture(scope="module")
def server(stack):
    from engram_local.serve import make_server

    port = free_port()
    srv = make_server("127.0.0.1", port)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    poller = SqsPoller(stack.embed_queue_url, "embed_worker")  # drains the queue as `make dev` does
    poll_thread = poller.start()
    yield f"http://127.0.0.1:{port}"
    srv.shutdown()
    poller.stop()
    poll_thread.join(timeout=30)  # later tests drain the queue themselves and must not race this thread


@pytest.fixture(scope="module")
def workers(server: str, stack: Any) -> Iterator[None]:
    """The upload, consolidation, export and import queues drained in the background, as `make dev` does."""
    pollers = [
        SqsPoller(stack.uploads_queue_url, "document_ingest", batch_size=1, shape_body=complete_s3_notification),
        SqsPoller(stack.consolidate_queue_url, "consolidation_worker", batch_size=1),
        SqsPoller(stack.export_queue_url, "export_worker", batch_size=1),
        SqsPoller(stack.import_events_queue_url, "import_worker", batch_size=1, shape_body=complete_s3_notification),
    ]
    threads = [p.start() for p in pollers]
    yield
    for p in pollers:
        p.stop()
    for t in threads:
        t.join(timeout=30)  # later tests drain these queues themselves and must not race these threads


@pytest.fixture
def dev_env() -> Any:
    # Not under pytest's tmp_path: as root, Postgres runs as the postgres user, which must reach it.
    base = Path(tempfile.mkdtemp(prefix="engram-durability-"))
    base.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "AWS_"))}
    env.update(PORT=str(free_port()), ENGRAM_DEV_PG_PORT=str(free_port()), ENGRAM_DEV_DATA_DIR=str(base / "dev"))
    yield env, base / "dev" / "pgdata"
    subprocess.run(["rm", "-rf", str(base)], check=False)
