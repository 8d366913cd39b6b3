"""Issue 24 point 7, pipes: `cat f.csv | tabdeck` against the same file opened from disk.

- the sorted first page, whole process: `cat f.csv | tabdeck - -e 'sort amount desc' -e 'show 50'`
  against `tabdeck f.csv -e ...` (the csv plugin reading the file); target ≤ 1.5×;
- the first screen of `cat f.csv | tabdeck` under tmux, from the shell's launch to the first page
  of the `stdin` tab drawn (TABDECK_FRAME_STATS, as the start-up figure); target ≤ 0.3 s.
"""
import os
import shlex
import shutil
import statistics
import subprocess
import time

import startup


def whole_process(argv, cwd, stdin_path=None):
    """Seconds from launch to exit; with `stdin_path`, `cat` pipes that file in."""
    t = time.perf_counter()
    if stdin_path:
        cat = subprocess.Popen(["cat", stdin_path], stdout=subprocess.PIPE)
        r = subprocess.run(argv, stdin=cat.stdout, capture_output=True, text=True, cwd=cwd, start_new_session=True)
        cat.stdout.close()
        cat.wait()
    else:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=cwd, start_new_session=True)
    took = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({r.returncode}): {r.stderr[-400:]}")
    return took, r.stdout


def first_screen(tabdeck, work, path, index, settle=3.0):
    """Milliseconds from the launch of `cat f.csv | tabdeck` to its first page drawn."""
    socket = f"tabdeck-pipe-bench-{os.getpid()}"
    start_file = os.path.join(work, f"pipe-{index}.start")
    stats_file = os.path.join(work, f"pipe-{index}.stats")
    state = os.path.join(work, f"pipe-state-{index}")
    for p in (start_file, stats_file):
        if os.path.exists(p):
            os.remove(p)
    inner = "date +%%s.%%N > %s; cat %s | env TABDECK_FRAME_STATS=%s %s --state-dir %s" % (
        shlex.quote(start_file), shlex.quote(path), shlex.quote(stats_file), shlex.quote(tabdeck), shlex.quote(state))
    tmux = ["tmux", "-L", socket, "-f", os.devnull]
    subprocess.run(tmux + ["new-session", "-d", "-x", "120", "-y", "40", "-c", work, "sh", "-c", inner], check=True)
    try:
        time.sleep(settle)
        subprocess.run(tmux + ["send-keys", "q"], check=False, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline and subprocess.run(tmux + ["has-session"], stderr=subprocess.DEVNULL).returncode == 0:
            time.sleep(0.05)
    finally:
        subprocess.run(tmux + ["kill-server"], stderr=subprocess.DEVNULL)
        shutil.rmtree(state, ignore_errors=True)
    stats = startup.parse_stats(stats_file)
    if "first-page" not in stats or not os.path.exists(start_file):
        return None
    with open(start_file) as f:
        return (stats["first-page"] - float(f.read().strip())) * 1000


def measure(tabdeck, work, path, runs, log, screen=True):
    """`screen`: also the first screen under tmux (not with --smoke)."""
    os.makedirs(work, exist_ok=True)
    script = ["-e", "sort amount desc", "-e", "show 50"]
    out = {"pipe_sorted_s": [], "disk_sorted_s": [], "first_screen_ms": []}
    for i in range(runs):
        state = os.path.join(work, f"state-{i}")
        took, piped = whole_process([tabdeck, "--state-dir", state + "-pipe", "-"] + script, work, stdin_path=path)
        out["pipe_sorted_s"].append(took)
        took, disk = whole_process([tabdeck, "--state-dir", state + "-disk", path] + script, work)
        out["disk_sorted_s"].append(took)
        if [l.split()[:3] for l in piped.splitlines()[2:]] != [l.split()[:3] for l in disk.splitlines()[2:]]:
            raise RuntimeError("the pipe's sorted page is not the file's")
        shutil.rmtree(state + "-pipe", ignore_errors=True)
        shutil.rmtree(state + "-disk", ignore_errors=True)
        ms = first_screen(tabdeck, work, path, i) if screen else None
        if ms is not None:
            out["first_screen_ms"].append(ms)
        log(f"pipe run {i + 1}/{runs}: sorted {out['pipe_sorted_s'][-1]:.2f} s (disk {out['disk_sorted_s'][-1]:.2f} s), "
            f"first screen {ms if ms is None else round(ms)} ms")
    return out


def summary(res):
    """(label, ours, theirs, target, passed) rows for the table."""
    pipe, disk = statistics.median(res["pipe_sorted_s"]), statistics.median(res["disk_sorted_s"])
    rows = [("sorted first page through a pipe, whole process", f"{pipe:.2f} s", f"from disk {disk:.2f} s ({pipe / disk:.1f}x)",
             "≤ 1.5x from disk", pipe <= 1.5 * disk)]
    if res["first_screen_ms"]:
        first = statistics.median(res["first_screen_ms"])
        rows.append(("first screen of cat f.csv piped into tabdeck", f"{first:.0f} ms", "", "≤ 300 ms", first <= 300))
    return rows
