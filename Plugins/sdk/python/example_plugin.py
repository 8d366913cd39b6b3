#!/usr/bin/env python3
"""Example Tabdeck plugin built on tabdeck_plugin.py; the SDK's tests drive it.

A deterministic "people" table (open args: ``{"rows": N}``, default 100) with every column
type, multi-key sorting, a string filter, a child table per row ("tasks"), actions, and
optional live notifications (``{"tick": seconds}``) and slow pages (``{"delay": seconds}``,
polling for cancellation). With ``{"sections": true}`` the rows are grouped by state in three
sections with counts and footers, sent again under a filter, at the first page and with every
live ``invalidate``:
every feature of the protocol at once (``tabdeck plugin check --args '{"sections": true}'``).

Editing rows: ``add`` (hotkey ``+``) inserts a person from a form (name, age, state, active),
``delete`` (hotkey ``x``) is destructive (the host asks, No by default), and the rows can be
moved up and down (``move``; K/J in full screen) while the table is not sorted.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tabdeck_plugin import (ACTION_FAILED, INVALID_PARAMS, RpcError, Table,  # noqa: E402
                            TablePlugin, action_spec, column, count_sections, field, move_in_list,
                            row, section_spec)

NAMES = ["ada", "Bob", "carol", "Dave", "eve", "Frank", "grace", "Heidi", "ivan", "Judy"]
STATES = ["todo", "doing", "done"]


def person(i: int) -> dict[str, Any]:
    """Row ``i`` of the people table (ages and states repeat, so multi-key sorts have ties)."""
    return row(f"p{i}", [
        f"{NAMES[i % len(NAMES)]} {i:04d}",        # name (text, mixed case)
        20 + (i * 7) % 10,                          # age (integer, 10 distinct values)
        STATES[(i * 5) % 3],                        # state (enum)
        None if i % 7 == 0 else round((i * 37 % 100) / 10, 1),  # score (decimal or null)
        i % 2 == 0,                                 # active (bool)
        f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",  # joined (date)
        f"note {i}",                                # note (text, not sortable)
    ], detail=f"person number {i}", has_children=True)


class Tasks(Table):
    """Child table: three tasks of one person."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.title = f"tasks of {owner}"

    def columns(self) -> list[dict[str, Any]]:
        return [column("task"), column("n", type="integer")]

    def all_rows(self) -> list[dict[str, Any]]:
        return [row(f"{self.owner}-t{k}", [f"task {k} of {self.owner}", k]) for k in range(3)]

    def actions(self) -> list[dict[str, Any]]:
        return [action_spec("done", "Mark done", multiple=True)]

    def action(self, action: str, rows: list[str]) -> str:
        return f"{len(rows)} tasks done"


class People(TablePlugin):
    name = "example"
    version = "1.0.0"
    title = "people"

    def __init__(self) -> None:
        super().__init__()
        self.people: list[dict[str, Any]] = []
        self.added = 0
        self.delay = 0.0
        self.grouped = False
        self.announced = False
        self.stop = threading.Event()

    def capabilities(self) -> dict[str, bool]:
        return {"sort": True, "multiSort": True, "filter": True, "sections": True, "children": True,
                "actions": True, "live": True, "move": True, "locate": True, "find": True}

    def sections(self) -> list[dict[str, Any]] | None:
        if not self.grouped:
            return None
        specs = [section_spec(state, state.capitalize()) for state in STATES]
        counted = count_sections(self.people, specs)
        return [{**s, "footer": f"{s['count']} {'person' if s['count'] == 1 else 'people'}"} for s in counted]

    def columns(self) -> list[dict[str, Any]]:
        return [
            column("name", "Name", width={"min": 8, "ideal": 16, "max": 30}, order="casefold"),
            column("age", "Age", "integer", width=4, align="right"),
            column("state", "State", "enum", values=STATES),
            column("score", "Score", "decimal", align="right"),
            column("active", "Active", "bool"),
            column("joined", "Joined", "date"),
            column("note", "Note", sortable=False),
        ]

    def actions(self) -> list[dict[str, Any]]:
        return [action_spec("touch", "Touch", multiple=True),
                action_spec("fail", "Fail", confirm=True, multiple=True),
                action_spec("print", "Print to stdout"),
                action_spec("single", "One row only"),
                action_spec("add", "Add a person", rows="none", hotkey="+", input=[
                    field("name", "Name", required=True),
                    field("age", "Age", "integer", default=30),
                    field("state", "State", "enum", values=STATES),
                    field("active", "Active", "boolean", default=True)]),
                action_spec("delete", "Delete", destructive=True, multiple=True, hotkey="x")]

    def movable(self) -> bool:
        return True

    def open(self, args: dict[str, Any]) -> None:
        n = args.get("rows", 100)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise RpcError(INVALID_PARAMS, "rows must be a non-negative integer")
        self.people = [person(i) for i in range(n)]
        self.grouped = args.get("sections") is True
        if self.grouped:
            for p in self.people:
                p["section"] = p["cells"][2]
        self.delay = float(args.get("delay", 0))
        tick = args.get("tick")
        if tick:
            threading.Thread(target=self.live, args=(float(tick),), daemon=True).start()
        return None  # the SDK answers with self.describe()

    def all_rows(self) -> list[dict[str, Any]]:
        return self.people

    def rows(self, offset: int, limit: int, sort: list[dict[str, str]], filter: Any) -> Any:
        end = time.monotonic() + self.delay
        while time.monotonic() < end:
            self.check_cancelled()
            time.sleep(0.01)
        if self.grouped and not self.announced:
            # A plugin that counts in the background announces the count and sections once known;
            # this one knows them at once and says so at the first page, for the example's sake.
            self.announced = True
            self.invalidate(rows=[], total=len(self.people), sections=self.sections())
        return super().rows(offset, limit, sort, filter)

    def children(self, table: str, row: str) -> Table:
        if not any(p["id"] == row for p in self.people):
            raise RpcError(INVALID_PARAMS, f"unknown row: {row}")
        return Tasks(row)

    def action(self, table: str, action: str, rows: list[str], input: dict[str, Any]) -> dict[str, Any]:
        if action == "add":
            self.added += 1
            i = len(self.people) + self.added * 100_000  # ids never reused
            self.people.append(row(f"p{i}", [input["name"], input["age"], input.get("state"), None,
                                             input.get("active", False), None, "added"], detail="added by hand",
                                             section=(input.get("state") or STATES[0]) if self.grouped else None))
            return {"message": f"added {input['name']}"}
        if action == "delete":
            gone = set(rows)
            before = len(self.people)
            self.people = [p for p in self.people if p["id"] not in gone]
            n = before - len(self.people)
            return {"message": f"deleted {n} {'person' if n == 1 else 'people'}"}
        if action == "fail":
            raise RpcError(ACTION_FAILED, f"cannot do that to {rows[0]}", {"row": rows[0]})
        if action == "print":
            print("stray output that must not reach the protocol channel")
            os.write(1, b"stray fd-1 write\n")
            return {"message": "printed"}
        return {"message": f"touched {len(rows)} rows", "invalidate": True}

    def move(self, table: str, row: str, place: str, target: str) -> str:
        move_in_list(self.people, row, place, target)
        return f"moved {row} {place} {target}"

    def live(self, tick: float) -> None:
        k = 0
        while not self.stop.wait(tick):
            k += 1
            self.badge(k)
            self.invalidate(total=len(self.people), sections=self.sections())
            self.invalidate(rows=["p1", "p2"])
            self.progress(k, 10, "ticking")
            self.status(f"tick {k}")
            self.log(f"tick {k}", "debug")

    def on_shutdown(self) -> None:
        self.stop.set()


if __name__ == "__main__":
    raise SystemExit(People().run())
