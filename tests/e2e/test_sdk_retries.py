"""The SDK's retries over a real HTTP path: a small proxy in front of the local server answers the
first requests with 503 or 429 (or drops the connection, or forwards and then answers 503 as if the
answer were lost) and forwards the rest. The server's own state says what was written."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from engram_client import (
    AsyncEngram,
    ConnectionFailed,
    Engram,
    RateLimited,
    RetryPolicy,
    ServiceUnavailable,
)
from engram_client.retry import parse_retry_after

FAST = RetryPolicy(max_retries=3, base_delay=0.01, max_delay=0.05)


@dataclass
class Seen:
    method: str
    path: str
    idempotency_key: str | None


def envelope(status: int, code: str, message: str, details: Any = None) -> tuple[int, bytes]:
    return status, json.dumps({"error": {"code": code, "message": message, "details": details}}).encode()


# Faults answered by the proxy itself; the request never reaches the server.
ANSWERED = {
    "503": envelope(503, "dependency_unavailable", "injected"),
    "429": envelope(429, "throttled", "injected"),
    # What the API says when the database rolled back the loser of a race: nothing was written.
    "409-retryable": envelope(409, "conflict", "undone", {"retryable": True, "sqlstate": "40P01"}),
}


@dataclass
class FlakyProxy:
    """Forwards to `upstream`; the first requests get the planned faults, in order: those of
    ANSWERED (never forwarded), "drop" (connection closed without an answer), "stall" (no answer
    until the proxy stops), "lost-503" (forwarded, then 503 instead of the server's answer: the
    write happened)."""

    upstream: str
    faults: list[str] = field(default_factory=list)
    retry_after: str | None = "0"
    seen: list[Seen] = field(default_factory=list)
    url: str = ""
    released: threading.Event = field(default_factory=threading.Event)

    def start(self) -> FlakyProxy:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), FaultingHandler)
        self.server.proxy = self  # type: ignore[attr-defined]  # read by the handler
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        return self

    def stop(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


class FaultingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    @property
    def proxy(self) -> FlakyProxy:
        return self.server.proxy  # type: ignore[attr-defined, no-any-return]

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if self.proxy.retry_after is not None:
            self.send_header("Retry-After", self.proxy.retry_after)
        self.end_headers()
        self.wfile.write(body)

    def _forward(self, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        target = urlsplit(self.proxy.upstream)
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        conn.request(self.command, self.path, body=body or None, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, resp.getheaders(), data

    def _handle(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.proxy.seen.append(Seen(self.command, self.path, self.headers.get("Idempotency-Key")))
        fault = self.proxy.faults.pop(0) if self.proxy.faults else None
        if fault in ANSWERED:
            self._answer(*ANSWERED[fault])
            return
        if fault in ("stall", "drop"):
            if fault == "stall":
                self.proxy.released.wait()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        status, headers, data = self._forward(body)
        if fault == "lost-503":
            self._answer(*envelope(503, "bad_gateway", "the answer was lost"))
            return
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("connection", "transfer-encoding", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _handle


@pytest.fixture
def proxy(server: str) -> Iterator[FlakyProxy]:
    p = FlakyProxy(server).start()
    yield p
    p.stop()


@pytest.fixture
def key(make_tenant: Any) -> str:
    return str(make_tenant("sdk-retries").key)


def client(proxy: FlakyProxy, key: str, retry: RetryPolicy = FAST) -> Engram:
    return Engram(proxy.url, key, retry=retry)


def test_a_read_is_retried_after_injected_503s(proxy: FlakyProxy, key: str, caplog: pytest.LogCaptureFixture) -> None:
    with client(proxy, key) as engram:
        memory = engram.store_memory("The VPN certificate expires in March.").memory
        proxy.faults = ["503", "503"]
        with caplog.at_level("INFO", logger="engram_client"):
            assert engram.get_memory(memory.id).content == "The VPN certificate expires in March."
    assert [s.method for s in proxy.seen] == ["POST", "GET", "GET", "GET"]
    said = [r.getMessage() for r in caplog.records if r.name == "engram_client"]
    assert len(said) == 2 and all(f"GET /v1/memories/{memory.id}" in m and "status 503" in m for m in said)


def test_an_append_whose_answer_was_lost_is_retried_with_its_idempotency_key(
    proxy: FlakyProxy, key: str, server: str
) -> None:
    with client(proxy, key) as engram:
        conv = engram.create_conversation(title="retries")
        proxy.faults = ["lost-503"]  # the server appended; the client saw a 503
        result = engram.append_conversation(conv.id, [{"role": "user", "content": "only once, please"}])
    appends = [s for s in proxy.seen if s.path.endswith("/messages")]
    assert len(appends) == 2 and appends[0].idempotency_key and appends[0].idempotency_key == appends[1].idempotency_key
    assert result.replayed and (result.seq_from, result.seq_to) == (1, 1)
    with Engram(server, key) as direct:
        assert [m.content for m in direct.iter_messages(conv.id)] == ["only once, please"]


def test_a_memory_create_whose_answer_was_lost_is_retried_with_its_idempotency_key(
    proxy: FlakyProxy, key: str, server: str
) -> None:
    proxy.faults = ["lost-503"]  # the server stored it; the client saw a 503
    with client(proxy, key) as engram:
        written = engram.store_memory("Stored once, even when the answer is lost.", namespace="lost")
    assert [s.path for s in proxy.seen] == ["/v1/memories", "/v1/memories"]
    assert proxy.seen[0].idempotency_key and proxy.seen[0].idempotency_key == proxy.seen[1].idempotency_key
    assert not written.deduplicated  # the first answer, not a duplicate's
    with Engram(server, key) as direct:
        stored = direct.list_memories(namespace="lost").items
        assert [m.id for m in stored] == [written.memory.id] and stored[0].repetition_count == 0


def test_every_keyed_create_is_retried_after_a_lost_answer_and_writes_once(
    proxy: FlakyProxy, key: str, server: str
) -> None:
    with client(proxy, key) as engram:
        proxy.faults = ["lost-503"]
        conv = engram.create_conversation(title="written once")
        proxy.faults = ["lost-503"]
        batch = engram.store_memories([{"content": "batch item", "namespace": "lost-batch"}])
        a, b = (engram.store_memory(t, namespace="lost-link").memory for t in ("Link end A.", "Link end B."))
        proxy.faults = ["lost-503"]
        link = engram.link_memories(a.id, b.id, "relates_to")
        proxy.faults = ["lost-503"]
        doc = engram.store_document("# Lost answers\n\nRetried with the same key.", content_type="text/markdown")
    assert batch.created == 1 and not doc.deduplicated
    keyed = [
        s for s in proxy.seen if s.path in ("/v1/conversations", "/v1/memories/batch", "/v1/links", "/v1/documents")
    ]
    assert len(keyed) == 8 and all(k.idempotency_key for k in keyed)
    assert [k.idempotency_key for k in keyed[::2]] == [k.idempotency_key for k in keyed[1::2]]
    with Engram(server, key) as direct:
        assert [c.id for c in direct.iter_conversations()] == [conv.id]
        assert [m.repetition_count for m in direct.iter_memories(namespace="lost-batch")] == [0]
        assert [lk.id for lk in direct.iter_links(memory_id=a.id)] == [link.id]
        assert direct.get_memory(doc.memory.id).repetition_count == 0


def test_a_write_without_a_key_is_not_retried_after_a_503_it_may_have_applied(
    proxy: FlakyProxy, key: str, server: str
) -> None:
    proxy.faults = ["lost-503"]
    with client(proxy, key) as engram, pytest.raises(ServiceUnavailable) as unavailable:
        engram.create_key(["read"], name="maybe written")
    assert unavailable.value.status == 503 and unavailable.value.code == "bad_gateway"
    assert len(proxy.seen) == 1
    with Engram(server, key) as direct:  # written exactly once: a retry would have made a second one
        assert [k.name for k in direct.list_keys()].count("maybe written") == 1


def test_a_create_is_retried_after_429_which_applies_nothing(proxy: FlakyProxy, key: str) -> None:
    proxy.faults = ["429"]
    with client(proxy, key) as engram:
        written = engram.store_memory("Throttled once, stored once.")
    assert not written.deduplicated and len(proxy.seen) == 2


def test_a_conflict_the_server_marks_retryable_is_retried_for_any_call(proxy: FlakyProxy, key: str) -> None:
    with client(proxy, key) as engram:
        a = engram.store_memory("Side A of the link.").memory
        b = engram.store_memory("Side B of the link.").memory
        proxy.faults = ["409-retryable"]
        link = engram.link_memories(a.id, b.id, "relates_to")
        assert [lk.id for lk in engram.iter_links(memory_id=a.id)] == [link.id]
    assert [s.path for s in proxy.seen].count("/v1/links") == 2


def test_retry_after_longer_than_the_policy_allows_is_raised(proxy: FlakyProxy, key: str) -> None:
    proxy.faults, proxy.retry_after = ["429"], "3600"
    with client(proxy, key) as engram, pytest.raises(RateLimited) as limited:
        engram.list_memories()
    assert limited.value.retry_after == 3600 and limited.value.code == "throttled" and len(proxy.seen) == 1


def test_retries_stop_after_max_retries(proxy: FlakyProxy, key: str) -> None:
    proxy.faults = ["503"] * 10
    with client(proxy, key, RetryPolicy(max_retries=2, base_delay=0.01)) as engram, pytest.raises(ServiceUnavailable):
        engram.recall("anything")
    assert len(proxy.seen) == 3


def test_a_dropped_connection_is_retried_only_when_safe(proxy: FlakyProxy, key: str) -> None:
    proxy.faults = ["drop"]
    with client(proxy, key) as engram:
        assert engram.list_memories().items == []
        assert len(proxy.seen) == 2
        proxy.faults = ["drop"]
        with pytest.raises(ConnectionFailed):
            engram.create_key(["read"], name="sent into a dropped connection")
        assert len(proxy.seen) == 3
        proxy.faults = ["drop"]  # a keyed create is safe to send again
        assert not engram.store_memory("sent again after a dropped connection").deduplicated
        assert len(proxy.seen) == 5


def test_a_read_timeout_is_retried_only_when_safe(proxy: FlakyProxy, key: str) -> None:
    # A read timeout far above what a forwarded request takes here: only the stalled attempt hits it.
    timeout = httpx.Timeout(5.0, read=1.5)
    with Engram(proxy.url, key, retry=FAST, timeout=timeout) as engram:
        proxy.faults = ["stall"]
        assert engram.list_memories().items == []
        assert len(proxy.seen) == 2
        proxy.faults = ["stall"]
        with pytest.raises(ConnectionFailed) as failed:
            engram.create_key(["read"], name="its answer never came")
        assert isinstance(failed.value.cause, httpx.ReadTimeout) and len(proxy.seen) == 3
        proxy.faults = ["stall"]
        assert engram.create_conversation(title="sent again after a read timeout").title
        assert len(proxy.seen) == 5


def test_a_refused_connection_is_retried_then_raised() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with Engram(f"http://127.0.0.1:{port}", "egk_x", retry=FAST) as engram, pytest.raises(ConnectionFailed) as failed:
        engram.store_memory("never sent")  # nothing was sent: safe to retry even a create
    assert "after 4 attempts" in str(failed.value)


def test_async_client_retries_too(proxy: FlakyProxy, key: str) -> None:
    async def scenario() -> tuple[str, bool]:
        async with AsyncEngram(proxy.url, key, retry=FAST) as engram:
            conv = await engram.create_conversation()
            proxy.faults = ["503", "lost-503"]
            appended = await engram.append_conversation(conv.id, [{"role": "assistant", "content": "hello"}])
            proxy.faults = ["429"]
            found = await engram.recall("hello", kinds=["conversation"], touch=False)
            return appended.messages[0].content, appended.replayed and found.degraded is not None

    content, replayed = asyncio.run(scenario())
    assert content == "hello" and replayed
    assert [s.method for s in proxy.seen] == ["POST", "POST", "POST", "POST", "POST", "POST"]


def test_backoff_is_full_jitter_under_the_cap() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=8.0)
    for retry, cap in [(0, 0.5), (1, 1.0), (3, 4.0), (6, 8.0)]:
        waits = [policy.backoff(retry) for _ in range(200)]
        assert all(0 <= w <= cap for w in waits) and max(waits) > cap / 2  # spread over the range
    assert policy.backoff(5, retry_after=2.0) == 2.0


def test_retry_after_as_seconds_or_http_date() -> None:
    now = datetime(2026, 11, 26, 8, 0, tzinfo=UTC)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now=now) == 30.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=30), usegmt=True), now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
