#!/usr/bin/env python3
"""Protocol-level checks of the tabdeck-csv binary (it is an executable target, so the
Swift test targets cannot import it).

usage: smoke_test.py PLUGIN     (prints 'N passed, N failed'; exits 1 on a failure)
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


class Plugin:
    def __init__(self, argv, cwd):
        self.p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.n = 0
        self.notes = []

    def call(self, method, params=None):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method, "params": params or {}}
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.n:
                return m
            self.notes.append(m)

    def notify(self, method, params):
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method, "params": params}) + "\n").encode())
        self.p.stdin.flush()

    def wait_note(self, method, seen=0):
        """The first `method` notification after the first `seen` notes."""
        for m in self.notes[seen:]:
            if m.get("method") == method:
                return m
        while True:
            m = json.loads(self.p.stdout.readline())
            self.notes.append(m)
            if m.get("method") == method:
                return m

    def close(self):
        r = self.call("shutdown")
        self.p.stdin.close()
        return r, self.p.wait(timeout=10)


def where_and_aggregate(p, cols):
    """One `where` and a few `aggregate` exchanges, checked against the file read here."""
    import csv
    import math
    from collections import Counter
    from decimal import Decimal
    with open(os.path.join(HERE, "sample", "people.csv"), newline="", encoding="utf-8") as f:
        data = list(csv.DictReader(f))
    check("where capability", p.init_caps.get("where") and p.init_caps.get("aggregate"), p.init_caps)

    def dec(s):
        return None if s == "" else Decimal(s)
    where = [{"column": "balance", "op": "between", "values": ["1000.00", 2500]},
             {"column": "city", "op": "in", "values": ["London", "Zürich", "london"]}]
    got = p.call("rows", {"table": "root", "offset": 0, "limit": 200, "sort": [], "filter": None, "where": where,
                          "generation": 6})["result"]
    want = [str(i + 1) for i, r in enumerate(data)
            if dec(r["balance"]) is not None and Decimal(1000) <= dec(r["balance"]) <= Decimal(2500)
            and r["city"] in ("London", "Zürich", "london")]
    check("where rows", [r["id"] for r in got["rows"]] == want and got["total"] == len(want), (got.get("total"), len(want)))
    loc = p.call("locate", {"table": "root", "rows": [want[-1]], "sort": [{"column": "balance", "direction": "desc"}],
                            "filter": None, "where": where, "generation": 6})["result"]
    check("locate with where", loc["row"] == want[-1] and 0 <= loc["offset"] < len(want), loc)
    err = p.call("rows", {"table": "root", "offset": 0, "limit": 1, "sort": [], "filter": None,
                          "where": [{"column": "city", "op": "notNull"}, {"column": "age", "op": "=", "value": "abc"}]})
    check("where error names the value", err.get("error", {}).get("code") == -32602
          and "where[1].value" in err["error"]["message"], err)

    # Group by city: counts, percent, cumulative and the natural order (count desc, then city).
    agg = p.call("aggregate", {"table": "root", "filter": None, "where": [], "group": [{"column": "city"}]})["result"]
    counts = Counter(r["city"] for r in data)
    check("aggregate description", agg["rows"] == len(data) and agg["total"] == len(counts)
          and agg["largest"] == max(counts.values())
          and [c["id"] for c in agg["columns"]] == ["city", "count", "percent", "cumulative"], agg)
    page = p.call("rows", {"table": agg["table"], "offset": 0, "limit": 1000, "sort": [], "filter": None, "generation": 1})["result"]
    natural = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].encode()))
    check("aggregate groups", [(r["cells"][0], r["cells"][1]) for r in page["rows"]] == natural, page["rows"][:3])
    running, ok = 0, True
    for r in page["rows"]:
        running += r["cells"][1]
        ok &= math.isclose(r["cells"][2], r["cells"][1] * 100 / len(data)) and math.isclose(r["cells"][3], running * 100 / len(data))
    check("percent and cumulative", ok and math.isclose(page["rows"][-1]["cells"][3], 100))
    sub = p.call("rows", {"table": agg["table"], "offset": 1, "limit": 2, "sort": [{"column": "city", "direction": "asc"}],
                          "filter": "on", "generation": 2})["result"]
    kept = sorted((c for c in counts if "on" in c.lower()), key=lambda c: c.encode())
    check("aggregate table pages, sorts and filters", [r["cells"][0] for r in sub["rows"]] == kept[1:3]
          and sub["total"] == len(kept), sub)

    # Under a where, binned balances: the width by the rule (1, 2, 2.5, 5 × 10^k), nulls a bin of their own.
    where = [{"column": "active", "op": "=", "value": True}]
    binned = p.call("aggregate", {"table": "root", "filter": None, "where": where,
                                  "group": [{"column": "balance", "bins": 5}]})["result"]
    values = [dec(r["balance"]) for r in data if r["active"] == "true"]
    nums = [v for v in values if v is not None]
    raw = (max(nums) - min(nums)) / 5
    width = min(m * Decimal(10) ** e for e in range(-3, 12) for m in (1, 2, Decimal("2.5"), 5) if m * Decimal(10) ** e >= raw)
    want = Counter(None if v is None else (v / width).to_integral_value(rounding="ROUND_FLOOR") * width for v in values)
    page = p.call("rows", {"table": binned["table"], "offset": 0, "limit": 1000, "sort": [], "generation": 1})["result"]
    got = Counter({(None if r["cells"][0] is None else Decimal(str(r["cells"][0]))): r["cells"][1] for r in page["rows"]})
    check("bins", Decimal(str(binned["bins"]["balance"]["width"])) == width and got == want
          and binned["rows"] == len(values), (binned.get("bins"), width, got, want))
    years = p.call("aggregate", {"table": "root", "filter": None, "where": [], "group": [{"column": "joined", "bins": 20}]})["result"]
    page = p.call("rows", {"table": years["table"], "offset": 0, "limit": 1000, "sort": [], "generation": 1})["result"]
    want = Counter(r["joined"][:4] + "-01-01" if r["joined"] else None for r in data)
    check("date bins", years["bins"]["joined"] == {"unit": "year"}
          and Counter({r["cells"][0]: r["cells"][1] for r in page["rows"]}) == want, (years.get("bins"), page["rows"][:3]))
    err = p.call("aggregate", {"table": "root", "filter": None, "group": [{"column": "city", "bins": 3}]})
    check("bins on text refused", err.get("error", {}).get("code") == -32602, err)

    p.notify("close", {"table": agg["table"]})
    gone = p.call("rows", {"table": agg["table"], "offset": 0, "limit": 1, "sort": [], "generation": 3})
    check("close frees the aggregate", gone.get("error", {}).get("code") == -32001, gone)


def find_checks(p):
    """`find` (PROTOCOL.md 11.15) against a look along the `rows` pages of the same view."""
    check("find capability", p.init_caps.get("find"), p.init_caps)
    for sort, flt, text, start, backward, wrap in [
            ([], None, "london", 0, False, False),
            ([], None, "LONDON", 150, False, True),
            ([{"column": "balance", "direction": "desc"}], None, "comma, inside", 20, True, True),
            ([{"column": "city", "direction": "asc"}, {"column": "id", "direction": "desc"}], "o", "zürich", 300, False, True),
            ([], "true", "quoted", 5, True, False),
            ([], None, "no such text", 0, False, True)]:
        view = p.call("rows", {"table": "root", "offset": 0, "limit": 1000, "sort": sort, "filter": flt, "generation": 7})["result"]["rows"]
        n = len(view)
        if backward:
            first = min(start, n - 1)
            look = [(i, False) for i in range(first, -1, -1)] + ([(i, True) for i in range(n - 1, first, -1)] if wrap and start < n else [])
        elif start >= n:
            look = [(i, True) for i in range(n)] if wrap else []
        else:
            look = [(i, False) for i in range(start, n)] + ([(i, True) for i in range(start)] if wrap else [])

        def holds(row):
            return any(c is not None and text.lower() in (c if isinstance(c, str) else json.dumps(c)).lower() for c in row["cells"])
        want = next(({"offset": i, "row": view[i]["id"], "wrapped": w} for i, w in look if holds(view[i])), None)
        got = p.call("find", {"table": "root", "text": text, "from": start, "backward": backward, "wrap": wrap, "sort": sort,
                              "filter": flt, "generation": 7})["result"]
        ok = got["generation"] == 7 and (got["offset"] is None if want is None else
                                          (got["offset"], got.get("row"), got.get("wrapped", False)) == (want["offset"], want["row"], want["wrapped"]))
        check("find %r from %d" % (text, start), ok, (got, want))
    agg = p.call("aggregate", {"table": "root", "filter": None, "where": [], "group": [{"column": "city"}]})["result"]
    got = p.call("find", {"table": agg["table"], "text": "zürich", "from": 0, "sort": [], "generation": 1})["result"]
    page = p.call("rows", {"table": agg["table"], "offset": 0, "limit": 1000, "sort": [], "generation": 1})["result"]["rows"]
    at = next(i for i, r in enumerate(page) if "zürich" in r["cells"][0].lower())
    check("find in a table of groups", got["offset"] == at and got["row"] == page[at]["id"], (got, at))
    err = p.call("find", {"table": "root", "text": "a", "from": 0, "sort": [{"column": "nope"}]})
    check("find: unknown sort column", err.get("error", {}).get("code") == -32602, err)


def main():
    plugin = os.path.abspath(sys.argv[1])
    p = Plugin([plugin], cwd=os.path.join(HERE, "sample"))
    init = p.call("initialize", {"protocolVersion": 1, "capabilities": {"future": True}})["result"]
    p.init_caps = init["capabilities"]
    check("handshake", init["protocolVersion"] == 1 and init["capabilities"]["sort"] and init["capabilities"]["multiSort"])

    bad = p.call("open", {"args": {"path": "missing.csv"}})
    check("bad path names the file", bad.get("error", {}).get("code") == -32602 and "missing.csv" in bad["error"]["message"], bad)

    desc = p.call("open", {"args": {"path": "people.csv"}})["result"]
    cols = [c["id"] for c in desc["columns"]]
    check("description", desc["table"] == "root" and desc["title"] == "people.csv" and desc["total"] == 200, desc)
    check("column types", [c["type"] for c in desc["columns"]] ==
          ["integer", "text", "integer", "text", "date", "bool", "decimal", "text"], desc["columns"])
    check("width hints", all(c["width"]["min"] <= c["width"]["ideal"] <= c["width"]["max"] for c in desc["columns"]))

    page = p.call("rows", {"table": "root", "offset": 0, "limit": 3, "sort": [], "generation": 1})["result"]
    check("first page", [r["id"] for r in page["rows"]] == ["1", "2", "3"] and page["generation"] == 1 and page["total"] == 200)
    end = p.call("rows", {"table": "root", "offset": 198, "limit": 10})["result"]
    check("last page", [r["id"] for r in end["rows"]] == ["199", "200"])

    sort = [{"column": "active", "direction": "desc"}, {"column": "balance", "direction": "asc"}]
    rows = p.call("rows", {"table": "root", "offset": 0, "limit": 200, "sort": sort, "generation": 2})["result"]["rows"]
    ia, ib = cols.index("active"), cols.index("balance")
    keys = [(r["cells"][ia], r["cells"][ib]) for r in rows]
    want = sorted(keys, key=lambda k: (not k[0], (0, 0) if k[1] is None else (1, k[1])))
    check("multi-key sort", keys == want)
    ids = [r["id"] for r in rows]
    check("ids stable across sorts", sorted(ids, key=int) == [str(i) for i in range(1, 201)])
    again = p.call("rows", {"table": "root", "offset": 0, "limit": 200, "sort": sort, "generation": 3})["result"]["rows"]
    check("deterministic", [r["id"] for r in again] == ids)

    filt = p.call("rows", {"table": "root", "offset": 0, "limit": 200, "filter": "ZÜRICH", "generation": 4})["result"]
    filt2 = p.call("rows", {"table": "root", "offset": 0, "limit": 200, "filter": "zürich", "generation": 5})["result"]
    check("filter", filt2["total"] > 0 and all("Zürich" in r["cells"][cols.index("city")] for r in filt2["rows"]), filt2["total"])
    check("filter folds ASCII only", filt["total"] == 0)

    where_and_aggregate(p, cols)
    find_checks(p)

    err = p.call("rows", {"table": "root", "offset": 0, "limit": 1, "sort": [{"column": "nope"}]})
    check("unknown sort column", err.get("error", {}).get("code") == -32602)
    err = p.call("rows", {"table": "zzz", "offset": 0, "limit": 1})
    check("unknown table", err.get("error", {}).get("code") == -32001)
    r, code = p.close()
    check("shutdown", r.get("result", "x") is None and code == 0, (r, code))

    # A file bigger than the first index chunk: open answers before indexing ends.
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([sys.executable, os.path.join(HERE, "gen_csv.py"), "300000", os.path.join(d, "big.csv")], check=True)
        p = Plugin([plugin], cwd=d)
        p.call("initialize", {"protocolVersion": 1})
        desc = p.call("open", {"args": {"path": "big.csv"}})["result"]
        first = p.call("rows", {"table": "root", "offset": 0, "limit": 5})["result"]
        check("first rows while indexing", [r["id"] for r in first["rows"]] == ["1", "2", "3", "4", "5"])
        if desc["total"] is None:
            inv = p.wait_note("invalidate")
            check("invalidate carries the total", inv["params"] == {"table": "root", "rows": [], "total": 300000}, inv)
            # The count comes first, then the progress that ends the indexing.
            seen = len(p.notes)
            last = p.wait_note("progress", seen)
            check("progress ends with done == total", last["params"]["done"] == last["params"]["total"], last)
        sorted_page = p.call("rows", {"table": "root", "offset": 0, "limit": 3,
                                      "sort": [{"column": "id", "direction": "desc"}], "generation": 2})["result"]
        check("sorted after indexing", [r["id"] for r in sorted_page["rows"]] == ["300000", "299999", "299998"]
              and sorted_page["total"] == 300000, sorted_page)
        r, code = p.close()
        check("shutdown (big)", code == 0)

    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
