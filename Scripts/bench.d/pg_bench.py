"""The PostgreSQL section of Scripts/bench (issue 13, point 2): the real plugin against psql on
the same server, the same table and the same queries.

A throw-away server (Scripts/pg-server, the one Scripts/test-postgres uses) keeps its folder in
.bench/pg (the generated tables stay between runs). The table `bench_N` has N rows from
generate_series and an index on (score, id): `score` is the indexed sort column (NOT NULL, about
ten rows a value at 10M), `id` the primary key and the plugin's tie-breaker.

tabdeck-postgres is spawned directly and spoken to over its pipes (JSON lines, as the host does):
  - first page: from spawning the plugin to the first 100-row page sorted by score (initialize,
    open with its probe and catalog reads, rows at offset 0); the rows round trip alone too;
  - the middle: once the exact count has arrived (the plugin's invalidate), a jump to the page
    in the middle (timed alone), then 50 pages down and 100 up from there (Page Down, Page Up),
    each request timed from write to the reply read and decoded: p50 and p99;
  - the end: a jump to the last page, then 100 pages up;
  - the plugin's peak and final RSS.
psql (one process per run, queries on its stdin, each followed by a marker line it echoes) does
the same by hand: spawn to the first page (`ORDER BY score, id LIMIT 100`), the jump
(`OFFSET`), then keyset pages (`WHERE (score, id) > (…)`, and `<` with `DESC` going up), and
the same pages by `OFFSET` for comparison.
Host memory: `tabdeck --line` with a tab on the plugin, the table sorted by score then random
`goto` + `show 20` visits; the host's VmRSS with the N-row table against a 1,000-row one.
"""
import json
import os
import select
import statistics
import subprocess
import threading
import time

import host_memory
from host_memory import status_kib

PAGE = 100
DOWN, UP = 50, 100
OFFSET_PAGES = 5


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(p / 100 * len(s) + 0.5)) - 1))]


class Server:
    """Scripts/pg-server start|stop DIR; the environment for psql and the plugin."""

    def __init__(self, root, folder, log):
        self.root, self.folder, self.log = root, folder, log
        out = subprocess.run([os.path.join(root, "Scripts", "pg-server"), "start", folder], capture_output=True,
                             text=True)
        if out.returncode != 0:
            raise RuntimeError(f"Scripts/pg-server start {folder} failed: {out.stderr.strip()[-400:]}")
        values = dict(line.split("=", 1) for line in out.stdout.split() if "=" in line)
        self.port, self.password, self.bin = int(values["PG_PORT"]), values["PG_PASSWORD"], values["PG_BIN"]
        self.env = dict(os.environ, PGPASSWORD=self.password)
        self.url = f"postgresql://tabdeck@127.0.0.1:{self.port}/postgres"
        version = subprocess.run([os.path.join(self.bin, "postgres"), "--version"], capture_output=True, text=True)
        self.version = version.stdout.split()[2]

    def stop(self):
        subprocess.run([os.path.join(self.root, "Scripts", "pg-server"), "stop", self.folder], capture_output=True)

    def psql(self, sql):
        r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-h", "127.0.0.1", "-p", str(self.port),
                            "-U", "tabdeck", "-d", "postgres"], input=sql, capture_output=True, text=True, env=self.env)
        if r.returncode != 0:
            raise RuntimeError(f"psql on 127.0.0.1:{self.port}: {r.stderr.strip()[-400:]}")
        return r.stdout

    def table(self, rows):
        """bench_ROWS, generated once (kept in .bench/pg)."""
        name = f"bench_{rows}"
        have = self.psql(f"SELECT obj_description(oid, 'pg_class') FROM pg_class WHERE relname = '{name}';").strip()
        if have == f"generated {rows}":
            return name
        self.log(f"postgres: generating {rows:,} rows into {name} (generate_series, index on score, analyze)")
        started = time.time()
        self.psql(f"""
DROP TABLE IF EXISTS {name};
CREATE TABLE {name} (id bigint PRIMARY KEY, name text NOT NULL, score integer NOT NULL, city text, amount numeric(12,2), born date);
INSERT INTO {name} SELECT g, 'person ' || g, (g * 2654435761 % {max(rows // 10, 1)})::int,
  (ARRAY['Oslo', 'Lima', 'Pune', 'Kyiv', 'Åre'])[1 + g % 5], (g * 31 % 100000) / 100.0, date '2000-01-01' + (g % 9000)::int
  FROM generate_series(1::bigint, {rows}) g;
CREATE INDEX {name}_score ON {name} (score, id);
VACUUM ANALYZE {name};
COMMENT ON TABLE {name} IS 'generated {rows}';
""")
        self.log(f"postgres: {name} generated in {time.time() - started:.0f} s")
        return name


class Plugin:
    """tabdeck-postgres over its pipes; requests one at a time, notifications collected."""

    def __init__(self, binary, env):
        self.started = time.perf_counter()
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  env=env)
        self.next_id = 0
        self.buffer = b""
        self.totals = []  # totals announced by invalidate
        self.peak_kib = 0

    def request(self, method, params, timeout=600):
        self.next_id += 1
        rid = self.next_id
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n")
        self.p.stdin.flush()
        deadline = time.monotonic() + timeout
        while True:
            msg = self.read(deadline)
            if msg.get("id") == rid:
                if "error" in msg:
                    raise RuntimeError(f"tabdeck-postgres: {method}: {msg['error'].get('message')}")
                return msg["result"]

    def read(self, deadline):
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError("tabdeck-postgres: no answer in time")
            ready, _, _ = select.select([self.p.stdout], [], [], left)
            if ready:
                chunk = os.read(self.p.stdout.fileno(), 1 << 20)
                if not chunk:
                    raise RuntimeError(f"tabdeck-postgres exited ({self.p.wait()})")
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        msg = json.loads(line)
        if msg.get("method") == "invalidate" and msg.get("params", {}).get("total") is not None:
            self.totals.append(msg["params"]["total"])
        return msg

    def wait_total(self, timeout=300):
        deadline = time.monotonic() + timeout
        while not self.totals:
            self.read(deadline)
        return self.totals[-1]

    def rows(self, offset, sort, limit=PAGE):
        t = time.perf_counter()
        r = self.request("rows", {"table": "root", "offset": offset, "limit": limit, "sort": sort, "filter": None,
                                  "generation": 1})
        return (time.perf_counter() - t) * 1000, r["rows"]

    def sample_memory(self):
        self.peak_kib = max(self.peak_kib, status_kib(self.p.pid, "VmHWM"))
        return status_kib(self.p.pid, "VmRSS")

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=10)
        except Exception:  # noqa: BLE001
            self.p.kill()


SORT = [{"column": "score", "direction": "asc"}]


def walk(total):
    """Where the paging walks go in a table of `total` rows: the middle page's offset, the
    pages down and then up from there, the last page's offset and the pages up from it; fewer
    pages than DOWN and UP when the table is small (`--smoke`), never past either end."""
    middle = (total // 2) // PAGE * PAGE
    down = max(0, min(DOWN, (total - 1 - middle) // PAGE))
    up = min(UP, (middle + down * PAGE) // PAGE)
    last = (total - 1) // PAGE * PAGE
    return middle, down, up, last, min(UP, last // PAGE)


def plugin_run(binary, server, table, log):
    """One run of the real plugin: first page, the middle, the end (ms)."""
    out = {}
    plugin = Plugin(binary, server.env)
    try:
        plugin.request("initialize", {"protocolVersion": 1, "host": {"name": "tabdeck-bench", "version": "0"},
                                      "capabilities": {"progress": True, "cancel": True}})
        plugin.request("open", {"args": {"url": server.url, "table": f"public.{table}"}})
        ms, rows = plugin.rows(0, SORT)
        out["first_page_ms"] = (time.perf_counter() - plugin.started) * 1000
        out["first_rows_rtt_ms"] = ms
        out["first_ids"] = [r["id"] for r in rows[:3]]
        total = plugin.wait_total()
        out["total"] = total
        middle, down, up, last, end_up = walk(total)
        out["middle_jump_ms"], rows = plugin.rows(middle, SORT)
        out["middle_ids"] = [r["id"] for r in rows[:3]]
        times, pages = [], {}
        for k in list(range(1, down + 1)) + list(range(down - 1, down - 1 - up, -1)):
            ms, rows = plugin.rows(middle + k * PAGE, SORT)
            times.append(ms)
            pages[middle + k * PAGE] = [r["id"] for r in rows]
        out["middle_pages_ms"] = times
        out["end_jump_ms"], rows = plugin.rows(last, SORT)
        out["end_ids"] = [r["id"] for r in rows[-3:]]
        times = []
        for k in range(1, end_up + 1):
            ms, rows = plugin.rows(last - k * PAGE, SORT)
            times.append(ms)
            pages[last - k * PAGE] = [r["id"] for r in rows]
        out["end_pages_ms"] = times
        out["page_ids"] = pages  # offset → ids: compared with psql's OFFSET pages
        out["plugin_rss_mib"] = plugin.sample_memory() / 1024
        out["plugin_peak_mib"] = plugin.peak_kib / 1024
    finally:
        plugin.close()
    return out


class Psql:
    """One psql process; each query is followed by `\\echo MARK` and timed to the marker."""

    MARK = "__tabdeck_bench_done__"

    def __init__(self, server):
        self.started = time.perf_counter()
        self.p = subprocess.Popen(["psql", "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                                   "-p", str(server.port), "-U", "tabdeck", "-d", "postgres"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server.env,
                                  text=True, bufsize=1)

    def query(self, sql):
        t = time.perf_counter()
        self.p.stdin.write(sql + "\n\\echo " + self.MARK + "\n")
        self.p.stdin.flush()
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"psql exited: {self.p.stderr.read().strip()[-300:]}")
            line = line.rstrip("\n")
            if line == self.MARK:
                return (time.perf_counter() - t) * 1000, [x.split("\t") for x in lines]
            lines.append(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def psql_run(server, table, total, offsets=True):
    """psql doing the same by hand: OFFSET for jumps, keyset for the pages, and OFFSET pages."""
    cols = "id, name, score, city, amount, born"
    out = {}
    q = Psql(server)
    try:
        ms, rows = q.query(f"SELECT {cols} FROM {table} ORDER BY score, id LIMIT {PAGE};")
        out["first_page_ms"] = (time.perf_counter() - q.started) * 1000
        out["first_ids"] = [r[0] for r in rows[:3]]
        out["first_rows_rtt_ms"] = q.query(f"SELECT {cols} FROM {table} ORDER BY score, id LIMIT {PAGE};")[0]

        def region(start, down, up, jump_key):
            """The jump by OFFSET, `down` keyset pages down, then `up` keyset pages up from the
            last page read (before its first row, in reverse); pages by id per offset."""
            ms, page = q.query(f"SELECT {cols} FROM {table} ORDER BY score, id LIMIT {PAGE} OFFSET {start};")
            out[jump_key + "_jump_ms"] = ms
            ids = [r[0] for r in page]
            seen = out.setdefault("page_ids", {})
            keyset, at = [], start
            for _ in range(down):  # Page Down: after the last row shown
                last = page[-1]
                ms, page = q.query(f"SELECT {cols} FROM {table} WHERE (score, id) > ({last[2]}, {last[0]}) "
                                   f"ORDER BY score, id LIMIT {PAGE};")
                keyset.append(ms)
                at += PAGE
                seen[at] = [r[0] for r in page]
            for _ in range(up):  # Page Up: before the first row shown
                first = page[0]
                ms, page = q.query(f"SELECT {cols} FROM {table} WHERE (score, id) < ({first[2]}, {first[0]}) "
                                   f"ORDER BY score DESC, id DESC LIMIT {PAGE};")
                keyset.append(ms)
                page.reverse()
                at -= PAGE
                seen[at] = [r[0] for r in page]
            # The same pages by OFFSET, as one would without keys: a few, in the first run only
            # (each skips millions of rows through the index and the heap: seconds at 10M).
            by_offset = []
            for k in range(1, min(OFFSET_PAGES, start // PAGE) + 1) if offsets else []:
                by_offset.append(q.query(f"SELECT {cols} FROM {table} ORDER BY score, id LIMIT {PAGE} "
                                         f"OFFSET {start - k * PAGE};")[0])
            return ids, keyset, by_offset

        middle, down, up, last, end_up = walk(total)
        ids, out["middle_pages_ms"], out["middle_offset_pages_ms"] = region(middle, down, up, "middle")
        out["middle_ids"] = ids[:3]
        ids, out["end_pages_ms"], out["end_offset_pages_ms"] = region(last, 0, end_up, "end")
        out["end_ids"] = ids[-3:]
    finally:
        q.close()
    return out


def host_rss_mib(tabdeck, plugin_launcher, server, table, rows, visits, work, seed=7):
    """The host's VmRSS after `sort score` and `visits` random goto + show 20 (line mode, JSON)."""
    config = os.path.join(work, f"pg-{table}.json")
    with open(config, "w") as f:
        json.dump({"tabs": [{"id": "t", "command": [plugin_launcher], "args": {"url": server.url, "table": f"public.{table}"}}]}, f)
    env = dict(server.env, TABDECK_BIN_DIR=os.path.dirname(tabdeck))
    return host_memory.visit_randomly(tabdeck, config, os.path.join(work, f"pg-state-{table}"), rows, visits, "score",
                                      seed, env=env)["rss_mib"]


def measure(root, bins, sizes, runs, visits, work, log):
    """Every figure for each size; the server is stopped at the end."""
    server = Server(root, os.path.join(root, ".bench", "pg"), log)
    results = {"server": f"PostgreSQL {server.version}", "sizes": {}}
    try:
        small = server.table(1000)
        for rows in sizes:
            table = server.table(rows)
            server.psql(f"SELECT count(*) FROM {table};")  # warm the cache (shared buffers, the OS's pages)
            res = {"tabdeck": [], "psql": [], "host": {}}
            for i in range(runs):
                log(f"postgres {rows:,}: tabdeck-postgres run {i + 1}")
                t = plugin_run(bins["tabdeck-postgres"], server, table, log)
                res["tabdeck"].append(t)
                log(f"postgres {rows:,}: psql run {i + 1}")
                res["psql"].append(psql_run(server, table, t["total"], offsets=i == 0))
            log(f"postgres {rows:,}: host memory ({visits} visits, then the same with 1,000 rows)")
            launcher = os.path.join(root, "Plugins", "postgres", "tabdeck-postgres")
            res["host"]["big_mib"] = host_rss_mib(bins["tabdeck"], launcher, server, table, rows, visits, work)
            res["host"]["small_mib"] = host_rss_mib(bins["tabdeck"], launcher, server, small, 1000, visits, work)
            results["sizes"][rows] = res
    finally:
        server.stop()
    return results


def summary(rows, res):
    """(figure, tabdeck, psql, target, passed) for one size; values as text."""
    td, pq = res["tabdeck"], res["psql"]

    def med(runs, key):
        return statistics.median(r[key] for r in runs)

    def pooled(runs, key, p):
        return percentile([x for r in runs for x in r.get(key, [])], p)

    def ms(v):
        return f"{v:.1f} ms" if v >= 10 else f"{v:.2f} ms"

    lines = []
    first = med(td, "first_page_ms")
    lines.append(("first sorted page, spawn → page (median)", ms(first), ms(med(pq, "first_page_ms")), "≤ 100 ms",
                  first <= 100))
    lines.append(("first sorted page, the rows request alone", ms(med(td, "first_rows_rtt_ms")),
                  ms(med(pq, "first_rows_rtt_ms")), "", None))
    for where in ("middle", "end"):
        lines.append((f"jump to the {where} (first page there)", ms(med(td, f"{where}_jump_ms")),
                      ms(med(pq, f"{where}_jump_ms")) + " (OFFSET)", "", None))
        p50, p99 = pooled(td, f"{where}_pages_ms", 50), pooled(td, f"{where}_pages_ms", 99)
        n = sum(len(r[f"{where}_pages_ms"]) for r in td)
        lines.append((f"page RTT at the {where}, p50 ({n} pages)", ms(p50), ms(pooled(pq, f"{where}_pages_ms", 50)) + " (keyset)",
                      "", None))
        lines.append((f"page RTT at the {where}, p99", ms(p99), ms(pooled(pq, f"{where}_pages_ms", 99)) + " (keyset)",
                      "≤ 5 ms", p99 <= 5))
        by_offset = [x for r in pq for x in r.get(f"{where}_offset_pages_ms", [])]
        lines.append((f"psql paging by OFFSET at the {where}, median ({len(by_offset)} pages)", "",
                      ms(statistics.median(by_offset)) if by_offset else "—", "", None))
    lines.append(("plugin RSS after the run (peak)", "%.0f MiB (%.0f)" % (med(td, "plugin_rss_mib"), med(td, "plugin_peak_mib")),
                  "", "", None))
    h = res["host"]
    ratio = h["big_mib"] / h["small_mib"]
    lines.append((f"host RSS, {rows:,} rows / 1,000 rows", "%.1f / %.1f MiB = %.3f×" % (h["big_mib"], h["small_mib"], ratio),
                  "", "≤ 1.10×", ratio <= 1.10))
    same = all(t["first_ids"] == p["first_ids"] and t["middle_ids"] == p["middle_ids"] and t["end_ids"] == p["end_ids"]
               for t, p in zip(td, pq))
    same = same and all(set(t["page_ids"]) == set(p["page_ids"]) and len(t["page_ids"]) == 2 * UP + 1
                        and all(t["page_ids"][k] == p["page_ids"][k] for k in t["page_ids"]) for t, p in zip(td, pq))
    lines.append(("same rows (every page read, by id, against psql's)", "yes" if same else "NO", "", "identical", same))
    return lines


def table(rows, res, server):
    head = ("figure", "tabdeck-postgres", "psql", "target", "result")
    body = [(f, a, b, t, "" if ok is None else ("PASS" if ok else "MISS")) for f, a, b, t, ok in summary(rows, res)]
    widths = [max(len(str(r[i])) for r in [head] + body) for i in range(len(head))]
    fmt = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    out = [f"PostgreSQL: {rows:,} rows, {server}", fmt(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt(r) for r in body]
    return "\n".join(out)
