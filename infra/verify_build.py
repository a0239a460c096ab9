"""`make verify-build`: the assets `make build` wrote, proven the way Lambda will run them.

1. Synthesizes dev, staging and prod from build/lambda and reads each Engram function's handler,
   layers and environment from the templates.
2. Builds an x86_64 twin of the dependency layer from the same lock (locks/layer.txt: the same versions,
   pure-Python files byte for byte; only the native libraries differ), since this machine cannot run
   the aarch64 one, and compiles its bytecode as `make build` does for the shipped one.
3. For every function: CPython 3.12 with -I -S (no site-packages, no environment, no current folder)
   and sys.path set to exactly the function folder, the core layer, the dependency layer (twin), a boto3
   (the runtime's own) and the standard library; imports the handler with the template's environment.
   Twice in the same run: from sources alone (a copy without __pycache__) and with the shipped
   bytecode, printing both import times.
4. Invokes GET /v1/health and GET /v1/openapi.json through their function with API Gateway v2 events
   (no database here: health must answer 200 or 503 with the envelope, never 500); the OpenAPI
   document must come back as JSON.
5. Fails on any import error, module loaded from outside those paths, wrong answer, or a function
   whose code and layers exceed Lambda's 250 MB unzipped (make build's own check, repeated here).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from infra.build_assets import LAMBDA_UNZIPPED_LIMIT, compile_bytecode, dir_size, lambda_python, prune
from infra.locks import DEV_LOCK, LAYER_LOCK, PYTHON_VERSION
from infra.nag import logical_id
from infra.paths import BUILD_DIR, EXCLUDE, LAYERS_SRC, MANIFEST

VERIFY_DIR = BUILD_DIR.parent / "verify"
TWIN_PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
# The SDK the Lambda runtime provides (left out of the layer), and what it needs.
RUNTIME_SDK = ("boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3")
ROUTES_TO_INVOKE = (("GET", "/v1/health"), ("GET", "/v1/openapi.json"))
RUNNER = Path(__file__).resolve().parent / "sandbox_runner.py"
# AWS calls fail at once (nothing listens on the endpoint); no credential lookup, no retries.
SANDBOX_AWS = {
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "verify-build",
    "AWS_SECRET_ACCESS_KEY": "verify-build",
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ENDPOINT_URL": "http://127.0.0.1:9",
    "AWS_MAX_ATTEMPTS": "1",
    "AWS_EXECUTION_ENV": f"AWS_Lambda_python{PYTHON_VERSION}",
}


def function_jobs(envs: tuple[str, ...] = ("dev", "staging", "prod")) -> dict[str, dict[str, Any]]:
    """Per Engram function: its handler, whether it has the layers, and its environment (the union over
    `envs`, values of the first environment; deploy-time references become local stand-ins)."""
    from infra.synth import synth

    jobs: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as outdir:
        for env in envs:
            template, stack = synth(env, Path(outdir) / env)
            if stack.assets.warnings:
                raise SystemExit(f"synthesized with placeholders ({stack.assets.warnings}): run `make build`")
            for name, function in stack.functions.functions.items():
                properties = template["Resources"][logical_id(function)]["Properties"]
                module, attribute = properties["Handler"].rsplit(".", 1)
                job = jobs.setdefault(name, {"module": module, "attribute": attribute, "env": {}})
                job["layers"] = len(properties.get("Layers", []))
                for key, value in properties.get("Environment", {}).get("Variables", {}).items():
                    job["env"].setdefault(key, _stand_in(key, value))
    return jobs


def _stand_in(key: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if key in ("ENGRAM_DB_HOST", "ENGRAM_DB_READER_HOST"):
        return "127.0.0.1"  # refused at once: no database here
    if key.endswith("_ARN"):
        return "arn:aws:secretsmanager:us-east-1:123456789012:secret:verify-build"
    if key.endswith("_QUEUE_URL"):
        return "https://sqs.us-east-1.amazonaws.com/123456789012/verify-build"
    return "verify-build"


def install(target: Path, lock_lines: str, platforms: tuple[str, ...]) -> None:
    shutil.rmtree(target, ignore_errors=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as requirements:
        requirements.write(lock_lines)
        requirements.flush()
        command = [
            sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", str(target),
            "--implementation", "cp", "--python-version", PYTHON_VERSION, "--only-binary=:all:", "--no-compile",
            "--no-deps", "--require-hashes", *[a for p in platforms for a in ("--platform", p)],
            "-r", requirements.name,
        ]  # fmt: skip
        subprocess.run(command, check=True)


def runtime_sdk_lines() -> str:
    """The entries of locks/dev.txt for the runtime's SDK (with their hashes)."""
    entries = re.split(r"\n(?=[A-Za-z0-9])", DEV_LOCK.read_text())
    wanted = [e for e in entries if re.match(r"([A-Za-z0-9._-]+)==", e) and e.split("==")[0].lower() in RUNTIME_SDK]
    return "\n".join(re.sub(r" ; [^\\]*\\", " \\\\", e) for e in wanted) + "\n"


def source_copy(folder: Path, target: Path) -> Path:
    """`folder` without bytecode: what importing from sources alone costs."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(folder, target, ignore=shutil.ignore_patterns(*EXCLUDE))
    return target


def run(python: str, job: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    completed = subprocess.run(
        [python, "-I", "-S", "-B", str(RUNNER)],
        input=json.dumps({**job, "events": events}),
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )
    lines = completed.stdout.strip().splitlines()
    if completed.returncode != 0 or not lines:
        return {"error": completed.stderr[-3000:] or f"exit {completed.returncode}"}
    return dict(json.loads(lines[-1]))


def route_events() -> dict[str, list[dict[str, Any]]]:
    """API Gateway v2 events for ROUTES_TO_INVOKE, per function (the dev server's event builder)."""
    sys.path.insert(0, str(LAYERS_SRC))
    from engram_http.route_table import ROUTES
    from engram_local.gateway import build_event

    events: dict[str, list[dict[str, Any]]] = {}
    for method, path in ROUTES_TO_INVOKE:
        (route,) = [r for r in ROUTES if (r.method, r.path) == (method, path)]
        headers = {"host": "verify.execute-api.us-east-1.amazonaws.com", "user-agent": "make verify-build"}
        events.setdefault(route.function, []).append(build_event(method, path, headers, b"", route, {}))
    return events


def check_answers(events: list[dict[str, Any]], result: dict[str, Any]) -> list[str]:
    problems = []
    for event, response in zip(events, result.get("responses", []), strict=True):
        answer, route = response["answer"], event["routeKey"]
        status = answer.get("statusCode") if isinstance(answer, dict) else None
        print(f"  {route}: {status} in {response['seconds']:.2f} s")
        body = answer.get("body", "") if isinstance(answer, dict) else ""
        if route.endswith("/v1/openapi.json") and (status != 200 or '"openapi"' not in body):
            problems.append(f"{route}: expected 200 with the OpenAPI document, got {str(answer)[:300]}")
        if route.endswith("/v1/health") and (status not in (200, 503) or not re.search(r'"(status|error)"', body)):
            problems.append(f"{route}: expected 200, or 503 with the envelope, got {str(answer)[:300]}")
    return problems


def main() -> int:
    started = time.monotonic()
    if not MANIFEST.is_file():
        print("build/lambda is not built: run `make build` first (make verify-build does)")
        return 1
    python = lambda_python()
    if python is None:
        print("verify-build needs a CPython 3.12 (the Lambda runtime's): set ENGRAM_PYTHON312")
        return 1
    twin = VERIFY_DIR / "deps-x86_64" / "python"
    install(twin, LAYER_LOCK.read_text(), TWIN_PLATFORMS)
    prune(twin)
    runtime = VERIFY_DIR / "runtime"
    install(runtime, runtime_sdk_lines(), TWIN_PLATFORMS)
    sources = VERIFY_DIR / "sources"
    core_source = source_copy(BUILD_DIR / "layers" / "core" / "python", sources / "core")
    twin_source = source_copy(twin, sources / "deps")
    compile_bytecode(python, twin, runtime)

    jobs = function_jobs()
    events = route_events()
    problems: list[str] = []
    print(f"\n{'function':<28}{'import, sources':>16}{'with bytecode':>15}{'ratio':>7}")
    for name, job in sorted(jobs.items()):
        folder = BUILD_DIR / "functions" / name
        layers = (BUILD_DIR / "layers" / "core" / "python", twin) if job["layers"] else ()
        env = {**SANDBOX_AWS, **job["env"], "AWS_LAMBDA_FUNCTION_NAME": name, "LAMBDA_TASK_ROOT": str(folder)}
        base = {k: job[k] for k in ("module", "attribute")} | {"function": name, "env": env}
        cold = run(python, {**base, "paths": [str(source_copy(folder, sources / "functions" / name)),
                                               *([str(core_source), str(twin_source)] if layers else []),
                                               str(runtime)]}, [])  # fmt: skip
        warm = run(python, {**base, "paths": [str(folder), *map(str, layers), str(runtime)]}, events.get(name, []))
        for label, result in (("sources", cold), ("bytecode", warm)):
            if "error" in result:
                problems.append(f"{name} ({label}): {result['error']}")
            if result.get("outside"):
                problems.append(f"{name} ({label}): modules from outside the sandbox: {result['outside'][:5]}")
        if "import_s" in cold and "import_s" in warm:
            ratio = cold["import_s"] / max(warm["import_s"], 1e-6)
            print(f"{name:<28}{cold['import_s']:>15.3f}s{warm['import_s']:>14.3f}s{ratio:>6.1f}x")
        if name in events and "responses" in warm:
            problems += check_answers(events[name], warm)
        shipped_layers = [BUILD_DIR / "layers" / "core", BUILD_DIR / "layers" / "deps"] if layers else []
        total = dir_size(folder) + sum(dir_size(layer) for layer in shipped_layers)
        if total > LAMBDA_UNZIPPED_LIMIT:
            problems.append(f"{name}: {total / 1_048_576:.1f} MB unzipped with its layers, over Lambda's 250 MB")
    print(f"\n{len(jobs)} functions from the dev, staging and prod templates, on {python}")
    for problem in problems:
        print("FAIL", problem)
    print(f"verify-build {'FAILED' if problems else 'passed'} in {time.monotonic() - started:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
