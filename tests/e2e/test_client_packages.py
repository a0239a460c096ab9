"""The SDKs as a user installs them: `python -m build` and `npm pack` make the artefacts a release
would publish, each installed into a clean environment (a new venv with only the wheel and its
dependencies at the locked versions; an empty npm project with only the tarball), imported there, and
used against the local server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path
from typing import Any

from infra.locks import DEV_LOCK, pins

ROOT = Path(__file__).parents[2]
PYTHON_SDK = ROOT / "clients" / "python"
TYPESCRIPT_SDK = ROOT / "clients" / "typescript"


def sh(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout}\n{done.stderr}"
    return done


def test_the_python_wheel_installs_and_works_in_a_clean_environment(
    server: str, make_tenant: Any, tmp_path: Path
) -> None:
    version = tomllib.loads((PYTHON_SDK / "pyproject.toml").read_text())["project"]["version"]
    # --no-isolation: built by the locked setuptools of .venv, as `make venv` builds the editable install
    sh([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path / "dist"), str(PYTHON_SDK)])
    wheel = tmp_path / "dist" / f"engram_client-{version}-py3-none-any.whl"
    assert wheel.exists() and (tmp_path / "dist" / f"engram_client-{version}.tar.gz").exists()
    with zipfile.ZipFile(wheel) as built:
        files = built.namelist()
        metadata = built.read(f"engram_client-{version}.dist-info/METADATA").decode()
    assert "engram_client/py.typed" in files and "engram_client/langgraph.py" in files
    assert "Provides-Extra: langgraph" in metadata and "Provides-Extra: strands" in metadata

    venv = tmp_path / "venv"
    sh([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("\n".join(pins(DEV_LOCK)) + "\n")
    uv = Path(sys.executable).with_name("uv")
    python = venv / "bin" / "python"
    sh([str(uv), "pip", "install", "--quiet", "--python", str(python), "--constraint", str(constraints), str(wheel)])

    script = """
import sys
import engram_client
from engram_client import Engram
with Engram(sys.argv[1], sys.argv[2]) as engram:
    engram.store_memory("Packaged clients work from a clean environment.", namespace="pkg")
    print(engram_client.__version__, engram.recall("packaged clients", namespace="pkg").results[0].text)
try:
    import engram_client.langgraph
except ImportError as missing:
    print(missing)
"""
    key = make_tenant("python-package").key
    done = sh([str(python), "-I", "-c", script, server, key], cwd=tmp_path, env={"PATH": os.environ["PATH"]})
    assert done.stdout.splitlines() == [
        f"{version} Packaged clients work from a clean environment.",
        "engram_client.langgraph needs LangGraph: pip install 'engram-client[langgraph]'",
    ]


def test_the_npm_tarball_installs_and_works_in_a_clean_project(server: str, make_tenant: Any, tmp_path: Path) -> None:
    version = json.loads((TYPESCRIPT_SDK / "package.json").read_text())["version"]
    # prepack builds dist/ with tsc; the tarball holds what `files` names and nothing else
    sh(["npm", "pack", "--silent", "--pack-destination", str(tmp_path)], cwd=TYPESCRIPT_SDK)
    tarball = tmp_path / f"engram-client-{version}.tgz"
    with tarfile.open(tarball) as packed:
        names = set(packed.getnames())
    assert {"package/dist/index.js", "package/dist/index.d.ts", "package/dist/adapters/langgraph.js"} <= names
    assert {"package/README.md", "package/CHANGELOG.md", "package/package.json"} <= names
    assert not [n for n in names if n.startswith(("package/src/", "package/test/", "package/node_modules/"))]

    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": "app", "private": True, "type": "module"}))
    # no network: the package has no dependencies, and its frameworks are optional peers left out
    sh(["npm", "install", "--offline", "--no-audit", "--no-fund", "--silent", str(tarball)], cwd=app)
    assert sorted(p.name for p in (app / "node_modules").iterdir() if not p.name.startswith(".")) == ["engram-client"]
    (app / "main.mjs").write_text(
        """
import { Engram, VERSION, NotFound } from "engram-client";
const engram = new Engram();
await engram.storeMemory("Packaged clients work from a clean project.", { namespace: "pkg" });
const { results } = await engram.recall("packaged clients", { namespace: "pkg", format: "compact" });
const missing = await engram.getMemory("00000000-0000-4000-8000-000000000000").catch((e) => e);
console.log(VERSION, results[0].text, missing instanceof NotFound);
"""
    )
    env = {"PATH": os.environ["PATH"], "ENGRAM_API_URL": server, "ENGRAM_API_KEY": make_tenant("npm-package").key}
    done = sh(["node", "main.mjs"], cwd=app, env=env)
    assert done.stdout.strip() == f"{version} Packaged clients work from a clean project. true"
