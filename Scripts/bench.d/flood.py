"""The flood case (issue #10 point 3): a plugin writes notifications as fast as it can
(flood_plugin.py: badge, status, progress, invalidate) in a background tab while another tab,
the csv plugin on the benchmark's CSV, is used:

- host memory: VmRSS and VmHWM of the host process (the plugin is another process) after
  `settle` seconds of flood between two line-mode commands (no event is handled there, so
  everything the plugin writes meanwhile waits in the event queue), against the same session
  with the plugin quiet (FLOOD=0); target: at most +32 MB;
- line-mode commands on the other tab: `goto R` then `show 20` at random rows, each timed from
  writing the line to reading its JSON answer; target: within 1 s;
- key press to frame on the other tab, full screen under tmux (TABDECK_FRAME_STATS): j and k
  one at a time, 3 sessions per case alternating (pooled), p99 with the flood against p99
  without; target: within 2x.

Usage from Scripts/bench (section `flood`), or alone:
  python3 Scripts/bench.d/flood.py TABDECK TABDECK_CSV CSV_FILE [--rows N]
"""
import argparse
import importlib.util
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLUGIN = os.path.join(HERE, "flood_plugin.py")


def _measure_keys():
    spec = importlib.util.spec_from_file_location("measure_keys", os.path.join(ROOT, "Scripts", "measure-keys.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def status_mib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def write_config(work, csv_plugin, data, flood):
    path = os.path.join(work, f"flood-{'on' if flood else 'off'}.json")
    with open(path, "w") as f:
        json.dump({"tabs": [
            {"id": "data", "title": "Data", "command": [csv_plugin], "args": {"path": data}},
            {"id": "flood", "title": "Flood", "command": [sys.executable, PLUGIN], "background": True,
             "env": {"FLOOD": "1" if flood else "0"}},
        ]}, f)
    return path


def line_session(tabdeck, csv_plugin, data, rows, work, flood, settle, commands, seed=7):
    """Host RSS after `settle` s, then `commands` timed commands on the data tab."""
    config = write_config(work, csv_plugin, data, flood)
    state = os.path.join(work, f"flood-state-line-{flood}")
    shutil.rmtree(state, ignore_errors=True)
    p = subprocess.Popen([tabdeck, "--line", "--output", "json", "--config", config, "--state-dir", state],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def run(command):
        start = time.perf_counter()
        p.stdin.write(command + "\n")
        p.stdin.flush()
        line = p.stdout.readline()
        took = time.perf_counter() - start
        doc = json.loads(line)
        if not doc.get("ok"):
            raise RuntimeError(f"tabdeck: {command}: {doc.get('error')}")
        return took

    try:
        run("show 1")  # the data tab's plugin is up; the flood tab's plugin started at launch
        time.sleep(settle)
        rss_waiting = status_mib(p.pid, "VmRSS")
        rng = random.Random(seed)
        times = []
        for _ in range(commands):
            times.append(run(f"goto {rng.randint(1, rows)}") + run("show 20"))
        time.sleep(1)
        result = {"rss_mib": rss_waiting, "rss_after_mib": status_mib(p.pid, "VmRSS"),
                  "hwm_mib": status_mib(p.pid, "VmHWM"), "command_s": times}
    finally:
        p.stdin.close()
        p.wait(timeout=60)
        shutil.rmtree(state, ignore_errors=True)
    return result


def key_session(tabdeck, csv_plugin, data, work, flood, keys, pause=0.03):
    """Key press to frame times (ms) on the data tab, in full screen under tmux."""
    mk = _measure_keys()
    config = write_config(work, csv_plugin, data, flood)
    state = os.path.join(work, f"flood-state-keys-{flood}")
    stats = os.path.join(work, f"flood-stats-{flood}")
    marker = os.path.join(work, f"flood-exited-{flood}")
    for path in (stats, marker):
        if os.path.exists(path):
            os.remove(path)
    shutil.rmtree(state, ignore_errors=True)
    command = f"'{tabdeck}' --config '{config}' --state-dir '{state}'; touch '{marker}'; sleep 30"
    tmux = mk.Tmux(120, 40, command, {"TABDECK_FRAME_STATS": stats})
    try:
        tmux.wait_for("row 1 of", timeout=60)
        time.sleep(1)  # the flood tab's plugin is up and writing
        for i in range(keys):
            tmux.keys("j" if (i // 20) % 2 == 0 else "k")
            time.sleep(pause)
        time.sleep(0.5)
        tmux.keys("q")
        deadline = time.time() + 30
        while not os.path.exists(marker) and time.time() < deadline:
            time.sleep(0.05)
        if not os.path.exists(marker):
            raise RuntimeError("tabdeck did not exit after q")
    finally:
        tmux.close()
        shutil.rmtree(state, ignore_errors=True)
    with open(stats) as f:
        times = [float(line.split()[1]) * 1000 for line in f if line.startswith("key ")]
    if not times:
        raise RuntimeError("no key frames recorded")
    return times


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def measure(tabdeck, csv_plugin, data, rows, work, settle=5.0, commands=50, keys=200, skip_keys=False, key_runs=3):
    """All the flood figures as one dict (see the module's doc). The key sessions alternate,
    idle then flood, `key_runs` times, and their times are pooled per case (a p99 of 200 keys is
    the second worst: one session's luck)."""
    out = {}
    for flood in (False, True):
        name = "flood" if flood else "idle"
        out[f"line_{name}"] = line_session(tabdeck, csv_plugin, data, rows, work, flood, settle, commands)
    if not skip_keys:
        for _ in range(key_runs):
            for flood in (False, True):
                out.setdefault(f"keys_{'flood' if flood else 'idle'}", []).extend(
                    key_session(tabdeck, csv_plugin, data, work, flood, keys))
    return out


def summary(m):
    """The figures: (label, value, unit, target, passed)."""
    idle, flood = m["line_idle"], m["line_flood"]
    rows = [
        ("host RSS, other tab idle (after settle)", idle["rss_mib"], "MiB", "", None),
        ("host RSS, flooding tab (after settle)", flood["rss_mib"], "MiB", "", None),
        ("host RSS growth under flood", flood["rss_mib"] - idle["rss_mib"], "MiB", "≤ +32 MB",
         flood["rss_mib"] - idle["rss_mib"] <= 32 * 1e6 / 2**20),
        ("host peak RSS (VmHWM) growth under flood", flood["hwm_mib"] - idle["hwm_mib"], "MiB", "≤ +32 MB",
         flood["hwm_mib"] - idle["hwm_mib"] <= 32 * 1e6 / 2**20),
        ("line-mode goto+show on the other tab, idle: median", statistics.median(idle["command_s"]) * 1000, "ms", "", None),
        ("line-mode goto+show on the other tab, flood: median", statistics.median(flood["command_s"]) * 1000, "ms", "", None),
        ("line-mode goto+show on the other tab, flood: worst", max(flood["command_s"]) * 1000, "ms", "≤ 1 s",
         max(flood["command_s"]) <= 1.0),
    ]
    if "keys_idle" in m:
        p_idle, p_flood = percentile(m["keys_idle"], 99), percentile(m["keys_flood"], 99)
        rows += [
            ("key press to frame on the other tab, idle: p99", p_idle, "ms", "", None),
            ("key press to frame on the other tab, flood: p99", p_flood, "ms", "≤ 2× idle", p_flood <= 2 * p_idle),
            ("key press to frame, flood: median", statistics.median(m["keys_flood"]), "ms", "", None),
        ]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tabdeck")
    ap.add_argument("csv_plugin")
    ap.add_argument("csv_file")
    ap.add_argument("--rows", type=int, required=True, help="rows in csv_file")
    ap.add_argument("--settle", type=float, default=5.0)
    ap.add_argument("--commands", type=int, default=50)
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--skip-keys", action="store_true")
    ap.add_argument("--key-runs", type=int, default=3, help="full-screen sessions per case (alternating)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tabdeck-flood-")
    try:
        m = measure(os.path.abspath(args.tabdeck), os.path.abspath(args.csv_plugin), os.path.abspath(args.csv_file), args.rows, work, args.settle, args.commands,
                    args.keys, args.skip_keys, args.key_runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for label, value, unit, target, passed in summary(m):
        verdict = "" if passed is None else ("PASS" if passed else "MISS")
        print(f"{label}: {value:.2f} {unit} {target} {verdict}".rstrip())


if __name__ == "__main__":
    main()
