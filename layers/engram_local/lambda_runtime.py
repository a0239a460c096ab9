"""Loading the real function handlers from functions/ and invoking them as Lambda would."""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

FUNCTIONS_DIR = Path(__file__).resolve().parents[2] / "functions"
_lock = threading.Lock()
_loaded: dict[str, ModuleType] = {}


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


def invoke(name: str, event: dict[str, Any], timeout_s: float = 30.0) -> Any:
    return load_function(name).handler(event, LocalLambdaContext(function_name=name, timeout_s=timeout_s))
