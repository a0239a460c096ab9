"""One declaration per query result: a row class names its columns once, and the SELECT list is
derived from it, so a field added to the class cannot be forgotten in the statement.

A row class is a dataclass, a NamedTuple or a pydantic model read back with `psycopg.rows.class_row`; a field the
table does not hold directly comes from an expression given by name (`expressions=`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from psycopg import sql
from pydantic import BaseModel


def field_names(row_type: type[Any]) -> tuple[str, ...]:
    """The fields of a row class, in declaration order."""
    if issubclass(row_type, BaseModel):
        return tuple(row_type.model_fields)
    if dataclasses.is_dataclass(row_type):
        return tuple(field.name for field in dataclasses.fields(row_type))
    if issubclass(row_type, tuple) and hasattr(row_type, "_fields"):  # a NamedTuple
        return tuple(row_type._fields)
    raise TypeError(f"{row_type!r} is not a dataclass, a NamedTuple or a pydantic model")


def select_list(
    row_type: type[Any],
    alias: str | None = None,
    *,
    expressions: Mapping[str, sql.Composable] | None = None,
    leave_out: tuple[str, ...] = (),
    prefix: str = "",
) -> sql.Composed:
    """`alias.a, alias.b, <expr> AS c` for the fields of `row_type`.

    A field named in `expressions` is selected as that expression; every other field is a column of
    `alias` (or unqualified without one). `leave_out` names fields the statement adds itself.
    `prefix` names every output column `<prefix><field>` (`alias.a AS link_a`): two row classes
    side by side in one row, which the reading row class splits again."""
    computed = dict(expressions or {})
    unknown = set(computed) - set(field_names(row_type))
    if unknown:
        raise ValueError(f"{row_type.__name__} has no field {sorted(unknown)}")
    items: list[sql.Composable] = []
    for name in field_names(row_type):
        if name in leave_out:
            continue
        column = sql.Identifier(name) if alias is None else sql.Identifier(alias, name)
        value = computed.get(name, column)
        if name in computed or prefix:
            items.append(sql.SQL("{} AS {}").format(value, sql.Identifier(prefix + name)))
        else:
            items.append(column)
    return sql.SQL(", ").join(items)
