"""The flood case of the benchmark: the flooding plugin speaks the protocol and floods, the
summary judges the figures against the issue's targets.

python3 -m unittest discover -s Scripts/bench.d -p 'test_flood.py'
"""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import flood  # noqa: E402


def start_plugin(env):
    return subprocess.Popen([sys.executable, flood.PLUGIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env={**os.environ, **env})


def request(p, id_, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}) + "\n").encode())
    p.stdin.flush()


class FloodPluginTests(unittest.TestCase):
    def test_flooding_plugin_answers_and_floods_every_kind(self):
        p = start_plugin({"FLOOD": "1", "FLOOD_ROWS": "10"})
        try:
            request(p, 1, "initialize", {})
            first = json.loads(p.stdout.readline())
            self.assertEqual(first["id"], 1)
            request(p, 2, "rows", {"table": "root", "offset": 8, "limit": 5, "generation": 1})
            kinds, answer = set(), None
            # The flood thread may get far ahead of the answer on a loaded machine (a CI run saw
            # more than 100,000 notifications before it): read on until both are in.
            for _ in range(10_000_000):
                msg = json.loads(p.stdout.readline())
                if "id" in msg:
                    answer = msg
                else:
                    kinds.add(msg["method"])
                if answer and len(kinds) == 4:
                    break
            self.assertEqual(kinds, {"badge", "status", "progress", "invalidate"})
            self.assertIsNotNone(answer, "no answer to rows among the notifications")
            self.assertEqual([r["id"] for r in answer["result"]["rows"]], ["r8", "r9"])
        finally:
            p.kill()
            p.wait()

    def test_quiet_plugin_writes_only_answers(self):
        p = start_plugin({"FLOOD": "0"})
        try:
            request(p, 1, "initialize", {})
            request(p, 2, "open", {"args": {}})
            request(p, 3, "shutdown", None)
            p.stdin.close()
            lines = [json.loads(line) for line in p.stdout]
            self.assertEqual([m.get("id") for m in lines], [1, 2, 3])
        finally:
            p.kill()
            p.wait()


class SummaryTests(unittest.TestCase):
    def measurement(self, rss_growth, worst_command_s, p99_ratio):
        line = {"rss_mib": 30.0, "rss_after_mib": 30.0, "hwm_mib": 31.0, "command_s": [0.002, 0.003]}
        flooded = dict(line, rss_mib=30.0 + rss_growth, hwm_mib=31.0 + rss_growth, command_s=[0.002, worst_command_s])
        return {"line_idle": line, "line_flood": flooded, "keys_idle": [1.0] * 100, "keys_flood": [p99_ratio] * 100}

    def verdicts(self, m):
        return {label: passed for label, _, _, _, passed in flood.summary(m) if passed is not None}

    def test_within_the_targets_passes(self):
        self.assertTrue(all(self.verdicts(self.measurement(1, 0.5, 1.5)).values()))

    def test_each_target_can_miss(self):
        v = self.verdicts(self.measurement(40, 0.5, 1.5))
        self.assertFalse(v["host RSS growth under flood"])
        v = self.verdicts(self.measurement(1, 1.5, 1.5))
        self.assertFalse(v["line-mode goto+show on the other tab, flood: worst"])
        v = self.verdicts(self.measurement(1, 0.5, 2.5))
        self.assertFalse(v["key press to frame on the other tab, flood: p99"])


if __name__ == "__main__":
    unittest.main()
