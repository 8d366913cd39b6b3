"""Keeps Scripts/bench from rotting: runs its --smoke mode (10,000 rows, one run, no VisiData)
on the debug build and checks the table and results.json. Not a measurement: the figures of a
debug build mean nothing; what is checked is that every section runs and that tabdeck and the
sqlite3 shell print the same 50 rows as the reference computed in Python.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "Scripts", "bench")
DEBUG = os.path.join(ROOT, ".build", "debug")
BUILT = all(os.access(os.path.join(DEBUG, p), os.X_OK) for p in ("tabdeck", "tabdeck-csv", "tabdeck-bench"))


class BenchScriptTests(unittest.TestCase):
    def test_help_names_every_option(self):
        out = subprocess.run([sys.executable, BENCH, "--help"], capture_output=True, text=True, check=True).stdout
        for option in ("--quick", "--smoke", "--runs", "--sizes", "--skip-visidata-10m", "--only"):
            self.assertIn(option, out)

    def test_unknown_section_is_a_usage_error(self):
        r = subprocess.run([sys.executable, BENCH, "--only", "nonsense", "--no-build"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown section 'nonsense'", r.stderr)

    @unittest.skipUnless(BUILT and shutil.which("sqlite3"), "needs the debug build (swift build) and sqlite3")
    def test_smoke_run_prints_the_table_and_writes_results(self):
        tmp = tempfile.mkdtemp(prefix="tabdeck-bench-test-")
        try:
            results = os.path.join(tmp, "results.json")
            r = subprocess.run([sys.executable, BENCH, "--smoke", "--debug", "--no-build", "--results", results],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("| figure", r.stdout)
            self.assertIn("machine: ", r.stdout)
            with open(results) as f:
                doc = json.load(f)
            figures = {row["figure"]: row for row in doc["figures"]}
            same = [row for name, row in figures.items() if "same 50 rows" in name]
            self.assertEqual(len(same), 1)
            self.assertTrue(same[0]["passed"], same[0])
            self.assertIn("tabdeck", same[0]["figure"])
            self.assertIn("sqlite3", same[0]["figure"])
            roundtrip = [row for name, row in figures.items() if "page round trip median" in name]
            self.assertEqual(len(roundtrip), 1)
            self.assertGreater(roundtrip[0]["value"], 0)
            memory = [row for name, row in figures.items() if name.startswith("host RSS 10k / 1k")]
            self.assertEqual(len(memory), 1)
            self.assertGreater(memory[0]["value"], 0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
