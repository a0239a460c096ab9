"""Fixtures shared by the integration tests: a fake Anthropic Messages API at the HTTP boundary,
settings changed for one test, the owner's view of a tenant's rows, and document bodies of any size."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

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


def owner_connection(stack: Any) -> psycopg.Connection:
    """The database owner's connection: past row-level security, to see what the API cannot."""
    return psycopg.connect(stack.dsn, autocommit=True)


def tenant_rows(stack: Any, tenant_id: str) -> dict[str, Any]:
    """Every memory and chunk row of the tenant as the database renders them, and its link count:
    equal snapshots mean nothing changed, byte for byte."""
    with owner_connection(stack) as conn:
        memories = conn.execute(
            "SELECT id::text, to_jsonb(m)::text FROM memories m WHERE tenant_id = %s ORDER BY id", (tenant_id,)
        ).fetchall()
        chunks = conn.execute(
            "SELECT id::text, (to_jsonb(c) - 'tsv')::text FROM chunks c WHERE tenant_id = %s ORDER BY id", (tenant_id,)
        ).fetchall()
        links = conn.execute("SELECT count(*) FROM links WHERE tenant_id = %s", (tenant_id,)).fetchone()
    return {"memories": dict(memories), "chunks": dict(chunks), "links": links[0] if links else 0}


_WORDS = [
    "river",
    "stone",
    "lantern",
    "harbor",
    "signal",
    "copper",
    "meadow",
    "ledger",
    "orbit",
    "canvas",
    "timber",
    "falcon",
    "quartz",
    "ember",
    "glacier",
    "violet",
    "anchor",
    "summit",
    "willow",
    "beacon",
]


def _block() -> str:
    """~64 KiB of ASCII prose with Markdown headings: sentences vary so chunks differ."""
    out, i = [], 0
    while sum(len(s) for s in out) < 64 * 1024:
        if i % 40 == 0:
            out.append(f"\n## Section {i // 40}\n\n")
        w = [_WORDS[(i * 7 + k * 3) % len(_WORDS)] for k in range(9)]
        out.append(f"The {w[0]} {w[1]} keeps the {w[2]} near the {w[3]} {w[4]}; {w[5]} {w[6]} {w[7]} {w[8]}. ")
        if i % 6 == 5:
            out.append("\n\n")
        i += 1
    return "".join(out)


BLOCK = _block()


def make_body(size: int, marker: str = "", marker_at: float = 0.5) -> str:
    """An ASCII-only Markdown body of exactly `size` bytes, unique, with `marker` at a relative position."""
    head = f"# Document {uuid.uuid4()}\n\n"
    reps = size // len(BLOCK) + 2
    text = head + BLOCK * reps
    if marker:
        at = int(size * marker_at)
        text = text[:at] + f"\n\n{marker}\n\n" + text[at:]
    return text[:size]


# ---- a scripted model for extraction (tool calls)

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
            self.script.append(a if callable(a) else (lambda _body, a=a: a))

    @staticmethod
    def prompt(body: dict[str, Any]) -> str:
        return body["messages"][0]["content"]

    @staticmethod
    def stored(body: dict[str, Any]) -> dict[str, int]:
        """The stored memories the prompt shows: content -> number."""
        block = ScriptedModel.prompt(body).split("<stored_memories>")[1].split("</stored_memories>")[0]
        return {json.loads(line)["content"]: json.loads(line)["number"] for line in block.strip().splitlines()}


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch, stack: Any) -> Iterator[ScriptedModel]:
    from engram_local.stack import LocalStack

    # Jobs an earlier test queued and never ran would take this test's scripted answers: dropped.
    sqs = stack.aws.sqs()
    while found := sqs.receive_message(QueueUrl=stack.extract_queue_url, MaxNumberOfMessages=10).get("Messages"):
        for m in found:
            sqs.delete_message(QueueUrl=stack.extract_queue_url, ReceiptHandle=m["ReceiptHandle"])
    scripted = ScriptedModel()
    for name, value in {
        "ANTHROPIC_API_KEY": "sk-test",
        "ENGRAM_ANTHROPIC_BASE_URL": scripted.stand_in.url,
        "ENGRAM_LLM_BACKOFF_S": "0.01",
        "ENGRAM_LLM_MAX_RETRIES": "1",
        "ENGRAM_LLM_LEVEL": "auto",
        "ENGRAM_EXTRACTION_MIN_TURNS": "4",
    }.items():
        monkeypatch.setenv(name, value)
    LocalStack.refresh_settings()
    yield scripted
    scripted.stand_in.close()
    monkeypatch.undo()
    LocalStack.refresh_settings()
