"""Several requests as one step, written once for both clients: a plan is a generator that yields
the `Call`s it needs (built by `endpoints`) and gets each answer back (or, at the yield, the error the
call raised, so a plan may catch NotFound), so the framework adapters (langgraph, openai_agents,
strands) run the same logic on `Engram` and on `AsyncEngram`."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

from engram_client.client import AsyncEngram, Engram
from engram_client.endpoints import Call
from engram_client.errors import EngramError

T = TypeVar("T")
Plan = Generator[Call[Any], Any, T]


def run(client: Engram, plan: Plan[T]) -> T:
    """Send each call of `plan` with the blocking client; return what the plan returns."""
    try:
        call = next(plan)
        while True:
            try:
                answer = client._send(call)
            except EngramError as error:
                call = plan.throw(error)
            else:
                call = plan.send(answer)
    except StopIteration as done:
        result: T = done.value
        return result


async def arun(client: AsyncEngram, plan: Plan[T]) -> T:
    """`run` with the asyncio client."""
    try:
        call = next(plan)
        while True:
            try:
                answer = await client._send(call)
            except EngramError as error:
                call = plan.throw(error)
            else:
                call = plan.send(answer)
    except StopIteration as done:
        result: T = done.value
        return result
