"""`make build` helpers and the asset modes, without running pip."""

from __future__ import annotations

import pytest

from infra import assets as assets_module
from infra import build_assets


def test_layer_requirements_leave_out_the_sdk_the_runtime_has():
    requirements = build_assets.layer_requirements()
    names = {r.split(">")[0].split("=")[0].split("[")[0].strip().lower() for r in requirements}
    assert "boto3" not in names
    assert {"pydantic", "psycopg", "aws-lambda-powertools", "numpy"} <= names
    assert "pgvector" not in names  # vectors travel as text literals: nothing imports the package
    # the local embedder is not shipped to the cloud by default
    assert not names & {"onnxruntime", "tokenizers", "torch"}


def test_the_dependency_layer_targets_arm64_python312():
    assert build_assets.PYTHON_VERSION == "3.12"
    assert "manylinux_2_28_aarch64" in build_assets.PLATFORMS


def test_architecture_check_rejects_x86_native_code(tmp_path):
    def elf(machine: int) -> bytes:
        return b"\x7fELF" + b"\0" * 14 + machine.to_bytes(2, "little") + b"\0" * 40

    (tmp_path / "ok.so").write_bytes(elf(build_assets.EM_AARCH64))
    build_assets.check_architecture(tmp_path)
    (tmp_path / "bad.cpython-312-x86_64-linux-gnu.so").write_bytes(elf(62))
    with pytest.raises(SystemExit, match="non-aarch64"):
        build_assets.check_architecture(tmp_path)


def test_engram_local_is_not_shipped():
    assert "engram_local" not in assets_module.CORE_PACKAGES


def test_build_mode_refuses_to_synthesize_without_a_build(tmp_path, monkeypatch):
    monkeypatch.setattr(assets_module, "MANIFEST", tmp_path / "missing.json")
    with pytest.raises(assets_module.MissingBuildError, match="make build"):
        assets_module.LambdaAssets(mode="build")
    auto = assets_module.LambdaAssets(mode="auto")
    auto.deps_layer_code()
    assert auto.warnings and not auto.deployable


def test_the_size_report_fails_a_function_over_the_lambda_limit(capsys):
    """`make build` exits non-zero when code plus layers would not fit in a Lambda."""
    half = build_assets.LAMBDA_UNZIPPED_LIMIT // 2
    sizes = {
        "layer:deps": {"unzipped": half, "zipped": 1},
        "layer:core": {"unzipped": 1_000, "zipped": 1},
        "function:small": {"unzipped": 1_000, "zipped": 1},
        "function:huge": {"unzipped": half, "zipped": 1},
    }
    assert build_assets.report({k: v for k, v in sizes.items() if k != "function:huge"}, ["small"]) is True
    assert build_assets.report(sizes, ["small", "huge"]) is False
    assert "TOO LARGE" in capsys.readouterr().out


def test_a_build_without_cpython_312_stops_unless_told_to_ship_sources(monkeypatch, capsys):
    monkeypatch.setattr(build_assets, "lambda_python", lambda: None)
    python, problem = build_assets.bytecode_python(allow_sources=False)
    assert python is None and problem and "ALLOW_NO_BYTECODE=1" in problem
    assert build_assets.main([]) == 1  # before building anything
    assert "no CPython 3.12" in capsys.readouterr().out
    assert build_assets.bytecode_python(allow_sources=True) == (None, None)
    monkeypatch.setattr(build_assets, "lambda_python", lambda: "/usr/bin/python3.12")
    assert build_assets.bytecode_python(allow_sources=False) == ("/usr/bin/python3.12", None)
