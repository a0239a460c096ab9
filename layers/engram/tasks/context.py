"""A task's context cut to a hard character budget, section by section. Pure: no SQL.

Each section gets its share of budget_chars plus what the sections before it left unused; its text is its
header line and its items' lines, a blank line between sections, all counted. Events keep the newest when
the room is short (what happened last matters most to the next step); every other section keeps its
first items (the latest checkpoint, the best memories)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

MIN_CUT_CHARS = 80  # a line cut shorter than this is noise: left out instead


@dataclass(frozen=True)
class Fitted:
    items: list[Any]  # the items kept, each with its (possibly cut) text
    lines: list[str]
    omitted: int
    used: int  # characters of the section's block, header and separator included (0 when empty)


def fit_section(
    header: str,
    items: Sequence[Any],
    render: Callable[[Any], str],
    room: int,
    *,
    newest_last: bool = False,
) -> Fitted:
    """The items whose lines fit `room` with the header and a separator; the last one may be cut to
    fit. newest_last: the items are in time order and the newest are kept."""
    if not items:
        return Fitted([], [], 0, 0)
    left = room - len(header) - 2  # the header's newline and the blank line before the next section
    order = list(reversed(items)) if newest_last else list(items)
    kept: list[tuple[Any, str]] = []
    for item in order:
        line = render(item)
        if len(line) + 1 <= left:
            kept.append((item, line))
            left -= len(line) + 1
            continue
        if left - 1 >= MIN_CUT_CHARS:
            kept.append((item, line[: left - 2] + "…"))
            left = 0
        break
    if newest_last:
        kept.reverse()
    if not kept:
        return Fitted([], [], len(items), 0)
    lines = [line for _item, line in kept]
    used = len(header) + 1 + sum(len(line) + 1 for line in lines) + 1
    return Fitted([item for item, _line in kept], lines, len(items) - len(kept), used)


def block(header: str, fitted: Fitted) -> str:
    return header + "\n" + "\n".join(fitted.lines)
