"""Anthropic's Messages API at the HTTP boundary, on a local port (engram_local.json_stand_in): the real
anthropic client and engram.adapters.llm run against it. FakeMessages answers with text; ScriptedModel
answers each request with the next scripted tool call."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from engram_local.json_stand_in import JsonStandIn, Reply, Request, message, tool_message

Answer = Callable[[dict[str, Any]], str]


class FakeMessages:
    """The Messages API on a local port: each request body is kept in `requests` and answered with
    the text `answer(body)` gives, with `usage` as (input, output) tokens."""

    def __init__(self, answer: Answer, usage: tuple[int, int]) -> None:
        self.requests: list[dict[str, Any]] = []  # a live list: tests keep a reference to it

        def respond(request: Request) -> dict[str, Any]:
            self.requests.append(request.body)
            return message(request.body, answer(request.body), usage)

        self.stand_in = JsonStandIn(respond)
        self.url = self.stand_in.url

    def close(self) -> None:
        self.stand_in.close()


Script = Callable[[dict[str, Any]], "dict[str, Any] | Reply | str"]


class ScriptedModel:
    """The Messages API answering each request with the next scripted answer (a tool call's arguments,
    or a Reply for an error); every request body is kept."""

    def __init__(self) -> None:
        self.script: list[Script] = []
        self.requests: list[dict[str, Any]] = []

        def respond(request: Request) -> dict[str, Any] | Reply:
            self.requests.append(request.body)
            answer = self.script.pop(0)(request.body) if self.script else {"summary": "", "memories": []}
            if isinstance(answer, str):  # a plain-text answer (a call without a tool)
                return message(request.body, answer, (400, 80))
            return answer if isinstance(answer, Reply) else tool_message(request.body, answer, (900, 120))

        self.stand_in = JsonStandIn(respond)

    def then(self, *answers: Script | dict[str, Any] | Reply | str) -> None:
        for a in answers:
            self.script.append(a if callable(a) else _always(a))

    @staticmethod
    def prompt(body: dict[str, Any]) -> str:
        return str(body["messages"][0]["content"])

    @staticmethod
    def stored(body: dict[str, Any]) -> dict[str, int]:
        """The stored memories the prompt shows: content -> number."""
        block = ScriptedModel.prompt(body).split("<stored_memories>")[1].split("</stored_memories>")[0]
        return {json.loads(line)["content"]: json.loads(line)["number"] for line in block.strip().splitlines()}


def _always(answer: dict[str, Any] | Reply | str) -> Script:
    """A script step that gives the same answer whatever the request."""
    return lambda _body: answer
