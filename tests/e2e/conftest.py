"""The local server over real HTTP: one per test module, with the embed poller `make dev` runs."""

from __future__ import annotations

import threading

import pytest

from engram_local.aws import SqsPoller
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
