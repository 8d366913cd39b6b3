"""`find` (PROTOCOL.md 11.15) of the PostgreSQL plugin against a real server. Run by
Scripts/test-postgres once people (1,000,000 rows; its first 200,000 are copied to find_people,
index on (age, id)) and the real schema (Scripts/pg.d/real_schema.sql: store.events, partitioned
without a primary key) are loaded:

    python3 Scripts/pg.d/find_test.py PLUGIN URL PORT

Every answer is checked against a reference that does not use `find`: the rows holding the text
(psql's, or the plugin's own filter) placed by the plugin's `rows` pages, then looked through
as FindRequest.positions says. Prints one line per check, the time of a find beside the filter
on people, and `find: N passed, M failed`; exits 1 if any failed.
"""
import json
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench.d"))
import pg_bench  # noqa: E402

PLUGIN, URL, PORT = sys.argv[1], sys.argv[2], sys.argv[3]
passed, failed = 0, []


def check(what, condition, detail=""):
    global passed
    if condition:
        passed += 1
        print(f"  ✓ {what}", flush=True)
    else:
        failed.append(what)
        print(f"  ✗ {what}" + (f": {detail}" if detail else ""), file=sys.stderr, flush=True)


def psql(sql):
    r = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-F", "\x1f", "-h", "127.0.0.1", "-p", PORT,
                        "-U", "tabdeck", "-d", "postgres", "-c", sql], capture_output=True, text=True, check=True)
    return [line.split("\x1f") for line in r.stdout.splitlines()]


class Plugin(pg_bench.Plugin):
    """The driver, keeping every notification; requests carry the sort, filter and where."""

    def __init__(self):
        super().__init__(PLUGIN, dict(os.environ))
        self.notes = []
        self.hello = self.request("initialize", {"protocolVersion": 1, "host": {"name": "find-test", "version": "0"},
                                                 "capabilities": {"progress": True, "cancel": True}})

    def read(self, deadline):
        msg = super().read(deadline)
        if "method" in msg:
            self.notes.append(msg)
        return msg

    def open(self, table):
        d = self.request("open", {"args": {"url": URL, "table": table}})
        return d

    def page(self, offset, limit, sort, filter=None, where=None):
        params = {"table": "root", "offset": offset, "limit": limit, "sort": sort, "filter": filter, "generation": 1}
        if where:
            params["where"] = where
        return self.request("rows", params)["rows"]

    def all_ids(self, sort, filter=None, where=None):
        ids = []
        while True:
            got = self.page(len(ids), 5000, sort, filter, where)
            ids += [r["id"] for r in got]
            if len(got) < 5000:
                return ids

    def find(self, text, start, sort, backward=False, wrap=False, filter=None, where=None, generation=3):
        params = {"table": "root", "text": text, "from": start, "backward": backward, "wrap": wrap, "sort": sort,
                  "filter": filter, "generation": generation}
        if where:
            params["where"] = where
        return self.request("find", params)


def expected(hits, start, backward, wrap, count, generation=3):
    """The answer from the positions holding the text (`hits`: position → id) among `count`
    rows, looked through as FindRequest.positions says: from `start` on (or back from it, or from
    the last row when past the end), then, with `wrap`, from the other end up to `start`."""
    found = None
    ordered = sorted(hits)
    if count > 0 and backward:
        first = min(start, count - 1)
        before = [h for h in ordered if h <= first]
        after = [h for h in ordered if h > first] if wrap and start < count else []
        found = before[-1] if before else (after[-1] if after else None)
    elif count > 0:
        after = [h for h in ordered if h >= start] if start < count else []
        before = [h for h in ordered if h < start] if wrap else []
        found = after[0] if after else (before[0] if before else None)
    if found is None:
        return {"generation": generation, "offset": None}
    return {"generation": generation, "offset": found, "row": hits[found],
            **({"wrapped": True} if (found > start if backward else found < start) else {})}


def answer(result):
    """A result as compared: wrapped only when true, row only with an offset."""
    out = {"generation": result["generation"], "offset": result.get("offset")}
    if out["offset"] is not None:
        out["row"] = result.get("row")
        if result.get("wrapped"):
            out["wrapped"] = True
    return out


# 1. people's first 200,000 rows (rows 2 and 3 deleted by then) in a table of their own with the
# same key and index (each find reads the whole table, and positions do not depend on its size;
# Scripts/bench times find on big tables), sorted on the indexed age (NULL ages last ascending,
# first descending), and on a column without an index (city) with ties.
PEOPLE = "find_people"
psql(f"DROP TABLE IF EXISTS {PEOPLE}; CREATE TABLE {PEOPLE} AS SELECT * FROM people WHERE id <= 200000;"
     f" ALTER TABLE {PEOPLE} ADD PRIMARY KEY (id); CREATE INDEX {PEOPLE}_age ON {PEOPLE} (age, id); ANALYZE {PEOPLE}")
p = Plugin()
check("the plugin declares find", p.hello.get("capabilities", {}).get("find") is True, p.hello)
p.close()

people_sorts = [([{"column": "age", "direction": "asc"}], "age ASC, id ASC"),
                ([{"column": "age", "direction": "desc"}], "age DESC, id DESC"),
                ([{"column": "city", "direction": "desc"}, {"column": "age", "direction": "asc"}], "city DESC, age ASC, id ASC")]
text = "person 19999"  # names person 19999 and person 199990 ... 199999: 11 rows
p = Plugin()
try:
    p.open(f"public.{PEOPLE}")
    for sort, order in people_sorts:
        # psql's positions of the 11 rows, each checked against the plugin's page at that position.
        want = psql(f"SELECT pos, id FROM (SELECT id, name, row_number() OVER (ORDER BY {order}) - 1 AS pos FROM {PEOPLE}) s"
                    f" WHERE name ILIKE '%{text}%' ORDER BY pos")
        hits = {int(pos): rid for pos, rid in want}
        on_pages = {pos: p.page(pos, 1, sort)[0]["id"] for pos in hits}
        check(f"people by {order}: psql's 11 positions of \"{text}\" hold the same rows in the plugin's pages",
              len(hits) == 11 and on_pages == hits, f"{hits} against {on_pages}")
        count = int(psql(f"SELECT count(*) FROM {PEOPLE}")[0][0])
        ordered = sorted(hits)
        # Each find reads the whole table (3-8 s here, and the CI run is bounded): the indexed order
        # gets a start inside and one past the end in every direction, the others one start each
        # way; every combination is on the partitioned table below and in the SQLite tests.
        if order.startswith("age ASC"):
            tries = [(start, backward, wrap) for start in (ordered[5], count + 10) for backward in (False, True) for wrap in (False, True)]
        else:
            tries = [(ordered[3], False, True), (ordered[3], True, False)]
        bad = []
        for start, backward, wrap in tries:
            got = answer(p.find(text, start, sort, backward, wrap))
            want_one = expected(hits, start, backward, wrap, count)
            if got != want_one:
                bad.append(f"from {start} backward={backward} wrap={wrap}: {got} against {want_one}")
        check(f"people by {order}: find forward, backward, wrapping, past the end ({len(tries)} finds)", not bad,
              "; ".join(bad[:3]))

    # Under a filter and a where: positions among the rows kept (the filter: some cell's text).
    sort, order = people_sorts[0]
    where = [{"column": "age", "op": ">=", "value": 40}]
    kept = ("(name ILIKE '%99%' OR city ILIKE '%99%' OR age::text ILIKE '%99%' OR score::text ILIKE '%99%'"
            " OR active::text ILIKE '%99%' OR born::text ILIKE '%99%' OR id::text ILIKE '%99%') AND age >= 40")
    want = psql(f"SELECT pos, id FROM (SELECT id, name, row_number() OVER (ORDER BY {order}) - 1 AS pos FROM {PEOPLE}"
                f" WHERE {kept}) s WHERE name ILIKE '%{text}%' ORDER BY pos")
    count = int(psql(f"SELECT count(*) FROM {PEOPLE} WHERE {kept}")[0][0])
    hits = {int(pos): rid for pos, rid in want}
    on_pages = {pos: p.page(pos, 1, sort, "99", where)[0]["id"] for pos in hits}
    check(f"people under filter \"99\" and age >= 40: psql's {len(hits)} positions hold the plugin's rows",
          len(hits) >= 2 and on_pages == hits, f"{hits} against {on_pages}")
    ordered = sorted(hits)
    bad = []
    tries = [(ordered[0] + 1, False, False), (ordered[-1] + 1, False, True), (ordered[-1] + 1, True, False), (count + 5, True, True)]
    for start, backward, wrap in tries:
        got = answer(p.find(text, start, sort, backward, wrap, filter="99", where=where))
        want_one = expected(hits, start, backward, wrap, count)
        if got != want_one:
            bad.append(f"from {start} backward={backward} wrap={wrap}: {got} against {want_one}")
    check(f"people under a filter and a where: {len(tries)} finds agree", not bad, "; ".join(bad[:3]))
    nothing = answer(p.find("no such text", 500, sort, wrap=True))
    check("people: a text in no row finds nothing, wrapping all the way", nothing == {"generation": 3, "offset": None}, nothing)
    only_number = answer(p.find("999.99", 0, [{"column": "score", "direction": "asc"}]))
    first_score = psql(f"SELECT count(*) FROM {PEOPLE} WHERE score < 999.99")[0][0]
    row = p.page(int(first_score), 1, [{"column": "score", "direction": "asc"}])[0] if only_number["offset"] is not None else None
    check("people: a text only in a numeric column (score 999.99) is found at its first row by score",
          only_number.get("offset") == int(first_score) and row and row["id"] == only_number["row"], f"{only_number}, {row}")

    # The time of a find beside the filter (both read the whole table on the server).
    sort = people_sorts[0][0]
    total = int(psql(f"SELECT count(*) FROM {PEOPLE}")[0][0])
    t = time.perf_counter()
    p.page(0, 100, sort, text)
    filter_ms = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    p.find(text, 0, sort)
    find_ms = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    p.find(text, total - 1_000, sort, backward=True, wrap=True)
    wrap_ms = (time.perf_counter() - t) * 1000
    print(f"    {PEOPLE}, {total:,} rows by age: filter \"{text}\" {filter_ms:.0f} ms, find {find_ms:.0f} ms,"
          f" find backward wrapping {wrap_ms:.0f} ms", flush=True)
finally:
    p.close()
    # Gone again: the later parts of test-postgres see the catalog as it was (people second).
    psql(f"DROP TABLE IF EXISTS {PEOPLE}")

# 2. store.events: partitioned without a primary key (ids (tableoid, ctid), repeated ctids across
# partitions), read whole: every find against a scan of the pages, the plugin's own filter saying
# which rows hold the text.
p = Plugin()
try:
    p.open("store.events")
    rng = random.Random(11)
    sorts = [[], [{"column": "kind", "direction": "desc"}], [{"column": "n", "direction": "asc"}, {"column": "at", "direction": "desc"}],
             [{"column": "at", "direction": "asc"}]]
    texts = ["kind 12", "KIND 3", "99", "2025-06", "kind 1"]
    filters = [None, "kind", "7"]
    compared = bad = found = wrapped = 0
    details = []
    for sort in sorts:
        for flt in filters:
            ids = p.all_ids(sort, flt)
            for text_ in texts:
                holding = set(p.all_ids([], text_))
                hits = {i: rid for i, rid in enumerate(ids) if rid in holding}
                for _ in range(3):
                    start, backward, wrap = rng.randrange(len(ids) + 3), rng.random() < 0.5, rng.random() < 0.5
                    got = answer(p.find(text_, start, sort, backward, wrap, filter=flt))
                    want_one = expected(hits, start, backward, wrap, len(ids))
                    compared += 1
                    found += want_one["offset"] is not None
                    wrapped += bool(want_one.get("wrapped"))
                    if got != want_one:
                        bad += 1
                        details.append(f"sort {sort} filter {flt} text {text_!r} from {start} backward={backward} wrap={wrap}:"
                                       f" {got} against {want_one}")
    check(f"store.events (partitioned, ids (tableoid, ctid)): {compared} finds equal a scan of the pages"
          f" ({found} found, {wrapped} wrapped)", bad == 0 and found > compared // 3 and wrapped > 0, "; ".join(details[:3]))
finally:
    p.close()

# 3. A long find sends progress (the host's 10 s timer), and a cancelled one stops on the server.
p = Plugin()
try:
    p.open("store.slow")  # a view whose query runs 5 s
    p.notes.clear()
    r = answer(p.find("1", 0, [], wrap=True))
    beats = [n for n in p.notes if n.get("method") == "progress" and not n["params"].get("message", "").startswith("counting")]
    check("a 5-second find sends progress while it runs", r.get("offset") == 0 and len(beats) >= 2,
          f"{r}, {len(beats)} progress notifications")
finally:
    p.close()

p = Plugin()
try:
    psql("CREATE OR REPLACE VIEW public.find_endless AS SELECT p.id, g FROM people p CROSS JOIN generate_series(1, 1000) g")
    p.open("public.find_endless")
    p.request("action", {"table": "root", "action": "stop-count", "rows": []})  # its count would run for hours
    p.next_id += 1
    rid = p.next_id
    p.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "find", "params": {
        "table": "root", "text": "no such text", "from": 0, "sort": [{"column": "g", "direction": "desc"}], "filter": None,
        "generation": 1}}).encode() + b"\n")
    p.p.stdin.flush()

    def running():
        return int(psql("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%tabdeck_pos%find_endless%'"
                        " AND pid <> pg_backend_pid()")[0][0])

    deadline = time.monotonic() + 30
    while running() == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    started = running()
    p.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "$/cancel", "params": {"id": rid}}).encode() + b"\n")
    p.p.stdin.flush()
    deadline = time.monotonic() + 30
    while True:
        msg = p.read(deadline)
        if msg.get("id") == rid:
            break
    code = msg.get("error", {}).get("code")
    deadline = time.monotonic() + 30
    while running() > 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    check("a cancelled find answers -32800 and stops on the server", started >= 1 and code == -32800 and running() == 0,
          f"running before {started}, code {code}, running after {running()}")
finally:
    p.close()
    psql("DROP VIEW IF EXISTS public.find_endless")

print(f"find: {passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
