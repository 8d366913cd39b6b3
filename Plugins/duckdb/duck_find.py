"""`find` (PROTOCOL.md 11.15) for the DuckDB plugin: the first row from position `from` on (or
back), in the order and filters of `rows`, with a cell containing a text by the filter's rule
(11.3), in one SQL query.

The query numbers the rows of the view with exactly the ORDER BY and WHERE of `rows` (so that
positions agree with its pages, ties included), marks each row that holds the text, and takes
the first marked one in the look order: from `from` to the end, then (with `wrap`) from the
start; backward from `from` down to 0, then (with `wrap`) from the end."""

from __future__ import annotations

from typing import Any

from tabdeck_plugin import INVALID_PARAMS, RpcError


class FindParams:
    """The params of a `find` request besides the table and the view (sort, filter, where)."""

    def __init__(self, params: dict[str, Any]) -> None:
        text = params.get("text")
        if not isinstance(text, str) or text == "":
            raise RpcError(INVALID_PARAMS, "params.text: must be a non-empty string", {"member": "text"})
        start = params.get("from")
        if isinstance(start, bool) or not isinstance(start, int) or start < 0:
            raise RpcError(INVALID_PARAMS, "params.from: must be an integer ≥ 0", {"member": "from"})
        flags = {}
        for name in ("backward", "wrap"):
            value = params.get(name, False)
            if not isinstance(value, bool):
                raise RpcError(INVALID_PARAMS, f"params.{name}: must be a boolean", {"member": name})
            flags[name] = value
        self.text, self.start = text, start
        self.backward, self.wrap = flags["backward"], flags["wrap"]


def find_sql(source: str, order_by: str, where: str, hit: str, start: int, backward: bool,
             wrap: bool) -> str:
    """The query: `pos` (0-based, in `order_by`, under `where`) and the row id of the first row
    where `hit` holds, in the look order of `find`; no row when none does.

    Forward: `(pos < from), pos` (the positions from `from` on, then those before it with
    `wrap`); backward: `(pos > from), pos DESC`. A `from` past the end needs no care: forward,
    every row is before it (found only with `wrap`); backward, the look starts at the last row."""
    start = int(start)
    if backward:
        bound, look = f"pos <= {start}", f"(pos > {start}), pos DESC"
    else:
        bound, look = f"pos >= {start}", f"(pos < {start}), pos"
    kept = "hit" if wrap else f"hit AND {bound}"
    return (f"WITH v AS (SELECT rid, row_number() OVER (ORDER BY {order_by}) - 1 AS pos, ({hit}) AS hit "
            f"FROM {source}" + (f" WHERE {where}" if where else "") + ") "
            f"SELECT rid, pos FROM v WHERE {kept} ORDER BY {look} LIMIT 1")


def wrapped(pos: int, start: int, backward: bool) -> bool:
    """Whether a row found at `pos` lies on the far side of `from`: the look went past the end
    (forward) or the start (backward)."""
    return pos > start if backward else pos < start


def find_result(generation: Any, found: tuple[str, int] | None, start: int, backward: bool) -> dict[str, Any]:
    """The result of `find`: the generation echoed, the row's position and id, whether it wrapped."""
    if found is None:
        return {"generation": generation, "offset": None, "wrapped": False}
    row_id, pos = found
    return {"generation": generation, "offset": pos, "row": row_id, "wrapped": wrapped(pos, start, backward)}


def answer_find(plugin: Any, params: dict[str, Any]) -> dict[str, Any]:
    """A `find` request of the plugin (an SDK TablePlugin whose tables have `find`): the table,
    its validated view (as for `rows`) and the params, then the table's answer."""
    source = plugin._source(params.get("table"))
    columns = source.columns()
    sort, filt = plugin._order(params, columns)
    where = plugin._where(params, columns)
    p = FindParams(params)
    found = source.find(p.text, p.start, p.backward, p.wrap, sort, filt, where)
    return find_result(params.get("generation"), found, p.start, p.backward)
