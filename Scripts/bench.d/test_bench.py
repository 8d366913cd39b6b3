"""Keeps Scripts/bench from rotting: runs its --smoke mode (10,000 rows, one run, no VisiData)
on the debug build and checks the table and results.json. Not a measurement: the figures of a
debug build mean nothing; what is checked is that every section runs and that tabdeck and the
sqlite3 shell print the same 50 rows as the reference computed in Python, in both orders of the
sort task (text and numeric). Also checks the sort task's orders themselves (no build needed):
the commands each tool is given and the Python reference order.
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import other_benches  # noqa: E402
import report  # noqa: E402
import sort_task  # noqa: E402

BUILT = all(os.access(os.path.join(DEBUG, p), os.X_OK) for p in ("tabdeck", "tabdeck-csv", "tabdeck-bench"))


class OtherBenchesTests(unittest.TestCase):
    """How the other helpers' JSON lines become rows of the table."""

    def test_bench_lines_are_picked_out_of_other_output(self):
        text = 'codec: 400000 rows\n{"bench":"codec_decode_rows_per_s","median":2500000,"min":2400000,"max":2600000}\n{"x":1}\n{bad'
        self.assertEqual([d["bench"] for d in other_benches.bench_json_lines(text)], ["codec_decode_rows_per_s"])

    def test_headline_value_and_spread(self):
        self.assertEqual(other_benches.pick_value({"bench": "c", "median": 5, "min": 4, "max": 7}), (5, (4, 7)))
        self.assertEqual(other_benches.pick_value({"bench": "f", "median_s": 2.1, "min_s": 2.0, "max_s": 2.5}), (2.1, (2.0, 2.5)))
        self.assertEqual(other_benches.pick_value({"bench": "csv", "value": 12.5, "unit": "ms"}), (12.5, None))

    def test_codec_row_passes_or_misses_on_the_decode_target(self):
        for rate, verdict in ((2_500_000, True), (1_500_000, False)):
            figs = report.Figures()
            line = '{"bench":"codec_decode_rows_per_s","unit":"rows/s","median":%d,"min":1,"max":2,"runs":7}' % rate
            encode = '{"bench":"codec_encode_rows_per_s","unit":"rows/s","median":9,"min":8,"max":10,"runs":7}'
            fake = tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False)
            fake.write("#!/bin/sh\necho '%s'\necho '%s'\n" % (line, encode))
            fake.close()
            os.chmod(fake.name, 0o755)
            try:
                other_benches.codec_figures(None, {"tabdeck-bench": fake.name}, figs)
            finally:
                os.remove(fake.name)
            rows = {r["figure"]: r for r in figs.rows}
            self.assertEqual(rows["codec: codec_decode_rows_per_s"]["passed"], verdict)
            self.assertIsNone(rows["codec: codec_encode_rows_per_s"]["passed"])

    def test_ratio_spread_takes_the_extremes(self):
        value, spread = report.ratio_spread([10, 20, 30], [1, 2, 5])
        self.assertEqual(value, 10)
        self.assertEqual(spread, (2, 30))


class SortTaskOrderTests(unittest.TestCase):
    """The sort task's two orders (sort_task.ORDERS): what each tool is told, and the reference."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tabdeck-sort-task-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def csv_file(self, rows):
        path = os.path.join(self.tmp, "data.csv")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write("id,name,amount,date,category,note\n")
            for id_, name, amount in rows:
                f.write('%d,%s,%s,2024-01-01,a,"x, y"\n' % (id_, name, amount))
        return path

    def test_tabdeck_is_given_the_commands_the_docstring_claims(self):
        # Each `sort` makes its column the primary key and keeps the previous one as secondary,
        # so the last command names the primary key.
        claimed = {"text": ["sort amount desc", "sort name"], "numeric": ["sort name", "sort amount desc"]}
        self.assertEqual(set(sort_task.ORDERS), set(claimed))
        for key, commands in claimed.items():
            order = sort_task.ORDERS[key]
            for tool in (sort_task.Tabdeck("tabdeck", "tabdeck-csv", order),
                         sort_task.TabdeckReopen("tabdeck", "tabdeck-csv", order)):
                _, script = tool.prepare(self.tmp, "/data.csv")
                with open(script) as f:
                    self.assertEqual(f.read().splitlines(), commands + ["show %d" % sort_task.ROWS_SHOWN], key)
                self.assertIn(key, os.path.basename(script))  # one order's files never another's
            quoted = ", ".join("`%s`" % c for c in commands)
            line = next(l for l in sort_task.__doc__.splitlines() if l.startswith("  %s " % key))  # the table
            self.assertIn("tabdeck: %s;" % quoted, line, key)
            self.assertIn(quoted, sort_task.Tabdeck.__doc__.replace("\n    ", " "), key)

    def test_sql_and_visidata_orderings(self):
        text, numeric = sort_task.ORDERS["text"], sort_task.ORDERS["numeric"]
        self.assertEqual((text.sql, numeric.sql), ("name, amount DESC", "amount DESC, name"))
        for order in (text, numeric):
            self.assertIn("ORDER BY " + order.sql, sort_task.__doc__)
        sort = {o.key: [c for c in sort_task.VisiData("vd", o).commands("/d/bench.csv") if c["longname"].startswith("sort")]
                for o in (text, numeric)}
        self.assertEqual([(c["longname"], c["col"], c["input"]) for c in sort["text"]],
                         [("sort-asc", "name", "\u241f<name\u241f>amount")])
        self.assertEqual([(c["longname"], c["col"], c["input"]) for c in sort["numeric"]],
                         [("sort-desc", "amount", "\u241f>amount\u241f<name")])

    def test_numeric_reference_sorts_by_amount_descending_then_name(self):
        # Amounts tie in threes so that name decides; non-ASCII names compare by code point.
        names = ["Zoë", "Ada", "Łukasz", "Bob", "Søren", "田中", "Émile", "Dmitry"]
        rows = [(i + 1, names[i % len(names)], "%.2f" % (((i * 7) % 25) - 10 + 0.25)) for i in range(80)]
        data = self.csv_file(rows)
        got = sort_task.expected_rows(data, sort_task.ORDERS["numeric"])
        self.assertEqual(len(got), sort_task.ROWS_SHOWN)
        for a, b in zip(got, got[1:]):
            self.assertTrue(a[2] > b[2] or (a[2] == b[2] and a[1] <= b[1]), (a, b))
        self.assertTrue(any(a[2] == b[2] and a[1] < b[1] for a, b in zip(got, got[1:])))  # name did break ties
        everything = [sort_task.normalized(*r) for r in rows]
        left_out = set(everything) - set(got)
        self.assertTrue(all(r[2] <= got[-1][2] for r in left_out))  # the 50 largest amounts
        self.assertEqual(got[0], max(everything, key=lambda r: (r[2], [-ord(c) for c in r[1]])))
        # The text order of the same file is another answer: [name asc, amount desc].
        text = sort_task.expected_rows(data, sort_task.ORDERS["text"])
        self.assertEqual(text, sorted(everything, key=lambda r: (r[1], -r[2]))[:sort_task.ROWS_SHOWN])
        self.assertNotEqual(text, got)

    def test_raw_keys(self):
        self.assertEqual(sort_task.raw_key(sort_task.ORDERS["text"], 1_000_000), "task_1000000")
        self.assertEqual(sort_task.raw_key(sort_task.ORDERS["numeric"], 10_000), "task_numeric_10000")


class BreakdownTests(unittest.TestCase):
    """The breakdown's parts from a host trace and the plugin's phase lines (no build needed)."""

    def test_parts_follow_one_another_and_add_up(self):
        import breakdown
        tmp = tempfile.mkdtemp(prefix="tabdeck-breakdown-test-")
        self.addCleanup(shutil.rmtree, tmp, True)
        t0 = 1_700_000_000.0
        stamp = lambda s: __import__("datetime").datetime.fromtimestamp(t0 + s, __import__("datetime").timezone.utc) \
            .strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"  # noqa: E731
        lines = [(0.030, "→", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
                 (0.040, "←", {"jsonrpc": "2.0", "id": 1, "result": {}}),
                 (0.041, "→", {"jsonrpc": "2.0", "id": 2, "method": "open", "params": {}}),
                 (0.050, "←", {"jsonrpc": "2.0", "id": 2, "result": {}}),
                 (0.050, "←", {"jsonrpc": "2.0", "method": "progress", "params": {}}),
                 (0.052, "→", {"jsonrpc": "2.0", "id": 3, "method": "rows", "params": {"sort": [{"column": "a"}]}}),
                 (0.900, "←", {"jsonrpc": "2.0", "id": 3, "result": {}})]
        trace = os.path.join(tmp, "t.trace")
        with open(trace, "w", encoding="utf-8") as f:
            for at, mark, msg in lines:
                f.write("%s bench %s %s\n" % (stamp(at), mark, json.dumps(msg)))
        phases = os.path.join(tmp, "p.phases")
        with open(phases, "w") as f:
            for name, a, b, cpu in (("main", 0.035, 0.035, 0.001), ("index", 0.042, 0.700, 0.4),
                                    ("keys", 0.053, 0.800, 0.7), ("keys", 0.053, 0.790, 0.7),
                                    ("top-k", 0.800, 0.850, 0.09), ("answer", 0.851, 0.852, 0.0)):
                f.write(json.dumps({"phase": name, "start": t0 + a, "end": t0 + b, "cpu": cpu}) + "\n")
        parts, detail = breakdown.split(t0, t0 + 0.920, breakdown.read_trace(trace), breakdown.read_phases(phases))
        self.assertEqual(list(parts), breakdown.PARTS)
        expect = {"host start": 0.030, "plugin start": 0.010, "open": 0.009, "index + keys": 0.748, "top-k": 0.050,
                  "answer": 0.050, "exit": 0.020}
        for part, value in expect.items():
            self.assertAlmostEqual(parts[part], value, delta=0.0015, msg=part)
        self.assertAlmostEqual(sum(parts.values()), 0.920, delta=1e-6)
        self.assertAlmostEqual(detail["keys cpu"], 1.4)
        self.assertAlmostEqual(detail["index"], 0.658, delta=1e-6)

    def test_a_run_without_phases_is_an_error(self):
        import breakdown
        host = {"initialize": (1.0, 1.1), "open": (1.2, 1.3), "rows sorted": (1.4, 2.0)}
        with self.assertRaises(RuntimeError):
            breakdown.split(0.9, 2.1, host, [])


class PostgresSummaryTests(unittest.TestCase):
    """The postgres section's verdicts from its raw figures (no server needed)."""

    @staticmethod
    def result(first_ms=40.0, page_ms=1.0, end_ids=("9", "10"), psql_page=None):
        import pg_bench
        pages = {o: [str(o)] for o in range(2 * pg_bench.UP + 1)}
        tabdeck = {"first_page_ms": first_ms, "first_rows_rtt_ms": 2.0, "first_ids": ["1"], "middle_ids": ["5"],
                   "end_ids": list(end_ids), "middle_jump_ms": 300.0, "end_jump_ms": 3.0,
                   "middle_pages_ms": [page_ms] * 150, "end_pages_ms": [page_ms] * 100, "page_ids": pages,
                   "plugin_rss_mib": 30.0, "plugin_peak_mib": 31.0}
        psql = {"first_page_ms": 30.0, "first_rows_rtt_ms": 0.5, "first_ids": ["1"], "middle_ids": ["5"],
                "end_ids": ["9", "10"], "middle_jump_ms": 500.0, "end_jump_ms": 900.0, "middle_pages_ms": [0.4] * 150,
                "end_pages_ms": [0.4] * 100, "middle_offset_pages_ms": [400.0], "end_offset_pages_ms": [800.0],
                "page_ids": {**pages, **({0: psql_page} if psql_page else {})}}
        return {"tabdeck": [tabdeck], "psql": [psql], "host": {"big_mib": 34.0, "small_mib": 33.0}}

    def verdicts(self, res):
        import pg_bench
        return {label: passed for label, _, _, _, passed in pg_bench.summary(10_000_000, res)}

    def test_targets_pass_when_met(self):
        v = self.verdicts(self.result())
        self.assertTrue(v["first sorted page, spawn → page (median)"])
        self.assertTrue(v["page RTT at the middle, p99"])
        self.assertTrue(v["host RSS, 10,000,000 rows / 1,000 rows"])
        self.assertTrue(next(ok for label, ok in v.items() if label.startswith("same rows")))

    def test_slow_pages_and_first_page_miss(self):
        v = self.verdicts(self.result(first_ms=150.0, page_ms=6.0))
        self.assertFalse(v["first sorted page, spawn → page (median)"])
        self.assertFalse(v["page RTT at the middle, p99"])
        self.assertFalse(v["page RTT at the end, p99"])

    def test_a_page_that_differs_from_psql_fails_same_rows(self):
        for res in (self.result(end_ids=("9", "11")), self.result(psql_page=["other"])):
            v = self.verdicts(res)
            self.assertFalse(next(ok for label, ok in v.items() if label.startswith("same rows")))


class PgSchemaSummaryTests(unittest.TestCase):
    """The pg-schema section's verdicts (issue 23 point 2: each figure ≤ 2× psql's), no server needed."""

    @staticmethod
    def result(ours_ms=(3.0, 900.0, 2.0), export=(1.5, 1.0, 500_001, 500_001), ids=("1", "2")):
        keys = ("first", "jump", "next")
        tabdeck = {**{f"{k}_ms": v for k, v in zip(keys, ours_ms)}, **{f"{k}_ids": list(ids) for k in keys}}
        psql = {**{f"{k}_ms": v for k, v in zip(keys, (2.0, 800.0, 1.5))}, **{f"{k}_ids": ["1", "2"] for k in keys}}
        return {"rows": 3_000_000, "tabdeck": [tabdeck], "psql": [psql], "export": [export]}

    def verdicts(self, res):
        import pg_schema_bench
        return [passed for _, _, _, _, passed in pg_schema_bench.summary(res)]

    def test_within_twice_psql_passes(self):
        self.assertEqual(self.verdicts(self.result()), [True] * 5)

    def test_slower_than_twice_psql_misses(self):
        v = self.verdicts(self.result(ours_ms=(5.0, 1700.0, 4.0), export=(2.5, 1.0, 10, 10)))
        self.assertEqual(v[:4], [False, False, False, False])

    def test_other_rows_or_a_short_export_fail_same_rows(self):
        self.assertFalse(self.verdicts(self.result(ids=("1", "3")))[-1])
        self.assertFalse(self.verdicts(self.result(export=(1.0, 1.0, 400_000, 500_001)))[-1])


class BenchScriptTests(unittest.TestCase):
    def test_find_output_is_read_for_its_row(self):
        import find_bench
        self.assertEqual(find_bench.found_row('found "12.5" at row 6,001 of 10,000 (wrapped past the last row)\n'), 6001)
        self.assertIsNone(find_bench.found_row('error: "zq#xj" is in no row\n'))

    def test_help_names_every_option(self):
        out = subprocess.run([sys.executable, BENCH, "--help"], capture_output=True, text=True, check=True).stdout
        for option in ("--quick", "--smoke", "--runs", "--sizes", "--skip-visidata-10m", "--skip-duckdb", "--only",
                       "--orders"):
            self.assertIn(option, out)

    def test_unknown_section_is_a_usage_error(self):
        r = subprocess.run([sys.executable, BENCH, "--only", "nonsense", "--no-build"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown section 'nonsense'", r.stderr)

    def test_unknown_order_is_a_usage_error(self):
        r = subprocess.run([sys.executable, BENCH, "--orders", "text,nonsense", "--no-build"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown order 'nonsense'", r.stderr)

    @unittest.skipUnless(BUILT, "needs the debug build (swift build)")
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
            self.assertEqual(len(same), 2)  # both orders by default
            self.assertTrue(same[0]["figure"].startswith("10k sort task: same 50 rows"), same[0])  # text: labels of old
            self.assertTrue(same[1]["figure"].startswith("10k numeric sort task: same 50 rows"), same[1])
            for row in same:
                self.assertTrue(row["passed"], row)
                self.assertIn("tabdeck", row["figure"])
                self.assertIn("Python", row["figure"])  # the reference answer at 10,000 rows
                self.assertIn("tabdeck (reopen)", row["figure"])  # the persisted order gives the same rows
                if shutil.which("sqlite3"):
                    self.assertIn("sqlite3", row["figure"])
            self.assertIn("task_10000", doc["raw"])
            self.assertIn("task_numeric_10000", doc["raw"])
            self.assertIn("10k numeric sort task: tabdeck time", figures)
            roundtrip = [row for name, row in figures.items() if "page round trip median" in name]
            self.assertEqual(len(roundtrip), 1)
            self.assertGreater(roundtrip[0]["value"], 0)
            finds = [row for name, row in figures.items() if name.startswith("find 10k: ")]
            self.assertEqual(len(finds), 2, list(figures))  # a text in no row, a text past the middle
            self.assertIn("find_10000", doc["raw"])
            self.assertGreater(doc["raw"]["find_10000"]["row_past_middle"], 5000)
            for order in ("sort task", "numeric sort task"):  # the breakdown runs in --smoke, both orders
                parts = {name.split("breakdown: ", 1)[1]: row for name, row in figures.items()
                         if name.startswith("10k %s breakdown: " % order)}
                for part in ("host start", "plugin start", "open", "index + keys", "index alone", "keys alone",
                             "top-k", "answer", "exit", "host between", "whole process"):
                    self.assertIn(part, parts, (order, list(parts)))
                self.assertIn("floor: wc -l", parts["whole process"]["note"])
                self.assertIn("floor: spawn /bin/true", parts["host start"]["note"])
            for key in ("breakdown_text_10000", "breakdown_numeric_10000"):
                bd = doc["raw"][key]
                self.assertEqual(bd["rows"], sort_task.ROWS_SHOWN)
                self.assertGreater(bd["floors"]["wc -l"], 0)
                self.assertAlmostEqual(sum(bd["parts"][p] for p in bd["parts"]), bd["detail"]["total"], delta=0.05)
            memory = [row for name, row in figures.items() if name.startswith("host RSS 10k / 1k")]
            self.assertEqual(len(memory), 1)
            self.assertGreater(memory[0]["value"], 0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class PgWalkTests(unittest.TestCase):
    """The PostgreSQL paging walks stay inside the table at every size (`--smoke` has 10,000
    rows, where 50 pages down and 100 up from the middle went to offset -100)."""

    def test_every_page_of_the_walks_is_inside_the_table(self) -> None:
        import pg_bench
        page = pg_bench.PAGE
        for total in (1, 150, 10_000, 3_000_000):
            middle, down, up, last, end_up = pg_bench.walk(total)
            offsets = [middle + k * page for k in list(range(1, down + 1)) + list(range(down - 1, down - 1 - up, -1))]
            offsets += [last - k * page for k in range(1, end_up + 1)]
            for offset in offsets:
                self.assertTrue(0 <= offset < total, (total, offset))
        self.assertEqual(pg_bench.walk(3_000_000)[1:3], (pg_bench.DOWN, pg_bench.UP))


if __name__ == "__main__":
    unittest.main()
