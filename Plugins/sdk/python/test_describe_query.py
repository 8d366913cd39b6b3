"""Tests of the SDK's `describe` (PROTOCOL.md 11.13) and `query` (11.14) dispatch.

A small plugin is written to a temporary folder and driven over the protocol. Its statistics
are deliberately trivial (count and nulls per column, under the filters): these tests check
the dispatch (capability, handle, rows/sort/where/locate on the new table, close, errors), not
the statistics, which each plugin computes itself.
"""

from __future__ import annotations

import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import tabdeck_plugin as sdk  # noqa: E402
from tabdeck_testing import PluginProcess, ResponseError  # noqa: E402

PLUGIN = textwrap.dedent('''
    import sys
    sys.path.insert(0, {sdk_dir!r})
    from tabdeck_plugin import (INVALID_PARAMS, RpcError, Table, TablePlugin, column, describe_columns, row)

    COLUMNS = [column("name", "Name"), column("n", "N", type="integer")]
    ROWS = [["Ada", 3], ["Bo", None], [None, 7], ["Cy", 3]]

    class Stats(Table):
        def __init__(self, source, rows, broken=False):
            self.title = source.title + " describe"
            self.data = []
            for i, col in enumerate(source.columns()):
                cells = [r["cells"][i] for r in rows]
                count = sum(c is not None for c in cells)
                out = [None] * 15
                out[:5] = [col["title"], col["type"], count, len(cells) - count, len(set(cells) - {{None}})]
                self.data.append(row(col["id"], out))
            self.broken = broken
        def columns(self):
            cols = describe_columns()
            return cols[:3] if self.broken else cols
        def all_rows(self):
            return [row(r["id"], r["cells"][:3]) for r in self.data] if self.broken else self.data
        def describe(self):
            return {{**super().describe(), "estimates": ["distinct"]}}
        def close(self):
            print("closed", self.handle, flush=True)  # the SDK sends stdout to stderr

    class Result(Table):
        title = "result"
        def __init__(self, n):
            self.n = n
        def columns(self):
            return [column("i", type="integer")]
        def all_rows(self):
            return [row(i, [i]) for i in range(self.n)]
        def close(self):
            print("closed", self.handle, flush=True)

    class Child(Table):
        title = "child"
        def columns(self):
            return COLUMNS
        def all_rows(self):
            return [row("c%d" % i, cells) for i, cells in enumerate(ROWS[:2])]
        def statistics(self, filter, where):
            return Stats(self, self.all_rows())

    class Plugin(TablePlugin):
        name, title = "dq", "root"
        def capabilities(self):
            return {{"sort": True, "filter": True, "where": True, "locate": True, "children": True,
                    "describe": True, "query": True}}
        def columns(self):
            return COLUMNS
        def all_rows(self):
            return [row("r%d" % i, cells, has_children=True) for i, cells in enumerate(ROWS)]
        def children(self, table, row_id):
            return Child()
        def statistics(self, table, filter, where):
            got = self.rows(0, 10 ** 9, [], filter, where)
            return Stats(self, got[0] if isinstance(got, tuple) else got, broken=filter == "broken")
        def query(self, sql):
            words = sql.split()
            if words[0] != "COUNT":
                raise RpcError(INVALID_PARAMS, "syntax error at or near " + words[0], {{"position": 1}})
            return Result(int(words[1]))

    raise SystemExit(Plugin().run())
''')

OLD = textwrap.dedent('''
    import sys
    sys.path.insert(0, {sdk_dir!r})
    from tabdeck_plugin import TablePlugin, column, row

    class Old(TablePlugin):
        name = "old"
        def columns(self):
            return [column("w")]
        def all_rows(self):
            return [row(0, ["x"])]

    raise SystemExit(Old().run())
''')


def spawn(source: str, tmp: str, name: str) -> PluginProcess:
    script = os.path.join(tmp, name)
    with open(script, "w") as f:
        f.write(source.format(sdk_dir=HERE))
    return PluginProcess([sys.executable, script])


class DescribeAndQuery(unittest.TestCase):
    p: PluginProcess

    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = tempfile.TemporaryDirectory()
        cls.p = spawn(PLUGIN, cls.tmp.name, "dq_plugin.py")
        cls.caps = cls.p.initialize()["capabilities"]
        cls.p.call("open", {"args": {}})

    @classmethod
    def tearDownClass(cls) -> None:
        cls.p.close()
        cls.tmp.cleanup()

    def rows(self, table: str, **more: object) -> dict:
        return self.p.call("rows", {"table": table, "offset": 0, "limit": 100, "sort": [], "filter": None,
                                    "generation": 1, **more})

    def error(self, method: str, params: dict) -> ResponseError:
        with self.assertRaises(ResponseError) as cm:
            self.p.call(method, params)
        return cm.exception

    def closes(self, handle: str) -> None:
        self.p.notify("close", {"table": handle})
        self.p.wait_for(lambda: f"closed {handle}" in self.p.stderr_text)
        self.assertEqual(self.error("rows", {"table": handle, "offset": 0, "limit": 5, "sort": [],
                                             "filter": None, "generation": 9}).code, -32001)

    def test_describe_is_a_table_of_its_own_until_closed(self) -> None:
        desc = self.p.call("describe", {"table": "root", "filter": None,
                                        "where": [{"column": "n", "op": "notNull"}]})
        self.assertNotIn(desc["table"], ("root", None))
        self.assertEqual([c["id"] for c in desc["columns"]], [c[0] for c in sdk.DESCRIBE_COLUMNS])
        self.assertEqual((desc["total"], desc["estimates"]), (2, ["distinct"]))
        got = self.rows(desc["table"])["rows"]
        # where n is not null: Ada 3, None 7, Cy 3 -> name 2 of 3, n 3 of 3, 2 distinct
        self.assertEqual([r["id"] for r in got], ["name", "n"])
        self.assertEqual([r["cells"][:5] for r in got], [["Name", "text", 2, 1, 2], ["N", "integer", 3, 0, 2]])
        # served like any table: sort, where, locate
        by_nulls = self.rows(desc["table"], sort=[{"column": "nulls", "direction": "asc"}],
                             where=[{"column": "count", "op": ">=", "value": 2}])
        self.assertEqual([r["id"] for r in by_nulls["rows"]], ["n", "name"])
        found = self.p.call("locate", {"table": desc["table"], "rows": ["n"], "sort": [], "filter": None,
                                       "where": [], "generation": 2})
        self.assertEqual(found, {"row": "n", "offset": 1})
        self.closes(desc["table"])

    def test_describe_of_a_child_and_under_a_filter(self) -> None:
        child = self.p.call("children", {"table": "root", "row": "r0"})
        desc = self.p.call("describe", {"table": child["table"], "filter": None})
        self.assertEqual(self.rows(desc["table"])["rows"][1]["cells"][2:4], [1, 1])
        desc = self.p.call("describe", {"table": "root", "filter": "ada"})  # where absent: none
        self.assertEqual(self.rows(desc["table"])["rows"][0]["cells"][2:4], [1, 0])

    def test_describe_errors(self) -> None:
        self.assertEqual(self.error("describe", {"table": "nope", "filter": None}).code, -32001)
        e = self.error("describe", {"table": "root", "where": [{"column": "n", "op": "=", "value": "x"}]})
        self.assertEqual((e.code, e.data), (-32602, {"member": "where[0].value"}))
        e = self.error("describe", {"table": "root", "filter": "broken"})  # a plugin bug: wrong columns
        self.assertEqual(e.code, -32603)
        self.p.wait_for(lambda: "closed" in self.p.stderr_text)  # the bad table was closed, not kept

    def test_query_is_a_table_of_its_own_until_closed(self) -> None:
        desc = self.p.call("query", {"sql": "COUNT 3"})
        self.assertEqual(desc["total"], 3)
        got = self.rows(desc["table"], sort=[{"column": "i", "direction": "desc"}], offset=1, limit=1)
        self.assertEqual(got["rows"], [{"id": "1", "cells": [1]}])
        self.closes(desc["table"])

    def test_query_errors(self) -> None:
        e = self.error("query", {"sql": "SELEC 1"})
        self.assertEqual((e.code, e.data), (-32602, {"position": 1}))
        for params in ({}, {"sql": ""}, {"sql": "  "}, {"sql": 3}):
            with self.subTest(params):
                self.assertEqual(self.error("query", params).code, -32602)

    def test_query_sources_are_checked_and_ignored_by_a_query_without_them(self) -> None:
        ok = [{"name": "prices", "path": "/data/prices.parquet"}]
        self.assertEqual(self.p.call("query", {"sql": "COUNT 2", "sources": ok})["total"], 2)
        for sources in ([{"name": "Prices", "path": "/a"}], [{"name": "a", "path": "a.csv"}], ok + ok, "x"):
            with self.subTest(sources):
                e = self.error("query", {"sql": "COUNT 2", "sources": sources})
                self.assertEqual((e.code, e.data), (-32602, {"field": "sources[%d]" % (1 if sources == ok + ok else 0)}))


class WithoutTheCapabilities(unittest.TestCase):
    def test_describe_and_query_are_unknown_methods(self) -> None:
        with tempfile.TemporaryDirectory() as tmp, spawn(OLD, tmp, "old.py") as p:
            p.initialize()
            p.call("open", {"args": {}})
            self.assertEqual(p.request("describe", {"table": "root"})["error"]["code"], -32601)
            self.assertEqual(p.request("query", {"sql": "SELECT 1"})["error"]["code"], -32601)
            self.assertEqual(p.shutdown(), 0)


class Helpers(unittest.TestCase):
    def test_describe_columns(self) -> None:
        cols = sdk.describe_columns()
        self.assertEqual([(c["id"], c["type"]) for c in cols][:6],
                         [("column", "text"), ("type", "text"), ("count", "integer"), ("nulls", "integer"),
                          ("distinct", "integer"), ("min", "text")])
        self.assertEqual(len(cols), 15)
        self.assertEqual(cols[-1]["id"], "histogram")


if __name__ == "__main__":
    unittest.main()
