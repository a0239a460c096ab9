"""Cold import time of each Lambda handler module: a fresh interpreter per sample, median of N.

    .venv/bin/python -m bench.perf.cold_import [--runs 5]

Aim: at most 300 ms each on this machine (the import is what a cold start pays before the
first request; the connection and the embedder load lazily on first use).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import importlib.util, time; t = time.perf_counter();"
    "spec = importlib.util.spec_from_file_location('handler', {path!r});"
    "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m);"
    "print((time.perf_counter() - t) * 1000)"
)


def sample(path: Path) -> float:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(path=str(path))], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'function':<18}{'median ms':>10}{'max ms':>10}")
    for handler in sorted((ROOT / "functions").glob("*/handler.py")):
        times = [sample(handler) for _ in range(args.runs)]
        print(f"{handler.parent.name:<18}{statistics.median(times):>10.0f}{max(times):>10.0f}")


if __name__ == "__main__":
    main()
