"""The shared conformance cases (``Plugins/sdk/cases``, PROTOCOL.md 11.3 and 10.6) run through
the Python SDK: its sort, its filter rule and a table's default ``rows`` (sections included).

Where the SDK's sort still differs from the protocol (and the host), the case is listed in
``DISAGREES`` with the reason, and the test checks that it still differs: fix the SDK, and the
test names the entry to remove.
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

# (case, index in "sorts") -> why sdk.sort_key orders it otherwise than PROTOCOL.md 11.3.
_TEXT = "text by casefold (Unicode), ties by exact text; 11.3: UTF-8 bytes, or ASCII-folded with ties kept"
_NUMBERS = "exact-number strings compare as text (10.3: numerically, exactly; -0 = 0)"
_DATES = "dates compare as text, not by instant"
_NULLS = "\"nulls\": \"largest\" is ignored"
DISAGREES: dict[tuple[str, int], str] = {
    **{("text", i): _TEXT for i in range(5)},
    **{("numbers", i): _NUMBERS for i in range(5)},
    ("types", 2): _DATES, ("types", 3): _DATES,
    ("nulls-largest", 0): _NULLS, ("nulls-largest", 1): _NULLS, ("nulls-largest", 4): _NULLS,
}


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
                    why = DISAGREES.get((case["name"], i))
                    if why is None:
                        self.assertEqual(got, s["ids"], f"{case['name']}.sorts[{i}]: {s['sort']}")
                    else:
                        self.assertNotEqual(got, s["ids"], f"{case['name']}.sorts[{i}] now agrees: remove it from DISAGREES")

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


if __name__ == "__main__":
    unittest.main()
