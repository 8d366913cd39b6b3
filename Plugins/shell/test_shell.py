"""Tests of wordcount.sh (bash + coreutils, no SDK), spawned as a subprocess."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import unittest
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.join(HERE, "..", "sdk", "python")
if SDK not in sys.path:
    sys.path.insert(0, SDK)

from tabdeck_testing import PluginProcess, ResponseError  # noqa: E402

PLUGIN = os.path.join(HERE, "wordcount.sh")
TEXT = """The cat sat on the mat. The dog -- the DOG! -- sat too.
Zürich, zürich; "quoted" words\\and a_b 100% sure\ttabs\x01control
it's don't-stop; 2024-05-01 42 42 x
""" + "filler " * 7 + "\n" + " ".join(f"w{i:03d}" for i in range(250)) + "\n"


def reference_counts(text: str) -> Counter:
    """Words as the plugin defines them: runs between ASCII blanks/punctuation, ASCII-lowercased."""
    text = re.sub(r"[\x00-\x08\x0e-\x1f\x7f]", "", text)
    words = re.split(r"[\t\n\v\f\r !-/:-@\[-`{-~]+", text)
    return Counter(w.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"))
                   for w in words if w)


def key(column: str, word: str, count: int) -> object:
    return word.encode() if column == "word" else count


def rows_params(offset: int = 0, limit: int = 100, sort: list | None = None, generation: int = 1,
                table: str = "root") -> dict:
    return {"table": table, "offset": offset, "limit": limit, "sort": sort or [], "filter": None,
            "generation": generation}


class WordCount(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="tabdeck-wordcount-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        with open(os.path.join(self.tmp, "text.txt"), "w", encoding="utf-8") as f:
            f.write(TEXT)
        self.scratch = os.path.join(self.tmp, "scratch")  # the plugin's TMPDIR
        os.mkdir(self.scratch)
        self.p = PluginProcess([PLUGIN], cwd=self.tmp, env={"TMPDIR": self.scratch})  # shebang and mode too
        self.addCleanup(self.p.close)
        self.init = self.p.initialize()
        self.expected = reference_counts(TEXT)

    def open(self, path: str = "text.txt") -> dict:
        return self.p.call("open", {"args": {"path": path}})

    def all_rows(self, sort: list, page: int = 37) -> list[dict]:
        out: list[dict] = []
        while True:
            res = self.p.call("rows", rows_params(len(out), page, sort))
            self.assertEqual(res["total"], len(self.expected))
            out += res["rows"]
            if len(res["rows"]) < page:
                return out

    def test_handshake(self) -> None:
        self.assertEqual(self.init["name"], "wordcount")
        self.assertEqual(self.init["protocolVersion"], 1)
        self.assertEqual(self.init["capabilities"], {"sort": True, "multiSort": True})

    def test_open_describes_the_table_and_reports_status(self) -> None:
        desc = self.open()
        self.assertEqual(desc["table"], "root")
        self.assertEqual(desc["title"], "text.txt")
        self.assertEqual([(c["id"], c["type"]) for c in desc["columns"]],
                         [("word", "text"), ("count", "integer"), ("percent", "decimal")])
        self.assertEqual(desc["total"], len(self.expected))
        status = self.p.notification("status")
        self.assertEqual(status["params"]["text"],
                         f"{sum(self.expected.values())} words, {len(self.expected)} distinct")

    def test_counts_match_the_reference(self) -> None:
        self.open()
        rows = self.all_rows([])
        self.assertEqual({r["id"]: r["cells"][1] for r in rows}, dict(self.expected))
        self.assertTrue(all(r["id"] == r["cells"][0] for r in rows))
        self.assertIn("zürich", self.expected)  # UTF-8 letters stay in their word
        self.assertEqual(self.expected["the"], 4)
        total = sum(self.expected.values())
        for r in rows:
            self.assertAlmostEqual(r["cells"][2], r["cells"][1] * 100 / total, delta=0.01)

    def test_natural_order_is_most_frequent_first(self) -> None:
        self.open()
        words = [r["id"] for r in self.all_rows([])]
        self.assertEqual(words, [w for w, _ in sorted(self.expected.items(), key=lambda kv: (-kv[1], kv[0].encode()))])
        self.assertEqual(words[0], "filler")

    def test_sorting_by_every_column_and_several_keys(self) -> None:
        self.open()
        orders = [[("word", "asc")], [("word", "desc")], [("count", "asc")], [("percent", "desc")],
                  [("count", "desc"), ("word", "desc")], [("count", "asc"), ("word", "asc")],
                  [("percent", "asc"), ("count", "desc")]]
        for order in orders:
            sort = [{"column": c, "direction": d} for c, d in order]
            expected = sorted(self.expected.items(), key=lambda kv: kv[0].encode())  # the word ends every order
            for column, direction in reversed(order):
                expected.sort(key=lambda kv, c=column: key(c, *kv), reverse=direction == "desc")
            self.assertEqual([r["id"] for r in self.all_rows(sort)], [w for w, _ in expected], order)

    def test_paging_and_generation(self) -> None:
        self.open()
        sort = [{"column": "word", "direction": "asc"}]
        whole = [r["id"] for r in self.all_rows(sort, page=1000)]
        res = self.p.call("rows", rows_params(100, 10, sort, generation=42))
        self.assertEqual(res["generation"], 42)
        self.assertEqual(res["offset"], 100)
        self.assertEqual([r["id"] for r in res["rows"]], whole[100:110])
        res = self.p.call("rows", rows_params(len(whole) - 3, 10, sort))
        self.assertEqual(len(res["rows"]), 3)
        self.assertEqual(self.p.call("rows", rows_params(len(whole) + 5, 10, sort))["rows"], [])

    def test_errors(self) -> None:
        with self.assertRaises(ResponseError) as e:
            self.p.call("rows", rows_params())
        self.assertEqual(e.exception.code, -32001)  # nothing opened yet
        for args, text in [({"path": "missing.txt"}, "missing.txt: no such file"), ({"path": "."}, "is a folder"),
                           ({}, "args.path is required")]:
            with self.assertRaises(ResponseError) as e:
                self.p.call("open", {"args": args})
            self.assertEqual(e.exception.code, -32602)
            self.assertIn(text, e.exception.message)
        self.open()
        for sort, text in [([{"column": "salary", "direction": "asc"}], "unknown sort column"),
                           ([{"column": "word", "direction": "up"}], "bad sort direction")]:
            with self.assertRaises(ResponseError) as e:
                self.p.call("rows", rows_params(sort=sort))
            self.assertEqual(e.exception.code, -32602)
            self.assertIn(text, e.exception.message)
        with self.assertRaises(ResponseError) as e:
            self.p.call("rows", rows_params(table="t2"))
        self.assertEqual(e.exception.code, -32001)
        with self.assertRaises(ResponseError) as e:
            self.p.call("children", {"table": "root", "row": "the"})
        self.assertEqual(e.exception.code, -32601)
        # A string id is echoed as a string.
        self.p.send({"jsonrpc": "2.0", "id": "abc", "method": "shutdown"})
        self.assertEqual(self.p.response("abc"), {"jsonrpc": "2.0", "id": "abc", "result": None})

    def test_empty_file_and_notifications_are_quiet(self) -> None:
        with open(os.path.join(self.tmp, "empty.txt"), "w") as f:
            f.write(" ... \n")
        self.assertEqual(self.open("empty.txt")["total"], 0)
        self.p.notify("$/cancel", {"id": 99})
        self.p.notify("close", {"table": "t9"})
        self.assertEqual(self.p.call("rows", rows_params())["rows"], [])
        self.assertEqual(self.p.shutdown(), 0)
        self.assertEqual(self.p.garbage, [])  # nothing but protocol on stdout
        self.assertEqual(os.listdir(self.scratch), [])  # its sorted copies are gone


if __name__ == "__main__":
    unittest.main()
