"""Loading the real function handlers from functions/ and invoking them as Lambda would."""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

FUNCTIONS_DIR = Path(__file__).resolve().parents[2] / "functions"
_lock = threading.Lock()
_loaded: dict[str, ModuleType] = {}


def _resolver_state_per_thread() -> None:
    """Each request thread plays one Lambda container, but Powertools' HTTP resolver keeps the
    request being served in class attributes (`BaseRouter.current_event`, `.lambda_context`) and
    per-request state in the resolver's `context` dict: right in a Lambda container, which runs one
    invocation at a time; shared by threads, one request would read another's event, its caller
    included. Here those live per thread, so route invocations run side by side, each with its
    own. Local runtime only: Lambda never shares a process between invocations."""
    from aws_lambda_powertools.event_handler import api_gateway

    real = api_gateway.BaseRouter
    if getattr(real, "_engram_state_per_thread", False):
        return
    state = threading.local()
    per_thread = ("current_event", "lambda_context")

    class PerThreadBaseRouter:
        """Stands in for `BaseRouter` where api_gateway's own code assigns or reads the request."""

        def __getattr__(self, name: str) -> Any:
            return getattr(state, name, None) if name in per_thread else getattr(real, name)

        def __setattr__(self, name: str, value: Any) -> None:
            setattr(state, name, value) if name in per_thread else setattr(real, name, value)

    def state_property(name: str) -> property:
        return property(lambda _self: getattr(state, name, None), lambda _self, value: setattr(state, name, value))

    def context_of(resolver: Any) -> dict[str, Any]:
        contexts: dict[int, dict[str, Any]] = state.__dict__.setdefault("contexts", {})
        return contexts.setdefault(id(resolver), {})

    def set_context(resolver: Any, value: dict[str, Any]) -> None:
        state.__dict__.setdefault("contexts", {})[id(resolver)] = value

    for name in per_thread:
        setattr(real, name, state_property(name))
    # Powertools declares these as plain class attributes; the dev server swaps in per-thread ones.
    api_gateway.ApiGatewayResolver.context = property(context_of, set_context)  # type: ignore[assignment]  # per thread
    api_gateway.BaseRouter = PerThreadBaseRouter()  # type: ignore[misc,assignment]  # an instance stands in for the class
    real._engram_state_per_thread = True  # type: ignore[attr-defined]  # our marker: patched once per process


_resolver_state_per_thread()


@dataclass
class LocalLambdaContext:
    """The attributes Powertools and handlers read from a real LambdaContext."""

    function_name: str
    memory_limit_in_mb: int = 1024
    timeout_s: float = 30.0
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    function_version: str = "$LATEST"
    log_group_name: str = "local"
    log_stream_name: str = "local"
    _started: float = field(default_factory=time.monotonic)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:us-east-1:000000000000:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.timeout_s - (time.monotonic() - self._started)) * 1000))


def load_function(name: str) -> ModuleType:
    """Import functions/<name>/handler.py once, under a private module name."""
    with _lock:
        if name not in _loaded:
            path = FUNCTIONS_DIR / name / "handler.py"
            spec = importlib.util.spec_from_file_location(f"engram_function_{name}", path)
            if spec is None or spec.loader is None:
                raise FileNotFoundError(path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            _loaded[name] = module
        return _loaded[name]


# Each request thread plays one Lambda container. Powertools keeps the keys `inject_lambda_context`
# appends (function_name, correlation_id, ...) in one process-wide formatter, and clears its
# thread-local keys on every invocation: right in Lambda, where a process serves one invocation at
# a time; here threads would label each other's lines. A log record's own attributes win over both,
# so every record made during an invocation carries that invocation's keys.
_invocation = threading.local()
_base_record_factory = logging.getLogRecordFactory()


def _record_with_invocation_keys(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _base_record_factory(*args, **kwargs)
    keys = getattr(_invocation, "keys", None)
    if keys:
        record.__dict__.update(keys)
    return record


logging.setLogRecordFactory(_record_with_invocation_keys)


@contextmanager
def invocation_log_keys(context: LocalLambdaContext, event: Any) -> Iterator[None]:
    request_context = event.get("requestContext") if isinstance(event, dict) else None
    _invocation.keys = {
        "function_name": context.function_name,
        "function_memory_size": context.memory_limit_in_mb,
        "function_arn": context.invoked_function_arn,
        "function_request_id": context.aws_request_id,
        # what API Gateway hands the client (a 500's request_id); None, left off the line, for queue events
        "correlation_id": (request_context or {}).get("requestId"),
    }
    try:
        yield
    finally:
        _invocation.keys = None


def invoke(name: str, event: dict[str, Any], timeout_s: float = 30.0) -> Any:
    context = LocalLambdaContext(function_name=name, timeout_s=timeout_s)
    with invocation_log_keys(context, event):
        return load_function(name).handler(event, context)
