"""The `pg-schema` section of Scripts/bench (issue 23, point 2): the PostgreSQL plugin on the
schema shaped like people's (Scripts/pg.d/real_schema.sql, `store.orders` with N rows, 3,000,000
by default, an index on (created, id)), side by side with psql on the same server, in one run:

  - the first page sorted by the indexed `created`: the plugin's `rows` request against psql's
    `ORDER BY created, id LIMIT 100` (the query alone, in a running psql);
  - a jump to row N - 100,000 (2,900,000 of 3,000,000) in that order (a fresh plugin, no rows read before) against psql's
    `OFFSET 2900000`;
  - the page after it against psql's keyset query `WHERE (created, id) > (…)`;
  - exporting 500,000 rows sorted by created (`store.orders_500k`): `tabdeck --line` (`sort
    created`, `export`), the whole process, against `psql -c "COPY (… ORDER BY created, id) TO
    STDOUT"` to a file, the whole process.
Targets: each ≤ 2× psql's. The same rows are checked (ids of each page, the exported file's
line count).
"""
import json
import os
import statistics
import subprocess
import time

import pg_bench

EXPORT_ROWS = 500_000


def jump_row(rows):
    """Row 2,900,000 of 3,000,000: 100,000 rows before the end."""
    return max(0, rows - 100_000)


def load(server, root, rows, log):
    """store.* with `rows` orders (kept between runs in .bench/pg: redone only when N changes)."""
    have = server.psql("SELECT obj_description('store.orders'::regclass, 'pg_class');" if server.psql(
        "SELECT to_regclass('store.orders') IS NOT NULL;").strip() == "t" else "SELECT '';").strip()
    if have == f"generated {rows}":
        return
    log(f"pg-schema: loading Scripts/pg.d/real_schema.sql with {rows:,} orders")
    started = time.time()
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", f"rows={rows}", "-v", f"pw={server.password}",
                        "-h", "127.0.0.1", "-p", str(server.port), "-U", "tabdeck", "-d", "postgres",
                        "-f", os.path.join(root, "Scripts", "pg.d", "real_schema.sql")], capture_output=True, text=True,
                       env=server.env)
    if r.returncode != 0:
        raise RuntimeError(f"loading real_schema.sql: {r.stderr.strip()[-400:]}")
    server.psql(f"""
CREATE TABLE store.orders_500k AS SELECT * FROM store.orders WHERE id <= {EXPORT_ROWS};
ALTER TABLE store.orders_500k ADD PRIMARY KEY (id);
CREATE INDEX ON store.orders_500k (created, id);
VACUUM ANALYZE store.orders_500k;
COMMENT ON TABLE store.orders IS 'generated {rows}';""")
    log(f"pg-schema: loaded in {time.time() - started:.0f} s")


def plugin_run(binary, server, rows):
    out = {}
    jump = jump_row(rows)
    sort = [{"column": "created", "direction": "asc"}]
    for what in ("first", "jump"):
        p = pg_bench.Plugin(binary, server.env)
        try:
            p.request("initialize", {"protocolVersion": 1, "host": {"name": "tabdeck-bench", "version": "0"},
                                     "capabilities": {"progress": True, "cancel": True}})
            p.request("open", {"args": {"url": server.url, "table": "store.orders"}})
            if what == "first":
                out["first_ms"], page = p.rows(0, sort)
                out["first_ids"] = [r["id"] for r in page]
            else:
                out["jump_ms"], page = p.rows(jump, sort)
                out["jump_ids"] = [r["id"] for r in page]
                out["next_ms"], page = p.rows(jump + 100, sort)
                out["next_ids"] = [r["id"] for r in page]
        finally:
            p.close()
    return out


def psql_run(server, rows):
    out = {}
    jump = jump_row(rows)
    cols = "id, status, amount, created, tags, meta, note"
    q = pg_bench.Psql(server)
    try:
        # Timed with every column, as a person's query; the ids compared come from a second,
        # untimed query (notes hold newlines, which split psql's unaligned lines).
        first = "ORDER BY created, id LIMIT 100"
        out["first_ms"] = q.query(f"SELECT {cols} FROM store.orders {first};")[0]
        out["first_ids"] = [r[0] for r in q.query(f"SELECT id FROM store.orders {first};")[1]]
        jumped = f"ORDER BY created, id LIMIT 100 OFFSET {jump}"
        out["jump_ms"] = q.query(f"SELECT {cols} FROM store.orders {jumped};")[0]
        out["jump_ids"] = [r[0] for r in q.query(f"SELECT id FROM store.orders {jumped};")[1]]
        last = q.query(f"SELECT id, created FROM store.orders ORDER BY created, id LIMIT 1 OFFSET {jump + 99};")[1][0]
        after = f"WHERE (created, id) > ('{last[1]}', {last[0]}) ORDER BY created, id LIMIT 100"
        out["next_ms"] = q.query(f"SELECT {cols} FROM store.orders {after};")[0]
        out["next_ids"] = [r[0] for r in q.query(f"SELECT id FROM store.orders {after};")[1]]
    finally:
        q.close()
    return out


def export_runs(tabdeck, root, server, work):
    """(tabdeck seconds, psql seconds, tabdeck lines, psql lines) of one export of each."""
    config = os.path.join(work, "export.json")
    with open(config, "w") as f:
        json.dump({"tabs": [{"id": "o", "command": [os.path.join(root, "Plugins", "postgres", "tabdeck-postgres")],
                             "args": {"url": server.url, "table": "store.orders_500k"}}]}, f)
    ours, theirs = os.path.join(work, "tabdeck.csv"), os.path.join(work, "psql.csv")
    env = dict(server.env, TABDECK_BIN_DIR=os.path.dirname(tabdeck))
    t = time.perf_counter()
    subprocess.run([tabdeck, "--line", "--config", config, "--state-dir", os.path.join(work, "state")],
                   input=f"sort created\nexport {ours}\n", capture_output=True, text=True, env=env, check=True)
    ours_s = time.perf_counter() - t
    t = time.perf_counter()
    with open(theirs, "w") as f:
        subprocess.run(["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(server.port), "-U", "tabdeck", "-d", "postgres", "-c",
                        "COPY (SELECT * FROM store.orders_500k ORDER BY created, id) TO STDOUT WITH (FORMAT csv, HEADER)"],
                       stdout=f, env=server.env, check=True)
    theirs_s = time.perf_counter() - t

    def lines(path):
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    return ours_s, theirs_s, lines(ours), lines(theirs)


def measure(root, bins, rows, runs, work, log):
    server = pg_bench.Server(root, os.path.join(root, ".bench", "pg"), log)
    try:
        load(server, root, rows, log)
        server.psql("SELECT count(*) FROM store.orders;")  # warm the caches
        res = {"server": f"PostgreSQL {server.version}", "rows": rows, "tabdeck": [], "psql": [], "export": []}
        for i in range(runs):
            log(f"pg-schema: run {i + 1} of {runs}")
            res["tabdeck"].append(plugin_run(bins["tabdeck-postgres"], server, rows))
            res["psql"].append(psql_run(server, rows))
            res["export"].append(export_runs(bins["tabdeck"], root, server, work))
    finally:
        server.stop()
    return res


def summary(res):
    """(figure, tabdeck, psql, target, passed)."""
    td, pq, ex = res["tabdeck"], res["psql"], res["export"]

    def med(runs, key):
        return statistics.median(r[key] for r in runs)

    lines = []
    for key, label in (("first", "first page sorted by the indexed created"), ("jump", f"jump to row {jump_row(res['rows']):,} (goto), vs OFFSET"),
                       ("next", "the page after it, vs psql's keyset query")):
        ours, theirs = med(td, f"{key}_ms"), med(pq, f"{key}_ms")
        lines.append((label, f"{ours:.1f} ms", f"{theirs:.1f} ms", "≤ 2× psql", ours <= 2 * max(theirs, 1.0)))
    ours, theirs = statistics.median(e[0] for e in ex), statistics.median(e[1] for e in ex)
    lines.append((f"export {EXPORT_ROWS:,} rows sorted by created (whole process), vs COPY", f"{ours:.2f} s", f"{theirs:.2f} s",
                  "≤ 2× psql", ours <= 2 * theirs))
    same = all(t[f"{k}_ids"] == p[f"{k}_ids"] for t, p in zip(td, pq) for k in ("first", "jump", "next"))
    same = same and all(e[2] == e[3] for e in ex)  # CSV lines: quoted newlines count alike
    lines.append(("same rows (pages by id; exported lines)", "yes" if same else "NO", "", "identical", same))
    return lines
