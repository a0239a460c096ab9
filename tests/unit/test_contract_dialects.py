"""The published contract reads as the server does: every string pattern of the OpenAPI document and
of the MCP contract accepts exactly what the server accepts, with JSON Schema's regex dialect
(ECMA-262, run by node, which CDK needs anyway) on one side and the server's validation on the other,
over every kind of whitespace, line break and control character; and an integer field takes an
integral float, as JSON Schema's `integer` does."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import StringConstraints, TypeAdapter, ValidationError

from engram.core.models import Strict

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = (ROOT / "docs" / "openapi.json", ROOT / "layers" / "engram_mcp" / "contract.json")
# Unicode White_Space, ECMA-262's WhiteSpace and LineTerminator, C0, DEL, C1, a byte order mark, and
# digits and letters beyond ASCII (`\d` and `\w` differ between dialects too).
SPECIAL = [
    *range(0x00, 0x21), *range(0x7F, 0xA1), 0x1680, 0x180E, *range(0x2000, 0x200C), 0x2028, 0x2029, 0x202F,
    0x205F, 0x3000, 0xFEFF, 0x0661, 0x00E9, 0x212A, 0x1F600,
]  # fmt: skip


def _patterns() -> list[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                found.add(node["pattern"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for document in DOCUMENTS:
        walk(json.loads(document.read_text()))
    return sorted(found)


def _probes() -> list[str]:
    probes = ["", "a", "x", "t1", "1", "abc\n", "12\n", "a" * 64 + "=", "0" * 64, "A" * 128]
    for cp in SPECIAL:
        c = chr(cp)
        probes += [c, c + "x", "x" + c, "x" + c + "y", c + "1", "1" + c, "t1" + c, c * 3]
    return probes


def _ecma(pattern: str, probes: list[str]) -> list[bool]:
    node = shutil.which("node")
    assert node, "node is needed (CDK needs it too): apt-get install nodejs"
    script = (
        "const re = new RegExp(process.argv[1], 'u');"
        " const probes = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        " process.stdout.write(JSON.stringify(probes.map((p) => re.test(p))));"
    )
    out = subprocess.run(
        [node, "-e", script, pattern], input=json.dumps(probes), capture_output=True, text=True, check=True
    )
    return [bool(x) for x in json.loads(out.stdout)]


def _server(pattern: str, probes: list[str]) -> list[bool]:
    adapter: TypeAdapter[str] = TypeAdapter(Annotated[str, StringConstraints(pattern=pattern)])
    accepted = []
    for probe in probes:
        try:
            adapter.validate_python(probe)
            accepted.append(True)
        except ValidationError:
            accepted.append(False)
    return accepted


@pytest.mark.parametrize("pattern", _patterns())
def test_a_published_pattern_accepts_what_the_server_accepts(pattern: str) -> None:
    probes = _probes()
    differ = [
        (repr(p), ecma, server)
        for p, ecma, server in zip(probes, _ecma(pattern, probes), _server(pattern, probes), strict=True)
        if ecma != server
    ]
    assert not differ, f"{pattern}: (probe, JSON Schema, server) {differ[:10]}"


def test_the_tag_pattern_is_one_of_them() -> None:
    from engram.core.models import TAG_PATTERN

    assert TAG_PATTERN in _patterns()


class Probe(Strict):
    count: int
    limit: int | None = None
    ratio: float = 0.0


def test_an_integer_field_takes_an_integral_float_and_nothing_else_new() -> None:
    probe = Probe.model_validate({"count": 473.0, "limit": 2.0, "ratio": 1.0})
    assert (probe.count, probe.limit, probe.ratio) == (473, 2, 1.0)
    assert type(probe.count) is int and type(probe.limit) is int and type(probe.ratio) is float
    for refused in (473.5, True, "473", float("inf"), float("nan")):
        with pytest.raises(ValidationError, match="count"):
            Probe.model_validate({"count": refused})
