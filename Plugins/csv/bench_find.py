#!/usr/bin/env python3
"""Times `find` against `filter` in tabdeck-csv over its protocol (issue 28: a find for a text
in no row costs at most 1.2x a filter for it).

usage: Plugins/csv/bench_find.py PLUGIN FILE [--tries N]

FILE: a bench CSV from gen_csv.py (ids 1..N; generate it into /tmp, never into the
repository). The plugin opens it and indexes it whole, a filter scan warms the page cache,
then, best of N (default 3) with a new text each try (filters and orders are cached), a
filter and its find one after the other in each try (both see the same machine), wall clock
and the plugin's CPU time (user + system, from /proc: a figure that holds on a busy machine):

- filter: `rows` with a filter in no row (limit 100);
- find: `find` for a text in no row, from 0 with wrap;
- find past the middle: `find` for the id of the row just past the middle, from 0;
- the same filter and find under a sort by amount (its order made first, untimed).

Prints one line per figure, and one JSON line per figure.
"""
import argparse
import json
import os
import subprocess
import time


class Plugin:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.n = 0
        self.notes = []

    def cpu(self):
        """The plugin's user + system time so far, in seconds."""
        with open("/proc/%d/stat" % self.p.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def call(self, method, params):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}
        t = time.perf_counter()
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.n:
                if "error" in m:
                    raise SystemExit("%s failed: %s" % (method, m["error"]))
                return time.perf_counter() - t, m["result"]
            self.notes.append(m)

    def close(self):
        self.call("shutdown", {})
        self.p.stdin.close()
        self.p.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("plugin")
    ap.add_argument("file")
    ap.add_argument("--tries", type=int, default=3)
    args = ap.parse_args()
    p = Plugin(args.plugin)
    p.call("initialize", {"protocolVersion": 1})
    _, desc = p.call("open", {"args": {"path": args.file}})
    # Indexed whole: a page at the end answers once the index is complete.
    _, last = p.call("rows", {"table": "root", "offset": 10**12, "limit": 1, "sort": [], "generation": 1})
    total = last["total"]
    p.call("rows", {"table": "root", "offset": 0, "limit": 100, "sort": [], "filter": "warmup-none", "generation": 1})
    middle = total // 2 + 1  # the id of the row at position total // 2
    figures = []

    def rows(sort, text):
        return p.call("rows", {"table": "root", "offset": 0, "limit": 100, "sort": sort, "filter": text, "generation": 1})

    def find(sort, text, start=0, wrap=True):
        return p.call("find", {"table": "root", "text": text, "from": start, "wrap": wrap, "sort": sort, "generation": 1})

    def measure(runs):
        """Best wall and CPU times of each (label, run(try)), the runs of a try one after the other."""
        walls = {label: [] for label, _ in runs}
        cpus = {label: [] for label, _ in runs}
        results = {}
        for i in range(args.tries):
            for label, run in runs:
                c = p.cpu()
                t, results[label] = run(i)
                walls[label].append(t)
                cpus[label].append(p.cpu() - c)
        for label, _ in runs:
            figures.append((label, min(walls[label]), min(cpus[label])))
            print("%-36s wall %.3f s  cpu %.3f s  (walls %s)  %s" % (label, min(walls[label]), min(cpus[label]),
                  " ".join("%.3f" % t for t in walls[label]), json.dumps(results[label])[:90]))
        return [(min(walls[label]), min(cpus[label])) for label, _ in runs]

    print("%s: %d rows" % (args.file, total))
    (filt, filt_cpu), (fnd, fnd_cpu), _ = measure([
        ("filter, text in no row", lambda i: rows([], "qzxv%d" % i)),
        ("find, text in no row (wrap)", lambda i: find([], "qzxw%d" % i)),
        ("find, first past the middle", lambda i: find([], str(middle)))])
    sort = [{"column": "amount", "direction": "asc"}]
    p.call("rows", {"table": "root", "offset": 0, "limit": 100, "sort": sort, "filter": None, "generation": 2})
    p.call("rows", {"table": "root", "offset": total // 2, "limit": 100, "sort": sort, "filter": None, "generation": 2})
    (sfilt, sfilt_cpu), (sfind, sfind_cpu) = measure([
        ("sorted: filter, text in no row", lambda i: rows(sort, "qzxs%d" % i)),
        ("sorted: find, text in no row (wrap)", lambda i: find(sort, "qzxt%d" % i))])
    print("find / filter: wall %.2f, cpu %.2f (sorted: wall %.2f, cpu %.2f)"
          % (fnd / filt, fnd_cpu / filt_cpu, sfind / sfilt, sfind_cpu / sfilt_cpu))
    p.close()
    for label, wall, cpu in figures:
        print(json.dumps({"bench": "csv-find", "rows": total, "figure": label, "value": round(wall, 3), "unit": "s"}))
        print(json.dumps({"bench": "csv-find", "rows": total, "figure": label + ", cpu", "value": round(cpu, 3), "unit": "s"}))


if __name__ == "__main__":
    main()
