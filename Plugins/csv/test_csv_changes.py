"""The built tabdeck-csv plugin when its file changes on disk while open.

A mapping of a file cut short faults on the pages past its new end (SIGBUS), which killed the
plugin; now every request checks the file first and reads it again. Skipped when the plugin is
not built (swift build --product tabdeck-csv).
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

from tabdeck_testing import PluginProcess, ResponseError  # noqa: E402

LAUNCHER = os.path.join(HERE, "tabdeck-csv")
BUILT = any(os.access(os.path.join(ROOT, ".build", c, "tabdeck-csv"), os.X_OK) for c in ("debug", "release"))


def page(sort=None, limit=5):
    return {"table": "root", "offset": 0, "limit": limit, "sort": sort or [], "filter": None, "generation": 1}


@unittest.skipUnless(BUILT, "tabdeck-csv is not built")
class FileChangesWhileOpen(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="tabdeck-csv-change-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.path = os.path.join(self.tmp, "data.csv")
        self.write(["id,name"] + [f"{i},n{i:06d}" for i in range(20000)])
        self.p = PluginProcess([LAUNCHER], cwd=self.tmp)
        self.addCleanup(self.p.close)
        self.p.initialize()
        self.opened = self.p.call("open", {"args": {"path": self.path}})

    def write(self, lines):
        with open(self.path, "w") as f:
            f.write("\n".join(lines) + "\n")

    def test_a_file_cut_short_is_read_again_and_the_host_told_its_count(self) -> None:
        first = self.p.call("rows", page([{"column": "name", "direction": "desc"}]))
        self.assertEqual(first["rows"][0]["cells"], [19999, "n019999"])
        # Cut it short, as a writer that truncates and rewrites does.
        self.write(["id,name"] + [f"{i},m{i:06d}" for i in range(3)])
        again = self.p.call("rows", page([{"column": "name", "direction": "desc"}]))
        self.assertEqual([r["cells"] for r in again["rows"]], [[2, "m000002"], [1, "m000001"], [0, "m000000"]])
        told = self.p.notification("invalidate", lambda n: n["params"].get("total") == 3)
        self.assertEqual(told["params"]["table"], "root")
        status = self.p.notification("status")
        self.assertIn("data.csv changed on disk (its size went from", status["params"]["text"])
        self.assertEqual(self.p.shutdown(), 0)

    def test_a_file_whose_columns_changed_says_so(self) -> None:
        self.p.call("rows", page())
        self.write(["other,columns,now", "1,2,3"])
        with self.assertRaises(ResponseError) as caught:
            self.p.call("rows", page())
        self.assertIn("data.csv changed on disk", str(caught.exception))
        self.assertIn("its columns are not the same: open the tab again", str(caught.exception))
        self.assertEqual(self.p.shutdown(), 0)


if __name__ == "__main__":
    unittest.main()
