#!/usr/bin/env python3
"""Check the protocol examples against docs/protocol.schema.json.

1. Every line of docs/PROTOCOL.md that starts with "→ " (host to plugin) or "← " (plugin to host)
   must be one JSON object matching the schema, with unknown members forbidden (to catch typos),
   and must travel in the right direction. Each fenced block is one session: a response is checked
   against the result definition of the request it answers (found by id earlier in the block),
   `rows` results against the columns, sections and capabilities the block declared.
   Transcripts in docs/examples/*.transcript are checked the same way (one session per file), and
   those whose first line is `# plugin: ARGV` are compared with what ARGV really prints.
2. docs/examples/hello.sh and docs/examples/hello.py are run on a scripted session; every stdout
   line must be valid JSON that passes the same checks, and each request must get the expected answer.

Usage: python3 docs/examples/validate_examples.py [--no-plugins]     Exit status: 0 = all passed.
"""
import copy, json, pathlib, re, shutil, subprocess, sys
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

HERE = pathlib.Path(__file__).resolve().parent
DOCS = HERE.parent
DEF_BY_METHOD = {"initialize": "InitializeRequest", "open": "OpenRequest", "rows": "RowsRequest",
                 "children": "ChildrenRequest", "locate": "LocateRequest", "aggregate": "AggregateRequest", "describe": "DescribeRequest", "query": "QueryRequest", "cell": "CellRequest", "action": "ActionRequest",
                 "move": "MoveRequest",
                 "shutdown": "ShutdownRequest",
                 "close": "CloseNotification", "$/cancel": "CancelNotification", "badge": "BadgeNotification",
                 "invalidate": "InvalidateNotification", "progress": "ProgressNotification",
                 "status": "StatusNotification", "log": "LogNotification",
                 "rows/chunk": "RowsChunkNotification"}
HOST_METHODS = {"initialize", "open", "rows", "children", "locate", "aggregate", "describe", "query", "cell", "action", "move", "shutdown", "close", "$/cancel"}
PLUGIN_NOTIFICATIONS = {"badge", "invalidate", "progress", "status", "log", "rows/chunk"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$")


def strict_copy(schema):
    """Forbid unknown members in every object schema that lists its properties."""
    def walk(node):
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for key, value in node.items():
                if key != "if":  # `if` only tests a property; leave it open
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    schema = copy.deepcopy(schema)
    walk(schema)
    return schema


SCHEMA = json.loads((DOCS / "protocol.schema.json").read_text(encoding="utf-8"))
Draft202012Validator.check_schema(SCHEMA)
STRICT = strict_copy(SCHEMA)
MESSAGE = Draft202012Validator(STRICT)
_defs = {}


def def_validator(name):
    if name not in _defs:
        sub = {k: v for k, v in STRICT.items() if k != "oneOf"}
        sub["$ref"] = f"#/$defs/{name}"
        _defs[name] = Draft202012Validator(sub)
    return _defs[name]


def schema_error(validator, instance):
    error = best_match(validator.iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(message)"
    return f"schema: at {where}: {error.message[:300]}"


def cell_ok(column, cell):
    kind = column.get("type", "text")
    if cell is None:
        return True
    if kind == "text":
        return isinstance(cell, str)
    if kind == "integer":
        return isinstance(cell, int) and not isinstance(cell, bool)
    if kind == "decimal":
        return isinstance(cell, (int, float)) and not isinstance(cell, bool)
    if kind == "bool":
        return isinstance(cell, bool)
    if kind == "date":
        return isinstance(cell, str) and bool(DATE.match(cell))
    if kind == "enum":
        return cell in column.get("values", [])
    return False


def out_of_order(columns, sort, a, b):
    """True when row a must come after row b under `sort` (nulls are not compared)."""
    index = {c["id"]: i for i, c in enumerate(columns)}
    for key in sort:
        if key["column"] not in index:
            return False
        column = columns[index[key["column"]]]
        x, y = a["cells"][index[key["column"]]], b["cells"][index[key["column"]]]
        if x is None or y is None or not (cell_ok(column, x) and cell_ok(column, y)):
            return False  # nulls and invalid cells (reported elsewhere) are not compared
        if column.get("type") == "enum":
            x, y = column["values"].index(x), column["values"].index(y)
        if x != y:
            return (x > y) if key["direction"] == "asc" else (x < y)
    return False


class Session:
    """What one transcript (one fenced block, or one plugin run) has established so far."""

    def __init__(self, name):
        self.name = name
        self.pending = {}        # json.dumps(id) -> request message
        self.answered = set()
        self.capabilities = None
        self.tables = {}         # table handle -> table description
        self.streamed = {}       # json.dumps(id) of a stream request -> rows sent in rows/chunk so far
        self.failures = []

    def fail(self, where, text):
        self.failures.append(f"{where}: {text}")

    def check(self, where, arrow, line):
        try:
            self._check(where, arrow, line)
        except Exception as e:  # a malformed example must be reported, not crash the checker
            self.fail(where, f"checker error {e!r}")

    def _check(self, where, arrow, line):
        if len(line.encode("utf-8")) > 4 * 1024 * 1024:
            return self.fail(where, "line longer than 4 MiB")
        try:
            msg = json.loads(line)
        except ValueError as e:
            return self.fail(where, f"not valid JSON: {e}")
        if not isinstance(msg, dict):
            return self.fail(where, "not a JSON object")
        problem = schema_error(MESSAGE, msg)
        if problem:
            if msg.get("method") in DEF_BY_METHOD:  # say what is wrong with this message kind
                problem = schema_error(def_validator(DEF_BY_METHOD[msg["method"]]), msg) or problem
            return self.fail(where, problem)
        method, has_id = msg.get("method"), "id" in msg
        if arrow == "→":
            if msg.get("jsonrpc") != "2.0":
                self.fail(where, 'the host always sends "jsonrpc":"2.0"')
            if method not in HOST_METHODS:
                return self.fail(where, f"the host never sends {method!r}")
            if has_id:
                key = json.dumps(msg["id"])
                if key in self.pending and key not in self.answered:
                    self.fail(where, f"id {key} is already in flight")
                self.pending[key] = msg
                self.answered.discard(key)
            self.check_host_request(where, msg)
        else:
            if method is not None and has_id:
                return self.fail(where, "plugins send no requests in v1")
            if method is not None:
                if method not in PLUGIN_NOTIFICATIONS:
                    self.fail(where, f"plugins do not send {method!r}")
                if method == "rows/chunk":
                    self.check_chunk(where, msg["params"])
                return
            self.check_response(where, msg)

    def check_chunk(self, where, params):
        key = json.dumps(params["id"])
        if key not in self.streamed or key in self.answered:
            return self.fail(where, f"rows/chunk for id {key}, which is not a stream request in flight")
        self.streamed[key] += len(params["rows"])
        request = self.pending[key]
        self.check_rows(where, dict(request["params"], offset=0), {"generation": request["params"]["generation"],
                                                                   "rows": params["rows"]})

    def check_host_request(self, where, msg):
        p, caps = msg.get("params", {}), self.capabilities
        if msg["method"] == "rows" and caps is not None:
            streaming = caps.get("paging", True) is False
            if p.get("stream") and not streaming:
                self.fail(where, "`stream` is only sent to plugins with `paging: false`")
            if streaming and not p.get("stream") and p.get("table") in self.tables:
                self.fail(where, "a plugin with `paging: false` receives `rows` with `stream: true` only")
            if p.get("stream"):
                if p["offset"] != 0 or p["sort"]:
                    self.fail(where, "a stream request has offset 0 and sort []")
                self.streamed[json.dumps(msg["id"])] = 0
            if not caps.get("sort") and p["sort"]:
                self.fail(where, "a plugin without `sort` receives `sort: []` only")
            if caps.get("sort") and not caps.get("multiSort") and len(p["sort"]) > 1:
                self.fail(where, "a plugin without `multiSort` receives at most one sort key")
        if msg["method"] == "children" and caps is not None and not caps.get("children"):
            self.fail(where, "`children` sent to a plugin without the `children` capability")
        if msg["method"] == "action" and caps is not None and not caps.get("actions"):
            self.fail(where, "`action` sent to a plugin without the `actions` capability")
        if msg["method"] == "aggregate" and caps is not None and not caps.get("aggregate"):
            self.fail(where, "`aggregate` sent to a plugin without the `aggregate` capability")
        for optional in ("describe", "query"):
            if msg["method"] == optional and caps is not None and not caps.get(optional):
                self.fail(where, f"`{optional}` sent to a plugin without the `{optional}` capability")
        if msg["method"] in ("rows", "locate", "aggregate", "describe") and msg["params"].get("where") and caps is not None \
                and not caps.get("where"):
            self.fail(where, "`where` sent to a plugin without the `where` capability")
        if msg["method"] == "cell" and caps is not None and not caps.get("cells"):
            self.fail(where, "`cell` sent to a plugin without the `cells` capability")

    def check_response(self, where, msg):
        key = json.dumps(msg["id"])
        if msg["id"] is None:
            return  # error response to a line whose id could not be read
        if key not in self.pending:
            return self.fail(where, f"response to id {key}, which the host did not send in this block")
        if key in self.answered:
            self.fail(where, f"id {key} answered twice")
        self.answered.add(key)
        if "error" in msg:
            return
        request = self.pending[key]
        method = request["method"]
        name = {"$/cancel": "Cancel"}.get(method, method[0].upper() + method[1:]) + "Result"
        problem = schema_error(def_validator(name), msg["result"])
        if problem:
            return self.fail(where, f"{method} result: {problem}")
        result = msg["result"]
        if method == "initialize":
            self.capabilities = result.get("capabilities", {})
        elif method in ("open", "children", "aggregate", "describe", "query"):
            self.check_table(where, result)
            self.tables[result["table"]] = result
        elif method == "rows":
            self.check_rows(where, request["params"], result)
        elif method == "cell":
            if result["offset"] != request["params"]["offset"]:
                self.fail(where, "`offset` must echo the request's")
            if result["offset"] + len(result["text"].encode()) > result["size"]:
                self.fail(where, "the part runs past the value's `size`")

    def check_table(self, where, table):
        ids = [c["id"] for c in table["columns"]]
        if len(ids) != len(set(ids)):
            self.fail(where, "column ids must be unique")
        for column in table["columns"]:
            if "values" in column and column.get("type") != "enum":
                self.fail(where, f"column {column['id']!r}: `values` is for enum columns only")

    def check_rows(self, where, params, result):
        key = next((k for k, r in self.pending.items() if r.get("params") is params), None)
        if params.get("stream") and key in self.streamed and isinstance(result.get("total"), int):
            sent = self.streamed[key] + len(result["rows"])
            if result["total"] != sent:
                self.fail(where, f"the stream's total is {result['total']}, but {sent} rows were sent")
        if result["generation"] != params["generation"]:
            self.fail(where, "`generation` must echo the request's")
        if "offset" in result and result["offset"] != params["offset"]:
            self.fail(where, "`offset` must echo the request's")
        rows = result["rows"]
        if len(rows) > params["limit"]:
            self.fail(where, "more rows than `limit`")
        if result.get("more") and not rows:
            self.fail(where, "a page with `more` holds at least one row")
        for row in rows:
            for column, size in row.get("cut", {}).items():
                table = self.tables.get(params["table"])
                ids = [c["id"] for c in table["columns"]] if table else [column]
                cell = row["cells"][ids.index(column)] if column in ids and ids.index(column) < len(row["cells"]) else None
                if column not in ids:
                    self.fail(where, f"row {row['id']!r}: `cut` names {column!r}, which is not a column")
                elif not isinstance(cell, str):
                    self.fail(where, f"row {row['id']!r}: only text cells may be cut ({column!r})")
                elif len(cell.encode()) > min(size, 65536):
                    self.fail(where, f"row {row['id']!r}: the cut part of {column!r} is longer than 65,536 bytes or its size")
        total = result.get("total")
        if isinstance(total, int) and rows and params["offset"] + len(rows) > total:
            self.fail(where, "rows beyond `total`")
        table = self.tables.get(params["table"])
        if table is None:
            return
        columns = table["columns"]
        sections = {s["id"] for s in table.get("sections", [])}
        for row in rows:
            if len(row["cells"]) != len(columns):
                self.fail(where, f"row {row['id']!r}: {len(row['cells'])} cells for {len(columns)} columns")
                continue
            for column, cell in zip(columns, row["cells"]):
                if not cell_ok(column, cell):
                    self.fail(where, f"row {row['id']!r}: {cell!r} is not a valid {column.get('type', 'text')} cell for column {column['id']!r}")
            if "section" in row and row["section"] not in sections:
                self.fail(where, f"row {row['id']!r}: unknown section {row['section']!r}")
        ids = [str(r["id"]) for r in rows]
        if len(ids) != len(set(ids)):
            self.fail(where, "row ids repeat within a page")
        order = [s["id"] for s in table.get("sections", [])]
        for a, b in zip(rows, rows[1:]):
            if a.get("section") in order and b.get("section") in order and order.index(a["section"]) > order.index(b["section"]):
                self.fail(where, f"rows {a['id']!r}, {b['id']!r}: sections must stay contiguous, in the listed order")
        if params["sort"] and (self.capabilities or {}).get("sort") and len(rows) == len(ids):
            for a, b in zip(rows, rows[1:]):
                if a.get("section") != b.get("section"):
                    continue  # each section is sorted on its own (PROTOCOL.md 10.6)
                if all(len(r["cells"]) == len(columns) for r in (a, b)) and out_of_order(columns, params["sort"], a, b):
                    self.fail(where, f"rows {a['id']!r}, {b['id']!r} are not in the requested sort order")


def check_spec(path=DOCS / "PROTOCOL.md"):
    session, count, failures = Session("(outside a block)"), 0, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            failures += session.failures
            session = Session(f"block at line {number}")
        elif line.startswith(("→ ", "← ")):
            count += 1
            session.check(f"PROTOCOL.md:{number}", line[0], line[2:])
    failures += session.failures
    return count, failures


def check_transcripts(run_plugins=True):
    """docs/examples/*.transcript: one session each; `# plugin: ARGV` on the first line means the
    ← lines must be exactly what ARGV (run from the repository root) prints for the → lines."""
    count, failures = 0, []
    for path in sorted(HERE.glob("*.transcript")):
        lines = path.read_text(encoding="utf-8").splitlines()
        session = Session(path.name)
        for number, line in enumerate(lines, 1):
            if line.startswith(("→ ", "← ")):
                count += 1
                session.check(f"{path.name}:{number}", line[0], line[2:])
        failures += session.failures
        header = re.fullmatch(r"# plugin: (.+)", lines[0]) if lines else None
        if header and run_plugins:
            sent = [l[2:] for l in lines if l.startswith("→ ")]
            shown = [l[2:] for l in lines if l.startswith("← ")]
            run = subprocess.run(header.group(1).split(), input="".join(l + "\n" for l in sent), capture_output=True,
                                 text=True, encoding="utf-8", timeout=60, cwd=DOCS.parent)
            if [l for l in run.stdout.split("\n") if l] != shown:
                failures.append(f"{path.name}: the ← lines are not what `{header.group(1)}` prints")
    return count, failures


def fenced_block_after(lines, index):
    """The lines of the fenced block that starts right after lines[index] (a marker comment)."""
    start = index + 1
    if start >= len(lines) or not lines[start].startswith("```"):
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("```")), None)
    return None if end is None else lines[start + 1:end]


def check_listings(path=DOCS / "PROTOCOL.md", run_plugins=True):
    """<!-- listing: examples/F --> must be followed by F verbatim; <!-- session: examples/F -->
    by a transcript whose ← lines are exactly what F prints for its → lines."""
    lines, failures, seen = path.read_text(encoding="utf-8").splitlines(), [], 0
    for index, line in enumerate(lines):
        marker = re.fullmatch(r"<!-- (listing|session): (examples/[\w.]+) -->", line.strip())
        if not marker:
            continue
        seen += 1
        kind, name = marker.groups()
        where = f"PROTOCOL.md:{index + 1}"
        block = fenced_block_after(lines, index)
        if block is None:
            failures.append(f"{where}: no fenced block after the {kind} marker")
            continue
        source = DOCS / name
        if kind == "listing":
            if "\n".join(block) + "\n" != source.read_text(encoding="utf-8"):
                failures.append(f"{where}: the listing differs from docs/{name}")
            continue
        if not run_plugins:
            continue
        sent = [l[2:] for l in block if l.startswith("→ ")]
        shown = [l[2:] for l in block if l.startswith("← ")]
        argv = ["bash" if name.endswith(".sh") else "python3", str(source)]
        run = subprocess.run(argv, input="".join(l + "\n" for l in sent), capture_output=True,
                             text=True, encoding="utf-8", timeout=60, cwd=HERE)
        printed = [l for l in run.stdout.split("\n") if l]
        if printed != shown:
            failures.append(f"{where}: the transcript's ← lines are not what docs/{name} prints")
    if seen == 0:
        failures.append(f"{path.name}: no <!-- listing --> or <!-- session --> marker: nothing checked")
    return seen, failures


def req(id_, method, params=None):
    msg = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def rows(id_, table="root", offset=0, limit=5, sort=(), generation=1):
    return req(id_, "rows", {"table": table, "offset": offset, "limit": limit, "sort": list(sort),
                             "filter": None, "generation": generation})


def plugin_script(sorts):
    """Host lines for one plugin run, and the expected answer per id ("result" or an error code)."""
    lines = [req(1, "initialize", {"protocolVersion": 1, "host": {"name": "tabdeck", "version": "0.1.0"},
                                   "capabilities": {"progress": True, "cancel": True}}),
             req(2, "open", {"args": {"id": "a nested id", "text": "quote \" brace } comma ,"}}),
             rows(3), rows("three-b", offset=9990, limit=20, generation=2),
             {"jsonrpc": "2.0", "method": "$/cancel", "params": {"id": 3}},
             {"jsonrpc": "2.0", "method": "close", "params": {"table": "t9"}},
             rows(4, table="nope"), req(5, "frobnicate", {})]
    expect = {1: "result", 2: "result", 3: "result", "three-b": "result", 4: -32001, 5: -32601}
    if sorts:
        lines.append(rows(6, limit=50, generation=3, sort=[{"column": "state", "direction": "desc"},
                                                          {"column": "price", "direction": "asc"}]))
        lines.append(rows(7, offset=500, limit=50, generation=4, sort=[{"column": "name", "direction": "desc"}]))
        expect.update({6: "result", 7: "result"})
    lines.append(req(8, "shutdown"))
    expect[8] = "result"
    return [json.dumps(m, separators=(",", ":")) for m in lines], expect


def check_plugin(argv, sorts):
    name = pathlib.Path(argv[-1]).name
    if shutil.which(argv[0]) is None:
        print(f"skip {name}: {argv[0]} not found")
        return 0, []
    host_lines, expect = plugin_script(sorts)
    session = Session(name)
    try:
        run = subprocess.run(argv, input="".join(l + "\n" for l in host_lines), capture_output=True,
                             text=True, encoding="utf-8", timeout=60, cwd=HERE)
    except subprocess.TimeoutExpired:
        return 0, [f"{name}: did not exit within 60 s after stdin was closed"]
    for line in host_lines:
        msg = json.loads(line)
        if msg["method"] in HOST_METHODS:
            session.check(f"{name} input", "→", line)
        else:  # deliberately unknown method: the plugin must answer -32601
            session.pending[json.dumps(msg["id"])] = msg
    out = run.stdout.split("\n")
    if out[-1] != "":
        session.fail(name, "last stdout line is not terminated by \\n")
    out = [l for l in out if l != ""]
    answers = {}
    for number, line in enumerate(out, 1):
        session.check(f"{name} stdout line {number}", "←", line)
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict) and "id" in msg:
            answers[msg["id"]] = "result" if "result" in msg else msg.get("error", {}).get("code")
    for id_, wanted in expect.items():
        if answers.get(id_) != wanted:
            session.fail(name, f"request {id_!r}: expected {wanted}, got {answers.get(id_)}")
    if run.returncode != 0:
        session.fail(name, f"exit status {run.returncode} after stdin was closed")
    return len(out), session.failures


def main():
    run_plugins = "--no-plugins" not in sys.argv[1:]
    count, failures = check_spec()
    print(f"PROTOCOL.md: {count} example lines checked")
    seen, more = check_listings(run_plugins=run_plugins)
    print(f"PROTOCOL.md: {seen} listing/session markers checked")
    failures += more
    n, more = check_transcripts(run_plugins=run_plugins)
    print(f"examples/*.transcript: {n} lines checked")
    failures += more
    if run_plugins:
        for argv, sorts in ((["bash", str(HERE / "hello.sh")], False), (["python3", str(HERE / "hello.py")], True)):
            n, more = check_plugin(argv, sorts)
            print(f"{pathlib.Path(argv[-1]).name}: {n} output lines checked")
            failures += more
    for failure in failures:
        print("FAIL", failure)
    print("OK" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
