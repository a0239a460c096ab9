"""The short version of `make fuzz`, run by `make test`: schemathesis over every route of the served
OpenAPI document, against the local server over real HTTP on loopback: its coverage phase (every
documented status, boundary values, and every method a path does not serve) and a bounded number of
fuzzed examples per operation, with a fixed seed. No 5xx, every answer matches its documented
status, content type, headers and schema, a method a path does not serve is a 405 with an `Allow`
header, and OPTIONS advertises exactly the documented methods."""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

import pytest

from engram_local.postgres import free_port

FUZZ = Path(__file__).resolve().parents[2] / "bench" / "fuzz.py"
CHECKS = ",".join(
    (
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
        "response_headers_conformance",
        "unsupported_method",
        "allow_header_conformance",
        "missing_required_header",
    )
)


def _fuzz_module():
    spec = importlib.util.spec_from_file_location("engram_bench_fuzz", FUZZ)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def base_url(stack):
    from engram_local.serve import make_server

    port = free_port()
    srv = make_server("127.0.0.1", port)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    srv.shutdown()


def test_every_route_survives_schemathesis(base_url, make_tenant, tmp_path):
    fuzz = _fuzz_module()
    tenant = make_tenant("fuzz")
    code = fuzz.run_schemathesis(
        base_url,
        tenant.key,
        seed=8,
        max_time=150,  # coverage takes ~60 s on 2 busy cores; fuzzing gets the rest
        max_examples=8,
        phases="coverage,fuzzing",
        workers=1,
        report_dir=tmp_path,
        checks=CHECKS,
    )
    found = fuzz.summarize(tmp_path)
    failures = {f"{label} {check}": found["samples"][(label, check)][:300] for (label, check) in found["by_route"]}
    print(f"{found['cases']} cases")
    assert found["cases"] > 1000, found  # the coverage phase ran
    assert found["statuses"][405] > 0, found["statuses"]  # ...with methods the paths do not serve
    assert not failures, failures
    assert code == 0, "schemathesis failed without a recorded check failure: see its output above"
