"""Reads by name: how often layers/engram reads a value as `something["name"]`, held under a ceiling.

A query result is a row class (engram.core.select_lists), read by attribute; what is still read by a
string key is a dict row not yet typed, a JSON document (a before-image, a model's answer, an AWS
response, a validation error) or a dict built in code. The regex counts every such read: a name
subscripted by a quoted identifier (`row["id"]`, `image['tree']`). It leaves out type expressions
(`Literal["a"]`) and stores into a dict (`out["k"] = ...`, `n["k"] += 1`), which write rather than
read. Lower CEILING when a change takes reads away."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ENGRAM = Path(__file__).resolve().parents[2] / "layers" / "engram"
READ_BY_NAME = re.compile(r"""\b(?!Literal\b)\w+\[(['"])[A-Za-z_]\w*\1\](?!\s*[-+*/|&]?=(?!=))""")
# What the tree holds: 94 reads of JSON documents (before-images, model answers, AWS responses), typed
# dicts and dicts built in code; none of a database row as far as a reading of each found (every store
# reads through a row class, a tuple or a single column).
CEILING = 94


def reads_by_name(root: Path) -> Counter[str]:
    """Reads by name per module under `root` (its relative path)."""
    found: Counter[str] = Counter()
    for path in sorted(root.rglob("*.py")):
        count = len(READ_BY_NAME.findall(path.read_text(encoding="utf-8")))
        if count:
            found[path.relative_to(root).as_posix()] = count
    return found


def test_reads_by_name_stay_under_the_ceiling() -> None:
    found = reads_by_name(ENGRAM)
    total = sum(found.values())
    assert total <= CEILING, f"{total} reads by name (ceiling {CEILING}); most: {found.most_common(8)}"


def test_the_count_takes_reads_and_leaves_types_and_stores(tmp_path: Path) -> None:
    (tmp_path / "store.py").write_text(
        "row = cur.fetchone()\n"
        "x = row['id'] + r[\"n\"]\n"  # two reads
        "if row[\"status\"] == 'active':\n"  # a read compared: still a read
        '    out["k"] = 1\n'  # a store
        "    out['n'] += 1\n"  # a store
        'Kind = Literal["a"]\n'  # a type
        "y = row[0] + row[name]\n"  # not by a quoted name
    )
    assert reads_by_name(tmp_path) == Counter({"store.py": 3})
