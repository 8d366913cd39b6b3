"""`cmd | tabdeck` with the real binary, as cron or a script runs it: no terminal at all
(a new session, so no /dev/tty), standard input the data. Skipped when tabdeck is not built.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.environ.get("TABDECK_BIN_DIR") or os.path.join(ROOT, ".build", "debug")
TABDECK = os.path.join(BIN, "tabdeck")

PS = """USER         PID %CPU %MEM     VSZ    RSS TTY      STAT START   TIME COMMAND
root           1  0.0  0.1  167736  11452 ?        Ss   Nov26   0:03 /sbin/init splash
alice      40213 12.5  3.4 4021356 561234 pts/0    Sl+  10:02  25:40 python3 train.py --epochs 10
systemd+     612  0.1  0.2   25532  13020 ?        Ss   Nov26   1:12 /lib/systemd/systemd-resolved
"""


@unittest.skipUnless(os.access(TABDECK, os.X_OK), "tabdeck is not built")
class PipeFromTheCommandLine(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="tabdeck-pipe-cli-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def run_tabdeck(self, args, data: str) -> subprocess.CompletedProcess:
        # A folder with no config.json, a state folder of its own, no controlling terminal.
        return subprocess.run([TABDECK, "--state-dir", os.path.join(self.tmp, "state")] + args, input=data,
                              capture_output=True, text=True, cwd=self.tmp, start_new_session=True, timeout=120)

    def test_without_a_terminal_the_first_page_is_printed(self) -> None:
        r = self.run_tabdeck([], "name,qty\nbolt,3\nnut,12\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("name", lines[0])
        self.assertTrue(any("bolt" in line and "3" in line for line in lines), r.stdout)
        self.assertIn("rows 1–2 of 2", r.stdout)

    def test_a_script_sees_the_whole_stream_sorted(self) -> None:
        r = self.run_tabdeck(["-", "--output", "json", "-e", "sort %CPU desc", "-e", "show 3"], PS)
        self.assertEqual(r.returncode, 0, r.stderr)
        shown = [json.loads(line) for line in r.stdout.splitlines()][-1]["result"]
        self.assertEqual(shown["total"], 3)
        self.assertEqual([row["cells"]["USER"] for row in shown["rows"]], ["alice", "systemd+", "root"])
        self.assertEqual(shown["rows"][0]["cells"]["COMMAND"], "python3 train.py --epochs 10")
        self.assertEqual(shown["rows"][0]["cells"]["VSZ"], 4021356)

    def test_a_script_exports_every_row_of_a_stream(self) -> None:
        out = os.path.join(self.tmp, "out.csv")
        data = "n\n" + "".join(f"{i}\n" for i in range(25000))
        r = self.run_tabdeck(["-", "-e", "sort n desc", "-e", f"export {out}"], data)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "n")
        self.assertEqual(len(lines), 25001)
        self.assertEqual(lines[1], "24999")
        self.assertEqual(lines[-1], "0")

    def test_json_lines_that_cannot_be_read_do_not_stop_the_rest(self) -> None:
        r = self.run_tabdeck(["-", "--output", "json", "-e", "show"], '{"a": 1}\nnot json\n{"a": 2}\n')
        self.assertEqual(r.returncode, 0, r.stderr)
        shown = json.loads(r.stdout.splitlines()[-1])["result"]
        self.assertEqual([row["cells"]["a"] for row in shown["rows"]], [1, 2])
        with open(os.path.join(self.tmp, "state", "logs", "stdin.log")) as f:
            self.assertIn("stdin line 2: not JSON", f.read())


if __name__ == "__main__":
    unittest.main()
