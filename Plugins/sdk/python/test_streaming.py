"""Tests of the SDK's streaming mode (``paging: False`` plugins, protocol section 11.3.1)."""

from __future__ import annotations

import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from tabdeck_testing import PluginProcess  # noqa: E402

PLUGIN = textwrap.dedent('''
    import sys
    sys.path.insert(0, {here!r})
    from tabdeck_plugin import TablePlugin, column, row

    class Stream(TablePlugin):
        name, version = "sdk-stream", "1.0.0"
        def capabilities(self): return {{"paging": False}}
        def columns(self): return [column("n", type="integer"), column("word")]
        def stream(self):  # produced lazily, never all in memory
            for i in range(2500):
                yield row(f"r{{i}}", [i, f"w{{i % 7}}"])

    Stream().run()
''')


class StreamingTests(unittest.TestCase):
    def setUp(self) -> None:
        fd, self.path = tempfile.mkstemp(suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(PLUGIN.format(here=HERE))

    def tearDown(self) -> None:
        os.unlink(self.path)

    def test_a_stream_request_is_answered_with_chunks_then_the_total(self) -> None:
        with PluginProcess([sys.executable, self.path]) as p:
            caps = p.initialize()["capabilities"]
            self.assertIs(caps.get("paging"), False)
            p.call("open", {"args": {}})
            params = {"table": "root", "offset": 0, "limit": 2147483647, "sort": [], "filter": None,
                      "generation": 3, "stream": True}
            result = p.call("rows", params)
            chunks = [n["params"] for n in p.notifications if n.get("method") == "rows/chunk"]
            self.assertEqual([len(c["rows"]) for c in chunks], [1000, 1000])
            self.assertTrue(all(c["id"] == chunks[0]["id"] for c in chunks))
            ids = [r["id"] for c in chunks for r in c["rows"]] + [r["id"] for r in result["rows"]]
            self.assertEqual(ids, [f"r{i}" for i in range(2500)])
            self.assertEqual(result["total"], 2500)
            self.assertEqual(result["generation"], 3)
            self.assertEqual(p.shutdown(), 0)


if __name__ == "__main__":
    unittest.main()
