"""Tests of the processes plugin, spawned as a subprocess and driven over the protocol."""

from __future__ import annotations

import os
import pwd
import signal
import subprocess
import sys
import time
import unittest
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.join(HERE, "..", "sdk", "python")
if SDK not in sys.path:
    sys.path.insert(0, SDK)

from tabdeck_testing import PluginProcess, ResponseError  # noqa: E402

PLUGIN = os.path.join(HERE, "processes.py")
COLUMNS = ["pid", "name", "user", "state", "cpu", "rss", "threads", "command"]
STATES = ["R", "D", "S", "I", "T", "t", "Z", "X", "P", "W", "K", "x", "?"]


def spawn() -> PluginProcess:
    return PluginProcess([PLUGIN])  # run as an executable: tests the shebang and mode too


def rows_params(offset: int = 0, limit: int = 50, sort: list | None = None,
                generation: int = 1, table: str = "root") -> dict:
    return {"table": table, "offset": offset, "limit": limit, "sort": sort or [],
            "filter": None, "generation": generation}


def key(value: Any, column: str) -> tuple:
    if value is None:
        return (0,)
    if column == "state":
        return (1, STATES.index(value))
    if isinstance(value, str):
        return (1, value)  # PROTOCOL.md 11.3: text by UTF-8 bytes (Python's str order)
    return (1, value)


def sleeper(seconds: int = 30) -> subprocess.Popen:
    return subprocess.Popen(["sleep", str(seconds)])


class Snapshot(unittest.TestCase):
    """One plugin with a fixed snapshot (interval one hour), for paging and sorting."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.child = sleeper()
        cls.p = spawn()
        cls.init = cls.p.initialize()
        cls.desc = cls.p.call("open", {"args": {"interval": 3600}})

    @classmethod
    def tearDownClass(cls) -> None:
        cls.p.close()
        cls.child.kill()
        cls.child.wait()

    def all_rows(self, sort: list, page: int = 13) -> list[dict]:
        out: list[dict] = []
        offset = 0
        while True:
            res = self.p.call("rows", rows_params(offset, page, sort))
            self.assertEqual(res["total"], self.desc["total"])
            out += res["rows"]
            if len(res["rows"]) < page:
                return out
            offset += page

    def test_handshake(self) -> None:
        self.assertEqual(self.init["protocolVersion"], 1)
        self.assertEqual(self.init["name"], "processes")
        caps = self.init["capabilities"]
        for cap in ("sort", "multiSort", "filter", "actions", "live", "children"):
            self.assertIs(caps[cap], True, cap)

    def test_description(self) -> None:
        d = self.desc
        self.assertEqual(d["table"], "root")
        self.assertEqual([c["id"] for c in d["columns"]], COLUMNS)
        self.assertEqual([c["type"] for c in d["columns"]],
                         ["integer", "text", "text", "enum", "decimal", "decimal", "integer",
                          "text"])
        self.assertGreater(d["total"], 3)
        acts = {a["id"]: a for a in d["actions"]}
        self.assertEqual(set(acts), {"term", "kill"})
        for a in acts.values():
            self.assertIs(a["confirm"], True)
            self.assertIs(a["multiple"], True)

    def test_our_sleep_child_is_a_row(self) -> None:
        rows = {r["id"]: r for r in self.all_rows([])}
        r = rows[str(self.child.pid)]
        pid, name, user, state, cpu, rss, threads, command = r["cells"]
        self.assertEqual(pid, self.child.pid)
        self.assertEqual(name, "sleep")
        self.assertEqual(user, pwd.getpwuid(os.getuid()).pw_name)
        self.assertEqual(state, "S")
        self.assertEqual(cpu, 0.0)
        self.assertGreater(rss, 0)
        self.assertEqual(threads, 1)
        self.assertEqual(command, "sleep 30")
        self.assertIn(f"parent {os.getpid()}", r["detail"])
        me = rows[str(self.p.proc.pid)]
        self.assertIn("processes.py", me["cells"][7])
        self.assertGreaterEqual(me["cells"][6], 2)  # reader + worker (sampled before the sampler started)
        for r in rows.values():
            self.assertEqual(r["id"], str(r["cells"][0]))
            self.assertIn(r["cells"][3], STATES)

    def test_filter_keeps_matching_rows_and_counts_them(self) -> None:
        params = rows_params(0, 500, [{"column": "pid", "direction": "asc"}])
        params["filter"] = "SLEEP 30"  # case-insensitive, in any cell (the command here)
        page = self.p.call("rows", params)
        pids = [r["cells"][0] for r in page["rows"]]
        self.assertIn(self.child.pid, pids)
        self.assertEqual(page["total"], len(pids))
        self.assertTrue(all("sleep 30" in " ".join(str(c) for c in r["cells"]).lower() for r in page["rows"]))
        self.assertEqual(pids, sorted(pids))

    def test_paging_start_middle_end(self) -> None:
        total = self.desc["total"]
        everything = self.p.call("rows", rows_params(0, total + 10))["rows"]
        self.assertEqual(len(everything), total)
        pids = [r["cells"][0] for r in everything]
        self.assertEqual(pids, sorted(pids))  # unsorted = by pid
        self.assertEqual(len(set(pids)), total)
        start = self.p.call("rows", rows_params(0, 5))["rows"]
        self.assertEqual(start, everything[:5])
        mid = total // 2
        self.assertEqual(self.p.call("rows", rows_params(mid, 4))["rows"],
                         everything[mid:mid + 4])
        end = self.p.call("rows", rows_params(total - 3, 10))
        self.assertEqual(end["rows"], everything[-3:])
        self.assertEqual(end["offset"], total - 3)
        self.assertEqual(self.p.call("rows", rows_params(total, 10))["rows"], [])

    def check_order(self, rows: list[dict], keys: list[tuple[str, str]]) -> None:
        for a, b in zip(rows, rows[1:]):
            for col, direction in keys:
                i = COLUMNS.index(col)
                x, y = key(a["cells"][i], col), key(b["cells"][i], col)
                if x == y:
                    continue
                if direction == "asc":
                    self.assertLess(x, y, f"{col} asc: {a['cells']} / {b['cells']}")
                else:
                    self.assertGreater(x, y, f"{col} desc: {a['cells']} / {b['cells']}")
                break

    def test_sort_each_column(self) -> None:
        total = self.desc["total"]
        for col in COLUMNS:
            for direction in ("asc", "desc"):
                with self.subTest(column=col, direction=direction):
                    rows = self.all_rows([{"column": col, "direction": direction}])
                    self.assertEqual(len(rows), total)
                    self.assertEqual(len({r["id"] for r in rows}), total)
                    self.check_order(rows, [(col, direction)])
        pids = [r["cells"][0] for r in self.all_rows([{"column": "pid", "direction": "desc"}])]
        self.assertEqual(pids, sorted(pids, reverse=True))

    def test_multi_key_sort(self) -> None:
        keys = [("user", "asc"), ("state", "desc"), ("threads", "desc"), ("pid", "asc")]
        rows = self.all_rows([{"column": c, "direction": d} for c, d in keys])
        self.check_order(rows, keys)
        expected = sorted(self.all_rows([]), key=lambda r: r["cells"][0])
        for col, direction in reversed(keys):
            i = COLUMNS.index(col)
            expected.sort(key=lambda r: key(r["cells"][i], col), reverse=direction == "desc")
        self.assertEqual([r["id"] for r in rows], [r["id"] for r in expected])

    def test_generation_echo_and_errors(self) -> None:
        self.assertEqual(self.p.call("rows", rows_params(generation=77))["generation"], 77)
        with self.assertRaises(ResponseError) as cm:
            self.p.call("rows", rows_params(table="nope"))
        self.assertEqual(cm.exception.code, -32001)
        with self.assertRaises(ResponseError) as cm:
            self.p.call("rows", rows_params(sort=[{"column": "colour", "direction": "asc"}]))
        self.assertEqual(cm.exception.code, -32602)
        self.assertEqual(self.p.request("top")["error"]["code"], -32601)

    def test_threads_children(self) -> None:
        child = self.p.call("children", {"table": "root", "row": str(self.p.proc.pid)})
        self.assertIn(str(self.p.proc.pid), child["title"])
        res = self.p.call("rows", rows_params(table=child["table"]))
        tids = [r["cells"][0] for r in res["rows"]]
        self.assertIn(self.p.proc.pid, tids)
        self.assertGreaterEqual(len(tids), 3)
        with self.assertRaises(ResponseError) as cm:
            self.p.call("children", {"table": "root", "row": "0"})
        self.assertEqual(cm.exception.code, -32602)


class BadArgs(unittest.TestCase):
    def test_open_rejects_bad_args(self) -> None:
        with spawn() as p:
            p.initialize()
            for args in ({"interval": 0}, {"interval": "fast"}, {"interval": True},
                         {"badgeCpu": -1}):
                with self.subTest(args=args):
                    with self.assertRaises(ResponseError) as cm:
                        p.call("open", {"args": args})
                    self.assertEqual(cm.exception.code, -32602)
            self.assertEqual(p.shutdown(), 0)


class Actions(unittest.TestCase):
    def test_term_kill_and_failures(self) -> None:
        a, b, c = sleeper(), sleeper(), sleeper()
        try:
            with spawn() as p:
                p.initialize()
                p.call("open", {"args": {"interval": 3600}})
                res = p.call("action", {"table": "root", "action": "term", "rows": [str(a.pid)]})
                self.assertIn("SIGTERM", res["message"])
                self.assertIn(str(a.pid), res["message"])
                self.assertIs(res["invalidate"], True)
                self.assertEqual(a.wait(5), -signal.SIGTERM)

                res = p.call("action", {"table": "root", "action": "kill", "rows": [str(b.pid)]})
                self.assertIn("SIGKILL", res["message"])
                self.assertEqual(b.wait(5), -signal.SIGKILL)

                # the plugin re-reads /proc after an action: a's row goes away
                p.wait_for(lambda: any(n["method"] == "invalidate" for n in p.notifications))

                with self.assertRaises(ResponseError) as cm:
                    p.call("action", {"table": "root", "action": "term",
                                      "rows": ["99999999", str(c.pid), "0"]})
                err = cm.exception
                self.assertEqual(err.code, -32003)
                self.assertIn("pid 99999999", err.message)
                self.assertIn("pid 0", err.message)
                self.assertNotIn(f"pid {c.pid}", err.message)
                self.assertEqual(err.data["signalled"], [str(c.pid)])
                self.assertEqual(set(err.data["failed"]), {"99999999", "0"})
                self.assertEqual(c.wait(5), -signal.SIGTERM)

                with self.assertRaises(ResponseError) as cm:
                    p.call("action", {"table": "root", "action": "kill",
                                      "rows": [str(p.proc.pid)]})
                self.assertEqual(cm.exception.code, -32003)
                self.assertIsNone(p.proc.poll())
                self.assertEqual(p.shutdown(), 0)
        finally:
            for s in (a, b, c):
                if s.poll() is None:
                    s.kill()
                    s.wait()


BURNER = "while True: pass\n"  # killed by the test


class Live(unittest.TestCase):
    def test_invalidate_status_and_new_processes(self) -> None:
        with spawn() as p:
            p.initialize()
            p.call("open", {"args": {"interval": 0.2}})
            child = sleeper()
            try:
                deadline = time.monotonic() + 5
                while True:  # other processes may come and go too: look for ours
                    n = len(p.notifications)
                    inv = p.notification("invalidate", after=n, timeout=2)
                    self.assertEqual(inv["params"]["table"], "root")
                    self.assertIsInstance(inv["params"]["total"], int)
                    found = p.call("rows", rows_params(0, 100000))["rows"]
                    if str(child.pid) in {r["id"] for r in found}:
                        break
                    self.assertLess(time.monotonic(), deadline, "new process never showed up")
                status = p.notification("status")["params"]["text"]
                self.assertRegex(status, r"^watching \d+ processes$")
            finally:
                child.kill()
                child.wait()
            self.assertEqual(p.shutdown(), 0)

    def badge_at_open(self, threshold: float) -> tuple[Any, list[dict], int]:
        """Open with a fixed snapshot; return the badge sent at open, the rows, own pid."""
        with spawn() as p:
            p.initialize()
            p.call("open", {"args": {"interval": 3600, "badgeCpu": threshold}})
            badge = p.notification("badge", timeout=1)["params"]["value"]
            rows = p.call("rows", rows_params(0, 100000))["rows"]
            self.assertEqual(p.shutdown(), 0)
            return badge, rows, p.proc.pid

    def test_badge_counts_processes_over_the_cpu_threshold(self) -> None:
        badge, rows, me = self.badge_at_open(0)
        self.assertEqual(badge, len(rows) - 1)  # every process but the plugin itself
        badge, rows, me = self.badge_at_open(1e9)
        self.assertIsNone(badge)  # cleared with null, never 0
        badge, rows, me = self.badge_at_open(5)
        hogs = sum(1 for r in rows if r["cells"][4] >= 5 and r["cells"][0] != me)
        self.assertEqual(badge, hogs or None)

    def test_badge_is_live(self) -> None:
        burner = subprocess.Popen([sys.executable, "-c", BURNER])
        try:
            with spawn() as p:
                p.initialize()
                p.call("open", {"args": {"interval": 0.2, "badgeCpu": 5}})
                # The burner shows up busy (on a loaded machine, such as a CI run that builds
                # on every core, it may not be among the top few: it is looked up by id), and
                # the badge counts it. Ends when it is seen, not at a time.
                def burning() -> bool:
                    rows = p.call("rows", rows_params(0, 100000, [{"column": "cpu",
                                                                   "direction": "desc"}]))["rows"]
                    return any(r["id"] == str(burner.pid) and (r["cells"][4] or 0) >= 5
                               for r in rows)
                while not burning():
                    time.sleep(0.1)
                p.notification("badge", lambda m: (m["params"]["value"] or 0) >= 1, timeout=30)
                values = [n["params"]["value"] for n in p.notifications
                          if n["method"] == "badge"]
                self.assertNotIn(0, values)
                for a, b in zip(values, values[1:]):
                    self.assertNotEqual(a, b, "badge re-sent without a change")
                self.assertEqual(p.shutdown(), 0)
        finally:
            burner.kill()
            burner.wait()


if __name__ == "__main__":
    unittest.main()
