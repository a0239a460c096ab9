"""SQL lives where the map (docs/architecture.md, "Inside a capability") says: a capability's store
modules, and the few shared modules named there. A statement anywhere else fails, naming the file; so
does composing SQL (importing psycopg.sql) anywhere else: services hand stores a plan, not fragments."""

from __future__ import annotations

import ast
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


# Composes no statement itself: derives a row class's SELECT list for the stores (one declaration per row).
SQL_COMPOSING_HELPERS = {"core/select_lists.py"}


def imports_psycopg_sql(source: str) -> list[int]:
    """The lines that import psycopg's SQL composition module (`from psycopg import sql`, `import
    psycopg.sql`, `from psycopg.sql import ...`)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names = [node.module] if node.module == "psycopg.sql" else []
            names += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        if "psycopg.sql" in names:
            lines.append(node.lineno)
    return sorted(lines)


def sql_composed_outside_stores(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if is_sql_module(relative) or relative in SQL_COMPOSING_HELPERS:
            continue
        found += [f"layers/engram/{relative}:{n}" for n in imports_psycopg_sql(path.read_text(encoding="utf-8"))]
    return found


def test_every_statement_is_in_a_store_or_a_named_shared_module() -> None:
    assert misplaced_sql(ENGRAM) == [], "move these statements into the package's store.py"


def test_the_check_names_a_statement_in_a_service(tmp_path: Path) -> None:
    (tmp_path / "things").mkdir()
    (tmp_path / "things" / "store.py").write_text('conn.execute("SELECT 1")\n')
    (tmp_path / "things" / "service.py").write_text('x = 1\nconn.execute("SELECT 1")\n')
    assert misplaced_sql(tmp_path) == ["layers/engram/things/service.py:2"]


def test_only_stores_compose_sql() -> None:
    assert sql_composed_outside_stores(ENGRAM) == [], "plan the query in the package's store; pass the plan"


def test_the_check_names_a_service_that_composes_sql(tmp_path: Path) -> None:
    (tmp_path / "things").mkdir()
    (tmp_path / "things" / "store.py").write_text("from psycopg import sql\n")
    (tmp_path / "things" / "candidate_store.py").write_text("from psycopg import rows, sql\n")
    (tmp_path / "things" / "service.py").write_text("from psycopg.rows import dict_row\nfrom psycopg import sql\n")
    (tmp_path / "things" / "plan.py").write_text("import psycopg.sql\n")
    (tmp_path / "things" / "ranking.py").write_text("from psycopg.sql import SQL, Identifier\n")
    assert sql_composed_outside_stores(tmp_path) == [
        "layers/engram/things/plan.py:1",
        "layers/engram/things/ranking.py:1",
        "layers/engram/things/service.py:2",
    ]
