"""The locks every install uses (infra/locks.py): current with pyproject.toml, hashed, and the layer's
versions the same in the dev environment on the Lambdas' Python."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.markers import Marker

from infra import build_assets, locks

LAMBDA_PYTHON = {
    "python_version": "3.12",
    "python_full_version": "3.12.0",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "os_name": "posix",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "aarch64",
}


def test_locks_match_pyproject():
    assert locks.stale_locks() == []


def test_a_changed_requirement_makes_the_lock_stale(monkeypatch):
    requirements = locks.layer_requirements()
    monkeypatch.setattr(locks, "layer_requirements", lambda: [*requirements, "requests>=2"])
    assert [p.split()[0] for p in locks.stale_locks()] == ["locks/layer.txt"]
    with pytest.raises(locks.StaleLockError, match=r"locks/layer\.txt is stale.*run `make lock`"):
        build_assets.build_deps_layer(Path("/nonexistent/never-written"))


def test_every_locked_package_is_pinned_with_hashes():
    for lock in (locks.LAYER_LOCK, locks.DEV_LOCK):
        entries = re.split(r"\n(?=[A-Za-z0-9])", lock.read_text().split("\n", 3)[3])
        for entry in entries:
            if entry.startswith("#"):
                continue
            assert re.match(r"[A-Za-z0-9._-]+==\S+", entry) and "--hash=sha256:" in entry, entry[:80]


def test_cdk_library_is_pinned_exactly():
    dev = locks.dev_inputs()["optional-dependencies"]["dev"]
    for name in ("aws-cdk-lib", "constructs"):
        assert [r for r in dev if re.fullmatch(rf"{name}==[\d.]+", r)], (
            f"{name} is not pinned with == in pyproject.toml"
        )


def test_dev_environment_has_the_layer_versions_on_python_312():
    dev = locks.DEV_LOCK.read_text()
    for pin in locks.pins(locks.LAYER_LOCK):
        name, version = pin.split("==")
        line = rf"^{re.escape(name)}=={re.escape(version)}(?: ; ([^\\\n]*))? \\$"
        markers = re.findall(line, dev, flags=re.I | re.M)
        # Unconditional, or under a marker that holds on the Lambda's Python (numpy 2.5 has a line for
        # 3.12 and later; 3.11 gets 2.4, which numpy 2.5 no longer supports).
        assert any(not m or Marker(m).evaluate(LAMBDA_PYTHON) for m in markers), f"{pin} (layer) not in locks/dev.txt"


def test_layer_leaves_out_the_sdk_the_lambda_runtime_has():
    layer = {p.split("==")[0] for p in locks.pins(locks.LAYER_LOCK)}
    assert not layer & locks.PROVIDED_BY_RUNTIME
    assert {"numpy", "psycopg-binary", "pydantic", "mcp", "anthropic"} <= layer
