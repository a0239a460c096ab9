"""Fixtures shared by the integration tests: fake Messages APIs at the HTTP boundary, started per test,
and settings changed for one test. Their helpers (the owner's view of a tenant's rows, document bodies,
the scripted model) are in tests/support."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.messages_api import Answer, FakeMessages


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


@pytest.fixture
def settings_env(monkeypatch: pytest.MonkeyPatch, stack: Any) -> Iterator[Callable[..., None]]:
    """Set environment variables and reload the settings; both undone when the test ends."""
    from engram_local.stack import LocalStack

    def setenv(**values: str) -> None:
        for key, value in values.items():
            monkeypatch.setenv(key, value)
        LocalStack.refresh_settings()

    yield setenv
    monkeypatch.undo()
    LocalStack.refresh_settings()
