"""Fixtures shared by the integration tests: a fake Anthropic Messages API at the HTTP boundary."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

Answer = Callable[[dict[str, Any]], str]


class FakeMessages:
    """The Messages API on a local port: each request body is kept in `requests` and answered with
    the text `answer(body)` gives, with `usage` as (input, output) tokens."""

    def __init__(self, answer: Answer, usage: tuple[int, int]) -> None:
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                fake.requests.append(body)
                raw = json.dumps(
                    {
                        "id": "msg_fake",
                        "type": "message",
                        "role": "assistant",
                        "model": body["model"],
                        "content": [{"type": "text", "text": answer(body)}],
                        "stop_reason": "end_turn",
                        "stop_sequence": None,
                        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_messages() -> Iterator[Callable[[Answer, tuple[int, int]], FakeMessages]]:
    """Start fake Messages APIs; each is stopped when the test ends."""
    started: list[FakeMessages] = []

    def start(answer: Answer, usage: tuple[int, int]) -> FakeMessages:
        started.append(FakeMessages(answer, usage))
        return started[-1]

    yield start
    for fake in started:
        fake.close()
