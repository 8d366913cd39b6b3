"""Tests of the DuckDB plugin, run with its own environment's Python (they need duckdb, pyarrow,
openpyxl, msoffcrypto-tool); the system Python's `unittest discover -p 'test_*.py'` skips them by
their name. Run:

    Plugins/duckdb/.venv/bin/python -m unittest discover -s Plugins/duckdb -p 'venv_test_*.py'

Every fixture is made here, in a temporary folder: DuckDB's COPY TO (Parquet, CSV, JSON, gzip,
zstd), Python's bz2 and lzma, pyarrow (Feather, Arrow stream), openpyxl (.xlsx) and
msoffcrypto-tool (a password-protected .xlsx). Pages, sorts and filters are compared with
DuckDB's own answer to the same query on the same file; `tabdeck plugin check` runs on every
format (the host binary: TABDECK_BIN_DIR, else .build/debug or .build/release).
"""

from __future__ import annotations

import bz2
import concurrent.futures
import datetime as dt
import decimal
import gzip
import json
import lzma
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Plugins", "sdk", "python"))
from tabdeck_testing import PluginProcess, ResponseError  # noqa: E402

LAUNCHER = os.path.join(HERE, "tabdeck-duckdb")
ROWS = 500

# 500 rows: text with unicode, letter case, duplicates and NULLs; exact decimals past a double
# with NULLs and duplicates; integers past 2^53; a bool, a date, a timestamp (and one with a
# zone), a list and a struct.
BASE_SQL = f"""
CREATE TABLE base AS SELECT
  i AS id,
  CASE WHEN i % 13 = 0 THEN NULL ELSE ['Ada', 'ada', 'B', 'é', 'Zoë', '日本', 'a b'][1 + i % 7] || (i % 4)::VARCHAR END AS name,
  CASE WHEN i % 11 = 0 THEN NULL ELSE ('1234444433332222.4443432' || (i % 40)::VARCHAR)::DECIMAL(38,10) END AS amount,
  CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 9) - 4 END AS small,
  (1152921504606846976 + (i % 5))::BIGINT AS huge,
  (18446744073709551615::UBIGINT - (i % 5)::UBIGINT) AS uhuge,
  i % 3 = 0 AS flag,
  CASE WHEN i % 7 = 0 THEN NULL ELSE DATE '2024-01-01' + (i % 60)::INTEGER END AS day,
  TIMESTAMP '2024-03-01 08:00:00' + to_seconds((i * 7919) % 100000) AS ts,
  TIMESTAMPTZ '2024-03-01 08:00:00+00' + to_seconds((i * 31) % 5000) AS tstz,
  CASE WHEN i % 5 = 0 THEN NULL ELSE ['x' || (i % 3)::VARCHAR, 'y'] END AS tags,
  {{'k': i % 4, 'v': 'w' || (i % 2)::VARCHAR}} AS info
FROM range({ROWS}) t(i)
"""

# The reference scan of each fixture in DuckDB itself (an independent read of the same file).
TEXT_COLS = "id, name, amount, small, flag, day, ts"


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def write_bytes(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def tabdeck_binary() -> str | None:
    for d in (os.environ.get("TABDECK_BIN_DIR"), os.path.join(ROOT, ".build", "debug"),
              os.path.join(ROOT, ".build", "release")):
        if d and os.access(os.path.join(d, "tabdeck"), os.X_OK):
            return os.path.join(d, "tabdeck")
    return None


class Fixtures:
    """Writes every fixture once per run."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="tabdeck-duckdb-test-")
        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
        con.execute(BASE_SQL)
        self.files: dict[str, tuple[str, str]] = {}  # key -> (path, reference scan SQL)

        def add(key: str, name: str, scan: str) -> str:
            path = os.path.join(self.dir, name)
            self.files[key] = (path, scan.replace("PATH", "'" + path + "'"))
            return path

        p = add("parquet", "data.parquet", "read_parquet(PATH)")
        con.execute(f"COPY base TO '{p}' (FORMAT parquet)")
        flat = "SELECT id, name, amount, small, flag, day, ts FROM base"
        p = add("csv", "data.csv", "read_csv(PATH)")
        con.execute(f"COPY ({flat}) TO '{p}' (HEADER)")
        p = add("csv.gz", "data.csv.gz", "read_csv(PATH)")
        con.execute(f"COPY ({flat}) TO '{p}' (HEADER, COMPRESSION gzip)")
        p = add("csv.zst", "data.csv.zst", "read_csv(PATH)")
        con.execute(f"COPY ({flat}) TO '{p}' (HEADER, COMPRESSION zstd)")
        p = add("tsv", "data.tsv", "read_csv(PATH, delim = '\t')")
        con.execute(f"COPY ({flat}) TO '{p}' (HEADER, DELIMITER '\t')")
        csv_bytes = read_bytes(self.files["csv"][0])
        add("csv.bz2", "data.csv.bz2", "read_csv(" + repr(self.files["csv"][0]) + ")")
        write_bytes(self.files["csv.bz2"][0], bz2.compress(csv_bytes))
        # no extension at all: gzip, then CSV by its content
        add("gz-noext", "data-gz", "read_csv(" + repr(self.files["csv"][0]) + ")")
        write_bytes(self.files["gz-noext"][0], gzip.compress(csv_bytes))
        p = add("jsonl", "data.jsonl", "read_json(PATH, format = 'newline_delimited')")
        con.execute(f"COPY base TO '{p}' (FORMAT json)")
        p = add("jsonl.gz", "data.jsonl.gz", "read_json(PATH, format = 'newline_delimited')")
        con.execute(f"COPY base TO '{p}' (FORMAT json, COMPRESSION gzip)")
        jsonl_bytes = read_bytes(self.files["jsonl"][0])
        add("jsonl.xz", "data.jsonl.xz", "read_json(" + repr(self.files["jsonl"][0]) + ", format = 'newline_delimited')")
        write_bytes(self.files["jsonl.xz"][0], lzma.compress(jsonl_bytes))
        p = add("json", "data.json", "read_json(PATH, format = 'array')")
        con.execute(f"COPY base TO '{p}' (FORMAT json, ARRAY true)")
        import pyarrow.feather as feather
        import pyarrow.ipc as ipc
        arrow = con.execute("SELECT * FROM base ORDER BY id").arrow()
        if hasattr(arrow, "read_all"):
            arrow = arrow.read_all()
        p = add("feather", "data.feather", "read_parquet(" + repr(self.files["parquet"][0]) + ")")
        feather.write_feather(arrow, p)
        p = add("arrows", "data.arrows", "read_parquet(" + repr(self.files["parquet"][0]) + ")")
        with ipc.new_stream(p, arrow.schema) as w:
            w.write_table(arrow)
        add("parquet.zst", "data.parquet.zst", "read_parquet(" + repr(self.files["parquet"][0]) + ")")
        import zstandard
        write_bytes(self.files["parquet.zst"][0], 
            zstandard.ZstdCompressor().compress(read_bytes(self.files["parquet"][0])))
        self.make_workbooks(con)
        self.make_bad_files()
        con.close()

    def make_workbooks(self, con: duckdb.DuckDBPyConnection) -> None:
        import datetime as dt

        import openpyxl
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.title = "people"
        ws.append(["name", "age", "born", "member"])
        people = [("Ada", 36, dt.date(1915, 12, 10), True), ("Émile", None, dt.date(1900, 1, 2), False),
                  ("zoë", 7, None, True), ("Ada", 36, dt.date(1999, 5, 6), False)]
        for r in people:
            ws.append(list(r))
        ws2 = wb.create_sheet("prices")
        ws2.append(["item", "price"])
        for i in range(30):
            ws2.append([f"item{i % 9}", None if i % 6 == 0 else round(i * 1.25, 2)])
        self.xlsx = os.path.join(self.dir, "book.xlsx")
        wb.save(self.xlsx)
        one = openpyxl.Workbook()
        one.active.title = "only"
        one.active.append(["k", "v"])
        for i in range(12):
            one.active.append([f"key{i}", i * 10])
        self.xlsx_one = os.path.join(self.dir, "one.xlsx")
        one.save(self.xlsx_one)
        import msoffcrypto.format.ooxml
        self.xlsx_locked = os.path.join(self.dir, "locked.xlsx")
        with open(self.xlsx_one, "rb") as src, open(self.xlsx_locked, "wb") as out:
            msoffcrypto.format.ooxml.OOXMLFile(src).encrypt("secret", out)

    def make_bad_files(self) -> None:
        d = self.dir
        parquet = read_bytes(self.files["parquet"][0])
        self.bad_parquet = os.path.join(d, "cut.parquet")
        write_bytes(self.bad_parquet, parquet[: len(parquet) // 2])
        gz = read_bytes(self.files["csv.gz"][0])
        self.bad_gzip = os.path.join(d, "cut.csv.gz")
        write_bytes(self.bad_gzip, gz[: len(gz) * 2 // 3])
        self.bad_json = os.path.join(d, "bad.jsonl")
        with open(self.bad_json, "w") as f:
            f.write('{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n\n{"a": 3, "b": \n{"a": 4, "b": "z"}\n')
        self.binary = os.path.join(d, "program.bin")
        write_bytes(self.binary, b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 40)
        self.empty = os.path.join(d, "empty.csv")
        open(self.empty, "wb").close()

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


FIX: Fixtures | None = None


def setUpModule() -> None:
    global FIX
    FIX = Fixtures()


def tearDownModule() -> None:
    if FIX is not None:
        FIX.close()


class Plugin:
    """The plugin process, initialized and opened on `args`."""

    def __init__(self, args: dict, env: dict | None = None) -> None:
        self.p = PluginProcess([LAUNCHER], env=env)
        self.caps = self.p.initialize(timeout=20)["capabilities"]
        msg = self.p.request("open", {"args": args}, timeout=60)
        self.error = msg.get("error")
        self.desc = msg.get("result")
        self.gen = 0

    def rows(self, offset=0, limit=1000, sort=(), filter=None, table="root", where=None):
        self.gen += 1
        params = {"table": table, "offset": offset, "limit": limit, "sort": list(sort),
                  "filter": filter, "generation": self.gen}
        if where is not None:
            params["where"] = where
        return self.p.call("rows", params, timeout=60)

    def all_rows(self, sort=(), filter=None, table="root", page=137, where=None):
        out, offset = [], 0
        while True:
            got = self.rows(offset, page, sort, filter, table, where)
            out += got["rows"]
            if len(got["rows"]) < page:
                return out, got["total"]
            offset += page

    def all_ids(self, sort=(), filter=None, table="root", page=137, where=None):
        rows, total = self.all_rows(sort, filter, table, page, where)
        return [r["id"] for r in rows], total

    def close(self) -> None:
        try:
            self.p.shutdown()
        finally:
            self.p.close()


def keys(*spec: str) -> list[dict]:
    out = []
    for s in spec:
        col, _, d = s.partition(" ")
        out.append({"column": col, "direction": d or "asc"})
    return out


def reference_ids(scan: str, sort: list[dict], needle: str | None = None) -> list[str]:
    """DuckDB's own answer: the file read again with its row number, ordered by the keys with
    nulls the smallest value (first ascending, last descending), ties by the row number in the
    direction of the last key (PROTOCOL 11.3)."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"CREATE TABLE ref AS SELECT * FROM {scan}")
    terms = []
    for k in sort:
        q = '"' + k["column"] + '"'
        terms.append(f"{q} DESC NULLS LAST" if k["direction"] == "desc" else f"{q} ASC NULLS FIRST")
    last_desc = bool(sort) and sort[-1]["direction"] == "desc"
    terms.append("rowid DESC" if last_desc else "rowid ASC")
    where = ""
    params: list = []
    if needle is not None:
        filter_cols = [d[0] for d in con.execute("SELECT * FROM ref LIMIT 0").description]
        where = " WHERE " + " OR ".join(
            f"contains(lower(CAST(\"{c}\" AS VARCHAR)), lower(?))" for c in filter_cols)
        params = [needle] * len(filter_cols)
    got = con.execute(f"SELECT rowid FROM ref{where} ORDER BY {', '.join(terms)}", params).fetchall()
    con.close()
    return [str(r[0]) for r in got]


SORTS = [
    keys("amount asc"), keys("amount desc"), keys("name asc"), keys("name desc"),
    keys("name asc", "amount desc"), keys("day desc", "small asc"), keys("flag asc", "name desc", "small desc"),
    keys("small asc"), keys("ts desc"),
]


class FormatsTest(unittest.TestCase):
    """Every format: the natural order, sorts and filters against DuckDB's answer."""

    def check_format(self, key: str, columns: list[str], env: dict | None = None) -> None:
        path, scan = FIX.files[key]
        pl = Plugin({"path": path}, env)
        try:
            self.assertIsNone(pl.error, f"{key}: {pl.error}")
            self.assertEqual(pl.desc["total"], ROWS)
            ids = [c["id"] for c in pl.desc["columns"]]
            for c in columns:
                self.assertIn(c, ids, key)
            natural, total = pl.all_ids()
            self.assertEqual(total, ROWS)
            self.assertEqual(natural, [str(i) for i in range(ROWS)], f"{key}: natural order")
            # the id column tells the file's row: the natural order is the file's order
            page = pl.rows(0, 5)["rows"]
            self.assertEqual([r["cells"][ids.index("id")] for r in page], [0, 1, 2, 3, 4])
            for sort in SORTS:
                got, _ = pl.all_ids(sort)
                self.assertEqual(got, reference_ids(scan, sort), f"{key}: sort {sort}")
            # paging in the middle of a sorted view joins up with reading it whole
            sort = keys("name desc", "amount asc")
            whole = [r["id"] for r in pl.rows(0, 1000, sort)["rows"]]
            self.assertEqual([r["id"] for r in pl.rows(123, 77, sort)["rows"]], whole[123:200])
            for needle in ("ADA", "zoë", "日本", "2024-01-1", "-3", "no such text"):
                got, total = pl.all_ids(keys("amount desc"), needle)
                want = reference_ids(scan, keys("amount desc"), needle)
                self.assertEqual(got, want, f"{key}: filter {needle!r}")
                self.assertEqual(total, len(want))
            # locate: where rows went in a sorted, filtered view
            sort = keys("day desc", "name asc")
            view, _ = pl.all_ids(sort, "a")
            for pos in (0, len(view) // 2, len(view) - 1):
                got = pl.p.call("locate", {"table": "root", "rows": ["999999", view[pos]], "sort": sort,
                                           "filter": "a", "generation": 99})
                self.assertEqual(got, {"row": view[pos], "offset": pos}, key)
            outside = sorted(set(map(str, range(ROWS))) - set(view))
            if outside:
                got = pl.p.call("locate", {"table": "root", "rows": [outside[0]], "sort": sort,
                                           "filter": "a", "generation": 99})
                self.assertEqual(got, {"row": None})
        finally:
            pl.close()

    def test_parquet(self):
        self.check_format("parquet", ["id", "name", "amount", "small", "huge", "flag", "day", "ts", "tags"])

    def test_deep_pages_from_a_whole_order(self):
        # every sorted page past row 0 from a materialized order (TOP_N_ROWS, normally 10,000)
        for key in ("parquet", "csv.gz"):
            with self.subTest(key):
                self.check_format(key, ["id", "name", "amount"], {"TABDECK_DUCKDB_TOP_N_ROWS": "0"})

    def test_parquet_zstd(self):
        self.check_format("parquet.zst", ["id", "name", "amount", "tags"])

    def test_csv(self):
        self.check_format("csv", ["id", "name", "amount", "small", "flag", "day", "ts"])

    def test_csv_gzip(self):
        self.check_format("csv.gz", ["id", "name", "amount"])

    def test_csv_zstd(self):
        self.check_format("csv.zst", ["id", "name", "amount"])

    def test_csv_bzip2(self):
        self.check_format("csv.bz2", ["id", "name", "amount"])

    def test_gzip_without_extension(self):
        self.check_format("gz-noext", ["id", "name", "amount"])

    def test_tsv(self):
        self.check_format("tsv", ["id", "name", "amount"])

    def test_jsonl(self):
        self.check_format("jsonl", ["id", "name", "amount", "tags"])

    def test_jsonl_gzip(self):
        self.check_format("jsonl.gz", ["id", "name", "amount", "tags"])

    def test_jsonl_xz(self):
        self.check_format("jsonl.xz", ["id", "name", "amount", "tags"])

    def test_json_array(self):
        self.check_format("json", ["id", "name", "amount", "tags"])

    def test_feather(self):
        self.check_format("feather", ["id", "name", "amount", "huge", "tags"])

    def test_arrow_stream(self):
        self.check_format("arrows", ["id", "name", "amount", "huge", "tags"])


class CommandLineTest(unittest.TestCase):
    """`tabdeck FILE -e ...` with the real host: recognised by its content, opened in the DuckDB
    plugin, sorted and filtered as DuckDB answers the same query."""

    def run_tabdeck(self, path: str, *commands: str) -> dict:
        binary = tabdeck_binary()
        if binary is None:
            self.fail("no tabdeck binary: run swift build --product tabdeck (or set TABDECK_BIN_DIR)")
        state = tempfile.mkdtemp(prefix="tabdeck-duckdb-cli-")
        self.addCleanup(shutil.rmtree, state, True)
        argv = [binary, "--state-dir", state, "--output", "json", path]
        for c in commands:
            argv += ["-e", c]
        r = subprocess.run(argv, capture_output=True, text=True, cwd=state, timeout=120, start_new_session=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout.splitlines()[-1])["result"]

    def test_each_format_from_the_command_line(self) -> None:
        for key in ("parquet", "jsonl.gz", "json", "feather", "csv.bz2", "parquet.zst"):
            with self.subTest(key):
                path, scan = FIX.files[key]
                shown = self.run_tabdeck(path, "sort amount desc", "show 10")
                self.assertEqual([r["id"] for r in shown["rows"]], reference_ids(scan, keys("amount desc"))[:10])
                filtered = self.run_tabdeck(path, "filter ann", "sort name", "show 5")
                self.assertEqual([r["id"] for r in filtered["rows"]],
                                 reference_ids(scan, keys("name asc"), needle="ann")[:5])


class SniffingTest(unittest.TestCase):
    """Files whose first rows mislead: the types, or the JSON layout."""

    def test_csv_type_that_fails_late(self):
        path = os.path.join(FIX.dir, "late.csv")
        with open(path, "w") as f:
            f.write("a,b\n" + "".join(f"{i},x\n" for i in range(30000)) + "notanumber,y\n")
        pl = Plugin({"path": path})
        try:
            self.assertIsNone(pl.error)
            self.assertEqual(pl.desc["total"], 30001)
            self.assertEqual(pl.desc["columns"][0]["type"], "text")
            self.assertEqual(pl.rows(0, 1, keys("a desc"))["rows"][0]["cells"], ["notanumber", "y"])
        finally:
            pl.close()

    def test_semicolons_bom_crlf_and_quoted_newlines(self):
        path = os.path.join(FIX.dir, "semi.txt")
        write_bytes(path, b'\xef\xbb\xbfname;note;amount\r\n"Ada";"line one\r\nline two";3.5\r\n"Bob";"x";4\r\n')
        pl = Plugin({"path": path})
        try:
            self.assertIsNone(pl.error)
            self.assertEqual([c["id"] for c in pl.desc["columns"]], ["name", "note", "amount"])
            self.assertEqual([r["cells"] for r in pl.rows()["rows"]],
                             [["Ada", "line one\r\nline two", 3.5], ["Bob", "x", 4]])
        finally:
            pl.close()

    def test_pretty_printed_json_object(self):
        path = os.path.join(FIX.dir, "pretty.json")
        with open(path, "w") as f:
            f.write('{\n  "a": 1,\n  "b": [1, 2]\n}\n')
        pl = Plugin({"path": path})
        try:
            self.assertIsNone(pl.error)
            self.assertEqual(pl.rows()["rows"][0]["cells"], [1, "[1,2]"])
        finally:
            pl.close()

    def test_enum_sorts_in_declared_order(self):
        import pyarrow as pa
        import pyarrow.feather as feather
        path = os.path.join(FIX.dir, "enum.feather")
        levels = ["low", "mid", "high"]
        values = ["high", None, "low", "mid", "low", "high"]
        indices = pa.array([None if v is None else levels.index(v) for v in values], pa.int8())
        feather.write_feather(pa.table({"level": pa.DictionaryArray.from_arrays(indices, levels)}), path)
        pl = Plugin({"path": path})
        try:
            col = pl.desc["columns"][0]
            self.assertEqual((col["type"], col["values"]), ("enum", levels))
            got = [r["cells"][0] for r in pl.rows(0, 10, keys("level asc"))["rows"]]
            self.assertEqual(got, [None, "low", "low", "mid", "high", "high"])
        finally:
            pl.close()


EARLY = {"TABDECK_DUCKDB_EARLY_BYTES": "0"}  # every text file: first pages while it loads


class EarlyPagesTest(unittest.TestCase):
    """A big text file answers `open` and its first pages before it is loaded; the rest waits."""

    def test_pages_while_loading_then_invalidate(self):
        for key in ("jsonl", "csv.gz"):
            with self.subTest(key):
                path, scan = FIX.files[key]
                pl = Plugin({"path": path}, EARLY)
                try:
                    self.assertIsNone(pl.error)
                    self.assertIn(pl.desc["total"], (None, ROWS))
                    first = pl.rows(0, 10)["rows"]
                    self.assertEqual([r["id"] for r in first], [str(i) for i in range(10)])
                    done = pl.p.notification("invalidate", timeout=30)
                    self.assertEqual(done["params"], {"table": "root", "total": ROWS})
                    self.assertEqual(pl.rows(0, 10)["rows"], first)  # the same cells from the table
                    got, total = pl.all_ids(keys("amount desc", "name asc"))
                    self.assertEqual(total, ROWS)
                    self.assertEqual(got, reference_ids(scan, keys("amount desc", "name asc")))
                finally:
                    pl.close()

    def test_sorted_request_waits_for_the_load(self):
        pl = Plugin({"path": FIX.files["jsonl.gz"][0]}, EARLY)
        try:
            got = pl.rows(0, 5, keys("id desc"))
            self.assertEqual(got["total"], ROWS)
            self.assertEqual([r["id"] for r in got["rows"]], ["499", "498", "497", "496", "495"])
        finally:
            pl.close()

    def test_exit_while_loading(self):
        # closing DuckDB under a running load would abort the process: it is interrupted first
        path = os.path.join(FIX.dir, "big.jsonl")
        con = duckdb.connect()
        con.execute(f"COPY (SELECT range AS n, 'text ' || range AS s FROM range(400000)) TO '{path}' (FORMAT json)")
        con.close()
        for stop in ("open", "page"):
            with self.subTest(stop):
                pl = Plugin({"path": path}, EARLY)
                self.assertIsNone(pl.error)
                if stop == "page":
                    pl.rows(0, 5)
                pl.p.close_stdin()
                self.assertEqual(pl.p.wait_exit(5), 0, pl.p.stderr_text[-500:])
                pl.p.close()

    def test_truncated_gzip_fails_the_requests_after_open(self):
        pl = Plugin({"path": FIX.bad_gzip}, EARLY)
        try:
            if pl.error is None:
                with self.assertRaises(ResponseError) as e:
                    pl.rows(0, 5, keys(pl.desc["columns"][0]["id"] + " desc"))
                error = {"message": e.exception.message, "data": e.exception.data}
            else:
                error = pl.error
            self.assertTrue(error["message"].startswith("cut.csv.gz: the gzip data ends early"), error)
            self.assertGreater(error["data"]["line"], 1)
        finally:
            pl.close()


class CellsTest(unittest.TestCase):
    """Cell encoding (PROTOCOL 10.3) and the type mapping on the Parquet fixture."""

    @classmethod
    def setUpClass(cls):
        cls.pl = Plugin({"path": FIX.files["parquet"][0]})
        cls.cols = {c["id"]: c for c in cls.pl.desc["columns"]}
        cls.index = {c["id"]: i for i, c in enumerate(cls.pl.desc["columns"])}
        cls.page = cls.pl.rows(0, 30)["rows"]

    @classmethod
    def tearDownClass(cls):
        cls.pl.close()

    def cell(self, row, col):
        return self.page[row]["cells"][self.index[col]]

    def test_types(self):
        want = {"id": "integer", "name": "text", "amount": "decimal", "small": "integer", "huge": "integer", "uhuge": "integer",
                "flag": "bool", "day": "date", "ts": "text", "tstz": "date", "tags": "text", "info": "text"}
        self.assertEqual({k: c["type"] for k, c in self.cols.items()}, want)
        self.assertEqual(self.cols["amount"]["decimals"], 10)
        self.assertNotIn("order", self.cols["tags"])  # sorted as its JSON text

    def test_exact_decimals_and_big_integers(self):
        self.assertIsNone(self.cell(0, "amount"))
        self.assertEqual(self.cell(1, "amount"), "1234444433332222.4443432100")
        self.assertEqual(self.cell(1, "huge"), "1152921504606846977")  # past 2^53: its digits
        self.assertEqual(self.cell(0, "uhuge"), "18446744073709551615")
        self.assertEqual(self.cell(4, "small"), 0)

    def test_nested_and_dates(self):
        self.assertEqual(self.cell(1, "tags"), '["x1","y"]')
        self.assertIsNone(self.cell(5, "tags"))
        self.assertEqual(self.cell(1, "info"), '{"k":1,"v":"w1"}')
        self.assertEqual(self.cell(1, "day"), "2024-01-02")
        self.assertIsNone(self.cell(7, "day"))
        self.assertEqual(self.cell(0, "ts"), "2024-03-01 08:00:00")
        self.assertEqual(self.cell(1, "tstz"), "2024-03-01 08:00:31+00")
        self.assertIs(self.cell(0, "flag"), True)

    def test_text_order_is_unicode_order(self):
        got = self.pl.rows(0, 1000, keys("name asc"))["rows"]
        names = [r["cells"][self.index["name"]] for r in got]
        present = [n for n in names if n is not None]
        self.assertEqual(names[: names.count(None)], [None] * names.count(None))  # nulls smallest
        self.assertEqual(present, sorted(present))  # Python's str order: code points
        self.assertLess(present.index("B0"), present.index("a b0"))

    def test_nested_values_sort_as_their_json_text(self):
        got = self.pl.rows(0, 1000, keys("info desc", "id asc"))["rows"]
        texts = [r["cells"][self.index["info"]] for r in got]
        self.assertEqual(texts, sorted(texts, reverse=True))
        ids = [int(r["id"]) for r in got if r["cells"][self.index["info"]] == texts[0]]
        self.assertEqual(ids, sorted(ids))  # ties by the next key, ascending

    def test_unknown_sort_column(self):
        with self.assertRaises(ResponseError) as e:
            self.pl.rows(0, 10, keys("nope asc"))
        self.assertEqual(e.exception.code, -32602)


class WorkbookTest(unittest.TestCase):
    def test_sheets_are_children(self):
        pl = Plugin({"path": FIX.xlsx})
        try:
            self.assertIsNone(pl.error)
            self.assertEqual([c["id"] for c in pl.desc["columns"]], ["sheet", "rows", "columns"])
            rows = pl.rows()["rows"]
            self.assertEqual([r["cells"] for r in rows], [["people", 4, 4], ["prices", 30, 2]])
            self.assertTrue(all(r.get("hasChildren") for r in rows))
            child = pl.p.call("children", {"table": "root", "row": rows[0]["id"]})
            self.assertEqual(child["title"], "people")
            types = {c["id"]: c["type"] for c in child["columns"]}
            self.assertEqual(types, {"name": "text", "age": "integer", "born": "date", "member": "bool"})
            got = pl.rows(0, 10, keys("age desc", "born asc"), table=child["table"])["rows"]
            self.assertEqual([r["cells"] for r in got], [
                ["Ada", 36, "1915-12-10", True], ["Ada", 36, "1999-05-06", False],
                ["zoë", 7, None, True], ["Émile", None, "1900-01-02", False]])
            got = pl.rows(0, 10, [], "ÉMI", table=child["table"])
            self.assertEqual(got["total"], 1)
            prices = pl.p.call("children", {"table": "root", "row": rows[1]["id"]})
            got = pl.rows(0, 3, keys("price desc"), table=prices["table"])["rows"]
            self.assertEqual([r["cells"] for r in got], [["item2", 36.25], ["item1", 35.0], ["item0", 33.75]])
        finally:
            pl.close()

    def test_one_sheet_opens_on_it_and_sheet_arg(self):
        pl = Plugin({"path": FIX.xlsx_one})
        try:
            self.assertEqual(pl.desc["title"], "only")
            self.assertEqual(pl.desc["total"], 12)
        finally:
            pl.close()
        pl = Plugin({"path": FIX.xlsx, "sheet": "prices"})
        try:
            self.assertEqual(pl.desc["total"], 30)
        finally:
            pl.close()
        pl = Plugin({"path": FIX.xlsx, "sheet": "nope"})
        try:
            self.assertEqual(pl.error["code"], -32602)
            self.assertIn("no sheet named 'nope'", pl.error["message"])
        finally:
            pl.close()


class BadInputTest(unittest.TestCase):
    """Each gets one clear error naming the file and the place, and the plugin goes on."""

    def open_error(self, args: dict) -> dict:
        pl = Plugin(args)
        try:
            self.assertIsNone(pl.desc, "expected an error")
            # still alive and answering after the error
            self.assertEqual(pl.p.request("nope/method", {})["error"]["code"], -32601)
            self.assertNotIn("Traceback", pl.p.stderr_text)
            return pl.error
        finally:
            pl.close()

    def test_missing_path(self):
        err = self.open_error({"path": os.path.join(FIX.dir, "nothing.csv")})
        self.assertEqual(err["code"], -32602)
        self.assertEqual(err["message"], "nothing.csv: no such file")

    def test_no_path_and_bad_format(self):
        self.assertIn("args.path", self.open_error({})["message"])
        self.assertIn("args.format", self.open_error({"path": FIX.xlsx, "format": "pdf"})["message"])

    def test_truncated_parquet(self):
        err = self.open_error({"path": FIX.bad_parquet})
        self.assertTrue(err["message"].startswith("cut.parquet: not a complete Parquet file"), err)

    def test_truncated_gzip(self):
        err = self.open_error({"path": FIX.bad_gzip})
        self.assertTrue(err["message"].startswith("cut.csv.gz: the gzip data ends early"), err)
        self.assertGreater(err["data"]["line"], 1)

    def test_bad_json_line(self):
        err = self.open_error({"path": FIX.bad_json})
        self.assertTrue(err["message"].startswith("bad.jsonl: line 4 is not valid JSON"), err)
        self.assertEqual(err["data"]["line"], 4)

    def test_password_protected_workbook(self):
        err = self.open_error({"path": FIX.xlsx_locked})
        self.assertIn("locked.xlsx: password-protected", err["message"])

    def test_not_a_table(self):
        err = self.open_error({"path": FIX.binary})
        self.assertRegex(err["message"], r"^program\.bin: not a table \(binary, [0-9.]+ KB, starts 7F 45 4C 46\)$")
        self.assertIn("empty.csv: not a table (empty file)", self.open_error({"path": FIX.empty})["message"])

    def test_folder(self):
        self.assertIn("a folder", self.open_error({"path": FIX.dir})["message"])


class ChangedFileTest(unittest.TestCase):
    """A file that changes while open (issue 24, point 8)."""

    def test_parquet_read_anew(self):
        path = os.path.join(FIX.dir, "changing.parquet")
        con = duckdb.connect()
        con.execute(f"COPY (SELECT range AS n, 'x' || range AS s FROM range(10)) TO '{path}' (FORMAT parquet)")
        pl = Plugin({"path": path})
        try:
            self.assertEqual(pl.rows()["total"], 10)
            con.execute(f"COPY (SELECT range AS n, 'y' || range AS s FROM range(4)) TO '{path}' (FORMAT parquet)")
            os.utime(path, ns=(1, 1))
            got = pl.rows()
            self.assertEqual((got["total"], got["rows"][0]["cells"]), (4, [0, "y0"]))
            self.assertEqual(pl.p.notification("invalidate")["params"], {"table": "root", "total": 4})
            con.execute(f"COPY (SELECT 'z' AS other FROM range(3)) TO '{path}' (FORMAT parquet)")
            os.utime(path, ns=(2, 2))
            with self.assertRaises(ResponseError) as e:
                pl.rows()
            self.assertIn("changing.parquet: changed while open, and its columns are not the ones shown",
                          e.exception.message)
            os.remove(path)
            with self.assertRaises(ResponseError) as e:
                pl.rows()
            self.assertEqual(e.exception.message, "changing.parquet: the file was removed while open")
        finally:
            pl.close()
            con.close()

    def test_loaded_copy_goes_on(self):
        path = os.path.join(FIX.dir, "changing.csv")
        write_bytes(path, b"a,b\n1,x\n2,y\n")
        pl = Plugin({"path": path})
        try:
            write_bytes(path, b"a,b\n9,z\n")
            os.utime(path, ns=(1, 1))
            got = pl.rows()
            self.assertEqual([r["cells"] for r in got["rows"]], [[1, "x"], [2, "y"]])
            status = pl.p.notification("status")["params"]["text"]
            self.assertEqual(status, "changing.csv changed on disk since it was opened: shown as it was then")
        finally:
            pl.close()


# --------------------------------------------------------------------------- where and aggregate

# The data of the `where` and `aggregate` tests, made here in plain Python, written by pyarrow to
# a Feather file (loaded into a table; its dictionary column an ENUM) and a Parquet file (queried
# in place; the same column is text there). Every expected answer is computed below from these
# Python values, by the test's own reading of PROTOCOL 11.11 and 11.12, never by DuckDB.
AGG_ROWS = 600
NAMES = ["Ada", "ada", "ADA", "Zoë", "zoë", "é", "e", "B", "日本", "a b", ""]
LEVELS = ["low", "mid", "high"]  # declared order, not alphabetical
UTC = dt.timezone.utc
EXACT = decimal.Decimal("1234444433332222.4443432100")  # past a double
DST_START = dt.datetime(2024, 3, 29, 0, 0, tzinfo=UTC)  # Europe/Berlin goes CET -> CEST on 2024-03-31 01:00Z


def agg_data() -> dict[str, list]:
    rng = random.Random(1234)
    cols: dict[str, list] = {k: [] for k in ("id", "name", "qty", "price", "cents", "exact", "ratio", "day",
                                             "at", "level", "flag")}
    for i in range(AGG_ROWS):
        cols["id"].append(i)
        cols["name"].append(None if i % 13 == 0 else NAMES[(i * 5) % len(NAMES)])
        qty = rng.randint(-50, 1234)
        qty = -10 if i % 41 == 2 else 10 if i % 43 == 4 else 7 if i % 29 == 6 else qty
        cols["qty"].append(None if i % 10 == 7 else qty)
        price = decimal.Decimal(rng.randint(-2000, 60000)) / 100
        price = decimal.Decimal("3.00") if i % 25 == 3 else decimal.Decimal("-1.50") if i % 37 == 5 else price
        cols["price"].append(None if i % 11 == 0 else price.quantize(decimal.Decimal("0.01")))
        cols["cents"].append(None if i % 19 == 0 else (decimal.Decimal((i * 7) % 46) / 100).quantize(decimal.Decimal("0.01")))
        cols["exact"].append(None if i % 23 == 1 else EXACT + decimal.Decimal(i % 7).scaleb(-10))
        ratio = None if i % 23 == 0 else math.nan if i % 29 == 0 else math.inf if i % 31 == 0 else \
            -math.inf if i % 37 == 1 else (i % 13) / 10
        cols["ratio"].append(ratio)
        cols["day"].append(None if i % 17 == 0 else dt.date(2023, 1, 1) + dt.timedelta(days=(i * 7) % 730))
        cols["at"].append(None if i % 15 == 0 else DST_START + dt.timedelta(minutes=(i * 617) % (88 * 60)))
        cols["level"].append(None if i % 10 == 0 else LEVELS[i % 3])
        cols["flag"].append(None if i % 9 == 0 else i % 4 in (0, 1))
    return cols


def write_agg_files(d: str) -> dict[str, str]:
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq
    data = agg_data()
    level = pa.DictionaryArray.from_arrays(
        pa.array([None if v is None else LEVELS.index(v) for v in data["level"]], pa.int8()), LEVELS)
    table = pa.table({
        "id": pa.array(data["id"], pa.int64()), "name": pa.array(data["name"], pa.string()),
        "qty": pa.array(data["qty"], pa.int64()), "price": pa.array(data["price"], pa.decimal128(12, 2)),
        "cents": pa.array(data["cents"], pa.decimal128(6, 2)), "exact": pa.array(data["exact"], pa.decimal128(38, 10)),
        "ratio": pa.array(data["ratio"], pa.float64()), "day": pa.array(data["day"], pa.date32()),
        "at": pa.array(data["at"], pa.timestamp("us", tz="Europe/Berlin")), "level": level,
        "flag": pa.array(data["flag"], pa.bool_())})
    files = {"feather": os.path.join(d, "agg.feather"), "parquet": os.path.join(d, "agg.parquet")}
    feather.write_feather(table, files["feather"])
    pq.write_table(table, files["parquet"])
    return files


DATA = agg_data()
KIND = {"id": "int", "name": "text", "qty": "int", "price": "dec", "cents": "dec", "exact": "dec", "ratio": "float",
        "day": "date", "at": "date", "level": "enum", "flag": "bool"}


def instant(v):
    """A date or a timestamp as its instant: a date alone is its midnight UTC (PROTOCOL 11.11)."""
    if isinstance(v, dt.datetime):
        return (v if v.tzinfo else v.replace(tzinfo=UTC)).astimezone(UTC)
    return dt.datetime(v.year, v.month, v.day, tzinfo=UTC)


def ref_value(col: str, value, enum: bool):
    """A `where` value (as sent) as the test's own Python value of the column."""
    kind = KIND[col]
    if kind == "int":
        return int(value)
    if kind == "dec":
        return decimal.Decimal(str(value))
    if kind == "float":
        return float(value)
    if kind == "date":
        return instant(dt.datetime.fromisoformat(value))
    return value


def ref_key(col: str, v, enum: bool):
    """Orders the values of one column as PROTOCOL 11.3 does (the column not null)."""
    kind = KIND[col]
    if kind in ("dec", "float"):
        x = decimal.Decimal(v) if isinstance(v, float) and math.isfinite(v) else v
        if isinstance(x, float) or not x.is_finite():
            f = float(x)
            return (3,) if math.isnan(f) else (2,) if f > 0 else (0,)
        return (1, Fraction(x))
    if kind == "date":
        return instant(v)
    if kind == "enum" and enum:
        return LEVELS.index(v)
    return v


def ref_meets(col: str, v, cond: dict, enum: bool) -> bool:
    op = cond["op"]
    if op == "null":
        return v is None
    if v is None:
        return False
    if op == "notNull":
        return True
    key = lambda x: ref_key(col, x, enum)  # noqa: E731
    if op == "in":
        wanted = [ref_value(col, w, enum) for w in cond["values"]]
        return any((v == w) if KIND[col] == "text" else key(v) == key(w) for w in wanted)
    if op == "between":
        low, high = (key(ref_value(col, w, enum)) for w in cond["values"])
        return low <= key(v) <= high
    w = ref_value(col, cond["value"], enum)
    a, b = key(v), key(w)
    if KIND[col] == "text" and op in ("=", "!="):
        a, b = v, w
    return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def ref_kept(where: list, enum: bool, needle: str | None = None) -> list[int]:
    """The rows `where` and a filter on the name column keep (the needles used match no other
    column's text), in the natural order."""
    return [i for i in range(AGG_ROWS)
            if all(ref_meets(c["column"], DATA[c["column"]][i], c, enum) for c in where)
            and (needle is None or (DATA["name"][i] is not None and needle.lower() in DATA["name"][i].lower()))]


def w(column: str, op: str, *values) -> dict:
    c = {"column": column, "op": op}
    if op in ("between", "in"):
        c["values"] = list(values)
    elif op not in ("null", "notNull"):
        c["value"] = values[0]
    return c


WHERE_CASES = [
    [w("qty", "=", 7)], [w("qty", "!=", 7)], [w("qty", "<", 0)], [w("qty", "<=", 0)], [w("qty", ">", 1000)],
    [w("qty", ">=", 1000)], [w("qty", "between", -10, 10)], [w("qty", "between", "-10", "10")],
    [w("qty", "in", 1, 2, 3, 7, 999999)], [w("qty", "null")], [w("qty", "notNull")],
    [w("qty", "=", "1180591620717411303424")], [w("qty", "<", "1180591620717411303424")],  # past BIGINT
    [w("qty", ">", "-1180591620717411303424")], [w("qty", "in", "1180591620717411303424", 10)],
    [w("price", "=", "3")], [w("price", "=", 3.0)], [w("price", "=", "3.000")], [w("price", "!=", "3.00")],
    [w("price", ">", "2.995")], [w("price", "<=", "2.995")], [w("price", ">=", "2.995")], [w("price", "<", "2.995")],
    [w("price", "=", "2.995")], [w("price", "!=", "2.995")], [w("price", "between", "-1.5", "3")],
    [w("price", "<", "Infinity")], [w("price", ">=", "NaN")], [w("price", ">", "-Infinity")],
    [w("price", "<", "99999999999999999999")], [w("price", "in", "3", "-1.500", "0.001")],
    [w("exact", "=", "1234444433332222.44434321")], [w("exact", ">", "1234444433332222.44434321005")],
    [w("exact", "<=", "1234444433332222.4443432102")], [w("exact", "=", "1234444433332222.4443432100001")],
    [w("ratio", ">", 0.5)], [w("ratio", ">=", "NaN")], [w("ratio", "<", "Infinity")], [w("ratio", "=", "-Infinity")],
    [w("ratio", "=", 0.1)], [w("ratio", "between", "0.2", "0.7")],
    [w("name", "=", "Ada")], [w("name", "!=", "Ada")], [w("name", "<", "a")], [w("name", ">=", "é")],
    [w("name", "in", "é", "Zoë", "日本")], [w("name", "=", "")], [w("name", "null")], [w("name", "=", "ada ")],
    [w("day", "=", "2024-03-31")], [w("day", "=", "2024-03-31T00:00:00Z")], [w("day", "=", "2024-03-31T02:00:00+02:00")],
    [w("day", "=", "2024-03-31T12:00:00Z")], [w("day", "<", "2024-03-31T12:00:00Z")], [w("day", "<=", "2024-03-31T12:00:00Z")],
    [w("day", ">", "2024-03-31T12:00:00Z")], [w("day", ">=", "2024-03-31T12:00:00Z")], [w("day", "!=", "2024-03-31T12:00:00Z")],
    [w("day", "between", "2024-03-30", "2024-04-02")],
    [w("at", "<", "2024-03-31T03:00:00+02:00")], [w("at", ">=", "2024-03-31T01:59:00+01:00")],
    [w("at", "between", "2024-03-31T01:30:00+01:00", "2024-03-31T03:30:00+02:00")], [w("at", ">", "2024-03-31")],
    [w("at", "=", (DST_START + dt.timedelta(minutes=617)).astimezone(dt.timezone(dt.timedelta(hours=2))).isoformat())],
    [w("level", "<", "high")], [w("level", ">=", "mid")], [w("level", "in", "high")], [w("level", "=", "low")],
    [w("level", "!=", "mid")], [w("flag", "=", True)], [w("flag", "<", True)], [w("flag", "!=", False)],
    [w("level", "in", "low", "mid"), w("qty", "between", 0, 500), w("name", "notNull")],
    [w("day", ">=", "2024-01-01"), w("price", "<", 100), w("flag", "=", False), w("ratio", "notNull")],
]


def cell_value(col: str, cell):
    """A cell of the plugin's answer as the test's Python value."""
    if cell is None:
        return None
    kind = KIND[col]
    if kind == "int":
        return int(cell)
    if kind == "dec":
        return decimal.Decimal(str(cell))
    if kind == "date":
        return instant(dt.datetime.fromisoformat(cell))
    return cell


def ref_width(low, high, bins: int, integer: bool) -> Fraction:
    """PROTOCOL 11.12's width, by listing the candidates: 1, 2, 2.5, 5 times 10^k, in order."""
    target = (Fraction(high) - Fraction(low)) / bins
    for cand in sorted(m * Fraction(10) ** k for k in range(-20, 40) for m in (1, 2, Fraction(5, 2), 5)):
        if integer and (cand < 1 or cand.denominator != 1):
            continue
        if cand >= target:
            return cand
    raise AssertionError("no width")


def trunc(t: dt.datetime, unit: str) -> dt.datetime:
    t = t.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    if unit in ("day", "month", "year"):
        t = t.replace(hour=0)
    if unit in ("month", "year"):
        t = t.replace(day=1)
    if unit == "year":
        t = t.replace(month=1)
    return t


def units_between(low: dt.datetime, high: dt.datetime, unit: str) -> int:
    a, b = trunc(low, unit), trunc(high, unit)
    if unit == "hour":
        return (b - a) // dt.timedelta(hours=1) + 1
    if unit == "day":
        return (b - a).days + 1
    if unit == "month":
        return (b.year * 12 + b.month) - (a.year * 12 + a.month) + 1
    return b.year - a.year + 1


def ref_aggregate(kept: list[int], group: list[dict], enum: bool) -> dict:
    """PROTOCOL 11.12 by hand: the bins of each column asked (only past `bins` distinct values),
    the groups, their order (count descending, then the groups ascending, nulls first), percents."""
    starts, bins_member = [], {}
    for g in group:
        col, values = g["column"], [DATA[g["column"]][i] for i in kept]
        present = [v for v in values if v is not None]
        start = lambda v: v  # noqa: E731
        if g.get("bins") and len(set(present)) > g["bins"]:
            if KIND[col] == "date":
                lo, hi = min(map(instant, present)), max(map(instant, present))
                unit = next((u for u in ("hour", "day", "month", "year") if units_between(lo, hi, u) <= g["bins"]), "year")
                bins_member[col] = {"unit": unit}
                start = lambda v, unit=unit: trunc(instant(v), unit)  # noqa: E731
            else:
                width = ref_width(min(present), max(present), g["bins"], KIND[col] == "int")
                bins_member[col] = width
                start = lambda v, width=width: math.floor(Fraction(v) / width) * width  # noqa: E731
        starts.append(start)
    counts: dict[tuple, int] = {}
    for i in kept:
        k = tuple(None if DATA[g["column"]][i] is None else s(DATA[g["column"]][i]) for g, s in zip(group, starts))
        counts[k] = counts.get(k, 0) + 1

    def order(item):
        k, n = item
        return [-n] + [(0,) if v is None else (1, v if (g["column"] in bins_member) else ref_key(g["column"], v, enum))
                       for g, v in zip(group, k)]
    groups = sorted(counts.items(), key=order)
    out, seen = [], 0
    for k, n in groups:
        seen += n
        cells = [instant(v) if v is not None and KIND[g["column"]] == "date" else v for g, v in zip(group, k)]
        out.append((cells, n, n * 100 / len(kept), seen * 100 / len(kept)))
    return {"groups": out, "bins": bins_member, "rows": len(kept), "largest": max(counts.values(), default=0)}


class WhereAndAggregateTest(unittest.TestCase):
    """`where` (PROTOCOL 11.11) and `aggregate` (11.12) against the test's own computation in plain
    Python, on a loaded Feather file (an ENUM column) and on a Parquet file queried in place."""

    @classmethod
    def setUpClass(cls):
        cls.files = write_agg_files(FIX.dir)
        cls.plugins = {k: Plugin({"path": path}) for k, path in cls.files.items()}

    @classmethod
    def tearDownClass(cls):
        for pl in cls.plugins.values():
            pl.close()

    def formats(self):
        """(format, plugin, whether its level column is an enum): Feather's is, Parquet's is text."""
        for key, pl in self.plugins.items():
            self.assertIsNone(pl.error, key)
        return [(key, pl, any(c["id"] == "level" and c["type"] == "enum" for c in pl.desc["columns"]))
                for key, pl in self.plugins.items()]

    def test_capabilities_and_types(self):
        pl = self.plugins["feather"]
        self.assertTrue(pl.caps["where"] and pl.caps["aggregate"])
        types = {c["id"]: c["type"] for c in pl.desc["columns"]}
        self.assertEqual(types, {"id": "integer", "name": "text", "qty": "integer", "price": "decimal", "cents": "decimal",
                                 "exact": "decimal", "ratio": "decimal", "day": "date", "at": "date", "level": "enum",
                                 "flag": "bool"})
        self.assertEqual(types, {**{c["id"]: c["type"] for c in self.plugins["parquet"].desc["columns"]}, "level": "enum"})

    def test_each_op_against_python(self):
        for key, pl, enum in self.formats():
            with self.subTest(key):
                for where in WHERE_CASES:
                    want = ref_kept(where, enum)
                    got, total = pl.all_ids(where=where, page=251)
                    self.assertEqual(got, [str(i) for i in want], where)
                    self.assertEqual(total, len(want), where)
                # the cases are not vacuous: between keeps both ends, text is exact, a null fails !=
                self.assertIn(-10, [DATA["qty"][i] for i in ref_kept([w("qty", "between", -10, 10)], enum)])
                self.assertIn(10, [DATA["qty"][i] for i in ref_kept([w("qty", "between", -10, 10)], enum)])
                self.assertEqual({DATA["name"][i] for i in ref_kept([w("name", "=", "Ada")], enum)}, {"Ada"})
                self.assertGreater(len(ref_kept([w("price", "=", "3")], enum)), 10)
                self.assertEqual(len(ref_kept([w("qty", "!=", 7)], enum)) + len(ref_kept([w("qty", "=", 7)], enum)),
                                 len(ref_kept([w("qty", "notNull")], enum)))

    def test_where_with_filter_sort_and_locate(self):
        sort = keys("price desc", "name asc")
        where = [w("qty", ">=", 0), w("level", "!=", "high")]
        for key, pl, enum in self.formats():
            with self.subTest(key):
                kept = set(ref_kept(where, enum, needle="zoë"))
                got, total = pl.all_ids(sort, "zoë", where=where, page=7)
                self.assertEqual(sorted(map(int, got)), sorted(kept))
                self.assertEqual(total, len(kept))
                prices = [DATA["price"][int(i)] for i in got]
                present = [p for p in prices if p is not None]
                self.assertEqual(present, sorted(present, reverse=True))  # nulls last, descending
                for pos in (0, len(got) // 2, len(got) - 1):
                    found = pl.p.call("locate", {"table": "root", "rows": ["100000", got[pos]], "sort": sort, "filter": "zoë",
                                                 "where": where, "generation": 5})
                    self.assertEqual(found, {"row": got[pos], "offset": pos})
                outside = next(str(i) for i in range(AGG_ROWS) if i not in kept)
                self.assertEqual(pl.p.call("locate", {"table": "root", "rows": [outside], "sort": sort, "filter": "zoë",
                                                      "where": where, "generation": 5}), {"row": None})

    def test_errors_name_the_member(self):
        pl = self.plugins["feather"]
        for where, member in (([w("qty", ">", 1), w("qty", "=", "abc")], "where[1].value"),
                              ([w("level", "=", "urgent")], "where[0].value"),
                              ([w("day", "<", "yesterday")], "where[0].value"),
                              ([w("price", "=", "3,00")], "where[0].value"),
                              ([{"column": "qty", "op": ">=", "value": None}], "where[0].value"),
                              ([w("qty", "between", 1, 2), w("flag", "in", True, "no")], "where[1].values[1]"),
                              ([{"column": "qty", "op": "between", "values": [1, 2, 3]}], "where[0].values"),
                              ([w("nope", "=", 1)], "where[0].column")):
            with self.subTest(member=member):
                with self.assertRaises(ResponseError) as e:
                    pl.rows(where=where)
                self.assertEqual(e.exception.code, -32602)
                self.assertTrue(e.exception.message.startswith(member + ": "), e.exception.message)
                with self.assertRaises(ResponseError) as e:
                    pl.p.call("aggregate", {"table": "root", "filter": None, "where": where, "group": [{"column": "qty"}]})
                self.assertEqual(e.exception.data, {"member": member})
        for group, member in (([{"column": "name", "bins": 5}], "group[0].bins"),
                              ([{"column": "level", "bins": 5}], "group[0].bins"),
                              ([{"column": "qty", "bins": 0}], "group[0].bins"),
                              ([{"column": "qty"}, {"column": "zz"}], "group[1].column")):
            with self.subTest(member=member):
                with self.assertRaises(ResponseError) as e:
                    pl.p.call("aggregate", {"table": "root", "filter": None, "where": [], "group": group})
                self.assertEqual((e.exception.code, e.exception.data), (-32602, {"member": member}))

    def aggregate(self, pl, group, where=(), filter=None):
        desc = pl.p.call("aggregate", {"table": "root", "filter": filter, "where": list(where), "group": group},
                         timeout=60)
        self.addCleanup(pl.p.notify, "close", {"table": desc["table"]})
        return desc

    def check_aggregate(self, pl, enum, group, where=(), filter=None, page=50):
        desc = self.aggregate(pl, group, where, filter)
        want = ref_aggregate(ref_kept(list(where), enum, filter), group, enum)
        ids = [g["column"] for g in group]
        self.assertEqual([c["id"] for c in desc["columns"]], ids + ["count", "percent", "cumulative"])
        self.assertEqual([c["type"] for c in desc["columns"][len(ids):]], ["integer", "decimal", "decimal"])
        parent = {c["id"]: c for c in pl.desc["columns"]}
        for c in desc["columns"][:len(ids)]:
            self.assertEqual((c["type"], c.get("values"), c["title"]),
                             (parent[c["id"]]["type"], parent[c["id"]].get("values"), parent[c["id"]]["title"]))
        self.assertEqual((desc["rows"], desc["largest"], desc["total"]),
                         (want["rows"], want["largest"], len(want["groups"])))
        got_bins = {k: (Fraction(str(v["width"])) if "width" in v else v) for k, v in desc.get("bins", {}).items()}
        self.assertEqual(got_bins, want["bins"])
        rows, total = pl.all_rows(table=desc["table"], page=page)
        self.assertEqual(total, len(want["groups"]))
        got = [([cell_value(c, v) for c, v in zip(ids, r["cells"])], r["cells"][len(ids)], r["cells"][len(ids) + 1],
                r["cells"][len(ids) + 2]) for r in rows]
        self.assertEqual(got, want["groups"])
        self.assertEqual(len({r["id"] for r in rows}), len(rows))
        return desc, rows, want

    def test_group_counts_without_bins(self):
        for key, pl, enum in self.formats():
            with self.subTest(key):
                _, rows, want = self.check_aggregate(pl, enum, [{"column": "name"}])
                self.assertIn([None], [g[0] for g in want["groups"]])  # nulls are a group
                self.assertEqual(rows[-1]["cells"][-1], 100)
                _, rows, _ = self.check_aggregate(pl, enum, [{"column": "level"}])
                if enum:  # three equal counts: in the declared order, not alphabetically; nulls a group of their own
                    self.assertEqual([r["cells"][:2] for r in rows], [["low", 180], ["mid", 180], ["high", 180], [None, 60]])
                self.check_aggregate(pl, enum, [{"column": "flag"}, {"column": "level"}], [w("qty", ">", 100)], "é", page=3)
                # few distinct values under the filters: not binned, no `bins` member
                desc, _, _ = self.check_aggregate(pl, enum, [{"column": "qty", "bins": 10}], [w("qty", "between", 1, 9)])
                self.assertNotIn("bins", desc)
                desc, _, _ = self.check_aggregate(pl, enum, [{"column": "day", "bins": 1000}])
                self.assertNotIn("bins", desc)
                # binned only past `bins` distinct values: exactly `bins` of them are left alone
                desc, _, _ = self.check_aggregate(pl, enum, [{"column": "id", "bins": 10}], [w("id", "<", 10)])
                self.assertNotIn("bins", desc)
                march = [w("day", "between", "2024-03-01", "2024-03-31")]
                distinct = len({DATA["day"][i] for i in ref_kept(march, enum)})
                desc, _, _ = self.check_aggregate(pl, enum, [{"column": "day", "bins": distinct}], march)
                self.assertNotIn("bins", desc)
                desc, _, _ = self.check_aggregate(pl, enum, [{"column": "day", "bins": distinct - 1}], march)
                self.assertEqual(desc["bins"], {"day": {"unit": "month"}})

    def test_bins_of_integers_and_decimals(self):
        for key, pl, enum in self.formats():
            with self.subTest(key):
                desc, _, want = self.check_aggregate(pl, enum, [{"column": "qty", "bins": 10}])
                self.assertEqual(want["bins"], {"qty": 200})  # (1234 - -50) / 10 = 128.4: 200, not 250
                self.assertEqual(desc["bins"], {"qty": {"width": 200}})
                desc, _, want = self.check_aggregate(pl, enum, [{"column": "qty", "bins": 10}], [w("qty", "between", 0, 230)])
                self.assertEqual(want["bins"], {"qty": 25})  # 23: 25 on an integer column
                desc, _, want = self.check_aggregate(pl, enum, [{"column": "id", "bins": 4}], [w("id", "between", 0, 9)])
                self.assertEqual(want["bins"], {"id": 5})  # 2.25: 5 (2.5 is no whole number)
                desc, rows, want = self.check_aggregate(pl, enum, [{"column": "id", "bins": 10}], [w("id", "<=", 10)])
                self.assertEqual((want["bins"], len(rows)), ({"id": 1}, 11))  # exactly 1: one value a bin
                desc, rows, want = self.check_aggregate(pl, enum, [{"column": "price", "bins": 20}])
                self.assertEqual(want["bins"], {"price": 50})
                desc, rows, want = self.check_aggregate(pl, enum, [{"column": "cents", "bins": 20}])
                self.assertEqual(want["bins"], {"cents": Fraction(1, 40)})  # 0.45 / 20 = 0.0225: 0.025
                self.assertEqual(desc["bins"], {"cents": {"width": 0.025}})
                self.assertIn("0.025", [r["cells"][0] for r in rows])  # exact text, a finer scale than the column's
                desc, rows, want = self.check_aggregate(pl, enum, [{"column": "cents", "bins": 9}],
                                                        [w("cents", "between", "0.1", "0.3")])
                self.assertEqual(want["bins"], {"cents": Fraction(1, 40)})  # 0.2 / 9 = 0.0222: 0.025
                self.check_aggregate(pl, enum, [{"column": "exact", "bins": 3}])  # 1e-10 steps past a double
                self.check_aggregate(pl, enum, [{"column": "level"}, {"column": "qty", "bins": 5}, {"column": "price", "bins": 7}],
                                     [w("flag", "notNull")], "zoë", page=11)

    def test_bins_of_dates_in_utc_across_dst(self):
        for key, pl, enum in self.formats():
            with self.subTest(key):
                at = [v for v in DATA["at"] if v is not None]
                hours = units_between(min(at), max(at), "hour")  # 88 hours of data: 89 hour bins
                for bins, unit in ((100, "hour"), (hours, "hour"), (hours - 1, "day"), (10, "day"), (3, "month"), (1, "year")):
                    desc, rows, want = self.check_aggregate(pl, enum, [{"column": "at", "bins": bins}])
                    self.assertEqual(desc["bins"], {"at": {"unit": unit}})
                # the hour of the change (CET 02:00 = CEST 03:00 = 01:00Z) is one bin of 60 minutes in UTC
                hours = {r["cells"][0]: r["cells"][1] for r in pl.all_rows(table=self.aggregate(
                    pl, [{"column": "at", "bins": 100}])["table"])[0]}
                self.assertEqual(hours["2024-03-31 01:00:00+00"],
                                 sum(1 for v in DATA["at"] if v is not None and trunc(v, "hour") == dt.datetime(2024, 3, 31, 1, tzinfo=UTC)))
                for bins, unit in ((30, "month"), (5, "year")):
                    desc, rows, _ = self.check_aggregate(pl, enum, [{"column": "day", "bins": bins}])
                    self.assertEqual(desc["bins"], {"day": {"unit": unit}})
                    self.assertTrue(all(r["cells"][0] is None or r["cells"][0].endswith("-01") for r in rows))
                self.check_aggregate(pl, enum, [{"column": "day", "bins": 400}], [w("day", ">=", "2024-01-01")])

    def test_the_aggregate_table_pages_sorts_filters_and_closes(self):
        for key, pl, enum in self.formats():
            with self.subTest(key):
                desc, rows, want = self.check_aggregate(pl, enum, [{"column": "name"}, {"column": "flag"}])
                handle = desc["table"]
                natural = [r["id"] for r in rows]
                pos = {r["id"]: i for i, r in enumerate(rows)}
                cells = {r["id"]: r["cells"] for r in rows}
                # sort: count ascending, then name descending (nulls last); ties by the natural order descending
                sort = keys("count asc", "name desc")

                def key(i):
                    c = cells[i]
                    return (c[2], (1, c[0]) if c[0] is not None else (0,))
                want_order = sorted(natural, key=lambda i: (key(i)[0], Rev(key(i)[1]), -pos[i]))
                self.assertEqual(pl.all_ids(sort, table=handle, page=4)[0], want_order)
                by_pct = pl.all_ids(keys("percent desc"), table=handle, page=5)[0]
                self.assertEqual(by_pct, sorted(natural, key=lambda i: (-cells[i][3], -pos[i])))
                # filter: some cell's text contains "d" (only names have a d here), then where on the counts
                got, total = pl.all_ids((), "d", table=handle, page=3)
                self.assertEqual(got, [i for i in natural if cells[i][0] is not None and "d" in cells[i][0].lower()])
                self.assertEqual(total, len(got))
                where = [w("count", ">=", 5), w("percent", "<", 5), w("flag", "=", False)]
                got, _ = pl.all_ids(keys("cumulative desc"), None, table=handle, page=2, where=where)
                self.assertEqual(got, [i for i in reversed(natural) if cells[i][2] >= 5 and cells[i][3] < 5 and cells[i][1] is False])
                self.assertTrue(got)
                found = pl.p.call("locate", {"table": handle, "rows": [got[-1]], "sort": keys("cumulative desc"), "filter": None,
                                             "where": where, "generation": 9})
                self.assertEqual(found, {"row": got[-1], "offset": len(got) - 1})
                # an aggregate of the aggregate table
                again = pl.p.call("aggregate", {"table": handle, "filter": None, "where": [], "group": [{"column": "flag"}]})
                self.assertEqual(again["rows"], len(natural))
                pl.p.notify("close", {"table": again["table"]})
                pl.p.notify("close", {"table": handle})
                with self.assertRaises(ResponseError) as e:
                    pl.rows(table=handle)
                self.assertEqual(e.exception.code, -32001)
                self.assertEqual(pl.rows(0, 3)["total"], AGG_ROWS)  # the root table is untouched

    def test_nothing_counted(self):
        for key, pl, enum in self.formats():
            with self.subTest(key):
                desc, rows, _ = self.check_aggregate(pl, enum, [{"column": "qty", "bins": 3}], [w("qty", ">", 10 ** 6)])
                self.assertEqual((desc["rows"], desc["largest"], desc["total"], rows), (0, 0, 0, []))


# --------------------------------------------------------------------------- describe and query

def ref_text(col: str, v) -> str | None:
    """The text of a value in a describe table, computed here: numbers as written (a decimal with
    its scale), a DATE as its day, a timestamp as its instant in UTC with Z."""
    if v is None:
        return None
    if KIND[col] == "date":
        if isinstance(v, dt.datetime):
            return v.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    return str(v)


def ref_number(col: str, v) -> Fraction:
    """A number, or a date's instant in microseconds, as an exact fraction."""
    if KIND[col] == "date":
        d = instant(v) - dt.datetime(1970, 1, 1, tzinfo=UTC)
        return Fraction((d.days * 86400 + d.seconds) * 10 ** 6 + d.microseconds)
    return Fraction(v)


def ref_fraction_text(col: str, f: Fraction) -> str:
    if KIND[col] == "date":
        t = dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(microseconds=round(f))
        if KIND_DAY.get(col) and t.time() == dt.time(0):
            return t.date().isoformat()
        return t.replace(tzinfo=None).isoformat() + "Z"
    with decimal.localcontext() as ctx:
        ctx.prec = 100
        d = (decimal.Decimal(f.numerator) / decimal.Decimal(f.denominator)).normalize()
    return format(d, "f")


KIND_DAY = {"day": True}


def ref_describe(col: str, kept: list[int]) -> dict:
    """The statistics of one column over the kept rows, in plain Python (PROTOCOL 11.13)."""
    values = [DATA[col][i] for i in kept if DATA[col][i] is not None]
    key = (lambda v: ref_number(col, v)) if KIND[col] in ("int", "dec", "date") else (lambda v: v)
    out: dict = {"count": len(values), "nulls": len(kept) - len(values),
                 "distinct": len({key(v) for v in values})}
    ordered = sorted(values, key=key)
    out["min"] = ref_text(col, ordered[0]) if ordered else None
    out["max"] = ref_text(col, ordered[-1]) if ordered else None
    counts: dict = {}
    for v in values:
        counts[key(v)] = counts.get(key(v), 0) + 1
    if counts:
        best = max(counts.values())
        top = min(k for k, n in counts.items() if n == best)
        out["top"] = ref_text(col, next(v for v in ordered if key(v) == top))
        out["topCount"] = best
    else:
        out["top"] = out["topCount"] = None
    if KIND[col] in ("int", "dec", "date") and values:
        nums = [ref_number(col, v) for v in ordered]
        n = len(nums)
        quart = []
        for q in (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)):
            h = (n - 1) * q
            lo, hi = nums[math.floor(h)], nums[math.ceil(h)]
            quart.append(ref_fraction_text(col, lo + (h - math.floor(h)) * (hi - lo)))
        out["p25"], out["median"], out["p75"] = quart
        low, high = nums[0], nums[-1]
        k = min(8, len(set(nums)))
        bins = [0] * k
        for v in nums:
            bins[0 if high == low else min(math.floor((v - low) * k / (high - low)), k - 1)] += 1
        out["histogram"] = " ".join(map(str, bins))
        if KIND[col] != "date":
            mean = sum(nums) / n
            out["mean"] = float(mean)
            out["stddev"] = math.sqrt(float(sum((v - mean) ** 2 for v in nums) / (n - 1))) if n > 1 else None
        else:
            out["mean"] = out["stddev"] = None
    else:
        for k in ("p25", "median", "p75", "histogram", "mean", "stddev"):
            out[k] = None
    return out


DESCRIBE_IDS = ["column", "type", "count", "nulls", "distinct", "min", "max", "mean", "stddev", "p25", "median",
                "p75", "top", "topCount", "histogram"]


class DescribeTest(unittest.TestCase):
    """`describe` (PROTOCOL 11.13) against the test's own computation in plain Python: NULLs,
    ties, non-ASCII text, decimals with their scale (one past a double), dates and instants."""

    @classmethod
    def setUpClass(cls):
        cls.files = write_agg_files(tempfile.mkdtemp(dir=FIX.dir))
        cls.plugins = {k: Plugin({"path": path}) for k, path in cls.files.items()}

    @classmethod
    def tearDownClass(cls):
        for pl in cls.plugins.values():
            pl.close()

    def describe(self, pl: Plugin, where=None, filter=None) -> tuple[dict, dict]:
        desc = pl.p.call("describe", {"table": "root", "filter": filter, "where": where or []}, timeout=60)
        rows, total = pl.all_rows(table=desc["table"])
        self.assertEqual(total, len(pl.desc["columns"]))
        return desc, {r["id"]: dict(zip(DESCRIBE_IDS, r["cells"])) for r in rows}

    def check(self, got: dict, kept: list[int]) -> None:
        for col in ("id", "name", "qty", "price", "cents", "exact", "day", "at", "flag"):
            want = ref_describe(col, kept)
            have = got[col]
            for k, v in want.items():
                with self.subTest(col=col, stat=k):
                    if k in ("mean", "stddev") and v is not None:
                        self.assertAlmostEqual(have[k], v, delta=abs(v) * 1e-9 + 1e-9)
                    elif col == "flag" and k in ("min", "max", "top"):
                        self.assertEqual(have[k], None if v is None else v.lower())
                    else:
                        self.assertEqual(have[k], v)
        # a float column: counts only (NaN and the infinities are values)
        ratio = [DATA["ratio"][i] for i in kept]
        self.assertEqual((got["ratio"]["count"], got["ratio"]["nulls"]),
                         (sum(v is not None for v in ratio), sum(v is None for v in ratio)))

    def test_every_column_against_python(self):
        for key, pl in self.plugins.items():
            with self.subTest(key):
                self.assertTrue(pl.caps["describe"])
                desc, got = self.describe(pl)
                self.assertEqual([c["id"] for c in desc["columns"]], DESCRIBE_IDS)
                self.assertEqual(list(got), [c["id"] for c in pl.desc["columns"]])  # the table's order
                self.assertEqual([got[c["id"]]["type"] for c in pl.desc["columns"]],
                                 [c["type"] for c in pl.desc["columns"]])
                self.check(got, list(range(AGG_ROWS)))

    def test_under_where_and_filter(self):
        pl = self.plugins["parquet"]
        _, got = self.describe(pl, where=[w("qty", ">", 100), w("day", "<", "2024-03-01")])
        self.check(got, ref_kept([w("qty", ">", 100), w("day", "<", "2024-03-01")], False))
        _, got = self.describe(pl, filter="zoë")
        self.check(got, ref_kept([], False, "zoë"))
        _, got = self.describe(pl, where=[w("qty", "=", -99999)])  # nothing kept
        self.assertEqual((got["qty"]["count"], got["qty"]["min"], got["qty"]["histogram"]), (0, None, None))

    def test_the_describe_table_sorts_filters_and_closes(self):
        pl = self.plugins["feather"]
        desc, got = self.describe(pl)
        table = desc["table"]
        ids, _ = pl.all_ids(sort=keys("nulls desc", "column"), table=table)
        want = sorted(got, key=lambda c: (-got[c]["nulls"], got[c]["column"]))
        self.assertEqual(ids, want)
        ids, total = pl.all_ids(table=table, where=[w("type", "=", "decimal")])
        self.assertEqual((ids, total), (["price", "cents", "exact", "ratio"], 4))
        self.assertEqual(pl.rows(table=table, filter="日本")["total"], 1)  # the name column's max or top
        found = pl.p.call("locate", {"table": table, "rows": ["day"], "sort": keys("column"), "filter": None,
                                     "where": [], "generation": 99})
        self.assertEqual(found, {"row": "day", "offset": sorted(got[c]["column"] for c in got).index("day")})
        pl.p.notify("close", {"table": table})
        with self.assertRaises(ResponseError) as cm:
            pl.rows(table=table)
        self.assertEqual(cm.exception.code, -32001)


class QueryTest(unittest.TestCase):
    """`query` (PROTOCOL 11.14): the user's SQL over the file, read-only, as a table of its own."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(dir=FIX.dir)
        cls.files = write_agg_files(cls.dir)
        cls.pl = Plugin({"path": cls.files["parquet"]})

    @classmethod
    def tearDownClass(cls):
        cls.pl.close()

    def query(self, sql: str) -> dict:
        return self.pl.p.call("query", {"sql": sql}, timeout=60)

    def refused(self, sql: str) -> ResponseError:
        with self.assertRaises(ResponseError) as cm:
            self.query(sql)
        self.assertEqual(cm.exception.code, -32602, cm.exception)
        return cm.exception

    def test_open_names_the_file_for_sql(self):
        # root and the file's stem (agg.parquet → agg): completed after `sql` (PROTOCOL 10.1 sqlNames).
        self.assertEqual(self.pl.desc["sqlNames"], ["root", "agg"])

    def test_group_by_with_sort_filter_paging_and_locate(self):
        self.assertTrue(self.pl.caps["query"])
        desc = self.query("SELECT name, count(*) AS n, sum(price) AS total FROM agg GROUP BY name ORDER BY name")
        self.assertEqual([(c["id"], c["type"]) for c in desc["columns"]],
                         [("name", "text"), ("n", "integer"), ("total", "decimal")])
        counts: dict = {}
        sums: dict = {}
        for name, price in zip(DATA["name"], DATA["price"]):
            counts[name] = counts.get(name, 0) + 1
            if price is not None:
                sums[name] = sums.get(name, 0) + price
        self.assertEqual(desc["total"], len(counts))
        rows, _ = self.pl.all_rows(table=desc["table"], page=4)
        # the query's own order is the natural order (NULL last: DuckDB's default in ORDER BY)
        self.assertEqual([r["cells"][0] for r in rows], sorted(k for k in counts if k is not None) + [None])
        self.assertEqual({r["cells"][0]: r["cells"][1] for r in rows}, counts)
        self.assertEqual({r["cells"][0]: decimal.Decimal(r["cells"][2]) for r in rows if r["cells"][2] is not None},
                         sums)
        page = self.pl.rows(offset=2, limit=3, sort=keys("n desc", "name"), table=desc["table"])
        want = sorted(counts.items(), key=lambda kv: (-kv[1], (kv[0] is not None, kv[0] or "")))
        self.assertEqual([r["cells"][:2] for r in page["rows"]], [list(kv) for kv in want[2:5]])
        got = self.pl.rows(table=desc["table"], filter="zo")
        self.assertEqual(sorted(r["cells"][0] for r in got["rows"]), ["Zoë", "zoë"])
        got = self.pl.rows(table=desc["table"], where=[w("n", ">=", max(counts.values()))])
        self.assertEqual(got["total"], list(counts.values()).count(max(counts.values())))
        found = self.pl.p.call("locate", {"table": desc["table"], "rows": [page["rows"][0]["id"]],
                                          "sort": keys("n desc", "name"), "filter": None, "where": [], "generation": 50})
        self.assertEqual(found["offset"], 2)
        self.pl.p.notify("close", {"table": desc["table"]})
        with self.assertRaises(ResponseError):
            self.pl.rows(table=desc["table"])

    def test_join_of_the_table_with_itself(self):
        desc = self.query("SELECT a.id, b.id AS other, a.qty FROM root AS a JOIN agg AS b "
                          "ON a.qty = b.qty AND a.id < b.id")
        qty = DATA["qty"]
        pairs = sorted((i, j) for i in range(AGG_ROWS) for j in range(i + 1, AGG_ROWS)
                       if qty[i] is not None and qty[i] == qty[j])
        self.assertEqual(desc["total"], len(pairs))
        rows, _ = self.pl.all_rows(table=desc["table"], sort=keys("id", "other"), page=250)
        self.assertEqual([tuple(r["cells"][:2]) for r in rows], pairs)

    def test_writes_files_and_extensions_are_refused(self):
        target = os.path.join(self.dir, "out.csv")
        e = self.refused(f"COPY root TO '{target}'")
        self.assertIn("COPY", e.message)
        self.refused(f"COPY (SELECT * FROM root) TO '{target}' (FORMAT csv)")
        self.assertFalse(os.path.exists(target))
        self.refused(f"ATTACH '{os.path.join(self.dir, 'other.duckdb')}' AS other")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "other.duckdb")))
        self.refused("CREATE TABLE t AS SELECT 1")
        self.refused("INSERT INTO root VALUES (1)")
        self.refused("INSTALL httpfs")
        self.refused("LOAD httpfs")
        self.refused("SET enable_external_access = true")
        self.refused("SELECT 1; DROP VIEW root")
        e = self.refused(f"SELECT * FROM read_csv('{self.files['feather']}')")  # no other file, even to read
        self.assertIn("Permission", e.message)
        self.assertEqual(self.query("SELECT count(*) AS n FROM root")["total"], 1)  # still answers
        self.assertEqual(self.pl.rows()["total"], AGG_ROWS)

    def test_errors_with_their_position(self):
        sql = "SELECT qty,, name FROM root"
        e = self.refused(sql)
        self.assertIn("syntax error", e.message)
        self.assertEqual(e.data, {"position": sql.index(",,") + 2})
        sql = "SELECT 'é日本', nme FROM root"  # a character offset, not a byte offset
        e = self.refused(sql)
        self.assertIn('"nme"', e.message)
        self.assertEqual(e.data, {"position": sql.index("nme") + 1})
        sql = "SELECT *\nFROM nowhere"
        e = self.refused(sql)
        self.assertEqual(e.data, {"position": sql.index("nowhere") + 1})

    def test_cancel_stops_a_long_query(self):
        p = self.pl.p
        rid = p.start("query", {"sql": "SELECT sum(a.range * b.range) AS s FROM range(200000) a, range(200000) b"})
        import time
        time.sleep(0.5)
        p.notify("$/cancel", {"id": rid})
        msg = p.response(rid, timeout=20)
        self.assertEqual(msg["error"]["code"], -32800)
        self.assertEqual(self.query("SELECT 1 AS one")["total"], 1)


class QueryAcrossTabsTest(unittest.TestCase):
    """`query` with `sources` (PROTOCOL 11.14): the host's other file tabs as read-only views,
    so that a CSV tab joins a Parquet tab; every other file, and every write, still refused."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(dir=FIX.dir)
        cls.path = {n: os.path.join(cls.dir, n) for n in
                    ("people.csv", "prices.parquet", "extra.jsonl.gz", "secret.csv", "wide.feather", "broken.parquet")}
        write_bytes(cls.path["broken.parquet"], b"PAR1" + b"x" * 40)
        con = duckdb.connect()
        con.execute(f"COPY (SELECT * FROM (VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')) t(id, name)) "
                    f"TO '{cls.path['people.csv']}' (HEADER)")
        con.execute(f"COPY (SELECT * FROM (VALUES (1, 9.5), (3, 7.25), (4, 1.0)) t(id, price)) "
                    f"TO '{cls.path['prices.parquet']}' (FORMAT parquet)")
        con.execute(f"COPY (SELECT * FROM (VALUES (2, 'red'), (3, 'blue')) t(id, colour)) "
                    f"TO '{cls.path['extra.jsonl.gz']}' (FORMAT json, COMPRESSION gzip)")
        con.execute(f"COPY (SELECT 42 AS secret) TO '{cls.path['secret.csv']}' (HEADER)")
        con.close()
        import pyarrow as pa  # noqa: PLC0415
        import pyarrow.feather as feather  # noqa: PLC0415
        feather.write_feather(pa.table({"id": [1]}), cls.path["wide.feather"])
        cls.prices = [{"name": "prices", "path": cls.path["prices.parquet"]}]
        import bz2  # noqa: PLC0415
        cls.path["people.csv.bz2"] = os.path.join(cls.dir, "people.csv.bz2")
        write_bytes(cls.path["people.csv.bz2"], bz2.compress(read_bytes(cls.path["people.csv"])))

    def setUp(self):
        self.pl = Plugin({"path": self.path["people.csv"]})
        self.addCleanup(self.pl.close)

    def query(self, sql: str, sources: list) -> dict:
        return self.pl.p.call("query", {"sql": sql, "sources": sources}, timeout=60)

    def refused(self, sql: str, sources: list) -> ResponseError:
        with self.assertRaises(ResponseError) as cm:
            self.query(sql, sources)
        self.assertEqual(cm.exception.code, -32602, cm.exception)
        return cm.exception

    def cells(self, desc: dict) -> list:
        rows, _ = self.pl.all_rows(table=desc["table"])
        return [r["cells"] for r in rows]

    def test_a_csv_tab_joins_a_parquet_tab(self):
        desc = self.query("SELECT p.id, p.name, pr.price FROM root p JOIN prices pr USING (id) ORDER BY p.id",
                          self.prices)
        self.assertEqual([c["id"] for c in desc["columns"]], ["id", "name", "price"])
        self.assertEqual([[i, n, decimal.Decimal(str(v))] for i, n, v in self.cells(desc)],
                         [[1, "ann", decimal.Decimal("9.5")], [3, "cy", decimal.Decimal("7.25")]])
        # the tab's own file by its name too, and a source alone
        self.assertEqual(self.cells(self.query("SELECT count(*) AS n FROM people JOIN prices USING (id)",
                                               self.prices)), [[2]])
        self.assertEqual(self.cells(self.query("SELECT max(id) AS m FROM prices", self.prices)), [[4]])

    def test_files_duckdb_does_not_read_itself_are_loaded_as_open_loads_them(self):
        sources = [{"name": "wide", "path": self.path["wide.feather"]},
                   {"name": "book", "path": FIX.xlsx},  # its first sheet, people
                   {"name": "packed", "path": self.path["people.csv.bz2"]}]
        self.assertEqual(self.cells(self.query("SELECT r.name FROM root r JOIN wide USING (id)", sources)), [["ann"]])
        self.assertEqual(self.cells(self.query("SELECT count(*) AS n FROM book WHERE name = 'Ada'", sources)), [[2]])
        got = self.query("SELECT p.name FROM packed p JOIN root r USING (id) WHERE p.id > 1 ORDER BY p.id", sources)
        self.assertEqual(self.cells(got), [["bob"], ["cy"]])
        e = self.refused(f"SELECT * FROM read_csv('{self.path['people.csv.bz2']}')", sources)
        self.assertIn("Permission", e.message, "loaded by the plugin: not a file DuckDB may read")
        import pyarrow as pa  # noqa: PLC0415
        import pyarrow.feather as feather  # noqa: PLC0415
        changed = os.path.join(self.dir, "changed.feather")
        feather.write_feather(pa.table({"id": [1]}), changed)
        mine = [{"name": "changed", "path": changed}]
        self.assertEqual(self.cells(self.query("SELECT count(*) AS n FROM changed", mine)), [[1]])
        feather.write_feather(pa.table({"id": [1, 2, 3, 4]}), changed)  # a new size: loaded again
        self.assertEqual(self.cells(self.query("SELECT count(*) AS n FROM changed", mine)), [[4]])

    def test_writes_attach_install_and_other_files_are_refused(self):
        target = os.path.join(self.dir, "out.csv")
        for sql in (f"COPY (SELECT 1) TO '{target}'", "COPY (SELECT 1) TO '/tmp/x.csv'",
                    f"COPY (SELECT * FROM prices) TO '{target}' (FORMAT csv)"):
            self.assertIn("COPY", self.refused(sql, self.prices).message)
        self.assertFalse(os.path.exists(target))
        other = os.path.join(self.dir, "other.duckdb")
        self.refused(f"ATTACH '{other}' AS other", self.prices)
        self.assertFalse(os.path.exists(other))
        self.refused("INSTALL httpfs", self.prices)
        self.refused("LOAD httpfs", self.prices)
        self.refused("CREATE VIEW prices2 AS SELECT 1", self.prices)
        for scan in (f"read_csv('{self.path['secret.csv']}')", f"'{self.path['secret.csv']}'",
                     f"read_json('{self.path['extra.jsonl.gz']}')"):
            e = self.refused(f"SELECT * FROM {scan}", self.prices)
            self.assertIn("Permission", e.message)
        self.assertEqual(self.cells(self.query("SELECT count(*) AS n FROM prices", self.prices)), [[3]])

    def test_a_later_query_with_a_new_file_is_locked_to_it_too(self):
        self.query("SELECT 1 AS one", self.prices)  # locks the database to people.csv and prices
        extra = self.prices + [{"name": "extra", "path": self.path["extra.jsonl.gz"]},
                               {"name": "wide", "path": self.path["wide.feather"]}]
        desc = self.query("SELECT r.name, e.colour, p.price FROM root r JOIN extra e USING (id) "
                          "LEFT JOIN prices p USING (id) ORDER BY r.id", extra)
        self.assertEqual(self.cells(self.query("SELECT count(*) AS n FROM wide, extra", extra)), [[2]])
        self.assertEqual([[n, c, None if v is None else decimal.Decimal(str(v))] for n, c, v in self.cells(desc)],
                         [["bob", "red", None], ["cy", "blue", decimal.Decimal("7.25")]])
        self.assertEqual(self.pl.rows(table=desc["table"], sort=keys("colour"))["rows"][0]["cells"][1], "blue")
        e = self.refused(f"SELECT r.*, s.* FROM root r, read_csv('{self.path['secret.csv']}') s", extra)
        self.assertIn("Permission", e.message)
        self.refused("COPY (SELECT * FROM extra) TO '/tmp/x.csv'", extra)
        self.refused("INSTALL httpfs", extra)
        sql = "SELECT nme FROM extra"
        self.assertEqual(self.refused(sql, extra).data, {"position": sql.index("nme") + 1})
        self.assertEqual(self.pl.rows()["total"], 3, "the tab's own table is as it was")

    def test_cancel_stops_a_query_on_the_side_database(self):
        self.query("SELECT 1 AS one", self.prices)
        extra = self.prices + [{"name": "extra", "path": self.path["extra.jsonl.gz"]}]
        p = self.pl.p
        seen = len(p.notifications)
        rid = p.start("query", {"sql": "SELECT sum(a.range * b.range) AS s FROM range(200000) a, range(200000) b, "
                                       "extra", "sources": extra})
        p.notification("progress", lambda m: "running the query" in str(m.get("params")), timeout=30, after=seen)
        p.notify("$/cancel", {"id": rid})
        self.assertEqual(p.response(rid, timeout=30)["error"]["code"], -32800)
        self.assertEqual(self.cells(self.query("SELECT count(*) AS n FROM extra", extra)), [[2]])

    def test_errors_keep_their_position_and_left_out_sources_say_why(self):
        sql = "SELECT 'é', nme FROM prices"
        self.assertEqual(self.refused(sql, self.prices).data, {"position": sql.index("nme") + 1})
        sources = self.prices + [{"name": "wide", "path": self.path["wide.feather"]},
                                 {"name": "people", "path": self.path["secret.csv"]},
                                 {"name": "gone", "path": os.path.join(self.dir, "gone.csv")},
                                 {"name": "broken", "path": self.path["broken.parquet"]}]
        e = self.refused("SELECT * FROM broken", sources)
        self.assertIn("the tab broken is not readable here", e.message)
        e = self.refused("SELECT * FROM gone", sources)
        self.assertIn("gone.csv", e.message)
        # another tab's file named like this tab's file takes the name (the host's names hold
        # in every tab); this tab's own file is root
        self.assertEqual(self.cells(self.query("SELECT * FROM people", sources)), [[42]])
        self.assertEqual(self.cells(self.query("SELECT count(*) AS n FROM root", sources)), [[3]])
        self.assertEqual(self.cells(self.query("SELECT count(*) AS n FROM people", self.prices)), [[3]])
        # a name of the plugin's own tables is left out (data1: the loaded copy of people.csv)
        got = self.query("SELECT count(*) AS n FROM data1", [{"name": "data1", "path": self.path["secret.csv"]}])
        self.assertEqual(self.cells(got), [[3]])

    def test_bad_sources_are_invalid_params(self):
        for sources in ([{"name": "Prices", "path": self.path["prices.parquet"]}],
                        [{"name": "prices", "path": "prices.parquet"}],
                        self.prices + self.prices, ["prices"]):
            e = self.refused("SELECT 1", sources)
            self.assertIn("sources[", e.message)


class Rev:
    """Reverses the order of a key (sorted() has no per-key direction)."""

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return other.v < self.v

    def __eq__(self, other):
        return self.v == other.v



class CheckerTest(unittest.TestCase):
    """`tabdeck plugin check` on every format."""

    def checked(self, args: dict, env: dict | None = None) -> subprocess.CompletedProcess:
        binary = tabdeck_binary()
        if binary is None:
            self.fail("no tabdeck binary: run swift build --product tabdeck (or set TABDECK_BIN_DIR)")
        return subprocess.run([binary, "plugin", "check", "--args", json.dumps(args), "--", LAUNCHER],
                              capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})

    def expect_conforms(self, args: dict, out: subprocess.CompletedProcess) -> None:
        summary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
        self.assertEqual(out.returncode, 0, f"{args}: {out.stdout[-3000:]}{out.stderr[-2000:]}")
        self.assertIn(" 0 failed", summary)

    def run_check(self, args: dict, env: dict | None = None) -> None:
        self.expect_conforms(args, self.checked(args, env))

    def test_every_format(self):
        # Two checks at a time (each a checker and a plugin process; 2 cores), judged in order.
        keys = sorted(FIX.files)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            runs = {key: pool.submit(self.checked, {"path": FIX.files[key][0]}) for key in keys}
            for key in keys:
                with self.subTest(key):
                    self.expect_conforms({"path": FIX.files[key][0]}, runs[key].result())

    def test_pages_while_loading(self):
        for key in ("jsonl", "csv.gz", "tsv"):
            with self.subTest(key):
                self.run_check({"path": FIX.files[key][0]}, EARLY)

    def test_workbooks(self):
        self.run_check({"path": FIX.xlsx})
        self.run_check({"path": FIX.xlsx_one})
        self.run_check({"path": FIX.files["csv"][0], "format": "csv"})


if __name__ == "__main__":
    unittest.main()
