"""Fixtures shared by the integration tests: a fake Anthropic Messages API at the HTTP boundary."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engram_local.json_stand_in import JsonStandIn, Request, message

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
