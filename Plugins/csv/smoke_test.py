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


def main():
    plugin = os.path.abspath(sys.argv[1])
    p = Plugin([plugin], cwd=os.path.join(HERE, "sample"))
    init = p.call("initialize", {"protocolVersion": 1, "capabilities": {"future": True}})["result"]
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
