"""No module of the core library is longer than 500 lines: a longer one holds several modules."""

from __future__ import annotations

from pathlib import Path

MAX_LINES = 500
ENGRAM = Path(__file__).resolve().parents[2] / "layers" / "engram"


def long_modules(root: Path, limit: int) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(f"layers/engram/{path.relative_to(root).as_posix()}: {lines} lines")
    return found


def test_no_module_in_layers_engram_exceeds_the_limit() -> None:
    assert long_modules(ENGRAM, MAX_LINES) == [], f"split these modules (at most {MAX_LINES} lines each)"


def test_the_check_names_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "short.py").write_text("x = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * 6)
    assert long_modules(tmp_path, 5) == ["layers/engram/pkg/long.py: 6 lines"]
