#!/usr/bin/env python3
"""Measures key press to frame latency of the full-screen workspace, through the real release
binary under tmux.

usage: Scripts/measure-keys.py [--rows N] [--sizes 120x40,200x60] [--keys N] [--callgrind] [--bin DIR]
                              [--remote-delay SECONDS]

A CSV of --rows rows (default 1,000,000) is generated into a temporary folder. For each
terminal size, tabdeck runs in a private tmux server with TABDECK_FRAME_STATS=FILE; the script
waits for the first page, then scrolls: j and k one row at a time inside the cached pages,
PgDn and PgUp, G (the last page) and g (the first), one key at a time with a pause so every key
gets its own frame. tabdeck writes one `key <seconds>` line per key frame: from the moment its
main thread read the key's bytes (an input thread did before 33f68d5) to the moment the frame
was written (FullScreen.swift, EventQueue.swift). It
prints median, p99 and worst per size, and per size a final JSON line:
{"bench":"key_to_frame_200x60","median_ms":…,"p99_ms":…,"max_ms":…,"keys":…}

With --callgrind the wall-clock figures are replaced by a deterministic one, unaffected by
other load on the machine: tabdeck runs under `valgrind --tool=callgrind` collecting only inside
FullScreen.draw() (render, diff, encode, write), and the script prints the instructions per
frame, with a JSON line {"bench":"draw_instructions_200x60","instructions_per_frame":…}.

With --remote-delay the csv plugin runs over ssh (a throw-away sshd on loopback,
Scripts/ssh.d/sshd.py) through a relay that holds every chunk SECONDS each way, so a round trip
gains twice that: the figures show what a remote tab costs the keys (cached pages must stay as
fast as local ones; rows not fetched yet show placeholders at once). It also prints how long
the last page took to fill after G (polled through tmux, to 10 ms), and JSON lines named
key_to_frame_remote_WxH.

Needs `swift build -c release --product tabdeck --product tabdeck-csv` (or the two products
one by one) and tmux (and valgrind for --callgrind). --bin DIR takes both binaries from DIR
instead of .build/release (to compare a saved build with the current one).
MEASURE_KEYS_DEBUG=1 also prints the slowest keys with their kind (to stderr) and, with
--callgrind, keeps each profile as /tmp/measure-keys-callgrind-WxH for callgrind_annotate.
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, ".build", "release", "tabdeck")
PLUGIN = os.path.join(ROOT, ".build", "release", "tabdeck-csv")


class Tmux:
    """A private tmux server with one session running `command`."""

    def __init__(self, width, height, command, env):
        self.socket = f"tabdeck-keys-{os.getpid()}-{width}x{height}"
        self.base = ["tmux", "-L", self.socket, "-f", "/dev/null"]
        env_args = []
        for k, v in env.items():
            env_args += ["-e", f"{k}={v}"]
        subprocess.run(self.base + ["new-session", "-d", "-x", str(width), "-y", str(height)] + env_args + [command],
                       check=True)

    def screen(self):
        return subprocess.run(self.base + ["capture-pane", "-p"], capture_output=True, text=True).stdout

    def keys(self, *keys):
        subprocess.run(self.base + ["send-keys"] + list(keys), check=True)

    def wait_for(self, text, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if text in self.screen():
                return
            time.sleep(0.05)
        raise SystemExit(f"timed out waiting for {text!r}; the screen was:\n{self.screen()}")

    def close(self):
        subprocess.run(self.base + ["kill-server"], capture_output=True)
        folder = os.path.join(os.environ.get("TMUX_TMPDIR", "/tmp"), f"tmux-{os.getuid()}")
        try:
            os.remove(os.path.join(folder, self.socket))  # tmux may leave the socket file behind
        except OSError:
            pass


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def session(tmp, config, width, height, rows, per_kind, callgrind=None, watch_last_page=False):
    stats = os.path.join(tmp, f"stats-{width}x{height}")
    state = os.path.join(tmp, f"state-{width}x{height}")
    marker = os.path.join(tmp, f"exited-{width}x{height}")
    prefix = ""
    if callgrind:
        prefix = (f"valgrind --tool=callgrind --toggle-collect='*10FullScreenC4drawyyF' "
                  f"--callgrind-out-file='{callgrind}' 2>/dev/null ")
    command = f"{prefix}'{BIN}' --config '{config}' --state-dir '{state}'; touch '{marker}'; sleep 30"
    tmux = Tmux(width, height, command, {"TABDECK_FRAME_STATS": stats})
    try:
        total = f"{rows:,}"
        tmux.wait_for(f"row 1 of {total}", timeout=300 if callgrind else 60)
        time.sleep(3 if callgrind else 0.5)  # let the read-ahead pages arrive
        pause = 0.2 if callgrind else 0.03
        plan = []
        # Inside the cached pages: down and back up one row at a time.
        plan += ["j"] * per_kind + ["k"] * per_kind
        # Page by page (the next pages come from the cache or show placeholders at once).
        plan += ["PageDown"] * (per_kind // 4) + ["PageUp"] * (per_kind // 4)
        plan += ["G", "k", "k", "g", "j", "j"]
        last_page_ms = None
        for key in plan:
            tmux.keys(key)
            if key == "G" and watch_last_page:
                # The last page is not cached: placeholders first, its rows once they arrive.
                sent = time.time()
                last = f"row {total} of {total}"
                while time.time() - sent < 30:
                    screen = tmux.screen()
                    cells = [line.replace(",", "") for line in screen.splitlines() if last not in line]
                    if last in screen and any(re.search(rf"(^|\s){rows}\s", line) for line in cells):
                        last_page_ms = (time.time() - sent) * 1000
                        break
                    time.sleep(0.01)
                if last_page_ms is None and os.environ.get("MEASURE_KEYS_DEBUG"):
                    print(tmux.screen(), file=sys.stderr)
            time.sleep(pause)
        time.sleep(0.5)
        tmux.keys("q")
        deadline = time.time() + (120 if callgrind else 30)
        while not os.path.exists(marker) and time.time() < deadline:
            time.sleep(0.05)
        if not os.path.exists(marker):
            raise SystemExit("tabdeck did not exit")
    finally:
        tmux.close()
    keys, first_frame, first_page = [], None, None
    with open(stats) as f:
        for line in f:
            kind, _, value = line.partition(" ")
            if kind == "key":
                keys.append(float(value))
            elif kind == "first-frame":
                first_frame = float(value)
            elif kind == "first-page":
                first_page = float(value)
    # The last key (q) ends the program without a frame, so frames ≤ keys sent.
    if os.environ.get("MEASURE_KEYS_DEBUG"):
        worst = sorted(range(len(keys)), key=lambda i: -keys[i])[:8]
        print("worst:", [(i, plan[i] if i < len(plan) else "?", round(keys[i] * 1000, 2)) for i in worst], file=sys.stderr)
    if watch_last_page:
        return keys, len(plan), first_frame, first_page, last_page_ms
    return keys, len(plan), first_frame, first_page


def callgrind_figures(path):
    """Total instructions collected inside FullScreen.draw(), and how many times it ran."""
    instructions, frames = 0, 0
    with open(path) as f:
        for line in f:
            if line.startswith("summary:"):
                instructions = int(line.split()[1])
    # Each frame is one call of draw(): count the calls it makes to the renderer (callgrind
    # names a function once, as "(id) name", and by "(id)" alone afterwards).
    names = {}
    with open(path) as f:
        lines = f.read().splitlines()
    caller = ""
    for i, line in enumerate(lines):
        if not line.startswith(("fn=(", "cfn=(")):
            continue
        ref, _, name = line.split("=", 1)[1].partition(" ")
        if name:
            names[ref] = name
        if line.startswith("fn="):
            caller = names.get(ref, "")
        elif ("10FullScreenC4drawyyF" in caller and "17WorkspaceRendererO6render" in names.get(ref, "")
              and i + 1 < len(lines) and lines[i + 1].startswith("calls=")):
            frames += int(lines[i + 1].split("=")[1].split()[0])
    return instructions, max(1, frames)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--sizes", default="120x40,200x60")
    ap.add_argument("--keys", type=int, default=200, help="j presses (as many k; a quarter as many PgDn and PgUp)")
    ap.add_argument("--callgrind", action="store_true", help="instructions per frame under callgrind instead of times")
    ap.add_argument("--bin", help="folder holding tabdeck and tabdeck-csv (default: .build/release)")
    ap.add_argument("--remote-delay", type=float,
                    help="run the plugin over ssh with this many seconds added each way (loopback sshd)")
    args = ap.parse_args()
    global BIN, PLUGIN
    if args.bin:
        folder = os.path.abspath(args.bin)
        BIN, PLUGIN = os.path.join(folder, "tabdeck"), os.path.join(folder, "tabdeck-csv")
    if args.callgrind and not shutil.which("valgrind"):
        raise SystemExit("valgrind is missing")
    for path in (BIN, PLUGIN):
        if not os.access(path, os.X_OK):
            raise SystemExit(f"{path} is missing: swift build -c release --product {os.path.basename(path)}")
    if not shutil.which("tmux"):
        raise SystemExit("tmux is missing")
    tmp = tempfile.mkdtemp(prefix="tabdeck-keys-")
    sshd = None
    try:
        csv = os.path.join(tmp, "big.csv")
        subprocess.run([sys.executable, os.path.join(ROOT, "Plugins/csv/gen_csv.py"), str(args.rows), csv], check=True)
        config = os.path.join(tmp, "config.json")
        tab = {"id": "big", "title": "Big", "command": [PLUGIN], "args": {"path": csv}}
        workspace = {"tabs": [tab]}
        if args.remote_delay is not None:
            sys.path.insert(0, os.path.join(ROOT, "Scripts", "ssh.d"))
            import sshd as sshd_module
            sshd = sshd_module.LoopbackSSHD(delay=args.remote_delay).__enter__()
            tab["remote"] = "tabdeck-remote-slow"
            workspace["ssh"] = ["ssh", "-F", sshd.config]
        with open(config, "w") as f:
            json.dump(workspace, f)
        figures = []
        for size in args.sizes.split(","):
            width, height = (int(x) for x in size.split("x"))
            if args.callgrind:
                out = os.path.join(tmp, f"callgrind-{size}")
                keys, sent, _, _ = session(tmp, config, width, height, args.rows, args.keys, callgrind=out)
                instructions, frames = callgrind_figures(out)
                if os.environ.get("MEASURE_KEYS_DEBUG"):
                    shutil.copy(out, f"/tmp/measure-keys-callgrind-{size}")
                figure = {"bench": f"draw_instructions_{width}x{height}", "instructions_per_frame": instructions // frames,
                          "frames": frames}
                print(f"{size}: {frames} frames drawn ({sent} keys sent): {instructions // frames:,} instructions per frame")
                figures.append(figure)
                continue
            remote = args.remote_delay is not None
            measured = session(tmp, config, width, height, args.rows, args.keys, watch_last_page=remote)
            keys, sent, first_frame, first_page = measured[:4]
            if not keys:
                raise SystemExit(f"{size}: no key frames recorded")
            ms = [k * 1000 for k in keys]
            name = f"key_to_frame_remote_{width}x{height}" if remote else f"key_to_frame_{width}x{height}"
            figure = {"bench": name, "median_ms": round(statistics.median(ms), 3),
                      "p99_ms": round(percentile(ms, 99), 3), "max_ms": round(max(ms), 3), "keys": len(ms)}
            if remote:
                figure["added_delay_each_way_ms"] = round(args.remote_delay * 1000)
                figure["last_page_filled_ms"] = round(measured[4], 1) if measured[4] is not None else None
                print(f"{size}: over ssh with {args.remote_delay * 1000:.0f} ms each way: the last page (G) filled "
                      + (f"{measured[4]:.0f} ms after the key" if measured[4] is not None else "never (30 s)"))
            print(f"{size}: {len(ms)} key frames ({sent} keys sent): median {figure['median_ms']:.3f} ms, "
                  f"p99 {figure['p99_ms']:.3f} ms, worst {figure['max_ms']:.3f} ms"
                  + (f"; first page {1000 * (first_page - first_frame):.0f} ms after the first frame"
                     if first_frame and first_page else ""))
            figures.append(figure)
        for figure in figures:
            print(json.dumps(figure))
    finally:
        if sshd:
            sshd.__exit__(None, None, None)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
