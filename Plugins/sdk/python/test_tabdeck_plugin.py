"""Tests of the Python SDK: the example plugin is spawned and driven over the protocol."""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import textwrap
import time
import unittest
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import tabdeck_plugin as sdk  # noqa: E402
from tabdeck_testing import PluginProcess, ResponseError  # noqa: E402

EXAMPLE = os.path.join(HERE, "example_plugin.py")
STATES = ["todo", "doing", "done"]
N = 100


def spawn(script: str = EXAMPLE, **env: str) -> PluginProcess:
    return PluginProcess([sys.executable, script], env=env)


def rows_params(table: str = "root", offset: int = 0, limit: int = 10,
                sort: list | None = None, generation: Any = 1, filter: Any = None) -> dict:
    return {"table": table, "offset": offset, "limit": limit, "sort": sort or [],
            "filter": filter, "generation": generation}


def key(value: Any, column: str) -> tuple:
    """The test's own idea of the order of one column (independent of sdk.sort_key)."""
    if value is None:
        return (0,)
    if column == "state":
        return (1, STATES.index(value))
    if column == "name":
        return (1, value.lower())
    return (1, value)


COLUMNS = ["name", "age", "state", "score", "active", "joined", "note"]
SORTABLE = COLUMNS[:-1]


class Shared(unittest.TestCase):
    """One example plugin process for the read-only tests."""

    p: PluginProcess

    @classmethod
    def setUpClass(cls) -> None:
        cls.p = spawn()
        cls.init = cls.p.initialize()
        cls.desc = cls.p.call("open", {"args": {"rows": N}})

    @classmethod
    def tearDownClass(cls) -> None:
        cls.p.close()

    def error(self, method: str, params: Any) -> ResponseError:
        with self.assertRaises(ResponseError) as cm:
            self.p.call(method, params)
        return cm.exception

    def all_rows(self, sort: list, page: int = 17, table: str = "root") -> list[dict]:
        out: list[dict] = []
        offset = 0
        while True:
            res = self.p.call("rows", rows_params(table, offset, page, sort))
            out += res["rows"]
            self.assertEqual(res["offset"], offset)
            if len(res["rows"]) < page:
                return out
            offset += page


class HandshakeAndOpen(Shared):
    def test_initialize_result(self) -> None:
        self.assertEqual(self.init["protocolVersion"], 1)
        self.assertEqual(self.init["name"], "example")
        self.assertEqual(self.init["version"], "1.0.0")
        self.assertEqual(self.init["capabilities"]["sort"], True)
        self.assertEqual(self.init["capabilities"]["multiSort"], True)

    def test_second_initialize_is_invalid_request(self) -> None:
        self.assertEqual(self.error("initialize", {"protocolVersion": 1}).code, -32600)

    def test_open_description(self) -> None:
        d = self.desc
        self.assertEqual(d["table"], "root")
        self.assertEqual(d["title"], "people")
        self.assertEqual([c["id"] for c in d["columns"]], COLUMNS)
        self.assertEqual(d["total"], N)
        self.assertEqual(d["columns"][2], {"id": "state", "title": "State", "type": "enum",
                                           "values": STATES})
        self.assertIs(d["columns"][6]["sortable"], False)
        self.assertEqual([a["id"] for a in d["actions"]], ["touch", "fail", "print", "single", "add", "delete"])
        self.assertIs(d["movable"], True)
        self.assertIs(self.init["capabilities"]["move"], True)

    def test_open_bad_args(self) -> None:
        self.assertEqual(self.error("open", {"args": [1, 2]}).code, -32602)
        self.assertEqual(self.error("open", {"args": {"rows": -1}}).code, -32602)

    def test_compact_json_on_the_wire(self) -> None:
        raw = self.p.raw_lines[0]
        self.assertTrue(raw.startswith(b'{"jsonrpc":"2.0","id":1,"result":{'), raw)
        self.assertNotIn(b": ", raw)
        self.assertNotIn(b", ", raw)


class HandshakeDetails(unittest.TestCase):
    def test_unknown_host_capabilities_are_ignored(self) -> None:
        with spawn() as p:
            res = p.call("initialize", {"protocolVersion": 1, "host": {"name": "x"},
                                        "capabilities": {"progress": True, "teleport": {"a": 1}}})
            self.assertEqual(res["protocolVersion"], 1)
            with self.assertRaises(ResponseError) as cm:
                p.call("rows", rows_params())
            self.assertEqual(cm.exception.code, -32001)  # not opened yet: no table
            self.assertEqual(p.shutdown(), 0)

    def test_requests_before_initialize(self) -> None:
        with spawn() as p:
            with self.assertRaises(ResponseError) as cm:
                p.call("open", {"args": {}})
            self.assertEqual(cm.exception.code, -32600)
            self.assertEqual(p.request("bogus")["error"]["code"], -32601)
            p.initialize()
            self.assertEqual(p.call("open", {"args": {"rows": 3}})["total"], 3)
            self.assertEqual(p.shutdown(), 0)


class Paging(Shared):
    def ids(self, res: dict) -> list[str]:
        return [r["id"] for r in res["rows"]]

    def test_start(self) -> None:
        res = self.p.call("rows", rows_params(offset=0, limit=10))
        self.assertEqual(self.ids(res), [f"p{i}" for i in range(10)])
        self.assertEqual(res["total"], N)
        self.assertEqual(res["offset"], 0)
        first = res["rows"][0]
        self.assertEqual(first["cells"], ["ada 0000", 20, "todo", None, True, "2024-01-01",
                                          "note 0"])
        self.assertEqual(first["detail"], "person number 0")
        self.assertIs(first["hasChildren"], True)

    def test_middle(self) -> None:
        res = self.p.call("rows", rows_params(offset=45, limit=10))
        self.assertEqual(self.ids(res), [f"p{i}" for i in range(45, 55)])
        self.assertEqual(res["offset"], 45)

    def test_end(self) -> None:
        res = self.p.call("rows", rows_params(offset=95, limit=10))
        self.assertEqual(self.ids(res), [f"p{i}" for i in range(95, 100)])
        self.assertEqual(self.p.call("rows", rows_params(offset=100, limit=10))["rows"], [])
        self.assertEqual(self.p.call("rows", rows_params(offset=5000, limit=10))["rows"], [])
        self.assertEqual(self.p.call("rows", rows_params(offset=3, limit=0))["rows"], [])

    def test_generation_is_echoed(self) -> None:
        for gen in (0, 7, 123456789, "g-5"):
            self.assertEqual(self.p.call("rows", rows_params(generation=gen))["generation"], gen)

    def test_many_requests_in_flight(self) -> None:
        ids = {self.p.start("rows", rows_params(offset=k * 5, limit=5, generation=k)): k
               for k in range(20)}
        for rid, k in ids.items():
            res = self.p.response(rid)["result"]
            self.assertEqual(res["generation"], k)
            self.assertEqual(res["rows"][0]["id"], f"p{k * 5}")

    def test_string_ids(self) -> None:
        rid = self.p.start("rows", rows_params(limit=1), id="req-abc")
        self.assertEqual(self.p.response(rid)["result"]["rows"][0]["id"], "p0")

    def test_filter(self) -> None:
        res = self.p.call("rows", rows_params(limit=100, filter="ADA"))
        self.assertEqual(res["total"], 10)
        self.assertTrue(all(r["cells"][0].startswith("ada ") for r in res["rows"]))


class Locate(Shared):
    """`locate`: where rows are in an order and filter (the host's cursor follows its row)."""

    def test_the_first_id_found_and_its_offset(self) -> None:
        sort = [{"column": "name", "direction": "desc"}]
        order = [r["id"] for r in self.all_rows(sort)]
        res = self.p.call("locate", {"table": "root", "rows": ["nope", "p7", "p8"], "sort": sort,
                                     "filter": None, "generation": 2})
        self.assertEqual(res, {"row": "p7", "offset": order.index("p7")})

    def test_filtered_out_rows_are_not_found(self) -> None:
        res = self.p.call("locate", {"table": "root", "rows": ["p1"], "sort": [], "filter": "ADA",
                                     "generation": 3})
        self.assertEqual(res, {"row": None})
        res = self.p.call("locate", {"table": "root", "rows": ["p1", "p10"], "sort": [],
                                     "filter": "ADA", "generation": 3})
        self.assertEqual(res, {"row": "p10", "offset": 1})

    def test_bad_rows_param(self) -> None:
        self.assertEqual(self.error("locate", {"table": "root", "rows": "p1", "sort": []}).code, -32602)


class Sorting(Shared):
    def check_sorted(self, rows: list[dict], keys: list[tuple[str, str]]) -> None:
        self.assertEqual(sorted(r["id"] for r in rows), sorted(f"p{i}" for i in range(N)))

        def tup(r: dict) -> list:
            return [key(r["cells"][COLUMNS.index(c)], c) for c, _ in keys]
        for a, b in zip(rows, rows[1:]):
            ka, kb = tup(a), tup(b)
            for (c, direction), x, y in zip(keys, ka, kb):
                if x == y:
                    continue
                if direction == "asc":
                    self.assertLess(x, y, f"{c} asc: {a} before {b}")
                else:
                    self.assertGreater(x, y, f"{c} desc: {a} before {b}")
                break

    def test_each_column_both_directions(self) -> None:
        for col in SORTABLE:
            for direction in ("asc", "desc"):
                with self.subTest(column=col, direction=direction):
                    rows = self.all_rows([{"column": col, "direction": direction}])
                    self.check_sorted(rows, [(col, direction)])
                    # the order really changed something (the natural order is by id)
                    self.assertNotEqual([r["id"] for r in rows], [f"p{i}" for i in range(N)])

    def test_nulls_first_ascending_last_descending(self) -> None:
        asc = self.all_rows([{"column": "score", "direction": "asc"}])
        desc = self.all_rows([{"column": "score", "direction": "desc"}])
        nulls = sum(1 for i in range(N) if i % 7 == 0)
        self.assertEqual([r["cells"][3] for r in asc[:nulls]], [None] * nulls)
        self.assertIsNotNone(asc[nulls]["cells"][3])
        self.assertEqual([r["cells"][3] for r in desc[-nulls:]], [None] * nulls)

    def test_text_is_case_insensitive(self) -> None:
        rows = self.all_rows([{"column": "name", "direction": "asc"}])
        self.assertEqual(rows[0]["cells"][0], "ada 0000")
        self.assertEqual(rows[10]["cells"][0], "Bob 0001")  # not after every lowercase name

    def test_enum_uses_declared_order(self) -> None:
        rows = self.all_rows([{"column": "state", "direction": "asc"}])
        seen = [r["cells"][2] for r in rows]
        self.assertEqual(sorted(set(seen), key=seen.index), STATES)

    def test_multi_key(self) -> None:
        keys = [("state", "asc"), ("age", "desc"), ("name", "asc")]
        rows = self.all_rows([{"column": c, "direction": d} for c, d in keys])
        self.check_sorted(rows, keys)
        people = [(i, 20 + (i * 7) % 10, STATES[(i * 5) % 3]) for i in range(N)]
        expected = sorted(people, key=lambda t: (STATES.index(t[2]), -t[1],
                                                 ["ada", "bob", "carol", "dave", "eve", "frank",
                                                  "grace", "heidi", "ivan", "judy"][t[0] % 10],
                                                 t[0]))
        self.assertEqual([r["id"] for r in rows], [f"p{t[0]}" for t in expected])

    def test_sort_errors(self) -> None:
        bad = [([{"column": "note", "direction": "asc"}], -32002),
               ([{"column": "nope", "direction": "asc"}], -32602),
               ([{"column": "age", "direction": "sideways"}], -32602),
               ([{"direction": "asc"}], -32602),
               ({"column": "age"}, -32602)]
        for sort, code in bad:
            with self.subTest(sort=sort):
                params = rows_params()
                params["sort"] = sort
                self.assertEqual(self.error("rows", params).code, code)


class Errors(Shared):
    def test_unknown_method(self) -> None:
        msg = self.p.request("frobnicate", {})
        self.assertEqual(msg["error"]["code"], -32601)
        self.assertEqual(msg["jsonrpc"], "2.0")

    def test_malformed_json(self) -> None:
        before = len(self.p.raw_lines)
        self.p.send_raw(b'{"jsonrpc":"2.0","id":99,"method":\n')
        msg = self.p.wait_for(lambda: next((m for m in self.p.messages[before:]
                                            if "error" in m), None))
        self.assertEqual(msg["error"]["code"], -32700)
        self.assertIsNone(msg["id"])
        self.assertEqual(self.p.call("rows", rows_params(limit=1))["rows"][0]["id"], "p0")

    def test_invalid_utf8_and_non_objects(self) -> None:
        before = len(self.p.raw_lines)
        self.p.send_raw(b'{"x":"\xff\xfe"}\n[1,2]\n"hello"\n\n{"id":{"a":1},"method":"rows"}\n')
        errs = self.p.wait_for(lambda: (lambda e: e if len(e) >= 4 else None)(
            [m["error"]["code"] for m in self.p.messages[before:] if "error" in m]))
        self.assertEqual(errs, [-32700, -32600, -32600, -32600])

    def test_unknown_table(self) -> None:
        self.assertEqual(self.error("rows", rows_params(table="nope")).code, -32001)
        self.assertEqual(self.error("children", {"table": "nope", "row": "p1"}).code, -32001)
        self.assertEqual(self.error("action", {"table": "nope", "action": "touch",
                                               "rows": ["p1"]}).code, -32001)

    def test_invalid_params(self) -> None:
        for params in (rows_params(offset=-1), rows_params(limit=-5),
                       {**rows_params(), "offset": "3"}, {**rows_params(), "limit": None},
                       {**rows_params(), "table": 5}):
            with self.subTest(params=params):
                self.assertEqual(self.error("rows", params).code, -32602)
        self.assertEqual(self.error("rows", [1, 2]).code, -32602)
        self.assertEqual(self.error("action", {"table": "root", "action": "touch",
                                               "rows": "p1"}).code, -32602)

    def test_overlong_line_is_discarded(self) -> None:
        before = len(self.p.raw_lines)
        big = b'{"jsonrpc":"2.0","id":555,"method":"rows","params":{"pad":"' + \
            b"x" * (sdk.MAX_LINE_BYTES + 10) + b'"}}\n'
        self.p.send_raw(big)
        msg = self.p.wait_for(lambda: next((m for m in self.p.messages[before:]
                                            if "error" in m), None))
        self.assertEqual(msg["error"]["code"], -32600)
        self.assertIsNone(msg["id"])
        self.assertNotIn(555, self.p.responses)
        self.assertEqual(self.p.call("rows", rows_params(limit=1))["rows"][0]["id"], "p0")

    def test_responses_and_unknown_notifications_are_ignored(self) -> None:
        self.p.send({"jsonrpc": "2.0", "id": 4242, "result": {}})
        self.p.notify("whatever", {"x": 1})
        self.p.notify("$/cancel", {"id": 987654})  # nothing in flight with that id
        self.p.notify("close", {"table": "never-opened"})
        self.assertEqual(self.p.call("rows", rows_params(limit=1))["rows"][0]["id"], "p0")
        self.assertNotIn(4242, self.p.responses)


class Editing(unittest.TestCase):
    """Insert with a form, destructive delete and row moves, each on a plugin of its own."""

    def setUp(self) -> None:
        self.p = spawn()
        self.p.initialize()
        self.desc = self.p.call("open", {"args": {"rows": 5}})

    def tearDown(self) -> None:
        self.p.close()

    def ids(self) -> list[str]:
        return [r["id"] for r in self.p.call("rows", rows_params(limit=50))["rows"]]

    def error(self, method: str, params: Any) -> ResponseError:
        with self.assertRaises(ResponseError) as cm:
            self.p.call(method, params)
        return cm.exception

    def test_the_new_action_fields_are_described(self) -> None:
        add, delete = self.desc["actions"][-2:]
        self.assertEqual(add["rows"], "none")
        self.assertEqual(add["hotkey"], "+")
        self.assertEqual([f["id"] for f in add["input"]], ["name", "age", "state", "active"])
        self.assertEqual(add["input"][1], {"id": "age", "title": "Age", "type": "integer", "default": 30})
        self.assertIs(delete["destructive"], True)

    def test_add_takes_its_input_with_defaults(self) -> None:
        res = self.p.call("action", {"table": "root", "action": "add", "rows": [], "input": {"name": "Ada"}})
        self.assertEqual(res, {"message": "added Ada"})
        page = self.p.call("rows", rows_params(limit=50))
        self.assertEqual(page["total"], 6)
        self.assertEqual(page["rows"][-1]["cells"][:3], ["Ada", 30, None])
        self.assertIs(page["rows"][-1]["cells"][4], True)

    def test_bad_input_is_refused_naming_the_field(self) -> None:
        for input, message in (({}, "Name: required"), ({"name": "A", "age": "x"}, "Age: expected an integer"),
                               ({"name": "A", "state": "later"}, "State: expected one of todo, doing, done"),
                               ({"name": "A", "nope": 1}, "unknown field: nope")):
            with self.subTest(input=input):
                err = self.error("action", {"table": "root", "action": "add", "rows": [], "input": input})
                self.assertEqual(err.code, -32602)
                self.assertIn(message, err.message)
        self.assertEqual(self.p.call("rows", rows_params())["total"], 5)

    def test_delete_removes_the_rows(self) -> None:
        res = self.p.call("action", {"table": "root", "action": "delete", "rows": ["p1", "p3"]})
        self.assertEqual(res, {"message": "deleted 2 people"})
        self.assertEqual(self.ids(), ["p0", "p2", "p4"])

    def test_move_before_and_after_a_neighbour(self) -> None:
        self.assertEqual(self.p.call("move", {"table": "root", "row": "p3", "before": "p2"}),
                         {"message": "moved p3 before p2"})
        self.assertEqual(self.ids(), ["p0", "p1", "p3", "p2", "p4"])
        self.p.call("move", {"table": "root", "row": "p0", "after": "p1"})
        self.assertEqual(self.ids(), ["p1", "p0", "p3", "p2", "p4"])
        self.assertEqual(self.error("move", {"table": "root", "row": "p0", "after": "p9"}).code, -32602)
        self.assertEqual(self.error("move", {"table": "root", "row": "p0"}).code, -32602)
        self.assertEqual(self.error("move", {"table": "root", "row": "p0", "before": "p1", "after": "p2"}).code, -32602)
        child = self.p.call("children", {"table": "root", "row": "p0"})
        self.assertNotIn("movable", child)
        self.assertEqual(self.error("move", {"table": child["table"], "row": "p0-t1", "before": "p0-t0"}).code, -32002)


class Builders(unittest.TestCase):
    def test_action_spec_and_field_check_their_arguments(self) -> None:
        self.assertEqual(sdk.action_spec("a", rows="none"),
                         {"id": "a", "title": "a", "confirm": False, "multiple": False, "rows": "none"})
        self.assertEqual(sdk.action_spec("a", multiple=True)["multiple"], True)
        for bad in ({"rows": "all"}, {"hotkey": "ab"}, {"hotkey": " "},
                    {"input": [sdk.field("x"), sdk.field("x")]}):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                sdk.action_spec("a", **bad)
        for args, kwargs in ((("x", None, "date"), {}), (("a=b",), {}), (("s", None, "enum"), {}),
                             (("n", None, "integer"), {"default": "3"})):
            with self.subTest(args=args), self.assertRaises(ValueError):
                sdk.field(*args, **kwargs)

    def test_move_in_list(self) -> None:
        items = [{"id": i} for i in "abcd"]
        sdk.move_in_list(items, "d", "before", "b")
        self.assertEqual([r["id"] for r in items], list("adbc"))
        sdk.move_in_list(items, "a", "after", "c")
        self.assertEqual([r["id"] for r in items], list("dbca"))
        with self.assertRaises(sdk.RpcError):
            sdk.move_in_list(items, "z", "after", "c")

    def test_handlers_without_input_keep_working(self) -> None:
        self.assertFalse(sdk._takes_input(lambda table, action, rows: None, 3))
        self.assertTrue(sdk._takes_input(lambda table, action, rows, input: None, 3))
        self.assertTrue(sdk._takes_input(lambda *args: None, 3))


class ActionsAndChildren(Shared):
    def test_action_message(self) -> None:
        res = self.p.call("action", {"table": "root", "action": "touch", "rows": ["p1", "p2"]})
        self.assertEqual(res, {"message": "touched 2 rows", "invalidate": True})

    def test_action_failed(self) -> None:
        err = self.error("action", {"table": "root", "action": "fail", "rows": ["p7", "p8"]})
        self.assertEqual(err.code, -32003)
        self.assertIn("p7", err.message)
        self.assertEqual(err.data, {"row": "p7"})

    def test_action_checks(self) -> None:
        self.assertEqual(self.error("action", {"table": "root", "action": "explode",
                                               "rows": ["p1"]}).code, -32602)
        self.assertEqual(self.error("action", {"table": "root", "action": "single",
                                               "rows": ["p1", "p2"]}).code, -32602)

    def test_stray_print_does_not_reach_stdout(self) -> None:
        before = len(self.p.raw_lines)
        self.assertEqual(self.p.call("action", {"table": "root", "action": "print",
                                                "rows": ["p1"]}), {"message": "printed"})
        self.assertEqual(self.p.garbage, [])
        self.assertTrue(all(json.loads(x) for x in self.p.raw_lines[before:]))
        self.p.wait_for(lambda: "stray fd-1 write" in self.p.stderr_text, 2)
        self.assertIn("stray output", self.p.stderr_text)

    def test_children(self) -> None:
        child = self.p.call("children", {"table": "root", "row": "p3"})
        self.assertNotEqual(child["table"], "root")
        self.assertEqual(child["title"], "tasks of p3")
        self.assertEqual(child["total"], 3)
        res = self.p.call("rows", rows_params(child["table"], 0, 10,
                                              [{"column": "n", "direction": "desc"}], 9))
        self.assertEqual([r["id"] for r in res["rows"]], ["p3-t2", "p3-t1", "p3-t0"])
        self.assertEqual(res["generation"], 9)
        self.assertEqual(self.p.call("action", {"table": child["table"], "action": "done",
                                                "rows": ["p3-t1"]}), {"message": "1 tasks done"})
        other = self.p.call("children", {"table": "root", "row": "p4"})
        self.assertNotEqual(other["table"], child["table"])
        self.p.notify("close", {"table": child["table"]})
        self.assertEqual(self.error("rows", rows_params(child["table"])).code, -32001)
        self.assertEqual(self.p.call("rows", rows_params(other["table"]))["total"], 3)
        self.assertEqual(self.error("children", {"table": "root", "row": "zz"}).code, -32602)


class Cancel(unittest.TestCase):
    def test_cancel_running_and_queued_requests(self) -> None:
        with spawn() as p:
            p.initialize()
            p.call("open", {"args": {"rows": 10, "delay": 2}})
            t0 = time.monotonic()
            running = p.start("rows", rows_params())
            queued = p.start("rows", rows_params(generation=2))
            time.sleep(0.1)
            p.notify("$/cancel", {"id": queued})
            p.notify("$/cancel", {"id": running})
            self.assertEqual(p.response(running)["error"]["code"], -32800)
            self.assertEqual(p.response(queued)["error"]["code"], -32800)
            self.assertLess(time.monotonic() - t0, 1.5)
            # late and unknown cancels are harmless
            p.notify("$/cancel", {"id": running})
            p.notify("$/cancel", {"id": "never"})
            p.notify("$/cancel", {})
            self.assertEqual(p.call("shutdown"), None)
            p.close_stdin()
            self.assertEqual(p.wait_exit(), 0)


class Lifecycle(unittest.TestCase):
    def test_shutdown_exits_cleanly(self) -> None:
        with spawn() as p:
            p.initialize()
            p.call("open", {"args": {"tick": 0.05}})
            msg = p.request("shutdown")
            self.assertIn("result", msg)
            self.assertIsNone(msg["result"])
            p.close_stdin()
            self.assertEqual(p.wait_exit(), 0)
            self.assertEqual(p.garbage, [])

    def test_end_of_input_without_shutdown_exits_cleanly(self) -> None:
        with spawn() as p:
            p.initialize()
            p.close_stdin()
            self.assertEqual(p.wait_exit(), 0)


class SectionsSentAgain(unittest.TestCase):
    """Sections whose counts change: sent under a filter and with `invalidate` (PROTOCOL.md 10.6)."""

    def test_counts_under_a_filter_and_in_invalidate(self) -> None:
        with spawn() as p:
            p.initialize()
            desc = p.call("open", {"args": {"rows": 30, "sections": True, "tick": 0.05}})
            self.assertEqual([(s["id"], s["count"]) for s in desc["sections"]], [("todo", 10), ("doing", 10), ("done", 10)])
            res = p.call("rows", rows_params(limit=100, filter="ADA"))
            kept = {}
            for r in res["rows"]:
                kept[r["section"]] = kept.get(r["section"], 0) + 1
            self.assertEqual({s["id"]: s["count"] for s in res["sections"]}, {s: kept.get(s, 0) for s in ("todo", "doing", "done")})
            self.assertNotIn("sections", p.call("rows", rows_params(limit=5)), "unfiltered pages need none")
            inv = p.notification("invalidate", lambda n: "total" in n["params"])
            self.assertEqual(inv["params"]["sections"], desc["sections"])
            self.assertEqual(p.shutdown(), 0)

    def test_the_sdk_sends_sections_in_invalidate(self) -> None:
        plugin = sdk.TablePlugin()
        sent: list[Any] = []
        plugin.notify = lambda method, params: sent.append((method, params))  # type: ignore[method-assign]
        plugin.invalidate("root", total=3, sections=[sdk.section_spec("a", "A", count=3)])
        self.assertEqual(sent, [("invalidate", {"table": "root", "total": 3, "sections": [{"id": "a", "title": "A", "count": 3}]})])


class LiveNotifications(unittest.TestCase):
    def test_notifications_arrive(self) -> None:
        with spawn() as p:
            p.initialize()
            p.call("open", {"args": {"rows": 5, "tick": 0.05}})
            badge = p.notification("badge", lambda n: n["params"]["value"] >= 2)
            self.assertIsInstance(badge["params"]["value"], int)
            inv = p.notification("invalidate", lambda n: "total" in n["params"])
            self.assertEqual(inv["params"], {"table": "root", "total": 5})
            inv = p.notification("invalidate", lambda n: "rows" in n["params"])
            self.assertEqual(inv["params"], {"table": "root", "rows": ["p1", "p2"]})
            prog = p.notification("progress")
            self.assertEqual(prog["params"], {"done": 1, "total": 10, "message": "ticking"})
            self.assertEqual(p.notification("status")["params"], {"text": "tick 1"})
            self.assertEqual(p.notification("log")["params"],
                             {"level": "debug", "message": "tick 1"})
            # requests still work while notifications are flowing
            self.assertEqual(len(p.call("rows", rows_params(limit=3))["rows"]), 3)
            self.assertEqual(p.shutdown(), 0)
            self.assertEqual(p.garbage, [])


NO_SORT_PLUGIN = textwrap.dedent("""
    import sys
    sys.path.insert(0, {sdk_dir!r})
    from tabdeck_plugin import TablePlugin, column, row

    class Plain(TablePlugin):
        name = "plain"
        def columns(self):
            return [column("w"), column("n", type="integer")]
        def all_rows(self):
            return [row(i, [w, i]) for i, w in enumerate(["c", "a", "b"])]

    raise SystemExit(Plain().run())
""")


class WithoutSortCapability(unittest.TestCase):
    def test_sort_is_ignored(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "plain.py")
            with open(script, "w") as f:
                f.write(NO_SORT_PLUGIN.format(sdk_dir=HERE))
            with spawn(script) as p:
                caps = p.initialize()["capabilities"]
                self.assertNotIn("sort", caps)
                desc = p.call("open", {"args": {}})
                self.assertEqual(desc["title"], "")
                params = rows_params(sort=[{"column": "w", "direction": "asc"},
                                           {"column": "bogus", "direction": "up"}])
                res = p.call("rows", params)
                self.assertEqual([r["id"] for r in res["rows"]], ["0", "1", "2"])
                self.assertEqual(res["total"], 3)
                self.assertEqual(p.request("action", {"table": "root", "action": "x",
                                                      "rows": []})["error"]["code"], -32602)
                self.assertEqual(p.request("children", {"table": "root", "row": "0"})
                                 ["error"]["code"], -32002)
                self.assertEqual(p.shutdown(), 0)


class Chunks(io.RawIOBase):
    """A stdin that hands out a few bytes at a time, to exercise the line splitter."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size, self.pos = data, size, 0

    def readable(self) -> bool:
        return True

    def read1(self, n: int = -1) -> bytes:
        chunk = self.data[self.pos:self.pos + self.size]
        self.pos += len(chunk)
        return chunk


class Big(sdk.TablePlugin):
    name = "big"

    def capabilities(self) -> dict[str, bool]:
        return {"sort": True}

    def columns(self) -> list[dict[str, Any]]:
        return [sdk.column("blob")]

    def all_rows(self) -> list[dict[str, Any]]:
        return [sdk.row(i, ["é" * (512 * 1024)]) for i in range(10)]  # 1 MiB of UTF-8 each


def run_in_process(plugin: sdk.TablePlugin, lines: list[dict], chunk: int = 7) -> list[dict]:
    data = b"".join(json.dumps(m).encode() + b"\n" for m in lines)
    out = io.BytesIO()
    plugin.run(stdin=Chunks(data, chunk), stdout=out)  # type: ignore[arg-type]
    return [json.loads(x) for x in out.getvalue().splitlines()]


class InProcess(unittest.TestCase):
    def test_line_splitting_across_chunks(self) -> None:
        msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": 1}},
                {"jsonrpc": "2.0", "id": 2, "method": "open", "params": {"args": {}}},
                {"jsonrpc": "2.0", "id": 3, "method": "rows",
                 "params": rows_params(limit=2, generation=5)}]
        out = run_in_process(Big(), msgs, chunk=3)
        self.assertEqual([m["id"] for m in out], [1, 2, 3])
        self.assertEqual(out[2]["result"]["generation"], 5)

    def test_large_page_is_shortened_to_fit_the_line_limit(self) -> None:
        msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": 1}},
                {"jsonrpc": "2.0", "id": 2, "method": "open", "params": {}},
                {"jsonrpc": "2.0", "id": 3, "method": "rows",
                 "params": rows_params(limit=10)}]
        out = run_in_process(Big(), msgs, chunk=1 << 16)
        res = out[2]["result"]
        self.assertEqual(res["total"], 10)
        self.assertEqual(len(res["rows"]), 3)  # 3 MiB fit, 4 MiB do not
        self.assertLessEqual(len(encode(out[2])), sdk.MAX_LINE_BYTES)


def encode(msg: dict) -> bytes:
    return sdk.encode_message(msg)


class Helpers(unittest.TestCase):
    def test_encode_message(self) -> None:
        data = sdk.encode_message({"a": "é\n\u2028\x1b", "b": [1.5, float("nan")]})
        self.assertEqual(data, '{"a":"é\\n\u2028\\u001b","b":[1.5,null]}'.encode())
        self.assertNotIn(b"\n", data)

    def test_sort_key_orders_mixed_values(self) -> None:
        enum = {"type": "enum", "values": ["low", "high"]}
        self.assertEqual(sorted(["high", None, "weird", "low"], key=lambda v: sdk.sort_key(v, enum)),
                         [None, "low", "high", "weird"])
        self.assertEqual(sorted([3, None, "b", True, 1.5, "A"], key=sdk.sort_key),
                         [None, True, 1.5, 3, "A", "b"])

    def test_sort_rows_is_stable_and_multi_key(self) -> None:
        cols = [sdk.column("a"), sdk.column("b", type="integer")]
        rows = [sdk.row(i, c) for i, c in enumerate([["x", 2], ["y", 1], ["x", 1], ["x", None],
                                                      ["X", 1], ["x", 1]])]
        got = sdk.sort_rows(rows, [{"column": "a", "direction": "desc"},
                                   {"column": "b", "direction": "asc"}], cols)
        # "x" and "X" are equal case-insensitively; the exact text breaks the tie ("X" < "x")
        self.assertEqual([r["id"] for r in got], ["1", "3", "2", "5", "0", "4"])
        got = sdk.sort_rows(rows, [{"column": "b"}], cols)  # stable: equal keys keep input order
        self.assertEqual([r["id"] for r in got], ["3", "1", "2", "4", "5", "0"])
        with self.assertRaises(sdk.RpcError) as cm:
            sdk.sort_rows(rows, [{"column": "zz"}], cols)
        self.assertEqual(cm.exception.code, -32602)

    def test_builders(self) -> None:
        self.assertEqual(sdk.column("x", type="integer", width=5, align="right"),
                         {"id": "x", "title": "x", "type": "integer", "width": 5,
                          "align": "right"})
        with self.assertRaises(ValueError):
            sdk.column("e", type="enum")
        self.assertEqual(sdk.column("m", type="decimal", decimals=2)["decimals"], 2)
        for bad in (dict(type="integer", decimals=2), dict(type="decimal", decimals=16),
                    dict(type="decimal", decimals=True)):
            with self.assertRaises(ValueError):
                sdk.column("m", **bad)
        self.assertEqual(sdk.row(5, [1]), {"id": "5", "cells": [1]})
        self.assertEqual(sdk.action_spec("kill", "Kill", confirm=True),
                         {"id": "kill", "title": "Kill", "confirm": True, "multiple": False})


if __name__ == "__main__":
    unittest.main()


class Sections(unittest.TestCase):
    """The SDK's section helpers: descriptions, counts, and sorting within sections."""

    COLS = [sdk.column("name"), sdk.column("size", type="integer")]
    SECTIONS = [sdk.section_spec("dirs", "Folders", footer="2 folders"), sdk.section_spec("files", "Files")]

    def rows(self) -> list[dict]:
        return [sdk.row("b.txt", ["b.txt", 5], section="files"), sdk.row("src", ["src", None], section="dirs"),
                sdk.row("a.txt", ["a.txt", 9], section="files"), sdk.row("docs", ["docs", None], section="dirs"),
                sdk.row("stray", ["stray", 1])]

    def test_section_spec(self) -> None:
        self.assertEqual(sdk.section_spec("a", count=3), {"id": "a", "title": "a", "count": 3})
        self.assertEqual(sdk.section_spec("a", "A", footer="f"), {"id": "a", "title": "A", "footer": "f"})
        for bad in (-1, 1.5, True):
            with self.assertRaises(ValueError):
                sdk.section_spec("a", count=bad)

    def test_sorting_never_mixes_sections(self) -> None:
        by_name = sdk.sort_rows_in_sections(self.rows(), [{"column": "name", "direction": "asc"}], self.COLS, self.SECTIONS)
        self.assertEqual([r["id"] for r in by_name], ["docs", "src", "a.txt", "b.txt", "stray"])
        by_size = sdk.sort_rows_in_sections(self.rows(), [{"column": "size", "direction": "desc"}], self.COLS, self.SECTIONS)
        self.assertEqual([r["id"] for r in by_size], ["src", "docs", "a.txt", "b.txt", "stray"])
        unsorted = sdk.sort_rows_in_sections(self.rows(), [], self.COLS, self.SECTIONS)
        self.assertEqual([r["id"] for r in unsorted], ["src", "docs", "b.txt", "a.txt", "stray"])  # grouped, in order

    def test_counts_and_the_default_rows(self) -> None:
        self.assertEqual([s["count"] for s in sdk.count_sections(self.rows(), self.SECTIONS)], [2, 2])
        outer = self

        class Listing(sdk.TableSource):
            def columns(self) -> list[dict]:
                return outer.COLS

            def all_rows(self) -> list[dict]:
                return outer.rows()

            def sections(self) -> list[dict]:
                return outer.SECTIONS

        table = Listing()
        self.assertEqual(table.describe()["sections"],
                         [{"id": "dirs", "title": "Folders", "footer": "2 folders", "count": 2},
                          {"id": "files", "title": "Files", "count": 2}])
        page = table.rows(0, 3, [{"column": "name", "direction": "desc"}], None)
        self.assertEqual([r["id"] for r in page], ["src", "docs", "b.txt"])
