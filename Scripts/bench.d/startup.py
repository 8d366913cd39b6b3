"""Figure 5: start-up of the full-screen workspace, from launch to the first complete frame and
to the first page of the selected tab, with the repository's config.json.

The release binary runs under tmux (a private server socket, a 120x40 window) with
TABDECK_FRAME_STATS=FILE. The pane's shell writes the epoch (date +%s.%N) just before it
execs tabdeck; tabdeck writes `first-frame EPOCH` and `first-page EPOCH` lines to FILE when it
quits (`q`, sent after a settle time). A binary that does not write them gives None.
"""
import os
import shlex
import shutil
import subprocess
import time


def parse_stats(path):
    stats = {}
    if not os.path.exists(path):
        return stats
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[0] in ("first-frame", "first-page"):
                try:
                    stats[parts[0]] = float(parts[1])
                except ValueError:
                    pass
    return stats


def one_launch(tabdeck, root, work, index, settle=2.0, config=None, state_template=None):
    socket = f"tabdeck-bench-{os.getpid()}"
    start_file = os.path.join(work, f"startup-{index}.start")
    stats_file = os.path.join(work, f"startup-{index}.stats")
    state = os.path.join(work, f"startup-state-{index}")
    for p in (start_file, stats_file):
        if os.path.exists(p):
            os.remove(p)
    shutil.rmtree(state, ignore_errors=True)
    if state_template:
        shutil.copytree(state_template, state)
    inner = "date +%%s.%%N > %s; exec env TABDECK_FRAME_STATS=%s %s --config %s --state-dir %s" % (
        shlex.quote(start_file), shlex.quote(stats_file), shlex.quote(tabdeck),
        shlex.quote(config or os.path.join(root, "config.json")), shlex.quote(state))
    tmux = ["tmux", "-L", socket, "-f", os.devnull]
    subprocess.run(tmux + ["new-session", "-d", "-x", "120", "-y", "40", "-c", root, "sh", "-c", inner], check=True)
    try:
        time.sleep(settle)
        subprocess.run(tmux + ["send-keys", "q"], check=False, stderr=subprocess.DEVNULL)
        deadline = time.time() + 15
        while time.time() < deadline:
            if subprocess.run(tmux + ["has-session"], stderr=subprocess.DEVNULL).returncode != 0:
                break
            time.sleep(0.05)
    finally:
        subprocess.run(tmux + ["kill-server"], stderr=subprocess.DEVNULL)
        shutil.rmtree(state, ignore_errors=True)
    stats = parse_stats(stats_file)
    try:
        with open(start_file) as f:
            launched = float(f.read().strip())
    except (OSError, ValueError):
        return None
    result = {}
    for key in ("first-frame", "first-page"):
        if key in stats:
            result[key] = (stats[key] - launched) * 1000
    return result or None


def measure(tabdeck, root, work, runs):
    """Per run: {"first-frame": ms, "first-page": ms} (keys missing when not written); None
    when the binary writes no frame stats at all."""
    if shutil.which("tmux") is None:
        return None
    results = []
    for i in range(runs):
        r = one_launch(tabdeck, root, work, i)
        if r is None:
            return None
        results.append(r)
    return results


def measure_file(tabdeck, work, runs, csv_plugin, data):
    """Start-up with one tab, the csv plugin on `data` (issue 28: the first screen of a
    10,000,000-row file), a fresh state each launch: results as measure() gives them."""
    if shutil.which("tmux") is None:
        return None
    config = os.path.join(work, "one-file.json")
    with open(config, "w") as f:
        f.write('{"tabs": [{"id": "big", "command": ["%s"], "args": {"path": "%s"}}]}' % (csv_plugin, data))
    results = []
    for i in range(runs):
        r = one_launch(tabdeck, work, work, 200 + i, config=config)
        if r is None:
            return None
        results.append(r)
    return results


def measure_after_select_all(tabdeck, root, work, runs, csv_plugin, data):
    """Start-up with a state whose table has every row selected (issue 10, point 8): a line-mode
    session runs `select all` on `data` and quits; each launch starts from a copy of that state.
    Returns (results as measure() does, the select-all command's seconds) or (None, None)."""
    if shutil.which("tmux") is None:
        return None, None
    config = os.path.join(work, "select-all.json")
    with open(config, "w") as f:
        f.write('{"tabs": [{"id": "big", "command": ["%s"], "args": {"path": "%s"}}]}' % (csv_plugin, data))
    template = os.path.join(work, "select-all-state")
    shutil.rmtree(template, ignore_errors=True)
    started = time.time()
    subprocess.run([tabdeck, "--line", "--config", config, "--state-dir", template],
                   input="show 1\nselect all\nselection\nquit\n", text=True, capture_output=True, check=True)
    took = time.time() - started
    results = []
    for i in range(runs):
        r = one_launch(tabdeck, root, work, 100 + i, config=config, state_template=template)
        if r is None:
            return None, None
        results.append(r)
    shutil.rmtree(template, ignore_errors=True)
    return results, took
