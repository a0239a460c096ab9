"""Loading the real function handlers from functions/ and invoking them as Lambda would."""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from engram_http.route_table import ROUTES

FUNCTIONS_DIR = Path(__file__).resolve().parents[2] / "functions"
_lock = threading.Lock()
_loaded: dict[str, ModuleType] = {}
# Powertools' HTTP resolver keeps the request being served in a class attribute
# (BaseRouter.current_event) and per-request state on the resolver: right in a Lambda container,
# which runs one invocation at a time, wrong for threads sharing a process (one request would
# read another's event, its caller included). Route invocations take turns in this process; the
# authorizer and the queue consumers, which use no resolver, run beside them.
_ROUTE_FUNCTIONS = frozenset(route.function for route in ROUTES)
_route_turn = threading.Lock()


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
        "function_name": context.function_name, "function_memory_size": context.memory_limit_in_mb,
        "function_arn": context.invoked_function_arn, "function_request_id": context.aws_request_id,
        # what API Gateway hands the client (a 500's request_id); None, left off the line, for queue events
        "correlation_id": (request_context or {}).get("requestId"),
    }
    try:
        yield
    finally:
        _invocation.keys = None


def invoke(name: str, event: dict[str, Any], timeout_s: float = 30.0) -> Any:
    context = LocalLambdaContext(function_name=name, timeout_s=timeout_s)
    turn: AbstractContextManager[Any] = _route_turn if name in _ROUTE_FUNCTIONS else nullcontext()
    with turn, invocation_log_keys(context, event):
        return load_function(name).handler(event, context)
