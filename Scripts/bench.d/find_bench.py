"""Issue 28 point 1, find pushed down: `find` of a text against `filter` for the same text on the
bench CSV, whole process each (`tabdeck f.csv -e 'find TEXT'` against `-e 'filter TEXT' -e 'show 1'`),
and the same net of opening the file (`-e 'show 1'` alone), in one run:

- a text in no row (`zq#xj`): both look at every row;
- a text first found past the middle: the amount of the row at 60 % (amounts are unique; the
  found row is checked to lie past the middle, else the next row's amount is tried).

Target: find ≤ 1.2× filter, net of opening.
"""
import csv
import os
import re
import shutil
import statistics
import subprocess
import time

MISSING = "zq#xj"


def run(argv, cwd):
    """Wall seconds and stdout of one whole process."""
    t = time.perf_counter()
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=cwd)
    took = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv[0]} failed ({proc.returncode}): {proc.stderr[-400:]}")
    return took, proc.stdout + proc.stderr


def found_row(text):
    """The 1-based row a `find` printed, None for not found."""
    m = re.search(r'found ".*" at row ([\d,]+)', text)
    return int(m.group(1).replace(",", "")) if m else None


def amount_at(path, row):
    """The amount cell of data row `row` (1-based) of the bench CSV (its notes hold line breaks)."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        next(reader)
        for i, cells in enumerate(reader, 1):
            if i == row:
                return cells[2]
    raise RuntimeError(f"{path} has fewer than {row} rows")


def past_the_middle(tabdeck, work, state, path, rows):
    """A text whose first row is past the middle: an amount near 60 %, checked by a find."""
    for row in range(int(rows * 0.6), int(rows * 0.6) + 20):
        text = amount_at(path, row)
        _, out = run([tabdeck, "--state-dir", state, path, "-e", f"find {text}"], work)
        first = found_row(out)
        if first is not None and first > rows // 2:
            return text, first
    raise RuntimeError("no amount near 60 % is first found past the middle")


def measure(tabdeck, work, path, rows, runs, log):
    os.makedirs(work, exist_ok=True)
    state = os.path.join(work, "state")
    middle, at = past_the_middle(tabdeck, work, state, path, rows)
    log(f"find: {middle!r} is first at row {at:,} of {rows:,}")
    out = {"open_s": [], "text_past_middle": middle, "row_past_middle": at}
    for case in ("missing", "middle"):
        out[f"{case}_find_s"] = []
        out[f"{case}_filter_s"] = []
    for i in range(runs):
        took, _ = run([tabdeck, "--state-dir", state, path, "-e", "show 1"], work)
        out["open_s"].append(took)
        for case, text in (("missing", MISSING), ("middle", middle)):
            took, printed = run([tabdeck, "--state-dir", state, path, "-e", f"find {text}"], work)
            expected = None if case == "missing" else at
            if found_row(printed) != expected:
                raise RuntimeError(f"find {text!r} printed {printed[-300:]!r}, expected row {expected}")
            out[f"{case}_find_s"].append(took)
            # A state folder of its own: a saved filter would narrow the next find's view.
            took, _ = run([tabdeck, "--state-dir", state + "-filter", path, "-e", f"filter {text}", "-e", "show 1"], work)
            out[f"{case}_filter_s"].append(took)
        log(f"find run {i + 1}/{runs}: open {out['open_s'][-1]:.2f} s; no row: find {out['missing_find_s'][-1]:.2f} s, "
            f"filter {out['missing_filter_s'][-1]:.2f} s; past the middle: find {out['middle_find_s'][-1]:.2f} s, "
            f"filter {out['middle_filter_s'][-1]:.2f} s")
    shutil.rmtree(state, ignore_errors=True)
    shutil.rmtree(state + "-filter", ignore_errors=True)
    return out


def summary(res):
    rows = []
    opened = statistics.median(res["open_s"])
    for case, label in (("missing", "find of a text in no row"), ("middle", "find of a text first past the middle")):
        find, filt = statistics.median(res[f"{case}_find_s"]), statistics.median(res[f"{case}_filter_s"])
        net_find, net_filter = max(find - opened, 0.001), max(filt - opened, 0.001)
        rows.append((label + ", net of opening", f"{net_find:.2f} s",
                     f"filter {net_filter:.2f} s ({net_find / net_filter:.2f}x); whole process {find:.2f} s vs {filt:.2f} s, "
                     f"opening {opened:.2f} s", "≤ 1.2× filter", net_find <= 1.2 * net_filter))
    return rows
