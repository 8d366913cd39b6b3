"""`find` of the DuckDB plugin (PROTOCOL.md 11.15), against a naive scan of `rows` pages in the
same order and filters. Run with the plugin's own Python (Scripts/test does):

    Plugins/duckdb/.venv/bin/python -m unittest discover -s Plugins/duckdb -p 'venv_test_*find*.py'
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
import time
import unittest

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "sdk", "python"))
from tabdeck_testing import ResponseError  # noqa: E402
from venv_test_duckdb import Plugin, keys  # noqa: E402

ROWS = 240
# Letter case, ties and nulls: names repeat (in several cases), `n` has ties and nulls, and the
# other types give the filter's cell texts (a bool's true/false, a date, an exact decimal).
TABLE_SQL = f"""
SELECT
  CASE WHEN i % 11 = 0 THEN NULL ELSE ['Ada', 'ada', 'ADA', 'bob', 'Zoë', 'zoë', 'carl', 'x y'][1 + i % 8] || (i % 5)::VARCHAR END AS name,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 6 END AS n,
  i % 4 = 0 AS flag,
  DATE '2024-01-01' + (i % 30)::INTEGER AS day,
  CAST((i % 9) / 4 AS DECIMAL(10,2)) AS amount
FROM range({ROWS}) t(i)
"""
TEXTS = ["ada", "ADA1", "zoË", "bob", "x y", "true", "2024-01-1", "0.75", "3", "nowhere", "a"]
SORTS = [[], keys("n asc"), keys("n desc"), keys("name asc"), keys("name desc", "n asc"), keys("flag desc", "day asc"),
         keys("amount desc")]
FILTERS = [None, "a", "2024-01-2"]
WHERES = [None, [{"column": "n", "op": ">=", "value": 2}], [{"column": "name", "op": "notNull"}]]


def cell_text(cell) -> str | None:
    """A cell's text by the filter's rule (PROTOCOL 11.3)."""
    if cell is None:
        return None
    if isinstance(cell, bool):
        return "true" if cell else "false"
    return cell if isinstance(cell, str) else json.dumps(cell)


def holds(row: dict, text: str) -> bool:
    return any(t is not None and text.lower() in t.lower() for t in map(cell_text, row["cells"]))


def look_order(count: int, start: int, backward: bool, wrap: bool) -> list[int]:
    """The positions `find` looks at, in order (FindRequest.positions in Swift)."""
    if count == 0:
        return []
    if backward:
        first = min(start, count - 1)
        out = list(range(first, -1, -1))
        if wrap and start < count:
            out += list(range(count - 1, first, -1))
        return out
    if start >= count:
        return list(range(count)) if wrap else []
    return list(range(start, count)) + (list(range(start)) if wrap else [])


def naive_find(rows: list[dict], text: str, start: int, backward: bool, wrap: bool) -> dict:
    for pos in look_order(len(rows), start, backward, wrap):
        if holds(rows[pos], text):
            return {"offset": pos, "row": rows[pos]["id"], "wrapped": pos > start if backward else pos < start}
    return {"offset": None, "wrapped": False}


class FindTest(unittest.TestCase):
    ENV: dict | None = None

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = tempfile.mkdtemp(prefix="tabdeck-duckdb-find-")
        cls.path = os.path.join(cls.dir, "people.parquet")
        con = duckdb.connect()
        con.execute(f"COPY ({TABLE_SQL}) TO '{cls.path}' (FORMAT parquet)")
        con.close()
        cls.pl = Plugin({"path": cls.path}, cls.ENV)
        cls.pages: dict[str, list[dict]] = {}

    @classmethod
    def tearDownClass(cls) -> None:
        cls.pl.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def view(self, sort=(), filter=None, where=None) -> list[dict]:
        """Every row of the view, read through `rows` pages of 37 (cached per view)."""
        key = json.dumps([list(sort), filter, where])
        if key not in self.pages:
            self.pages[key] = self.pl.all_rows(sort, filter, page=37, where=where)[0]
        return self.pages[key]

    def find(self, text, start, backward=False, wrap=False, sort=(), filter=None, where=None, generation=11):
        params = {"table": "root", "text": text, "from": start, "backward": backward, "wrap": wrap,
                  "sort": list(sort), "filter": filter, "generation": generation}
        if where is not None:
            params["where"] = where
        return self.pl.p.call("find", params, timeout=60)

    def expect(self, text, start, backward=False, wrap=False, sort=(), filter=None, where=None) -> dict:
        got = self.find(text, start, backward, wrap, sort, filter, where)
        want = naive_find(self.view(sort, filter, where), text, start, backward, wrap)
        self.assertEqual(got, {"generation": 11, **want},
                         f"find {text!r} from {start} backward={backward} wrap={wrap} sort={sort} filter={filter!r} where={where}")
        return got

    def test_declared(self):
        self.assertTrue(self.pl.caps.get("find"))

    def test_forward_finds_the_first_at_or_after_from(self):
        rows = self.view()
        got = self.expect("ada", 0)
        self.assertEqual(got["offset"], next(i for i, r in enumerate(rows) if holds(r, "ada")))
        at = got["offset"]
        self.assertEqual(self.expect("ada", at)["offset"], at)  # `from` itself is looked at
        nxt = self.expect("ada", at + 1)
        self.assertGreater(nxt["offset"], at)
        self.assertFalse(nxt["wrapped"])

    def test_backward_finds_the_last_at_or_before_from(self):
        rows = self.view()
        last = max(i for i, r in enumerate(rows) if holds(r, "carl"))
        got = self.expect("carl", ROWS - 1, backward=True)
        self.assertEqual(got["offset"], last)
        before = self.expect("carl", last - 1, backward=True)
        self.assertLess(before["offset"], last)

    def test_wrap_both_ways(self):
        rows = self.view()
        hits = [i for i, r in enumerate(rows) if holds(r, "bob3")]
        got = self.expect("bob3", hits[-1] + 1, wrap=True)
        self.assertEqual((got["offset"], got["wrapped"]), (hits[0], True))
        self.assertEqual(self.expect("bob3", hits[-1] + 1)["offset"], None)  # without wrap: none
        got = self.expect("bob3", hits[0] - 1, backward=True, wrap=True)
        self.assertEqual((got["offset"], got["wrapped"]), (hits[-1], True))
        self.assertEqual(self.expect("bob3", hits[0] - 1, backward=True)["offset"], None)
        # one match only: wrapping finds it again from the row after it
        single = next(t for t in ("x y3", "zoë2", "carl1") if len([r for r in rows if holds(r, t)]) >= 1)
        self.expect(single, 5, wrap=True)
        self.expect(single, 5, backward=True, wrap=True)

    def test_from_past_the_end(self):
        rows = self.view()
        hits = [i for i, r in enumerate(rows) if holds(r, "zoë")]
        self.assertEqual(self.expect("zoë", ROWS + 50)["offset"], None)
        got = self.expect("zoë", ROWS + 50, wrap=True)
        self.assertEqual((got["offset"], got["wrapped"]), (hits[0], True))
        got = self.expect("zoë", ROWS + 50, backward=True)
        self.assertEqual((got["offset"], got["wrapped"]), (hits[-1], False))
        got = self.expect("zoë", ROWS + 50, backward=True, wrap=True)
        self.assertEqual((got["offset"], got["wrapped"]), (hits[-1], False))

    def test_sorted_with_ties_and_nulls(self):
        for sort in (keys("n asc"), keys("n desc"), keys("name desc", "n asc"), keys("flag asc")):
            with self.subTest(sort=sort):
                rows = self.view(sort)
                nulls = [i for i, r in enumerate(rows) if r["cells"][1] is None]
                self.assertTrue(nulls)
                for start in (0, 1, nulls[0], nulls[-1], ROWS // 2, ROWS - 1):
                    for backward in (False, True):
                        self.expect("ada", start, backward, sort=sort)
                        self.expect("ADA2", start, backward, wrap=True, sort=sort)

    def test_filter_and_where(self):
        where = [{"column": "n", "op": "between", "values": [1, 4]}]
        for filter, w in (("2024-01-1", None), (None, where), ("a", where)):
            with self.subTest(filter=filter, where=w):
                rows = self.view(keys("day desc"), filter, w)
                self.assertLess(len(rows), ROWS)
                for start in (0, len(rows) // 2, len(rows) + 3):
                    self.expect("zoë", start, sort=keys("day desc"), filter=filter, where=w)
                    self.expect("true", start, backward=True, wrap=True, sort=keys("day desc"), filter=filter, where=w)

    def test_no_match(self):
        for backward in (False, True):
            got = self.find("no row has this", 17, backward, True)
            self.assertEqual(got, {"generation": 11, "offset": None, "wrapped": False})

    def test_matches_other_types_by_their_text(self):
        for text in ("TRUE", "2024-01-05", "0.75", "2.00"):
            with self.subTest(text=text):
                self.assertIsNotNone(self.expect(text, 0)["offset"])

    def test_bad_params(self):
        for params, member in (({"text": ""}, "text"), ({"from": -1}, "from"), ({"from": "3"}, "from"),
                               ({"wrap": "yes"}, "wrap")):
            with self.subTest(member=member):
                full = {"table": "root", "text": "a", "from": 0, "sort": [], "filter": None, "generation": 1, **params}
                with self.assertRaises(ResponseError) as e:
                    self.pl.p.call("find", full)
                self.assertEqual(e.exception.code, -32602)
        with self.assertRaises(ResponseError) as e:
            self.pl.p.call("find", {"table": "nope", "text": "a", "from": 0, "sort": [], "filter": None, "generation": 1})
        self.assertEqual(e.exception.code, -32001)
        with self.assertRaises(ResponseError) as e:
            self.pl.p.call("find", {"table": "root", "text": "a", "from": 0, "sort": keys("nope"), "filter": None,
                                    "generation": 1})
        self.assertEqual(e.exception.code, -32602)

    def test_random_against_a_scan_of_pages(self):
        rnd = random.Random(1115)
        found = 0
        for _ in range(150):
            sort, filter, where = rnd.choice(SORTS), rnd.choice(FILTERS), rnd.choice(WHERES)
            count = len(self.view(sort, filter, where))
            start = rnd.choice([0, 1, count - 1, count, count + 7, rnd.randrange(0, max(1, count))])
            got = self.expect(rnd.choice(TEXTS), max(0, start), rnd.random() < 0.5, rnd.random() < 0.5, sort, filter, where)
            found += got["offset"] is not None
        self.assertGreater(found, 75)  # most looks find a row, some do not


class FindDeepPagesTest(FindTest):
    """The same, with `rows` pages past row 20 cut from the whole order made once (the path deep
    pages of big tables take): its positions are still those of `find`."""

    ENV = {"TABDECK_DUCKDB_TOP_N_ROWS": "20"}


class FindChildTableTest(unittest.TestCase):
    """`find` on a query's result table (a table of its own, PROTOCOL 11.14), and its cancel."""

    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="tabdeck-duckdb-find-")
        path = os.path.join(self.dir, "one.csv")
        with open(path, "w") as f:
            f.write("a\n1\n")
        self.pl = Plugin({"path": path})

    def tearDown(self) -> None:
        self.pl.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def query(self, sql: str) -> str:
        return self.pl.p.call("query", {"sql": sql}, timeout=120)["table"]

    def test_a_query_result(self):
        table = self.query("SELECT i, 'w' || (i % 10)::VARCHAR AS w FROM range(100) t(i)")
        got = self.pl.p.call("find", {"table": table, "text": "W7", "from": 20, "sort": keys("i desc"), "filter": None,
                                      "generation": 3})
        self.assertEqual(got, {"generation": 3, "offset": 22, "row": "77", "wrapped": False})

    def test_cancel_stops_a_long_find(self):
        table = self.query("SELECT i, md5(i::VARCHAR) AS h FROM range(2000000) t(i)")
        p = self.pl.p
        rid = p.start("find", {"table": table, "text": "no row has this", "from": 0, "wrap": True,
                               "sort": keys("h desc"), "filter": None, "generation": 1})
        time.sleep(0.2)
        p.notify("$/cancel", {"id": rid})
        msg = p.response(rid, timeout=60)
        if "result" in msg:
            self.skipTest("the find ended before its cancel arrived")
        self.assertEqual(msg["error"]["code"], -32800)
        got = p.call("find", {"table": table, "text": "c4ca4238", "from": 0, "sort": [], "filter": None,
                              "generation": 2}, timeout=60)
        self.assertEqual((got["offset"], got["row"]), (1, "1"))  # md5('1') = c4ca4238...


if __name__ == "__main__":
    unittest.main()
