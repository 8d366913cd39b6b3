#!/usr/bin/env python3
"""Tabdeck's DuckDB plugin: Parquet, CSV/TSV, JSON lines, JSON arrays, Arrow IPC/Feather and
Excel workbooks, plain or compressed (gzip, zstd, bzip2, xz), browsed through DuckDB.

Sort, filter, `where`, paging, totals, `locate`, `find`, `aggregate` (group counts, bins), `describe`
(column statistics) and `query` (the user's read-only SQL) all run as SQL in DuckDB. A Parquet file is queried where it lies (a view with its row number); the other
formats are loaded once into a DuckDB table (in memory, or in a temporary database file when
big; big text files show their first pages while they load). Nothing is ever downloaded:
DuckDB's extension autoloading and autoinstalling are off. README.md beside this file has the
formats, the type mapping and the args.

args: {"path": FILE, "format": "csv|tsv|parquet|jsonl|json|arrow|xlsx" (optional), "sheet": NAME}
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import os
from collections import OrderedDict
from fractions import Fraction
import re
import shutil
import sys
import tempfile
import threading
import time
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sdk", "python"))

import duckdb  # noqa: E402

import sniff  # noqa: E402
from duck_find import answer_find, find_sql  # noqa: E402
from tabdeck_plugin import (  # noqa: E402
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, NOT_SUPPORTED, Cancelled, RpcError, Table, TablePlugin,
    describe_columns, parse_cell, row)

VERSION = "1.0.0"
MAX_SAFE_INT = 2 ** 53  # larger integers travel as their exact digits (PROTOCOL 10.3)
TEMP_PREFIX = "tabdeck-duckdb-"
# Sorted pages ending deeper than this come from the whole order, made once (env: tests).
TOP_N_ROWS = int(os.environ.get("TABDECK_DUCKDB_TOP_N_ROWS", 10_000))
IN_MEMORY_BYTES = 1 << 30  # files (decompressed, estimated) up to this size are loaded in memory
# Text files bigger than this show their first pages while they load (TABDECK_DUCKDB_EARLY_BYTES: tests).
EARLY_BYTES = int(os.environ.get("TABDECK_DUCKDB_EARLY_BYTES", 16 << 20))


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Params:
    """The parameters of one statement: `p(value)` adds one and returns its `$n` (never a value
    pasted into the SQL)."""

    def __init__(self, values: list[Any] | None = None) -> None:
        self.values: list[Any] = list(values or [])

    def __call__(self, value: Any) -> str:
        self.values.append(value)
        return f"${len(self.values)}"


# The range of each integer type: a `where` value beyond it compares without a cast (that would fail).
INT_BOUNDS = {"tinyint": 7, "smallint": 15, "integer": 31, "bigint": 63, "hugeint": 127}
UINT_BOUNDS = {"utinyint": 8, "usmallint": 16, "uinteger": 32, "ubigint": 64, "uhugeint": 128}
DATE_UNITS = ("hour", "day", "month", "year")


def beyond(op: str, above: bool, notnull: str) -> str:
    """A comparison with a value above (or below) every value of the column: true for every
    cell that is not null, or for none."""
    holds = op in (("<", "<=", "!=") if above else (">", ">=", "!="))
    return notnull if holds else "FALSE"


def grid_compare(expr: str, op: str, floor: Any, ceil: Any, on_grid: bool, low: Any, high: Any,
                 literal: Callable[[Any], str], notnull: str) -> str:
    """`expr op v` for a column whose values lie on a grid (a decimal's scale, whole days),
    exactly: `floor`/`ceil` are v rounded down/up to the grid (equal when v is on it), `low` and
    `high` the column type's range (None: unbounded). c < v is c < ceil(v), c <= v is
    c <= floor(v), and so on; nothing off the grid is equal to v."""
    def cmp(o: str, g: Any) -> str:
        if high is not None and g > high:
            return beyond(o, True, notnull)
        if low is not None and g < low:
            return beyond(o, False, notnull)
        return f"{expr} {o} {literal(g)}"
    if op == "=":
        return cmp("=", floor) if on_grid else "FALSE"
    if op == "!=":
        return cmp("!=", floor) if on_grid else notnull
    return cmp(op, ceil if op in ("<", ">=") else floor)


def nice_width(low: decimal.Decimal, high: decimal.Decimal, bins: int, integer: bool) -> decimal.Decimal:
    """The bin width of PROTOCOL 11.12: the smallest of 1, 2, 2.5 and 5 times a power of ten that
    is at least (high - low) / bins; on an integer column at least 1 and whole."""
    target = (Fraction(high) - Fraction(low)) / bins
    if target <= 0 or (integer and target <= 1):  # 0: one finite value among NaN and infinities
        return decimal.Decimal(1)
    with decimal.localcontext() as ctx:
        ctx.prec = 200
        k = (high - low).adjusted() - len(str(bins)) - 1  # below the answer's power of ten
    while True:
        for m in ("1", "2", "2.5", "5"):
            w = decimal.Decimal(m).scaleb(k)
            if integer and (w < 1 or w != w.to_integral_value()):
                continue
            if Fraction(w) >= target:
                return w
        k += 1


def decimal_text(d: decimal.Decimal) -> str:
    return format(d.normalize(), "f")


def fraction_text(f: Fraction) -> str:
    """An exact number with a finite decimal expansion (a percentile between two numbers) as
    its shortest decimal text."""
    with decimal.localcontext() as ctx:
        ctx.prec = 200
        return decimal_text(decimal.Decimal(f.numerator) / decimal.Decimal(f.denominator))


def _cell_text(v: Any) -> str | None:
    """A cell (or a value of the cell's text) as the text of a describe table."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    return str(v)


def date_text(us: Any, day: bool) -> str | None:
    """Microseconds since 1970 UTC as ISO 8601: a date alone on a DATE column when it is a
    midnight, else the instant in UTC (2024-03-31T01:30:00Z)."""
    if us is None:
        return None
    t = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=int(us))
    if day and t.time() == dt.time(0):
        return t.date().isoformat()
    return t.replace(tzinfo=None).isoformat() + "Z"


def progress_while(plugin: "DuckPlugin", message: str, work: Callable[[], Any]) -> Any:
    """Runs long work while sending `progress` every second (it keeps the host's timer)."""
    done = threading.Event()
    start = time.monotonic()

    def tick() -> None:
        while not done.wait(1.0):
            plugin.progress(round(time.monotonic() - start, 1), None, message)

    threading.Thread(target=tick, daemon=True).start()
    try:
        return work()
    finally:
        done.set()


# --------------------------------------------------------------------------- columns

class Column:
    """One column: its protocol description and the SQL that shows, sorts and filters it.

    `name` is its SQL name in the source relation (c0, c1, ...); `select` the expression whose
    Python value becomes the cell after `convert`; `sort` what ORDER BY uses; `text` the cell's
    text for the filter (PROTOCOL 11.3)."""

    def __init__(self, index: int, cid: str, dtype: Any) -> None:
        self.name = f"c{index}"
        self.id = cid
        self.dtype = dtype
        self.duck_type = str(dtype)
        c = self.name
        kind = self.kind = dtype.id
        self.desc: dict[str, Any] = {"id": cid, "title": cid}
        self.select, self.sort, self.convert = c, c, _raw
        text: str | None = None
        ptype = "text"
        if kind == "boolean":
            ptype = "bool"
        elif kind in ("tinyint", "smallint", "integer", "bigint", "utinyint", "usmallint",
                      "uinteger", "ubigint", "hugeint", "uhugeint"):
            ptype, self.convert = "integer", _integer
        elif kind in ("bignum", "varint"):
            ptype, self.select = "integer", f"CAST({c} AS VARCHAR)"
        elif kind in ("double", "float"):
            ptype = "decimal"
            if kind == "float":  # its shortest text (0.1, not 0.10000000149011612)
                self.select, self.convert = f"CAST({c} AS VARCHAR)", _float_text
            else:
                self.convert = _float
            text = (f"CASE WHEN isnan({c}) THEN 'NaN' WHEN isinf({c}) THEN "
                    f"(CASE WHEN {c} > 0 THEN 'Infinity' ELSE '-Infinity' END) "
                    f"ELSE CAST({c} AS VARCHAR) END")
        elif kind == "decimal":
            ptype, self.select = "decimal", f"CAST({c} AS VARCHAR)"  # exact digits and scale
            scale = dict(dtype.children).get("scale")
            if isinstance(scale, int) and 0 <= scale <= 15:
                self.desc["decimals"] = scale
        elif kind in ("date", "timestamp with time zone"):
            ptype, self.select = "date", f"CAST({c} AS VARCHAR)"  # 2024-05-01, 2024-05-01 09:30:00+00
        elif kind.startswith("timestamp"):
            # A timestamp without a zone is no protocol date (10.3 wants a zone): its ISO text,
            # which sorts as the timestamp does (years 1000 to 9999).
            self.select = f"CAST({c} AS VARCHAR)"
        elif kind == "enum":
            ptype, self.select = "enum", f"CAST({c} AS VARCHAR)"
            self.desc["values"] = list(dict(dtype.children).get("values") or [])
        elif kind == "varchar":
            pass
        elif kind == "blob":
            self.select = f"hex({c})"  # byte order is the order of the hex text
        elif kind in ("uuid", "time"):
            self.select = f"CAST({c} AS VARCHAR)"  # both sort as their text does
        elif kind in ("list", "array", "struct", "map", "union"):
            # Compact JSON text, sorted as that text: the protocol's text order, and faster to
            # sort than DuckDB's nested values (3.7 s against 5.8 s for 1M lists).
            self.select = self.sort = f"CAST(to_json({c}) AS VARCHAR)"
        else:  # interval, time with time zone, bit, anything newer
            self.select = f"CAST({c} AS VARCHAR)"
            self.desc["order"] = "source"
        self.desc["type"] = ptype
        if ptype in ("integer", "decimal"):
            self.desc["align"] = "right"
        self.text = text or (self.select if self.select != c or kind == "varchar" else f"CAST({c} AS VARCHAR)")

    def compare(self, op: str, value: Any, p: Params) -> str:
        """SQL for `cell op value` (PROTOCOL 11.11), in the column's sort order, exactly: the
        value (checked by the SDK) as a parameter cast to the column's own type, so that DuckDB
        compares like with like (a DECIMAL exactly, an ENUM by position, a date by instant)."""
        c, kind, ptype = self.name, self.kind, self.desc["type"]
        notnull = f"{c} IS NOT NULL"
        v = parse_cell(value, self.desc)
        if ptype == "bool":
            return f"{c} {op} {p(v)}"
        if ptype == "enum":  # the position in the declared values, as the sort
            return f"enum_code({c}) {op} {p(v)}"
        if ptype == "integer":
            if kind in INT_BOUNDS or kind in UINT_BOUNDS:
                bits = INT_BOUNDS.get(kind)
                low, high = (-(2 ** bits), 2 ** bits - 1) if bits else (0, 2 ** UINT_BOUNDS[kind] - 1)
                return grid_compare(c, op, v, v, True, low, high,
                                    lambda g: f"CAST({p(str(g))} AS {self.duck_type})", notnull)
            return f"{c} {op} CAST({p(str(v))} AS {self.duck_type})"
        if ptype == "decimal":
            if kind != "decimal":  # DOUBLE, FLOAT: compared in the column's own type (NaN the largest)
                return f"{c} {op} CAST({p(str(v))} AS {'FLOAT' if kind == 'float' else 'DOUBLE'})"
            if not v.is_finite():  # NaN and Infinity above every DECIMAL, -Infinity below
                return beyond(op, v.is_nan() or v > 0, notnull)
            spec = dict(self.dtype.children)
            width, scale = int(spec["precision"]), int(spec["scale"])
            step = decimal.Decimal(1).scaleb(-scale)
            with decimal.localcontext() as ctx:
                ctx.prec = 200
                limit = decimal.Decimal(10) ** (width - scale)
                if v >= limit or v <= -limit:
                    return beyond(op, v > 0, notnull)
                floor = v.quantize(step, decimal.ROUND_FLOOR)
                ceil = v.quantize(step, decimal.ROUND_CEILING)
                high = limit - step
            return grid_compare(c, op, floor, ceil, floor == v, -high, high,
                                lambda g: f"CAST({p(format(g, 'f'))} AS DECIMAL({width},{scale}))", notnull)
        if ptype == "date":
            if kind == "date":  # whole days: an instant inside a day lies between two of them
                day = v.date()
                on_grid = v.timetz().replace(tzinfo=None) == dt.time(0)
                ceil = day if on_grid else day + dt.timedelta(days=1)
                return grid_compare(c, op, day, ceil, on_grid, None, None,
                                    lambda g: f"CAST({p(g.isoformat())} AS DATE)", notnull)
            return f"{c} {op} CAST({p(v.isoformat(sep=' '))} AS TIMESTAMPTZ)"
        if self.desc.get("order") == "source" and op not in ("=", "!="):
            return f"{c} {op} CAST({p(v)} AS {self.duck_type})"  # an interval by its length, ...
        return f"{self.text} {op} {p(v)}"  # text: exact, in code point order (DuckDB's binary collation)


def _raw(v: Any) -> Any:
    return v


def _integer(v: Any) -> Any:
    if v is None or -MAX_SAFE_INT <= v <= MAX_SAFE_INT:
        return v
    return str(v)


def _float(v: Any) -> Any:
    if v is None:
        return None
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def _float_text(v: Any) -> Any:
    if v is None:
        return None
    low = v.lower()
    if low == "nan":
        return "NaN"
    if low in ("inf", "infinity", "-inf", "-infinity"):
        return "-Infinity" if low.startswith("-") else "Infinity"
    return _float(float(v))


def unique_ids(names: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for i, name in enumerate(names):
        base = name if name else f"column{i + 1}"
        cid, n = base, 2
        while cid in seen:
            cid, n = f"{base}_{n}", n + 1
        seen.add(cid)
        out.append(cid)
    return out


# --------------------------------------------------------------------------- a table in DuckDB

class Relation:
    """A table of the plugin: a DuckDB relation `source` with columns c0, c1, ... and a row id
    `rid` (0, 1, 2, ... in the file's order, so the natural order is ORDER BY rid), browsed in SQL."""

    _order_tables = 0

    def __init__(self, db: "Database", source: str, names: list[str], types: list[Any], title: str,
                 has_children: bool = False) -> None:
        self.db = db
        self.source = source
        self.title = title
        self.has_children = has_children
        self.cols = [Column(i, cid, t) for i, (cid, t) in enumerate(zip(unique_ids(names), types))]
        self.by_id = {c.id: c for c in self.cols}
        self._totals: dict[str | None, int] = {}
        self._orders: OrderedDict[tuple, str] = OrderedDict()  # deep pages' orders (_ordered)
        # While a big text file loads (Loader.early_text): not ready, pages in the file's order
        # come from `early_scan`; everything else waits.
        self.ready = threading.Event()
        self.ready.set()
        self.early_scan = ""
        self.early_names: list[str] = []
        self.load_error: RpcError | None = None
        # The load starts once the first page is out (or something waits for it, or 2 s
        # passed): on two cores the first page then does not share them with the load.
        self.go = threading.Event()
        # Row ids other than the rids (a describe table: the column ids), by rid.
        self.ids: list[str] | None = None

    def wait(self) -> None:
        """Until the table is loaded, with `progress` every second (the request's timer)."""
        self.go.set()
        start = time.monotonic()
        while not self.ready.wait(1.0):
            self.db.plugin.check_cancelled()
            if self.db.plugin.input_ended.is_set():
                raise Cancelled("the host has gone")
            self.db.plugin.progress(round(time.monotonic() - start, 1), None, f"reading {self.title}")
        if self.load_error is not None:
            raise self.load_error

    def columns(self) -> list[dict[str, Any]]:
        return [c.desc for c in self.cols]

    def describe(self) -> dict[str, Any]:
        return {"title": self.title, "columns": self.columns(), "total": self.count(None)}

    # -- SQL pieces

    def _conditions(self, text: Any, where: list[dict[str, Any]] | None) -> tuple[str, list[Any]]:
        """`WHERE` condition (or "") and its parameters: the filter (some cell's text contains
        `text`, letter case folded by DuckDB's lower() on both sides, PROTOCOL 11.3) and every
        condition of `where` (11.11, checked by the SDK), all AND-ed."""
        p = Params()
        parts = []
        if isinstance(text, str) and text != "":
            parts.append(self._contains(p(text)))
        for i, cond in enumerate(where or []):
            parts.append("(" + self._condition(i, cond, p) + ")")
        return " AND ".join(parts), p.values

    def _contains(self, needle: str) -> str:
        """Some cell's text contains the parameter `needle`, ignoring case (PROTOCOL 11.3)."""
        return "(" + " OR ".join(f"contains(lower({c.text}), lower({needle}))" for c in self.cols) + ")"

    def _condition(self, i: int, cond: dict[str, Any], p: Params) -> str:
        col = self.by_id.get(cond["column"])
        if col is None:
            raise RpcError(INVALID_PARAMS, f"where[{i}].column: unknown column {cond['column']!r}",
                           {"member": f"where[{i}].column"})
        op = cond["op"]
        if op == "null":
            return f"{col.name} IS NULL"
        if op == "notNull":
            return f"{col.name} IS NOT NULL"
        values = cond["values"] if op in ("between", "in") else [cond["value"]]
        if col.desc.get("order") == "source" and op not in ("=", "!=", "in"):  # compared as DuckDB's type
            for j, v in enumerate(values):
                if self.db.query(f"SELECT TRY_CAST($1 AS {col.duck_type}) IS NULL", [v])[0][0]:
                    member = f"where[{i}].value" if op != "between" else f"where[{i}].values[{j}]"
                    raise RpcError(INVALID_PARAMS, f"{member}: {json.dumps(v, ensure_ascii=False)} is not "
                                   f"a value of type {col.duck_type}", {"member": member})
        if op == "between":
            return f"{col.compare('>=', values[0], p)} AND {col.compare('<=', values[1], p)}"
        if op == "in":
            return " OR ".join(col.compare("=", v, p) for v in values)
        return col.compare(op, values[0], p)

    def _terms(self, sort: list[dict[str, str]]) -> list[tuple[str, bool]]:
        """(expression, descending) per key, then the row id in the last key's direction, so
        that a descending order is the exact reverse of the ascending one."""
        terms: list[tuple[str, bool]] = []
        used: set[str] = set()
        for i, key in enumerate(sort):
            col = self.by_id.get(key["column"])
            if col is None:
                raise RpcError(INVALID_PARAMS, f"params.sort[{i}].column: unknown column {key['column']!r}",
                               {"column": key["column"]})
            if col.id in used:
                continue
            used.add(col.id)
            terms.append((col.sort, key["direction"] == "desc"))
        terms.append(("rid", terms[-1][1] if terms else False))
        return terms

    @staticmethod
    def _order_by(terms: list[tuple[str, bool]]) -> str:
        # Nulls are the smallest value (PROTOCOL 11.3, the columns declare no `nulls`).
        return ", ".join(f"{e} DESC NULLS LAST" if d else f"{e} ASC NULLS FIRST" for e, d in terms)

    # -- requests

    def count(self, filter: Any, where: list[dict[str, Any]] | None = None) -> int | None:
        if not (isinstance(filter, str) and filter) and not where and not self.ready.is_set():
            return None  # still loading: unknown
        self.wait()
        cond, params = self._conditions(filter, where)
        key = (cond, tuple(params)) if cond else None
        if key not in self._totals:
            sql = f"SELECT count(*) FROM {self.source}" + (f" WHERE {cond}" if cond else "")
            self._totals[key] = int(self.db.query(sql, params)[0][0])
        return self._totals[key]

    def rows(self, offset: int, limit: int, sort: list[dict[str, str]], filter: Any,
             where_list: list[dict[str, Any]] | None = None) -> tuple[list, int]:
        terms = self._terms(sort)
        if (not self.ready.is_set() and not (isinstance(filter, str) and filter) and not where_list
                and len(terms) == 1 and not terms[0][1]):
            return self.early_rows(offset, limit)
        self.wait()
        where, params = self._conditions(filter, where_list)
        select = ", ".join(["rid"] + [c.select for c in self.cols])
        if not where and len(terms) == 1 and not terms[0][1]:
            # the natural order: row ids are 0 .. n-1, so a page is a range of them
            sql = (f"SELECT {select} FROM {self.source} WHERE rid >= {int(offset)} "
                   f"AND rid < {int(offset) + int(limit)} ORDER BY rid")
            got = self.db.query(sql, params)
        else:
            # Two steps: the page's row ids, in order, from the sort keys alone (the other
            # columns are not read for every row), then those rows. Near the top, DuckDB's top-N;
            # deeper, the whole order once (then every page of it is a range of positions).
            ordered = self._ordered(where, params, terms) if offset + limit > TOP_N_ROWS else None
            if ordered:
                sql = (f"SELECT rid FROM {ordered} WHERE pos >= {int(offset)} AND pos < {int(offset) + int(limit)} "
                       "ORDER BY pos")
                params = []
            else:
                sql = (f"SELECT rid FROM {self.source}" + (f" WHERE {where}" if where else "")
                       + f" ORDER BY {self._order_by(terms)} LIMIT {int(limit)} OFFSET {int(offset)}")
            ids = [r[0] for r in self.db.query(sql, params)]
            got = []
            if ids:
                fetched = self.db.query(f"SELECT {select} FROM {self.source} WHERE rid IN "
                                        f"({', '.join(str(int(i)) for i in ids)})")
                by_id = {r[0]: r for r in fetched}
                got = [by_id[i] for i in ids]
        convert = [c.convert for c in self.cols]
        out = []
        for r in got:
            cells = [f(v) for f, v in zip(convert, r[1:])]
            rid = self.ids[r[0]] if self.ids is not None else r[0]
            out.append(row(rid, cells, has_children=True if self.has_children else None))
        return out, self.count(filter, where_list)

    def _ordered(self, where: str, params: list[Any], terms: list[tuple[str, bool]]) -> str:
        """A temporary table of (rid, pos) in this order and filter, made once and kept for the
        last two orders asked deep into the table."""
        key = (where, tuple(params), tuple(terms))
        if key in self._orders:
            self._orders.move_to_end(key)
            return self._orders[key]
        Relation._order_tables += 1
        name = f"order{Relation._order_tables}"
        self.db.query(f"CREATE TEMP TABLE {name} AS SELECT rid, (row_number() OVER (ORDER BY "
                      f"{self._order_by(terms)}) - 1) AS pos FROM {self.source}"
                      + (f" WHERE {where}" if where else "") + " ORDER BY pos", params)
        self._orders[key] = name
        while len(self._orders) > 2:
            _, old = self._orders.popitem(last=False)
            self.db.query(f"DROP TABLE IF EXISTS {old}")
        return name

    def early_rows(self, offset: int, limit: int) -> tuple[list, None]:
        """A page in the file's order read straight from the file (its row ids: positions)."""
        inner = ", ".join(f"{quote_ident(n)} AS c{i}" for i, n in enumerate(self.early_names))
        select = ", ".join(c.select for c in self.cols)
        try:
            got = self.db.query(f"SELECT {select} FROM (SELECT {inner} FROM {self.early_scan} "
                                f"LIMIT {int(limit)} OFFSET {int(offset)})")
        finally:
            self.go.set()
        convert = [c.convert for c in self.cols]
        return [row(offset + i, [f(v) for f, v in zip(convert, r)]) for i, r in enumerate(got)], None

    def locate(self, ids: list[str], sort: list[dict[str, str]], filter: Any,
               where_list: list[dict[str, Any]] | None = None) -> tuple[str, int] | None:
        """The offset of a row = the number of rows before it in this order and filter: one
        counting scan, with the row's own key values beside every row (no sort of the table)."""
        self.wait()
        where, params = self._conditions(filter, where_list)
        terms = self._terms(sort)
        keys = ", ".join(f"{e} AS k{i}" for i, (e, _) in enumerate(terms))
        before = []
        for i, (e, desc) in enumerate(terms):
            k = f"t.k{i}"
            same = [f"({terms[j][0]} IS NOT DISTINCT FROM t.k{j})" for j in range(i)]
            if desc:  # nulls last: after a null key every value comes first
                first = f"({e} > {k} OR ({k} IS NULL AND {e} IS NOT NULL))"
            else:     # nulls first: a null comes before every value
                first = f"({e} < {k} OR ({e} IS NULL AND {k} IS NOT NULL))"
            before.append("(" + " AND ".join(same + [first]) + ")")
        cond = " OR ".join(before)
        for wanted in ids:
            try:
                rid = self.ids.index(wanted) if self.ids is not None else int(wanted)
            except (TypeError, ValueError):
                continue
            in_view = f"rid = {rid}" + (f" AND {where}" if where else "")
            sql = (f"WITH t AS (SELECT {keys} FROM {self.source} WHERE {in_view}) "
                   f"SELECT (SELECT count(*) FROM t), "
                   f"(SELECT count(*) FROM {self.source}, t WHERE ({cond})" + (f" AND {where}" if where else "") + ")")
            present, offset = self.db.query(sql, params)[0]
            if present:
                return str(wanted if self.ids is not None else rid), int(offset)
        return None

    def find(self, text: str, start: int, backward: bool, wrap: bool, sort: list[dict[str, str]], filter: Any,
             where_list: list[dict[str, Any]] | None = None) -> tuple[str, int] | None:
        """(row id, position) of the first row holding `text` in the look order of `find`
        (PROTOCOL 11.15), or None: one query, its positions numbered in the ORDER BY and under
        the WHERE of `rows` (duck_find.find_sql)."""
        self.wait()
        where, params = self._conditions(filter, where_list)
        p = Params(params)
        sql = find_sql(self.source, self._order_by(self._terms(sort)), where, self._contains(p(text)),
                       start, backward, wrap)
        got = self.db.query(sql, p.values)
        if not got:
            return None
        rid, pos = got[0]
        return str(self.ids[rid] if self.ids is not None else rid), int(pos)

    # -- aggregate (PROTOCOL 11.12)

    def aggregate(self, filter: Any, where: list[dict[str, Any]], group: list[dict[str, Any]]) -> "Aggregate":
        """The group counts under the filters as a new table: a temporary table with the group
        columns (or their bins' starts), count, percent and cumulative percent, its row id the
        position in the natural order (count descending, then the groups ascending)."""
        self.wait()
        cond, base = self._conditions(filter, where)
        src_where = f" WHERE {cond}" if cond else ""
        p = Params(base)
        exprs, sorts, bins = [], [], {}
        for i, g in enumerate(group):
            col = self.by_id[g["column"]]
            expr, sort = col.name, Column(i, col.id, col.dtype).sort
            if g.get("bins"):
                binned = self._bin(col, g["bins"], src_where, base, p)
                if binned is not None:
                    expr, bins[col.id] = binned
                    sort = f"c{i}"
            exprs.append(expr)
            sorts.append(f"{sort} ASC NULLS FIRST")
        Relation._order_tables += 1
        name = f"agg{Relation._order_tables}"
        k = len(group)
        groups = ", ".join(f"{e} AS g{i}" for i, e in enumerate(exprs))
        renamed = ", ".join(f"g{i} AS c{i}" for i in range(k))
        kept = ", ".join(f"c{i}" for i in range(k))
        self.db.query(
            f"CREATE TEMP TABLE {name} AS "
            f"WITH g AS (SELECT {groups}, count(*) AS n FROM {self.source}{src_where} GROUP BY ALL), "
            f"r AS (SELECT {renamed}, n FROM g), "
            f"o AS (SELECT *, row_number() OVER (ORDER BY n DESC, {', '.join(sorts)}) - 1 AS rid, "
            f"sum(n) OVER () AS total FROM r) "
            f"SELECT {kept}, n AS c{k}, CAST(n AS DOUBLE) * 100 / CAST(total AS DOUBLE) AS c{k + 1}, "
            f"CAST(sum(n) OVER (ORDER BY rid ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS DOUBLE) * 100 "
            f"/ CAST(total AS DOUBLE) AS c{k + 2}, rid FROM o ORDER BY rid", p.values)
        types = list(self.db.con.sql(f"SELECT * EXCLUDE (rid) FROM {name}").types)
        titles = [self.by_id[g["column"]].desc.get("title", g["column"]) for g in group]
        rel = Relation(self.db, name, [g["column"] for g in group] + ["count", "percent", "cumulative"], types,
                       f"{self.title} › {', '.join(titles)}")
        for col, g in zip(rel.cols, group):
            parent = self.by_id[g["column"]].desc
            col.desc = dict(parent) if col.id not in bins else {**col.desc, "title": parent.get("title", col.id)}
        for col, title in zip(rel.cols[k:], ("Count", "%", "Cumulative %")):
            col.desc["title"] = title
        groups_n, counted, largest = self.db.query(
            f"SELECT count(*), coalesce(sum(c{k}), 0), coalesce(max(c{k}), 0) FROM {name}")[0]
        rel._totals[None] = int(groups_n)
        return Aggregate(rel, int(counted), int(largest), bins)

    def _bin(self, col: Column, bins: int, src_where: str, base: list[Any], p: Params) -> tuple[str, dict] | None:
        """The expression of a column's bin start and its `bins` member, or None when the column
        has at most `bins` distinct values under the filters (PROTOCOL 11.12)."""
        c = col.name
        if col.desc["type"] == "date":
            spans = ", ".join(f"datediff('{u}', date_trunc('{u}', min({c})), date_trunc('{u}', max({c}))) + 1"
                              for u in DATE_UNITS)
            distinct, *counts = self.db.query(f"SELECT count(DISTINCT {c}), {spans} FROM {self.source}{src_where}",
                                              base)[0]
            if distinct <= bins:
                return None
            unit = next((u for u, n in zip(DATE_UNITS, counts) if n <= bins), "year")
            expr = f"date_trunc('{unit}', {c})"  # in UTC: the connection's time zone
            return (f"CAST({expr} AS DATE)" if col.kind == "date" else expr), {"unit": unit}
        floating = col.kind in ("double", "float")
        only = f" FILTER (WHERE isfinite({c}))" if floating else ""
        distinct, low, high = self.db.query(
            f"SELECT count(DISTINCT {c}), CAST(min({c}){only} AS VARCHAR), CAST(max({c}){only} AS VARCHAR) "
            f"FROM {self.source}{src_where}", base)[0]
        if distinct <= bins or low is None:
            return None
        integer = col.desc["type"] == "integer"
        width = nice_width(decimal.Decimal(low), decimal.Decimal(high), bins, integer)
        shown = int(width) if width == width.to_integral_value() else float(width)
        scale = max(0, -width.normalize().as_tuple().exponent)
        if integer:  # exact, in 128 bits: start = v - (v mod width), the modulo floored
            if col.kind in UINT_BOUNDS:
                v, w = f"CAST({c} AS UHUGEINT)", f"CAST({p(str(int(width)))} AS UHUGEINT)"
                return f"{v} - ({v} % {w})", {"width": shown}
            v, w = f"CAST({c} AS HUGEINT)", f"CAST({p(str(int(width)))} AS HUGEINT)"
        elif not floating:  # DECIMAL, exact at the finer of the column's scale and the width's
            scale = max(scale, int(dict(col.dtype.children)["scale"]))
            v, w = f"CAST({c} AS DECIMAL(38,{scale}))", f"CAST({p(decimal_text(width))} AS DECIMAL(38,{scale}))"
        else:  # DOUBLE: floor(v / width) * width, rounded to the width's digits (0.3, not 0.30000000000000004)
            w = f"CAST({p(decimal_text(width))} AS DOUBLE)"
            return f"round(floor({c} / {w}) * {w}, {scale})", {"width": shown}
        return f"{v} - ((({v} % {w}) + {w}) % {w})", {"width": shown}

    # -- describe (PROTOCOL 11.13)

    def statistics(self, filter: Any, where: list[dict[str, Any]]) -> "Derived":
        """The statistics of every column under the filters as a new table: one row per column
        (its id the row id), in the table's column order, in a temporary table."""
        self.wait()
        cond, base = self._conditions(filter, where)
        rows = []
        for col in self.cols:
            self.db.plugin.check_cancelled()
            rows.append(self._column_statistics(col, cond, base))
        Relation._order_tables += 1
        name = f"desc{Relation._order_tables}"
        cols = describe_columns()
        sql_types = {"text": "VARCHAR", "integer": "BIGINT", "decimal": "DOUBLE"}
        self.db.query(f"CREATE TEMP TABLE {name} ("
                      + ", ".join(f"c{i} {sql_types[c['type']]}" for i, c in enumerate(cols)) + ", rid BIGINT)")
        if rows:
            self.db.con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * (len(cols) + 1))})",
                                    [r + [i] for i, r in enumerate(rows)])
        types = list(self.db.con.sql(f"SELECT * EXCLUDE (rid) FROM {name}").types)
        rel = Relation(self.db, name, [c["id"] for c in cols], types, f"{self.title} › describe")
        for col, desc in zip(rel.cols, cols):
            col.desc = desc
        rel.ids = [c.id for c in self.cols]
        rel._totals[None] = len(rows)
        return Derived(rel)

    def _column_statistics(self, col: Column, cond: str, base: list[Any]) -> list[Any]:
        """One row of a describe table: the SQL aggregates of one column, its top value, its
        exact percentiles (interpolated in Python between the two nearest values) and histogram."""
        c, kind, ptype = col.name, col.kind, col.desc["type"]
        nested = kind in ("list", "array", "struct", "map", "union")
        value = col.sort if nested else c
        dated = ptype == "date"
        numeric = ptype in ("integer", "decimal")
        # What min, max and top show: the cell's text; a date's instant (microseconds), shown in Python.
        if dated:
            shown = f"epoch_us(CAST({c} AS TIMESTAMP))" if kind == "date" else f"epoch_us({c})"
        else:
            shown = col.text
        where = f" WHERE {cond}" if cond else ""
        both = f" WHERE ({cond}) AND {c} IS NOT NULL" if cond else f" WHERE {c} IS NOT NULL"
        parts = [f"count({c})", f"count(*) - count({c})", f"count(DISTINCT {value})",
                 f"arg_min({shown}, {col.sort}) FILTER (WHERE {c} IS NOT NULL)",
                 f"arg_max({shown}, {col.sort}) FILTER (WHERE {c} IS NOT NULL)"]
        if numeric:
            n = f"CAST({c} AS DOUBLE)" if kind in ("bignum", "varint") else c
            # a float's NaN and infinities are left out (DuckDB's stddev fails on infinities)
            only = f" FILTER (WHERE isfinite({c}))" if kind in ("double", "float") else ""
            parts += [f"avg({n}){only}", f"stddev_samp({n}){only}"]
        else:
            parts += ["NULL", "NULL"]
        scaled, finite = self._histogram_value(col)
        if scaled is not None:
            keep = f" FILTER (WHERE {finite})" if finite else ""
            parts += [f"min({scaled}){keep}", f"max({scaled}){keep}", f"count(DISTINCT {scaled}){keep}"]
        count, nulls, distinct, low, high, mean, stddev, *span = self.db.query(
            f"SELECT {', '.join(parts)} FROM {self.source}{where}", base)[0]
        text = (lambda v: date_text(v, kind == "date")) if dated else _cell_text
        top = top_count = None
        if count:
            top, top_count = self.db.query(
                f"SELECT {shown}, count(*) AS n FROM {self.source}{both} GROUP BY {value} "
                f"ORDER BY n DESC, {col.sort} ASC NULLS FIRST LIMIT 1", base)[0] if not nested else \
                self.db.query(f"SELECT {value}, count(*) AS n FROM {self.source}{both} GROUP BY {value} "
                              f"ORDER BY n DESC, {value} ASC LIMIT 1", base)[0]
        quartiles: list[Any] = [None, None, None]
        if count and (numeric or dated):
            quartiles = self._quartiles(col, shown if dated else c, both, base, count, kind == "date")
        histogram = None
        if scaled is not None and span and span[0] is not None:
            histogram = self._histogram(scaled, finite, both, base, span)
        return [col.desc.get("title", col.id), ptype, int(count), int(nulls), int(distinct),
                text(low), text(high), _float(mean), _float(stddev), *quartiles,
                text(top), top_count, histogram]

    def _histogram_value(self, col: Column) -> tuple[str | None, str | None]:
        """The value binned by the histogram, exact where it can be (an integer: a number scaled
        to its decimal places, a date's microseconds) else a double, and the condition that
        keeps finite doubles; (None, None) for a column that has no histogram."""
        c, kind, ptype = col.name, col.kind, col.desc["type"]
        if ptype == "date":
            return (f"CAST(epoch_us(CAST({c} AS TIMESTAMP)) AS HUGEINT)" if kind == "date"
                    else f"CAST(epoch_us({c}) AS HUGEINT)"), None
        if kind in ("tinyint", "smallint", "integer", "bigint", "utinyint", "usmallint", "uinteger", "ubigint"):
            return f"CAST({c} AS HUGEINT)", None
        if kind == "decimal":
            # its text has exactly `scale` digits after the point: without the point, the scaled integer
            return f"CAST(replace(CAST({c} AS VARCHAR), '.', '') AS HUGEINT)", None
        if ptype in ("integer", "decimal"):
            return f"CAST({c} AS DOUBLE)", f"isfinite(CAST({c} AS DOUBLE))"
        return None, None

    def _histogram(self, x: str, finite: str | None, both: str, base: list[Any], span: list[Any]) -> str:
        """Counts of up to 8 equal-width bins from min to max (bins: at most the distinct values),
        the last bin holding the max; exact on the integers of _histogram_value."""
        low, high, distinct = span
        if low == high:
            return str(self.db.query(f"SELECT count(*) FROM {self.source}{both}" + (f" AND {finite}" if finite else ""),
                                     base)[0][0])
        k = min(8, int(distinct))
        if finite:
            b = f"least(CAST(floor(({x} - {float(low)!r}) * {k} / {float(high - low)!r}) AS BIGINT), {k - 1})"
        else:
            b = f"least((({x} - {int(low)}) * {k}) // {int(high - low)}, {k - 1})"
        got = dict(self.db.query(f"SELECT {b} AS b, count(*) FROM {self.source}{both}"
                                 + (f" AND {finite}" if finite else "") + " GROUP BY b", base))
        return " ".join(str(got.get(i, 0)) for i in range(k))

    def _quartiles(self, col: Column, value: str, both: str, base: list[Any], count: int,
                   day: bool) -> list[Any]:
        """p25, median, p75 as text: continuous (position (n - 1) * q, interpolated between the
        two nearest values in the column's order), computed exactly from those values."""
        spots = [Fraction(count - 1) * Fraction(q, 4) for q in (1, 2, 3)]
        wanted = sorted({int(s) for s in spots} | {math.ceil(s) for s in spots})
        got = dict(self.db.query(
            f"SELECT i, v FROM (SELECT {value} AS v, row_number() OVER (ORDER BY {col.sort} ASC) - 1 AS i "
            f"FROM {self.source}{both}) WHERE i IN ({', '.join(map(str, wanted))})", base))
        out = []
        for s in spots:
            lo, hi = got[int(s)], got[math.ceil(s)]
            frac = s - int(s)
            if col.desc["type"] == "date":
                us = Fraction(lo) + frac * (Fraction(hi) - Fraction(lo))
                out.append(date_text(round(us), day))
            elif isinstance(lo, float) or isinstance(hi, float):
                lo, hi = float(lo), float(hi)
                v = lo if frac == 0 or lo == hi else lo + float(frac) * (hi - lo)
                out.append(_cell_text(_float(v)))
            else:
                exact = Fraction(lo) + frac * (Fraction(hi) - Fraction(lo))
                out.append(fraction_text(exact))
        return out



class Derived:
    """A table made for one request (a describe table, a query's result): dropped at `close`."""

    def __init__(self, rel: Relation, *more: str) -> None:
        self.rel, self.more = rel, list(more)

    def drop(self) -> None:
        db = self.rel.db
        for name in [*self.more, self.rel.source, *self.rel._orders.values()]:
            kind = "VIEW" if name.startswith("v_") else "TABLE"
            db.con.execute(f"DROP {kind} IF EXISTS {name}")
        self.rel._orders.clear()


class Aggregate:
    """The result of Relation.aggregate: the new relation and the description's extra members."""

    def __init__(self, rel: Relation, rows: int, largest: int, bins: dict[str, Any]) -> None:
        self.rel, self.rows, self.largest, self.bins = rel, rows, largest, bins

    def drop(self) -> None:
        db = self.rel.db
        for name in [self.rel.source, *self.rel._orders.values()]:
            db.con.execute(f"DROP TABLE IF EXISTS {name}")
        self.rel._orders.clear()


# --------------------------------------------------------------------------- the database

class Database:
    """The plugin's DuckDB connection: an in-memory database (a Parquet file's view; loaded
    tables up to IN_MEMORY_BYTES), else a database file; either way in a private temporary
    folder with DuckDB's spill files, removed when the plugin stops."""

    def __init__(self, plugin: "DuckPlugin", on_disk: bool) -> None:
        self.plugin = plugin
        self.dir = tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-")
        config = {"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                  "extension_directory": os.path.join(self.dir, "extensions"),
                  "temp_directory": os.path.join(self.dir, "spill")}
        path = os.path.join(self.dir, "tables.duckdb") if on_disk else ":memory:"
        self.con = duckdb.connect(path, config=config)
        self.con.execute("SET TimeZone = 'UTC'")
        self.con.execute("SET enable_progress_bar = false")
        self._fifo = 0
        self.locked = False
        self.allowed: set[str] = set()  # the paths the lock lets DuckDB read
        self.side: Any = None  # a query's side database while it runs (run_query), for $/cancel
        # Query sources loaded as copies (load_source): path → ((size, mtime), relation).
        self.sources: dict[str, tuple[tuple[int, int], Any]] = {}
        self.closing = threading.Event()
        # Background loads (their cursor and thread) and decompressing threads, stopped first
        # at close: closing a connection under a running query aborts the process.
        self.loads: list[tuple[Any, threading.Thread, threading.Event]] = []
        self.feeders: list["Feeder"] = []

    def query(self, sql: str, params: list[Any] | None = None) -> list[tuple]:
        """Run a query for the current request; a `$/cancel` interrupts it (-32800). An interrupt
        meant for a request that had just ended runs the query again. A query that takes more
        than 2 s sends `progress` every 2 s, which keeps the host's request timer (10 s) alive."""
        done = threading.Event()

        def tick() -> None:
            start = time.monotonic()
            while not done.wait(2.0):
                self.plugin.progress(round(time.monotonic() - start, 1), None,
                                     f"working on {os.path.basename(self.plugin.path)}")

        threading.Thread(target=tick, daemon=True, name="progress").start()
        try:
            for _ in range(3):
                try:
                    return self.con.execute(sql, params or []).fetchall()
                except duckdb.InterruptException:
                    if self.plugin.is_cancelled():
                        raise Cancelled() from None
            raise Cancelled()
        finally:
            done.set()

    def lock(self, sources: list[str] | None = None) -> None:
        """From now on DuckDB reads no file but the one open and the query's `sources` (paths)
        and writes none but its own (spill files in its folder): no other file, no ATTACH, no
        extension (before the user's SQL runs; once set, DuckDB cannot turn it back, so a later
        query with other sources runs on a side database: run_query)."""
        if self.locked:
            return
        self.allowed = allowed_paths([self.plugin.path, *(sources or [])])
        lock_connection(self.con, self.allowed, self.dir)
        self.locked = True

    def fifo(self) -> str:
        self._fifo += 1
        path = os.path.join(self.dir, f"stream{self._fifo}")
        os.mkfifo(path)
        return path

    def close(self) -> None:
        self.closing.set()
        for feeder in self.feeders:
            feeder.stop.set()
        for cursor, thread, go in self.loads:
            go.set()
            try:
                cursor.interrupt()
            except Exception:  # noqa: BLE001 - already closed
                pass
            thread.join(5)
        try:
            self.con.close()
        except Exception:  # noqa: BLE001 - closing at exit: nothing left to tell
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


def allowed_paths(paths: list[str]) -> set[str]:
    """Each path as given, absolute and with its links resolved: DuckDB compares them as text."""
    return {p for path in paths for p in (path, os.path.abspath(path), os.path.realpath(path))}


def lock_connection(con: Any, paths: set[str], folder: str) -> None:
    """Locks `con` to reading `paths` and its own `folder` (spill files), and nothing else."""
    con.execute("SET allowed_paths = $1", [sorted(paths)])
    con.execute("SET allowed_directories = $1", [[folder + os.sep]])
    con.execute("SET enable_external_access = false")


def remove_stale_temp_dirs() -> None:
    """Temporary folders of plugins that died without cleaning up (SIGKILL)."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        m = re.match(re.escape(TEMP_PREFIX) + r"(\d+)-", name)
        if not m:
            continue
        try:
            os.kill(int(m.group(1)), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        except OSError:
            pass


class Feeder(threading.Thread):
    """Decompresses a file into a named pipe that DuckDB reads (nothing unpacked to disk), or
    into nothing (`fifo` None: a check beside DuckDB's own reading, which takes a truncated
    gzip file for a short one), counting bytes and lines, and keeping the decompressor's error
    (a truncated or damaged file) for later."""

    def __init__(self, path: str, compression: str, fifo: str | None) -> None:
        super().__init__(daemon=True, name="feeder")
        self.path, self.compression, self.fifo = path, compression, fifo
        self.bytes = 0
        self.lines = 0
        self.error: BaseException | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            with sniff.open_decompressed(self.path, self.compression) as src, \
                    (open(self.fifo, "wb") if self.fifo else open(os.devnull, "wb")) as out:
                read = getattr(src, "read1", src.read)  # what is decompressed so far, so a
                while not self.stop.is_set():            # truncated file's place is exact
                    chunk = read(1 << 16)
                    if not chunk:
                        break
                    self.bytes += len(chunk)
                    self.lines += chunk.count(b"\n")
                    if self.fifo:
                        out.write(chunk)
        except BrokenPipeError:
            pass  # DuckDB stopped reading (an error of its own)
        except Exception as e:  # noqa: BLE001 - kept and reported with the file's name
            self.error = e

    def finish(self) -> None:
        """Unblock a writer still waiting for a reader, then wait for the thread."""
        if self.fifo is None:
            self.join()
            return
        if self.is_alive():
            try:
                fd = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        self.join(5)


# --------------------------------------------------------------------------- errors

class FileError(RpcError):
    """An error about the file, naming it and the place: `message` starts with the file's name."""

    def __init__(self, path: str, text: str, code: int = INTERNAL_ERROR, **place: Any) -> None:
        super().__init__(code, f"{os.path.basename(path) or path}: {text}", {"path": path, **place})


def duck_message(e: BaseException, path: str, fifo: str | None = None) -> str:
    """DuckDB's message, first line only, with the file's name for a pipe's."""
    text = str(e).strip().split("\n")[0]
    text = re.sub(r"^(\w+ )*Error: ", "", text)
    if fifo:
        text = text.replace(fifo, os.path.basename(path))
    return text


def first_bad_json_line(path: str, compression: str | None) -> tuple[int, str] | None:
    """The first line that is not a JSON value on its own, and why (the JSON lines rule)."""
    with sniff.open_decompressed(path, compression) as f:
        for n, line in enumerate(f, 1):
            text = line.strip()
            if not text:
                continue
            try:
                json.loads(text)
            except ValueError as e:
                return n, str(e).split(":")[0]
    return None


# --------------------------------------------------------------------------- loading files

class Loader:
    """Makes the source relation of a file in `db`; `open_file` returns the root Relation."""

    def __init__(self, plugin: "DuckPlugin", path: str, kind: sniff.Kind) -> None:
        self.plugin, self.path, self.kind = plugin, path, kind
        self.name = os.path.basename(path)
        self.db: Database | None = None
        self.workbook_ref: Workbook | None = None
        self.tables = 0

    def new_table_name(self) -> str:
        self.tables += 1
        return f"data{self.tables}"

    def relation(self, table: str, title: str, has_children: bool = False, con: Any = None) -> Relation:
        """A relation over a loaded table: its columns renamed c0, c1, ... (the names of the
        file become the column ids), its DuckDB row id the row id. `con`: the background
        load's own cursor."""
        assert self.db is not None
        con = con or self.db.con
        rel = con.sql(f"SELECT * FROM {table}")
        names, types = list(rel.columns), list(rel.types)
        for i, name in enumerate(names):
            con.execute(f"ALTER TABLE {table} RENAME COLUMN {quote_ident(name)} TO c{i}")
        view = f"v_{table}"
        cols = ", ".join(f"c{i}" for i in range(len(names)))
        con.execute(f"CREATE VIEW {view} AS SELECT {cols}, rowid AS rid FROM {table}")
        return Relation(self.db, view, names, types, title, has_children)

    def with_progress(self, what: str, work: Callable[[], Any]) -> Any:
        """Runs a long load while sending `progress` every second (it keeps the host's timer)."""
        return progress_while(self.plugin, f"{what} {self.name}", work)

    def open_file(self) -> Relation:
        fmt, comp = self.kind.format, self.kind.compression
        # Loaded tables stay in memory (1.5x faster to load than a database file, measured at
        # 1M rows) unless the data may be big: then a database file (DuckDB spills either way).
        size = os.path.getsize(self.path) * (5 if comp else 1)
        loads = not (fmt == "parquet" and comp is None)
        self.db = Database(self.plugin, on_disk=loads and size > IN_MEMORY_BYTES)
        self.plugin.db = self.db
        if fmt == "parquet" and comp is None:
            return self.parquet_view()
        if fmt in ("csv", "tsv", "jsonl", "json"):
            if comp in (None, "gzip", "zstd") and size > EARLY_BYTES:
                return self.early_text()
            return self.with_progress("reading", self.load_text)
        if fmt in ("parquet", "arrow"):
            return self.with_progress("reading", self.load_arrow)
        if fmt == "xlsx":
            return self.with_progress("reading", self.load_workbook)
        raise FileError(self.path, f"unknown format {fmt}", INVALID_PARAMS)

    # -- Parquet, read where it lies

    def parquet_view(self) -> Relation:
        assert self.db is not None
        scan = f"read_parquet({quote_literal(self.path)}, file_row_number = true)"
        try:
            rel = self.db.con.sql(f"SELECT * EXCLUDE (file_row_number) FROM {scan}")
            names, types = list(rel.columns), list(rel.types)
            cols = ", ".join(f"{quote_ident(n)} AS c{i}" for i, n in enumerate(names))
            self.db.con.execute(f"CREATE VIEW src AS SELECT {cols}, file_row_number AS rid FROM {scan}")
        except duckdb.Error as e:
            raise self.explain(e) from None
        return Relation(self.db, "src", names, types, self.name)

    # -- text formats, loaded once into a table

    def text_scan(self, source: str, native: str | None, layout: str | None, whole_sample: bool) -> str:
        return text_scan(self.kind.format, source, native, layout, whole_sample)

    def load_text(self, con: Any = None, sniffed: str | None = None) -> Relation:
        """Loads a text file into a table; `sniffed`: a CSV scan with every option spelled out
        (sniff_csv's), used first so that the file is not sniffed again."""
        fmt, comp = self.kind.format, self.kind.compression
        run = con.execute if con is not None else self.db.query
        table = self.new_table_name()
        layout = {"jsonl": "newline_delimited", "json": "array"}.get(fmt)
        whole_sample = False
        while True:
            feeder = None
            source, native = self.path, None
            if comp in ("gzip", "zstd"):  # DuckDB reads these itself; a thread checks them whole
                native = comp
                feeder = Feeder(self.path, comp, None)
            elif comp is not None:  # bzip2, xz: decompressed by Python into a pipe DuckDB reads
                source = self.db.fifo()
                feeder = Feeder(self.path, comp, source)
            if feeder is not None:
                self.db.feeders.append(feeder)
                feeder.start()
            scan = self.text_scan(source, native, layout, whole_sample)
            if sniffed and not whole_sample and source == self.path:
                scan = sniffed
            error = None
            try:
                run(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM {scan}")
            except duckdb.Error as e:
                error = e
            finally:
                if feeder is not None:
                    feeder.finish()
            if self.db.closing.is_set():
                raise Cancelled("the plugin is stopping")
            if feeder is not None and feeder.error is not None:
                raise self.truncated(feeder)
            if error is None:
                break
            if not whole_sample and isinstance(error, duckdb.ConversionException):
                whole_sample = True  # a type chosen from the first rows failed later: read them all
                continue
            if layout == "newline_delimited" and (first_bad_json_line(self.path, comp) or (0,))[0] == 1:
                layout = "auto"  # not one object a line: one pretty-printed document
                continue
            raise self.explain(error, source if source != self.path else None)
        return self.relation(table, self.name, con=con)

    def early_text(self) -> Relation:
        """A big text file: `open` answers at once (total unknown) and the first pages in the
        file's order come straight from the file, while the whole file loads into a table in
        the background; sorted, filtered and counted requests wait for it, and an `invalidate`
        with the total says it is done."""
        comp = self.kind.compression
        layout = {"jsonl": "newline_delimited", "json": "array"}.get(self.kind.format)
        scan = self.text_scan(self.path, comp, layout, False)
        sniffed = None
        try:
            if layout is None:
                # DuckDB's CSV sniffer once: its answer, a read_csv call with every option and
                # column type spelled out, serves the early pages and the load without sniffing again.
                delim = ", delim = '\\t'" if self.kind.format == "tsv" else ""
                prompt = self.db.con.execute(f"SELECT Prompt FROM sniff_csv({quote_literal(self.path)}{delim}, "
                                             f"compression = '{comp or 'none'}')").fetchone()[0]
                sniffed = scan = prompt.strip().removeprefix("FROM ").rstrip(";").strip()
            described = self.db.con.sql(f"SELECT * FROM {scan}")  # DuckDB's sniffer, no reading
            names, types = list(described.columns), list(described.types)
        except duckdb.Error:
            return self.with_progress("reading", self.load_text)  # its error, said the usual way
        rel = Relation(self.db, "", names, types, self.name)
        rel.ready.clear()
        rel.early_scan, rel.early_names = scan, names
        cursor = self.db.con.cursor()

        def load() -> None:
            rel.go.wait(2.0)
            try:
                if self.db.closing.is_set():
                    raise Cancelled("the plugin is stopping")
                final = self.load_text(con=cursor, sniffed=sniffed)
                if [c.duck_type for c in final.cols] != [c.duck_type for c in rel.cols]:
                    for new, old in zip(final.cols, rel.cols):  # types of the whole file: keep the ids
                        new.id, new.desc["id"], new.desc["title"] = old.id, old.id, old.desc["title"]
                    rel.cols, rel.by_id = final.cols, {c.id: c for c in final.cols}
                rel._totals[None] = int(cursor.execute(f"SELECT count(*) FROM {final.source}").fetchone()[0])
                rel.source = final.source
            except RpcError as e:
                rel.load_error = e
            except Exception as e:  # noqa: BLE001 - any failure becomes the table's error
                rel.load_error = FileError(self.path, duck_message(e, self.path))
            finally:
                rel.ready.set()
                cursor.close()
            if not self.db.closing.is_set():
                self.plugin.invalidate("root", total=rel._totals.get(None))

        thread = threading.Thread(target=load, daemon=True, name="load")
        self.db.loads.append((cursor, thread, rel.go))
        thread.start()
        return rel

    def truncated(self, feeder: Feeder) -> FileError:
        e = feeder.error
        what = {"gzip": "gzip", "zstd": "zstd", "bzip2": "bzip2", "xz": "xz"}[feeder.compression]
        reason = str(e) or type(e).__name__
        return FileError(self.path, f"the {what} data ends early or is damaged after "
                         f"{feeder.bytes:,} bytes ({feeder.lines:,} lines) of {self.kind.format}: {reason}",
                         line=feeder.lines + 1, offset=feeder.bytes)

    def explain(self, e: BaseException, fifo: str | None = None) -> FileError:
        text = duck_message(e, self.path, fifo)
        if "No magic bytes found at end of file" in text or "too small to be a Parquet file" in text:
            return FileError(self.path, f"not a complete Parquet file ({sniff.human_size(os.path.getsize(self.path))}, "
                             "no footer at its end: truncated?)")
        if "Malformed JSON" in text and self.kind.format == "jsonl":
            bad = first_bad_json_line(self.path, self.kind.compression)
            if bad:
                return FileError(self.path, f"line {bad[0]} is not valid JSON ({bad[1]})", line=bad[0])
        m = re.search(r"\bline (\d+)", text)
        if m:
            return FileError(self.path, text, line=int(m.group(1)))
        return FileError(self.path, text)

    # -- Arrow IPC / Feather, and compressed Parquet, through pyarrow

    def load_arrow(self) -> Relation:
        import pyarrow as pa  # noqa: PLC0415 - only for these formats
        import pyarrow.ipc  # noqa: PLC0415,F401
        comp = self.kind.compression
        try:
            if comp is None:
                source: Any = pa.memory_map(self.path)
            else:
                with sniff.open_decompressed(self.path, comp) as f:
                    source = pa.BufferReader(f.read())
            if self.kind.format == "parquet":
                import pyarrow.parquet as pq  # noqa: PLC0415
                data = pq.read_table(source)
            else:
                data = read_arrow(source)
        except (EOFError, OSError, ValueError, pa.ArrowException) as e:
            raise FileError(self.path, f"cannot read it as {self.kind.format}"
                            + (f" ({comp})" if comp else "") + f": {e}") from None
        table = self.new_table_name()
        data = data.unify_dictionaries()
        self.db.con.register("arrow_input", data)
        try:
            self.db.query(f"CREATE TABLE {table} AS SELECT {enum_casts(data)} FROM arrow_input")
        finally:
            self.db.con.unregister("arrow_input")
        return self.relation(table, self.name)

    # -- Excel and other workbooks, through python-calamine

    def load_workbook(self) -> Relation:
        wb = self.workbook_ref = Workbook(self)
        return wb.root(self.plugin.args.get("sheet"))


def text_scan(fmt: str, source: str, native: str | None, layout: str | None, whole_sample: bool) -> str:
    """DuckDB's reader of a text file: read_csv (CSV, TSV) or read_json (`layout`: the JSON
    format), `native` the compression DuckDB undoes itself."""
    sample = ", sample_size = -1" if whole_sample else ""
    if layout is None:
        delim = ", delim = '\\t'" if fmt == "tsv" else ""
        return f"read_csv({quote_literal(source)}{delim}{sample}, compression = '{native or 'none'}')"
    return (f"read_json({quote_literal(source)}, format = '{layout}'{sample}, "
            f"compression = '{native or 'uncompressed'}')")


def source_scan(path: str) -> str:
    """The reader of a file offered by the host as a query source (PROTOCOL 11.14 `sources`),
    chosen as `open` chooses it: read_parquet for Parquet, read_csv / read_json for text, plain
    or gzip / zstd. Raises ValueError with the reason for a file DuckDB does not read itself
    (Arrow, Excel, bzip2, xz, compressed Parquet: Python reads those when they are opened)."""
    try:
        kind = sniff.detect(path)
    except (sniff.NotATable, sniff.Encrypted) as e:
        raise ValueError(f"not a table ({e})") from None
    except OSError as e:
        raise ValueError(e.strerror or str(e)) from None
    fmt, comp = kind.format, kind.compression
    if fmt == "parquet" and comp is None:
        return f"read_parquet({quote_literal(path)})"
    if fmt in ("csv", "tsv", "jsonl", "json") and comp in (None, "gzip", "zstd"):
        layout = {"jsonl": "newline_delimited", "json": "array"}.get(fmt)
        return text_scan(fmt, path, comp, layout, False)
    raise NotNative(kind)


class NotNative(Exception):
    """A source file DuckDB does not read itself: the plugin loads a copy (load_source)."""

    def __init__(self, kind: sniff.Kind) -> None:
        super().__init__(kind.format)
        self.kind = kind


def load_source(plugin: "DuckPlugin", path: str, kind: sniff.Kind) -> str:
    """A source file DuckDB does not read itself (Arrow, compressed Parquet, Excel: its first
    sheet, bzip2 / xz text), loaded the way `open` loads it into a table of the plugin's own
    (kept while the file does not change); the select that shows it by its column names."""
    db = plugin.db
    assert db is not None
    st = os.stat(path)
    stamp = (st.st_size, st.st_mtime_ns)
    cached = db.sources.get(path)
    if cached is None or cached[0] != stamp:
        if cached is not None:  # the file changed: its old copy goes (view v_dataN over table dataN)
            db.query(f"DROP VIEW IF EXISTS {cached[1].source}")
            db.query(f"DROP TABLE IF EXISTS {cached[1].source.removeprefix('v_')}")
        loader = Loader(plugin, path, kind)
        loader.db = db
        loader.tables = 100_000 * (len(db.sources) + 1)  # data100001, ...: apart from the tab's own
        try:
            if kind.format == "xlsx":
                rel = Workbook(loader).sheet(0)
            elif kind.format in ("parquet", "arrow"):
                rel = loader.load_arrow()
            else:
                rel = loader.load_text()
        except RpcError as e:
            raise ValueError(e.message) from None
        db.sources[path] = (stamp, rel)
    rel = db.sources[path][1]
    return "(SELECT " + ", ".join(f"{c.name} AS {quote_ident(c.id)}" for c in rel.cols) + f" FROM {rel.source})"


MAX_ENUM_VALUES = 1000


def enum_casts(data: Any) -> str:
    """The select list of an Arrow table with its dictionary-encoded text columns (pandas'
    categoricals) as DuckDB ENUMs in the dictionary's order, which DuckDB would read as VARCHAR."""
    import pyarrow as pa  # noqa: PLC0415
    out = []
    for i, field in enumerate(data.schema):
        q = quote_ident(field.name)
        t = field.type
        if pa.types.is_dictionary(t) and (pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type)):
            col = data.column(i)  # after Table.unify_dictionaries: one dictionary in every chunk
            values = col.chunk(0).dictionary.to_pylist() if col.num_chunks else []
            if (0 < len(values) <= MAX_ENUM_VALUES and len(set(values)) == len(values)
                    and all(isinstance(v, str) for v in values)):
                out.append(f"CAST({q} AS ENUM({', '.join(quote_literal(v) for v in values)})) AS {q}")
                continue
        out.append(q)
    return ", ".join(out)


def read_arrow(source: Any) -> Any:
    """An Arrow IPC file (`ARROW1`), stream, or Feather v1 file, as a pyarrow Table."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.feather  # noqa: PLC0415,F401
    import pyarrow.ipc  # noqa: PLC0415,F401
    errors = []
    for reader in (lambda s: pa.ipc.open_file(s).read_all(), lambda s: pa.ipc.open_stream(s).read_all(),
                   pa.feather.read_table):
        try:
            source.seek(0)
            return reader(source)
        except (pa.ArrowException, OSError, ValueError) as e:
            errors.append(str(e))
    raise ValueError(errors[0])


def excel_letters(n: int) -> str:
    s = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


class Workbook:
    """A workbook's sheets, each loaded into a DuckDB table: the root lists the sheets (name,
    rows, columns) and each row opens its sheet (PROTOCOL 11.4); a workbook of one sheet, or the
    `sheet` arg, opens straight on that sheet."""

    def __init__(self, loader: Loader) -> None:
        from python_calamine import CalamineWorkbook  # noqa: PLC0415 - only for workbooks
        self.loader = loader
        path, comp = loader.path, loader.kind.compression
        try:
            if comp is None:
                self.book = CalamineWorkbook.from_path(path)
            else:
                import io  # noqa: PLC0415
                with sniff.open_decompressed(path, comp) as f:
                    self.book = CalamineWorkbook.from_filelike(io.BytesIO(f.read()))
        except Exception as e:  # noqa: BLE001 - calamine's errors are of its own types
            raise FileError(path, f"cannot read it as a workbook: {e}") from None
        self.names: list[str] = list(self.book.sheet_names)
        self.sheets: dict[int, Relation] = {}

    def sheet(self, index: int) -> Relation:
        if index not in self.sheets:
            self.sheets[index] = self.load_sheet(index)
        return self.sheets[index]

    def load_sheet(self, index: int) -> Relation:
        import pyarrow as pa  # noqa: PLC0415
        loader = self.loader
        name = self.names[index]
        try:
            data = self.book.get_sheet_by_index(index).to_python(skip_empty_area=True)
        except Exception as e:  # noqa: BLE001
            raise FileError(loader.path, f"sheet {name!r}: {e}", sheet=name) from None
        data = [list(r) for r in data]
        while data and all(v in (None, "") for v in data[-1]):
            data.pop()
        width = max((len(r) for r in data), default=0)
        if width == 0:
            data, width = [[None]], 1
        for r in data:
            r.extend([None] * (width - len(r)))
        first = data[0]
        header = (len(data) > 1 and any(isinstance(v, str) and v.strip() for v in first)
                  and all(v is None or isinstance(v, str) for v in first))
        if header:
            names = [str(v).strip() if v not in (None, "") else excel_letters(i) for i, v in enumerate(first)]
            body = data[1:]
        else:
            names = [excel_letters(i) for i in range(width)]
            body = data
        arrays = [sheet_column([r[i] for r in body]) for i in range(width)]
        table = loader.new_table_name()
        frame = pa.table(dict(zip([f"x{i}" for i in range(width)], arrays)))
        loader.db.con.register("sheet_input", frame)
        try:
            loader.db.query(f"CREATE TABLE {table} AS SELECT * FROM sheet_input")
        finally:
            loader.db.con.unregister("sheet_input")
        rel = loader.relation(table, name)
        for col, cid in zip(rel.cols, unique_ids(names)):  # the header's names, not x0, x1, ...
            col.id = cid
            col.desc["id"] = col.desc["title"] = cid
        rel.by_id = {c.id: c for c in rel.cols}
        return rel

    def root(self, wanted: Any) -> Relation:
        loader = self.loader
        if wanted is not None:
            if not isinstance(wanted, str) or wanted not in self.names:
                raise FileError(loader.path, f"no sheet named {wanted!r} (sheets: {', '.join(self.names)})",
                                INVALID_PARAMS, sheet=wanted)
            return self.sheet(self.names.index(wanted))
        if len(self.names) == 1:
            return self.sheet(0)
        if not self.names:
            raise FileError(loader.path, "a workbook without sheets")
        rels = [self.sheet(i) for i in range(len(self.names))]
        values = [(n, r.count(None), len(r.cols)) for n, r in zip(self.names, rels)]
        table = loader.new_table_name()
        loader.db.con.execute(f"CREATE TABLE {table} (sheet VARCHAR, rows BIGINT, columns BIGINT)")
        loader.db.con.executemany(f"INSERT INTO {table} VALUES (?, ?, ?)", values)
        return loader.relation(table, loader.name, has_children=True)


def sheet_column(values: list[Any]) -> Any:
    """A pyarrow array for one column of a sheet: bool, integer, double, date, timestamp when
    every value is one, else text (Excel keeps every number as a double: whole ones are integers)."""
    import datetime as dt  # noqa: PLC0415
    import pyarrow as pa  # noqa: PLC0415
    vals = [None if v == "" else v for v in values]
    present = [v for v in vals if v is not None]
    kinds = {type(v) for v in present}
    if kinds and kinds <= {bool}:
        return pa.array(vals, pa.bool_())
    if kinds and kinds <= {int, float}:
        if all(isinstance(v, int) or v.is_integer() for v in present):
            if all(abs(v) < 2 ** 63 for v in present):
                return pa.array([None if v is None else int(v) for v in vals], pa.int64())
        return pa.array([None if v is None else float(v) for v in vals], pa.float64())
    if kinds and kinds <= {dt.date}:
        return pa.array(vals, pa.date32())
    if kinds and kinds <= {dt.datetime, dt.date} and all(
            not isinstance(v, dt.datetime) or v.time() == dt.time() for v in present):
        return pa.array([v if v is None or not isinstance(v, dt.datetime) else v.date() for v in vals], pa.date32())
    if kinds and kinds <= {dt.datetime, dt.date}:
        return pa.array([v if v is None or isinstance(v, dt.datetime) else dt.datetime(v.year, v.month, v.day)
                         for v in vals], pa.timestamp("us"))

    def text(v: Any) -> Any:
        if v is None:
            return None
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        if isinstance(v, bool):
            return "true" if v else "false"
        return v.isoformat() if hasattr(v, "isoformat") else str(v)
    return pa.array([text(v) for v in vals], pa.string())


# --------------------------------------------------------------------------- query (PROTOCOL 11.14)

# The plugin's own names in the database, never given to the file's table.
INTERNAL_NAME = re.compile(r"^(src|root|v_\w*|data\d+|order\d+|agg\d+|desc\d+|q\d+|sheet_input|arrow_input)$")


def table_names(plugin: "DuckPlugin") -> list[str]:
    """The names the user's SQL sees the file's table by: `root`, and the file's name without
    its extensions when that is a plain SQL name (letters, digits, `_`; not a keyword)."""
    names = ["root"]
    stem = os.path.basename(plugin.path).split(".")[0]
    name = re.sub(r"\W", "_", stem, flags=re.ASCII).lower()
    if name and not name[0].isdigit() and not INTERNAL_NAME.match(name):
        reserved = plugin.db.query("SELECT count(*) FROM duckdb_keywords() WHERE keyword_name = $1 "
                                   "AND keyword_category != 'unreserved'", [name])[0][0]
        if not reserved:
            names.append(name)
    return names


def query_error(e: BaseException, sql: str, offset: int) -> RpcError:
    """A DuckDB error (its JSON form: errors_as_json) as -32602 with the message and, when DuckDB
    gives one, data.position: the 1-based character offset in `sql` (DuckDB's is a byte offset
    in the statement it ran, `offset` bytes longer)."""
    text = str(e)
    info: dict[str, Any] = {}
    brace = text.find("{")
    if brace >= 0:
        try:
            info = json.loads(text[brace:])
        except ValueError:
            info = {}
    if info.get("exception_message"):
        kind = info.get("exception_type") or "DuckDB"
        message = f"{kind} Error: " + " ".join(info["exception_message"].split("\n")[:2]).strip()
    else:
        message = text.strip().split("\n")[0]
    data = None
    try:
        at = int(info.get("position")) - offset
    except (TypeError, ValueError):
        at = -1
    raw = sql.encode()
    if 0 <= at <= len(raw):
        data = {"position": len(raw[:at].decode(errors="ignore")) + 1}
    return RpcError(INVALID_PARAMS, message, data)


SOURCE_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


def offered_sources(plugin: "DuckPlugin", sources: list[dict[str, str]]
                    ) -> tuple[dict[str, str], dict[str, str], set[str]]:
    """The host's other files (PROTOCOL 11.14 `sources`) this query can read, name → DuckDB
    reader; and those left out, name → why (`root` or a name of the plugin's own tables, a file
    DuckDB does not read itself, a file not there). A source named like the tab's own file
    (`orders` for another tab's orders.csv) takes that name: the host's names hold in every
    tab, and the tab's own file is always `root`. The third: the names of copies loaded into
    the plugin's own tables (their files are not DuckDB's to read)."""
    scans: dict[str, str] = {}
    left_out: dict[str, str] = {}
    loaded: set[str] = set()
    for s in sources:
        name, path = s["name"], s["path"]
        if name == "root" or INTERNAL_NAME.match(name) or not SOURCE_NAME.match(name):
            left_out[name] = "the name is taken by this tab's own tables"
            continue
        try:
            try:
                scans[name] = source_scan(path)
            except NotNative as e:
                scans[name] = load_source(plugin, path, e.kind)
                loaded.add(name)
        except (ValueError, OSError, duckdb.Error) as e:
            left_out[name] = f"{os.path.basename(path)}: {' '.join(str(e).split())[:200]}"
    return scans, left_out, loaded


def statement_checked(con: Any, sql: str) -> None:
    """Only a single SELECT-like statement runs (WITH, VALUES, FROM, SHOW, ...)."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as e:
        raise query_error(e, sql, 0) from None
    if len(statements) != 1:
        raise RpcError(INVALID_PARAMS, f"one statement at a time, not {len(statements)}")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        what = str(getattr(kind, "name", kind)).upper()
        raise RpcError(INVALID_PARAMS, f"read-only: only a query (SELECT, WITH, VALUES, FROM ...) runs here; "
                                       f"{what} statements are refused")


def run_into(plugin: "DuckPlugin", run: Callable[[str], Any], table: str, sql: str,
             left_out: dict[str, str]) -> None:
    """Runs the user's statement into temporary table `table` with `run` (on a locked
    connection whose errors come as JSON); its error with the position in `sql`, and a name
    left out of the sources said as such."""
    prefix = f"CREATE TEMP TABLE {table} AS\n"
    try:
        progress_while(plugin, "running the query", lambda: run(prefix + sql))
    except duckdb.Error as e:
        first = query_error(e, sql, len(prefix.encode()))
        for name, why in left_out.items():
            if re.search(rf"\b{name}\b", first.message):
                first = RpcError(first.code, f"{first.message} (the tab {name} is not readable here: {why})", first.data)
        wrapped = f"CREATE TEMP TABLE {table} AS SELECT * FROM (\n"
        if not isinstance(e, duckdb.ParserException):
            raise first from None
        try:  # DESCRIBE, SHOW, SUMMARIZE, PRAGMA: a query, but not after AS
            progress_while(plugin, "running the query", lambda: run(wrapped + sql + "\n)"))
        except duckdb.Error:
            raise first from None


def run_query(plugin: "DuckPlugin", sql: str, sources: list[dict[str, str]] | None = None) -> Derived:
    """Runs one read-only statement into a temporary table. Read-only twice over: only a single
    SELECT (WITH, VALUES, FROM, SHOW, ...) statement runs; and before the first, the database is
    locked to the file, the host's other files offered as `sources` and the plugin's own folder
    (enable_external_access = false), so that no statement can read or write another file,
    ATTACH a database or load an extension. Each source is a temporary view by its name."""
    db = plugin.db
    assert db is not None and plugin.rel is not None
    rel = plugin.rel
    scans, left_out, loaded = offered_sources(plugin, sources or [])
    paths = [s["path"] for s in (sources or []) if s["name"] in scans and s["name"] not in loaded]
    Relation._order_tables += 1
    table = f"q{Relation._order_tables}"
    if not db.locked or allowed_paths(paths) <= db.allowed:
        db.lock(paths)
        run_on(plugin, db.con, db.query, table, sql, rel.source, scans, left_out)
    else:
        # The lock is one-way: DuckDB cannot let a locked database read a file it did not allow
        # before. A query that brings new files runs on a side database of its own, locked to
        # the tab's file and these sources, with the tab's table handed over as Arrow (a copy in
        # memory, only in this case); its result comes back the same way into a table here.
        # (Opening the whole tab again instead would drop its loaded table and every handle.)
        side_dir = tempfile.mkdtemp(dir=db.dir, prefix="side")
        side = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False,
                                                  "autoload_known_extensions": False,
                                                  "extension_directory": os.path.join(side_dir, "extensions"),
                                                  "temp_directory": os.path.join(side_dir, "spill")})

        def run_side(q: str) -> list[tuple]:
            try:
                return side.execute(q).fetchall()
            except duckdb.InterruptException:
                raise Cancelled() from None  # only $/cancel interrupts it

        try:
            side.execute("SET TimeZone = 'UTC'")
            lock_connection(side, allowed_paths([plugin.path, *paths]), side_dir)
            cols = ", ".join(f"{c.name} AS c{i}" for i, c in enumerate(rel.cols))
            side.register("root_input", db.con.sql(f"SELECT {cols} FROM {rel.source}").to_arrow_table())
            side_scans = dict(scans)
            for name in loaded:  # copies in this database's tables, handed over the same way
                side.register(f"{name}_input", db.con.sql(f"SELECT * FROM {scans[name]}").to_arrow_table())
                side_scans[name] = f"{name}_input"
            db.side = side
            run_on(plugin, side, run_side, table, sql, "root_input", side_scans, left_out, renamed=True)
            db.side = None
            db.con.register("arrow_input", side.sql(f"SELECT * FROM {table}").to_arrow_table())
            try:
                db.query(f"CREATE TEMP TABLE {table} AS SELECT * FROM arrow_input")
            finally:
                db.con.unregister("arrow_input")
        finally:
            db.side = None
            side.close()
            shutil.rmtree(side_dir, ignore_errors=True)
    got = db.con.sql(f"SELECT * FROM {table}")
    names, types = list(got.columns), list(got.types)
    for i, name in enumerate(names):
        db.query(f"ALTER TABLE {table} RENAME COLUMN {quote_ident(name)} TO c{i}")
    view = f"v_{table}"
    db.query(f"CREATE TEMP VIEW {view} AS SELECT {', '.join(f'c{i}' for i in range(len(names)))}, "
             f"rowid AS rid FROM {table}")
    title = " ".join(sql.split())
    out = Relation(db, view, names, types, title if len(title) <= 80 else title[:79] + "…")
    return Derived(out, table)


def run_on(plugin: "DuckPlugin", con: Any, run: Callable[[str], Any], table: str, sql: str, own: str,
           scans: dict[str, str], left_out: dict[str, str], renamed: bool = False) -> None:
    """The tab's table (`own`: its columns c0, c1, ... or, `renamed`, already by position) as
    `root` and its file's name, the sources as views, then the user's statement into `table`."""
    rel = plugin.rel
    if renamed:
        columns = ", ".join(f"c{i} AS {quote_ident(c.id)}" for i, c in enumerate(rel.cols))
    else:
        columns = ", ".join(f"{c.name} AS {quote_ident(c.id)}" for c in rel.cols)
    for name in table_names(plugin):
        run(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT {columns} FROM {own}")
    for name, scan in scans.items():  # after the own names: a source of the same name replaces it
        try:  # binding the view reads the file's columns: a file that cannot be read is left out
            run(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {scan}")
        except duckdb.Error as e:
            left_out[name] = " ".join(str(e).split())[:200]
    run("SET errors_as_json = true")
    try:
        statement_checked(con, sql)
        run_into(plugin, run, table, sql, left_out)
    finally:
        run("SET errors_as_json = false")


# --------------------------------------------------------------------------- the plugin

class RelationTable(Table):
    """A table other than the root: a sheet of a workbook, or an aggregate's group counts."""

    checks_file = True  # a sheet says when the file changed; an aggregate is a copy of its own

    def __init__(self, plugin: "DuckPlugin", rel: Relation) -> None:
        self.plugin, self.rel, self.title = plugin, rel, rel.title

    def columns(self) -> list[dict[str, Any]]:
        return self.rel.columns()

    def count(self) -> int | None:
        return self.plugin.guard(lambda: self.rel.count(None))

    def rows(self, offset: int, limit: int, sort: list, filter: Any, where: list | None = None) -> Any:
        if self.checks_file:
            self.plugin.check_file()
        return self.plugin.guard(lambda: self.rel.rows(offset, limit, sort, filter, where))

    def locate(self, ids: list[str], sort: list, filter: Any, where: list | None = None) -> Any:
        if self.checks_file:
            self.plugin.check_file()
        return self.plugin.guard(lambda: self.rel.locate(ids, sort, filter, where))

    def find(self, text: str, start: int, backward: bool, wrap: bool, sort: list, filter: Any,
             where: list | None = None) -> Any:
        if self.checks_file:
            self.plugin.check_file()
        return self.plugin.guard(lambda: self.rel.find(text, start, backward, wrap, sort, filter, where))

    def aggregate(self, filter: Any, where: list, group: list) -> Table:
        if self.checks_file:
            self.plugin.check_file()
        return self.plugin.aggregate_of(self.rel, filter, where, group)

    def statistics(self, filter: Any, where: list) -> Table:
        if self.checks_file:
            self.plugin.check_file()
        return self.plugin.statistics_of(self.rel, filter, where)


class SheetTable(RelationTable):
    """A child table (a sheet of a workbook)."""


class AggregateTable(RelationTable):
    """The group counts of a table (PROTOCOL 11.12): a temporary table, dropped at `close`."""

    checks_file = False

    def __init__(self, plugin: "DuckPlugin", agg: Aggregate) -> None:
        super().__init__(plugin, agg.rel)
        self.agg = agg

    def describe(self) -> dict[str, Any]:
        desc = {**self.rel.describe(), "rows": self.agg.rows, "largest": self.agg.largest}
        if self.agg.bins:
            desc["bins"] = self.agg.bins
        return desc

    def close(self) -> None:
        self.agg.drop()


class DerivedTable(RelationTable):
    """A describe table (PROTOCOL 11.13) or a query's result (11.14): dropped at `close`."""

    checks_file = False

    def __init__(self, plugin: "DuckPlugin", derived: Derived) -> None:
        super().__init__(plugin, derived.rel)
        self.derived = derived

    def close(self) -> None:
        self.derived.drop()


class DuckPlugin(TablePlugin):
    name, version = "duckdb", VERSION

    def __init__(self) -> None:
        super().__init__()
        self.db: Database | None = None
        self.rel: Relation | None = None
        self.workbook: Workbook | None = None
        self.path = ""
        self.in_place = False  # a Parquet file queried where it lies (not a loaded copy)
        self.seen: tuple[int, int] | None = None  # the file's (size, mtime) last looked at
        self.changed: RpcError | None = None
        self.input_ended = threading.Event()  # stdin closed: a request waiting for a load stops

    def capabilities(self) -> dict[str, bool]:
        return {"sort": True, "multiSort": True, "filter": True, "locate": True, "find": True, "children": True,
                "where": True, "aggregate": True, "describe": True, "query": True}

    def _dispatch(self, req: Any) -> Any:
        """The SDK's dispatch, and `find` (PROTOCOL 11.15), which it does not route."""
        if req.method != "find":
            return super()._dispatch(req)
        if not self._initialized:
            raise RpcError(INVALID_REQUEST, "initialize first")
        if req.params is not None and not isinstance(req.params, dict):
            raise RpcError(INVALID_PARAMS, "params must be an object")
        return answer_find(self, req.params or {})

    def guard(self, work: Callable[[], Any]) -> Any:
        """DuckDB's errors as protocol errors naming the file: never a traceback."""
        try:
            return work()
        except RpcError:
            raise
        except duckdb.Error as e:
            raise FileError(self.path, duck_message(e, self.path)) from None
        except (OSError, ValueError, EOFError) as e:
            raise FileError(self.path, str(e)) from None

    def open(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.rel is not None:
            raise RpcError(INVALID_PARAMS, "already open")
        path = args.get("path")
        if not isinstance(path, str) or not path:
            raise RpcError(INVALID_PARAMS, 'args.path: missing (the file to open, e.g. {"path": "sales.parquet"})',
                           {"field": "path"})
        path = os.path.expanduser(path)
        self.path = path
        fmt = args.get("format")
        if fmt is not None and fmt not in sniff.FORMATS:
            raise RpcError(INVALID_PARAMS, f"args.format: {fmt!r} is not one of {', '.join(sniff.FORMATS)}",
                           {"field": "format"})
        if not os.path.exists(path):
            raise FileError(path, "no such file", INVALID_PARAMS)
        if os.path.isdir(path):
            raise FileError(path, "a folder, not a file (the files plugin opens folders)", INVALID_PARAMS)
        try:
            kind = sniff.detect(path, fmt)
        except sniff.NotATable as e:
            raise FileError(path, f"not a table ({e})", INVALID_PARAMS) from None
        except sniff.Encrypted as e:
            raise FileError(path, f"{e}: it cannot be opened without its password", INVALID_PARAMS) from None
        except OSError as e:
            raise FileError(path, e.strerror or str(e), INVALID_PARAMS) from None
        loader = Loader(self, path, kind)
        self.seen = self.stamp()
        self.in_place = kind.format == "parquet" and kind.compression is None
        self.rel = self.guard(loader.open_file)
        if self.rel.has_children:
            self.workbook = loader.workbook_ref
        desc = self.guard(self.rel.describe)
        # The names `query` reads the file by, for completion after `sql` (PROTOCOL.md 10.1).
        return {"table": "root", **desc, "sqlNames": self.guard(lambda: table_names(self))}

    def columns(self) -> list[dict[str, Any]]:
        return self.rel.columns() if self.rel else [{"id": "none", "type": "text"}]

    def count(self) -> int | None:
        return self.guard(lambda: self.rel.count(None)) if self.rel else 0

    def rows(self, offset: int, limit: int, sort: list, filter: Any, where: list | None = None) -> Any:
        if self.rel is None:
            raise RpcError(INVALID_PARAMS, "open first")
        self.check_file()
        return self.guard(lambda: self.rel.rows(offset, limit, sort, filter, where))

    def locate(self, ids: list[str], sort: list, filter: Any, where: list | None = None) -> Any:
        if self.rel is None:
            raise RpcError(INVALID_PARAMS, "open first")
        self.check_file()
        return self.guard(lambda: self.rel.locate(ids, sort, filter, where))

    def find(self, text: str, start: int, backward: bool, wrap: bool, sort: list, filter: Any,
             where: list | None = None) -> Any:
        if self.rel is None:
            raise RpcError(INVALID_PARAMS, "open first")
        self.check_file()
        return self.guard(lambda: self.rel.find(text, start, backward, wrap, sort, filter, where))

    def aggregate(self, table: str, filter: Any, where: list, group: list) -> Table:
        if self.rel is None:
            raise RpcError(INVALID_PARAMS, "open first")
        self.check_file()
        return self.aggregate_of(self.rel, filter, where, group)

    def aggregate_of(self, rel: Relation, filter: Any, where: list, group: list) -> Table:
        """The group counts of `rel` as a table of their own (the SDK gives it a handle and
        calls its close() at `close`), with `progress` every second while they are counted."""
        what = ", ".join(g["column"] for g in group)
        agg = self.guard(lambda: progress_while(self, f"counting {what}", lambda: rel.aggregate(filter, where, group)))
        return AggregateTable(self, agg)

    def statistics(self, table: str, filter: Any, where: list) -> Table:
        if self.rel is None:
            raise RpcError(INVALID_PARAMS, "open first")
        self.check_file()
        return self.statistics_of(self.rel, filter, where)

    def statistics_of(self, rel: Relation, filter: Any, where: list) -> Table:
        """The column statistics of `rel` (PROTOCOL 11.13) as a table of their own."""
        got = self.guard(lambda: progress_while(self, f"describing {rel.title}", lambda: rel.statistics(filter, where)))
        return DerivedTable(self, got)

    def query(self, sql: str, sources: list[dict[str, str]] | None = None) -> Table:
        """The user's SQL (PROTOCOL 11.14), read-only, its result kept in a temporary table;
        the host's other files (`sources`) are views by their names."""
        if self.rel is None or self.db is None:
            raise RpcError(INVALID_PARAMS, "open first")
        self.check_file()
        self.guard(self.rel.wait)
        return DerivedTable(self, run_query(self, sql, sources))

    def stamp(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns

    def check_file(self) -> None:
        """A file that changed while open. A loaded copy (every format but plain Parquet) goes on
        showing the file as it was, and says so in the tab's status; a Parquet file read in place
        is read anew: the same columns give an `invalidate` with the new total, other columns
        (or no file, or a damaged one) an error on every request until it is right again."""
        now = self.stamp()
        if now != self.seen:
            self.seen = now
            name = os.path.basename(self.path)
            if not self.in_place:
                self.status(f"{name} changed on disk since it was opened: shown as it was then")
            elif now is None:
                self.changed = FileError(self.path, "the file was removed while open")
            else:
                self.changed = self.reread_parquet()
                if self.changed is None:
                    self.invalidate("root", total=self.rel.count(None))
        if self.changed is not None:
            raise self.changed

    def reread_parquet(self) -> RpcError | None:
        assert self.rel is not None and self.db is not None
        scan = f"read_parquet({quote_literal(self.path)}, file_row_number = true)"
        try:
            rel = self.db.con.sql(f"SELECT * EXCLUDE (file_row_number) FROM {scan}")
            now = list(zip(unique_ids(list(rel.columns)), [str(t) for t in rel.types]))
        except duckdb.Error as e:
            return FileError(self.path, "changed while open, and cannot be read now: " + duck_message(e, self.path))
        if now != [(c.id, c.duck_type) for c in self.rel.cols]:
            return FileError(self.path, "changed while open, and its columns are not the ones shown: open it again")
        self.rel._totals.clear()
        while self.rel._orders:
            _, old = self.rel._orders.popitem()
            self.db.query(f"DROP TABLE IF EXISTS {old}")
        return None

    def children(self, table: str, row_id: str) -> Table:
        if self.workbook is None or self.rel is None or not self.rel.has_children:
            raise RpcError(NOT_SUPPORTED, "the rows of this table have no children")
        try:
            index = int(row_id)
        except ValueError:
            index = -1
        if not 0 <= index < len(self.workbook.names):
            raise RpcError(INVALID_PARAMS, f"unknown row: {row_id}", {"row": row_id})
        return SheetTable(self, self.guard(lambda: self.workbook.sheet(index)))

    def _lines(self, read_chunk: Callable[[], bytes]) -> Any:
        yield from super()._lines(read_chunk)
        self.input_ended.set()

    def _cancel(self, params: Any) -> None:
        super()._cancel(params)
        with self._state_lock:
            running = self._current_id is not None and self._current_id in self._cancelled
        if running and self.db is not None:
            self.db.con.interrupt()
            side = self.db.side
            if side is not None:
                try:
                    side.interrupt()
                except Exception:  # noqa: BLE001 - the side database just closed: nothing to stop
                    pass

    def on_shutdown(self) -> None:
        if self.db is not None:
            self.db.close()


def main() -> int:
    try:
        remove_stale_temp_dirs()
    except OSError:
        pass
    plugin = DuckPlugin()
    try:
        return plugin.run()
    finally:
        if plugin.db is not None:
            plugin.db.close()


if __name__ == "__main__":
    raise SystemExit(main())
