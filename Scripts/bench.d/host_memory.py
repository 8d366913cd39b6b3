"""Figure 3: the host's resident memory does not grow with the table.

Drives `tabdeck --line --output json` one command at a time (as Scripts/measure-spine.py does):
sort the tab by name (so the plugin has indexed the whole file and the total is known), then
visit random positions (`goto R` then `show 20`, each waiting for its rows), then reads the
host process's VmRSS from /proc (the host only: the plugin is another process).
"""
import json
import os
import random
import shutil
import subprocess


def status_kib(pid, field):
    """A `/proc/PID/status` field in KiB; -1 when the process or the field is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def host_rss_mib(tabdeck, csv_plugin, data, rows, visits, work, label, seed=7):
    config = os.path.join(work, f"memory-{label}.json")
    with open(config, "w") as f:
        json.dump({"tabs": [{"id": "t", "command": [csv_plugin], "args": {"path": data}}]}, f)
    return visit_randomly(tabdeck, config, os.path.join(work, f"memory-state-{label}"), rows, visits, "name", seed)


def visit_randomly(tabdeck, config, state, rows, visits, sort, seed, env=None):
    """A line-mode session on `config`'s one tab: `sort SORT`, then `visits` random `goto R` +
    `show 20`; the host's VmRSS and VmHWM (MiB) at the end. `state` is made afresh and removed."""
    shutil.rmtree(state, ignore_errors=True)
    p = subprocess.Popen([tabdeck, "--line", "--output", "json", "--config", config, "--state-dir", state],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1,
                         env=env)

    def run(command):
        p.stdin.write(command + "\n")
        p.stdin.flush()
        doc = json.loads(p.stdout.readline())
        if not doc.get("ok"):
            raise RuntimeError(f"tabdeck: {command}: {doc.get('error')}")
        return doc

    try:
        run(f"sort {sort}")
        run("show 1")
        rng = random.Random(seed)
        for _ in range(visits):
            run(f"goto {rng.randint(1, rows)}")
            run("show 20")
        rss = status_kib(p.pid, "VmRSS") / 1024
        hwm = status_kib(p.pid, "VmHWM") / 1024
    finally:
        p.stdin.close()
        p.wait(timeout=60)
        shutil.rmtree(state, ignore_errors=True)
    return {"rss_mib": rss, "hwm_mib": hwm}
