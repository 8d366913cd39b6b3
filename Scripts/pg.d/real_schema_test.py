"""The PostgreSQL plugin against a schema shaped like people's (Scripts/pg.d/real_schema.sql),
each check beside psql on the same server (issue 23). Run by Scripts/test-postgres once the
schema is loaded:

    python3 Scripts/pg.d/real_schema_test.py PLUGIN URL PORT ROWS

The plugin is spoken to over its pipes (Scripts/bench.d/pg_bench.py's driver); psql gives the
reference: its text of every value, its order for every sort. Prints one line per check and
`real schema: N passed, M failed`; exits 1 if any failed.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench.d"))
import pg_bench  # noqa: E402

PLUGIN, URL, PORT, ROWS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
NULL = "\x01NULL"
passed, failed = 0, []


def check(what, condition, detail=""):
    global passed
    if condition:
        passed += 1
        print(f"  ✓ {what}")
    else:
        failed.append(what)
        print(f"  ✗ {what}" + (f": {detail}" if detail else ""), file=sys.stderr)


def psql(sql, user="tabdeck"):
    """Rows of psql's own text for each value (NULL as the NULL marker)."""
    import subprocess
    r = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-F", "\x1f", "-R", "\x1e", "-P", f"null={NULL}",
                        "-h", "127.0.0.1", "-p", PORT, "-U", user, "-d", "postgres", "-c", sql],
                       capture_output=True, text=True, check=True)
    out = r.stdout.rstrip("\n")
    return [rec.split("\x1f") for rec in out.split("\x1e")] if out else []


class Plugin(pg_bench.Plugin):
    """The driver, keeping every notification."""

    def __init__(self, user=None):
        env = dict(os.environ)
        super().__init__(PLUGIN, env)
        self.notes = []
        self.url = URL if user is None else URL.replace("tabdeck@", f"{user}@")
        self.request("initialize", {"protocolVersion": 1, "host": {"name": "real-schema", "version": "0"}, "capabilities": {}})

    def read(self, deadline):
        msg = super().read(deadline)
        if "method" in msg:
            self.notes.append(msg)
        return msg

    def open(self, table, **args):
        return self.request("open", {"args": dict({"url": self.url, "table": table}, **args)})

    def page(self, offset, sort, limit=1000, filter=None):
        r = self.request("rows", {"table": "root", "offset": offset, "limit": limit, "sort": sort, "filter": filter,
                                  "generation": 1})
        return r

    def all_rows(self, sort, total):
        rows, offset = [], 0
        while offset < total:
            got = self.page(offset, sort)["rows"]
            if not got:
                break
            rows += got
            offset += len(got)
        return rows


class section:
    """A part of the test with a plugin of its own (connected as `user`), closed at its end: an
    exception in it (an error from the plugin, psql refusing a sort the plugin allowed) is one
    failed check naming the part, and the next part still runs."""

    def __init__(self, name, user=None):
        self.name, self.user, self.plugin = name, user, None

    def __enter__(self):
        self.plugin = Plugin(user=self.user)
        return self.plugin

    def __exit__(self, kind, error, trace):
        self.plugin.close()
        if error is not None:
            check(f"{self.name}: ran to the end", False, f"{kind.__name__}: {str(error)[:300]}")
        return True


def text_of(cell):
    """A cell as psql writes the value."""
    if cell is None:
        return NULL
    if cell is True:
        return "t"
    if cell is False:
        return "f"
    return str(cell) if not isinstance(cell, float) else cell


def same_value(cell, shown):
    if isinstance(cell, float):
        return shown != NULL and float(shown) == cell and (str(cell).startswith("-") == shown.startswith("-"))
    if isinstance(shown, str) and shown.startswith("\\x") and len(shown) > 66:
        return cell == shown[:66] + f"… ({(len(shown) - 2) // 2} bytes)"
    return text_of(cell) == shown


def order_sql(sort, key):
    parts = [f'"{k["column"]}" {k["direction"].upper()}' for k in sort]
    last = sort[-1]["direction"].upper() if sort else "ASC"
    return ", ".join(parts + [f"{k} {last}" for k in key if all(k.strip('"') != s["column"] for s in sort)])


# 1. Every value of every kind, as psql shows it; numbers exactly (issue 23 points 1 and 7).
with section("every kind of value") as p:
    d = p.open("store.kinds")
    names = [c["id"] for c in d["columns"]]
    want = {r[0]: r for r in psql(f"SELECT {', '.join(names)} FROM store.kinds ORDER BY id")}
    got = p.page(0, [], limit=100)["rows"]
    bad = [(row["id"], names[i], cell, want[row["id"]][i]) for row in got for i, cell in enumerate(row["cells"])
           if not same_value(cell, want[row["id"]][i])]
    check("every kind of value shows as psql shows it (inet, cidr, interval, money, ranges, uuid, bytea, point, json, "
          "timestamptz, numeric past a double, NaN, Infinity, -0)", not bad and len(got) == len(want), f"{bad[:4]}")
    cells = {row["id"]: dict(zip(names, row["cells"])) for row in got}
    check("numeric(30,8) past a double keeps its digits", cells["1"]["exact"] == "1234444433332222.44434322"
          and cells["2"]["exact"] == "123456789012.12345678", f'{cells["1"]["exact"]!r}, {cells["2"]["exact"]!r}')
    check("numeric keeps its scale (3.00, not 3) and its NaN and infinities",
          cells["2"]["free"] == "3.00" and cells["3"]["free"] == "NaN" and cells["5"]["free"] == "-Infinity", f"{cells['2']['free']!r}")
    check("inet shows as psql shows it (10.0.0.153, not 10.0.0.153/32)", cells["1"]["addr"] == "10.0.0.153", repr(cells["1"]["addr"]))
    types = {c["id"]: c for c in d["columns"]}
    check("exact and float columns are decimal, timestamptz and date are dates", types["exact"]["type"] == "decimal"
          and types["ratio"]["type"] == "decimal" and types["at"]["type"] == "date" and types["day"]["type"] == "date")
    check("columns the server cannot order (point, json) are not sortable; inet, interval, money, ranges sort by the server's order",
          types["spot"].get("sortable") is False and types["doc"].get("sortable") is False
          and all(types[c].get("order") == "source" for c in ["addr", "net", "span", "price", "period"]))
    check("every column declares the server's null order (largest)", all(c.get("nulls") == "largest" for c in d["columns"]))
    # Every sortable column in both directions: the same rows in the same order as psql's ORDER BY the column.
    wrong = []
    for c in d["columns"]:
        if c.get("sortable") is False or c["id"] == "id":
            continue
        for direction in ["asc", "desc"]:
            sort = [{"column": c["id"], "direction": direction}]
            try:
                ids = [r["id"] for r in p.page(0, sort, limit=100)["rows"]]
                ref = [r[0] for r in psql(f"SELECT id FROM store.kinds ORDER BY {order_sql(sort, ['id'])}")]
            except Exception as e:  # noqa: BLE001 (a sort the plugin offers that the server cannot do)
                ids, ref = None, str(e)[-120:]
            if ids != ref:
                wrong.append((c["id"], direction, ids, ref))
    check("every type sorts in the server's own order, both directions (numeric with NaN, inet, interval, money, "
          "ranges, uuid, timestamptz)", not wrong, f"{wrong[:2]}")

# 2. The orders table: an ENUM in its declared order, exact amounts with NULLs, timestamptz,
# every order against psql's over the whole table, deep pages, an estimate (points 2 and 7).
with section("the orders table") as p:
    d = p.open("store.orders")
    types = {c["id"]: c for c in d["columns"]}
    check("an ENUM is the protocol's enum with the declared values in order",
          types["status"]["type"] == "enum" and types["status"]["values"] == ["pending", "paid", "shipped", "cancelled"])
    check("the planner's estimate is marked as an estimate", d.get("totalIsEstimate") is True and d.get("total") == ROWS,
          f"total {d.get('total')}, totalIsEstimate {d.get('totalIsEstimate')}")
    page = p.page(0, [], limit=100)
    first = page["rows"]
    amounts = {r["id"]: r["cells"][2] for r in first}
    notes = {r["id"]: r["cells"][6] for r in first}
    cut = {r["id"]: r.get("cut") for r in first}
    line = len(json.dumps({"jsonrpc": "2.0", "id": 1, "result": page}, ensure_ascii=False, separators=(",", ":")).encode())
    size, digest = psql("SELECT octet_length(note), encode(sha256(convert_to(note, 'UTF8')), 'hex') FROM store.orders WHERE id = 42")[0]
    check("a page holding a 5 MB value comes under 4 MiB, the value cut with the protocol's marker of its size (issue 23 point 6)",
          len(first) == 100 and line < 4 * 1024 * 1024 and len(notes["42"].encode()) <= 65536
          and cut["42"] == {"note": int(size)} and cut["41"] is None,
          f"{len(first)} rows, {line} bytes, note of 42: {len(notes.get('42', '').encode())} bytes, cut {cut.get('42')}")
    whole, parts = "", 0
    while True:
        got = p.request("cell", {"table": "root", "row": "42", "column": "note", "offset": len(whole.encode()), "length": 1048576})
        parts += 1
        whole += got["text"]
        if len(whole.encode()) >= got["size"] or not got["text"] or parts > 40:
            break
    check("the whole-cell fetch returns exactly psql's value (length and sha256), in parts under 4 MiB",
          len(whole.encode()) == int(size) and hashlib.sha256(whole.encode()).hexdigest() == digest and notes["42"] and whole.startswith(notes["42"]),
          f"{len(whole.encode())} bytes in {parts} parts, psql {size}")
    # Pages of long notes are cut short with `more`, not failed and not taken for the end.
    psql("CREATE TABLE store.long_notes AS SELECT g AS id, repeat('x', 60000) AS note FROM generate_series(1, 100) g; "
         "ALTER TABLE store.long_notes ADD PRIMARY KEY (id)")
    try:
        q = Plugin()
        q.open("store.long_notes")
        got, replies = [], 0
        while len(got) < 100 and replies < 10:
            r = q.page(len(got), [], limit=100 - len(got))
            replies += 1
            got += r["rows"]
            if not r.get("more"):
                break
        q.close()
        check("a page of 100 rows of 60 KB comes short with more, and the rest joins it (issue 23 point 6)",
              [int(r["id"]) for r in got] == list(range(1, 101)) and replies > 1, f"{len(got)} rows in {replies} replies")
    finally:
        psql("DROP TABLE store.long_notes")
    # `export` writes the value whole (the host fetches the cut cell).
    with tempfile.TemporaryDirectory() as folder:
        config = os.path.join(folder, "config.json")
        with open(config, "w") as f:
            json.dump({"tabs": [{"id": "orders", "title": "Orders", "command": [PLUGIN],
                                 "args": {"url": URL, "table": "store.orders"}}]}, f)
        tabdeck = os.path.join(os.path.dirname(PLUGIN), "tabdeck")
        out = os.path.join(folder, "orders.json")
        r = subprocess.run([tabdeck, "--line", "--config", config, "--state-dir", os.path.join(folder, "state")],
                           input=f"filter five megabytes\nexport {out}\n", capture_output=True, text=True, timeout=300)
        exported = json.load(open(out, encoding="utf-8")) if os.path.exists(out) else []
        note = exported[0].get("note", "") if len(exported) == 1 else ""
        check("export writes the 5 MB value whole, exactly psql's (length and sha256)",
              len(note.encode()) == int(size) and hashlib.sha256(note.encode()).hexdigest() == digest,
              f"{len(exported)} rows, {len(note.encode())} bytes; {r.stdout[-200:]} {r.stderr[-300:]}")
    check("amounts keep their scale (959.50)", amounts.get("11") == "959.50", repr(amounts.get("11")))
    for sort in ([{"column": "status", "direction": "asc"}], [{"column": "status", "direction": "desc"}],
                 [{"column": "amount", "direction": "asc"}], [{"column": "amount", "direction": "desc"}],
                 [{"column": "created", "direction": "desc"}],
                 [{"column": "status", "direction": "asc"}, {"column": "amount", "direction": "desc"}]):
        ids = [r["id"] for r in p.all_rows(sort, ROWS)]
        ref = [r[0] for r in psql(f"SELECT id FROM store.orders ORDER BY {order_sql(sort, ['id'])}")]
        first = next((i for i, (a, b) in enumerate(zip(ids, ref)) if a != b), None)
        check(f"every row sorted by {', '.join(k['column'] + ' ' + k['direction'] for k in sort)} in psql's order "
              f"({len(ref):,} rows, nulls and ties included)", ids == ref, f"{len(ids)} rows, first difference at {first}")
    exact = p.wait_total()
    counted = [n["params"] for n in p.notes if n.get("method") == "invalidate" and "total" in n.get("params", {})]
    check("the exact count arrives as an invalidate that changes no rows (\"rows\": []: the host keeps its pages)",
          exact == ROWS and counted and counted[-1].get("rows") == [], f"{counted[-1:]}")
    sort = [{"column": "created", "direction": "asc"}]
    for offset in [ROWS - 100, ROWS // 2, ROWS // 2 - 100]:
        ids = [r["id"] for r in p.page(offset, sort, limit=100)["rows"]]
        ref = [r[0] for r in psql(f"SELECT id FROM store.orders ORDER BY created, id LIMIT 100 OFFSET {offset}")]
        check(f"a jump to row {offset:,} sorted by created equals psql's OFFSET page", ids == ref)

# 3. A role in Europe/Oslo: instants in order across the end of summer time, shown in its zone.
with section("a role in Europe/Oslo", user="oslo") as p:
    p.open("store.orders")
    sort = [{"column": "created", "direction": "asc"}]
    got = p.all_rows(sort, ROWS)
    ref = psql("SELECT id, created FROM store.orders ORDER BY created, id", user="oslo")
    check("timestamptz in the role's time zone (Europe/Oslo) as psql shows it, chronological across the DST change",
          [(r["id"], r["cells"][3]) for r in got] == [(a, b) for a, b in ref],
          f"{[(r['id'], r['cells'][3]) for r in got[:2]]} vs {ref[:2]}")
    check("both 02:30 of the night the clocks go back are there, +02 first",
          any(r["cells"][3].startswith("2025-10-26 02:") and r["cells"][3].endswith("+02") for r in got)
          and any(r["cells"][3].startswith("2025-10-26 02:") and r["cells"][3].endswith("+01") for r in got))

# 4. A partitioned table without a primary key: every row exactly once under every sort (point 4).
with section("a partitioned table") as p:
    d = p.open("store.events")
    total = int(psql("SELECT count(*) FROM store.events")[0][0])
    want = sorted(tuple(r) for r in psql("SELECT at, kind, n FROM store.events"))
    for sort in ([], [{"column": "kind", "direction": "asc"}], [{"column": "n", "direction": "desc"}],
                 [{"column": "at", "direction": "asc"}, {"column": "kind", "direction": "desc"}]):
        rows = p.all_rows(sort, total)
        ids = [r["id"] for r in rows]
        cells = sorted(tuple(text_of(c) for c in r["cells"]) for r in rows)
        check(f"partitioned, no primary key, sorted by {sort or 'nothing'}: {total:,} rows, each exactly once",
              len(ids) == total and len(set(ids)) == total and cells == want,
              f"{len(ids)} rows, {len(set(ids))} distinct ids")

# 5. Views: without a key the ids are positions, declared unstable; with a declared key, stable.
with section("views") as p:
    d = p.open("store.recent")
    check("a view without a key declares its row ids unstable", d.get("rowIds") == "unstable", f"{d.get('rowIds')}")
with section("views") as p:
    d = p.open("store.recent", key=["id"])
    ids = [r["id"] for r in p.page(0, [{"column": "amount", "direction": "desc"}], limit=600)["rows"]]
    ref = [r[0] for r in psql("SELECT id FROM store.recent ORDER BY amount DESC, id DESC")]
    check("a view with a key in the args: stable ids (its key), in psql's order", d.get("rowIds", "stable") == "stable" and ids == ref)

# 6. A role with column grants: the table opens with the columns it may read, and says so.
with section("column grants", user="clerk") as p:
    d = p.open("store.orders")
    rows = p.page(0, [{"column": "created", "direction": "desc"}], limit=5)["rows"]
    said = [n for n in p.notes if n.get("method") == "status" and "left out" in n["params"].get("text", "")]
    check("columns without a grant are left out (the others open, sorted), with a note",
          [c["id"] for c in d["columns"]] == ["id", "status", "created"] and len(rows) == 5 and said,
          f"{[c['id'] for c in d['columns']]}, {len(rows)} rows, notes {said}")
    # A grant taken away while the table is open: the page's error names the table and the rows asked.
    psql("REVOKE SELECT (status) ON store.orders FROM clerk")
    try:
        try:
            p.page(100, [], limit=100)
            message = "(no error)"
        except RuntimeError as e:
            message = str(e)
    finally:
        psql("GRANT SELECT (status) ON store.orders TO clerk")
    check("a permission error names the table and the rows asked (issue 23 point 7)",
          "permission denied" in message and "store.orders, rows 101–200 asked" in message, message)

# 7. A query that runs long: the plugin says it still works (point 3).
with section("a long query") as p:
    p.open("store.slow")
    p.notes.clear()
    rows = p.page(0, [], limit=10)["rows"]
    # The background count of the view reports its own progress ("counting rows of ..."): only
    # the page's query's heartbeats count here.
    beats = [n for n in p.notes if n.get("method") == "progress" and not n["params"].get("message", "").startswith("counting")]
    check("a 5-second query sends progress while it runs (the host's 10 s silence timer never fires)",
          len(rows) == 1 and len(beats) >= 2, f"{len(beats)} progress notifications")

# 8. describe, sql and the names sql reads, against psql on the same table (issue 25).
with section("sql names of the catalog") as p:
    catalog = p.request("open", {"args": {"url": p.url}})
    check("the catalog names its tables for sql completion (sqlNames)", "store.orders" in catalog.get("sqlNames", []),
          str(catalog.get("sqlNames", [])[:10]))
with section("describe and sql") as p:
    from decimal import Decimal
    d = p.open("store.orders")
    check("a table names itself for sql completion", d.get("sqlNames") == ["store.orders"], str(d.get("sqlNames")))
    stats = p.request("describe", {"table": "root", "filter": None})
    rows = p.request("rows", {"table": stats["table"], "offset": 0, "limit": 100, "sort": [], "filter": None, "generation": 1})["rows"]
    ids = [c["id"] for c in stats["columns"]]
    amount = dict(zip(ids, next(r["cells"] for r in rows if r["id"] == "amount")))
    want = psql("SELECT count(amount), count(*) - count(amount), count(DISTINCT amount), min(amount), max(amount), "
                "percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) FROM store.orders")[0]
    got = [amount["count"], amount["nulls"], amount["distinct"], amount["min"], amount["max"], amount["median"]]
    check("describe: amount's count, nulls, distinct, min, max and median equal psql's",
          [int(x) for x in got[:3]] == [int(x) for x in want[:3]] and all(Decimal(str(a)) == Decimal(b) for a, b in zip(got[3:], want[3:])),
          f"{got} against psql {want}")
    kept = p.request("describe", {"table": "root", "filter": None, "where": [{"column": "status", "op": "=", "value": "paid"}]})
    krows = p.request("rows", {"table": kept["table"], "offset": 0, "limit": 100, "sort": [], "filter": None, "generation": 1})["rows"]
    status = dict(zip(ids, next(r["cells"] for r in krows if r["id"] == "status")))
    paid = int(psql("SELECT count(*) FROM store.orders WHERE status = 'paid'")[0][0])
    check("describe under where status = paid counts psql's rows", int(status["count"]) == paid and status["distinct"] == 1,
          f"{status['count']}, {status['distinct']} distinct against {paid}")
    q = p.request("query", {"sql": "SELECT status, count(*) AS n FROM store.orders GROUP BY status ORDER BY status"})
    qrows = p.request("rows", {"table": q["table"], "offset": 0, "limit": 100, "sort": [], "filter": None, "generation": 1})["rows"]
    want = psql("SELECT status, count(*) FROM store.orders GROUP BY status ORDER BY status")
    check("sql: a GROUP BY equals psql's", [[str(c) for c in r["cells"]] for r in qrows] == want, f"{qrows[:4]} against {want}")
    try:
        p.request("query", {"sql": "DELETE FROM store.orders WHERE id = 1"})
        refused = "(no error)"
    except RuntimeError as e:
        refused = str(e)
    left = psql("SELECT count(*) FROM store.orders WHERE id = 1")[0][0]
    check("sql runs read-only: a DELETE is refused by the server and deletes nothing",
          "read-only" in refused and left == "1", f"{refused}; row 1 left: {left}")
    try:
        p.request("query", {"sql": "WITH d AS (DELETE FROM store.orders WHERE id = 2 RETURNING id) SELECT * FROM d"})
        refused = "(no error)"
    except RuntimeError as e:
        refused = str(e)
    left = psql("SELECT count(*) FROM store.orders WHERE id = 2")[0][0]
    check("sql runs read-only: a data-modifying WITH is refused by the server and deletes nothing",
          refused != "(no error)" and left == "1", f"{refused}; row 2 left: {left}")
    typed = p.request("query", {"sql": "SELECT id, id, amount, created, status, tags, meta FROM store.orders WHERE id = 11"})
    trow = p.request("rows", {"table": typed["table"], "offset": 0, "limit": 1, "sort": [], "filter": None, "generation": 1})["rows"][0]
    want = psql("SELECT id, id, amount, created, status, tags, meta FROM store.orders WHERE id = 11")[0]
    check("sql: every type of value as psql shows it (duplicate column names, numeric, timestamptz, enum, array, jsonb)",
          [c["id"] for c in typed["columns"]] == ["id", "id_2", "amount", "created", "status", "tags", "meta"]
          and [str(c) for c in trow["cells"][:3]] == want[:3] and trow["cells"][4:] == want[4:],
          f"{trow['cells']} against {want}")

with section("describe every kind of value") as p:
    d = p.open("store.kinds")
    stats = p.request("describe", {"table": "root", "filter": None})
    check("describe answers for every kind of column (jsonb, json, uuid, bytea, arrays, ranges, geometry ...)",
          stats["total"] == len(d["columns"]), f"{stats['total']} rows for {len(d['columns'])} columns")

def raw_pages(table, orders, env_extra):
    """Every `rows` answer of `table` under `orders` as the plugin's raw bytes up to the end of
    its rows (sha256; the total after them is an estimate or exact as the count's timing
    falls), and how many: the plugin run with `env_extra`."""
    env = dict(os.environ, **env_extra)
    proc = subprocess.Popen([PLUGIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    digest, lines, n = hashlib.sha256(), 0, 0

    def ask(method, params):
        nonlocal n
        n += 1
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n").encode())
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the plugin exited ({proc.wait()})")
            if json.loads(line).get("id") == n:
                return line

    try:
        ask("initialize", {"protocolVersion": 1, "host": {"name": "real-schema", "version": "0"}, "capabilities": {}})
        ask("open", {"args": {"url": URL, "table": table}})
        for sort, filter in orders:
            for offset in (0, 1000, 2000, ROWS // 2, ROWS - 500):
                line = ask("rows", {"table": "root", "offset": offset, "limit": 1000, "sort": sort, "filter": filter,
                                    "generation": 1})
                # A quote inside a cell is escaped, so `],"total":` ends the rows.
                end = line.rfind(b'],"total":')
                digest.update(line if end < 0 else line[:end])
                lines += 1
    finally:
        proc.stdin.close()
        proc.wait()
    return digest.hexdigest(), lines


# Pages are written straight from the server's bytes (PGRowWriter); TABDECK_PG_PAGES=values
# makes them of values as before. The two must be the same bytes: every kind of value, NULLs,
# emoji, tabs and newlines, the 5 MB note (that page falls back), a filter, a partitioned table.
asc = lambda c: {"column": c, "direction": "asc"}  # noqa: E731
desc = lambda c: {"column": c, "direction": "desc"}  # noqa: E731
for table, orders in (
        ("store.orders", [([], None), ([asc("created")], None), ([desc("amount")], None), ([asc("note")], None),
                          ([asc("status"), desc("amount")], None), ([asc("created")], "emoji")]),
        ("store.kinds", [([], None), ([desc("exact")], None), ([asc("addr")], None)]),
        ("store.events", [([], None)])):
    written, values = raw_pages(table, orders, {}), raw_pages(table, orders, {"TABDECK_PG_PAGES": "values"})
    check(f"{table}: pages written from the server's bytes are the bytes of pages made of values ({written[1]} pages)",
          written == values, f"{written} against {values}")

print(f"real schema: {passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
