"""Issue 25 point 8, understanding the data: Tabdeck's frequency view on the bench CSV against the
DuckDB shell's GROUP BY on the same file, whole process each (start, read, count, print, quit).

- freq of a text column: `tabdeck f.csv -e 'freq category' -e 'show 20'` against
  `SELECT category, count(*) FROM read_csv('f.csv') GROUP BY category ORDER BY 2 DESC LIMIT 20`;
- freq of a decimal column in bins: `freq amount` (about 20 round bins) against the same GROUP BY
  on `floor(amount / W) * W`, W the width Tabdeck chose;
target for both: ≤ the DuckDB shell's time.
"""
import os
import re
import shutil
import statistics
import subprocess
import time


def whole_process(argv, cwd):
    t = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=cwd, start_new_session=True)
    took = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({r.returncode}): {r.stderr[-400:]}")
    return took, r.stdout


def counts(text):
    """The (value, count) pairs of a printed frequency view or a DuckDB box table."""
    pairs = []
    for line in text.splitlines():
        cells = [c for c in re.split(r"\s{2,}|│", line.strip()) if c.strip()]
        nums = [c.strip().replace(",", "") for c in cells]
        if len(nums) >= 2 and nums[1].isdigit():
            pairs.append((nums[0], int(nums[1])))
    return pairs


def measure(tabdeck, duckdb, work, path, runs, log):
    os.makedirs(work, exist_ok=True)
    out = {"text_s": [], "text_duckdb_s": [], "bins_s": [], "bins_duckdb_s": [], "width": None}
    for i in range(runs):
        state = os.path.join(work, f"state-{i}")
        took, ours = whole_process([tabdeck, "--state-dir", state, path, "-e", "freq category", "-e", "show 20"], work)
        out["text_s"].append(took)
        sql = f"SELECT category, count(*) AS n FROM read_csv('{path}') GROUP BY category ORDER BY n DESC, category LIMIT 20"
        took, theirs = whole_process([duckdb, "-c", sql], work)
        out["text_duckdb_s"].append(took)
        if sorted(counts(ours)) != sorted(counts(theirs)):
            raise RuntimeError(f"the counts differ:\n{ours}\n{theirs}")
        took, ours = whole_process([tabdeck, "--state-dir", state, path, "-e", "freq amount", "-e", "show 30"], work)
        out["bins_s"].append(took)
        starts = [float(v) for v, _ in counts(ours)]
        width = out["width"] or (min(b - a for a, b in zip(sorted(starts), sorted(starts)[1:])) if len(starts) > 1 else 1)
        out["width"] = width
        sql = (f"SELECT floor(amount / {width}) * {width} AS b, count(*) AS n FROM read_csv('{path}') "
               "GROUP BY b ORDER BY n DESC LIMIT 30")
        took, _ = whole_process([duckdb, "-c", sql], work)
        out["bins_duckdb_s"].append(took)
        shutil.rmtree(state, ignore_errors=True)
        log(f"analysis run {i + 1}/{runs}: freq text {out['text_s'][-1]:.2f} s (duckdb {out['text_duckdb_s'][-1]:.2f} s), "
            f"freq bins {out['bins_s'][-1]:.2f} s (duckdb {out['bins_duckdb_s'][-1]:.2f} s)")
    return out


def summary(res):
    rows = []
    for key, label in (("text", "frequency view of a text column"), ("bins", "frequency view of a decimal column in bins")):
        ours, theirs = statistics.median(res[f"{key}_s"]), statistics.median(res[f"{key}_duckdb_s"])
        rows.append((label + ", whole process", f"{ours:.2f} s", f"DuckDB GROUP BY {theirs:.2f} s ({ours / theirs:.2f}x)",
                     "≤ DuckDB", ours <= theirs))
    return rows
