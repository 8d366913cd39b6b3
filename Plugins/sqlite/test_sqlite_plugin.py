"""Protocol test of the built tabdeck-sqlite plugin, spawned as a subprocess.

The engine is tested in Swift (Tests/SQLiteBrowserTests); this checks the plugin as the host
sees it. Skipped when the plugin is not built (swift build --product tabdeck-sqlite).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SDK = os.path.join(HERE, "..", "sdk", "python")
if SDK not in sys.path:
    sys.path.insert(0, SDK)
sys.path.insert(0, os.path.join(HERE, "sample"))

from make_sample import build  # noqa: E402
from tabdeck_testing import PluginProcess, ResponseError  # noqa: E402

LAUNCHER = os.path.join(HERE, "tabdeck-sqlite")
BUILT = any(os.access(os.path.join(ROOT, ".build", c, "tabdeck-sqlite"), os.X_OK) for c in ("debug", "release"))


def rows(table: str, offset: int = 0, limit: int = 50, sort: list | None = None, filter: str | None = None,
         generation: int = 1) -> dict:
    return {"table": table, "offset": offset, "limit": limit, "sort": sort or [], "filter": filter,
            "generation": generation}


@unittest.skipUnless(BUILT, "tabdeck-sqlite is not built")
class SQLitePlugin(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = tempfile.mkdtemp(prefix="tabdeck-sqlite-test-")
        build(os.path.join(cls.tmp, "db.sqlite"))

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self) -> None:
        self.p = PluginProcess([LAUNCHER], cwd=self.tmp)  # relative paths resolve against cwd
        self.addCleanup(self.p.close)
        self.init = self.p.initialize()

    def test_handshake(self) -> None:
        self.assertEqual(self.init["name"], "sqlite")
        self.assertEqual(self.init["protocolVersion"], 1)
        caps = self.init["capabilities"]
        for cap in ("sort", "multiSort", "filter", "children"):
            self.assertTrue(caps[cap], cap)
        self.assertEqual(self.p.shutdown(), 0)

    def test_catalog_counts_arrive_as_invalidations(self) -> None:
        desc = self.p.call("open", {"args": {"path": "db.sqlite"}})
        self.assertEqual(desc["table"], "root")
        self.assertEqual(desc["total"], 5)
        self.assertEqual([c["id"] for c in desc["columns"]], ["name", "kind", "rows", "columns"])
        counted: set[str] = set()
        while counted != {"adults", "empty", "order items", "people", 'say "cheese"'}:
            n = self.p.notification("invalidate", after=0, predicate=lambda m: not set(m["params"]["rows"]) <= counted)
            self.assertEqual(n["params"]["table"], "root")
            counted |= set(n["params"]["rows"])
        page = self.p.call("rows", rows("root", sort=[{"column": "rows", "direction": "desc"}]))
        self.assertEqual([(r["id"], r["cells"][1], r["cells"][2]) for r in page["rows"]],
                         [("people", "table", 1000), ("order items", "without rowid", 885), ("adults", "view", 818),
                          ('say "cheese"', "table", 4), ("empty", "table", 0)])
        self.assertTrue(all(r["hasChildren"] for r in page["rows"]))

    def test_drill_down_sort_and_page(self) -> None:
        self.p.call("open", {"args": {"path": "db.sqlite"}})
        child = self.p.call("children", {"table": "root", "row": "people"})
        self.assertNotEqual(child["table"], "root")
        self.assertEqual(child["total"], 1000)
        types = {c["id"]: c["type"] for c in child["columns"]}
        self.assertEqual(types, {"id": "integer", "name": "text", "city": "text", "age": "integer", "salary": "decimal",
                                 "born": "date", "updated": "date", "active": "bool"})
        sort = [{"column": "age", "direction": "desc"}, {"column": "name", "direction": "asc"}]
        pages = [self.p.call("rows", rows(child["table"], offset, 100, sort, generation=7)) for offset in range(0, 1000, 100)]
        self.assertTrue(all(p["generation"] == 7 and p["total"] == 1000 for p in pages))
        got = [r for p in pages for r in p["rows"]]
        db = sqlite3.connect(os.path.join(self.tmp, "db.sqlite"))
        expected = [str(i) for (i,) in db.execute("SELECT id FROM people ORDER BY age DESC, name ASC, id ASC")]
        db.close()
        self.assertEqual([r["id"] for r in got], expected)
        self.assertRegex(got[0]["cells"][6], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

    def test_filter_escapes_like_wildcards(self) -> None:
        self.p.call("open", {"args": {"path": "db.sqlite"}})
        child = self.p.call("children", {"table": "root", "row": 'say "cheese"'})
        page = self.p.call("rows", rows(child["table"], filter="%"))
        self.assertEqual([r["cells"][0] for r in page["rows"]], ["50% off"])
        page = self.p.call("rows", rows(child["table"], filter="_"))
        self.assertEqual([r["cells"][0] for r in page["rows"]], ["under_score"])

    def test_errors(self) -> None:
        with self.assertRaises(ResponseError) as e:
            self.p.call("open", {"args": {"path": "missing.sqlite"}})
        self.assertEqual(e.exception.code, -32602)
        self.assertIn("missing.sqlite", e.exception.message)
        self.p.call("open", {"args": {"path": "db.sqlite"}})
        with self.assertRaises(ResponseError) as e:
            self.p.call("rows", rows("t99"))
        self.assertEqual(e.exception.code, -32001)
        child = self.p.call("children", {"table": "root", "row": "adults"})
        with self.assertRaises(ResponseError) as e:
            self.p.call("rows", rows(child["table"], sort=[{"column": "nope", "direction": "asc"}]))
        self.assertEqual(e.exception.code, -32602)
        with self.assertRaises(ResponseError) as e:
            self.p.call("children", {"table": child["table"], "row": "x"})
        self.assertEqual(e.exception.code, -32002)
        self.p.notify("close", {"table": child["table"]})
        with self.assertRaises(ResponseError) as e:
            self.p.call("rows", rows(child["table"]))
        self.assertEqual(e.exception.code, -32001)
        self.assertEqual(self.p.shutdown(), 0)

    def test_one_table_directly(self) -> None:
        desc = self.p.call("open", {"args": {"path": "db.sqlite", "table": "order items"}})
        self.assertEqual(desc["table"], "root")
        self.assertEqual(desc["total"], 885)
        page = self.p.call("rows", rows("root", 0, 2, [{"column": "order_id", "direction": "desc"}]))
        # Ties on order_id are broken by the primary key, in the direction of the last key.
        keys = [json.loads(r["id"]) for r in page["rows"]]
        self.assertEqual([k[0] for k in keys], [300, 300])
        self.assertGreater(keys[0][1], keys[1][1])


if __name__ == "__main__":
    unittest.main()
