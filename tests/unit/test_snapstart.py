"""SnapStart resumes every new execution environment from one snapshot taken after the handler's
import: whatever that import left in memory is shared by all of them. The mcp function (SnapStart in
staging and prod) must leave nothing unique there, and give each restored environment its own
`random` sequence (retry jitter that would otherwise line concurrent containers up)."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# Import the handler as SnapStart would before its snapshot, then resume two environments from that
# memory (the `random` state as imported, no invocation yet) and let each serve one request.
RESTORE_TWICE = """
import json, random, sys
import engram.core.snapstart as snapstart
from engram_http.route_table import ROUTES
from engram_local.gateway import build_event
from engram_local.lambda_runtime import invoke, load_function

load_function("mcp")
import engram.core.db as db, engram.core.config as config
made_at_import = {
    "connection": getattr(db._local, "conn", None) is not None,
    "settings": config.groups_read(),
    "dsn": config.database_dsn.cache_info().currsize,
    "boto3_session": getattr(sys.modules.get("boto3"), "DEFAULT_SESSION", None) is not None,
}
route = next(r for r in ROUTES if r.function == "mcp" and r.method == "POST")
event = build_event("POST", "/mcp", {"content-type": "application/json"}, b"{}", route, {})
snapshot = random.getstate()
draws, statuses = [], []
for _ in range(2):
    random.setstate(snapshot)
    snapstart._reseeded = False
    statuses.append(invoke("mcp", event)["statusCode"])
    draws.append(random.random())
print(json.dumps({"made_at_import": made_at_import, "statuses": statuses, "draws": draws}))
"""


@cache
def restored_twice() -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", RESTORE_TWICE], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_environments_restored_from_one_snapshot_draw_different_random_numbers():
    result = restored_twice()
    assert result["statuses"] == [401, 401]  # no key: answered before any MCP message is read
    first, second = result["draws"]
    assert first != second


def test_the_mcp_import_makes_no_connection_client_settings_or_secret():
    made = restored_twice()["made_at_import"]
    assert made == {"connection": False, "settings": 0, "dsn": 0, "boto3_session": False}
