#!/usr/bin/env python3
"""hello.py: a complete Tabdeck plugin (protocol v1), Python standard library only.
Serves 10,000 generated rows and sorts them itself (capabilities sort + multiSort)."""
import datetime, json, sys

STATES = ["todo", "doing", "done"]
COLUMNS = [{"id": "n", "title": "N", "type": "integer", "width": 6, "align": "right"},
           {"id": "name", "title": "Name", "type": "text", "width": {"min": 8, "ideal": 16}},
           {"id": "price", "title": "Price", "type": "decimal", "align": "right"},
           {"id": "due", "title": "Due", "type": "date", "width": 10},
           {"id": "state", "title": "State", "type": "enum", "values": STATES}]
INDEX = {c["id"]: i for i, c in enumerate(COLUMNS)}
DAY0 = datetime.date(2024, 1, 1)
ROWS = [{"id": f"r{n}", "cells": [n, f"item {n * 7919 % 10000:04d}", round(n * 0.37 % 100, 2),
         (DAY0 + datetime.timedelta(days=n % 365)).isoformat(), STATES[n % 3]]} for n in range(10000)]
orders = {}  # sort order (tuple of keys) -> all rows in that order

class RpcError(Exception):  # RpcError(code, message) becomes an error response
    pass

def rows_in_order(sort):
    keys = tuple((k["column"], k["direction"]) for k in sort)
    if keys not in orders:
        rows = ROWS
        for column, direction in reversed(keys):  # stable sorts, last tie-breaker first
            i = INDEX[column]  # KeyError (unknown column) becomes -32602 below
            rank = STATES.index if column == "state" else (lambda v: v)  # enums sort by `values`
            rows = sorted(rows, key=lambda r: rank(r["cells"][i]), reverse=direction == "desc")
        orders[keys] = rows
    return orders[keys]

def handle(method, p):
    if method == "initialize":
        return {"name": "hello-py", "version": "1.0.0", "protocolVersion": 1,
                "capabilities": {"sort": True, "multiSort": True}}
    if method == "open":
        send({"jsonrpc": "2.0", "method": "status", "params": {"text": f"{len(ROWS)} rows"}})
        return {"table": "root", "title": "hello", "columns": COLUMNS, "total": len(ROWS)}
    if method == "rows":
        if p["table"] != "root":
            raise RpcError(-32001, f"unknown table {p['table']!r}")
        page = rows_in_order(p["sort"])[p["offset"]:p["offset"] + p["limit"]]
        return {"generation": p["generation"], "offset": p["offset"], "rows": page, "total": len(ROWS)}
    if method == "shutdown":
        return None
    raise RpcError(-32601, f"method not found: {method}")

def send(message):  # one JSON object per line, flushed at once
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()

print("hello.py: started", file=sys.stderr)  # stderr goes to the tab's log file
for line in sys.stdin.buffer:  # splits on b"\n" only; EOF ends the loop and the plugin
    if not line.strip():
        continue
    try:
        msg = json.loads(line)
    except ValueError:
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
        continue
    if "id" not in msg:
        continue  # notifications: $/cancel (every answer here is quick), close (no child tables)
    try:
        reply = {"result": handle(msg.get("method"), msg.get("params") or {})}
    except RpcError as e:
        reply = {"error": {"code": e.args[0], "message": e.args[1]}}
    except (KeyError, TypeError, ValueError, IndexError) as e:
        reply = {"error": {"code": -32602, "message": f"invalid params: {e!r}"}}
    send({"jsonrpc": "2.0", "id": msg["id"], **reply})
