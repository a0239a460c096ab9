"""The SQL a code path can run, read from its source: starting at an entry function, every function of
the `engram` package it calls (module functions, store functions through their module, functions
imported inside a function, and every method of an `engram` class it names) is visited, and the string
constants of each are kept. Every branch counts, so a table is "reached" when any statement on the way
names it: an over-approximation, which the catalogue test states (a reached table is named by the
path, not proven written on every call)."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap
from collections.abc import Callable, Iterator
from types import FunctionType, ModuleType
from typing import Any

from psycopg import sql

PACKAGE = "engram"


def _own(obj: object) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module == PACKAGE or module.startswith(PACKAGE + ".")


def _source_tree(fn: Callable[..., Any]) -> ast.AST | None:
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None


def _local_imports(tree: ast.AST) -> dict[str, object]:
    """Names bound by `from engram.x import y [as z]` inside the function (imported late for cold starts)."""
    bound: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not (node.module == PACKAGE or node.module.startswith(PACKAGE + ".")):
                continue
            module = importlib.import_module(node.module)
            for alias in node.names:
                target = getattr(module, alias.name, None)
                if target is None:  # a submodule: from engram.topics import service
                    target = importlib.import_module(f"{node.module}.{alias.name}")
                bound[alias.asname or alias.name] = target
    return bound


def _resolve(node: ast.expr, names: dict[str, object]) -> object | None:
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _resolve(node.value, names)
        if isinstance(owner, ModuleType) or (isinstance(owner, type) and _own(owner)):
            return getattr(owner, node.attr, None)
    return None


def _referenced(fn: FunctionType, tree: ast.AST) -> Iterator[object]:
    """What the function's names point at: functions it calls or passes on, classes, module constants."""
    names: dict[str, object] = {**fn.__globals__, **_local_imports(tree)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute):
            target = _resolve(node, names)
            if target is not None:
                yield target


def _statement_text(value: object) -> str | None:
    """A module-level statement a function names (`_MEMORIES = sql.SQL(...)`): its text."""
    if isinstance(value, str):
        return value
    if isinstance(value, sql.Composable):
        return value.as_string(None)
    return None


def _functions_of(target: object) -> list[FunctionType]:
    if isinstance(target, tuple | list):  # a module-level table of functions (export's record streams)
        return [f for item in target for f in _functions_of(item)]
    if isinstance(target, FunctionType):
        return [target] if _own(target) else []
    if isinstance(target, type) and _own(target):
        found: list[FunctionType] = []
        for klass in target.__mro__:
            if _own(klass):
                for value in vars(klass).values():
                    value = getattr(value, "__func__", value)  # static and class methods
                    if isinstance(value, FunctionType):
                        found.append(value)
        return found
    return []


def strings_reached(*entries: Callable[..., Any]) -> list[str]:
    """Every string constant of every `engram` function reachable from the entries."""
    seen: set[FunctionType] = set()
    todo: list[FunctionType] = [f for entry in entries for f in _functions_of(entry)]
    strings: list[str] = []
    while todo:
        fn = todo.pop()
        if fn in seen:
            continue
        seen.add(fn)
        tree = _source_tree(fn)
        if tree is None:
            continue
        strings.extend(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))
        for target in _referenced(fn, tree):
            text = _statement_text(target)
            if text is not None:
                strings.append(text)
            todo.extend(f for f in _functions_of(target) if f not in seen)
    return strings


def tables_in(strings: list[str], verbs: str) -> set[str]:
    """The tables the statements in `strings` name after one of `verbs` (a regex alternation)."""
    pattern = re.compile(rf"\b(?:{verbs})\s+([a-z_][a-z0-9_]*)", re.IGNORECASE)
    return {m.group(1).lower() for s in strings for m in pattern.finditer(s)}
