"""Tests share helpers through tests/support only: a test module or a conftest that imports another
test module (its private helpers, its fixtures) ties two tests together and breaks when one moves.
Shared helpers live in tests/support/<what they are>.py; fixtures stay in conftest.py files, which may
import tests/support. A module of tests/support imports no test module either."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SUPPORT = "tests.support"


def imported_modules(source: str) -> list[tuple[int, str]]:
    """Every module an `import` or `from ... import` names, with its line: `from tests.x import y`
    counts as tests.x.y too, since y may be a module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # a relative import reaches a sibling test module by another name
                found.append((node.lineno, "." * node.level + (node.module or "")))
                continue
            module = node.module or ""
            found.extend((node.lineno, f"{module}.{alias.name}") for alias in node.names)
    return found


def is_test_module_import(name: str) -> bool:
    """An import of something under tests/ other than tests/support (or a relative one)."""
    if name.startswith("."):
        return True
    if name != "tests" and not name.startswith("tests."):
        return False
    return not (name == SUPPORT or name.startswith(SUPPORT + "."))


def imports_between_test_modules(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        for line, name in imported_modules(path.read_text(encoding="utf-8")):
            if is_test_module_import(name):
                found.append(f"tests/{relative}:{line} imports {name}")
    return found


def test_no_test_module_imports_another() -> None:
    assert imports_between_test_modules(TESTS) == [], "move what is shared into tests/support"


def test_the_check_names_an_import_of_a_test_module_or_a_conftest(tmp_path: Path) -> None:
    (tmp_path / "integration").mkdir()
    (tmp_path / "integration" / "conftest.py").write_text(
        "from tests.support.owner_view import owner_connection\nfrom tests.integration.test_a import helper\n"
    )
    (tmp_path / "integration" / "test_b.py").write_text(
        "import json\n"
        "from tests.support import gateway_client\n"
        "from tests.integration.conftest import make_body\n"
        "from tests.integration import test_a\n"
        "def test_x():\n"
        "    import tests.e2e.test_local_server\n"
        "    from . import test_a\n"
    )
    assert imports_between_test_modules(tmp_path) == [
        "tests/integration/conftest.py:2 imports tests.integration.test_a.helper",
        "tests/integration/test_b.py:3 imports tests.integration.conftest.make_body",
        "tests/integration/test_b.py:4 imports tests.integration.test_a",
        "tests/integration/test_b.py:6 imports tests.e2e.test_local_server",
        "tests/integration/test_b.py:7 imports .",
    ]
