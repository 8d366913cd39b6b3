"""Runs a command and measures its wall time and the peak memory of its whole process tree.

Memory is sampled: every `interval` seconds the tree under the started process is walked
through /proc/PID/task/TID/children (so plugins in process groups of their own are included)
and the resident set sizes from /proc/PID/statm are summed. The peak is the largest sum seen,
so it can miss a peak shorter than the interval. `anon` is resident minus shared (file-backed
and shared memory pages), i.e. mostly heap; `rss` includes mapped file pages too.
"""
import os
import subprocess
import threading
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
MIB = 1024 * 1024


def tree(pid):
    """pid and all its descendants alive now."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return found


def memory(pids):
    """(resident, anonymous) bytes summed over pids."""
    rss = anon = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/statm") as f:
                fields = f.read().split()
            resident, shared = int(fields[1]) * PAGE, int(fields[2]) * PAGE
            rss += resident
            anon += resident - shared
        except (OSError, IndexError, ValueError):
            pass
    return rss, anon


class Measured:
    """The outcome of one measured run."""

    def __init__(self, wall_s, peak_rss, peak_anon, returncode, processes):
        self.wall_s = wall_s
        self.peak_rss_mib = peak_rss / MIB
        self.peak_anon_mib = peak_anon / MIB
        self.returncode = returncode
        self.processes = processes  # how many distinct pids were seen in the tree

    def as_dict(self):
        return {"wall_s": self.wall_s, "peak_rss_mib": self.peak_rss_mib, "peak_anon_mib": self.peak_anon_mib,
                "returncode": self.returncode, "processes": self.processes}


def run(argv, stdin_path=None, stdout_path=None, cwd=None, env=None, timeout=3600, interval=0.01):
    """Runs argv to completion with stdin/stdout redirected to files, stderr discarded."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    stdout = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    peak = [0, 0]
    seen = set()
    done = threading.Event()
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=subprocess.DEVNULL, cwd=cwd, env=env,
                                start_new_session=True)

        def sample():
            while not done.is_set():
                pids = tree(proc.pid)
                seen.update(pids)
                rss, anon = memory(pids)
                peak[0] = max(peak[0], rss)
                peak[1] = max(peak[1], anon)
                done.wait(interval)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        # A blocking wait: `proc.wait(timeout=...)` polls with sleeps of up to 50 ms, which
        # would round every wall time up by as much.
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(proc.pid, 9)
            except OSError:
                pass

        killer = threading.Timer(timeout, kill)
        killer.daemon = True
        killer.start()
        returncode = proc.wait()
        wall = time.perf_counter() - start
        killer.cancel()
        if timed_out.is_set():
            done.set()
            raise subprocess.TimeoutExpired(argv, timeout)
        done.set()
        sampler.join()
    finally:
        for f in (stdin, stdout):
            if hasattr(f, "close"):
                f.close()
    return Measured(wall, peak[0], peak[1], returncode, len(seen))
