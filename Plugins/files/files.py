#!/usr/bin/env python3
"""Tabdeck plugin: a folder as a table, with drill-down into subfolders.

Open args: ``{"path": "."}`` (default ``.``; relative to the working directory, which is the
config file's folder). The opened folder is the **root**: nothing outside it is ever listed,
deleted or touched.

Columns: name, size (bytes; null for folders and special files), modified (ISO 8601, UTC),
kind (enum in the order ``dir``, ``file``, ``link``, ``other``) and permissions (as ``ls -l``
shows them, e.g. ``-rw-r--r--``). Row id = the path relative to the root (``sub/a.txt``),
stable across sorts. Folders have children: their own table (handles ``t1``, ``t2``...), so
the host can drill down and back out. Symbolic links are listed as links (their target in
the row's ``detail``) and never followed, not even to a folder.

Sections: ``folders`` (kind ``dir``) then ``files`` (everything else: files, links, special
files), with counts and footers such as ``3 folders`` and ``12 files, 1.2 MB`` (the sum of the
files' sizes, in units of 1000). Each row names its section.

Sorting: any columns, several keys (text ignores case first, then the exact text; nulls
first), within each section: folders always come before files. Ties are broken by name. With
no sort, names.

Actions:

* ``delete`` (hotkey ``x``, destructive: the host asks, No by default; several rows): files,
  links and **empty** folders (a folder with content is refused, naming it);
* ``touch`` (hotkey ``t``, asks first; several rows): sets the modification time to now (a
  link itself, not its target);
* ``mkdir`` (hotkey ``+``, no rows): a new folder in the table's folder, its name from a form
  (one path component: no ``/``, not ``.`` or ``..``; an existing name is refused).

If some rows fail the answer is error -32003 naming each path and why, with ``data``
``{"failed": {"ID": "reason"}, "done": ["ID", ...]}``; the others were done, and the table is
invalidated. Row ids that are not entries of the table's folder (``../x``, absolute paths,
``sub/x`` asked of the root table) are refused with -32602.

Listings are cached per folder and read again when the folder changes (its mtime), when
they are older than two seconds, and after an action.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time
from datetime import datetime, timezone
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sdk", "python"))

from tabdeck_plugin import (ACTION_FAILED, INTERNAL_ERROR, INVALID_PARAMS, NOT_SUPPORTED, RpcError,  # noqa: E402
                            Table, TablePlugin, action_spec, column, field, row, section_spec, sort_key)


def _cell_text(cell: Any) -> str:
    """A cell's text as a filter matches it: a boolean as true/false, a number as in JSON."""
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "true" if cell else "false"
    return cell if isinstance(cell, str) else json.dumps(cell)


KINDS = ["dir", "file", "link", "other"]
COLUMNS = [
    column("name", "Name", width={"min": 10, "ideal": 32}, order="casefold"),
    column("size", "Size", "integer", width={"min": 6, "ideal": 12, "max": 20}, align="right"),
    column("modified", "Modified", "date", width=20),
    column("kind", "Kind", "enum", values=KINDS, width=5),
    column("permissions", "Permissions", width=11),
]
INDEX = {c["id"]: i for i, c in enumerate(COLUMNS)}
ACTIONS = [action_spec("delete", "Delete", confirm=True, destructive=True, multiple=True, hotkey="x"),
           action_spec("touch", "Touch (modified = now)", confirm=True, multiple=True, hotkey="t"),
           action_spec("mkdir", "New folder", rows="none", hotkey="+",
                       input=[field("name", "Name", required=True)])]
MAX_AGE = 2.0  # seconds a listing is trusted when the folder's mtime did not change


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISLNK(mode):
        return "link"
    return "other"


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def human_size(n: int) -> str:
    """``1.2 MB``: bytes in units of 1000, one decimal from kB up."""
    if n < 1000:
        return f"{n} B"
    for unit in ("kB", "MB", "GB", "TB"):
        n /= 1000
        if n < 1000 or unit == "TB":
            return f"{n:.1f} {unit}"
    return f"{n} B"  # not reached


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def describe(error: OSError) -> str:
    """`permission denied`, `no such file`... for people."""
    if isinstance(error, FileNotFoundError):
        return "no such file"
    if getattr(error, "errno", None) in (39, 66):  # ENOTEMPTY (Linux, macOS)
        return "folder is not empty"
    return (error.strerror or str(error)).lower()


class Folder(Table):
    """One folder of the tree: its entries as rows, sub-folders as children."""

    def __init__(self, root: str, rel: str) -> None:
        self.root = root            # the opened folder, absolute and resolved
        self.rel = rel              # this folder relative to the root ("" for the root)
        self.path = os.path.join(root, rel) if rel else root
        self.title = rel or os.path.basename(root) or root
        self._lock = threading.Lock()
        self._rows: list[dict[str, Any]] | None = None
        self._sorted: dict[tuple, list[dict[str, Any]]] = {}
        self._stamp: tuple[int, float] = (0, 0.0)

    # ---------------------------------------------------------------- listing

    def columns(self) -> list[dict[str, Any]]:
        return COLUMNS

    def actions(self) -> list[dict[str, Any]]:
        return ACTIONS

    def sections(self) -> list[dict[str, Any]]:
        """Folders, then files, with their counts and footers (from the current listing)."""
        rows = self.all_rows()
        folders = [r for r in rows if r["section"] == "folders"]
        files = [r for r in rows if r["section"] == "files"]
        size = sum(r["cells"][1] or 0 for r in files)
        return [section_spec("folders", "Folders", footer=plural(len(folders), "folder"), count=len(folders)),
                section_spec("files", "Files", footer=f"{plural(len(files), 'file')}, {human_size(size)}",
                             count=len(files))]

    def all_rows(self) -> list[dict[str, Any]]:
        """The entries, folders first then by name (read again when stale)."""
        with self._lock:
            try:
                mtime = os.stat(self.path).st_mtime_ns
            except OSError as e:
                raise RpcError(INVALID_PARAMS, f"{self.rel or '.'}: {describe(e)}") from None
            if self._rows is None or mtime != self._stamp[0] or time.monotonic() - self._stamp[1] > MAX_AGE:
                try:
                    self._rows = self._list()
                except OSError as e:
                    raise RpcError(INTERNAL_ERROR, f"{self.rel or '.'}: {describe(e)}") from None
                self._sorted = {}
                self._stamp = (mtime, time.monotonic())
            return self._rows

    def forget(self) -> None:
        """Drop the cached listing (after an action)."""
        with self._lock:
            self._rows = None
            self._sorted = {}

    def _list(self) -> list[dict[str, Any]]:
        out = []
        with os.scandir(self.path) as it:
            for entry in it:
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue  # gone while we looked
                kind = kind_of(st.st_mode)
                detail = None
                if kind == "link":
                    try:
                        detail = "→ " + os.readlink(entry.path)
                    except OSError:
                        detail = "→ ?"
                out.append(row(self._id(entry.name),
                               [entry.name, st.st_size if kind in ("file", "link") else None, iso(st.st_mtime),
                                kind, stat.filemode(st.st_mode)],
                               section="folders" if kind == "dir" else "files",
                               detail=detail, has_children=kind == "dir"))
        out.sort(key=lambda r: (r["cells"][3] != "dir", sort_key(r["cells"][0])))
        return out

    def _id(self, name: str) -> str:
        return f"{self.rel}/{name}" if self.rel else name

    def count(self) -> int:
        return len(self.all_rows())

    def rows(self, offset: int, limit: int, sort: list[dict[str, str]], filter: Any) -> Any:
        data = self.all_rows()
        key = tuple((k["column"], k["direction"]) for k in sort)
        with self._lock:
            ordered = self._sorted.get(key) if data is self._rows else None
        if ordered is None:
            if sort:
                # Ties by name; each section sorted on its own (folders stay first).
                ordered = sorted(data, key=lambda r: sort_key(r["cells"][0]))
                for column_id, direction in reversed(key):
                    i = INDEX[column_id]
                    ordered.sort(key=lambda r, i=i: sort_key(r["cells"][i], COLUMNS[i]), reverse=direction == "desc")
                ordered.sort(key=lambda r: r["section"] != "folders")  # stable: keeps the order within
            else:
                ordered = data
            with self._lock:
                if data is self._rows:
                    self._sorted[key] = ordered
        if isinstance(filter, str) and filter:
            needle = filter.casefold()
            # every cell's text, sizes and dates too (PROTOCOL.md 11.3, What a filter matches)
            ordered = [r for r in ordered if any(needle in _cell_text(c).casefold() for c in r["cells"])]
            return ordered[offset:offset + limit], len(ordered)
        return ordered[offset:offset + limit], len(data)

    # ---------------------------------------------------------------- tree

    def children(self, row_id: str) -> "Folder":
        path = self.entry(row_id)
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            raise RpcError(NOT_SUPPORTED, f"{row_id} is not a folder")
        child = Folder(self.root, row_id)
        child.plugin = self.plugin
        return child

    def entry(self, row_id: str) -> str:
        """The path of a row of this folder. Refuses ids that are not entries of this folder
        (so nothing outside the root can be named), and entries that do not exist."""
        parent, _, name = row_id.rpartition("/")
        if parent != self.rel or name in ("", ".", "..") or "\0" in name:
            raise RpcError(INVALID_PARAMS, f"{row_id}: not an entry of {self.rel or 'the opened folder'}",
                           {"row": row_id})
        path = os.path.join(self.path, name)
        real_parent = os.path.realpath(self.path)
        if real_parent != self.root and not real_parent.startswith(self.root + os.sep):
            raise RpcError(INVALID_PARAMS, f"{row_id}: outside the opened folder", {"row": row_id})
        if not os.path.lexists(path):
            raise RpcError(INVALID_PARAMS, f"{row_id}: no such file", {"row": row_id})
        return path

    # ---------------------------------------------------------------- actions

    def action(self, action: str, rows: list[str], input: dict[str, Any] | None = None) -> dict[str, Any]:
        if action == "mkdir":
            return self.mkdir((input or {}).get("name", ""))
        paths = {r: self.entry(r) for r in rows}  # all ids are checked before anything is done
        done: list[str] = []
        failed: dict[str, str] = {}
        for row_id, path in paths.items():
            try:
                if action == "delete":
                    if stat.S_ISDIR(os.lstat(path).st_mode):
                        os.rmdir(path)  # only empty folders
                    else:
                        os.unlink(path)  # files, links (never their target), special files
                else:
                    os.utime(path, follow_symlinks=False)
                done.append(row_id)
            except OSError as e:
                failed[row_id] = describe(e)
        self.forget()
        verb = "deleted" if action == "delete" else "touched"
        if failed:
            if self.plugin is not None and self.handle is not None:
                self.plugin.invalidate(self.handle)  # the rows that were done changed
            reasons = "; ".join(f"{r}: {why}" for r, why in failed.items())
            raise RpcError(ACTION_FAILED, f"{len(done)} {verb}, {len(failed)} failed: {reasons}",
                           {"failed": failed, "done": done})
        return {"message": f"{len(done)} {'item' if len(done) == 1 else 'items'} {verb}", "invalidate": True}

    def mkdir(self, name: str) -> dict[str, Any]:
        """A new, empty folder named ``name`` in this folder (one path component)."""
        if not name or name in (".", "..") or "/" in name or "\0" in name:
            raise RpcError(INVALID_PARAMS, f"Name: {name!r} is not a folder name (one name, without '/')",
                           {"field": "name"})
        try:
            os.mkdir(os.path.join(self.path, name))
        except OSError as e:
            reason = "already exists" if isinstance(e, FileExistsError) else describe(e)
            raise RpcError(ACTION_FAILED, f"{self._id(name)}: {reason}") from None
        self.forget()
        return {"message": f"created folder {self._id(name)}", "invalidate": True}

    plugin: "Files | None" = None  # for notifications


class Files(TablePlugin):
    """The root table is the opened folder; child tables are its sub-folders."""

    name, version = "files", "1.0.0"

    def __init__(self) -> None:
        super().__init__()
        self.folder: Folder | None = None

    def capabilities(self) -> dict[str, bool]:
        return {"sort": True, "multiSort": True, "filter": True, "sections": True, "children": True, "actions": True,
                "locate": True, "find": True}

    def open(self, args: dict[str, Any]) -> dict[str, Any]:
        path = args.get("path", ".")
        if not isinstance(path, str) or not path:
            raise RpcError(INVALID_PARAMS, "args.path must be a folder path", {"path": "params.args.path"})
        root = os.path.realpath(path)
        if not os.path.isdir(root):
            why = "not a folder" if os.path.exists(root) else "no such folder"
            raise RpcError(INVALID_PARAMS, f"{path}: {why}", {"path": path})
        self.folder = Folder(root, "")
        self.folder.plugin, self.folder.handle = self, self.root_table
        self.title = self.folder.title
        return None  # describe(): the plugin's columns, count and actions below

    def _root(self) -> Folder:
        if self.folder is None:
            raise RpcError(INVALID_PARAMS, "open a folder first")
        return self.folder

    def columns(self) -> list[dict[str, Any]]:
        return COLUMNS

    def actions(self) -> list[dict[str, Any]]:
        return ACTIONS

    def count(self) -> int:
        return self._root().count()

    def sections(self) -> list[dict[str, Any]]:
        return self._root().sections()

    def rows(self, offset: int, limit: int, sort: list[dict[str, str]], filter: Any) -> Any:
        return self._root().rows(offset, limit, sort, filter)

    def children(self, table: str, row: str) -> Folder:
        child = self._root().children(row)
        child.plugin = self
        return child

    def action(self, table: str, action: str, rows: list[str], input: dict[str, Any]) -> dict[str, Any]:
        return self._root().action(action, rows, input)


if __name__ == "__main__":
    raise SystemExit(Files().run())
