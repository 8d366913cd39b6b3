import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckConformance

/// A small plugin (Python, stdlib only) that declares `where` and `aggregate` and does them by
/// the protocol's rules (PROTOCOL.md 11.11, 11.12), with one planted mistake at a time
/// (`MUTANT=<name>`). Written to a temporary folder by the tests.
enum WhereAggregatePlugin {
    static let source = #"""
import json, math, os, sys, datetime
from decimal import Decimal
M = set(filter(None, os.environ.get("MUTANT", "").split(",")))
STATES = ["todo", "doing", "done"]
COLUMNS = [{"id": "n", "title": "N", "type": "integer"}, {"id": "name", "title": "Name"},
           {"id": "amount", "title": "Amount", "type": "decimal"}, {"id": "day", "title": "Day", "type": "date"},
           {"id": "state", "title": "State", "type": "enum", "values": STATES}, {"id": "flag", "title": "Flag", "type": "bool"}]
def make(i):
    return {"id": "r%d" % i, "cells": [i * 7 % 50, None if i % 11 == 3 else ["ada", "Bob", "carl", "Dana"][i % 4],
            None if i % 9 == 4 else (i * 13 % 40) / 4, "2024-%02d-%02d" % (1 + i % 5, 1 + i * 3 % 27),
            STATES[0 if i % 5 == 0 else 1 if i % 2 else 2], i % 3 == 0]}
ROWS = [make(i) for i in range(48)]
TABLES = {"root": (COLUMNS, ROWS)}
counter = [0]

class Err(Exception):
    def __init__(self, code, message): self.code, self.message = code, message

def typed(v, col, at):
    t = col.get("type", "text")
    if v is None: raise Err(-32602, at + ": null is no value")
    if t == "integer" and isinstance(v, int) and not isinstance(v, bool): return Decimal(v)
    if t == "decimal" and isinstance(v, (int, float)) and not isinstance(v, bool): return Decimal(repr(v))
    if t in ("integer", "decimal") and isinstance(v, str):
        try: return Decimal(v)
        except Exception: pass
    if t == "date" and isinstance(v, str):
        try: return datetime.datetime.fromisoformat(v.replace("Z", "+00:00") if "T" in v else v + "T00:00:00+00:00")
        except ValueError: pass
    if t == "enum" and v in col.get("values", []): return col["values"].index(v)
    if t == "bool" and isinstance(v, bool): return int(v)
    if t == "text" and isinstance(v, str): return v
    raise Err(-32602, at + ": %s is not %s" % (json.dumps(v), t))

def check_where(where, cols):
    ids = [c["id"] for c in cols]
    out = []
    for i, c in enumerate(where or []):
        at = "where[%d]" % i
        if c.get("column") not in ids: raise Err(-32602, at + ".column: unknown column")
        col = cols[ids.index(c["column"])]
        op = c.get("op")
        vals = [c.get("value")] if op in ("=", "!=", "<", "<=", ">", ">=") else c.get("values", []) if op in ("between", "in") else []
        try:
            keys = [typed(v, col, at + (".value" if op in ("=", "!=", "<", "<=", ">", ">=") else ".values[%d]" % j)) for j, v in enumerate(vals)]
        except Err:
            if "where-no-type-check" in M: keys = None
            else: raise
        out.append((ids.index(c["column"]), op, keys, col))
    return out

def holds(cell, op, keys, col):
    if op == "null": return cell is None
    if cell is None: return op == "!=" and "where-ne-keeps-nulls" in M
    if op == "notNull": return True
    if keys is None: return False
    x = typed(cell, col, "cell")
    if op == "=": return x == keys[0]
    if op == "!=": return x != keys[0]
    if op == "<": return x < keys[0]
    if op == "<=": return x <= keys[0]
    if op == ">": return x > keys[0]
    if op == ">=": return x >= keys[0]
    if op == "between": return keys[0] <= x < keys[1] if "where-between-exclusive" in M else keys[0] <= x <= keys[1]
    if op == "in": return x in keys
    return False

def kept(rows, conds):
    return [r for r in rows if all(holds(r["cells"][i], op, k, col) for i, op, k, col in conds)]

def width(lo, hi, bins, integer):
    raw = (hi - lo) / bins
    if "agg-bins-raw-width" in M: return raw
    if raw <= 0: return 1
    e = math.floor(math.log10(raw)) - 1
    while True:
        for m in (1, 2, 2.5, 5):
            w = m * 10 ** e
            if integer and (w < 1 or w != int(w)): continue
            if w >= raw * (1 - 1e-12): return int(w) if integer else w
        e += 1

def date_start(d, unit):
    if unit == "hour": return d.replace(minute=0, second=0, microsecond=0)
    if unit == "day": return d.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "month": return d.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return d.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)

def date_bins(a, b, unit):
    x, y = date_start(a, unit), date_start(b, unit)
    if unit == "hour": return int((y - x).total_seconds() // 3600) + 1
    if unit == "day": return (y - x).days + 1
    if unit == "month": return (y.year - x.year) * 12 + y.month - x.month + 1
    return y.year - x.year + 1

def aggregate(p):
    if p.get("table") not in TABLES: raise Err(-32001, "unknown table %s" % p.get("table"))
    cols, rows = TABLES[p["table"]]
    ids = [c["id"] for c in cols]
    group = p.get("group")
    if not isinstance(group, list) or not group: raise Err(-32602, "group: one or more columns")
    idx = []
    for i, g in enumerate(group):
        if g.get("column") not in ids: raise Err(-32602, "group[%d].column: unknown column" % i)
        col = cols[ids.index(g["column"])]
        if g.get("bins") is not None and col.get("type", "text") not in ("integer", "decimal", "date"):
            raise Err(-32602, "group[%d].bins: not a number or date column" % i)
        idx.append(ids.index(g["column"]))
    rs = kept(rows, check_where(p.get("where"), cols))
    keys = [tuple(r["cells"][i] for i in idx) for r in rs]
    sizes = {}
    for k, (g, i) in enumerate(zip(group, idx)):
        bins, col = g.get("bins"), cols[i]
        distinct = set(key[k] for key in keys if key[k] is not None)
        if bins is None or len(distinct) <= bins: continue
        if col["type"] == "date":
            ds = [typed(v, col, "") for v in distinct]
            unit = next((u for u in ("hour", "day", "month", "year") if date_bins(min(ds), max(ds), u) <= bins), "year")
            sizes[col["id"]] = {"unit": unit}
            conv = lambda v: None if v is None else date_start(typed(v, col, ""), unit).strftime("%Y-%m-%d" if unit != "hour" else "%Y-%m-%dT%H:00:00Z")
        else:
            lo, hi = float(min(distinct)), float(max(distinct))
            w = width(lo, hi, bins, col["type"] == "integer")
            sizes[col["id"]] = {"width": w}
            conv = lambda v, w=w: None if v is None else (int(v // w * w) if col["type"] == "integer" else math.floor(v / w + 1e-9) * w)
        keys = [key[:k] + (conv(key[k]),) + key[k + 1:] for key in keys]
    counts = {}
    for key in keys: counts[key] = counts.get(key, 0) + 1
    if "agg-drops-nulls" in M: counts = {k: v for k, v in counts.items() if None not in k}
    gcols = [cols[i] for i in idx]
    def cell_key(v, col): return (0,) if v is None else (1, typed(v, col, ""))
    order = sorted(counts.items(), key=lambda kv: (-kv[1], [cell_key(v, c) for v, c in zip(kv[0], gcols)]))
    if "agg-order-ascending" in M: order.reverse()
    total, running, out = len(rs), 0, []
    for j, (key, count) in enumerate(order):
        running += count
        shown = count + 1 if "agg-count-off" in M and j == 0 else count
        out.append({"id": "g%d" % j, "cells": list(key) + [shown, count * 100 / total, running * 100 / total]})
    counter[0] += 1
    handle = "agg%d" % counter[0]
    acols = [{k: c[k] for k in ("id", "title", "type", "values") if k in c} for c in gcols] + [
        {"id": "count", "title": "Count", "type": "integer"}, {"id": "percent", "title": "%", "type": "decimal"},
        {"id": "cumulative", "title": "Cumulative %", "type": "decimal"}]
    TABLES[handle] = (acols, out)
    largest = min(counts.values()) if "agg-largest" in M and counts else max(counts.values(), default=0)
    result = {"table": handle, "title": "groups", "columns": acols, "total": len(out), "rows": total, "largest": largest}
    if sizes: result["bins"] = sizes
    return result

def rows(p):
    off, lim = p.get("offset"), p.get("limit")
    if not isinstance(off, int) or isinstance(off, bool) or off < 0 or not isinstance(lim, int) or isinstance(lim, bool) or lim < 1:
        raise Err(-32602, "offset and limit: integers, limit at least 1")
    if p.get("table") not in TABLES: raise Err(-32001, "unknown table %s" % p.get("table"))
    cols, all_rows = TABLES[p["table"]]
    for k in p.get("sort") or []:
        if k.get("column") not in [c["id"] for c in cols]: raise Err(-32602, "sort: unknown column")
    rs = kept(all_rows, check_where(p.get("where"), cols))
    if "agg-paging" in M and p["table"] != "root": off = 0
    return {"generation": p.get("generation"), "offset": p.get("offset"), "rows": rs[off:off + lim], "total": len(rs)}

def send(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()

for line in sys.stdin:
    try: msg = json.loads(line)
    except ValueError:
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}}); continue
    if not isinstance(msg, dict): continue
    method, p, mid = msg.get("method"), msg.get("params") or {}, msg.get("id")
    if "id" not in msg:
        if method == "close" and p.get("table") != "root" and "agg-close-ignored" not in M: TABLES.pop(p.get("table"), None)
        continue
    try:
        if method == "initialize":
            r = {"name": "where-aggregate", "version": "1", "protocolVersion": 1,
                 "capabilities": {"where": True, "aggregate": True}}
        elif method == "open": r = {"table": "root", "title": "things", "columns": COLUMNS, "total": len(ROWS)}
        elif method == "rows": r = rows(p)
        elif method == "aggregate": r = aggregate(p)
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": mid, "result": None}); break
        else: raise Err(-32601, "unknown method %s" % method)
        send({"jsonrpc": "2.0", "id": mid, "result": r})
    except Err as e:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": e.code, "message": e.message}})
"""#

    /// The plugin's file (written once per process).
    static let path: String = {
        let path = temporaryFolder() + "/where_aggregate.py"
        write(source, to: path)
        return path
    }()

    static var command: [String] { ["python3", path] }
}

/// `where` and `aggregate` checks (PROTOCOL.md 11.11, 11.12): the good plugin passes them, and
/// each mutant fails the check it is about, naming the section.
@Suite(.serialized) struct WhereAggregateTests {
    static let names = ["where: integer column n", "where: text column name", "where: decimal column amount",
                        "where: date column day", "where: enum column state", "where: bool column flag",
                        "aggregate: counts", "aggregate: bins", "aggregate: paging and close"]

    @Test func theGoodPluginPasses() throws {
        let report = try check(WhereAggregatePlugin.command)
        for name in Self.names {
            #expect(report.result(name)?.status == .passed, "\(name): \(report.text)")
        }
        #expect(report.result("aggregate: bins")?.summary.contains("group day in 5 bins") == true, "\(report.text)")
        #expect(report.plugin?.capabilities.contains("aggregate") == true)
    }

    struct Mutant: CustomTestStringConvertible, Sendable {
        var name: String
        var check: String
        var message: String
        var testDescription: String { "\(name) (\(check))" }
    }

    static let mutants: [Mutant] = [
        .init(name: "where-between-exclusive", check: "where: integer column n", message: "left out 1 rows that meet it"),
        .init(name: "where-ne-keeps-nulls", check: "where: decimal column amount", message: "kept 5 rows that do not"),
        .init(name: "where-no-type-check", check: "where: enum column state", message: "was answered with rows; expected error -32602 (PROTOCOL.md 11.11)"),
        .init(name: "agg-count-off", check: "aggregate: counts", message: "counts 20, but 19 rows are in it (PROTOCOL.md 11.12)"),
        .init(name: "agg-order-ascending", check: "aggregate: counts", message: "out of the natural order"),
        .init(name: "agg-largest", check: "aggregate: counts", message: "largest is 10, but the largest group has 19 rows"),
        .init(name: "agg-bins-raw-width", check: "aggregate: bins", message: "bins of n are {\"width\":"),
        .init(name: "agg-drops-nulls", check: "aggregate: bins", message: "group [null] of 5 rows is missing (PROTOCOL.md 11.12)"),
        .init(name: "agg-paging", check: "aggregate: paging and close", message: "differ from one page of 1,000 at offset 2"),
        .init(name: "agg-close-ignored", check: "aggregate: paging and close", message: "after close of aggregate table agg"),
    ]

    @Test(arguments: mutants)
    func eachMutantFailsItsCheck(_ mutant: Mutant) throws {
        let report = try check(WhereAggregatePlugin.command, environment: ["MUTANT": mutant.name])
        let result = report.result(mutant.check)
        #expect(result?.status == .failed, "\(mutant.check) must fail: \(report.text)")
        let lines = [result?.summary ?? ""] + (result?.notes ?? [])
        #expect(lines.contains { $0.contains(mutant.message) }, "\(mutant.check) must say \"\(mutant.message)\": \(report.text)")
        #expect(!report.conforms)
    }

    /// Every where and aggregate check fails for some mutant.
    @Test func everyCheckHasAMutant() {
        let proven = Set(Self.mutants.map(\.check))
        for name in ["where: integer column n", "aggregate: counts", "aggregate: bins", "aggregate: paging and close"] {
            #expect(proven.contains(name), "no mutant fails \(name)")
        }
    }

    /// The conditions come from the column's own values, in its order.
    @Test func conditionsComeFromTheColumnsValues() {
        let column = ColumnSpec(id: "n", type: .integer)
        let clause = WhereCheck.conditions(column, [5, .null, 1, 3, 9, 7, 3])
        #expect(clause.map(\.op) == [.null, .notNull, .equal, .notEqual, .in, .less, .between])
        #expect(clause[2].values == [5] && clause[4].values == [3, 7] && clause[6].values == [3, 7])
        let source = ColumnSpec(id: "s", type: .text, order: .source)
        #expect(!WhereCheck.conditions(source, ["b", "a"]).contains { $0.op == .less || $0.op == .between })
    }
}
