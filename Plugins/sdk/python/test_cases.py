"""The shared conformance cases (``Plugins/sdk/cases``, PROTOCOL.md 11.3, 10.6 and 11.15) run
through the Python SDK: its sort, its filter rule, a table's default ``rows`` (sections included)
and its default ``find``.

Every case must agree with the protocol (and the host): ``DISAGREES`` is empty, and the test
fails if an entry is added back.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import unittest
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import tabdeck_plugin as sdk  # noqa: E402

CASES = os.path.join(HERE, "..", "cases")

# (case, index in "sorts") -> why sdk.sort_key orders it otherwise than PROTOCOL.md 11.3. Empty:
# the SDK sorts every shared case as the protocol says.
DISAGREES: dict[tuple[str, int], str] = {}


def load_cases() -> list[dict[str, Any]]:
    """Every case file of the shared folder, by name."""
    paths = sorted(glob.glob(os.path.join(CASES, "*.json")))
    if not paths:
        raise AssertionError(f"no case files in {CASES}")
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            out.append(json.load(f))
    return out


class CaseTable(sdk.TableSource):
    """A table serving a case's columns, sections and rows through the SDK's default ``rows``."""

    def __init__(self, case: dict[str, Any]) -> None:
        self.case = case

    def columns(self) -> list[dict[str, Any]]:
        return self.case["columns"]

    def all_rows(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.case["rows"]]

    def sections(self) -> list[dict[str, Any]] | None:
        return self.case.get("sections")


def served(case: dict[str, Any], sort: list[dict[str, str]], filter: str | None) -> tuple[list[str], Any]:
    """The ids of the whole view through ``rows`` in pages of 2, and the sections it sent."""
    table, ids, offset, sections = CaseTable(case), [], 0, None
    while True:
        got = table.rows(offset, 2, sort, filter)
        page = got[0] if isinstance(got, tuple) else got
        if isinstance(got, tuple) and len(got) == 3:
            sections = got[2]
        ids += [r["id"] for r in page]
        offset += len(page)
        if len(page) < 2:
            return ids, sections


class SharedCasesTest(unittest.TestCase):
    def test_sorts(self) -> None:
        for case in load_cases():
            for i, s in enumerate(case["sorts"]):
                with self.subTest(case=case["name"], sort=i):
                    got, _ = served(case, s["sort"], None)
                    self.assertEqual(got, s["ids"], f"{case['name']}.sorts[{i}]: {s['sort']}")

    def test_no_case_disagrees(self) -> None:
        self.assertEqual(DISAGREES, {}, "every shared case must agree with PROTOCOL.md 11.3")

    def test_sort_rows_alone(self) -> None:
        """``sort_rows`` on a case's rows (no table, no sections), as the cases' README shows."""
        for case in load_cases():
            if case.get("sections"):
                continue
            for i, s in enumerate(case["sorts"]):
                with self.subTest(case=case["name"], sort=i):
                    got = [r["id"] for r in sdk.sort_rows(case["rows"], s["sort"], case["columns"])]
                    self.assertEqual(got, s["ids"])

    def test_filters_keep_the_rows_expected(self) -> None:
        for case in load_cases():
            for i, f in enumerate(case["filters"]):
                with self.subTest(case=case["name"], filter=i):
                    natural = [r["id"] for r in case["rows"] if r["id"] in f["ids"]]
                    self.assertEqual([r["id"] for r in sdk.filter_rows(case["rows"], f["filter"])], natural)
                    got, sections = served(case, f.get("sort", []), f["filter"])
                    self.assertEqual(got, f["ids"], f"{case['name']}.filters[{i}]: {f['filter']!r}")
                    if "sections" in f:
                        self.assertEqual({s["id"]: s["count"] for s in sections}, f["sections"])

    def test_every_sort_keeps_sections_together(self) -> None:
        for case in load_cases():
            if not case.get("sections"):
                continue
            where = {r["id"]: r.get("section") for r in case["rows"]}
            order = [s["id"] for s in case["sections"]]
            for s in case["sorts"]:
                got, _ = served(case, s["sort"], None)
                runs = [where[i] for n, i in enumerate(got) if n == 0 or where[got[n - 1]] != where[i]]
                self.assertEqual(runs, order, f"{case['name']}: {s['sort']}")


class SharedFindCasesTest(unittest.TestCase):
    """The ``finds`` of every case through a table's default ``find`` and through ``find_row``."""

    def test_finds(self) -> None:
        n = 0
        for case in load_cases():
            for i, f in enumerate(case.get("finds", [])):
                n += 1
                with self.subTest(case=case["name"], find=i):
                    want = {"offset": f["offset"], "row": f["row"], "wrapped": f["wrapped"]}
                    got = CaseTable(case).find(f["text"], f["from"], f.get("backward", False),
                                               f.get("wrap", False), f.get("sort", []), f.get("filter"))
                    self.assertEqual(got, want, f"{case['name']}.finds[{i}]: {f}")
                    view, _ = served(case, f.get("sort", []), f.get("filter"))
                    rows = {r["id"]: r for r in case["rows"]}
                    self.assertEqual(sdk.find_row([rows[v] for v in view], f["text"], f["from"],
                                                  f.get("backward", False), f.get("wrap", False)), want)
        self.assertGreater(n, 0, "no find cases")

    def test_finds_through_the_protocol(self) -> None:
        """The same finds as ``find`` requests to a plugin that declares ``find``."""
        case = next(c for c in load_cases() if c.get("finds"))

        class Plugin(sdk.TablePlugin):
            def capabilities(self) -> dict[str, bool]:
                return {"sort": True, "multiSort": True, "filter": True, "find": True}

            def columns(self) -> list[dict[str, Any]]:
                return case["columns"]

            def all_rows(self) -> list[dict[str, Any]]:
                return [dict(r) for r in case["rows"]]

        plugin = Plugin()
        plugin._dispatch(sdk._Request(1, "initialize", {"protocolVersion": 1}, True))
        table = plugin._dispatch(sdk._Request(2, "open", {"args": {}}, True))["table"]
        for i, f in enumerate(case["finds"]):
            with self.subTest(find=i):
                params = {"table": table, "text": f["text"], "from": f["from"], "sort": f.get("sort", []),
                          "filter": f.get("filter"), "generation": 7}
                for k in ("backward", "wrap"):
                    if k in f:
                        params[k] = f[k]
                got = plugin._dispatch(sdk._Request(10 + i, "find", params, True))
                self.assertEqual(got, {"generation": 7, "offset": f["offset"], "row": f["row"],
                                       "wrapped": f["wrapped"]})
        for bad in ({"text": ""}, {"text": 3}, {"from": -1}, {"from": True}, {"wrap": "yes"}):
            with self.subTest(bad=bad):
                params = {"table": table, "text": "x", "from": 0, "sort": [], "filter": None, **bad}
                with self.assertRaises(sdk.RpcError) as e:
                    plugin._dispatch(sdk._Request(99, "find", params, True))
                self.assertEqual(e.exception.code, sdk.INVALID_PARAMS)

    def test_find_needs_the_capability(self) -> None:
        class Plugin(sdk.TablePlugin):
            def columns(self) -> list[dict[str, Any]]:
                return [sdk.column("a")]

            def all_rows(self) -> list[dict[str, Any]]:
                return [sdk.row("1", ["x"])]

        plugin = Plugin()
        plugin._dispatch(sdk._Request(1, "initialize", {"protocolVersion": 1}, True))
        plugin._dispatch(sdk._Request(2, "open", {}, True))
        with self.assertRaises(sdk.RpcError) as e:
            plugin._dispatch(sdk._Request(3, "find", {"table": "root", "text": "x", "from": 0}, True))
        self.assertEqual(e.exception.code, sdk.METHOD_NOT_FOUND)


if __name__ == "__main__":
    unittest.main()
