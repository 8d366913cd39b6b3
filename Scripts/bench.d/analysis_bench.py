"""Issue 25 point 8, understanding the data: Tabdeck's frequency and describe views on the bench
CSV against the DuckDB shell on the same file, whole process each (start, read, compute, print,
quit), in one run.

- freq of a text column: `tabdeck f.csv -e 'freq category' -e 'show 20'` against
  `SELECT category, count(*) FROM read_csv('f.csv') GROUP BY category ORDER BY 2 DESC LIMIT 20`;
- freq of a decimal column in bins: `freq amount` (about 20 round bins) against the same GROUP BY
  on `floor(amount / W) * W`, W the width Tabdeck chose;
  target for both: ≤ the DuckDB shell's time;
- describe: `tabdeck f.csv -e describe -e 'show 20'` against `SUMMARIZE` of the file; target ≤ 1.5×;
- VisiData's frequency sheet of the text column (`vd --batch`, at 1,000,000 rows at most): the low
  anchor;
- the host's own peak resident memory during the text frequency view (the plugin is another
  process): flat in the row count.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import threading
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


def whole_process(argv, cwd):
    """Wall seconds, stdout, and the started process's own peak resident bytes (sampled every
    10 ms from /proc/PID/statm; its children, the plugins, are not counted)."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, start_new_session=True)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            try:
                with open(f"/proc/{proc.pid}/statm") as f:
                    peak[0] = max(peak[0], int(f.read().split()[1]) * PAGE)
            except (OSError, ValueError, IndexError):
                pass
            done.wait(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    took = time.perf_counter() - t
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({proc.returncode}): {err[-400:]}")
    return took, out, peak[0]


def counts(text):
    """The (value, count) pairs of a printed frequency view or a DuckDB box table."""
    pairs = []
    for line in text.splitlines():
        cells = [c for c in re.split(r"\s{2,}|│", line.strip()) if c.strip()]
        nums = [c.strip().replace(",", "") for c in cells]
        if len(nums) >= 2 and nums[1].isdigit():
            pairs.append((nums[0], int(nums[1])))
    return pairs


def visidata_freq(vd, work, path):
    """VisiData's frequency sheet of `category`, replayed in batch mode and saved as CSV."""
    sheet = os.path.splitext(os.path.basename(path))[0]
    script = os.path.join(work, "visidata-freq.vdj")
    with open(script, "w", encoding="utf-8") as f:
        for c in ({"sheet": "", "col": "", "row": "", "longname": "open-file", "input": path},
                  {"sheet": sheet, "col": "category", "row": "", "longname": "freq-col", "input": ""}):
            f.write(json.dumps(c) + "\n")
    out = os.path.join(work, "visidata-freq.csv")
    if os.path.exists(out):
        os.remove(out)
    took, _, _ = whole_process([vd, "--batch", "--config", os.devnull, "--play", script, "--output", out], work)
    if not os.path.exists(out):
        raise RuntimeError("VisiData wrote no frequency sheet")
    return took


def measure(tabdeck, duckdb, work, path, runs, log, vd=None):
    os.makedirs(work, exist_ok=True)
    out = {"text_s": [], "text_duckdb_s": [], "bins_s": [], "bins_duckdb_s": [], "describe_s": [],
           "describe_duckdb_s": [], "visidata_s": [], "host_rss_mib": [], "width": None}
    for i in range(runs):
        state = os.path.join(work, f"state-{i}")
        took, ours, rss = whole_process([tabdeck, "--state-dir", state, path, "-e", "freq category", "-e", "show 20"], work)
        out["text_s"].append(took)
        out["host_rss_mib"].append(rss / (1 << 20))
        sql = f"SELECT category, count(*) AS n FROM read_csv('{path}') GROUP BY category ORDER BY n DESC, category LIMIT 20"
        took, theirs, _ = whole_process([duckdb, "-c", sql], work)
        out["text_duckdb_s"].append(took)
        if sorted(counts(ours)) != sorted(counts(theirs)):
            raise RuntimeError(f"the counts differ:\n{ours}\n{theirs}")
        took, ours, _ = whole_process([tabdeck, "--state-dir", state, path, "-e", "freq amount", "-e", "show 30"], work)
        out["bins_s"].append(took)
        starts = [float(v) for v, _ in counts(ours)]
        width = out["width"] or (min(b - a for a, b in zip(sorted(starts), sorted(starts)[1:])) if len(starts) > 1 else 1)
        out["width"] = width
        sql = (f"SELECT floor(amount / {width}) * {width} AS b, count(*) AS n FROM read_csv('{path}') "
               "GROUP BY b ORDER BY n DESC LIMIT 30")
        took, _, _ = whole_process([duckdb, "-c", sql], work)
        out["bins_duckdb_s"].append(took)
        try:
            took, ours, _ = whole_process([tabdeck, "--state-dir", state, path, "-e", "describe", "-e", "show 20"], work)
            out["describe_s"].append(took)
        except RuntimeError as e:
            log(f"analysis: describe failed: {e}")
        took, _, _ = whole_process([duckdb, "-c", f"SUMMARIZE SELECT * FROM read_csv('{path}')"], work)
        out["describe_duckdb_s"].append(took)
        shutil.rmtree(state, ignore_errors=True)
        log(f"analysis run {i + 1}/{runs}: freq text {out['text_s'][-1]:.2f} s (duckdb {out['text_duckdb_s'][-1]:.2f} s), "
            f"freq bins {out['bins_s'][-1]:.2f} s (duckdb {out['bins_duckdb_s'][-1]:.2f} s), "
            f"describe {out['describe_s'][-1] if out['describe_s'] else float('nan'):.2f} s "
            f"(SUMMARIZE {out['describe_duckdb_s'][-1]:.2f} s), host {out['host_rss_mib'][-1]:.0f} MiB")
    if vd:
        out["visidata_s"].append(visidata_freq(vd, work, path))
        log(f"analysis: VisiData frequency sheet {out['visidata_s'][-1]:.2f} s")
    return out


def summary(res):
    rows = []
    visidata = f"; VisiData {statistics.median(res['visidata_s']):.2f} s" if res.get("visidata_s") else ""
    for key, label in (("text", "frequency view of a text column"), ("bins", "frequency view of a decimal column in bins")):
        ours, theirs = statistics.median(res[f"{key}_s"]), statistics.median(res[f"{key}_duckdb_s"])
        rows.append((label + ", whole process", f"{ours:.2f} s",
                     f"DuckDB GROUP BY {theirs:.2f} s ({ours / theirs:.2f}x){visidata if key == 'text' else ''}",
                     "≤ DuckDB", ours <= theirs))
    theirs = statistics.median(res["describe_duckdb_s"])
    if res.get("describe_s"):
        ours = statistics.median(res["describe_s"])
        rows.append(("describe view, whole process", f"{ours:.2f} s", f"DuckDB SUMMARIZE {theirs:.2f} s ({ours / theirs:.2f}x)",
                     "≤ 1.5× SUMMARIZE", ours <= 1.5 * theirs))
    else:
        rows.append(("describe view, whole process", "failed", f"DuckDB SUMMARIZE {theirs:.2f} s", "≤ 1.5× SUMMARIZE", False))
    rss = max(res["host_rss_mib"])
    rows.append(("host peak resident memory (frequency view)", f"{rss:.0f} MiB", "the host only; the plugin is another process",
                 "flat in rows", None))
    return rows
