"""What a route handler's cold start imports: numpy (~50 ms) only where a route needs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


@pytest.mark.parametrize("function", ["admin", "memories", "recall", "conversations", "documents"])
def test_the_handler_imports_without_numpy(function: str) -> None:
    handler = str(ROOT / "functions" / function / "handler.py")
    code = (
        "import importlib.util, sys;"
        f"spec = importlib.util.spec_from_file_location('handler', {handler!r});"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module);"
        "print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
