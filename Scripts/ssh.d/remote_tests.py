#!/usr/bin/env python3
"""Remote tabs against a real OpenSSH server on loopback (issue 13, point 3).

Starts a throw-away sshd (sshd.py: its own host key, a client key made for the run, 127.0.0.1
only), then drives the real tabdeck binary: a tab whose plugin (the csv plugin) runs over ssh,
one over a link with 50 ms added each way (delay_relay.py as ProxyCommand), and one whose host
refuses connections. Checks, each printed as a line:

- the remote tab's rows, sorted and unsorted, are the rows a local tab shows;
- the slow link gives the same rows;
- a host that cannot be reached: the tab's error names the tab and what ssh said;
- two tabs on one host share one ssh connection (one master process);
- the remote plugin killed, and the shared connection dropped: the tab restarts, replays its
  sort, and says "plugin restarted (N of 5)";
- after quit, no ssh process and no remote plugin is left;
- full screen under tmux: the remote tab's rows and row count on the screen.

Prints `N passed, N failed`; exits 1 on any failure. Needs tabdeck and tabdeck-csv built
($TABDECK_BIN_DIR, else `swift build --show-bin-path`) and tmux for the full-screen check.
"""
import json, os, shutil, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import sshd  # noqa: E402

BIN = os.environ.get("TABDECK_BIN_DIR") or subprocess.run(
    ["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
TABDECK = os.path.join(BIN, "tabdeck")
CSV_PLUGIN = os.path.join(BIN, "tabdeck-csv")
SAMPLE = os.path.join(ROOT, "Plugins", "csv", "sample", "people.csv")
MARK = f"td-remote-{os.getpid()}"

passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"  ✓ {name}")
    else:
        failed += 1
        print(f"  ✗ {name}\n    {detail}")


def remote_plugin(mark):
    """The csv plugin, renamed on the remote side so that its processes can be found."""
    return ["bash", "-c", f'exec -a {mark} "$0"', CSV_PLUGIN]


def processes(pattern):
    """Processes whose command line matches `pattern` (a regex; `^MARK$` is a remote plugin, whose
    argv[0] is MARK, while the local ssh client carries MARK further in its command line)."""
    out = subprocess.run(["pgrep", "-af", pattern], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "pgrep" not in line]


def settled(probe, limit):
    """Polls `probe` until it returns nothing or `limit` seconds pass; returns its last value."""
    value = probe()
    for _ in range(int(limit / 0.05)):
        if not value:
            break
        time.sleep(0.05)
        value = probe()
    return value


def wait_until(what, predicate, limit=60):
    """Polls `predicate` until it holds; the limit only ends a hang (the outcome never rests on it)."""
    for _ in range(int(limit / 0.05)):
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"remote_tests: gave up waiting for {what}")


class LineSession:
    """tabdeck --line --output json, one command at a time (one JSON document a line)."""

    def __init__(self, config, state):
        self.process = subprocess.Popen([TABDECK, "--line", "--output", "json", "--config", config, "--state-dir", state],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.stderr = []  # notices and errors, as they come
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()

    def run(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"remote_tests: tabdeck ended during {command!r}: {self.stderr}")
        return json.loads(line)

    def quit(self):
        self.process.stdin.close()
        self.process.wait()
        return self.process.returncode


def texts(config, state, commands):
    r = subprocess.run([TABDECK, "--line", "--config", config, "--state-dir", state], input="\n".join(commands) + "\n",
                       capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def names(result):
    return [row["cells"]["name"] for row in result["result"]["rows"]]


def main():
    for path in (TABDECK, CSV_PLUGIN):
        if not os.access(path, os.X_OK):
            raise SystemExit(f"remote_tests: {path} is not built (swift build)")
    tmp = tempfile.mkdtemp(prefix="tabdeck-remote.")
    try:
        with sshd.LoopbackSSHD(delay=0.05) as server:
            print(f"== sshd on 127.0.0.1:{server.port} ({server.folder})")
            run(server, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"remote tests: {passed} passed, {failed} failed")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def run(server, tmp):
    args = {"path": SAMPLE}
    config = os.path.join(tmp, "config.json")
    with open(config, "w") as f:
        json.dump({"ssh": ["ssh", "-F", server.config], "tabs": [
            {"id": "local", "command": [CSV_PLUGIN], "args": args},
            {"id": "remote", "command": remote_plugin(MARK), "args": args, "remote": "tabdeck-remote"},
            {"id": "twin", "command": remote_plugin(MARK + "-twin"), "args": args,
             "remote": {"host": "tabdeck-remote", "directory": "/"}},
            {"id": "slow", "command": remote_plugin(MARK + "-slow"), "args": args, "remote": "tabdeck-remote-slow"},
            {"id": "down", "command": [CSV_PLUGIN], "args": args, "remote": "tabdeck-nowhere"}]}, f)
    state = os.path.join(tmp, "state")
    control = os.path.join(state, "ssh")

    print("== line mode")
    session = LineSession(config, state)
    try:
        local = session.run("show 5")
        local_sorted = [session.run("sort age desc"), session.run("goto 1"), session.run("show 5")][-1]
        session.run("tab select remote")
        remote = session.run("show 5")
        check("the remote tab shows the rows a local tab shows", remote["ok"] and names(remote) == names(local),
              f"{remote} vs {names(local)}")
        [session.run("sort age desc"), session.run("goto 1")]
        remote_sorted = session.run("show 5")
        check("sorted over ssh: the same rows as sorted locally", names(remote_sorted) == names(local_sorted),
              f"{names(remote_sorted)} vs {names(local_sorted)}")
        status = session.run("plugin status remote")
        check("plugin status names the host", status["result"][0]["remote"] == "tabdeck-remote"
              and status["result"][0]["state"] == "running", status)

        session.run("tab select twin")
        twin = session.run("show 5")
        masters = processes(f"ssh: {control}/")  # the shared connection's master names its socket
        check("two tabs on one host share one ssh connection", twin["ok"] and names(twin) == names(local) and len(masters) == 1,
              f"masters: {masters}; twin: {twin}")

        session.run("tab select slow")
        slow = session.run("show 5")
        check("50 ms added each way: the same rows", slow["ok"] and names(slow) == names(local), slow)

        session.run("tab select down")
        down = session.run("show 5")
        check("an unreachable host: the error names the tab and what ssh said",
              not down["ok"] and "tab down" in down.get("error", "") and "Connection refused" in down.get("error", ""), down)

        # Recovery: the remote plugin dies (kill -9 on the remote side).
        session.run("tab select remote")
        victims = processes(f"^{MARK}$")
        for line in victims:
            os.kill(int(line.split()[0]), 9)
        wait_until("the host to see the plugin end", lambda: session.run("plugin status remote")["result"][0]["crashes"] == 1)
        again = session.run("show 5")
        # ssh says 255 for a remote command ended by a signal.
        notice = "tabdeck: tab remote: plugin restarted (1 of 5): plugin exited with status 255"
        check("the remote plugin killed: the tab restarts, replays its sort and says so",
              len(victims) == 1 and again["ok"] and names(again) == names(local_sorted)
              and any(line.startswith(notice) for line in session.stderr), f"{victims} {again} {session.stderr}")

        # Connection loss: the shared connection is dropped under both remote tabs.
        subprocess.run(["ssh", "-F", server.config, "-o", f"ControlPath={control}/%C", "-O", "exit", "tabdeck-remote"],
                       capture_output=True)
        wait_until("the remote plugins to end", lambda: not processes(f"^{MARK}$") and not processes(f"^{MARK}-twin$"))
        wait_until("the host to see the connection drop", lambda: session.run("plugin status remote")["result"][0]["crashes"] == 2)
        again = session.run("show 5")
        notice = "tabdeck: tab remote: plugin restarted (2 of 5): plugin exited with status 255"
        check("the connection dropped: the tab reconnects and shows its sorted rows",
              again["ok"] and names(again) == names(local_sorted) and any(line.startswith(notice) for line in session.stderr),
              f"{again} {session.stderr}")
    finally:
        code = session.quit()
    # The local side is gone when quit returns; the remote side ends when its sshd session sees the
    # client go (EOF on the plugin's stdin, one round trip later over the slow link), so it is
    # waited for, up to 30 s.
    leftovers = lambda: processes(MARK) + processes(f"ControlPath={control}") + processes(f"ssh: {control}/")
    local = processes(f"ControlPath={control}") + processes(f"ssh: {control}/")
    check("after quit: no ssh process left on this side", not local, local)
    left = settled(leftovers, limit=30)
    check("after quit: no remote plugin left either", not left, left)
    check("line mode exits non-zero (the unreachable tab's command failed)", code == 1, code)

    print("== full screen (tmux)")
    if not shutil.which("tmux"):
        check("tmux is installed", False, "Scripts/setup installs it")
        return
    fs_config = os.path.join(tmp, "fs.json")
    with open(fs_config, "w") as f:
        json.dump({"ssh": ["ssh", "-F", server.config], "tabs": [
            {"id": "remote", "title": "Remote people", "command": remote_plugin(MARK + "-fs"), "args": args,
             "remote": "tabdeck-remote-slow"}]}, f)
    socket = f"tabdeck-remote-{os.getpid()}"
    tmux = ["tmux", "-L", socket, "-f", "/dev/null"]
    marker = os.path.join(tmp, "exited")
    subprocess.run(tmux + ["new-session", "-d", "-x", "120", "-y", "40",
                           f"'{TABDECK}' --config '{fs_config}' --state-dir '{os.path.join(tmp, 'fs-state')}'; touch '{marker}'; sleep 60"],
                   check=True)
    try:
        screen = lambda: subprocess.run(tmux + ["capture-pane", "-p"], capture_output=True, text=True).stdout
        first = wait_until("the remote rows on the screen", lambda: (s := screen()) and "row 1 of 200" in s and "Søren Liskov" in s and s)
        check("full screen: the remote tab's rows and row count", "Remote people" in first, first)
        subprocess.run(tmux + ["send-keys", "G"], check=True)
        last = wait_until("the last row", lambda: (s := screen()) and "row 200 of 200" in s and s)
        check("full screen: G reaches the last row over the slow link", "row 200 of 200" in last, last)
        subprocess.run(tmux + ["send-keys", "q"], check=True)
        wait_until("tabdeck to quit", lambda: os.path.exists(marker))
        left = settled(lambda: processes(MARK + "-fs") + processes(f"ssh: {os.path.join(tmp, 'fs-state')}"), limit=30)
        check("full screen quit: nothing left behind", not left, left)
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)


if __name__ == "__main__":
    main()
