"""The TypeScript SDK (clients/typescript) against the local server over real HTTP: vitest runs its
live tests (test/live, the walk of test_sdk.py) against the server these fixtures start, with two
tenants' admin keys. `make typescript` installs the node modules (`npm ci`) first."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

TYPESCRIPT = Path(__file__).parents[2] / "clients" / "typescript"


def run_vitest(folder: str, env: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    """Run the vitest files of `folder` and return its JSON report; fails naming any failed or skipped test."""
    vitest = TYPESCRIPT / "node_modules" / ".bin" / "vitest"
    if not vitest.exists():
        pytest.fail("clients/typescript/node_modules is missing: run `make typescript` (npm ci) first")
    report_path = tmp_path / "vitest.json"
    done = subprocess.run(
        [str(vitest), "run", folder, "--reporter=json", f"--outputFile={report_path}", "--reporter=default"],
        cwd=TYPESCRIPT,
        env={**os.environ, **env, "CI": "true", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert report_path.exists(), f"vitest wrote no report:\n{done.stdout}\n{done.stderr}"
    report: dict[str, Any] = json.loads(report_path.read_text())
    not_passed = [
        f"{result['fullName']}: {result['status']} {' '.join(result.get('failureMessages', []))[:2000]}"
        for suite in report["testResults"]
        for result in suite["assertionResults"]
        if result["status"] != "passed"
    ]
    assert done.returncode == 0 and not not_passed, "\n".join(not_passed) or f"{done.stdout}\n{done.stderr}"
    return report


@pytest.mark.usefixtures("workers")
def test_the_typescript_sdk_walks_every_capability(server: str, make_tenant: Any, tmp_path: Path) -> None:
    env = {
        "ENGRAM_API_URL": server,
        "ENGRAM_API_KEY": make_tenant("ts-sdk").key,
        "ENGRAM_OTHER_API_KEY": make_tenant("ts-sdk-other").key,
    }
    report = run_vitest("test/live", env, tmp_path)
    assert report["numPassedTests"] >= 19 and report["numTotalTests"] == report["numPassedTests"]
