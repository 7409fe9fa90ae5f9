"""The small explicit type system of bricks: a type is a string, and two types match by equality.

Values are plain Python: int, bool, str, list[int], list[str], a grid (non-empty rectangular list
of rows of ints) and a pair (tuple of two ints). On the model side every value is JSON; a pair
is written as a two-element list, so `from_json` needs the type to turn it back into a tuple.
"""
from __future__ import annotations

import json
from typing import Any

INT, BOOL, STR = "int", "bool", "str"
LIST_INT, LIST_STR = "list[int]", "list[str]"
GRID = "grid[int]"
PAIR = "tuple[int,int]"
TYPES = (INT, BOOL, STR, LIST_INT, LIST_STR, GRID, PAIR)


def conforms(value: Any, t: str) -> bool:
    """Whether value is of type t (bool is not an int here, nor an int a bool)."""
    if t == INT:
        return type(value) is int
    if t == BOOL:
        return type(value) is bool
    if t == STR:
        return type(value) is str
    if t == LIST_INT:
        return type(value) is list and all(type(v) is int for v in value)
    if t == LIST_STR:
        return type(value) is list and all(type(v) is str for v in value)
    if t == GRID:
        return (type(value) is list and len(value) > 0 and all(type(r) is list for r in value)
                and len(value[0]) > 0 and all(len(r) == len(value[0]) for r in value)
                and all(type(v) is int for r in value for v in r))
    if t == PAIR:
        return type(value) is tuple and len(value) == 2 and all(type(v) is int for v in value)
    return False


def to_json(value: Any) -> Any:
    return list(value) if type(value) is tuple else value


def from_json(value: Any, t: str) -> Any:
    return tuple(value) if t == PAIR and type(value) is list else value


def canon(value: Any) -> str:
    """A canonical text of a JSON value: equal texts mean equal values with equal JSON types
    (so 1, 1.0 and true differ, as they should when grading an int)."""
    return json.dumps(to_json(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def show(value: Any) -> str:
    """How a value is written in prompts and answers."""
    return json.dumps(to_json(value), ensure_ascii=False)
