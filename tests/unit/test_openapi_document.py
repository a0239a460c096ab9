"""The committed OpenAPI document (docs/openapi.json) is the one GET /v1/openapi.json serves.

A change to a route or an edge model changes the API: regenerate the file with `make openapi` and
commit it with the change, so the API's diff is reviewed with the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engram_http.api import openapi_document

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
REGENERATE = "the API changed: run `make openapi` and commit docs/openapi.json"


def _differences(served: Any, committed: Any, where: str = "") -> list[str]:
    """Where the two documents differ (JSON pointers), for a failure message a reader can act on."""
    if isinstance(served, dict) and isinstance(committed, dict):
        out: list[str] = []
        for key in sorted(served.keys() | committed.keys()):
            here = f"{where}/{key}"
            if key not in committed:
                out.append(f"{here}: served, not committed")
            elif key not in served:
                out.append(f"{here}: committed, no longer served")
            else:
                out.extend(_differences(served[key], committed[key], here))
        return out
    return [] if served == committed else [f"{where or '/'}: differs"]


def test_committed_openapi_document_matches_the_served_one():
    assert COMMITTED.exists(), f"docs/openapi.json is missing: {REGENERATE}"
    served = openapi_document()
    committed = json.loads(COMMITTED.read_text())
    diffs = _differences(served, committed)
    assert not diffs, f"{REGENERATE}\n" + "\n".join(diffs[:20])


def test_drift_is_reported_with_its_location():
    doc = openapi_document()
    changed = json.loads(json.dumps(doc))
    changed["paths"]["/v1/recall"]["post"]["summary"] = "something else"
    del changed["components"]["schemas"]["RecallHit"]
    assert _differences(doc, changed) == [
        "/components/schemas/RecallHit: served, not committed",
        "/paths//v1/recall/post/summary: differs",
    ]
