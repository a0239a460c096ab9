"""`make fuzz`: schemathesis against a freshly started local server, loopback only.

Starts an embedded PostgreSQL in a temporary folder, then `make dev`'s server
(`python -m engram_local.serve`) on a free 127.0.0.1 port pointed at it, reads the `API key:`
line it prints, and runs schemathesis over every route of `/v1/openapi.json` (coverage and
fuzzing phases, a fixed seed, a time budget). The verdict is printed: server errors (5xx),
answers off their documented status, content type or schema, a method a path does not serve
answered other than 405 with `Allow`, and an OPTIONS `Allow` other than the documented methods must
all be 0. Everything it started is stopped and removed.

    .venv/bin/python bench/fuzz.py                       # ~5 min: coverage + fuzzing, seed 8
    .venv/bin/python bench/fuzz.py --max-time 60 --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers")]

# What must be zero. Other checks are reported but do not fail the run.
GATED_CHECKS = (
    "not_a_server_error",
    "response_schema_conformance",
    "status_code_conformance",
    "content_type_conformance",
    "unsupported_method",  # a method a path does not serve: 405 with an Allow header
    "allow_header_conformance",  # OPTIONS advertises exactly the documented methods
)


def start_server(tmp: Path, log: Path) -> tuple[subprocess.Popen[str], str, str, Any]:
    """The dev server on a free loopback port over a throwaway database; returns (proc, base, key, pg)."""
    from engram_local.postgres import EmbeddedPostgres, free_port

    pg = EmbeddedPostgres(tmp / "pgdata").start()
    port = free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "ENGRAM_DATABASE_URL": pg.admin_dsn,
        "PYTHONPATH": str(ROOT / "layers"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "engram_local.serve"],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
    )
    assert proc.stdout is not None
    key = ""
    deadline = time.monotonic() + 120
    for line in proc.stdout:
        if line.startswith("API key: "):
            key = line.split(":", 1)[1].strip()
            break
        if time.monotonic() > deadline:
            break
    if not key:
        proc.kill()
        pg.stop()
        raise SystemExit(f"the server did not print an API key; see {log}")
    # Keep reading its stdout so a full pipe never blocks it.
    threading.Thread(target=lambda: [None for _ in proc.stdout or ()], daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    urllib.request.urlopen(f"{base}/v1/health", timeout=30).read()
    return proc, base, key, pg


def run_schemathesis(
    base: str,
    key: str,
    *,
    seed: int,
    max_time: int | None,
    max_examples: int | None,
    phases: str,
    workers: int,
    report_dir: Path,
    checks: str = "all",
) -> int:
    cmd = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        f"{base}/v1/openapi.json",
        "-H",
        f"Authorization: Bearer {key}",
        "--seed",
        str(seed),
        "--phases",
        phases,
        "--checks",
        checks,
        "--continue-on-failure",
        "--workers",
        str(workers),
        "--no-color",
        "--request-timeout",
        "30",
        "--generation-database",
        "none",
        "--suppress-health-check",
        "all",
        "--report",
        "ndjson",
        "--report-dir",
        str(report_dir),
        "--output-truncate",
        "true",
    ]
    if max_time:
        cmd += ["--max-time", str(max_time)]
    if max_examples:
        cmd += ["--max-examples", str(max_examples)]
    return subprocess.run(cmd, cwd=report_dir, check=False).returncode


def summarize(report_dir: Path) -> dict[str, Any]:
    """Failures by check and by route, from schemathesis's ndjson event stream."""
    by_check: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    by_route: Counter[tuple[str, str]] = Counter()
    samples: dict[tuple[str, str], str] = {}
    cases = errors = 0
    for path in report_dir.glob("*.ndjson"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            for name, body in event.items():
                errors += name == "NonFatalError"
                if name != "ScenarioFinished":
                    continue
                recorder = body.get("recorder") or {}
                cases += len(recorder.get("cases") or {})
                for interaction in (recorder.get("interactions") or {}).values():
                    statuses[(interaction.get("response") or {}).get("status_code", 0)] += 1
                label = recorder.get("label", "?")
                for checks in (recorder.get("checks") or {}).values():
                    for check in checks:
                        if check.get("status") != "failure":
                            continue
                        by_check[check["name"]] += 1
                        by_route[(label, check["name"])] += 1
                        failure = check.get("failure_info") or {}
                        detail = failure.get("failure") or {}
                        samples.setdefault(
                            (label, check["name"]), f"{detail.get('title', '')}: {str(detail.get('message', ''))[:300]}"
                        )
    return {
        "cases": cases,
        "errors": errors,
        "by_check": by_check,
        "by_route": by_route,
        "samples": samples,
        "statuses": statuses,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--max-time", type=int, default=300, help="seconds for the whole schemathesis run")
    parser.add_argument("--max-examples", type=int, default=None, help="per operation (fuzzing phase)")
    parser.add_argument("--phases", default="coverage,fuzzing")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--checks", default="all", help="schemathesis checks to run (the gated ones must be among them)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (reports, server log)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="engram-fuzz-"))
    log = tmp / "server.log"
    report_dir = tmp / "report"
    report_dir.mkdir()
    proc, base, key, pg = start_server(tmp, log)
    print(f"fuzzing {base} (server log {log}), seed {args.seed}, phases {args.phases}", flush=True)
    try:
        run_schemathesis(
            base,
            key,
            seed=args.seed,
            max_time=args.max_time,
            max_examples=args.max_examples,
            phases=args.phases,
            workers=args.workers,
            report_dir=report_dir,
            checks=args.checks,
        )
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        pg.stop()
    found = summarize(report_dir)
    print(f"\n{found['cases']} cases, {found['errors']} schemathesis runtime errors")
    for (label, check), n in sorted(found["by_route"].items()):
        print(f"  {n:5d}  {check:32s} {label}\n         {found['samples'][(label, check)]}")
    gated = {c: found["by_check"].get(c, 0) for c in GATED_CHECKS}
    for check, n in found["by_check"].most_common():
        print(f"{check}: {n}{'' if check in GATED_CHECKS else '  (reported, not gated)'}")
    tracebacks = log.read_text(errors="replace").count("Traceback")
    print(f"tracebacks in the server log: {tracebacks}")
    ok = not any(gated.values())
    print(f"answers by status: {dict(sorted(found['statuses'].items()))}")
    print(f"PASS: 0 failures of {', '.join(GATED_CHECKS)}" if ok else f"FAIL: {gated}")
    if args.keep or not ok:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
