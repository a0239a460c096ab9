"""`make verify-build`'s pieces (infra/verify_build.py), without building: the sandbox sees only what it
is given, the answers it accepts, and the boto3 it takes from the lock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infra import verify_build
from infra.build_assets import compile_bytecode, lambda_python

PYTHON312 = lambda_python()
needs_312 = pytest.mark.skipif(PYTHON312 is None, reason="no CPython 3.12 on this machine")


def _function(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "handler.py").write_text(body)
    return folder


def _job(folder: Path, **extra) -> dict:
    return {"module": "handler", "attribute": "handler", "function": "probe", "env": {}, "paths": [str(folder)]} | extra


@needs_312
def test_the_sandbox_has_only_the_given_paths_and_the_standard_library(tmp_path):
    folder = _function(
        tmp_path / "fn",
        "import json, os, sys\n"
        "def handler(event, context):\n"
        "    try:\n"
        "        import pydantic  # in the test environment, not in the sandbox\n"
        "        found = True\n"
        "    except ImportError:\n"
        "        found = False\n"
        "    return {'statusCode': 200, 'body': json.dumps({'pydantic': found, 'version': list(sys.version_info[:2]),"
        " 'flag': os.environ.get('FLAG'), 'site': 'site' in sys.modules})}\n",
    )
    result = verify_build.run(str(PYTHON312), _job(folder, env={"FLAG": "set"}), [{"rawPath": "/"}])
    assert "error" not in result and result["outside"] == []
    body = json.loads(result["responses"][0]["answer"]["body"])
    assert body == {"pydantic": False, "version": [3, 12], "flag": "set", "site": False}


@needs_312
def test_an_import_error_is_reported(tmp_path):
    folder = _function(tmp_path / "fn", "import not_shipped_anywhere\n")
    result = verify_build.run(str(PYTHON312), _job(folder), [])
    assert "ModuleNotFoundError" in result["error"]


@needs_312
def test_shipped_bytecode_is_used_without_the_source_check(tmp_path):
    folder = _function(tmp_path / "fn", "def handler(event, context):\n    return {'statusCode': 200}\n")
    compile_bytecode(str(PYTHON312), folder)
    (pyc,) = (folder / "__pycache__").glob("handler.cpython-312.pyc")
    flags = int.from_bytes(pyc.read_bytes()[4:8], "little")
    assert flags == 0b01  # hash-based, unchecked: a zip's 2-second mtimes cannot make it look stale


def test_health_must_not_answer_500_and_openapi_must_be_the_document():
    events = [{"routeKey": "GET /v1/health"}, {"routeKey": "GET /v1/openapi.json"}]

    def answers(*pairs):
        return {"responses": [{"answer": {"statusCode": s, "body": b}, "seconds": 0.1} for s, b in pairs]}

    ok = answers((503, '{"error": {"code": "unavailable"}}'), (200, '{"openapi": "3.1.0"}'))
    assert verify_build.check_answers(events, ok) == []
    broken = answers((500, '{"message": "Internal Server Error"}'), (200, "{}"))
    assert len(verify_build.check_answers(events, broken)) == 2


def test_the_runtime_sdk_comes_from_the_dev_lock_with_hashes():
    lines = verify_build.runtime_sdk_lines()
    names = {line.split("==")[0] for line in lines.splitlines() if "==" in line}
    assert {"boto3", "botocore", "s3transfer"} <= names <= set(verify_build.RUNTIME_SDK)
    assert "--hash=sha256:" in lines and " ; " not in lines


def test_deploy_time_references_get_local_stand_ins():
    assert verify_build._stand_in("ENGRAM_DB_HOST", {"Fn::GetAtt": ["Cluster", "Endpoint.Address"]}) == "127.0.0.1"
    assert verify_build._stand_in("ENGRAM_DB_SECRET_ARN", {"Ref": "Secret"}).startswith("arn:aws:secretsmanager:")
    assert verify_build._stand_in("ENGRAM_ENV", "dev") == "dev"
