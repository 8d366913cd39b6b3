"""The DuckDB plugin against the DuckDB shell of the same version (issue 24, point 7):
`Scripts/bench --only duckdb [--sizes 1m,10m] [--duckdb-formats parquet,jsonl,csv.gz]`.

For each size, files generated once under .bench/data/ by the plugin's own DuckDB (columns: an
integer id, text, a DECIMAL(18,2) amount with NULLs, an integer, a date, a bool and a list):
Parquet, JSON lines and gzip CSV. Two figures per file, each the whole process, start to answer:

  first page   the plugin: spawn, initialize, open, rows 0-99 in the natural order;
               the shell:  duckdb -c "SELECT * FROM 'f' LIMIT 100"
  top 50       the plugin: spawn, initialize, open, rows 0-49 sorted by amount descending;
               the shell:  duckdb -c "SELECT * FROM 'f' ORDER BY amount DESC LIMIT 50"

Targets: the plugin at most 1.5 x the shell + 0.2 s (a Python plugin's start), the top 50 at
10M at most 1.5 x the shell. Runs interleave the two tools; medians of the runs.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time

FORMATS = {  # name -> (file suffix, DuckDB COPY options)
    "parquet": (".parquet", "(FORMAT parquet)"),
    "jsonl": (".jsonl", "(FORMAT json)"),
    "csv.gz": (".csv.gz", "(HEADER, COMPRESSION gzip)"),
}

GENERATE = """
import duckdb, sys
rows, out, options = int(sys.argv[1]), sys.argv[2], sys.argv[3]
duckdb.execute("SET enable_progress_bar = false")
duckdb.execute(f'''COPY (SELECT i AS id, 'name' || (hash(i) % 100000)::VARCHAR AS name,
  CASE WHEN i % 10 = 0 THEN NULL ELSE ((hash(i * 7) % 100000000)::DECIMAL(18,0) / 100)::DECIMAL(18,2) END AS amount,
  (hash(i * 3) % 1000)::INTEGER AS qty, DATE '2020-01-01' + (i % 2000)::INTEGER AS day, i % 2 = 0 AS flag,
  [i % 10, i % 7] AS tags FROM range({rows}) t(i)) TO '{out}' {options}''')
"""


def data_files(root: str, data_dir: str, rows: int, log, formats: list[str]) -> dict[str, str]:
    python = os.path.join(root, "Plugins", "duckdb", ".venv", "bin", "python")
    if not os.access(python, os.X_OK):
        raise RuntimeError("Plugins/duckdb/.venv is missing: run Scripts/setup")
    os.makedirs(data_dir, exist_ok=True)
    files = {}
    for name in formats:
        if name not in FORMATS:
            raise RuntimeError(f"--duckdb-formats: unknown format {name!r} (formats: {', '.join(FORMATS)})")
        suffix, options = FORMATS[name]
        path = os.path.join(data_dir, f"duckdb-{rows}{suffix}")
        if not os.path.exists(path):
            log(f"generating {rows:,} rows into {os.path.relpath(path, root)}")
            subprocess.run([python, "-c", GENERATE, str(rows), path + ".part", options], check=True)
            os.replace(path + ".part", path)
        files[name] = path
    return files


def plugin_run(launcher: str, path: str, sort: list, limit: int) -> tuple[float, list]:
    """Seconds from spawning the plugin to the rows' answer, and the rows' first cells."""
    start = time.perf_counter()
    p = subprocess.Popen([launcher], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": 1, "host": {"name": "bench", "version": "0"}, "capabilities": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "open", "params": {"args": {"path": path}}},
        {"jsonrpc": "2.0", "id": 3, "method": "rows", "params": {
            "table": "root", "offset": 0, "limit": limit, "sort": sort, "filter": None, "generation": 1}},
    ]
    p.stdin.write("".join(json.dumps(m) + "\n" for m in msgs).encode())
    p.stdin.flush()
    try:
        for line in p.stdout:
            m = json.loads(line)
            if m.get("id") in (2, 3) and "error" in m:
                raise RuntimeError(f"the plugin answered {m['error']}")
            if m.get("id") == 3:
                took = time.perf_counter() - start
                return took, [r["cells"][:3] for r in m["result"]["rows"]]
        raise RuntimeError("the plugin ended without answering")
    finally:
        p.stdin.close()
        p.wait()


def shell_run(duckdb: str, sql: str) -> float:
    start = time.perf_counter()
    subprocess.run([duckdb, "-c", sql], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def measure(root: str, data_dir: str, duckdb: str, sizes: list[int], runs_for, log,
            formats: list[str] | None = None) -> dict:
    launcher = os.path.join(root, "Plugins", "duckdb", "tabdeck-duckdb")
    out: dict = {}
    for rows in sizes:
        files = data_files(root, data_dir, rows, log, formats or list(FORMATS))
        for fmt, path in files.items():
            quoted = path.replace("'", "''")
            cases = {
                "first page": ([], 100, f"SELECT * FROM '{quoted}' LIMIT 100"),
                "top 50 by amount": ([{"column": "amount", "direction": "desc"}], 50,
                                     f"SELECT * FROM '{quoted}' ORDER BY amount DESC LIMIT 50"),
            }
            for case, (sort, limit, sql) in cases.items():
                ours, theirs, first = [], [], None
                for i in range(runs_for(rows)):
                    log(f"{rows:,} {fmt} {case}: run {i + 1}")
                    took, cells = plugin_run(launcher, path, sort, limit)
                    ours.append(took)
                    first = cells[:1]
                    theirs.append(shell_run(duckdb, sql))
                out[(rows, fmt, case)] = {"plugin_s": ours, "duckdb_s": theirs, "first_row": first}
    return out


def figures(res: dict, figs, fmt_rows) -> str:
    """Adds the figures; returns a side-by-side table."""
    lines = ["DuckDB plugin vs the DuckDB shell (whole process, median seconds)",
             f"{'case':40} {'plugin':>8} {'duckdb':>8} {'ratio':>6}  target"]
    for (rows, fmt, case), r in res.items():
        ours, theirs = statistics.median(r["plugin_s"]), statistics.median(r["duckdb_s"])
        plus = 0.0 if (case.startswith("top") and rows >= 10_000_000) else 0.2
        limit = 1.5 * theirs + plus
        target = f"≤ 1.5× duckdb{' + 0.2 s' if plus else ''}"
        label = f"duckdb plugin {fmt_rows(rows)} {fmt}: {case}"
        figs.add(label, r["plugin_s"], "s", f"≤ {limit:.2f} s ({target})", ours <= limit, digits=3,
                 note=f"duckdb shell {theirs:.3f} s")
        lines.append(f"{fmt_rows(rows) + ' ' + fmt + ': ' + case:40} {ours:8.3f} {theirs:8.3f} {ours / theirs:6.2f}  "
                     f"{target}: {'PASS' if ours <= limit else 'MISS'}")
    return "\n".join(lines)
