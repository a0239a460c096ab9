"""Runs inside `python3.12 -I -S` for `make verify-build` (infra/verify_build.py): standard library only.

Reads one JSON job on stdin ({"paths", "env", "module", "attribute", "function", "events"}), puts exactly
`paths` in front of the standard library on sys.path, imports the handler, calls it with each event, and
prints one JSON line: the import's duration, the answers, and any module loaded from outside those paths.
"""

import importlib
import json
import os
import sys
import sysconfig
import time
import traceback
import uuid
from typing import Any


class Context:
    """What Powertools and the handlers read from Lambda's context object."""

    def __init__(self, function_name: str) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}"
        self.memory_limit_in_mb = 512
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "verify-build"

    def get_remaining_time_in_millis(self) -> int:
        return 20_000


def main() -> None:
    job = json.loads(sys.stdin.read())
    sys.path[:0] = job["paths"]
    os.environ.update(job["env"])
    result: dict[str, Any] = {"responses": []}
    started = time.perf_counter()
    try:
        handler = getattr(importlib.import_module(job["module"]), job["attribute"])
    except BaseException:
        result["error"] = traceback.format_exc()
        print(json.dumps(result))
        return
    result["import_s"] = time.perf_counter() - started
    for event in job["events"]:
        started = time.perf_counter()
        try:
            answer = handler(event, Context(job["function"]))
        except BaseException:
            answer = {"exception": traceback.format_exc()}
        result["responses"].append({"answer": answer, "seconds": time.perf_counter() - started})
    allowed = [*job["paths"], sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"], __file__]
    result["outside"] = sorted(
        name
        for name, module in list(sys.modules.items())
        if getattr(module, "__file__", None) and not any(str(module.__file__).startswith(p) for p in allowed)
    )
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
