"""Where the sort task's time goes (issue 28, point 3): `Scripts/bench --only breakdown`.

One run is the sort task as `sort_task.Tabdeck` runs it (`tabdeck --line --output json`, the
order's two `sort` commands, `show 50`), with two recorders switched on:

- the host's protocol trace (`--trace FILE`: each line the host sends or receives, stamped with
  the wall clock in milliseconds), which gives the host's side: when `initialize`, `open` and
  the sorted `rows` request left and their replies arrived;
- the csv plugin's own phase timings (`TABDECK_CSV_PHASES=FILE`, `PhaseLog` in the engine): each
  phase's wall-clock start and end (microseconds) and the CPU time of the threads doing it.

With the launch and the exit of the process timed here (`time.time()` around `Popen` and
`wait`), the run splits into parts that follow one another:

  host start     launch → the host sends `initialize` (its own start, the config, the spawn)
  plugin start   `initialize` sent → its reply received (the plugin's exec, load, handshake)
  open           `open` sent → its reply (the header, the delimiter, the first 65,536 rows, types)
  index + keys   the sorted `rows` request sent → the last of the index and the keys is done
                 (they overlap: the indexer and one thread per sort column, on 2 cores)
  top-k          the first rows of the order by a bounded heap over every row (two threads);
                 read from the records alongside the index (StreamTop, no keys): what is
                 left of it once the index is done
  answer         the top-k done → the host has the reply (the 50 rows read, JSON, the pipe)
  exit           the reply received → the process is gone (the host prints, shuts the plugin down)
  host between   what is left: the host between requests (its commands, the other requests)

Each part is reported with the floor it is measured against: starting and ending a process is
measured against spawning `/bin/true` (launch → exit); the index and the keys against `wc -l` on
the same file (whole process) and, in process, one bare read of the mapped file and a `memchr`
count of its newlines; the keys' store against writing one 64-bit key a row; the top-k against
a plain loop over one 64-bit key a row (`tabdeck-csv --floors FILE`, best of 3).
"""
import datetime
import json
import os
import shutil
import statistics
import subprocess
import time

import sort_task

PARTS = ["host start", "plugin start", "open", "index + keys", "top-k", "answer", "exit", "host between"]


def trace_time(stamp):
    """`2026-11-22T10:00:00.123Z` as seconds since the epoch."""
    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()


def read_trace(path):
    """The host's side: (sent, received) times of `initialize`, `open` and the last `rows` of a
    sorted first page (offset 0)."""
    sent, methods, received = {}, {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split(" ", 3)
            if len(parts) < 4 or parts[2] not in ("→", "←"):
                continue
            t = trace_time(parts[0])
            try:
                msg = json.loads(parts[3])
            except ValueError:
                continue
            if parts[2] == "→" and "method" in msg and "id" in msg:
                params = msg.get("params") or {}
                # The sorted first page (the host also reads the page after it, alongside).
                first_sorted = bool(params.get("sort")) and not params.get("offset")
                methods[msg["id"]] = (msg["method"], first_sorted)
                sent[msg["id"]] = t
            elif parts[2] == "←" and "id" in msg and "method" not in msg:
                received[msg["id"]] = t
    out = {}
    for id_, (method, sorted_) in methods.items():
        key = "rows sorted" if method == "rows" and sorted_ else method
        if id_ in received:
            out[key] = (sent[id_], received[id_])  # the last request of each kind wins
    return out


def read_phases(path):
    """The plugin's phases, one dict per line of its PhaseLog file."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def split(t0, t_end, host, phases):
    """One run's parts (seconds) and what each part's work cost in CPU (seconds, or None)."""
    need = ["initialize", "open", "rows sorted"]
    missing = [k for k in need if k not in host]
    if missing:
        raise RuntimeError("the host's trace has no reply to: " + ", ".join(missing))
    by = {}
    for p in phases:
        by.setdefault(p["phase"], []).append(p)
    # Below 100,000 rows (CSVTable.topRowsMinimum) the whole order is sorted instead of a top-k.
    # A first page of a big file is read straight from the records as they are indexed
    # (StreamTop): "stream top-k" then runs alongside the index; its part is what is left after it.
    top = (by.get("stream top-k") or by.get("top-k") or by.get("sort") or [None])[-1]
    if top is None or "index" not in by:
        raise RuntimeError("the plugin logged no %s phase (is TABDECK_CSV_PHASES honoured?)"
                           % ("top-k or sort" if top is None else "index"))
    init, open_, rows = host["initialize"], host["open"], host["rows sorted"]
    keys = by.get("keys", [])
    index = by["index"][-1]
    t_keys = max([k["end"] for k in keys] + [index["end"]])
    streamed = top["phase"] == "stream top-k"
    top_start = max(top["start"], t_keys) if streamed else top["start"]
    parts = {
        "host start": init[0] - t0,
        "plugin start": init[1] - init[0],
        "open": open_[1] - open_[0],
        "index + keys": max(0.0, min(top_start, t_keys) - rows[0]),
        "top-k": top["end"] - top_start,
        "answer": rows[1] - top["end"],
        "exit": t_end - rows[1],
    }
    parts["host between"] = (t_end - t0) - sum(parts.values())
    detail = {
        "total": t_end - t0,
        "index": index["end"] - index["start"], "index cpu": index["cpu"],
        "keys": (max(k["end"] for k in keys) - min(k["start"] for k in keys)) if keys else 0.0,
        "keys cpu": sum(k["cpu"] for k in keys),
        "keys per column": {str(k.get("column")): k["end"] - k["start"] for k in keys},
        "top-k cpu": top["cpu"],
        "top-k is a full sort": 1 if top["phase"] == "sort" else 0,
        "top-k is streamed": 1 if streamed else 0,
        "streamed top-k": top["end"] - top["start"] if streamed else 0.0,
        "answer in plugin": by["answer"][-1]["end"] - by["answer"][-1]["start"] if "answer" in by else None,
        "open in plugin": by["open"][-1]["end"] - by["open"][-1]["start"] if "open" in by else None,
        "rows in plugin": by["rows"][-1]["end"] - by["rows"][-1]["start"] if "rows" in by else None,
        "exec to main": (by["main"][0]["start"] - init[0]) if "main" in by else None,
    }
    return parts, detail


def run_once(tabdeck, csv_plugin, data, order, work, i):
    """One traced run of the sort task: its parts and details."""
    tool = sort_task.Tabdeck(tabdeck, csv_plugin, order)
    config, script = tool.prepare(work, data)
    state = tool.path(work, "breakdown-state-%d" % i)
    trace = tool.path(work, "breakdown-%d.trace" % i)
    phases = tool.path(work, "breakdown-%d.phases" % i)
    out = tool.path(work, "breakdown-out.jsonl")
    for p in (trace, phases):
        if os.path.exists(p):
            os.remove(p)
    shutil.rmtree(state, ignore_errors=True)
    env = dict(os.environ, TABDECK_CSV_PHASES=phases)
    with open(script, "rb") as stdin, open(out, "wb") as stdout:
        t0 = time.time()
        proc = subprocess.Popen([tabdeck, "--line", "--output", "json", "--config", config, "--state-dir", state,
                                 "--trace", trace], stdin=stdin, stdout=stdout, stderr=subprocess.DEVNULL, env=env)
        code = proc.wait()
        t_end = time.time()
    shutil.rmtree(state, ignore_errors=True)
    if code != 0:
        raise RuntimeError("tabdeck exited with status %d (breakdown run)" % code)
    rows = tool.rows(out)
    parts, detail = split(t0, t_end, read_trace(trace), read_phases(phases))
    return parts, detail, rows


def spawn_floor(runs=10):
    """Median seconds to spawn `/bin/true` and wait for its exit."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(["/bin/true"])
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def wc_floor(data, runs):
    """Median seconds of `wc -l FILE`, whole process."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(["wc", "-l", data], stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def engine_floors(csv_plugin, data):
    """`tabdeck-csv --floors FILE`: {name: seconds}."""
    out = subprocess.run([csv_plugin, "--floors", data], capture_output=True, text=True, check=True).stdout
    return {d["floor"]: d["s"] for d in (json.loads(line) for line in out.splitlines() if line.startswith("{"))}


def measure(tabdeck, csv_plugin, data, order, runs, work, log):
    """The breakdown of `runs` traced runs of the sort task in `order` (medians), and the floors."""
    os.makedirs(work, exist_ok=True)
    runs_parts, details = [], []
    rows = None
    for i in range(runs):
        log("breakdown (%s order): run %d" % (order.key, i + 1))
        parts, detail, rows = run_once(tabdeck, csv_plugin, data, order, work, i)
        runs_parts.append(parts)
        details.append(detail)
    floors = engine_floors(csv_plugin, data)
    floors["spawn /bin/true"] = spawn_floor()
    floors["wc -l"] = wc_floor(data, max(3, runs))
    med = {p: statistics.median(r[p] for r in runs_parts) for p in PARTS}
    numbers = [k for k in details[0] if isinstance(details[0][k], (int, float))]
    detail = {k: statistics.median(d[k] for d in details if d[k] is not None) for k in numbers
              if any(d[k] is not None for d in details)}
    return {"order": order.key, "runs": runs, "parts": med, "detail": detail, "floors": floors,
            "raw": {"parts": runs_parts, "details": details}, "first_rows": rows[:3] if rows else [],
            "rows": len(rows or [])}


def summary(res):
    """(part, time, note) rows for the table: each part's time (ms) and, in the note, the CPU its
    work took where the plugin logs it, and its floor with the ratio to it."""
    f, d, p = res["floors"], res["detail"], res["parts"]
    ms = lambda s: "%.1f ms" % (s * 1000)  # noqa: E731

    def note(floor_name, floor_s, ours_s, cpu=None):
        text = "CPU %s; " % ms(cpu) if cpu is not None else ""
        return text + ("floor: %s %s (%.1f×)" % (floor_name, ms(floor_s), ours_s / floor_s) if floor_name else "")

    spawn = f["spawn /bin/true"]
    columns = len(res["raw"]["details"][0]["keys per column"])
    top = ("the whole order (under 100,000 rows)" if d.get("top-k is a full sort")
           else "read from the records alongside the index (%s in all), what is left after it" % ms(d["streamed top-k"])
           if d.get("top-k is streamed") else "a bounded heap over the keys")
    return [
        ("host start", ms(p["host start"]), note("spawn /bin/true", spawn, p["host start"])),
        ("plugin start", ms(p["plugin start"]), note("spawn /bin/true", spawn, p["plugin start"])),
        ("open", ms(p["open"]), "the first 65,536 rows indexed, types inferred"),
        ("index + keys", ms(p["index + keys"]), note("wc -l", f["wc -l"], p["index + keys"])),
        ("index alone", ms(d["index"]), note("memchr lines", f["newlines"], d["index"], d["index cpu"])
         + ", bare read " + ms(f["read"])),
        ("keys alone", ms(d["keys"]), note("bare read + store", f["read"] + f["store"], d["keys"], d["keys cpu"])
         + " (%d columns)" % columns if columns else "none extracted: the top-k reads the cells"),
        ("top-k", ms(p["top-k"]), note("a loop over a key a row", f["loop"], p["top-k"], d["top-k cpu"]) + "; " + top),
        ("answer", ms(p["answer"]), "in the plugin %s (50 rows read and encoded)" % ms(d.get("answer in plugin", 0))),
        ("exit", ms(p["exit"]), note("spawn /bin/true", spawn, p["exit"])),
        ("host between", ms(p["host between"]), "the host between requests"),
        ("whole process", ms(d["total"]), note("wc -l", f["wc -l"], d["total"])),
    ]
