"""The query filter's guard: a regex is refused before it runs when it could take exponential time
(a quantified group that contains a quantifier) or huge memory (a counted repeat past MAX_REPEAT),
and its matching runs under a time limit; substrings are found without a regex. Pure: no SQL."""

from __future__ import annotations

import re
from typing import Any

from engram.core.errors import InvalidField
from engram.documents.models import QueryFilter

MAX_ANCHORS = 10_000
# The regex module unrolls a counted repeat when it compiles: a{99999999} asks for gigabytes.
MAX_REPEAT = 1000
_REPEAT = re.compile(r"\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}")


class RegexRejected(InvalidField):
    pass


def _nested_quantifier(pattern: str) -> bool:
    """True for a quantified group that itself contains a quantifier: (a+)+, (\\w*x)*, (?:a{2,})+ ..."""
    stack: list[bool] = []  # per open group: does it contain a quantifier?
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            stack.append(False)
        elif ch == ")" and stack:
            inner = stack.pop()
            nxt = pattern[i + 1 : i + 2]
            if inner and nxt in ("*", "+", "{"):
                return True
            if stack:
                stack[-1] = stack[-1] or inner
        elif ch in "*+{" and stack:
            stack[-1] = True
        i += 1
    return False


def _largest_repeat(pattern: str) -> int:
    """The largest count of a {n}, {n,} or {n,m} quantifier outside a character class (0: none)."""
    largest, i, in_class = 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "{" and (m := _REPEAT.match(pattern, i)):
            largest = max([largest, *(int(n) for n in m.groups() if n)])
        i += 1
    return largest


def compile_guarded(flt: QueryFilter) -> Any:
    import regex

    pattern = flt.regex or ""
    if _largest_repeat(pattern) > MAX_REPEAT:
        raise RegexRejected(
            "filter.regex", f"a counted repeat like {{n}} or {{n,m}} may count to {MAX_REPEAT}", limit=MAX_REPEAT
        )
    if _nested_quantifier(pattern):
        raise RegexRejected(
            "filter.regex",
            "nested quantifiers like (a+)+ can take exponential time;"
            " rewrite the pattern without a quantified group that contains a quantifier",
        )
    try:
        return regex.compile(pattern, 0 if flt.case_sensitive else regex.IGNORECASE)
    except regex.error as exc:
        raise InvalidField("filter.regex", f"is not a valid regular expression: {exc}") from exc


def regex_anchors(compiled: Any, text: str, timeout_s: float) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    try:
        for m in compiled.finditer(text, timeout=timeout_s, concurrent=True):
            if m.end() > m.start():
                out.append((m.start(), m.end()))
                if len(out) >= MAX_ANCHORS:
                    break
    except TimeoutError as exc:
        raise RegexRejected(
            "filter.regex",
            f"matching took longer than {timeout_s:g} s and was stopped; use a simpler pattern or substrings",
        ) from exc
    return out


def substring_anchors(needles: list[str], text: str, case_sensitive: bool) -> list[tuple[int, int]]:
    hay = text if case_sensitive else text.lower()
    if len(hay) != len(text):  # a few characters change length when lowered: use a regex instead
        pattern = re.compile("|".join(re.escape(n) for n in needles), 0 if case_sensitive else re.IGNORECASE)
        return [(m.start(), m.end()) for m in pattern.finditer(text)][:MAX_ANCHORS]
    out: list[tuple[int, int]] = []
    for needle in needles:
        n = needle if case_sensitive else needle.lower()
        pos = hay.find(n)
        while pos != -1 and len(out) < MAX_ANCHORS:
            out.append((pos, pos + len(n)))
            pos = hay.find(n, pos + 1)
    return sorted(out)
