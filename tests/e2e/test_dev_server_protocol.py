"""The dev server against clients that misbehave: bad framing, odd methods, huge bodies, stalls.

Every answer is the API's JSON error envelope, and no bad client holds up a good one.
"""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import statistics
import subprocess
import threading
import time
from typing import Any

import pytest

from engram_local.gateway import API_GATEWAY_MAX_BODY
from tests.support.server_http import SOCKET_TIMEOUT_S, address, request


def raw_exchange(server: str, head: bytes, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are and read one HTTP answer (status, lower-case headers, body)."""
    with socket.create_connection(address(server), timeout=SOCKET_TIMEOUT_S) as sock:
        sock.sendall(head + body)
        resp = http.client.HTTPResponse(sock, method=head.split(b" ", 1)[0].decode())
        resp.begin()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()


def envelope(body: bytes) -> dict[str, Any]:
    parsed = json.loads(body)
    assert set(parsed) == {"error"} and {"code", "message", "details"} <= set(parsed["error"]), parsed
    return parsed["error"]


@pytest.fixture(scope="module")
def key(stack) -> str:
    from engram_local.serve import dev_key

    return dev_key(stack.dsn)


@pytest.mark.parametrize("length", ["-1", "abc", "1e3", " 12x"])
def test_malformed_content_length_is_a_400_envelope(server, length):
    status, headers, body = raw_exchange(
        server,
        f"POST /v1/memories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n".encode(),
    )
    assert status == 400 and headers["content-type"].startswith("application/json")
    assert envelope(body)["code"] == "bad_request"


def test_huge_content_length_is_a_413_envelope_without_reading_it(server):
    status, _, body = raw_exchange(
        server,
        b"POST /v1/memories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 99999999999999999999\r\n\r\n",
    )
    error = envelope(body)
    assert status == 413 and error["code"] == "too_large"
    assert error["details"]["limit"] == API_GATEWAY_MAX_BODY and "/v1/documents/uploads" in error["message"]


def test_body_over_the_api_gateway_limit_is_a_413_envelope_naming_limit_and_alternative(server, key):
    too_big = b'{"content": "' + b"x" * (API_GATEWAY_MAX_BODY + 1024) + b'"}'
    status, headers, body = request(server, "POST", "/v1/memories", too_big, key)
    error = envelope(body)
    assert status == 413 and headers["content-type"].startswith("application/json")
    assert error["details"]["limit"] == API_GATEWAY_MAX_BODY
    assert str(API_GATEWAY_MAX_BODY) in error["message"] and "/v1/documents/uploads" in error["message"]


def test_chunked_body_is_read(server, key):
    payload = json.dumps({"content": "chunked transfer encoding works", "namespace": "chunked"}).encode()
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (payload[:10], payload[10:])) + b"0\r\n\r\n"
    status, _, body = raw_exchange(
        server,
        f"POST /v1/memories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {key}\r\nTransfer-Encoding: chunked\r\n\r\n".encode(),
        chunks,
    )
    assert status == 201, body
    assert json.loads(body)["memory"]["content"] == "chunked transfer encoding works"


def test_broken_chunking_is_a_400_envelope(server, key):
    status, _, body = raw_exchange(
        server,
        f"POST /v1/memories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
        f"Transfer-Encoding: chunked\r\n\r\n".encode(),
        b"zz\r\nnot hex\r\n0\r\n\r\n",
    )
    assert status == 400 and envelope(body)["code"] == "bad_request"


@pytest.mark.parametrize("method", ["OPTIONS", "PUT", "TRACE"])
def test_other_methods_answer_a_405_envelope(server, method):
    status, headers, body = request(server, method, "/v1/memories")
    error = envelope(body)
    assert status == 405 and error["code"] == "method_not_allowed"
    assert set(headers["allow"].split(", ")) == {"GET", "POST"} == set(error["details"]["allowed"])


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/v1/memories/batch", "POST"),
        ("PATCH", "/v1/memories/batch", "POST"),
        ("DELETE", "/v1/memories/batch", "POST"),
        ("OPTIONS", "/v1/memories/batch", "POST"),
        ("DELETE", "/v1/links/batch", "POST"),
        ("OPTIONS", "/v1/links/batch", "POST"),
        ("GET", "/v1/topics/lookup", "POST"),
        ("PUT", "/v1/memories/00000000-0000-4000-8000-000000000001", "DELETE, GET, PATCH"),
        ("OPTIONS", "/v1/links/00000000-0000-4000-8000-000000000001", "DELETE"),
    ],
)
def test_a_literal_path_is_its_own_resource_not_a_parameter_value(server, key, method, path, allowed):
    # API Gateway hands GET /v1/memories/batch to GET /v1/memories/{memory_id}: the function answers
    # 405 (it was a 422 for the id "batch"), and OPTIONS advertises only what the path serves
    status, headers, body = request(server, method, path, key=key)
    assert status == 405 and headers["allow"] == allowed, (status, headers, body)
    error = envelope(body)
    assert error["code"] == "method_not_allowed" and error["details"]["allowed"] == allowed.split(", ")


def test_head_answers_405_as_json_without_a_body(server):
    status, headers, body = request(server, "HEAD", "/v1/health")
    assert status == 405 and headers["content-type"].startswith("application/json") and body == b""


def test_unknown_route_is_a_404_envelope(server):
    status, _, body = request(server, "GET", "/nowhere")
    assert status == 404 and envelope(body)["code"] == "not_found"


def test_listen_backlog_is_large(server):
    ss = shutil.which("ss")
    assert ss, "iproute2's ss reads a listening socket's backlog"
    _, port = address(server)
    out = subprocess.run([ss, "-Hltn", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    backlog = int(out.split()[2])  # State Recv-Q Send-Q ...: Send-Q of a listening socket is its backlog
    assert backlog >= 1024


def test_a_burst_of_parallel_recalls_gets_no_resets(server, key):
    results: list[Any] = []
    start = threading.Barrier(80)

    def recall() -> None:
        start.wait()
        try:
            results.append(request(server, "POST", "/v1/recall", {"query": "burst", "namespace": "burst"}, key)[0])
        except OSError as exc:
            results.append(exc)

    threads = [threading.Thread(target=recall) for _ in range(80)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [200] * 80


def _health_seconds(server: str, n: int = 7) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        assert request(server, "GET", "/v1/health")[0] == 200
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def test_stalled_and_broken_clients_do_not_hold_up_a_good_one(server):
    baseline = _health_seconds(server)
    bad: list[socket.socket] = []
    try:
        for i in range(24):  # more than the request threads
            sock = socket.create_connection(address(server), timeout=SOCKET_TIMEOUT_S)
            if i % 3 == 0:  # promises a body and never sends it
                sock.sendall(b"POST /v1/memories HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
            elif i % 3 == 1:  # never finishes its headers
                sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
            else:  # a negative length, then silence
                sock.sendall(b"POST /v1/memories HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n")
            bad.append(sock)
        time.sleep(0.5)  # let the server take them all in
        with_bad_clients = _health_seconds(server)
    finally:
        for sock in bad:
            sock.close()
    # Same requests, same run: stalled sockets cost the good client next to nothing.
    assert with_bad_clients < 10 * baseline
