#!/usr/bin/env python3
"""Measures tabdeck-csv at 1,000,000 and 10,000,000 rows (release build).

usage: Plugins/csv/bench_csv.py [--rows N ...] [--data DIR] [--no-build] [--no-host] [--pages N] [--plugin BIN]

For each row count it generates the benchmark CSV (gen_csv.py, kept in DIR, default /tmp,
never in the repository) and prints:

- plugin over its protocol (a fresh process per figure group, driven from here):
  open reply, first rows (open sent -> first 200-row page received), full index (open sent ->
  the `invalidate` with the total), sort times (first page of a new order), 200-row pages at
  random offsets under a two-key sort (median, p99), peak RSS of the plugin (VmHWM, which
  counts the mapped file's pages it touched) and RSS at the end split into anon and file, and
  the plugin's CPU time (user + system: a figure that holds on a busy machine);
- the whole task through the real host in line mode: `tabdeck --line` reading
  `sort amount desc`, `sort name`, `show 50`, `quit` (the final order is name asc, amount desc),
  wall clock from launch to exit, and the peak memory of the process tree (host + plugin:
  sampled sum of VmRSS, and the sum of each process's VmHWM as an upper bound).

Then one JSON line per figure: {"bench":"csv","rows":N,"figure":NAME,"value":V,"unit":U}.
"""
import argparse
import json
import os
import queue
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIGURES = []


def figure(rows, name, value, unit):
    FIGURES.append({"bench": "csv", "rows": rows, "figure": name, "value": round(value, 3), "unit": unit})


def proc_status(pid):
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                    out[k] = int(v.split()[0]) / 1024.0
    except OSError:
        pass
    return out


class Plugin:
    """tabdeck-csv driven over its protocol; replies are timestamped when their line arrives."""

    def __init__(self, binary, cwd):
        self.proc = subprocess.Popen([binary], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.messages = queue.Queue()
        self.next_id = 1
        self.notifications = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            t = time.perf_counter()
            self.messages.put((t, json.loads(line)))
        self.messages.put((time.perf_counter(), None))

    def send(self, method, params):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        return rid

    def wait_for(self, pred, timeout=120):
        deadline = time.perf_counter() + timeout
        while True:
            t, m = self.messages.get(timeout=max(0.01, deadline - time.perf_counter()))
            if m is None:
                raise RuntimeError("plugin closed its output")
            if "id" not in m:
                self.notifications.append((t, m))
            if pred(m):
                return t, m

    def call(self, method, params):
        t0 = time.perf_counter()
        rid = self.send(method, params)
        t, m = self.wait_for(lambda m: m.get("id") == rid)
        if "error" in m:
            raise RuntimeError("%s failed: %s" % (method, m["error"]))
        return (t - t0) * 1000, m["result"]

    def start(self):
        self.call("initialize", {"protocolVersion": 1, "host": {"name": "bench", "version": "0"},
                                 "capabilities": {"progress": True, "cancel": True}})

    def close(self):
        try:
            self.call("shutdown", {})
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def protocol_figures(binary, csv, rows, pages):
    out = []
    cwd = os.path.dirname(csv)
    name = os.path.basename(csv)
    amount_name = [{"column": "amount", "direction": "desc"}, {"column": "name", "direction": "asc"}]
    task = [{"column": "name", "direction": "asc"}, {"column": "amount", "direction": "desc"}]

    # 1. Open, first rows, full index, sorts, pages.
    p = Plugin(binary, cwd)
    p.start()
    t_open = time.perf_counter()
    rid_open = p.send("open", {"args": {"path": name}})
    t, m = p.wait_for(lambda m: m.get("id") == rid_open)
    open_ms = (t - t_open) * 1000
    desc = m["result"]
    rid = p.send("rows", {"table": desc["table"], "offset": 0, "limit": 200, "sort": [], "filter": None, "generation": 1})
    t, m = p.wait_for(lambda m: m.get("id") == rid)
    first_ms = (t - t_open) * 1000
    first_total = m["result"].get("total")
    total = desc["total"]
    if total is None:
        t, m = p.wait_for(lambda m: m.get("method") == "invalidate", timeout=300)
        total = m["params"]["total"]
    index_ms = (t - t_open) * 1000
    progress = [n for _, n in p.notifications if n.get("method") == "progress"]
    out.append(("open reply", open_ms, "ms", "total=%s, %d columns" % (desc["total"], len(desc["columns"]))))
    out.append(("first rows", first_ms, "ms", "200 rows from the start of the file, total then %s" % first_total))
    out.append(("full index", index_ms, "ms", "total=%d, %d progress notifications" % (total, len(progress))))
    mem_indexed = proc_status(p.proc.pid)
    out.append(("RSS after index", mem_indexed.get("VmRSS", -1), "MB",
                "anon %.0f + file %.0f" % (mem_indexed.get("RssAnon", -1), mem_indexed.get("RssFile", -1))))

    def rows_call(offset, limit, sort, gen):
        return p.call("rows", {"table": desc["table"], "offset": offset, "limit": limit, "sort": sort,
                               "filter": None, "generation": gen})

    ms, _ = rows_call(0, 50, task, 2)
    out.append(("sort name asc, amount desc", ms, "ms", "the task's order, first 50 rows"))
    ms, _ = rows_call(0, 50, amount_name, 3)
    out.append(("sort amount desc, name asc", ms, "ms", ""))
    rng = random.Random(11)
    times = []
    for _ in range(pages):
        ms, page = rows_call(rng.randrange(max(1, total - 200)), 200, task, 2)
        times.append(ms)
    times.sort()
    out.append(("page 200 rows median", statistics.median(times), "ms", "random offsets, two-key sort, %d pages" % pages))
    out.append(("page 200 rows p99", times[min(len(times) - 1, int(len(times) * 0.99))], "ms", ""))
    mem = proc_status(p.proc.pid)
    with open("/proc/%d/stat" % p.proc.pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    out.append(("plugin CPU time", cpu, "s", "user + system for all of the above"))
    out.append(("plugin peak RSS", mem.get("VmHWM", -1), "MB", "file %.0f MB" % (os.path.getsize(csv) / 1e6)))
    out.append(("plugin RSS at end", mem.get("VmRSS", -1), "MB",
                "anon %.0f + file %.0f" % (mem.get("RssAnon", -1), mem.get("RssFile", -1))))
    p.close()
    return out


def host_task(host_bin, plugin_launcher, csv, tmp):
    """The issue's task through tabdeck --line; returns (seconds, tree peak MB, sum of VmHWM MB, output)."""
    config = os.path.join(tmp, "bench-config.json")
    with open(config, "w") as f:
        json.dump({"tabs": [{"id": "t", "command": [plugin_launcher], "args": {"path": csv}}]}, f)
    state = tempfile.mkdtemp(prefix="state-", dir=tmp)
    commands = "sort amount desc\nsort name\nshow 50\nquit\n"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen([host_bin, "--line", "--config", config, "--state-dir", state],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0.0]
    hwm = {}
    done = threading.Event()

    def sample():
        while not done.is_set():
            pids = [proc.pid]
            try:
                with open("/proc/%d/task/%d/children" % (proc.pid, proc.pid)) as f:
                    pids += [int(x) for x in f.read().split()]
            except OSError:
                pass
            total = 0.0
            for pid in pids:
                s = proc_status(pid)
                total += s.get("VmRSS", 0)
                if "VmHWM" in s:
                    hwm[pid] = s["VmHWM"]
            peak[0] = max(peak[0], total)
            time.sleep(0.005)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = proc.communicate(commands, timeout=120)
    elapsed = time.perf_counter() - t0
    done.set()
    th.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError("tabdeck exited %d: %s" % (proc.returncode, err.strip()))
    return elapsed, peak[0], sum(hwm.values()), cpu, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--data", default="/tmp")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-host", action="store_true", help="skip the line-mode task")
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--plugin", help="a tabdeck-csv binary to measure instead of this build's (for before/after figures)")
    args = ap.parse_args()
    if not args.no_build:
        for product in ("tabdeck-csv", "tabdeck"):
            subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
    binary = os.path.join(ROOT, ".build", "release", "tabdeck-csv")
    host_bin = os.path.join(ROOT, ".build", "release", "tabdeck")
    launcher = os.path.join(ROOT, "Plugins", "csv", "tabdeck-csv")
    if args.plugin:
        binary = launcher = os.path.abspath(args.plugin)
    print("machine: %d cores, %s, load average %s" % (os.cpu_count(), os.uname().release,
                                                       " ".join("%.1f" % x for x in os.getloadavg())))
    tmp = tempfile.mkdtemp(prefix="tabdeck-csv-bench-")
    os.makedirs(args.data, exist_ok=True)
    try:
        for rows in args.rows:
            csv = os.path.join(args.data, "tabdeck-csv-bench-%d.csv" % rows)
            if not os.path.exists(csv):
                print("generating %d rows into %s" % (rows, csv), flush=True)
                subprocess.run([sys.executable, os.path.join(ROOT, "Plugins/csv/gen_csv.py"), str(rows), csv], check=True)
            print("== %s rows (%.0f MB file)" % (format(rows, ","), os.path.getsize(csv) / 1e6), flush=True)
            for name, value, unit, note in protocol_figures(binary, csv, rows, args.pages):
                print("  %-30s %9.1f %-2s  %s" % (name, value, unit, note), flush=True)
                figure(rows, name, value, unit)
            if not args.no_host:
                secs, peak, hwm, cpu, out = host_task(host_bin, launcher, csv, tmp)
                print("  %-30s %9.3f s   sort amount desc, sort name, show 50 via tabdeck --line" % ("task (host, line mode)", secs))
                print("  %-30s %9.3f s   user + system of host and plugin" % ("task CPU time (tree)", cpu))
                print("  %-30s %9.1f MB  sampled every 5 ms; sum of per-process VmHWM %.0f MB" % ("task peak RSS (tree)", peak, hwm))
                lines = out.splitlines()
                print("    " + "\n    ".join(lines[:4] + ["..."] + lines[-2:]))
                figure(rows, "task wall clock", secs, "s")
                figure(rows, "task CPU time (tree)", cpu, "s")
                figure(rows, "task peak RSS tree (sampled)", peak, "MB")
                figure(rows, "task peak RSS tree (sum of VmHWM)", hwm, "MB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in FIGURES:
        print(json.dumps(f))


if __name__ == "__main__":
    main()
