"""Tests of the SDK's `where` (PROTOCOL.md 11.11) and `aggregate` (11.12) dispatch.

Two small plugins are written to a temporary folder and driven over the protocol: one declares
`where` and `aggregate` (its rows come from all_rows(), so the SDK's own `where_rows` keeps
them), one declares neither and has the old four-argument rows(). Every expected row set is
written out by hand from the eight rows below.
"""

from __future__ import annotations

import decimal
import os
import sys
import tempfile
import textwrap
import unittest
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import tabdeck_plugin as sdk  # noqa: E402
from tabdeck_testing import PluginProcess, ResponseError  # noqa: E402

PLUGIN = textwrap.dedent('''
    import sys
    sys.path.insert(0, {sdk_dir!r})
    from tabdeck_plugin import Table, TablePlugin, column, row, sort_key

    COLUMNS = [column("name"), column("n", type="integer"), column("amount", type="decimal"),
               column("day", type="date"), column("state", type="enum", values=["todo", "doing", "done"]),
               column("ok", type="bool")]
    ROWS = [
        ["Ada", 3, "3.00", "2024-03-31", "todo", True],
        ["ada", -2, 0.5, "2024-03-31T01:30:00Z", "doing", False],
        ["Zo\\u00eb", 10, "1234444433332222.44434322", "2024-03-30T23:00:00-02:00", "done", True],
        [None, 3, None, None, None, None],
        ["B", 7, 3, "2024-04-01", "todo", False],
        ["\\u00e9", None, "-0.10", "2024-03-31 03:30:00+02", "done", True],
        ["Ada", 0, "NaN", "2024-03-31T00:00:00Z", "doing", True],
        ["", 3, "Infinity", "2024-03-30", "todo", None],
    ]

    class Counts(Table):
        """A derived table: the group counts of some rows (no bins: enough for the dispatch)."""
        def __init__(self, source, rows, group):
            cols = source.columns()
            at = [next(i for i, c in enumerate(cols) if c["id"] == g["column"]) for g in group]
            counts = {{}}
            for r in rows:
                k = tuple(r["cells"][i] for i in at)
                counts[k] = counts.get(k, 0) + 1
            groups = sorted(counts.items(), key=lambda kv: [-kv[1]] + [sort_key(v, cols[i]) for v, i in zip(kv[0], at)])
            self.total_rows = len(rows)
            self.largest = max(counts.values(), default=0)
            self.cols = [cols[i] for i in at] + [column("count", type="integer"), column("percent", type="decimal"),
                                                 column("cumulative", type="decimal")]
            self.data, seen = [], 0
            for n, (k, c) in enumerate(groups):
                seen += c
                self.data.append(row("g%d" % n, list(k) + [c, c * 100 / len(rows), seen * 100 / len(rows)]))
            self.title = source.title + " counts"
        def columns(self):
            return self.cols
        def all_rows(self):
            return self.data
        def describe(self):
            return {{**super().describe(), "rows": self.total_rows, "largest": self.largest}}
        def close(self):
            print("closed", self.handle, flush=True)  # the SDK sends stdout to stderr

    class Child(Table):
        title = "child"
        def columns(self):
            return COLUMNS
        def all_rows(self):
            return [row("c%d" % i, cells) for i, cells in enumerate(ROWS[:3])]
        def aggregate(self, filter, where, group):
            got = self.rows(0, 10 ** 9, [], filter, where)
            return Counts(self, got[0] if isinstance(got, tuple) else got, group)

    class Where(TablePlugin):
        name, title = "where", "root"
        def capabilities(self):
            return {{"sort": True, "multiSort": True, "filter": True, "locate": True, "children": True,
                    "where": True, "aggregate": True}}
        def columns(self):
            return COLUMNS
        def all_rows(self):
            return [row("r%d" % i, cells, has_children=True) for i, cells in enumerate(ROWS)]
        def children(self, table, row_id):
            return Child()
        def aggregate(self, table, filter, where, group):
            got = self.rows(0, 10 ** 9, [], filter, where)
            return Counts(self, got[0] if isinstance(got, tuple) else got, group)

    raise SystemExit(Where().run())
''')

LEGACY = textwrap.dedent('''
    import sys
    sys.path.insert(0, {sdk_dir!r})
    from tabdeck_plugin import TablePlugin, column, row

    class Legacy(TablePlugin):
        name = "legacy"
        def capabilities(self):
            return {{"sort": True, "filter": True, "locate": True}}
        def columns(self):
            return [column("w"), column("n", type="integer")]
        def rows(self, offset, limit, sort, filter):  # the signature from before `where`
            data = [row(i, [w, i]) for i, w in enumerate(["c", "a", "b"])]
            return data[offset:offset + limit], len(data)
        def locate(self, ids, sort, filter):
            return (ids[0], int(ids[0])) if ids else None

    raise SystemExit(Legacy().run())
''')


def spawn(source: str, tmp: str, name: str) -> PluginProcess:
    script = os.path.join(tmp, name)
    with open(script, "w") as f:
        f.write(source.format(sdk_dir=HERE))
    return PluginProcess([sys.executable, script])


def cond(column: str, op: str, *values: Any) -> dict:
    c: dict[str, Any] = {"column": column, "op": op}
    if op in ("between", "in"):
        c["values"] = list(values)
    elif op not in ("null", "notNull"):
        c["value"] = values[0]
    return c


class WherePlugin(unittest.TestCase):
    p: PluginProcess

    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = tempfile.TemporaryDirectory()
        cls.p = spawn(PLUGIN, cls.tmp.name, "where_plugin.py")
        cls.caps = cls.p.initialize()["capabilities"]
        cls.desc = cls.p.call("open", {"args": {}})

    @classmethod
    def tearDownClass(cls) -> None:
        cls.p.close()
        cls.tmp.cleanup()

    def rows(self, where: Any, table: str = "root", sort: list | None = None, filter: Any = None) -> dict:
        return self.p.call("rows", {"table": table, "offset": 0, "limit": 100, "sort": sort or [],
                                    "filter": filter, "where": where, "generation": 1})

    def ids(self, *where: dict, filter: Any = None) -> list[str]:
        got = self.rows(list(where), filter=filter)
        self.assertEqual(got["total"], len(got["rows"]))
        return sorted(r["id"] for r in got["rows"])

    def error(self, method: str, params: dict) -> ResponseError:
        with self.assertRaises(ResponseError) as cm:
            self.p.call(method, params)
        return cm.exception

    def test_capabilities(self) -> None:
        self.assertTrue(self.caps["where"])
        self.assertTrue(self.caps["aggregate"])

    def test_each_op_on_integers(self) -> None:
        r = lambda *n: sorted(f"r{i}" for i in n)  # noqa: E731
        self.assertEqual(self.ids(cond("n", "=", 3)), r(0, 3, 7))
        self.assertEqual(self.ids(cond("n", "!=", 3)), r(1, 2, 4, 6))  # the null n (r5) fails !=
        self.assertEqual(self.ids(cond("n", "<", 3)), r(1, 6))
        self.assertEqual(self.ids(cond("n", "<=", 3)), r(0, 1, 3, 6, 7))
        self.assertEqual(self.ids(cond("n", ">", 3)), r(2, 4))
        self.assertEqual(self.ids(cond("n", ">=", 7)), r(2, 4))
        self.assertEqual(self.ids(cond("n", "between", 0, 7)), r(0, 3, 4, 6, 7))  # both ends kept
        self.assertEqual(self.ids(cond("n", "between", "-2", "0")), r(1, 6))  # exact digits as strings
        self.assertEqual(self.ids(cond("n", "in", 3, 10)), r(0, 2, 3, 7))
        self.assertEqual(self.ids(cond("n", "null")), r(5))
        self.assertEqual(self.ids(cond("n", "notNull")), r(0, 1, 2, 3, 4, 6, 7))
        self.assertEqual(self.ids(), r(*range(8)))
        self.assertEqual(sorted(x["id"] for x in self.rows(None)["rows"]), r(*range(8)))

    def test_decimals_exact_with_specials(self) -> None:
        r = lambda *n: sorted(f"r{i}" for i in n)  # noqa: E731
        self.assertEqual(self.ids(cond("amount", "=", "3")), r(0, 4))  # "3.00" = 3
        self.assertEqual(self.ids(cond("amount", "=", 3.0)), r(0, 4))
        self.assertEqual(self.ids(cond("amount", ">", 1)), r(0, 2, 4, 6, 7))  # NaN is the largest
        self.assertEqual(self.ids(cond("amount", "<", "Infinity")), r(0, 1, 2, 4, 5))
        self.assertEqual(self.ids(cond("amount", ">=", "NaN")), r(6))
        self.assertEqual(self.ids(cond("amount", "between", "-0.1", "0.5")), r(1, 5))
        self.assertEqual(self.ids(cond("amount", "=", "1234444433332222.44434322")), r(2))
        self.assertEqual(self.ids(cond("amount", "=", "1234444433332222.44434321")), [])

    def test_text_exact_and_in_unicode_order(self) -> None:
        r = lambda *n: sorted(f"r{i}" for i in n)  # noqa: E731
        self.assertEqual(self.ids(cond("name", "=", "Ada")), r(0, 6))  # not "ada"
        self.assertEqual(self.ids(cond("name", "!=", "Ada")), r(1, 2, 4, 5, 7))
        self.assertEqual(self.ids(cond("name", "<", "a")), r(0, 2, 4, 6, 7))  # "Zoë" < "a" < "é"
        self.assertEqual(self.ids(cond("name", "in", "é", "Zoë")), r(2, 5))
        self.assertEqual(self.ids(cond("name", "=", "")), r(7))

    def test_dates_by_instant(self) -> None:
        r = lambda *n: sorted(f"r{i}" for i in n)  # noqa: E731
        self.assertEqual(self.ids(cond("day", "=", "2024-03-31")), r(0, 6))  # its midnight UTC
        self.assertEqual(self.ids(cond("day", "=", "2024-03-31T03:30:00+02:00")), r(1, 5))
        self.assertEqual(self.ids(cond("day", "<", "2024-03-31T01:30:00Z")), r(0, 2, 6, 7))
        self.assertEqual(self.ids(cond("day", "between", "2024-03-31", "2024-03-31T01:00:00Z")), r(0, 2, 6))

    def test_enums_by_position_and_bools(self) -> None:
        r = lambda *n: sorted(f"r{i}" for i in n)  # noqa: E731
        self.assertEqual(self.ids(cond("state", "<", "done")), r(0, 1, 4, 6, 7))
        self.assertEqual(self.ids(cond("state", ">=", "doing")), r(1, 2, 5, 6))
        self.assertEqual(self.ids(cond("state", "in", "done")), r(2, 5))
        self.assertEqual(self.ids(cond("ok", "=", True)), r(0, 2, 5, 6))
        self.assertEqual(self.ids(cond("ok", "<", True)), r(1, 4))

    def test_conditions_and_filter_all_hold(self) -> None:
        got = self.ids(cond("state", "in", "todo", "doing"), cond("n", "between", 0, 10), filter="a")
        self.assertEqual(got, ["r0", "r4", "r6"])  # r4 by its "False", r7 has no "a"

    def test_errors_name_the_member(self) -> None:
        cases = [
            ([cond("n", "=", 1), cond("n", "=", "abc")], "where[1].value", '"abc" is not an integer'),
            ([{"column": "n", "op": "=", "value": None}], "where[0].value", "null"),
            ([{"column": "n", "op": "<"}], "where[0].value", "missing"),
            ([cond("state", "=", "nope")], "where[0].value", '"nope" is not one of'),
            ([cond("n", "between", 1)], "where[0].values", "[low, high]"),
            ([cond("n", "in")], "where[0].values", "one or more"),
            ([cond("n", "in", 1, "x")], "where[0].values[1]", '"x" is not an integer'),
            ([{"column": "n", "op": "~", "value": 1}], "where[0].op", "is not one of"),
            ([cond("zz", "=", 1)], "where[0].column", "unknown column"),
            ([cond("day", "=", "yesterday")], "where[0].value", "is not a date"),
            ([cond("ok", "=", "true")], "where[0].value", "is not true or false"),
            ([cond("amount", "=", "1e5")], "where[0].value", "is not a decimal number"),
            ([cond("name", "=", 5)], "where[0].value", "is not a string"),
            ({"column": "n"}, "where", "list"),
        ]
        for where, member, text in cases:
            with self.subTest(member=member, text=text):
                e = self.error("rows", {"table": "root", "offset": 0, "limit": 5, "sort": [], "filter": None,
                                        "where": where, "generation": 1})
                self.assertEqual(e.code, -32602)
                self.assertTrue(e.message.startswith(member + ": "), e.message)
                self.assertIn(text, e.message)
                self.assertEqual(e.data, {"member": member})

    def test_locate_under_where(self) -> None:
        params = {"table": "root", "sort": [{"column": "n", "direction": "asc"}], "filter": None,
                  "where": [cond("n", ">=", 3)], "generation": 2}
        # n >= 3 in the order n asc, ties in the natural order: r0, r3, r7 (3), r4 (7), r2 (10)
        self.assertEqual(self.p.call("locate", {**params, "rows": ["r1", "r4"]}), {"row": "r4", "offset": 3})
        self.assertEqual(self.p.call("locate", {**params, "rows": ["r1"]}), {"row": None})

    def test_aggregate_is_a_table_of_its_own_until_closed(self) -> None:
        desc = self.p.call("aggregate", {"table": "root", "filter": None, "where": [cond("n", "notNull")],
                                         "group": [{"column": "state"}]})
        handle = desc["table"]
        self.assertNotEqual(handle, "root")
        self.assertEqual((desc["rows"], desc["largest"], desc["total"]), (7, 3, 4))
        self.assertEqual([c["id"] for c in desc["columns"]], ["state", "count", "percent", "cumulative"])
        got = self.rows([], table=handle)["rows"]
        # todo 3 (r0 r4 r7), doing 2, done 1 (r2), null 1 (r3): count desc, then null smallest
        self.assertEqual([r["cells"][:2] for r in got], [["todo", 3], ["doing", 2], [None, 1], ["done", 1]])
        self.assertEqual(got[-1]["cells"][3], 100)
        # the derived table is served like any other: sort, where, locate
        by_count = self.rows([cond("count", "<", 3)], table=handle, sort=[{"column": "state", "direction": "desc"}])
        self.assertEqual([r["cells"][0] for r in by_count["rows"]], ["done", "doing", None])
        found = self.p.call("locate", {"table": handle, "rows": [got[2]["id"]], "sort": [], "filter": None,
                                       "where": [], "generation": 3})
        self.assertEqual(found, {"row": got[2]["id"], "offset": 2})
        self.p.notify("close", {"table": handle})
        self.p.wait_for(lambda: f"closed {handle}" in self.p.stderr_text)
        self.assertEqual(self.error("rows", {"table": handle, "offset": 0, "limit": 5, "sort": [],
                                             "filter": None, "generation": 4}).code, -32001)

    def test_aggregate_of_a_child_table_and_under_a_filter(self) -> None:
        child = self.p.call("children", {"table": "root", "row": "r0"})
        desc = self.p.call("aggregate", {"table": child["table"], "filter": None, "where": [],
                                         "group": [{"column": "ok"}, {"column": "name"}]})
        self.assertEqual((desc["rows"], desc["total"], desc["title"]), (3, 3, "child counts"))
        desc = self.p.call("aggregate", {"table": "root", "filter": "ada", "group": [{"column": "name"}]})
        self.assertEqual((desc["rows"], desc["largest"], desc["total"]), (3, 2, 2))  # where absent: none

    def test_aggregate_errors(self) -> None:
        base = {"table": "root", "filter": None, "where": []}
        for group, member in (([{"column": "zz"}], "group[0].column"),
                              ([{"column": "n"}, {"column": "name", "bins": 10}], "group[1].bins"),
                              ([{"column": "n", "bins": 0}], "group[0].bins"),
                              ([{"column": "state", "bins": 3}], "group[0].bins"),
                              ([{"column": "n"}, {"column": "n"}], "group[1].column"),
                              ([], "group")):
            with self.subTest(member):
                e = self.error("aggregate", {**base, "group": group})
                self.assertEqual((e.code, e.data), (-32602, {"member": member}))
        e = self.error("aggregate", {**base, "where": [cond("n", "=", "x")], "group": [{"column": "n"}]})
        self.assertEqual(e.data, {"member": "where[0].value"})
        self.assertEqual(self.error("aggregate", {**base, "table": "nope", "group": [{"column": "n"}]}).code, -32001)


class WithoutTheCapabilities(unittest.TestCase):
    def test_where_never_reaches_an_old_plugin_and_aggregate_is_unknown(self) -> None:
        with tempfile.TemporaryDirectory() as tmp, spawn(LEGACY, tmp, "legacy.py") as p:
            caps = p.initialize()["capabilities"]
            self.assertNotIn("where", caps)
            p.call("open", {"args": {}})
            got = p.call("rows", {"table": "root", "offset": 0, "limit": 10, "sort": [], "filter": None,
                                  "where": [{"column": "n", "op": "=", "value": "not even valid"}], "generation": 1})
            self.assertEqual(got["total"], 3)
            self.assertEqual(p.call("locate", {"table": "root", "rows": ["2"], "sort": [], "filter": None,
                                               "where": [{"column": "zz"}], "generation": 1}), {"row": "2", "offset": 2})
            e = p.request("aggregate", {"table": "root", "group": [{"column": "n"}]})["error"]
            self.assertEqual(e["code"], -32601)
            self.assertEqual(p.shutdown(), 0)


class Helpers(unittest.TestCase):
    def test_parse_cell(self) -> None:
        dec = {"id": "d", "type": "decimal"}
        self.assertEqual(sdk.parse_cell("3.00", dec), sdk.parse_cell(3, dec))
        self.assertEqual(sdk.parse_cell(0.1, dec), decimal.Decimal("0.1"))  # by its shortest text
        self.assertEqual(sdk.parse_cell("123456789012345678901234567890", {"type": "integer"}),
                         123456789012345678901234567890)
        date = {"type": "date"}
        self.assertEqual(sdk.parse_cell("2024-03-31 03:30:00+02", date), sdk.parse_cell("2024-03-31T01:30:00Z", date))
        self.assertEqual(sdk.parse_cell("2024-03-31T01:30:00.250000001-00:30", date).isoformat(),
                         "2024-03-31T02:00:00.250000+00:00")
        for value, col in (("1.5", {"type": "integer"}), (True, {"type": "integer"}), ("-", dec),
                           ("2024-13-01", date), (1, {"type": "bool"}), ("x", {"type": "enum", "values": ["y"]})):
            with self.assertRaises(ValueError):
                sdk.parse_cell(value, col)

    def test_cell_meets_in_the_declared_text_order(self) -> None:
        folded = {"id": "t", "type": "text", "order": "casefold"}
        self.assertTrue(sdk.cell_meets("a", {"op": "<", "value": "B"}, folded))
        self.assertFalse(sdk.cell_meets("a", {"op": "<", "value": "B"}, {"type": "text"}))
        self.assertFalse(sdk.cell_meets("a", {"op": "=", "value": "A"}, folded))  # = stays exact
        self.assertFalse(sdk.cell_meets(None, {"op": "!=", "value": "A"}, folded))
        self.assertTrue(sdk.cell_meets("oops", {"op": "notNull"}, {"type": "integer"}))
        self.assertFalse(sdk.cell_meets("oops", {"op": "!=", "value": 1}, {"type": "integer"}))


if __name__ == "__main__":
    unittest.main()
