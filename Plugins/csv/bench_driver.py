#!/usr/bin/env python3
"""Drives tabdeck-csv over its protocol and times it.

usage: bench_driver.py PLUGIN CSVFILE

Prints: open reply time, first page time, time until indexing is done (the `invalidate`
with the total), sort times, a filter time, and the plugin's memory from /proc.
"""
import json
import os
import queue
import subprocess
import sys
import threading
import time


class Plugin:
    def __init__(self, argv, cwd):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self.messages = queue.Queue()
        self.next_id = 1
        self.notifications = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.messages.put((time.perf_counter(), json.loads(line)))
        self.messages.put((time.perf_counter(), None))

    def _drain_stderr(self):
        for _ in self.proc.stderr:
            pass

    def send(self, method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params if params is not None else {}}
        if not notify:
            msg["id"] = self.next_id
            self.next_id += 1
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        return msg.get("id")

    def wait_for(self, pred, timeout=60):
        deadline = time.perf_counter() + timeout
        while True:
            t, m = self.messages.get(timeout=max(0.01, deadline - time.perf_counter()))
            if m is None:
                raise RuntimeError("plugin closed its output")
            if "id" not in m:
                self.notifications.append((t, m))
            if pred(m):
                return t, m

    def call(self, method, params=None):
        t0 = time.perf_counter()
        rid = self.send(method, params)
        t, m = self.wait_for(lambda m: m.get("id") == rid)
        if "error" in m:
            raise RuntimeError("%s failed: %s" % (method, m["error"]))
        return (t - t0) * 1000, m["result"]

    def memory(self):
        fields = {}
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                    fields[k] = int(v.split()[0]) // 1024
        return fields


def main():
    plugin_path, csv_path = sys.argv[1], sys.argv[2]
    p = Plugin([os.path.abspath(plugin_path)], cwd=os.path.dirname(os.path.abspath(csv_path)))
    report = []

    ms, init = p.call("initialize", {"protocolVersion": 1, "host": {"name": "bench", "version": "0"},
                                     "capabilities": {"progress": True, "cancel": True}})
    report.append(("initialize", ms, "caps %s" % ",".join(k for k, v in init["capabilities"].items() if v)))

    t_open = time.perf_counter()
    ms, desc = p.call("open", {"args": {"path": os.path.basename(csv_path)}})
    report.append(("open (reply)", ms, "total=%s, %d columns" % (desc["total"], len(desc["columns"]))))
    table = desc["table"]

    def rows(offset, limit, sort=(), filt=None, gen=1):
        return p.call("rows", {"table": table, "offset": offset, "limit": limit, "sort": list(sort),
                               "filter": filt, "generation": gen})

    ms, page = rows(0, 100)
    report.append(("first page (100 rows, unsorted)", ms, "first id %s" % page["rows"][0]["id"]))

    total = desc["total"]
    if total is None:
        t, m = p.wait_for(lambda m: m.get("method") == "invalidate", timeout=120)
        total = m["params"]["total"]
        report.append(("index complete (invalidate)", (t - t_open) * 1000, "total=%d" % total))
        progress = [n for _, n in p.notifications if n.get("method") == "progress"]
        report.append(("progress notifications", 0, "%d, last %s" % (len(progress), progress[-1]["params"] if progress else None)))
    else:
        report.append(("index complete (in open)", 0, "total=%d" % total))

    amount_name = [{"column": "amount", "direction": "desc"}, {"column": "name", "direction": "asc"}]
    ms, page = rows(0, 100, amount_name, gen=2)
    report.append(("sort amount desc, name asc", ms, "top %s" % page["rows"][0]["cells"][2]))
    ms, page = rows(total // 2, 100, amount_name, gen=2)
    report.append(("  same order, middle page", ms, ""))
    ms, page = rows(0, 100, [{"column": "name", "direction": "asc"}], gen=3)
    report.append(("sort name asc", ms, page["rows"][0]["cells"][1]))
    ms, page = rows(0, 100, [{"column": "category", "direction": "asc"}, {"column": "date", "direction": "desc"}], gen=4)
    report.append(("sort category asc, date desc", ms, ""))
    ms, page = rows(0, 100, [{"column": "note", "direction": "asc"}], gen=5)
    report.append(("sort note asc", ms, ""))
    ms, page = rows(0, 100, amount_name, filt="lovelace", gen=6)
    report.append(("filter 'lovelace' + amount desc", ms, "total=%s" % page["total"]))
    ms, page = rows(total - 100, 100, gen=7)
    report.append(("last page (unsorted)", ms, "last id %s" % page["rows"][-1]["id"]))

    mem = p.memory()
    ms, _ = p.call("shutdown")
    p.proc.stdin.close()
    code = p.proc.wait(timeout=10)

    size = os.path.getsize(csv_path)
    print("file: %s (%.1f MB, %d rows)" % (csv_path, size / 1e6, total))
    for label, ms, extra in report:
        print("  %-34s %9.1f ms   %s" % (label, ms, extra))
    print("  memory: peak RSS (VmHWM) %d MB; at end RSS %d MB = anon %d MB + file-backed %d MB (the mapped CSV)"
          % (mem.get("VmHWM", -1), mem.get("VmRSS", -1), mem.get("RssAnon", -1), mem.get("RssFile", -1)))
    print("  shutdown: exit status %d" % code)


if __name__ == "__main__":
    main()
