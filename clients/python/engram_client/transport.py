"""What both clients share: settings, building a request from a `Call`, deciding on each attempt,
and the descriptors that turn each function of `endpoints` into a method of a client."""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, ParamSpec, Protocol, TypeVar, overload

import httpx

from engram_client.endpoints import Call
from engram_client.errors import ConnectionFailed, EngramError, error_from_response
from engram_client.models import Page
from engram_client.retry import RetryPolicy, parse_retry_after, says_undone

P = ParamSpec("P")
T = TypeVar("T")
ItemT = TypeVar("ItemT")
Self = TypeVar("Self")

logger = logging.getLogger("engram_client")  # a line at INFO for each retry, with its reason and wait

# The API Gateway integration gives up at 30 s; a little more lets its 504 arrive instead of ours.
DEFAULT_TIMEOUT = httpx.Timeout(35.0, connect=5.0)
try:  # the one version is pyproject.toml's, read from the installed package's metadata
    __version__ = importlib.metadata.version("engram-client")
except importlib.metadata.PackageNotFoundError:  # the folder used without installing it
    __version__ = "0+unknown"
USER_AGENT = f"engram-client-python/{__version__}"


@dataclass(frozen=True)
class Settings:
    base_url: str
    api_key: str | None = field(repr=False)  # never in a log line that prints the client's settings
    retry: RetryPolicy

    @staticmethod
    def resolve(base_url: str | None, api_key: str | None, retry: RetryPolicy | None) -> Settings:
        url = base_url or os.environ.get("ENGRAM_API_URL")
        if not url:
            raise EngramError("no API URL: pass base_url or set ENGRAM_API_URL")
        key = api_key if api_key is not None else os.environ.get("ENGRAM_API_KEY")
        return Settings(url.rstrip("/"), key, retry or RetryPolicy())

    def request(self, http: httpx.Client | httpx.AsyncClient, call: Call[Any]) -> httpx.Request:
        # The key goes on each API request, not on the HTTP client: the presigned S3 PUT of an upload
        # goes through the same client and must not carry it.
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **call.headers}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return http.build_request(
            call.method,
            self.base_url + call.path,
            params=tuple(call.params),  # a tuple: httpx types the list form invariantly
            json=call.json,
            headers=headers,
        )


class Attempts:
    """The retry decisions for one call: each returns the seconds to wait before trying again, or
    None when the outcome stands (an answer to read, or an error to raise)."""

    def __init__(self, policy: RetryPolicy, call: Call[Any]) -> None:
        self.policy = policy
        self.call = call
        self.retry_safe = call.retry_safe
        self.retries = 0

    def _next(self, delay: float, reason: str) -> float:
        self.retries += 1
        logger.info(
            "retry %d of %s %s in %.2f s after %s", self.retries, self.call.method, self.call.path, delay, reason
        )
        return delay

    def after_error(self, error: httpx.TransportError) -> float | None:
        if self.retries < self.policy.max_retries and self.policy.should_retry_error(error, self.retry_safe):
            return self._next(self.policy.backoff(self.retries), type(error).__name__)
        return None

    def after_response(self, response: httpx.Response) -> float | None:
        if response.is_success:
            return None
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        if self.retries < self.policy.max_retries and self.policy.should_retry_status(
            response.status_code, self.retry_safe, retry_after, says_undone(response)
        ):
            return self._next(self.policy.backoff(self.retries, retry_after), f"status {response.status_code}")
        return None


def connection_failed(call: Call[Any], error: httpx.TransportError, attempts: Attempts) -> ConnectionFailed:
    tried = f" after {attempts.retries + 1} attempts" if attempts.retries else ""
    kind = type(error).__name__
    return ConnectionFailed(f"{call.method} {call.path}: {kind}: {error}{tried}", error)


def read(call: Call[T], response: httpx.Response) -> T:
    if not response.is_success:
        raise error_from_response(response, parse_retry_after(response.headers.get("retry-after")))
    return call.parse(response)


# ---- methods from the endpoint functions --------------------------------------------------------


class SyncSender(Protocol):
    def _send(self, call: Call[T]) -> T: ...


class AsyncSender(Protocol):
    async def _send(self, call: Call[T]) -> T: ...


def _named_like(build: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The method takes the endpoint function's name, docstring and arguments; `help()` shows what
    the method returns (the `X` of the function's `Call[X]`)."""
    signature = inspect.signature(build)
    returns = str(signature.return_annotation)
    if returns.startswith("Call[") and returns.endswith("]"):
        signature = signature.replace(return_annotation=returns[5:-1])

    def name(method: Callable[..., Any]) -> Callable[..., Any]:
        named = functools.wraps(build, assigned=("__module__", "__name__", "__qualname__", "__doc__"))(method)
        named.__signature__ = signature  # type: ignore[attr-defined]  # read by inspect.signature and help()
        return named

    return name


class SyncEndpoint(Generic[P, T]):
    """`client.recall(...)` sends `endpoints.recall(...)` and returns its result."""

    def __init__(self, build: Callable[P, Call[T]]) -> None:
        self.build = build
        self.__doc__ = build.__doc__

    @overload
    def __get__(self: Self, client: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, client: SyncSender, owner: type | None = None) -> Callable[P, T]: ...
    def __get__(self, client: SyncSender | None, owner: type | None = None) -> Any:
        if client is None:
            return self
        build = self.build

        @_named_like(build)
        def send(*args: P.args, **kwargs: P.kwargs) -> T:
            return client._send(build(*args, **kwargs))

        return send


class AsyncEndpoint(Generic[P, T]):
    """`await client.recall(...)` sends `endpoints.recall(...)` and returns its result."""

    def __init__(self, build: Callable[P, Call[T]]) -> None:
        self.build = build
        self.__doc__ = build.__doc__

    @overload
    def __get__(self: Self, client: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, client: AsyncSender, owner: type | None = None) -> Callable[P, Awaitable[T]]: ...
    def __get__(self, client: AsyncSender | None, owner: type | None = None) -> Any:
        if client is None:
            return self
        build = self.build

        @_named_like(build)
        async def send(*args: P.args, **kwargs: P.kwargs) -> T:
            return await client._send(build(*args, **kwargs))

        return send


def _following(
    build: Callable[..., Call[Page[Any]]], args: Any, kwargs: dict[str, Any], page: Page[Any]
) -> Call[Page[Any]] | None:
    after = page.next_page()
    if after is None:
        return None
    kwargs.update(after)  # the same filters, the next cursor (or from_seq)
    return build(*args, **kwargs)


class SyncPages(Generic[P, ItemT]):
    """`client.iter_memories(...)`: every item of every page of `endpoints.list_memories(...)`,
    fetched a page at a time as the caller iterates."""

    def __init__(self, build: Callable[P, Call[Page[ItemT]]]) -> None:
        self.build = build
        self.__doc__ = f"Every item, page after page: {build.__doc__}"

    @overload
    def __get__(self: Self, client: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, client: SyncSender, owner: type | None = None) -> Callable[P, Iterator[ItemT]]: ...
    def __get__(self, client: SyncSender | None, owner: type | None = None) -> Any:
        if client is None:
            return self
        build = self.build

        def items(*args: P.args, **kwargs: P.kwargs) -> Iterator[ItemT]:
            call: Call[Page[ItemT]] | None = build(*args, **kwargs)
            following = dict(kwargs)
            while call is not None:
                page = client._send(call)
                yield from page.items
                call = _following(build, args, following, page)

        return items


class AsyncPages(Generic[P, ItemT]):
    """`async for m in client.iter_memories(...)`: every item of every page, a page at a time."""

    def __init__(self, build: Callable[P, Call[Page[ItemT]]]) -> None:
        self.build = build
        self.__doc__ = f"Every item, page after page: {build.__doc__}"

    @overload
    def __get__(self: Self, client: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, client: AsyncSender, owner: type | None = None) -> Callable[P, AsyncIterator[ItemT]]: ...
    def __get__(self, client: AsyncSender | None, owner: type | None = None) -> Any:
        if client is None:
            return self
        build = self.build

        async def items(*args: P.args, **kwargs: P.kwargs) -> AsyncIterator[ItemT]:
            call: Call[Page[ItemT]] | None = build(*args, **kwargs)
            following = dict(kwargs)
            while call is not None:
                page = await client._send(call)
                for item in page.items:
                    yield item
                call = _following(build, args, following, page)

        return items
