"""A local JSON server standing in for an HTTP service that cannot run here (the Anthropic Messages
API, Bedrock's Rerank): tests and benches give it the answers, and the real client code (anthropic,
boto3) talks to it over a real socket, so nothing of the client is faked."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


# The answer to a request: a JSON body (status 200) or a Reply.
Respond = Callable[[Request], "Reply | dict[str, Any]"]


class JsonStandIn:
    """Answers every POST with what `respond` gives; each request is kept in `requests`, in order."""

    def __init__(self, respond: Respond) -> None:
        self.requests: list[Request] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                request = Request(self.path, dict(self.headers.items()), json.loads(raw or b"{}"))
                stand_in.requests.append(request)
                answer = respond(request)
                reply = answer if isinstance(answer, Reply) else Reply(200, answer)
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # keep test and bench output clean
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def message(body: dict[str, Any], text: str, usage: tuple[int, int]) -> dict[str, Any]:
    """The Messages API's answer to `body`: one text block, end of turn, (input, output) tokens."""
    return {
        "id": "msg_stand_in",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def tool_message(body: dict[str, Any], arguments: dict[str, Any], usage: tuple[int, int]) -> dict[str, Any]:
    """The Messages API's answer to `body` when the model calls the tool `body` forces (tool_choice)
    with `arguments`."""
    name = body.get("tool_choice", {}).get("name") or body["tools"][0]["name"]
    return {
        "id": "msg_stand_in",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [{"type": "tool_use", "id": "toolu_stand_in", "name": name, "input": arguments}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }
