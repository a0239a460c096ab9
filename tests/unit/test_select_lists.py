"""A row class yields its SELECT list: every field once, in order, qualified or computed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import pytest
from psycopg import sql
from pydantic import BaseModel

from engram.core.select_lists import field_names, select_list

pytestmark = pytest.mark.unit


@dataclass(frozen=True)
class Pair:
    id: int
    label: str
    score: float


class Named(BaseModel):
    id: int
    name: str


def test_a_dataclass_yields_its_columns_in_order() -> None:
    assert select_list(Pair, "p").as_string(None) == '"p"."id", "p"."label", "p"."score"'


def test_a_pydantic_model_without_alias_and_a_computed_field() -> None:
    listing = select_list(Named, expressions={"name": sql.SQL("lower(n.name)")})
    assert listing.as_string(None) == '"id", lower(n.name) AS "name"'


def test_left_out_fields_are_skipped() -> None:
    assert select_list(Pair, "p", leave_out=("score",)).as_string(None) == '"p"."id", "p"."label"'


def test_an_expression_for_a_field_the_class_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="nope"):
        select_list(Pair, expressions={"nope": sql.SQL("1")})


def test_a_plain_class_is_refused() -> None:
    with pytest.raises(TypeError):
        field_names(int)


def test_a_prefix_names_every_column_apart() -> None:
    listing = select_list(Pair, "p", prefix="pair_", expressions={"score": sql.SQL("p.score * 2")})
    assert listing.as_string(None) == '"p"."id" AS "pair_id", "p"."label" AS "pair_label", p.score * 2 AS "pair_score"'


class Point(NamedTuple):
    x: int
    y: int


def test_a_named_tuple_yields_its_fields() -> None:
    assert select_list(Point, "p").as_string(None) == '"p"."x", "p"."y"'
