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
import gzip
import json
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

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
        self.p.initialize(timeout=20)
        msg = self.p.request("open", {"args": args}, timeout=60)
        self.error = msg.get("error")
        self.desc = msg.get("result")
        self.gen = 0

    def rows(self, offset=0, limit=1000, sort=(), filter=None, table="root"):
        self.gen += 1
        return self.p.call("rows", {"table": table, "offset": offset, "limit": limit, "sort": list(sort),
                                    "filter": filter, "generation": self.gen}, timeout=60)

    def all_ids(self, sort=(), filter=None, table="root", page=137):
        ids, offset = [], 0
        while True:
            got = self.rows(offset, page, sort, filter, table)
            ids += [r["id"] for r in got["rows"]]
            if len(got["rows"]) < page:
                return ids, got["total"]
            offset += page

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


class CheckerTest(unittest.TestCase):
    """`tabdeck plugin check` on every format."""

    def run_check(self, args: dict, env: dict | None = None) -> None:
        binary = tabdeck_binary()
        if binary is None:
            self.fail("no tabdeck binary: run swift build --product tabdeck (or set TABDECK_BIN_DIR)")
        out = subprocess.run([binary, "plugin", "check", "--args", json.dumps(args), "--", LAUNCHER],
                             capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})
        summary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
        self.assertEqual(out.returncode, 0, f"{args}: {out.stdout[-3000:]}{out.stderr[-2000:]}")
        self.assertIn(" 0 failed", summary)

    def test_every_format(self):
        for key in sorted(FIX.files):
            with self.subTest(key):
                self.run_check({"path": FIX.files[key][0]})

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
