"""Document bodies of any size: ASCII Markdown with headings, unique per call, a marker where asked."""

from __future__ import annotations

import uuid

_WORDS = [
    "river",
    "stone",
    "lantern",
    "harbor",
    "signal",
    "copper",
    "meadow",
    "ledger",
    "orbit",
    "canvas",
    "timber",
    "falcon",
    "quartz",
    "ember",
    "glacier",
    "violet",
    "anchor",
    "summit",
    "willow",
    "beacon",
]


def _block() -> str:
    """~64 KiB of ASCII prose with Markdown headings: sentences vary so chunks differ."""
    out: list[str] = []
    i = 0
    while sum(len(s) for s in out) < 64 * 1024:
        if i % 40 == 0:
            out.append(f"\n## Section {i // 40}\n\n")
        w = [_WORDS[(i * 7 + k * 3) % len(_WORDS)] for k in range(9)]
        out.append(f"The {w[0]} {w[1]} keeps the {w[2]} near the {w[3]} {w[4]}; {w[5]} {w[6]} {w[7]} {w[8]}. ")
        if i % 6 == 5:
            out.append("\n\n")
        i += 1
    return "".join(out)


BLOCK = _block()


def make_body(size: int, marker: str = "", marker_at: float = 0.5) -> str:
    """An ASCII-only Markdown body of exactly `size` bytes, unique, with `marker` at a relative position."""
    head = f"# Document {uuid.uuid4()}\n\n"
    reps = size // len(BLOCK) + 2
    text = head + BLOCK * reps
    if marker:
        at = int(size * marker_at)
        text = text[:at] + f"\n\n{marker}\n\n" + text[at:]
    return text[:size]
