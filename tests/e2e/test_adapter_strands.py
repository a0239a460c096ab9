"""engram_client.strands against the local server, run in .venv-strands (`make strands-env`): Strands
pins mcp below 2.2 and the server's MCP endpoint needs 2.3, so the scenario (strands_scenario.py) runs
in that environment's Python against the server these fixtures start."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]
STRANDS_PYTHON = ROOT / ".venv-strands" / "bin" / "python"


def test_the_session_manager_and_tools_in_a_strands_agent(server: str, make_tenant: Any) -> None:
    if not STRANDS_PYTHON.exists():
        pytest.fail(".venv-strands is missing: run `make strands-env`")
    env = {
        **os.environ,
        "ENGRAM_API_URL": server,
        "ENGRAM_API_KEY": make_tenant("strands").key,
        "AWS_REGION": "us-east-1",  # Strands' default model is built (never called) with a region
        "PYTHONPATH": "",
    }
    done = subprocess.run(
        [str(STRANDS_PYTHON), str(Path(__file__).with_name("strands_scenario.py"))],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "strands scenario passed" in done.stdout, done.stdout + done.stderr
