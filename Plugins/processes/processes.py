#!/usr/bin/env python3
"""Tabdeck plugin: the running processes of this machine, live, read from /proc (Linux).

Columns: pid, name, user, state (enum, in the order R D S I T t Z X P W K x ?), CPU % (since
the previous sample; can exceed 100 for a multi-threaded process, like top; ``open`` takes
two samples 0.25 s apart so the first page already shows recent usage), RSS in MiB, threads, command line (kernel
threads show ``[name]``; cut at 500 characters, in full in the row's ``detail``). Row id = the pid as a string. Every column is sortable, by several
keys at once. A row's children are the process's threads (/proc/PID/task).

Live: a background thread re-reads /proc every ``interval`` seconds and sends ``invalidate``
(with the new ``total``) when any row changed, plus a ``status`` "watching N processes".

Badge: the number of processes using at least ``badgeCpu`` percent CPU (default 50) in the
last sample, this plugin itself excluded: a count of CPU hogs worth noticing. Cleared with
``null`` when there are none. Sent only when it changes.

Open args (all optional): ``{"interval": 2.0, "badgeCpu": 50}``; interval from 0.1 to 3600 s.

Actions: ``term`` (SIGTERM) and ``kill`` (SIGKILL, ``destructive``), both ``confirm`` and ``multiple``. The
answer is a message; if any pid could not be signalled the answer is error -32003 naming
each pid that failed and why (the others were signalled), with ``data``
``{"failed": {"PID": "reason"}, "signalled": ["PID", ...]}``.
"""

from __future__ import annotations

import json
import os
import pwd
import signal
import sys
import threading
import time
from datetime import datetime, timezone
from typing import Any, NamedTuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "sdk", "python"))

from tabdeck_plugin import (ACTION_FAILED, INVALID_PARAMS, RpcError, Table,  # noqa: E402
                            TablePlugin, action_spec, column, filter_rows, row, sort_rows)

PROC = "/proc"
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
MIB = 1024 * 1024
MAX_COMMAND_CELL = 500  # longer command lines are cut in the cell, given in full in detail
PRIME_SECONDS = 0.25  # at open: two samples this far apart give the first CPU %

STATES = ["R", "D", "S", "I", "T", "t", "Z", "X", "P", "W", "K", "x", "?"]
STATE_NAMES = {"R": "running", "D": "disk sleep", "S": "sleeping", "I": "idle",
               "T": "stopped", "t": "tracing stop", "Z": "zombie", "X": "dead", "P": "parked",
               "W": "waking", "K": "wakekill", "x": "dead", "?": "unknown"}

SIGNALS = {"term": signal.SIGTERM, "kill": signal.SIGKILL}


class Stat(NamedTuple):
    """The fields of /proc/PID/stat (or /proc/PID/task/TID/stat) this plugin uses."""
    name: str
    state: str
    ppid: int
    ticks: int          # utime + stime, in clock ticks
    threads: int
    start: int          # start time, in clock ticks after boot
    rss_pages: int


def read_stat(path: str) -> Stat:
    """Parse a stat file; the name may contain spaces and parentheses."""
    with open(path, "rb") as f:
        data = f.read().decode("utf-8", "replace")
    lpar, rpar = data.index("("), data.rindex(")")
    rest = data[rpar + 2:].split()
    state = rest[0] if rest[0] in STATES else "?"
    return Stat(data[lpar + 1:rpar], state, int(rest[1]), int(rest[11]) + int(rest[12]),
                int(rest[17]), int(rest[19]), int(rest[21]))


def read_cmdline(pid: int) -> str:
    with open(f"{PROC}/{pid}/cmdline", "rb") as f:
        data = f.read()
    return data.rstrip(b"\0").replace(b"\0", b" ").decode("utf-8", "replace")


def uptime() -> float:
    with open(f"{PROC}/uptime") as f:
        return float(f.read().split()[0])


def boot_time() -> float:
    with open(f"{PROC}/stat") as f:
        for line in f:
            if line.startswith("btime "):
                return float(line.split()[1])
    return time.time() - uptime()


_users: dict[int, str] = {}


def user_name(uid: int) -> str:
    if uid not in _users:
        try:
            _users[uid] = pwd.getpwuid(uid).pw_name
        except KeyError:
            _users[uid] = str(uid)
    return _users[uid]


def parse_pid(text: str) -> int:
    """A row id as a pid: a positive decimal integer (never 0 or negative: kill(2) would
    signal a whole process group)."""
    if not text.isascii() or not text.isdigit() or int(text) <= 0:
        raise ValueError(f"not a pid: {text!r}")
    return int(text)


class Sampler:
    """Reads /proc and turns it into rows, computing CPU % between successive samples."""

    def __init__(self) -> None:
        self.prev: dict[tuple[int, int], int] = {}  # (pid, start) -> ticks
        self.prev_time: float | None = None
        self.boot = boot_time()
        self.cpu: dict[int, float] = {}

    def sample(self) -> list[dict[str, Any]]:
        now = uptime()
        dt = None if self.prev_time is None else max(now - self.prev_time, 1e-6)
        seen: dict[tuple[int, int], int] = {}
        rows: list[dict[str, Any]] = []
        cpu: dict[int, float] = {}
        for entry in os.scandir(PROC):
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            try:
                st = read_stat(f"{PROC}/{pid}/stat")
                uid = entry.stat().st_uid
                cmd = read_cmdline(pid)
            except (OSError, ValueError, IndexError):
                continue  # the process went away while we looked, or is unreadable
            k = (pid, st.start)
            seen[k] = st.ticks
            if dt is not None and k in self.prev:
                pct = (st.ticks - self.prev[k]) / CLK_TCK / dt * 100
            else:  # first sample, or a process born since the last one: its lifetime average
                age = max(now - st.start / CLK_TCK, 1e-6)
                pct = st.ticks / CLK_TCK / age * 100
            pct = round(max(pct, 0.0), 1)
            cpu[pid] = pct
            started = datetime.fromtimestamp(self.boot + st.start / CLK_TCK, timezone.utc)
            detail = (f"{STATE_NAMES[st.state]}, parent {st.ppid}, started "
                      f"{started.isoformat(timespec='seconds')}")
            cmd = cmd or f"[{st.name}]"
            if len(cmd) > MAX_COMMAND_CELL:  # compilers have 20 KB command lines
                detail += f"\n{cmd}"
                cmd = cmd[:MAX_COMMAND_CELL - 1] + "\u2026"
            rows.append(row(pid, [
                pid, st.name, user_name(uid), st.state, pct,
                round(st.rss_pages * PAGE_SIZE / MIB, 1), st.threads, cmd,
            ], detail=detail, has_children=True))
        self.prev, self.prev_time, self.cpu = seen, now, cpu
        rows.sort(key=lambda r: r["cells"][0])
        return rows


class Threads(Table):
    """Child table: the threads of one process."""

    def __init__(self, pid: int, name: str) -> None:
        self.pid = pid
        self.title = f"threads of {pid} ({name})"

    def columns(self) -> list[dict[str, Any]]:
        return [column("tid", "TID", "integer", width=8, align="right"),
                column("name", "Name", width={"min": 8, "ideal": 16}),
                column("state", "S", "enum", values=STATES, width=2),
                column("cpuTime", "CPU s", "decimal", width=9, align="right", decimals=2)]

    def all_rows(self) -> list[dict[str, Any]]:
        out = []
        try:
            tids = sorted(int(t) for t in os.listdir(f"{PROC}/{self.pid}/task") if t.isdigit())
        except OSError:
            return []
        for tid in tids:
            try:
                st = read_stat(f"{PROC}/{self.pid}/task/{tid}/stat")
            except (OSError, ValueError, IndexError):
                continue
            out.append(row(tid, [tid, st.name, st.state, round(st.ticks / CLK_TCK, 2)]))
        return out


class Processes(TablePlugin):
    name = "processes"
    version = "1.0.0"
    title = "processes"

    def __init__(self) -> None:
        super().__init__()
        self.interval = 2.0
        self.badge_cpu = 50.0
        self.sampler = Sampler()
        self.lock = threading.Lock()
        self.sample_lock = threading.Lock()  # one refresh at a time (open vs. sampler)
        self.snapshot: list[dict[str, Any]] = []
        self.version_no = 0
        self.sorted_cache: dict[str, list[dict[str, Any]]] = {}
        self.sorted_version = -1
        self.last_badge: int | None = None
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None

    def capabilities(self) -> dict[str, bool]:
        return {"sort": True, "multiSort": True, "filter": True, "children": True, "actions": True,
                "live": True}

    def columns(self) -> list[dict[str, Any]]:
        return [
            column("pid", "PID", "integer", width=7, align="right"),
            column("name", "Name", width={"min": 6, "ideal": 16, "max": 24}),
            column("user", "User", width={"min": 4, "ideal": 10, "max": 16}),
            column("state", "S", "enum", values=STATES, width=2, align="center"),
            column("cpu", "CPU %", "decimal", width=6, align="right", decimals=1),
            column("rss", "RSS MiB", "decimal", width=8, align="right", decimals=1),
            column("threads", "Thr", "integer", width=4, align="right"),
            column("command", "Command", width={"min": 10, "ideal": 60}),
        ]

    def actions(self) -> list[dict[str, Any]]:
        return [action_spec("term", "Terminate (SIGTERM)", confirm=True, multiple=True),
                action_spec("kill", "Kill (SIGKILL)", confirm=True, multiple=True, destructive=True)]

    # ------------------------------------------------------------ open and sampling

    def open(self, args: dict[str, Any]) -> None:
        interval = args.get("interval", 2.0)
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) \
                or not 0.1 <= interval <= 3600:
            raise RpcError(INVALID_PARAMS, "interval must be a number of seconds, 0.1 to 3600")
        badge_cpu = args.get("badgeCpu", 50.0)
        if isinstance(badge_cpu, bool) or not isinstance(badge_cpu, (int, float)) \
                or badge_cpu < 0:
            raise RpcError(INVALID_PARAMS, "badgeCpu must be a non-negative number")
        self.interval, self.badge_cpu = float(interval), float(badge_cpu)
        if self.sampler.prev_time is None:
            self.sampler.sample()  # prime, so the first CPU % is a recent one
            time.sleep(min(PRIME_SECONDS, self.interval))
        self.refresh(notify=False)
        if self.thread is None:
            self.thread = threading.Thread(target=self.watch, name="sampler", daemon=True)
            self.thread.start()
        else:
            self.wake.set()  # re-opened: apply the new interval now
        return None

    def watch(self) -> None:
        while True:
            self.wake.wait(self.interval)
            self.wake.clear()
            if self.stop.is_set():
                return
            try:
                self.refresh()
            except Exception as e:  # keep watching; say what went wrong
                self.log(f"reading {PROC} failed: {e}", "error")

    def refresh(self, notify: bool = True) -> None:
        """Take a sample; on change publish it and tell the host."""
        with self.sample_lock:
            self._refresh(notify)

    def _refresh(self, notify: bool) -> None:
        rows = self.sampler.sample()
        with self.lock:
            changed = [(r["id"], r["cells"]) for r in rows] != \
                      [(r["id"], r["cells"]) for r in self.snapshot]
            if changed:
                self.snapshot = rows
                self.version_no += 1
        me = os.getpid()
        hogs = sum(1 for pid, pct in self.sampler.cpu.items()
                   if pct >= self.badge_cpu and pid != me)
        if not notify:
            self.last_badge = hogs or None
            self.badge(self.last_badge)
            return
        if changed and not self.shutting_down:
            self.invalidate(total=len(rows))
            self.status(f"watching {len(rows)} processes")
        if (hogs or None) != self.last_badge:
            self.last_badge = hogs or None
            self.badge(self.last_badge)

    # ------------------------------------------------------------ rows

    def all_rows(self) -> list[dict[str, Any]]:
        with self.lock:
            return self.snapshot

    def rows(self, offset: int, limit: int, sort: list[dict[str, str]],
             filter: Any) -> tuple[list[dict[str, Any]], int]:
        text = filter if isinstance(filter, str) and filter else None
        key = json.dumps([sort, text])
        with self.lock:
            snapshot, version = self.snapshot, self.version_no
            if self.sorted_version != version:
                self.sorted_cache, self.sorted_version = {}, version
            ordered = self.sorted_cache.get(key)
        if ordered is None:
            kept = filter_rows(snapshot, text) if text else snapshot
            ordered = sort_rows(kept, sort, self.columns()) if sort else kept
            with self.lock:
                if self.sorted_version == version:
                    self.sorted_cache[key] = ordered
        return ordered[offset:offset + limit], len(ordered)

    def children(self, table: str, row: str) -> Table:
        try:
            pid = parse_pid(row)
            name = read_stat(f"{PROC}/{pid}/stat").name
        except (OSError, ValueError, IndexError):
            raise RpcError(INVALID_PARAMS, f"no such process: {row}") from None
        return Threads(pid, name)

    # ------------------------------------------------------------ actions

    def action(self, table: str, action: str, rows: list[str]) -> dict[str, Any]:
        sig = SIGNALS[action]
        failed: dict[str, str] = {}
        sent: list[str] = []
        for r in rows:
            try:
                pid = parse_pid(r)
                if pid == os.getpid():
                    raise ValueError("that is the processes plugin itself")
                os.kill(pid, sig)
            except ProcessLookupError:
                failed[r] = "no such process"
            except PermissionError:
                failed[r] = "permission denied"
            except (OSError, ValueError) as e:
                failed[r] = str(e)
            else:
                sent.append(r)
        if sent:
            self.wake.set()  # show the effect soon
        name = sig.name
        if failed:
            detail = "; ".join(f"pid {pid}: {why}" for pid, why in failed.items())
            raise RpcError(ACTION_FAILED,
                           f"{name} failed for {detail} ({len(sent)} of {len(rows)} signalled)",
                           {"failed": failed, "signalled": sent})
        return {"message": f"{name} sent to {len(sent)} process"
                           f"{'' if len(sent) == 1 else 'es'} ({', '.join(sent)})",
                "invalidate": True}

    def on_shutdown(self) -> None:
        self.stop.set()
        self.wake.set()


if __name__ == "__main__":
    raise SystemExit(Processes().run())
