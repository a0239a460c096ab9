"""SQL lives where the map (docs/architecture.md, "Inside a capability") says: a capability's store
modules, and the few shared modules named there. A statement anywhere else fails, naming the file."""

from __future__ import annotations

import re
from pathlib import Path

ENGRAM = Path(__file__).resolve().parents[2] / "layers" / "engram"
STATEMENT = re.compile(r"\.(execute|executemany)\(")

# The shared packages' SQL modules, as docs/architecture.md lists them.
SHARED_SQL_MODULES = {
    "core/db.py",
    "core/idempotency.py",
    "core/activity.py",
    "core/pagination.py",
    "indexing/chunks.py",
    "indexing/vectors.py",
    "adapters/llm.py",
    "schema/migrate.py",
}


def is_sql_module(relative: str) -> bool:
    return Path(relative).name.endswith("store.py") or relative in SHARED_SQL_MODULES


def misplaced_sql(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if is_sql_module(relative):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if STATEMENT.search(line):
                found.append(f"layers/engram/{relative}:{number}")
    return found


def test_every_statement_is_in_a_store_or_a_named_shared_module() -> None:
    assert misplaced_sql(ENGRAM) == [], "move these statements into the package's store.py"


def test_the_check_names_a_statement_in_a_service(tmp_path: Path) -> None:
    (tmp_path / "things").mkdir()
    (tmp_path / "things" / "store.py").write_text('conn.execute("SELECT 1")\n')
    (tmp_path / "things" / "service.py").write_text('x = 1\nconn.execute("SELECT 1")\n')
    assert misplaced_sql(tmp_path) == ["layers/engram/things/service.py:2"]
