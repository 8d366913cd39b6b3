"""Protocol test of the built tabdeck-pipe plugin, spawned as a subprocess: a stream handed over
as its descriptor 3 (as the host does for `cmd | tabdeck`), rows streamed as they arrive, and
lines that cannot be read named. The reader itself is tested in Swift (Tests/PipeTableTests).
Skipped when the plugin is not built (swift build --product tabdeck-pipe).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "..", "sdk", "python"))

from tabdeck_testing import PluginProcess  # noqa: E402

LAUNCHER = os.path.join(HERE, "tabdeck-pipe")
BUILT = any(os.access(os.path.join(ROOT, ".build", c, "tabdeck-pipe"), os.X_OK) for c in ("debug", "release"))
STREAM = {"table": "root", "offset": 0, "limit": 2147483647, "sort": [], "filter": None, "generation": 1, "stream": True}


@unittest.skipUnless(BUILT, "tabdeck-pipe is not built")
class PipePlugin(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="tabdeck-pipe-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def plugin(self, **kwargs) -> PluginProcess:
        p = PluginProcess([LAUNCHER], cwd=self.tmp, **kwargs)
        self.addCleanup(p.close)
        init = p.initialize()
        self.assertFalse(init["capabilities"]["paging"])
        return p

    def test_rows_stream_from_descriptor_3_as_they_arrive(self) -> None:
        read, write = os.pipe()
        os.set_inheritable(read, True)
        # The child gets the pipe's read end as its descriptor 3, as the host hands it over.
        p = self.plugin(pass_fds=(read,), preexec_fn=lambda: (os.dup2(read, 3), None)[1])
        os.close(read)
        os.write(write, b"name,qty\nbolt,3\n")
        opened = p.call("open", {"args": {"fd": 3}})
        self.assertEqual([c["id"] for c in opened["columns"]], ["name", "qty"])
        self.assertEqual([c["type"] for c in opened["columns"]], ["text", "integer"])
        self.assertEqual(opened["title"], "stdin (csv)")
        sid = p.start("rows", STREAM)
        first = p.notification("rows/chunk")
        self.assertEqual(first["params"]["rows"], [{"id": "1", "cells": ["bolt", 3]}])
        # More arrives later: a second chunk, before the stream ends.
        os.write(write, b"nut,12\n")
        second = p.notification("rows/chunk", lambda n: n["params"]["rows"][0]["id"] == "2")
        self.assertEqual(second["params"]["rows"][0]["cells"], ["nut", 12])
        os.close(write)
        result = p.response(sid)["result"]
        self.assertEqual(result["total"], 2)
        self.assertEqual(p.shutdown(), 0)

    def test_aligned_columns_and_json_lines_that_cannot_be_read_are_named(self) -> None:
        path = os.path.join(self.tmp, "events.jsonl")
        with open(path, "w") as f:
            f.write('{"at": "2025-10-26T02:30:00+02:00", "n": 1}\n{"at": oops}\n{"at": "2025-10-27", "n": 2.5}\n')
        p = self.plugin()
        opened = p.call("open", {"args": {"path": path}})
        self.assertEqual([(c["id"], c["type"]) for c in opened["columns"]], [("at", "date"), ("n", "decimal")])
        result = p.call("rows", STREAM)
        self.assertEqual(result["total"], 2)
        log = p.notification("log", lambda n: "line 2" in n["params"]["message"])
        self.assertIn("events.jsonl line 2: not JSON", log["params"]["message"])
        status = p.notification("status")
        self.assertIn("1 line of events.jsonl left out", status["params"]["text"])
        self.assertEqual(p.shutdown(), 0)

    def test_a_stream_read_to_its_end_before_it_is_asked_for_loses_no_row(self) -> None:
        # 300,000 rows, all read before the stream request: more than one 4 MiB line holds.
        path = os.path.join(self.tmp, "many.csv")
        with open(path, "w") as f:
            f.write("n,word\n" + "".join(f"{i},w{i}\n" for i in range(300000)))
        p = self.plugin()
        p.call("open", {"args": {"path": path}})
        sid = p.start("rows", STREAM)
        result = p.response(sid, timeout=120)["result"]
        chunks = [n for n in p.notifications if n.get("method") == "rows/chunk" and n["params"]["id"] == sid]
        ids = [r["id"] for n in chunks for r in n["params"]["rows"]] + [r["id"] for r in result["rows"]]
        self.assertEqual(result["total"], 300000)
        self.assertEqual(len(ids), 300000)
        self.assertEqual(ids[-1], "300000")
        self.assertEqual(p.shutdown(), 0)

    def test_a_missing_path_is_a_clear_error(self) -> None:
        p = self.plugin()
        error = p.request("open", {"args": {"path": os.path.join(self.tmp, "nope")}})
        self.assertIn("error", error)
        self.assertIn("nope: No such file or directory", error["error"]["message"])
        self.assertEqual(p.shutdown(), 0)


if __name__ == "__main__":
    unittest.main()
