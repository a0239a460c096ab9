"""`make build`: the Lambda function code and layers, for arm64 / Python 3.12, without Docker.

    build/lambda/layers/deps/python/   pip --platform manylinux aarch64 --only-binary wheels
    build/lambda/layers/core/python/   engram + engram_http + engram_mcp (engram_local stays behind)
    build/lambda/functions/<name>/     each functions/<name>/ folder
    build/lambda/dist/*.zip            the same, zipped, to measure what is uploaded
    build/lambda/manifest.json         versions and sizes; the CDK app reads it

Prints the sizes and fails when a function with its layers would exceed Lambda's limit of
250 MB unzipped. boto3/botocore are left out: the Lambda runtime provides them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import zipfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from infra.locks import (
    LAYER_LOCK,
    PROVIDED_BY_RUNTIME,
    PYTHON_VERSION,
    digest,
    layer_inputs,
    layer_requirements,
    require_fresh,
)
from infra.paths import (
    BUILD_DIR,
    CORE_PACKAGES,
    EXCLUDE,
    FUNCTIONS_SRC,
    LAYERS_SRC,
    MANIFEST,
)
from infra.profiles import EVENT_FUNCTIONS

# psycopg-binary 3.3 ships only manylinux_2_28 wheels for aarch64; without that tag pip
# silently falls back to an older psycopg. Lambda's Python 3.12 runtime (AL2023) has glibc 2.34.
PLATFORMS = ("manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64")
# Keep only what the runtime needs from the dependency tree.
PRUNE_DIRS = {"__pycache__", "tests", "testing"}
PRUNE_KEEP = {"numpy/testing", "numpy/_core/tests"}  # numpy imports numpy.testing lazily; keep it
LAMBDA_UNZIPPED_LIMIT = 262_144_000  # 250 MiB: function code plus all its layers
DIRECT_UPLOAD_ZIP_LIMIT = 52_428_800  # 50 MiB; CDK uploads through S3, so this is only a warning
EM_AARCH64 = 183


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-deps", action="store_true", help="reuse the dependency layer already built")
    parser.add_argument(
        "--allow-no-bytecode",
        action="store_true",
        help="build without a CPython 3.12 (sources only: every cold start compiles them); "
        "`make build ALLOW_NO_BYTECODE=1`",
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    python312, problem = bytecode_python(args.allow_no_bytecode)
    if problem:  # before the long part of the build
        print(problem)
        return 1

    functions = table_functions()
    missing = [name for name in functions if not (FUNCTIONS_SRC / name / "handler.py").is_file()]
    if missing:
        print(f"error: the route table names functions without functions/<name>/handler.py: {missing}")
        return 1

    deps_dir = BUILD_DIR / "layers" / "deps"
    MANIFEST.unlink(missing_ok=True)  # a half-finished build must not look finished
    if not (args.skip_deps and (deps_dir / "python").is_dir()):
        build_deps_layer(deps_dir)
    check_architecture(deps_dir)
    build_core_layer(BUILD_DIR / "layers" / "core")
    shutil.rmtree(BUILD_DIR / "functions", ignore_errors=True)
    for name in functions:
        copy_tree(FUNCTIONS_SRC / name, BUILD_DIR / "functions" / name)
    if python312:
        compile_bytecode(python312, deps_dir, BUILD_DIR / "layers" / "core", BUILD_DIR / "functions")
    else:
        print("warning: --allow-no-bytecode: no bytecode shipped, every cold start compiles the sources")

    sizes = measure(functions)
    ok = report(sizes, functions)
    versions = installed_versions(deps_dir / "python")
    print("\ndependency layer:", ", ".join(f"{name} {version}" for name, version in versions.items()))
    manifest = {
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python_version": PYTHON_VERSION,
        "platforms": list(PLATFORMS),
        "requirements": layer_requirements(),
        "lock": {"file": LAYER_LOCK.name, "input_sha256": digest(layer_inputs())},
        "packages": versions,
        "bytecode": python312 is not None,
        "functions": functions,
        "sizes": sizes,
    }
    if ok:
        MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"\nbuild {'done' if ok else 'FAILED'} in {time.monotonic() - started:.0f} s -> {BUILD_DIR}")
    return 0 if ok else 1


def lambda_python() -> str | None:
    """A CPython 3.12 (the Lambda runtime's version: bytecode is specific to it): $ENGRAM_PYTHON312,
    else python3.12 on the PATH, else pyenv's."""
    pyenv = sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python3.12"), reverse=True)
    for candidate in (os.environ.get("ENGRAM_PYTHON312"), "python3.12", *map(str, pyenv)):
        check = "import sys; sys.exit(sys.version_info[:2] != (3, 12))"
        found = candidate and shutil.which(candidate)
        if found and subprocess.run([found, "-c", check], stderr=subprocess.DEVNULL).returncode == 0:
            return found
    return None


def bytecode_python(allow_sources: bool) -> tuple[str | None, str | None]:
    """The CPython 3.12 that compiles the shipped bytecode, or why the build stops: sources alone make
    every cold start 1.6-4x slower (infra/README.md), so that takes --allow-no-bytecode."""
    python312 = lambda_python()
    if python312 or allow_sources:
        return python312, None
    return None, (
        "error: no CPython 3.12 here to compile the bytecode Lambda's Python 3.12 runs (set ENGRAM_PYTHON312, "
        "or install python3.12 / pyenv 3.12); `make build ALLOW_NO_BYTECODE=1` ships sources instead"
    )


def compile_bytecode(python: str, *folders: Path) -> None:
    """A .pyc beside every module: Lambda's file system is read-only, so without them each cold start
    compiles every module it imports. unchecked-hash: used without comparing the source's mtime, which a
    zip keeps only to 2 s (a timestamp-checked .pyc could look stale and be compiled again)."""
    command = [python, "-m", "compileall", "-q", "-j0", "--invalidation-mode", "unchecked-hash", *map(str, folders)]
    if subprocess.run(command, stdout=subprocess.DEVNULL).returncode != 0:
        print("note: compileall skipped files it cannot compile (they are never imported on 3.12)")


def table_functions() -> list[str]:
    sys.path.insert(0, str(LAYERS_SRC))
    from engram_http.route_table import ROUTES

    return sorted({r.function for r in ROUTES} | set(EVENT_FUNCTIONS))


def build_deps_layer(target: Path) -> None:
    """Exactly the versions and files of locks/layer.txt (pip checks every hash; --no-deps: the lock
    is the whole closure)."""
    require_fresh(LAYER_LOCK)
    shutil.rmtree(target, ignore_errors=True)
    site = target / "python"
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--target", str(site), "--implementation", "cp", "--python-version", PYTHON_VERSION,
        "--only-binary=:all:", "--no-compile", "--upgrade", "--no-deps", "--require-hashes",
        *[arg for platform in PLATFORMS for arg in ("--platform", platform)],
        "-r", str(LAYER_LOCK),
    ]  # fmt: skip
    print("pip:", " ".join(command[3:]))
    subprocess.run(command, check=True)
    prune(site)


def prune(site: Path) -> None:
    for name in PROVIDED_BY_RUNTIME:
        for path in site.glob(f"{name.replace('-', '_')}*"):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    for path in sorted(site.rglob("*"), reverse=True):
        relative = path.relative_to(site).as_posix()
        if path.is_dir() and path.name in PRUNE_DIRS and relative not in PRUNE_KEEP:
            shutil.rmtree(path, ignore_errors=True)
        elif path.is_file() and path.suffix in (".pyc", ".pyo"):
            path.unlink()
    shutil.rmtree(site / "bin", ignore_errors=True)  # console scripts; nothing runs them


def check_architecture(layer: Path) -> None:
    """Every native extension must be an aarch64 ELF, or Lambda fails at import time."""
    wrong = []
    for library in layer.rglob("*.so*"):
        if not library.is_file():
            continue
        header = library.read_bytes()[:20]
        if header[:4] == b"\x7fELF" and struct.unpack("<H", header[18:20])[0] != EM_AARCH64:
            wrong.append(str(library.relative_to(layer)))
    if wrong:
        raise SystemExit(f"non-aarch64 native code in the dependency layer: {wrong[:5]}")


def build_core_layer(target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    for package in CORE_PACKAGES:
        copy_tree(LAYERS_SRC / package, target / "python" / package)


def copy_tree(source: Path, target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*EXCLUDE))


def installed_versions(site: Path) -> dict[str, str]:
    versions = {}
    for dist_info in sorted(site.glob("*.dist-info")):
        name, _, version = dist_info.name.removesuffix(".dist-info").partition("-")
        versions[name] = version
    return versions


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def zip_dir(source: Path, target: Path) -> int:
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for path in sorted(source.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(source).as_posix())
    return target.stat().st_size


def measure(functions: list[str]) -> dict[str, dict[str, int]]:
    dist = BUILD_DIR / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    parts = {f"layer:{name}": BUILD_DIR / "layers" / name for name in ("deps", "core")}
    parts.update({f"function:{name}": BUILD_DIR / "functions" / name for name in functions})
    return {
        part: {"unzipped": dir_size(path), "zipped": zip_dir(path, dist / f"{part.replace(':', '-')}.zip")}
        for part, path in parts.items()
    }


def report(sizes: dict[str, dict[str, int]], functions: list[str]) -> bool:
    def mb(n: int) -> str:
        return f"{n / 1_048_576:.2f} MB" if n >= 1_048_576 else f"{n / 1024:.1f} KB"

    print(f"\n{'asset':<28}{'unzipped':>12}{'zipped':>12}")
    for part, size in sizes.items():
        print(f"{part:<28}{mb(size['unzipped']):>12}{mb(size['zipped']):>12}")
    layers = sizes["layer:deps"]["unzipped"] + sizes["layer:core"]["unzipped"]
    ok = True
    print(f"\nper function, code + layers (Lambda limit {mb(LAMBDA_UNZIPPED_LIMIT).strip()} unzipped):")
    for name in functions:
        total = sizes[f"function:{name}"]["unzipped"] + layers
        verdict = "ok" if total <= LAMBDA_UNZIPPED_LIMIT else "TOO LARGE"
        ok = ok and total <= LAMBDA_UNZIPPED_LIMIT
        print(f"  {name:<26}{mb(total):>12}  {100 * total / LAMBDA_UNZIPPED_LIMIT:5.1f}%  {verdict}")
    for part, size in sizes.items():
        if size["zipped"] > DIRECT_UPLOAD_ZIP_LIMIT:
            print(
                f"  note: {part} zips to {mb(size['zipped']).strip()}: "
                "fine through S3 (as CDK uploads), too big for a direct upload"
            )
    return ok


if __name__ == "__main__":
    raise SystemExit(main())
