"""The sort task (issue 14): open a CSV, sort it, print the first 50 rows, in two orders.

Each tool runs as a whole process with its input script on stdin (or a command file) and
writes the 50 rows somewhere this module can read them back; each tool's `rows` turns its
output into the same normalized form, (id, name, amount in cents), so they can be compared.

The task comes in two orders (`ORDERS`, chosen with `Scripts/bench --orders`); each tool takes
one order and runs it the same way, only its sort commands differing:

  text     final order [name asc, amount desc]; tabdeck: `sort amount desc`, `sort name`;
           SQL: ORDER BY name, amount DESC; VisiData: sort-asc on name, input ␟<name␟>amount
  numeric  final order [amount desc, name asc]; tabdeck: `sort name`, `sort amount desc`;
           SQL: ORDER BY amount DESC, name; VisiData: sort-desc on amount, input ␟>amount␟<name

In tabdeck each `sort` makes its column the primary key and keeps the previous order as the
secondary one, so the last command names the primary key. VisiData replays one sort whose
cmdlog input (the form VisiData itself records) is the whole ordering, `<` ascending and `>`
descending, primary first. Names compare by code point (UTF-8 bytes) in every tool. The
generated amounts never repeat (gen_bench_csv.py), so both orders are total: no tool's
tie-breaking can change the rows (in the numeric order, name only breaks ties in principle).

Each order's files in the work folder carry its key (`tabdeck-numeric-commands.txt`, ...) and
the second-time tool keeps one state folder per order, so two orders never share a file.
"""
import csv
import json
import os
import shutil
from collections import namedtuple
from decimal import Decimal

import proctree

ROWS_SHOWN = 50

Order = namedtuple("Order", [
    "key",           # --orders and the work files' names: "text", "numeric"
    "title",         # the figures' labels: "{rows} {title}: tabdeck time", ...
    "raw_prefix",    # results.json: figs.raw["{raw_prefix}_{rows}"]
    "tabdeck",       # tabdeck's command lines, before `show 50`
    "sql",           # the ORDER BY clause of DuckDB and sqlite3
    "vd_longname",   # VisiData's sort command (cmdlog longname) ...
    "vd_column",     # ... on this column (the primary key) ...
    "vd_ordering",   # ... with this input: the whole ordering, which replay applies
    "python_key",    # the reference order of normalized rows (id, name, cents), for expected_rows
])

ORDERS = {
    "text": Order(
        key="text", title="sort task", raw_prefix="task",
        tabdeck=("sort amount desc", "sort name"),
        sql="name, amount DESC",
        vd_longname="sort-asc", vd_column="name", vd_ordering="\u241f<name\u241f>amount",
        python_key=lambda r: (r[1], -r[2])),
    "numeric": Order(
        key="numeric", title="numeric sort task", raw_prefix="task_numeric",
        tabdeck=("sort name", "sort amount desc"),
        sql="amount DESC, name",
        vd_longname="sort-desc", vd_column="amount", vd_ordering="\u241f>amount\u241f<name",
        python_key=lambda r: (-r[2], r[1])),
}
TEXT = ORDERS["text"]


def raw_key(order, rows):
    """The order's results in results.json: `task_{rows}` (text, as before), `task_numeric_{rows}`."""
    return "%s_%d" % (order.raw_prefix, rows)


def cents(value):
    """An amount (string, int or float from JSON) as integer cents."""
    return int((Decimal(str(value)) * 100).to_integral_value())


def normalized(id_, name, amount):
    return (str(int(Decimal(str(id_)))), name, cents(amount))


class Tabdeck:
    """`tabdeck --line --output json` with the csv plugin; the order's sort commands (text:
    `sort amount desc`, `sort name`; numeric: `sort name`, `sort amount desc`), then `show 50`."""
    name = "tabdeck"

    def __init__(self, tabdeck, csv_plugin, order=TEXT):
        self.tabdeck, self.csv_plugin, self.order = tabdeck, csv_plugin, order

    def path(self, work, name):
        """A work file of this order's: `tabdeck-numeric-commands.txt`, ..."""
        return os.path.join(work, "tabdeck-%s-%s" % (self.order.key, name))

    def prepare(self, work, data):
        config = self.path(work, "config.json")
        with open(config, "w") as f:
            json.dump({"tabs": [{"id": "bench", "title": "bench", "command": [self.csv_plugin],
                                 "args": {"path": data}}]}, f)
        script = self.path(work, "commands.txt")
        with open(script, "w") as f:
            f.write("".join(line + "\n" for line in self.order.tabdeck) + "show %d\n" % ROWS_SHOWN)
        return config, script

    def run(self, work, data, run_index):
        config, script = self.prepare(work, data)
        state = self.path(work, "state-%d" % run_index)
        shutil.rmtree(state, ignore_errors=True)
        out = self.path(work, "out.jsonl")
        m = proctree.run([self.tabdeck, "--line", "--output", "json", "--config", config, "--state-dir", state],
                         stdin_path=script, stdout_path=out)
        shutil.rmtree(state, ignore_errors=True)
        return m, out

    @staticmethod
    def rows(out):
        with open(out, encoding="utf-8") as f:
            for line in f:
                doc = json.loads(line)
                if doc.get("command", "").startswith("show"):
                    if not doc.get("ok"):
                        raise RuntimeError("tabdeck: show failed: %s" % doc.get("error"))
                    return [normalized(r["cells"]["id"], r["cells"]["name"], r["cells"]["amount"])
                            for r in doc["result"]["rows"]]
        raise RuntimeError("tabdeck printed no show result (see %s)" % out)


class TabdeckReopen(Tabdeck):
    """The same task the second time: one state folder per order kept across runs (primed by an
    untimed first run), so the plugin finds the sort index it persisted (docs/PERFORMANCE.md,
    figure 1)."""
    name = "tabdeck (reopen)"

    def run(self, work, data, run_index):
        config, script = self.prepare(work, data)
        state = self.path(work, "state-reopen")
        out = self.path(work, "reopen-out.jsonl")
        argv = [self.tabdeck, "--line", "--output", "json", "--config", config, "--state-dir", state]
        if run_index == 0:
            shutil.rmtree(state, ignore_errors=True)
            self.prime(argv, script, os.path.join(state, "cache", "csv-sort"))
        return proctree.run(argv, stdin_path=script, stdout_path=out), out

    @staticmethod
    def prime(argv, script, cache, timeout=120):
        """An untimed first session that stays open until the csv plugin has persisted the
        order (its first page may come from a partial sort, the full order following in the
        background, which a batch run that ends at once would never wait for)."""
        import subprocess
        import time
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(script, "rb") as f:
            proc.stdin.write(f.read())
        proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.isdir(cache) and any(n.endswith(".sortidx") for n in os.listdir(cache)):
                break
            time.sleep(0.05)
        proc.stdin.close()
        proc.wait()


class VisiData:
    """`vd --batch` replaying a .vdj command log: type-float on amount, one sort with the order's
    whole ordering as its input (the cmdlog form VisiData itself records; text: sort-asc on name
    with ␟<name␟>amount, numeric: sort-desc on amount with ␟>amount␟<name; on replay the input
    alone decides the ordering), then the first 50 rows selected and pushed as their own sheet,
    which `-o` saves as CSV."""
    name = "VisiData"

    def __init__(self, vd, order=TEXT):
        self.vd, self.order = vd, order

    def commands(self, data):
        sheet = os.path.splitext(os.path.basename(data))[0]
        o = self.order
        return [
            {"sheet": "", "col": "", "row": "", "longname": "open-file", "input": data},
            {"sheet": sheet, "col": "amount", "row": "", "longname": "type-float", "input": ""},
            {"sheet": sheet, "col": o.vd_column, "row": "", "longname": o.vd_longname, "input": o.vd_ordering},
            {"sheet": sheet, "col": "", "row": "", "longname": "go-row-number", "input": str(ROWS_SHOWN)},
            {"sheet": sheet, "col": "", "row": "", "longname": "select-before", "input": ""},
            {"sheet": sheet, "col": "", "row": "", "longname": "dup-selected", "input": ""},
        ]

    def run(self, work, data, run_index):
        script = os.path.join(work, "visidata-%s.vdj" % self.order.key)
        with open(script, "w", encoding="utf-8") as f:
            for c in self.commands(data):
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        out = os.path.join(work, "visidata-%s-out.csv" % self.order.key)
        if os.path.exists(out):
            os.remove(out)
        m = proctree.run([self.vd, "--batch", "--config", os.devnull, "--play", script, "--output", out],
                         cwd=work)
        return m, out

    @staticmethod
    def rows(out):
        if not os.path.exists(out):
            raise RuntimeError("VisiData wrote no output file %s" % out)
        with open(out, encoding="utf-8", newline="") as f:
            return [normalized(r["id"], r["name"], r["amount"]) for r in csv.DictReader(f)]


class SQLite:
    """The sqlite3 shell on an in-memory database (its default with no file): a typed table,
    `.import` of the CSV, then `SELECT * ... ORDER BY <the order's clause> LIMIT 50` as CSV
    (text: `name, amount DESC`; numeric: `amount DESC, name`)."""
    name = "sqlite3"

    def __init__(self, sqlite3, order=TEXT):
        self.sqlite3, self.order = sqlite3, order

    def run(self, work, data, run_index):
        script = os.path.join(work, "sqlite-%s.sql" % self.order.key)
        with open(script, "w") as f:
            f.write("CREATE TABLE t(id INTEGER, name TEXT, amount REAL, date TEXT, category TEXT, note TEXT);\n"
                    ".import --csv --skip 1 '%s' t\n"
                    ".headers on\n.mode csv\n"
                    "SELECT * FROM t ORDER BY %s LIMIT %d;\n"
                    % (data.replace("'", "''"), self.order.sql, ROWS_SHOWN))
        out = os.path.join(work, "sqlite-%s-out.csv" % self.order.key)
        m = proctree.run([self.sqlite3, "-bail"], stdin_path=script, stdout_path=out)
        return m, out

    @staticmethod
    def rows(out):
        with open(out, encoding="utf-8", newline="") as f:
            return [normalized(r["id"], r["name"], r["amount"]) for r in csv.DictReader(f)]


class DuckDB:
    """The DuckDB command-line shell (PyPI `duckdb-cli`) on an in-memory database (its default
    with no file): `read_csv` of the file with its own type detection (amount is DOUBLE), then
    `SELECT * ... ORDER BY <the order's clause> LIMIT 50` as CSV (text: `name, amount DESC`;
    numeric: `amount DESC, name`). DuckDB uses every core."""
    name = "DuckDB"

    def __init__(self, duckdb, order=TEXT):
        self.duckdb, self.order = duckdb, order

    def run(self, work, data, run_index):
        script = os.path.join(work, "duckdb-%s.sql" % self.order.key)
        with open(script, "w") as f:
            f.write(".headers on\n.mode csv\n"
                    "SELECT * FROM read_csv('%s', header = true) ORDER BY %s LIMIT %d;\n"
                    % (data.replace("'", "''"), self.order.sql, ROWS_SHOWN))
        out = os.path.join(work, "duckdb-%s-out.csv" % self.order.key)
        m = proctree.run([self.duckdb, "-bail", ":memory:"], stdin_path=script, stdout_path=out)
        return m, out

    @staticmethod
    def rows(out):
        with open(out, encoding="utf-8", newline="") as f:
            return [normalized(r["id"], r["name"], r["amount"]) for r in csv.DictReader(f)]


class LineCount:
    """`wc -l FILE`, whole process: one read of the file, the floor the task is measured
    against (issue 28: the sort task at 10M rows within 3× of it). It prints no rows."""
    name = "wc -l"

    def __init__(self, order=TEXT):
        self.order = order

    def run(self, work, data, run_index):
        return proctree.run(["wc", "-l", data]), None

    @staticmethod
    def rows(out):
        return None


def expected_rows(data, order=TEXT):
    """The reference answer in `order` computed here (Python, code point order), for small files only."""
    with open(data, encoding="utf-8", newline="") as f:
        rows = [normalized(r["id"], r["name"], r["amount"]) for r in csv.DictReader(f)]
    rows.sort(key=order.python_key)
    return rows[:ROWS_SHOWN]
