"""Tabdeck plugin SDK for Python: one file, standard library only.

A Tabdeck plugin is a subprocess that serves a lazily paged table over a JSON-lines
(JSON-RPC 2.0 shaped) protocol on stdin/stdout; see ``docs/PROTOCOL.md`` (protocol v1).

Write a subclass of :class:`TablePlugin`, describe the columns, serve rows, call
:meth:`TablePlugin.run`::

    from tabdeck_plugin import TablePlugin, column, row

    class Hello(TablePlugin):
        name, version = "hello", "1.0.0"
        def capabilities(self): return {"sort": True, "multiSort": True}
        def columns(self): return [column("word"), column("len", type="integer")]
        def all_rows(self):
            return [row(w, [w, len(w)]) for w in ("hello", "tabdeck", "world")]

    if __name__ == "__main__":
        raise SystemExit(Hello().run())

What :meth:`TablePlugin.run` does for you:

* reads stdin as bytes and splits lines itself (4 MiB maximum, longer lines are discarded);
* answers ``initialize`` (protocol version 1; unknown host capabilities are ignored);
* validates params and dispatches ``open``, ``rows``, ``children``, ``action``, ``move``,
  ``locate``, ``find``, ``aggregate``, ``describe``, ``query``, ``close``, ``shutdown`` and
  ``$/cancel``;
  answers with the documented error codes;
* with the ``where`` capability, checks each request's ``where`` against the columns (errors
  name the member: ``where[1].value``) and passes it to ``rows``/``locate``/``find``; without it, the
  tables never see one;
* checks an action's rows against its ``rows`` (none, one, many) and its ``input`` against
  its form's fields (types, required fields, defaults filled in) before your handler runs;
* echoes ``generation`` in ``rows`` results, validates the sort keys against the columns;
* writes compact UTF-8 JSON, one object per line, under a lock, flushing each line, so the
  notification helpers (:meth:`~TablePlugin.badge`, :meth:`~TablePlugin.invalidate`,
  :meth:`~TablePlugin.progress`, :meth:`~TablePlugin.status`, :meth:`~TablePlugin.log`)
  may be called from any thread;
* protects the protocol channel: while :meth:`~TablePlugin.run` uses the real stdio, file
  descriptor 1 and ``sys.stdout`` are pointed at stderr, so a stray ``print()`` (or a child
  process writing to its stdout) ends up in the tab's log instead of corrupting the protocol.

Threading model: one reader thread (the caller of ``run``) and one worker thread that runs the
request handlers one after the other, in arrival order. Handlers therefore never run
concurrently with each other, only with the plugin's own background threads. ``$/cancel`` is
handled by the reader at once: a request that has not started yet is answered with -32800, a
running one can poll :meth:`TablePlugin.is_cancelled` / :meth:`TablePlugin.check_cancelled`.

Diagnostics go to stderr only (the ``logging`` module, level from ``TABDECK_LOG_LEVEL``).
"""

from __future__ import annotations

import datetime as _dt
import decimal
import inspect
import json
import logging
import math
import os
import queue
import re
import sys
import threading
import time
from typing import Any, BinaryIO, Callable, Iterable, Mapping, Sequence

__all__ = [
    "PROTOCOL_VERSION", "MAX_LINE_BYTES",
    "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR",
    "REQUEST_CANCELLED", "UNKNOWN_TABLE", "NOT_SUPPORTED", "ACTION_FAILED",
    "RpcError", "Cancelled",
    "column", "row", "action_spec", "field", "section_spec", "validate_input", "move_in_list",
    "sort_key", "sort_rows", "filter_rows", "validate_sort", "ascii_lower", "cell_text",
    "row_matches", "find_row",
    "WHERE_OPS", "parse_cell", "validate_where", "validate_group", "where_rows", "cell_meets",
    "sort_rows_in_sections", "count_sections", "DESCRIBE_COLUMNS", "describe_columns",
    "TableSource", "Table", "TablePlugin",
    "encode_message",
]

PROTOCOL_VERSION = 1
"""The protocol version this SDK speaks."""

MAX_LINE_BYTES = 4 * 1024 * 1024
"""Maximum length of one message line in bytes, excluding the terminating ``\\n``."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800
UNKNOWN_TABLE = -32001
NOT_SUPPORTED = -32002
ACTION_FAILED = -32003

COLUMN_TYPES = ("text", "integer", "decimal", "bool", "date", "enum")
LOG_LEVELS = ("debug", "info", "warning", "error")

log = logging.getLogger("tabdeck_plugin")

_UNSET: Any = object()


# --------------------------------------------------------------------------- errors

class RpcError(Exception):
    """Raise from a handler to answer the request with a JSON-RPC error.

    >>> raise RpcError(ACTION_FAILED, "pid 42: permission denied", {"pid": "42"})
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        """The ``error`` member of an error response."""
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


class Cancelled(RpcError):
    """The request was cancelled by the host (``$/cancel``); answered with -32800."""

    def __init__(self, message: str = "request cancelled") -> None:
        super().__init__(REQUEST_CANCELLED, message)


# --------------------------------------------------------------------------- builders

def column(id: str, title: str | None = None, type: str = "text", *,
           width: int | Mapping[str, int] | None = None, align: str | None = None,
           sortable: bool | None = None, values: Sequence[str] | None = None,
           decimals: int | None = None, nulls: str | None = None, order: str | None = None,
           collation: str | None = None) -> dict[str, Any]:
    """Build a column description (the entries of a table description's ``columns``).

    ``width`` is an integer (fixed) or a mapping with optional ``min``/``ideal``/``max``;
    ``values`` is required for ``type="enum"`` and gives the enum's sort order; ``decimals``
    (``type="decimal"`` only, 0 to 15) is how many digits the host shows after the point;
    ``nulls`` (``"smallest"``, the default, or ``"largest"``) is where nulls sort; ``order``
    (``"protocol"``, the default: UTF-8 byte order for text; ``"casefold"``: text with ASCII
    letters folded, a human order; ``"source"``: the plugin's own order, which it then sorts
    itself) is the column's sort order (PROTOCOL.md 10.2, honoured by :func:`sort_key`);
    ``collation`` names the source's collation (shown only).
    """
    if type not in COLUMN_TYPES:
        raise ValueError(f"column {id!r}: unknown type {type!r}")
    if type == "enum" and not values:
        raise ValueError(f"column {id!r}: an enum column needs values")
    col: dict[str, Any] = {"id": id, "title": title if title is not None else id, "type": type}
    if values is not None:
        col["values"] = list(values)
    if width is not None:
        col["width"] = width if isinstance(width, int) else dict(width)
    if align is not None:
        if align not in ("left", "right", "center"):
            raise ValueError(f"column {id!r}: bad align {align!r}")
        col["align"] = align
    if sortable is not None:
        col["sortable"] = bool(sortable)
    if decimals is not None:
        if type != "decimal":
            raise ValueError(f"column {id!r}: decimals is for decimal columns, not {type!r}")
        if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 15:
            raise ValueError(f"column {id!r}: decimals must be an integer from 0 to 15, not {decimals!r}")
        col["decimals"] = decimals
    if nulls is not None:
        if nulls not in ("smallest", "largest"):
            raise ValueError(f"column {id!r}: nulls must be 'smallest' or 'largest', not {nulls!r}")
        col["nulls"] = nulls
    if order is not None:
        if order not in ("protocol", "casefold", "source"):
            raise ValueError(f"column {id!r}: order must be 'protocol', 'casefold' or 'source', not {order!r}")
        col["order"] = order
    if collation is not None:
        col["collation"] = str(collation)
    return col


def row(id: str | int, cells: Sequence[Any], *, section: str | None = None,
        detail: str | None = None, has_children: bool | None = None) -> dict[str, Any]:
    """Build a row: a stable ``id`` (kept across sorts and pages) and one cell per column."""
    r: dict[str, Any] = {"id": str(id), "cells": list(cells)}
    if section is not None:
        r["section"] = section
    if detail is not None:
        r["detail"] = detail
    if has_children is not None:
        r["hasChildren"] = bool(has_children)
    return r


ACTION_ROWS = ("none", "one", "many")
FIELD_TYPES = ("text", "integer", "number", "boolean", "enum")


def action_spec(id: str, title: str | None = None, *, confirm: bool = False,
                multiple: bool = False, destructive: bool = False, rows: str | None = None,
                hotkey: str | None = None, input: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Build an action description (the entries of a table description's ``actions``).

    ``rows`` is ``"none"`` (an insert: no rows are sent), ``"one"`` or ``"many"`` (default:
    ``"many"`` with ``multiple=True``, else ``"one"``); ``destructive=True`` makes the host ask
    first with No as the default answer (as ``confirm`` does); ``hotkey`` is one character
    that runs the action from the table (the host's own keys win); ``input`` is a form, a list
    of :func:`field` s whose values the action receives.
    """
    if rows is not None and rows not in ACTION_ROWS:
        raise ValueError(f"action {id!r}: rows must be one of {', '.join(ACTION_ROWS)}, not {rows!r}")
    if hotkey is not None and (not isinstance(hotkey, str) or len(hotkey) != 1 or not hotkey.isprintable()
                               or hotkey.isspace()):
        raise ValueError(f"action {id!r}: hotkey must be one printable character, not {hotkey!r}")
    kind = rows or ("many" if multiple else "one")
    spec: dict[str, Any] = {"id": id, "title": title if title is not None else id,
                            "confirm": bool(confirm), "multiple": kind == "many"}
    if rows is not None:
        spec["rows"] = rows
    if destructive:
        spec["destructive"] = True
    if hotkey is not None:
        spec["hotkey"] = hotkey
    if input:
        ids = [f["id"] for f in input]
        if len(set(ids)) != len(ids):
            raise ValueError(f"action {id!r}: field ids must be unique")
        spec["input"] = [dict(f) for f in input]
    return spec


def field(id: str, title: str | None = None, type: str = "text", *, values: Sequence[str] | None = None,
          required: bool = False, default: Any = None) -> dict[str, Any]:
    """Build a field of an action's form (``input``): ``type`` is text, integer, number,
    boolean or enum (``values`` required); ``default`` is the value the form starts with."""
    if type not in FIELD_TYPES:
        raise ValueError(f"field {id!r}: unknown type {type!r}")
    if not id or "=" in id:
        raise ValueError(f"field {id!r}: an id must be non-empty and without '='")
    if type == "enum" and not values:
        raise ValueError(f"field {id!r}: an enum field needs values")
    f: dict[str, Any] = {"id": id, "title": title if title is not None else id, "type": type}
    if values is not None:
        f["values"] = list(values)
    if required:
        f["required"] = True
    if default is not None:
        _check_field_value(f, default)
        f["default"] = default
    return f


def _check_field_value(f: Mapping[str, Any], value: Any) -> None:
    """Raise ``ValueError`` unless ``value`` is a value of the field ``f``."""
    kind = f.get("type", "text")
    ok = {"text": isinstance(value, str),
          "integer": isinstance(value, int) and not isinstance(value, bool),
          "number": isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value),
          "boolean": isinstance(value, bool),
          "enum": value in (f.get("values") or [])}.get(kind, False)
    if not ok:
        expected = {"integer": "an integer", "number": "a number", "boolean": "true or false",
                    "enum": "one of " + ", ".join(map(str, f.get("values") or []))}.get(kind, "a string")
        raise ValueError(f"{f.get('title', f.get('id'))}: expected {expected}, got {value!r}")


def validate_input(spec: Mapping[str, Any], input: Any) -> dict[str, Any]:
    """Check an ``action`` request's ``input`` against the action's fields; return it with the
    defaults of the fields it leaves out. Raises :class:`RpcError` -32602 naming the field."""
    if input is None:
        input = {}
    if not isinstance(input, dict):
        raise RpcError(INVALID_PARAMS, "input must be an object")
    fields = spec.get("input") or []
    known = {f["id"] for f in fields}
    unknown = sorted(k for k in input if k not in known)
    if unknown:
        raise RpcError(INVALID_PARAMS, f"unknown field: {unknown[0]}", {"field": unknown[0]})
    out: dict[str, Any] = {}
    for f in fields:
        value = input.get(f["id"], f.get("default"))
        if value is None:
            if f.get("required"):
                raise RpcError(INVALID_PARAMS, f"{f.get('title', f['id'])}: required", {"field": f["id"]})
            continue
        try:
            _check_field_value(f, value)
        except ValueError as e:
            raise RpcError(INVALID_PARAMS, str(e), {"field": f["id"]}) from None
        out[f["id"]] = value
    return out


def move_in_list(items: list[Any], row: str, place: str, target: str,
                 key: Callable[[Any], str] = lambda r: r["id"]) -> None:
    """Move the item whose ``key`` is ``row`` to just ``place`` ("before" or "after") the item
    ``target``, in place (a ``move`` handler's usual work). Raises :class:`RpcError` -32602
    for an unknown id."""
    ids = [key(r) for r in items]
    if row not in ids or target not in ids:
        missing = row if row not in ids else target
        raise RpcError(INVALID_PARAMS, f"unknown row: {missing}", {"row": missing})
    item = items.pop(ids.index(row))
    at = [key(r) for r in items].index(target)
    items.insert(at if place == "before" else at + 1, item)


def _takes_input(fn: Callable[..., Any], given: int) -> bool:
    """Whether ``fn`` accepts one more positional argument (the action's ``input``) after
    ``given`` ones: handlers written before forms keep their signature."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                  inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    return len(positional) > given


# --------------------------------------------------------------------------- sections

def section_spec(id: str, title: str | None = None, *, footer: str | None = None,
                 count: int | None = None) -> dict[str, Any]:
    """Build a section description (the entries of a table description's ``sections``).

    Sections are contiguous runs of rows, in the order listed; ``count`` (rows in the section)
    lets the host place headers and jump to a section without fetching rows (PROTOCOL.md 10.6).
    """
    s: dict[str, Any] = {"id": id, "title": title if title is not None else id}
    if footer is not None:
        s["footer"] = footer
    if count is not None:
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"section {id!r}: count must be a non-negative integer, not {count!r}")
        s["count"] = count
    return s


def sort_rows_in_sections(rows: Iterable[Mapping[str, Any]], sort: Sequence[Mapping[str, Any]],
                          columns: Sequence[Mapping[str, Any]],
                          sections: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Return the rows grouped by section (in the order of ``sections``), each section sorted
    with :func:`sort_rows` on its own: sorting never mixes sections. Rows whose ``section`` is
    missing or unknown come last, sorted the same way."""
    order = {s["id"]: i for i, s in enumerate(sections)}
    groups: list[list[Any]] = [[] for _ in range(len(order) + 1)]
    for r in rows:
        groups[order.get(r.get("section"), len(order))].append(r)
    out: list[Any] = []
    for group in groups:
        out += sort_rows(group, sort, columns) if sort else group
    return out


def count_sections(rows: Iterable[Mapping[str, Any]],
                   sections: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return copies of ``sections`` with ``count`` set from the rows' ``section`` fields."""
    counts: dict[Any, int] = {}
    for r in rows:
        counts[r.get("section")] = counts.get(r.get("section"), 0) + 1
    return [{**s, "count": counts.get(s["id"], 0)} for s in sections]


# --------------------------------------------------------------------------- sorting

_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def ascii_lower(text: str) -> str:
    """``text`` with the ASCII letters A-Z in lower case and nothing else changed: the folding
    of an ``"order": "casefold"`` column (PROTOCOL.md 10.2, SQLite's ``NOCASE``)."""
    return text.translate(_ASCII_LOWER)


_NULL_SMALLEST = (-1, 0)
_NULL_LARGEST = (9, 0)
_NUMBER_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?\Z")
_INTEGER_DIGITS = re.compile(r"-?[0-9]+\Z")
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _date_micros(text: str) -> int | None:
    """A date or timestamp (10.3) as microseconds since 1970 UTC, or ``None``."""
    try:
        return (_parse_date(text) - _EPOCH) // _dt.timedelta(microseconds=1)
    except (ValueError, OverflowError):
        return None


def sort_key(value: Any, col: Mapping[str, Any] | None = None) -> tuple:
    """A key that orders the cells of one column ascending by PROTOCOL.md 11.3 "Sort order".

    ``integer`` and ``decimal`` numerically and exactly, exact-number strings too (10.3:
    ``"123456789012345678901234567890"``, ``"2.50"`` = ``2.5``, ``-0`` = ``0``, ``"-Infinity"`` <
    numbers < ``"Infinity"`` < ``"NaN"``); ``bool`` ``False`` first; ``enum`` by position in the
    column's ``values``; ``date`` by instant (a date alone is its midnight UTC, a timestamp
    without a zone is UTC); text by Unicode scalar values, which is UTF-8 byte order (Python's
    ``str`` order), or with ASCII letters folded in a column with ``"order": "casefold"`` (10.2;
    ``"Apple"`` and ``"apple"`` are then equal, so a stable sort keeps their natural order).
    ``None`` is the smallest value, or the largest with ``"nulls": "largest"``. A cell whose
    JSON type does not fit its column sorts with the numbers (a number or bool) or the texts
    (anything else, a list or object by its JSON text), never raising ``TypeError``. Without
    ``col`` the value is taken as a text column's.
    """
    col = col or {}
    if value is None:
        return _NULL_LARGEST if col.get("nulls") == "largest" else _NULL_SMALLEST
    kind = col.get("type", "text")
    if isinstance(value, bool):
        return (1, int(value))
    if isinstance(value, (int, float, decimal.Decimal)):
        if isinstance(value, float) and not math.isfinite(value) or \
                isinstance(value, decimal.Decimal) and not value.is_finite():
            if value != value:
                return (3, 0)
            return (0, 0) if value < 0 else (2, 0)
        return (1, value)
    if isinstance(value, str):
        if kind == "integer" and _INTEGER_DIGITS.match(value):
            return (1, int(value))
        if kind == "decimal":
            if _NUMBER_TEXT.match(value):
                return (1, decimal.Decimal(value))
            if value == "-Infinity":
                return (0, 0)
            if value == "Infinity":
                return (2, 0)
            if value == "NaN":
                return (3, 0)
        elif kind == "enum":
            values = col.get("values") or []
            if value in values:
                return (1, values.index(value))
        elif kind == "date":
            micros = _date_micros(value)
            if micros is not None:
                return (1, micros)
        elif kind == "text" and col.get("order") == "casefold":
            return (4, ascii_lower(value))
        return (4, value)
    return (4, json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=str))


def validate_sort(sort: Any, columns: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Check a ``rows`` request's ``sort`` against the columns; return it normalized.

    Raises :class:`RpcError` -32602 for a malformed key or an unknown column and -32002 for a
    column declared ``"sortable": false``. A missing direction means ``"asc"``.
    """
    if sort is None:
        return []
    if not isinstance(sort, list):
        raise RpcError(INVALID_PARAMS, "sort must be a list of {column, direction}")
    by_id = {c.get("id"): c for c in columns}
    keys: list[dict[str, str]] = []
    for key in sort:
        if not isinstance(key, dict) or not isinstance(key.get("column"), str):
            raise RpcError(INVALID_PARAMS, f"bad sort key: {key!r}")
        direction = key.get("direction", "asc")
        if direction not in ("asc", "desc"):
            raise RpcError(INVALID_PARAMS, f"bad sort direction: {direction!r}")
        col = by_id.get(key["column"])
        if col is None:
            raise RpcError(INVALID_PARAMS, f"unknown sort column: {key['column']!r}")
        if col.get("sortable", True) is False:
            raise RpcError(NOT_SUPPORTED, f"column {key['column']!r} is not sortable")
        keys.append({"column": key["column"], "direction": direction})
    return keys


def sort_rows(rows: Iterable[Mapping[str, Any]], sort: Sequence[Mapping[str, Any]],
              columns: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Return the rows sorted by a list of ``{"column", "direction"}`` keys (first key first).

    Rows are mappings with ``cells`` in column order. The sort is stable, so rows equal in every
    key keep their input order. Cells are compared with :func:`sort_key`. An unknown column
    raises :class:`RpcError` -32602.
    """
    out = list(rows)
    index = {c.get("id"): (i, c) for i, c in enumerate(columns)}
    for key in reversed(list(sort)):
        found = index.get(key.get("column"))
        if found is None:
            raise RpcError(INVALID_PARAMS, f"unknown sort column: {key.get('column')!r}")
        i, col = found
        out.sort(key=lambda r, i=i, col=col: sort_key(r["cells"][i], col),
                 reverse=key.get("direction", "asc") == "desc")
    return out


def cell_text(cell: Any) -> str | None:
    """A cell's text for the filter and ``find`` (PROTOCOL.md 11.3, What a filter matches): a
    string as sent, a number as written in JSON, ``true`` or ``false``; ``None`` for null."""
    if cell is None:
        return None
    if isinstance(cell, str):
        return cell
    return json.dumps(cell, ensure_ascii=False, separators=(",", ":"), default=str)


def row_matches(r: Mapping[str, Any], text: str) -> bool:
    """Whether a row has a cell whose text contains ``text``, case-insensitively."""
    needle = text.casefold()
    for c in r["cells"]:
        t = cell_text(c)
        if t is not None and needle in t.casefold():
            return True
    return False


def filter_rows(rows: Iterable[Mapping[str, Any]], text: str) -> list[Any]:
    """Rows with at least one cell whose text contains ``text``, case-insensitively."""
    return [r for r in rows if row_matches(r, text)]


def find_row(rows: Sequence[Mapping[str, Any]], text: str, from_: int = 0, backward: bool = False,
             wrap: bool = False) -> dict[str, Any]:
    """``find`` (PROTOCOL.md 11.15) over the rows of a view, in its order: ``{"offset", "row",
    "wrapped"}`` of the first row holding ``text`` by the filter's rule (:func:`row_matches`),
    looking at ``from_`` and on (back from it with ``backward``), then, with ``wrap``, from the
    other end up to ``from_`` (a row found there is ``wrapped``). A ``from_`` past the end looks
    from the last row backward, or with ``wrap`` from row 0 forward (found there: ``wrapped``).
    ``{"offset": None, "row": None, "wrapped": False}`` when no row matches."""
    n = len(rows)
    none: dict[str, Any] = {"offset": None, "row": None, "wrapped": False}
    if n == 0:
        return none
    start = min(from_, n - 1)
    # The ranges looked at, in order, as (first, stop, step); an empty one stands for the
    # positions past the end, so that what the next one finds is wrapped.
    parts: list[tuple[int, int, int]] = []
    if backward:
        parts.append((start, -1, -1))
        if wrap and from_ < n and start + 1 < n:
            parts.append((n - 1, start, -1))
    elif from_ >= n:
        if wrap:
            parts += [(n, n, 1), (0, n, 1)]
    else:
        parts.append((from_, n, 1))
        if wrap and from_ > 0:
            parts.append((0, from_, 1))
    for p, (first, stop, step) in enumerate(parts):
        for i in range(first, stop, step):
            if row_matches(rows[i], text):
                return {"offset": i, "row": str(rows[i]["id"]), "wrapped": p > 0}
    return none


# --------------------------------------------------------------------------- where

WHERE_OPS = ("=", "!=", "<", "<=", ">", ">=", "between", "in", "null", "notNull")
"""The ops of a ``where`` condition (PROTOCOL.md 11.11)."""

_COMPARE_OPS = ("=", "!=", "<", "<=", ">", ">=")
_INTEGER_TEXT = re.compile(r"-?[0-9]+\Z")
_DECIMAL_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?\Z")
_DATE_TEXT = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
    r"(Z|z|[+-]\d{2}(?::?\d{2})?)?)?\Z")
_SPECIAL_DECIMALS = ("NaN", "Infinity", "-Infinity")


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _parse_date(text: str) -> _dt.datetime:
    """An ISO 8601 date or timestamp (PROTOCOL.md 10.3) as an aware datetime in UTC: a date
    alone is its midnight UTC, a timestamp without a zone is taken as UTC."""
    m = _DATE_TEXT.match(text)
    if not m:
        raise ValueError
    y, mo, d, h, mi, sec, frac, zone = m.groups()
    micro = int((frac or "0")[:6].ljust(6, "0"))
    tz = _dt.timezone.utc
    if zone and zone not in ("Z", "z"):
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        tz = _dt.timezone(sign * _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0)))
    value = _dt.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(sec or 0), micro, tzinfo=tz)
    return value.astimezone(_dt.timezone.utc)


def parse_cell(value: Any, col: Mapping[str, Any]) -> Any:
    """A cell (or a ``where`` value) of column ``col`` as a Python value that compares in the
    column's sort order (PROTOCOL.md 11.3): ``integer`` an ``int``; ``decimal`` a
    ``decimal.Decimal`` (``Decimal('NaN')``/``('Infinity')``/``('-Infinity')`` for the specials;
    a JSON number by its shortest text, so ``0.1`` is ``Decimal('0.1')``); ``bool`` a ``bool``;
    ``date`` an aware ``datetime`` in UTC; ``enum`` the value's position in ``values``; ``text``
    the string. Raises ``ValueError`` with a message such as ``"abc" is not an integer``."""
    kind = col.get("type", "text")
    if kind == "integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and _INTEGER_TEXT.match(value):
            return int(value)
        raise ValueError(f"{_json_text(value)} is not an integer")
    if kind == "decimal":
        if isinstance(value, int) and not isinstance(value, bool):
            return decimal.Decimal(value)
        if isinstance(value, float) and math.isfinite(value):
            return decimal.Decimal(repr(value))
        if isinstance(value, str) and (_DECIMAL_TEXT.match(value) or value in _SPECIAL_DECIMALS):
            return decimal.Decimal(value)
        raise ValueError(f"{_json_text(value)} is not a decimal number")
    if kind == "bool":
        if isinstance(value, bool):
            return value
        raise ValueError(f"{_json_text(value)} is not true or false")
    if kind == "date":
        if isinstance(value, str):
            try:
                return _parse_date(value)
            except (ValueError, OverflowError):
                pass
        raise ValueError(f"{_json_text(value)} is not a date (YYYY-MM-DD or an ISO 8601 timestamp)")
    if kind == "enum":
        values = list(col.get("values") or [])
        if isinstance(value, str) and value in values:
            return values.index(value)
        raise ValueError(f"{_json_text(value)} is not one of the values of {col.get('id')!r}")
    if isinstance(value, str):
        return value
    raise ValueError(f"{_json_text(value)} is not a string")


def _where_error(member: str, text: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"{member}: {text}", {"member": member})


def validate_where(where: Any, columns: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Check a request's ``where`` (PROTOCOL.md 11.11) against the columns and return it as a
    list of ``{"column", "op"}`` plus ``"value"`` (``=`` to ``>=``) or ``"values"``
    (``between``: ``[low, high]``; ``in``: one or more), the values as sent. ``None`` is ``[]``.
    Raises :class:`RpcError` -32602 naming the member: ``where[1].value: "abc" is not an
    integer`` (``data.member`` holds ``where[1].value``)."""
    if where is None:
        return []
    if not isinstance(where, list):
        raise _where_error("where", "must be a list of conditions")
    by_id = {c.get("id"): c for c in columns}
    out: list[dict[str, Any]] = []
    for i, cond in enumerate(where):
        at = f"where[{i}]"
        if not isinstance(cond, dict):
            raise _where_error(at, "must be an object {column, op, value|values}")
        cid, op = cond.get("column"), cond.get("op")
        col = by_id.get(cid) if isinstance(cid, str) else None
        if col is None:
            raise _where_error(f"{at}.column", f"unknown column {_json_text(cid)}")
        if op not in WHERE_OPS:
            raise _where_error(f"{at}.op", f"{_json_text(op)} is not one of {', '.join(WHERE_OPS)}")
        item: dict[str, Any] = {"column": cid, "op": op}
        if op in _COMPARE_OPS:
            if cond.get("value") is None:
                raise _where_error(f"{at}.value", "missing" if "value" not in cond
                                   else f"null is no value (op {op} needs one; the op null keeps empty cells)")
            try:
                parse_cell(cond["value"], col)
            except ValueError as e:
                raise _where_error(f"{at}.value", str(e)) from None
            item["value"] = cond["value"]
        elif op in ("between", "in"):
            values = cond.get("values")
            if not isinstance(values, list) or (op == "between" and len(values) != 2) or not values:
                raise _where_error(f"{at}.values", "must be [low, high]" if op == "between"
                                   else "must be a list of one or more values")
            for j, v in enumerate(values):
                if v is None:
                    raise _where_error(f"{at}.values[{j}]", "null is no value (the op null keeps empty cells)")
                try:
                    parse_cell(v, col)
                except ValueError as e:
                    raise _where_error(f"{at}.values[{j}]", str(e)) from None
            item["values"] = list(values)
        out.append(item)
    return out


BIN_TYPES = ("integer", "decimal", "date")


def validate_group(group: Any, columns: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Check an ``aggregate`` request's ``group`` (PROTOCOL.md 11.12): one or more
    ``{"column", "bins"?}``, each column once, ``bins`` an integer >= 1 on an integer, decimal
    or date column. Returns it normalized (``bins`` only where given). Raises :class:`RpcError`
    -32602 naming the member (``group[0].bins: ...``)."""
    if not isinstance(group, list) or not group:
        raise _where_error("group", "must be a list of one or more {column, bins}")
    by_id = {c.get("id"): c for c in columns}
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, g in enumerate(group):
        at = f"group[{i}]"
        if not isinstance(g, dict):
            raise _where_error(at, "must be an object {column, bins}")
        cid = g.get("column")
        col = by_id.get(cid) if isinstance(cid, str) else None
        if col is None:
            raise _where_error(f"{at}.column", f"unknown column {_json_text(cid)}")
        if cid in seen:
            raise _where_error(f"{at}.column", f"{_json_text(cid)} is grouped twice")
        seen.add(cid)
        item: dict[str, Any] = {"column": cid}
        bins = g.get("bins")
        if bins is not None:
            if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
                raise _where_error(f"{at}.bins", f"{_json_text(bins)} is not an integer of 1 or more")
            if col.get("type", "text") not in BIN_TYPES:
                raise _where_error(f"{at}.bins", f"column {_json_text(cid)} is {col.get('type', 'text')}: "
                                   "bins are for integer, decimal and date columns")
            item["bins"] = bins
        out.append(item)
    return out


DESCRIBE_COLUMNS = (("column", "Column", "text"), ("type", "Type", "text"), ("count", "Count", "integer"),
                    ("nulls", "Nulls", "integer"), ("distinct", "Distinct", "integer"),
                    ("min", "Min", "text"), ("max", "Max", "text"), ("mean", "Mean", "decimal"),
                    ("stddev", "Std dev", "decimal"), ("p25", "25 %", "text"), ("median", "Median", "text"),
                    ("p75", "75 %", "text"), ("top", "Top", "text"), ("topCount", "Top count", "integer"),
                    ("histogram", "Histogram", "text"))
"""The columns of a ``describe`` result (PROTOCOL.md 11.13), in their order: (id, title, type)."""


def describe_columns() -> list[dict[str, Any]]:
    """The column descriptions of a ``describe`` result table (PROTOCOL.md 11.13), in order."""
    return [column(cid, title, ctype, align="right" if ctype in ("integer", "decimal") else None)
            for cid, title, ctype in DESCRIBE_COLUMNS]


def _order_key(typed: Any, col: Mapping[str, Any]) -> Any:
    """A key that orders parsed values of one column as its sort order does (11.3)."""
    if isinstance(typed, decimal.Decimal):
        if typed.is_nan():
            return (3,)
        if typed.is_infinite():
            return (0,) if typed < 0 else (2,)
        return (1, typed)
    if isinstance(typed, str) and col.get("order") == "casefold":
        return (typed.casefold(), typed)
    return typed


def cell_meets(cell: Any, cond: Mapping[str, Any], col: Mapping[str, Any]) -> bool:
    """Whether one cell meets one (validated) ``where`` condition of its column. A null cell
    meets only ``null``; a cell whose JSON type does not fit its column meets only ``notNull``;
    ``=``, ``!=`` and ``in`` on text are exact, the other ops compare in the column's order."""
    op = cond["op"]
    if op == "null":
        return cell is None
    if cell is None:
        return False
    if op == "notNull":
        return True
    try:
        have = parse_cell(cell, col)
    except ValueError:
        return False
    text = col.get("type", "text") == "text"

    def key(v: Any) -> Any:
        return _order_key(v, col)

    if op == "in":
        wanted = [parse_cell(v, col) for v in cond["values"]]
        return any(have == w if text else key(have) == key(w) for w in wanted)
    if op == "between":
        low, high = (key(parse_cell(v, col)) for v in cond["values"])
        return low <= key(have) <= high
    want = parse_cell(cond["value"], col)
    if op in ("=", "!="):
        same = have == want if text else key(have) == key(want)
        return same if op == "=" else not same
    a, b = key(have), key(want)
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def where_rows(rows: Iterable[Mapping[str, Any]], where: Sequence[Mapping[str, Any]],
               columns: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The rows that meet every (validated) condition of ``where`` (PROTOCOL.md 11.11)."""
    rows = list(rows)
    if not where:
        return rows
    index = {c.get("id"): (i, c) for i, c in enumerate(columns)}
    conds = [(index[w["column"]], w) for w in where]
    return [r for r in rows if all(cell_meets(r["cells"][i], w, col) for (i, col), w in conds)]


# --------------------------------------------------------------------------- encoding

def stream_source_rows(source: Any) -> Iterable[Any]:
    """The rows a streaming table sends, in order: its ``stream()`` generator if it has one
    (rows produced as they are read, never all in memory), else :meth:`TableSource.all_rows`."""
    stream = getattr(source, "stream", None)
    return stream() if callable(stream) else source.all_rows()


def _finite(obj: Any) -> Any:
    """Replace NaN and infinities (not valid JSON) by ``None``, recursively."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def encode_message(obj: Any) -> bytes:
    """Encode one message as compact UTF-8 JSON, without the trailing newline.

    Control characters are escaped by ``json``, so the result never contains a raw ``\\n``.
    NaN/Infinity become ``null``; lone surrogates become ``?``.
    """
    try:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(obj), separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    return text.encode("utf-8", "replace")


# --------------------------------------------------------------------------- tables

class TableSource:
    """What every table has: a title, columns, a row count and rows.

    Override :meth:`columns` and either :meth:`all_rows` (the SDK then filters, sorts with
    :func:`sort_rows` and pages for you) or :meth:`rows` (+ :meth:`count`) for big or external
    data. Both :class:`TablePlugin` (the root table) and :class:`Table` (child tables) are
    table sources.
    """

    title: str = ""

    def columns(self) -> list[dict[str, Any]]:
        """The column descriptions (see :func:`column`). Must not be empty."""
        raise NotImplementedError("override columns()")

    def all_rows(self) -> list[dict[str, Any]]:
        """Every row, for small tables (see :func:`row`). Used by the default rows()/count()."""
        raise NotImplementedError("override all_rows() or rows()")

    def count(self) -> int | None:
        """The number of rows, or ``None`` when unknown. Default: ``len(all_rows())``."""
        try:
            return len(self.all_rows())
        except NotImplementedError:
            return None

    def rows(self, offset: int, limit: int, sort: list[dict[str, str]], filter: Any,
             where: list[dict[str, Any]] | None = None
             ) -> list[dict[str, Any]] | tuple[list[dict[str, Any]], int | None]:
        """Return up to ``limit`` rows starting at ``offset`` in the given order.

        ``sort`` is already validated (and empty when the plugin does not declare ``sort``).
        ``where`` (PROTOCOL.md 11.11) is passed only to plugins that declare the ``where``
        capability, always then (``[]`` for none), validated against the columns (see
        :func:`validate_where`): keep only the rows that meet every condition, and the filter.
        Return a list of rows (the response's ``total`` is then :meth:`count`), a tuple
        ``(rows, total)``, or ``(rows, total, sections)`` to send the sections' counts and
        footers as they are under this request's filter (PROTOCOL.md 10.6). The default uses
        :meth:`all_rows`, keeps only rows matching a string ``filter`` (see :func:`filter_rows`)
        and sorts with :func:`sort_rows` (with :meth:`sections`, with
        :func:`sort_rows_in_sections`: each section on its own); under a filter it sends the
        sections with their counts among the kept rows; it keeps the rows ``where`` keeps
        (:func:`where_rows`).
        """
        data = self.all_rows()
        total: int | None = None
        filtered = isinstance(filter, str) and bool(filter)
        if filtered:
            data = filter_rows(data, filter)
        if where:
            data = where_rows(data, where, self.columns())
            filtered = True
        if filtered:
            total = len(data)
        sections = self.sections()
        if sections:
            data = sort_rows_in_sections(data, sort, self.columns(), sections)
        elif sort:
            data = sort_rows(data, sort, self.columns())
        page = data[offset:offset + limit]
        if filtered and sections:
            return page, total, count_sections(data, sections)
        return (page, total) if total is not None else page

    def locate(self, ids: list[str], sort: list[dict[str, str]], filter: Any,
               where: list[dict[str, Any]] | None = None) -> tuple[str, int] | None:
        """Where the first of ``ids`` is in this order and filter: ``(id, offset)``, or ``None``
        when none of them is in the view (the ``locate`` request, only sent when the plugin
        declares the ``locate`` capability; ``where`` as in :meth:`rows`, only with the
        ``where`` capability). The default reads the whole table through :meth:`rows` once;
        override it for big tables, or do not declare ``locate``."""
        got = self.rows(0, 2**31 - 1, sort, filter, where) if where else self.rows(0, 2**31 - 1, sort, filter)
        page = got[0] if isinstance(got, tuple) else got
        where = {str(r["id"]): i for i, r in enumerate(page)}
        for wanted in ids:
            if wanted in where:
                return wanted, where[wanted]
        return None

    def find(self, text: str, from_: int, backward: bool, wrap: bool, sort: list[dict[str, str]],
             filter: Any, where: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The ``find`` request (PROTOCOL.md 11.15, only sent when the plugin declares the
        ``find`` capability): ``{"offset", "row", "wrapped"}`` of the first row of this order and
        filter (``where`` as in :meth:`rows`) holding ``text`` by the filter's rule, from
        ``from_`` on (see :func:`find_row`). The default reads the whole view through
        :meth:`rows` once, as :meth:`locate` does; override it for big tables, or do not
        declare ``find``."""
        got = self.rows(0, 2**31 - 1, sort, filter, where) if where else self.rows(0, 2**31 - 1, sort, filter)
        page = got[0] if isinstance(got, tuple) else got
        return find_row(page, text, from_, backward, wrap)

    def actions(self) -> list[dict[str, Any]]:
        """The actions of this table (see :func:`action_spec`). Default: none."""
        return []

    def movable(self) -> bool:
        """Whether the user may move this table's rows up and down (``move`` requests; declare
        the ``move`` capability too). Default: False."""
        return False

    def sections(self) -> list[dict[str, Any]] | None:
        """The sections of this table (see :func:`section_spec`). Default: none.

        Rows name their section with ``row(..., section=ID)``; the default :meth:`rows` keeps
        each section together and sorts within it. :meth:`describe` adds each section's
        ``count`` from :meth:`all_rows` when the sections do not carry one."""
        return None

    def describe(self) -> dict[str, Any]:
        """A table description without the ``table`` handle (the SDK adds it)."""
        desc: dict[str, Any] = {"title": self.title, "columns": self.columns(),
                                "total": self.count()}
        actions = self.actions()
        if actions:
            desc["actions"] = actions
        if self.movable():
            desc["movable"] = True
        sections = self.sections()
        if sections:
            if any("count" not in s for s in sections):
                try:
                    sections = count_sections(self.all_rows(), sections)
                except NotImplementedError:
                    pass  # rows come from rows(): the host places sections from loaded rows
            desc["sections"] = sections
        return desc


class Table(TableSource):
    """A child table, returned by :meth:`TablePlugin.children`.

    The SDK gives it a handle, routes ``rows``, ``children`` and ``action`` requests naming that
    handle to it, and calls :meth:`close` when the host sends ``close``.
    """

    #: The handle the SDK gave this table when it was opened (``None`` before), for example to
    #: ``invalidate`` it after an action.
    handle: str | None = None

    def action(self, action: str, rows: list[str]) -> dict[str, Any] | str | None:
        """Run an action on rows of this table; see :meth:`TablePlugin.action` (an ``input``
        parameter, if declared, receives the form's values)."""
        raise RpcError(NOT_SUPPORTED, "this table has no actions")

    def move(self, row: str, place: str, target: str) -> dict[str, Any] | str | None:
        """Move ``row`` just ``place`` ("before" or "after") ``target``; see :meth:`TablePlugin.move`."""
        raise RpcError(NOT_SUPPORTED, "the rows of this table cannot be moved")

    def children(self, row: str) -> "Table":
        """The child table of one of this table's rows."""
        raise RpcError(NOT_SUPPORTED, "this table has no children")

    def aggregate(self, filter: Any, where: list[dict[str, Any]],
                  group: list[dict[str, Any]]) -> "Table":
        """The group counts of this table as a new table; see :meth:`TablePlugin.aggregate`."""
        raise RpcError(NOT_SUPPORTED, "this table cannot be aggregated")

    def statistics(self, filter: Any, where: list[dict[str, Any]]) -> "Table":
        """The column statistics of this table as a new table (``describe``); see
        :meth:`TablePlugin.statistics`."""
        raise RpcError(NOT_SUPPORTED, "this table cannot be described")

    def close(self) -> None:
        """The host no longer needs this table: release what it holds."""


class _Request:
    __slots__ = ("id", "method", "params", "is_request")

    def __init__(self, id: Any, method: str, params: Any, is_request: bool) -> None:
        self.id = id
        self.method = method
        self.params = params
        self.is_request = is_request


class TablePlugin(TableSource):
    """Base class of a plugin. The plugin object itself is the root table.

    Override at least :meth:`columns` and :meth:`all_rows` (or :meth:`rows`), set
    :attr:`name` and :attr:`version`, declare :meth:`capabilities`, then call :meth:`run`.
    """

    name: str = "plugin"
    """Plugin name, sent in the ``initialize`` result."""
    version: str = "0.0.0"
    """Plugin (app) version, separate from the protocol version."""
    root_table: str = "root"
    """Handle of the root table, unless :meth:`open` returns another ``table``."""

    def __init__(self) -> None:
        self.host: dict[str, Any] = {}
        """The ``host`` member of ``initialize`` params (name, version)."""
        self.host_capabilities: dict[str, Any] = {}
        """The host's capabilities from ``initialize`` (unknown ones are simply kept)."""
        self.args: dict[str, Any] = {}
        """The ``args`` of the last ``open``."""
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._out: BinaryIO | None = None
        self._out_broken = False
        self._queue: queue.Queue[_Request | None] = queue.Queue()
        self._pending: set[Any] = set()
        self._cancelled: set[Any] = set()
        self._current_id: Any = None
        self._initialized = False
        self._opened = False
        self._shutdown = threading.Event()
        self._tables: dict[str, Table] = {}
        self._next_handle = 1

    # ------------------------------------------------------------ to override

    def capabilities(self) -> dict[str, bool]:
        """Capabilities sent in the ``initialize`` result.

        Keys: ``sort``, ``multiSort``, ``filter``, ``sections``, ``children``, ``actions``,
        ``live``, ``paging``, ``move``, ``locate`` (answered by :meth:`TableSource.locate`),
        ``find`` (answered by :meth:`TableSource.find`, PROTOCOL.md 11.15; both defaults read
        the view through :meth:`~TableSource.rows`: declare them when that is cheap, as for a
        table served from :meth:`~TableSource.all_rows`),
        ``where`` (``rows``, ``locate`` and ``find`` then get a last argument ``where``, PROTOCOL.md
        11.11), ``aggregate`` (answered by :meth:`aggregate`, 11.12), ``describe`` (answered by
        :meth:`statistics`, 11.13), ``query`` (answered by :meth:`query`, 11.14). Default: none
        (the host sorts; ``paging`` defaults to true).
        """
        return {}

    def open(self, args: dict[str, Any]) -> dict[str, Any] | None:
        """Handle ``open``: ``args`` is the tab's ``args`` from config.json.

        Return a table description, or ``None`` for :meth:`describe` of the plugin itself.
        A missing ``table`` member means :attr:`root_table`. Raise :class:`RpcError` with
        -32602 for bad args.
        """
        return None

    def children(self, table: str, row: str) -> Table:
        """Return the child :class:`Table` of ``row`` of the root table ``table``.

        Declare the ``children`` capability and mark rows with ``has_children=True``.
        Requests naming a child table's handle go to that :class:`Table` instead.
        """
        raise RpcError(NOT_SUPPORTED, "this plugin has no children")

    def aggregate(self, table: str, filter: Any, where: list[dict[str, Any]],
                  group: list[dict[str, Any]]) -> Table:
        """Handle ``aggregate`` (PROTOCOL.md 11.12) for the root table ``table``; declare the
        ``aggregate`` capability. ``filter`` and ``where`` as in :meth:`rows` (``where`` is
        ``[]`` without the ``where`` capability), ``group`` validated (see
        :func:`validate_group`). Return a :class:`Table` of the group counts: the SDK gives it a
        handle and routes requests to it as to a child table (``rows``, ``locate``, ``close``);
        its :meth:`~TableSource.describe` must add the members ``rows`` and ``largest`` (and
        ``bins`` when a column was binned). Requests about a child table go to its
        :meth:`Table.aggregate`."""
        raise RpcError(NOT_SUPPORTED, "this plugin cannot aggregate")

    def statistics(self, table: str, filter: Any, where: list[dict[str, Any]]) -> Table:
        """Handle ``describe`` (PROTOCOL.md 11.13) for the root table ``table``; declare the
        ``describe`` capability. (Named ``statistics`` because :meth:`~TableSource.describe` is
        the table description.) ``filter`` and ``where`` as in :meth:`aggregate`. Return a
        :class:`Table` with the columns of :func:`describe_columns` and one row per column of
        the table, the column's id as row id; its :meth:`~TableSource.describe` may add
        ``estimates`` (column ids of the approximate statistics). The SDK gives it a handle and
        closes it like a child table; requests about a child table go to its
        :meth:`Table.statistics`."""
        raise RpcError(NOT_SUPPORTED, "this plugin cannot describe its tables")

    def query(self, sql: str) -> Table:
        """Handle ``query`` (PROTOCOL.md 11.14); declare the ``query`` capability. A plugin that
        reads files may take a ``sources`` keyword too: the host's other files, a list of
        ``{"name", "path"}`` (checked), each to show as a read-only view ``name``. Run ``sql``
        (a non-empty string) read-only and return its result as a :class:`Table`, which the SDK
        gives a handle and closes like a child table. Raise ``RpcError(INVALID_PARAMS, message,
        {"position": n})`` for a query the engine refuses (``n``: the 1-based character offset
        in ``sql``, when known); long queries poll :meth:`check_cancelled` or stop the engine
        from :meth:`_cancel`."""
        raise RpcError(NOT_SUPPORTED, "this plugin cannot run queries")

    def action(self, table: str, action: str, rows: list[str]) -> dict[str, Any] | str | None:
        """Run ``action`` on the rows (ids) of the root table ``table``.

        The action id is already checked against :meth:`actions`, the rows against its
        ``rows`` (``[]`` for ``rows="none"``). A handler that declares a fourth parameter
        ``input`` receives the form's values (checked against the action's fields, defaults
        filled in). Return a dict with optional ``message`` and ``invalidate``, a message
        string, or ``None``; raise ``RpcError(ACTION_FAILED, "...")`` on failure. The host
        fetches the rows in view again after every action.
        """
        raise RpcError(NOT_SUPPORTED, "this plugin has no actions")

    def move(self, table: str, row: str, place: str, target: str) -> dict[str, Any] | str | None:
        """Move ``row`` of the root table just ``place`` ("before" or "after") ``target``, its
        neighbour in the view the user sees (``move`` request; :meth:`movable` must be True and
        the ``move`` capability declared). :func:`move_in_list` does it for a list of rows.
        Return like :meth:`action`; the host fetches the rows in view again."""
        raise RpcError(NOT_SUPPORTED, "the rows of this table cannot be moved")

    def close(self, table: str) -> None:
        """``close`` for a table handled by the plugin itself (not a child :class:`Table`)."""

    def on_shutdown(self) -> None:
        """Called on ``shutdown`` (before it is answered) and at the end of input: stop
        background threads here."""

    # ------------------------------------------------------------ notifications

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification to the host. Thread-safe; a no-op before :meth:`run`."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def badge(self, value: int | str | None) -> None:
        """Set the tab's badge: a number, a short string (cut to 4 characters), or ``None``."""
        self.notify("badge", {"value": value})

    def invalidate(self, table: str | None = None, rows: Sequence[str] | None = None,
                   total: int | None = _UNSET,
                   sections: Sequence[Mapping[str, Any]] | None = None) -> None:
        """Tell the host to refetch rows: the whole table, or only the given row ids.

        ``total`` (optional) announces the new row count (``None`` = unknown); ``sections``
        (optional) the table's sections as they are now, with new counts or footers
        (PROTOCOL.md 10.6, 12.2).
        """
        params: dict[str, Any] = {"table": table or self.root_table}
        if rows is not None:
            params["rows"] = [str(r) for r in rows]
        if total is not _UNSET:
            params["total"] = total
        if sections is not None:
            params["sections"] = [dict(s) for s in sections]
        self.notify("invalidate", params)

    def progress(self, done: int | float, total: int | float | None = None,
                 message: str | None = None) -> None:
        """Report progress of a long load; ``done == total`` ends it."""
        params: dict[str, Any] = {"done": done, "total": total}
        if message is not None:
            params["message"] = message
        self.notify("progress", params)

    def status(self, text: str) -> None:
        """Set the tab's status text."""
        self.notify("status", {"text": text})

    def log(self, message: str, level: str = "info") -> None:
        """Send a log line to the host (levels: debug, info, warning, error)."""
        if level not in LOG_LEVELS:
            raise ValueError(f"bad log level {level!r}")
        self.notify("log", {"level": level, "message": message})

    # ------------------------------------------------------------ cancellation

    def is_cancelled(self) -> bool:
        """True when the host cancelled the request that is being handled right now."""
        with self._state_lock:
            return self._current_id is not None and self._current_id in self._cancelled

    def check_cancelled(self) -> None:
        """Raise :class:`Cancelled` if the current request was cancelled (call it in loops)."""
        if self.is_cancelled():
            raise Cancelled()

    @property
    def shutting_down(self) -> bool:
        """True once ``shutdown`` was received."""
        return self._shutdown.is_set()

    # ------------------------------------------------------------ main loop

    def run(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
        """Serve the protocol until stdin ends; return the exit code (0).

        With no arguments the process's real stdin/stdout are used and stray writes to stdout
        are redirected to stderr (see the module docs). Pass binary streams to run in-process.
        Typical use: ``raise SystemExit(MyPlugin().run())``.
        """
        if stdout is None and not logging.getLogger().handlers and not log.handlers:
            level = getattr(logging, os.environ.get("TABDECK_LOG_LEVEL", "INFO").upper(), None)
            logging.basicConfig(stream=sys.stderr,
                                level=level if isinstance(level, int) else logging.INFO,
                                format=f"%(asctime)s {self.name} %(levelname)s %(message)s")
        if stdout is None:
            sys.stdout.flush()
            proto_fd = os.dup(1)
            os.dup2(2, 1)  # anything else writing to fd 1 now goes to the log
            sys.stdout = sys.stderr
            self._out = os.fdopen(proto_fd, "wb", buffering=0)
        else:
            self._out = stdout
        if stdin is None:
            fd = sys.stdin.fileno()

            def read_chunk() -> bytes:
                return os.read(fd, 1 << 16)
        else:
            reader = getattr(stdin, "read1", None) or stdin.read

            def read_chunk() -> bytes:
                return reader(1 << 16)

        worker = threading.Thread(target=self._work, name="tabdeck-worker", daemon=True)
        worker.start()
        try:
            for line in self._lines(read_chunk):
                self._receive(line)
        except KeyboardInterrupt:
            pass
        finally:
            self._queue.put(None)
            worker.join()
            if not self._shutdown.is_set():
                self._shutdown.set()
                self._safe_call(self.on_shutdown)
        return 0

    # ------------------------------------------------------------ internals: I/O

    def _lines(self, read_chunk: Callable[[], bytes]) -> Iterable[bytes]:
        """Split the byte stream into lines; discard (and report) lines over the limit."""
        buf = bytearray()
        discarding = False
        while True:
            try:
                chunk = read_chunk()
            except InterruptedError:
                continue
            except OSError as e:
                log.error("reading stdin failed: %s", e)
                chunk = b""
            if not chunk:
                if buf and not discarding:
                    yield bytes(buf)
                return
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                if nl < 0:
                    if not discarding:
                        buf += chunk[start:]
                        if len(buf) > MAX_LINE_BYTES:
                            buf.clear()
                            discarding = True
                    break
                if discarding:
                    discarding = False
                    self._too_long()
                else:
                    buf += chunk[start:nl]
                    if len(buf) > MAX_LINE_BYTES:
                        self._too_long()
                    else:
                        yield bytes(buf)
                    buf.clear()
                start = nl + 1

    def _too_long(self) -> None:
        log.error("discarded an input line longer than %d bytes", MAX_LINE_BYTES)
        self._send_error(None, RpcError(INVALID_REQUEST,
                                        f"message longer than {MAX_LINE_BYTES} bytes"))

    def _send(self, msg: dict[str, Any]) -> bool:
        data = encode_message(msg)
        if len(data) > MAX_LINE_BYTES:
            log.error("not sending a %d-byte message (limit %d)", len(data), MAX_LINE_BYTES)
            if "id" in msg and "method" not in msg:
                data = encode_message({"jsonrpc": "2.0", "id": msg["id"], "error": {
                    "code": INTERNAL_ERROR,
                    "message": f"response of {len(data)} bytes exceeds the line limit"}})
            else:
                return False
        with self._write_lock:
            if self._out is None or self._out_broken:
                return False
            try:
                self._out.write(data + b"\n")
                self._out.flush()
            except (BrokenPipeError, ValueError, OSError) as e:
                self._out_broken = True
                log.error("stdout closed: %s", e)
                return False
        return True

    def _send_result(self, id: Any, result: Any) -> None:
        self._send({"jsonrpc": "2.0", "id": id, "result": result})

    def _send_error(self, id: Any, err: RpcError) -> None:
        self._send({"jsonrpc": "2.0", "id": id, "error": err.to_json()})

    def _safe_call(self, fn: Callable[[], Any]) -> None:
        try:
            fn()
        except Exception:
            log.exception("error in %s", getattr(fn, "__name__", fn))

    # ------------------------------------------------------------ internals: dispatch

    def _receive(self, line: bytes) -> None:
        """Parse one line (reader thread) and queue it, or answer protocol errors at once."""
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            return
        try:
            msg = json.loads(line)
        except ValueError as e:  # includes UnicodeDecodeError
            self._send_error(None, RpcError(PARSE_ERROR, f"parse error: {e}"))
            return
        if not isinstance(msg, dict):
            self._send_error(None, RpcError(INVALID_REQUEST, "a message must be a JSON object"))
            return
        has_id = "id" in msg
        mid = msg.get("id")
        if has_id and (isinstance(mid, bool) or not isinstance(mid, (int, str))):
            self._send_error(None, RpcError(INVALID_REQUEST, "id must be an integer or string"))
            return
        method = msg.get("method")
        if method is None and has_id and ("result" in msg or "error" in msg):
            log.debug("ignoring a response from the host (id %r)", mid)
            return
        if not isinstance(method, str):
            if has_id:
                self._send_error(mid, RpcError(INVALID_REQUEST, "method must be a string"))
            else:
                self._send_error(None, RpcError(INVALID_REQUEST, "not a request"))
            return
        params = msg.get("params")
        if method == "$/cancel":
            self._cancel(params)
            if has_id:
                self._send_result(mid, None)
            return
        if has_id:
            with self._state_lock:
                self._pending.add(mid)
        self._queue.put(_Request(mid, method, params, has_id))

    def _cancel(self, params: Any) -> None:
        if not isinstance(params, dict) or "id" not in params:
            log.debug("ignoring $/cancel without id")
            return
        with self._state_lock:
            if params["id"] in self._pending:
                self._cancelled.add(params["id"])

    def _work(self) -> None:
        while True:
            req = self._queue.get()
            if req is None:
                return
            if req.is_request:
                with self._state_lock:
                    cancelled = req.id in self._cancelled
                    self._current_id = req.id
                try:
                    if cancelled:
                        raise Cancelled()
                    result = self._dispatch(req)
                except RpcError as e:
                    self._send_error(req.id, e)
                except Exception as e:
                    log.exception("%s failed", req.method)
                    self._send_error(req.id, RpcError(
                        INTERNAL_ERROR, f"{type(e).__name__}: {e}"))
                else:
                    self._send_result(req.id, result)
                finally:
                    with self._state_lock:
                        self._current_id = None
                        self._pending.discard(req.id)
                        self._cancelled.discard(req.id)
            else:
                try:
                    self._dispatch_notification(req)
                except Exception:
                    log.exception("notification %s failed", req.method)

    def _dispatch_notification(self, req: _Request) -> None:
        if req.method == "close":
            params = req.params if isinstance(req.params, dict) else {}
            self._close(params.get("table"))
        else:
            log.debug("ignoring notification %s", req.method)

    def _dispatch(self, req: _Request) -> Any:
        method = req.method
        if method == "initialize":
            return self._initialize(req.params)
        if method == "shutdown":
            return self._do_shutdown()
        if method == "close":  # a notification in v1; tolerate it as a request
            self._close(req.params.get("table") if isinstance(req.params, dict) else None)
            return None
        if method == "rows" and isinstance(req.params, dict) and req.params.get("stream") is True \
                and self._initialized:
            return self._stream_rows(req.id, req.params)
        handler = {"open": self._open, "rows": self._rows, "children": self._children,
                   "action": self._action, "move": self._move, "locate": self._locate,
                   "find": self._find,
                   "aggregate": self._aggregate, "describe": self._describe_columns,
                   "query": self._query}.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
        if not self._initialized:
            raise RpcError(INVALID_REQUEST, "initialize first")
        if req.params is None:
            params: dict[str, Any] = {}
        elif isinstance(req.params, dict):
            params = req.params
        else:
            raise RpcError(INVALID_PARAMS, "params must be an object")
        return handler(params)

    def _initialize(self, params: Any) -> dict[str, Any]:
        if params is not None and not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, "params must be an object")
        params = params or {}
        if self._initialized:
            raise RpcError(INVALID_REQUEST, "already initialized")
        host = params.get("host")
        caps = params.get("capabilities")
        self.host = host if isinstance(host, dict) else {}
        self.host_capabilities = caps if isinstance(caps, dict) else {}
        if params.get("protocolVersion") != PROTOCOL_VERSION:
            log.warning("host speaks protocol %r, this plugin speaks %d",
                        params.get("protocolVersion"), PROTOCOL_VERSION)
        self._initialized = True
        return {"name": self.name, "version": self.version,
                "protocolVersion": PROTOCOL_VERSION, "capabilities": dict(self.capabilities())}

    def _do_shutdown(self) -> None:
        if not self._shutdown.is_set():
            self._shutdown.set()
            self._safe_call(self.on_shutdown)
        return None

    def _caps(self) -> dict[str, Any]:
        return dict(self.capabilities())

    def _source(self, table: Any) -> TableSource:
        if not isinstance(table, str):
            raise RpcError(INVALID_PARAMS, "table must be a string")
        if self._opened and table == self.root_table:
            return self
        child = self._tables.get(table)
        if child is None:
            raise RpcError(UNKNOWN_TABLE, f"unknown table: {table}")
        return child

    @staticmethod
    def _check_description(desc: dict[str, Any]) -> None:
        cols = desc.get("columns")
        if not isinstance(cols, list) or not cols:
            raise RpcError(INTERNAL_ERROR, "plugin bug: a table needs at least one column")
        ids = [c.get("id") if isinstance(c, dict) else None for c in cols]
        if any(not isinstance(i, str) for i in ids) or len(set(ids)) != len(ids):
            raise RpcError(INTERNAL_ERROR, "plugin bug: column ids must be unique strings")

    def _open(self, params: dict[str, Any]) -> dict[str, Any]:
        args = params.get("args")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise RpcError(INVALID_PARAMS, "args must be an object")
        self.args = args
        desc = self.open(args)
        desc = dict(desc) if desc is not None else self.describe()
        if not isinstance(desc.get("table"), str):
            desc = {"table": self.root_table, **desc}
        self._check_description(desc)
        self.root_table = desc["table"]
        self._opened = True
        return desc

    def _rows(self, params: dict[str, Any]) -> dict[str, Any]:
        source = self._source(params.get("table"))
        offset = params.get("offset", 0)
        limit = params.get("limit")
        for name, value in (("offset", offset), ("limit", limit)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RpcError(INVALID_PARAMS, f"{name} must be a non-negative integer")
        columns = source.columns()
        sort, filt = self._order(params, columns)
        where = self._where(params, columns)
        got = source.rows(offset, limit, sort, filt) if where is None else \
            source.rows(offset, limit, sort, filt, where)
        sections = None
        if isinstance(got, tuple) and len(got) == 3:
            page, total, sections = got
        elif isinstance(got, tuple):
            page, total = got
        else:
            page, total = got, source.count()
        page = [self._check_row(r, len(columns)) for r in page]
        result: dict[str, Any] = {}
        if "generation" in params:
            result["generation"] = params["generation"]
        result.update({"offset": offset, "rows": page, "total": total})
        if sections is not None:
            result["sections"] = [dict(s) for s in sections]
        return self._fit(result)

    def _order(self, params: dict[str, Any], columns: list[dict[str, Any]]) -> tuple[list, Any]:
        """The validated sort and the filter of a ``rows``, ``locate`` or ``find`` request."""
        caps = self._caps()
        if caps.get("sort"):
            sort = validate_sort(params.get("sort"), columns)
            if len(sort) > 1 and not caps.get("multiSort"):
                sort = sort[:1]
        else:
            sort = []  # the host sorts; a sort sent anyway is ignored
        return sort, (params.get("filter") if caps.get("filter") else None)

    def _where(self, params: dict[str, Any], columns: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """The validated ``where`` of a request (``[]`` when absent), or ``None`` when the plugin
        does not declare the capability: its tables never get one."""
        if not self._caps().get("where"):
            return None
        return validate_where(params.get("where"), columns)

    def _locate(self, params: dict[str, Any]) -> dict[str, Any]:
        if not self._caps().get("locate"):
            raise RpcError(METHOD_NOT_FOUND, "method not found: locate (no locate capability)")
        source = self._source(params.get("table"))
        ids = params.get("rows")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise RpcError(INVALID_PARAMS, "rows must be a list of row ids (strings)")
        columns = source.columns()
        sort, filt = self._order(params, columns)
        where = self._where(params, columns)
        found = source.locate(ids, sort, filt) if where is None else source.locate(ids, sort, filt, where)
        return {"row": found[0], "offset": found[1]} if found else {"row": None}

    def _find(self, params: dict[str, Any]) -> dict[str, Any]:
        if not self._caps().get("find"):
            raise RpcError(METHOD_NOT_FOUND, "method not found: find (no find capability)")
        source = self._source(params.get("table"))
        text = params.get("text")
        if not isinstance(text, str) or not text:
            raise RpcError(INVALID_PARAMS, "text must be a non-empty string")
        from_ = params.get("from")
        if isinstance(from_, bool) or not isinstance(from_, int) or from_ < 0:
            raise RpcError(INVALID_PARAMS, "from must be a non-negative integer")
        flags = {}
        for name in ("backward", "wrap"):
            value = params.get(name, False)
            if not isinstance(value, bool):
                raise RpcError(INVALID_PARAMS, f"{name} must be true or false")
            flags[name] = value
        columns = source.columns()
        sort, filt = self._order(params, columns)
        where = self._where(params, columns)
        if where is None:
            found = source.find(text, from_, flags["backward"], flags["wrap"], sort, filt)
        else:
            found = source.find(text, from_, flags["backward"], flags["wrap"], sort, filt, where)
        result: dict[str, Any] = {}
        if "generation" in params:
            result["generation"] = params["generation"]
        offset = found.get("offset") if found else None
        result.update({"offset": offset, "row": str(found["row"]) if offset is not None else None,
                       "wrapped": bool(found.get("wrapped")) if offset is not None else False})
        return result

    # Streaming (``paging: False`` plugins, protocol section 11.3.1). Kept in functions of their
    # own: a plugin that declares ``{"paging": False}`` gets ``rows`` with ``stream: true`` and
    # answers with ``rows/chunk`` notifications, then the result with the total.

    STREAM_CHUNK = 1000
    """Rows per ``rows/chunk`` notification."""

    def _stream_rows(self, id: Any, params: dict[str, Any]) -> dict[str, Any]:
        """Sends every row of the table (:meth:`stream_source_rows`) as ``rows/chunk``
        notifications naming request ``id``, then returns the final result."""
        source = self._source(params.get("table"))
        ncols = len(source.columns())
        sent, chunk, last_progress = 0, [], time.monotonic()
        for r in stream_source_rows(source):
            chunk.append(self._check_row(r, ncols))
            if len(chunk) >= self.STREAM_CHUNK:
                self.check_cancelled()
                self.notify("rows/chunk", {"id": id, "rows": chunk})
                sent += len(chunk)
                chunk = []
                if time.monotonic() - last_progress > 1.0:  # keeps the host's request timer alive
                    self.progress(sent, None, "streaming")
                    last_progress = time.monotonic()
        result: dict[str, Any] = {}
        if "generation" in params:
            result["generation"] = params["generation"]
        result.update({"offset": 0, "rows": chunk, "total": sent + len(chunk)})
        return result

    @staticmethod
    def _check_row(r: Any, ncols: int) -> dict[str, Any]:
        if not isinstance(r, dict) or "cells" not in r or "id" not in r:
            raise RpcError(INTERNAL_ERROR, f"plugin bug: a row needs id and cells: {r!r:.200}")
        if len(r["cells"]) != ncols:
            raise RpcError(INTERNAL_ERROR, f"plugin bug: row {r['id']!r} has "
                                           f"{len(r['cells'])} cells for {ncols} columns")
        if not isinstance(r["id"], str):
            r = {**r, "id": str(r["id"])}
        return r

    def _fit(self, result: dict[str, Any]) -> dict[str, Any]:
        """Shorten a rows page so the response line stays under the limit (when total is known,
        the host asks again for the rest)."""
        rows = result["rows"]
        if len(encode_message(result)) + 64 <= MAX_LINE_BYTES:
            return result
        if result.get("total") is None or len(rows) <= 1:
            raise RpcError(INTERNAL_ERROR, "page too large for one line; ask for fewer rows")
        lo, hi = 1, len(rows)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if len(encode_message({**result, "rows": rows[:mid]})) + 64 <= MAX_LINE_BYTES:
                lo = mid
            else:
                hi = mid - 1
        if len(encode_message({**result, "rows": rows[:lo]})) + 64 > MAX_LINE_BYTES:
            raise RpcError(INTERNAL_ERROR, "a single row is too large for one line")
        return {**result, "rows": rows[:lo]}

    def _row_id(self, params: dict[str, Any]) -> str:
        r = params.get("row")
        if isinstance(r, bool) or not isinstance(r, (str, int)):
            raise RpcError(INVALID_PARAMS, "row must be a row id")
        return str(r)

    def _register(self, child: Any, what: str = "children()") -> dict[str, Any]:
        if not isinstance(child, Table):
            raise RpcError(INTERNAL_ERROR, f"plugin bug: {what} must return a Table")
        handle = f"t{self._next_handle}"
        self._next_handle += 1
        desc = {"table": handle, **child.describe()}
        self._check_description(desc)
        self._tables[handle] = child
        child.handle = handle
        return desc

    def _children(self, params: dict[str, Any]) -> dict[str, Any]:
        source = self._source(params.get("table"))
        row_id = self._row_id(params)
        if source is self:
            if not self._caps().get("children"):
                raise RpcError(NOT_SUPPORTED, "this plugin has no children")
            child = self.children(params["table"], row_id)
        else:
            assert isinstance(source, Table)
            child = source.children(row_id)
        return self._register(child)

    def _aggregate(self, params: dict[str, Any]) -> dict[str, Any]:
        """``aggregate`` (11.12): the source's group counts, registered as a table of their own
        (a handle, ``rows``, ``locate``, ``close``) the way a child table is."""
        if not self._caps().get("aggregate"):
            raise RpcError(METHOD_NOT_FOUND, "method not found: aggregate (no aggregate capability)")
        source = self._source(params.get("table"))
        columns = source.columns()
        filt = params.get("filter") if self._caps().get("filter") else None
        where = self._where(params, columns) or []
        group = validate_group(params.get("group"), columns)
        if source is self:
            derived = self.aggregate(params["table"], filt, where, group)
        else:
            assert isinstance(source, Table)
            derived = source.aggregate(filt, where, group)
        desc = self._register(derived, "aggregate()")
        for member in ("rows", "largest"):
            value = desc.get(member)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                self._tables.pop(desc["table"], None)
                self._safe_call(derived.close)
                raise RpcError(INTERNAL_ERROR, f"plugin bug: an aggregate table's description needs "
                                               f"{member} (an integer >= 0)")
        return desc

    def _drop(self, desc: dict[str, Any], derived: Table, problem: str) -> RpcError:
        """Unregisters and closes a derived table whose description is wrong (a plugin bug)."""
        self._tables.pop(desc["table"], None)
        self._safe_call(derived.close)
        return RpcError(INTERNAL_ERROR, f"plugin bug: {problem}")

    def _describe_columns(self, params: dict[str, Any]) -> dict[str, Any]:
        """``describe`` (11.13): the source's column statistics, one row per column, registered
        as a table of their own like an aggregate's counts."""
        if not self._caps().get("describe"):
            raise RpcError(METHOD_NOT_FOUND, "method not found: describe (no describe capability)")
        source = self._source(params.get("table"))
        columns = source.columns()
        filt = params.get("filter") if self._caps().get("filter") else None
        where = self._where(params, columns) or []
        if source is self:
            derived = self.statistics(params["table"], filt, where)
        else:
            assert isinstance(source, Table)
            derived = source.statistics(filt, where)
        desc = self._register(derived, "statistics()")
        ids = [c.get("id") for c in desc["columns"]]
        if ids != [c[0] for c in DESCRIBE_COLUMNS]:
            raise self._drop(desc, derived, "a describe table's columns must be those of describe_columns()")
        estimates = desc.get("estimates")
        if estimates is not None and (not isinstance(estimates, list) or any(e not in ids for e in estimates)):
            raise self._drop(desc, derived, "a describe table's estimates must be a list of its column ids")
        return desc

    def _query(self, params: dict[str, Any]) -> dict[str, Any]:
        """``query`` (11.14): a read-only SQL query's result, registered as a table of its own."""
        if not self._caps().get("query"):
            raise RpcError(METHOD_NOT_FOUND, "method not found: query (no query capability)")
        sql = params.get("sql")
        if not isinstance(sql, str) or not sql.strip():
            raise RpcError(INVALID_PARAMS, "sql must be a non-empty string (the query)")
        sources = params.get("sources") or []
        names: set[str] = set()
        for i, s in enumerate(sources if isinstance(sources, list) else [None]):
            if not (isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("path"), str)
                    and re.fullmatch(r"[a-z_][a-z0-9_]*", s["name"]) and s["name"] not in names
                    and s["path"].startswith("/")):
                raise RpcError(INVALID_PARAMS, f"sources[{i}] must be {{name, path}}: a unique SQL-safe name "
                                               "([a-z_][a-z0-9_]*) and an absolute path", {"field": f"sources[{i}]"})
            names.add(s["name"])
        # Only a plugin whose query() takes `sources` gets them (the host's other files, 11.14).
        if sources and "sources" in inspect.signature(self.query).parameters:
            return self._register(self.query(sql, sources=[{"name": s["name"], "path": s["path"]} for s in sources]),
                                  "query()")
        return self._register(self.query(sql), "query()")

    def _action(self, params: dict[str, Any]) -> dict[str, Any]:
        source = self._source(params.get("table"))
        act = params.get("action")
        rows = params.get("rows")
        if not isinstance(act, str):
            raise RpcError(INVALID_PARAMS, "action must be a string")
        if not isinstance(rows, list) or any(
                isinstance(r, bool) or not isinstance(r, (str, int)) for r in rows):
            raise RpcError(INVALID_PARAMS, "rows must be a list of row ids")
        rows = [str(r) for r in rows]
        spec = next((a for a in source.actions() if a.get("id") == act), None)
        if spec is None:
            raise RpcError(INVALID_PARAMS, f"unknown action: {act}")
        kind = spec.get("rows") or ("many" if spec.get("multiple") else "one")
        if kind == "none":
            rows = []
        elif len(rows) > 1 and kind != "many":
            raise RpcError(INVALID_PARAMS, f"action {act} applies to one row at a time")
        args: list[Any] = [act, rows]
        handler = source.action
        if source is self:
            args.insert(0, params["table"])
        values = validate_input(spec, params.get("input"))
        if _takes_input(handler, len(args)):
            args.append(values)  # {} for an action without a form
        return self._outcome(handler(*args))

    def _move(self, params: dict[str, Any]) -> dict[str, Any]:
        source = self._source(params.get("table"))
        row_id = self._row_id(params)
        before, after = params.get("before"), params.get("after")
        if (before is None) == (after is None) or not isinstance(before if after is None else after, (str, int)):
            raise RpcError(INVALID_PARAMS, "move needs exactly one of before and after (a row id)")
        place, target = ("before", str(before)) if after is None else ("after", str(after))
        if not self._caps().get("move") or not source.movable():
            raise RpcError(NOT_SUPPORTED, "the rows of this table cannot be moved")
        if source is self:
            return self._outcome(self.move(params["table"], row_id, place, target))
        assert isinstance(source, Table)
        return self._outcome(source.move(row_id, place, target))

    @staticmethod
    def _outcome(result: Any) -> dict[str, Any]:
        if result is None:
            return {}
        if isinstance(result, str):
            return {"message": result}
        return dict(result)

    def _close(self, table: Any) -> None:
        if not isinstance(table, str):
            return
        child = self._tables.pop(table, None)
        if child is not None:
            self._safe_call(child.close)
        elif table == self.root_table:
            self._safe_call(lambda: self.close(table))
