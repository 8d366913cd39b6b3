#!/usr/bin/env python3
"""A Tabdeck plugin for the benchmark's flood case (Scripts/bench.d/flood.py).

It serves one small table (`root`, FLOOD_ROWS rows, default 1000, two columns; it claims `sort`
but ignores it, which the benchmark never asks for) and, once
initialized, writes notifications as fast as it can from a thread of its own when FLOOD=1:
badge, status, progress and invalidate notifications by default (FLOOD_KINDS, comma-separated,
also `log`), interleaved with its answers. With FLOOD=0 it is a quiet plugin serving the same
table (the idle case). It writes nothing on stderr, so the host's log stays small.
"""
import json
import os
import sys
import threading

ROWS = int(os.environ.get("FLOOD_ROWS", "1000"))
FLOOD = os.environ.get("FLOOD", "0") == "1"
KINDS = [k for k in os.environ.get("FLOOD_KINDS", "badge,status,progress,invalidate").split(",") if k]
out_lock = threading.Lock()
out = sys.stdout.buffer


def write(obj):
    line = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    with out_lock:
        out.write(line)
        out.flush()


def notification(kind, i):
    if kind == "badge":
        params = {"value": i % 1000}
    elif kind == "status":
        params = {"text": f"flooding, {i} notifications so far"}
    elif kind == "progress":
        params = {"done": i, "total": None, "message": "flooding"}
    elif kind == "invalidate":
        params = {"table": "root", "rows": [f"r{i % ROWS}"]}
    elif kind == "log":
        params = {"level": "info", "message": f"flood line {i}"}
    else:
        raise SystemExit(f"flood_plugin: unknown FLOOD_KINDS entry {kind!r}")
    return (json.dumps({"jsonrpc": "2.0", "method": kind, "params": params}, separators=(",", ":")) + "\n").encode()


def flood():
    i = 0
    while True:
        # Batches of lines per write: as fast as Python can make them.
        batch = b"".join(notification(KINDS[(i + j) % len(KINDS)], i + j) for j in range(64))
        i += 64
        try:
            with out_lock:
                out.write(batch)
                out.flush()
        except (BrokenPipeError, ValueError):
            return


def rows_result(params):
    offset = max(0, int(params.get("offset", 0)))
    limit = max(0, int(params.get("limit", 100)))
    rows = [{"id": f"r{n}", "cells": [n + 1, f"row {n + 1}"]} for n in range(offset, min(ROWS, offset + limit))]
    return {"generation": params.get("generation"), "offset": offset, "rows": rows, "total": ROWS}


def main():
    started = False
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        msg = json.loads(line)
        method, id_ = msg.get("method"), msg.get("id")
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if "id" not in msg:
            continue  # $/cancel, close
        if method == "initialize":
            write({"jsonrpc": "2.0", "id": id_, "result": {
                "name": "flood", "version": "1", "protocolVersion": 1,
                "capabilities": {"sort": True, "multiSort": False, "filter": False}}})
            if FLOOD and not started:
                started = True
                threading.Thread(target=flood, daemon=True).start()
        elif method == "open":
            write({"jsonrpc": "2.0", "id": id_, "result": {
                "table": "root", "title": "flood", "total": ROWS,
                "columns": [{"id": "n", "title": "N", "type": "integer"}, {"id": "name", "title": "Name", "type": "text"}]}})
        elif method == "rows":
            write({"jsonrpc": "2.0", "id": id_, "result": rows_result(params)})
        elif method == "shutdown":
            write({"jsonrpc": "2.0", "id": id_, "result": None})
        else:
            write({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": f"method not found: {method}"}})


if __name__ == "__main__":
    main()
