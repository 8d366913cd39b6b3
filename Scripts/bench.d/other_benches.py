"""Figures measured by the other helpers' benchmarks, which print one JSON object per figure
on a line of its own, `{"bench": NAME, ...}`: `tabdeck-bench codec`, `Scripts/measure-keys.py`,
`Scripts/bench-fallback` and `Plugins/csv/bench_csv.py`. A missing script, or one that prints no
such line, gives a "not available" row instead of failing the run."""
import json
import os
import subprocess
import sys

from report import fmt_rows

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_DIR = os.path.join(ROOT, ".bench", "data")  # where Scripts/bench keeps its generated files

def log(message):
    print("bench: " + message, file=sys.stderr, flush=True)


def bench_json_lines(text):
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and '"bench"' in line:
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return found


def codec_figures(args, bins, figs):
    target = "≥ 2,000,000 rows/s"
    result = subprocess.run([bins["tabdeck-bench"], "codec"], capture_output=True, text=True)
    found = bench_json_lines(result.stdout) if result.returncode == 0 else []
    if not found:
        figs.unavailable("codec: rows decoded per second", target, "not available (no `tabdeck-bench codec` here)")
        return
    figs.raw["codec"] = found
    for d in found:
        value, spread = pick_value(d)
        headline = d["bench"] == "codec_decode_rows_per_s"  # the target is on the host's decoding
        figs.add("codec: " + d["bench"], None, d.get("unit", ""), target if headline else "",
                 (value >= 2_000_000) if headline and isinstance(value, (int, float)) else None,
                 value=value, spread=spread, digits=0, runs=d.get("runs"))


def pick_value(d):
    """The headline number of a JSON line from another helper's benchmark, and its spread."""
    for key in ("median", "value", "rows_per_s", "median_rows_per_s", "median_s", "median_ms"):
        if isinstance(d.get(key), (int, float)):
            lo = d.get(key.replace("median", "min"), d.get("min")) if key.startswith("median") else d.get("min")
            hi = d.get(key.replace("median", "max"), d.get("max")) if key.startswith("median") else d.get("max")
            spread = (lo, hi) if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) else None
            return d[key], spread
    numbers = [v for k, v in d.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return (numbers[0] if numbers else None), None


def external_lines(figs, label, argv, bench_names, target):
    """Runs another helper's benchmark script and returns its `{"bench": ...}` lines (or None,
    with a "not available" row, when the script is missing or prints none)."""
    script = argv[1] if argv[0] == sys.executable else argv[0]
    if not os.path.exists(script):
        figs.unavailable(label, target, f"not available ({os.path.relpath(script, ROOT)} is not here)")
        return None
    log(f"{label}: {' '.join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a for a in argv)}")
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    found = [d for d in bench_json_lines(result.stdout) if not bench_names or d["bench"] in bench_names]
    figs.raw[label] = {"returncode": result.returncode, "lines": found, "stderr_tail": result.stderr[-2000:]}
    if not found:
        figs.unavailable(label, target, f"not available (exit {result.returncode}, no bench lines)")
        return None
    return found


def other_numbers(d, skip):
    return ", ".join(f"{k}={v:g}" for k, v in d.items()
                     if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in skip)[:70]


def keys_figures(args, figs):
    found = external_lines(figs, "key press to frame", [sys.executable, os.path.join(ROOT, "Scripts", "measure-keys.py")],
                           {"key_to_frame_200x60"}, "p99 ≤ 2 ms")
    for d in found or []:
        if isinstance(d.get("median_ms"), (int, float)):
            figs.add("key press to frame, 200x60: median", None, "ms", value=d["median_ms"], digits=3,
                     runs=d.get("runs") or d.get("keys"))
        p99 = d.get("p99_ms")
        figs.add("key press to frame, 200x60: p99", None, "ms", "≤ 2 ms",
                 p99 <= 2 if isinstance(p99, (int, float)) else None, value=p99, digits=3,
                 spread=None, note=other_numbers(d, {"median_ms", "p99_ms"}))


def remote_figures(args, figs):
    """Key press to frame with the plugin over ssh, 50 ms added each way (issue 13, point 3):
    measure-keys.py --remote-delay against a throw-away sshd on loopback."""
    argv = [sys.executable, os.path.join(ROOT, "Scripts", "measure-keys.py"), "--remote-delay", "0.05",
            "--sizes", "120x40", "--rows", str(min(args.sizes))]
    found = external_lines(figs, "remote tab over ssh (50 ms each way)", argv, {"key_to_frame_remote_120x40"}, "p99 ≤ 2 ms")
    local = next((r for r in figs.rows if r["figure"] == "key press to frame, 200x60: p99"), None)
    for d in found or []:
        p99 = d.get("p99_ms")
        figs.add("remote tab, 50 ms each way, 120x40: key to frame median", None, "ms", value=d.get("median_ms"), digits=3,
                 runs=d.get("keys"))
        figs.add("remote tab, 50 ms each way, 120x40: key to frame p99", None, "ms", "≤ 2 ms",
                 p99 <= 2 if isinstance(p99, (int, float)) else None, value=p99, digits=3,
                 note=("local 200x60 p99 %.3f ms in this run" % local["value"]) if local and local.get("value") else "")
        figs.add("remote tab, 50 ms each way: the last page filled after G", None, "ms", "placeholders, no wait",
                 None, value=d.get("last_page_filled_ms"), digits=0, note="round trip +100 ms; the key's frame is the p99 above")


def fallback_figures(args, figs):
    found = external_lines(figs, "host fallback sort", [os.path.join(ROOT, "Scripts", "bench-fallback")],
                           {"fallback_sort_1m"}, "≤ 1 s")
    for d in found or []:
        value = d.get("median_s")
        spread = (d["min_s"], d["max_s"]) if isinstance(d.get("min_s"), (int, float)) and \
            isinstance(d.get("max_s"), (int, float)) else None
        figs.add("host fallback sort, 1M rows to first sorted page", None, "s", "≤ 1 s",
                 value <= 1 if isinstance(value, (int, float)) else None, value=value, spread=spread,
                 runs=d.get("runs"), note=f"plugin replays its rows; alone {d.get('plugin_alone_s')} s")
        if isinstance(d.get("generating_median_s"), (int, float)):
            figs.add("host fallback sort, plugin making 1M rows in Python", None, "s", value=d["generating_median_s"],
                     note=f"that plugin alone {d.get('generating_plugin_alone_s')} s")


def csv_figures(args, figs):
    """The csv plugin's own benchmark (Plugins/csv/bench_csv.py), when it prints JSON lines:
    `{"bench":"csv","rows":N,"figure":NAME,"value":V,"unit":U}`."""
    path = os.path.join(ROOT, "Plugins", "csv", "bench_csv.py")
    printsJSON = False
    if os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            printsJSON = '"bench"' in f.read()
    if not printsJSON:
        figs.unavailable("csv plugin (Plugins/csv/bench_csv.py)", "", "not available (no JSON bench lines)")
        return
    argv = [sys.executable, path, "--no-build", "--data", DATA_DIR, "--rows"] + [str(r) for r in args.sizes]
    for d in external_lines(figs, "csv plugin", argv, None, "") or []:
        value, spread = pick_value(d)
        rows = d.get("rows")
        label = f"csv plugin{' ' + fmt_rows(rows) if isinstance(rows, int) else ''}: {d.get('figure', d['bench'])}"
        figs.add(label, None, d.get("unit", ""), value=value, spread=spread, runs=d.get("runs"), digits=3,
                 note="from Plugins/csv/bench_csv.py")
