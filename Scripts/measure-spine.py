#!/usr/bin/env python3
"""Measures what the spine issue asks to report, through the real release binary in line mode.

usage: Scripts/measure-spine.py [--rows N] [--visits N]

- the page cache size (rows held per table at most),
- the host's resident memory with a 1,000,000-row CSV tab open after visiting random positions,
  next to the same with a 1,000-row tab,
- the time for the CSV plugin to open that file (first page shown) and to sort it by two keys.
Data is generated into a temporary folder and removed afterwards.
"""
import argparse, os, random, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, ".build", "release", "tabdeck")


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


class Host:
    """A tabdeck --line process driven one command at a time (JSON output, one line per command)."""

    def __init__(self, config, state):
        self.p = subprocess.Popen([BIN, "--line", "--output", "json", "--config", config, "--state-dir", state],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)

    def run(self, command):
        start = time.perf_counter()
        self.p.stdin.write(command + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        return time.perf_counter() - start, line

    def close(self):
        self.p.stdin.write("quit\n")
        self.p.stdin.close()
        self.p.wait(timeout=30)


def session(tmp, rows, visits, label):
    csv = os.path.join(tmp, f"{label}.csv")
    subprocess.run([sys.executable, os.path.join(ROOT, "Plugins/csv/gen_csv.py"), str(rows), csv], check=True)
    config = os.path.join(tmp, f"{label}.json")
    with open(config, "w") as f:
        f.write('{"tabs":[{"id":"t","command":["%s"],"args":{"path":"%s"}}]}'
                % (os.path.join(ROOT, "Plugins/csv/tabdeck-csv"), csv))
    state = os.path.join(tmp, f"state-{label}")
    host = Host(config, state)
    open_time, _ = host.run("show 1")
    # The plugin sorts when the host asks for the first page in the new order.
    sort_time = host.run("sort amount desc")[0] + host.run("show 20")[0]
    sort_time2 = host.run("sort name")[0] + host.run("show 20")[0]  # amount stays as tie-breaker
    rng = random.Random(7)
    for _ in range(visits):
        host.run(f"goto {rng.randint(1, rows)}")
        host.run("show 20")
    rss = status_kib(host.p.pid, "VmRSS")
    hwm = status_kib(host.p.pid, "VmHWM")
    host.close()
    return {"rows": rows, "open": open_time, "sort1": sort_time, "sort2": sort_time2,
            "rss_mib": rss / 1024, "hwm_mib": hwm / 1024}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--visits", type=int, default=1000)
    args = ap.parse_args()
    subprocess.run(["swift", "build", "-c", "release", "--product", "tabdeck"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["swift", "build", "-c", "release", "--product", "tabdeck-csv"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    tmp = tempfile.mkdtemp(prefix="tabdeck-measure-")
    try:
        small = session(tmp, 1000, args.visits, "small")
        big = session(tmp, args.rows, args.visits, "big")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"machine: {os.cpu_count()} cores, {os.uname().release}")
    print("page cache: 64 pages x 100 rows = 6,400 rows per table at most (CoreSettings)")
    print(f"{'rows':>10} {'open+1st page':>14} {'sort amount desc':>17} {'sort name,amount':>18} {'host RSS MiB':>13} {'host peak MiB':>14}")
    for r in (small, big):
        print(f"{r['rows']:>10,} {r['open']*1000:>12.0f}ms {r['sort1']*1000:>15.0f}ms {r['sort2']*1000:>16.0f}ms"
              f" {r['rss_mib']:>13.1f} {r['hwm_mib']:>14.1f}")
    print(f"host RSS ratio big/small after {args.visits} random visits: {big['rss_mib'] / small['rss_mib']:.2f}")


if __name__ == "__main__":
    main()
