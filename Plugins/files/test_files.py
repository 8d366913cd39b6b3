"""Tests of the files plugin, spawned as a subprocess in a temporary folder."""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
import time
import unittest
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.join(HERE, "..", "sdk", "python")
if SDK not in sys.path:
    sys.path.insert(0, SDK)

from tabdeck_testing import PluginProcess, ResponseError  # noqa: E402

PLUGIN = os.path.join(HERE, "files.py")
KINDS = ["dir", "file", "link", "other"]
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def rows_params(table: str = "root", offset: int = 0, limit: int = 100, sort: list | None = None,
                filter: Any = None, generation: int = 1) -> dict:
    return {"table": table, "offset": offset, "limit": limit, "sort": sort or [], "filter": filter,
            "generation": generation}


def key(column: str, value: Any) -> tuple:
    """The order the plugin promises: nulls first, kinds by the enum, text ignoring case first."""
    if value is None:
        return (0,)
    if column == "kind":
        return (1, KINDS.index(value))
    if isinstance(value, str):
        return (1, value.casefold(), value)
    return (1, value)


def write(path: str, text: str = "", mtime: float | None = None) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


class FilesPlugin(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="tabdeck-files-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.root = os.path.join(self.tmp, "root")
        self.outside = os.path.join(self.tmp, "outside")
        write(os.path.join(self.outside, "secret.txt"), "keep me", mtime=1_000_000)
        write(os.path.join(self.root, "b.txt"), "bb", mtime=1_700_000_000)
        write(os.path.join(self.root, "A.md"), "aaaa", mtime=1_600_000_000)
        write(os.path.join(self.root, "c.bin"), "c" * 10, mtime=1_650_000_000)
        os.chmod(os.path.join(self.root, "c.bin"), 0o640)
        write(os.path.join(self.root, "same.txt"), "xx", mtime=1_650_000_000)
        write(os.path.join(self.root, "sub", "inner.txt"), "i", mtime=1_500_000_000)
        write(os.path.join(self.root, "sub", "deeper", "x.txt"), "x")
        os.mkdir(os.path.join(self.root, "empty"))
        os.symlink(self.outside, os.path.join(self.root, "out-link"))
        os.symlink(os.path.join(self.outside, "secret.txt"), os.path.join(self.root, "secret-link"))
        os.mkfifo(os.path.join(self.root, "pipe"))
        self.p = PluginProcess([PLUGIN], cwd=self.tmp)  # run as an executable: tests the shebang too
        self.addCleanup(self.p.close)
        self.init = self.p.initialize()
        self.desc = self.p.call("open", {"args": {"path": "root"}})  # relative to the working directory

    def page(self, **kw: Any) -> dict:
        return self.p.call("rows", rows_params(**kw))

    def ids(self, **kw: Any) -> list[str]:
        return [r["id"] for r in self.page(**kw)["rows"]]

    def action(self, action: str, rows: list[str], table: str = "root") -> dict:
        return self.p.call("action", {"table": table, "action": action, "rows": rows})

    # ---------------------------------------------------------------- listing

    def test_handshake_and_description(self) -> None:
        caps = self.init["capabilities"]
        for cap in ("sort", "multiSort", "children", "actions"):
            self.assertTrue(caps[cap], cap)
        self.assertEqual(self.desc["table"], "root")
        self.assertEqual(self.desc["title"], "root")
        self.assertEqual([c["id"] for c in self.desc["columns"]], ["name", "size", "modified", "kind", "permissions"])
        kind = self.desc["columns"][3]
        self.assertEqual((kind["type"], kind["values"]), ("enum", KINDS))
        self.assertEqual(self.desc["columns"][2]["type"], "date")
        self.assertEqual(self.desc["total"], 9)
        actions = {a["id"]: a for a in self.desc["actions"]}
        self.assertEqual(set(actions), {"delete", "touch", "mkdir"})
        self.assertTrue(all(actions[a]["confirm"] and actions[a]["multiple"] for a in ("delete", "touch")))
        self.assertIs(actions["delete"]["destructive"], True)
        self.assertEqual({a["id"]: a.get("hotkey") for a in actions.values()}, {"delete": "x", "touch": "t", "mkdir": "+"})
        self.assertEqual((actions["mkdir"]["rows"], [f["id"] for f in actions["mkdir"]["input"]]), ("none", ["name"]))

    def test_cells(self) -> None:
        rows = {r["id"]: r for r in self.page()["rows"]}
        self.assertEqual(rows["c.bin"]["cells"], ["c.bin", 10, "2022-04-15T05:20:00Z", "file", "-rw-r-----"])
        self.assertEqual(rows["sub"]["cells"][1], None)
        self.assertEqual(rows["sub"]["cells"][3], "dir")
        self.assertTrue(rows["sub"]["cells"][4].startswith("d"))
        self.assertTrue(rows["sub"]["hasChildren"])
        self.assertEqual(rows["out-link"]["cells"][3], "link")
        self.assertFalse(rows["out-link"].get("hasChildren", False))  # links are never followed
        self.assertEqual(rows["out-link"]["detail"], "→ " + self.outside)
        self.assertEqual(rows["pipe"]["cells"][3], "other")
        self.assertEqual(rows["pipe"]["cells"][1], None)
        for r in rows.values():
            self.assertRegex(r["cells"][2], ISO)
            self.assertFalse(r.get("hasChildren", False) and r["cells"][3] != "dir")

    def test_natural_order_is_folders_first_then_names(self) -> None:
        self.assertEqual(self.ids(), ["empty", "sub", "A.md", "b.txt", "c.bin", "out-link", "pipe", "same.txt",
                                      "secret-link"])

    def test_sorting_by_every_column_and_several_keys(self) -> None:
        all_rows = self.page()["rows"]
        index = {c["id"]: i for i, c in enumerate(self.desc["columns"])}
        orders = [[("size", "desc")], [("modified", "asc")], [("kind", "desc"), ("name", "asc")],
                  [("permissions", "asc"), ("size", "desc")], [("name", "desc")],
                  [("modified", "desc"), ("kind", "asc"), ("size", "asc")]]
        for order in orders:
            sort = [{"column": c, "direction": d} for c, d in order]
            got = self.ids(sort=sort)
            expected = sorted(all_rows, key=lambda r: key("name", r["cells"][0]))  # ties: by name
            for column, direction in reversed(order):
                expected.sort(key=lambda r, c=column: key(c, r["cells"][index[c]]), reverse=direction == "desc")
            expected.sort(key=lambda r: r["cells"][3] != "dir")  # each section on its own: folders first
            self.assertEqual(got, [r["id"] for r in expected], order)
        # Ties on modified fall back to names.
        same = self.ids(sort=[{"column": "modified", "direction": "asc"}, {"column": "kind", "direction": "desc"}])
        self.assertLess(same.index("c.bin"), same.index("same.txt"))

    def test_sections_folders_then_files_with_counts_and_footers(self) -> None:
        self.assertTrue(self.init["capabilities"]["sections"])
        # 2 folders; 7 other entries, of which b.txt (2) A.md (4) c.bin (10) same.txt (2) have
        # sizes, and the two links their own (the length of their target path).
        link_sizes = sum(os.lstat(os.path.join(self.root, n)).st_size for n in ("out-link", "secret-link"))
        self.assertEqual(self.desc["sections"], [
            {"id": "folders", "title": "Folders", "footer": "2 folders", "count": 2},
            {"id": "files", "title": "Files", "footer": f"7 files, {18 + link_sizes} B", "count": 7},
        ])
        rows = self.page()["rows"]
        self.assertEqual([r["section"] for r in rows], ["folders"] * 2 + ["files"] * 7)
        # Sorting never mixes the sections: by size descending, folders (size null) stay first
        # and by name descending too.
        for sort in ([{"column": "size", "direction": "desc"}], [{"column": "name", "direction": "desc"}]):
            self.assertEqual([r["section"] for r in self.page(sort=sort)["rows"]], ["folders"] * 2 + ["files"] * 7)
        self.assertEqual(self.ids(sort=[{"column": "name", "direction": "desc"}])[:2], ["sub", "empty"])
        child = self.p.call("children", {"table": "root", "row": "sub"})
        self.assertEqual([(s["id"], s["count"], s["footer"]) for s in child["sections"]],
                         [("folders", 1, "1 folder"), ("files", 1, "1 file, 1 B")])

    def test_human_sizes(self) -> None:
        import importlib.util
        spec = importlib.util.spec_from_file_location("files_plugin", PLUGIN)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        human_size = module.human_size
        self.assertEqual([human_size(n) for n in (0, 999, 1000, 1_234_567, 5 * 10**12)],
                         ["0 B", "999 B", "1.0 kB", "1.2 MB", "5.0 TB"])

    def test_paging(self) -> None:
        sort = [{"column": "name", "direction": "asc"}]
        whole = self.ids(sort=sort)
        pages = [self.page(offset=o, limit=3, sort=sort, generation=4) for o in range(0, 12, 3)]
        self.assertEqual([r["id"] for p in pages for r in p["rows"]], whole)
        self.assertTrue(all(p["generation"] == 4 and p["total"] == 9 for p in pages))
        self.assertEqual(pages[-1]["rows"], [])

    def test_drill_down_and_back(self) -> None:
        sub = self.p.call("children", {"table": "root", "row": "sub"})
        self.assertEqual(sub["title"], "sub")
        self.assertEqual(sub["total"], 2)
        self.assertEqual(self.ids(table=sub["table"]), ["sub/deeper", "sub/inner.txt"])
        deeper = self.p.call("children", {"table": sub["table"], "row": "sub/deeper"})
        self.assertEqual(deeper["title"], "sub/deeper")
        self.assertEqual(self.ids(table=deeper["table"]), ["sub/deeper/x.txt"])
        with self.assertRaises(ResponseError) as e:
            self.p.call("children", {"table": "root", "row": "b.txt"})
        self.assertEqual(e.exception.code, -32002)
        with self.assertRaises(ResponseError) as e:
            self.p.call("children", {"table": "root", "row": "out-link"})  # a link to a folder
        self.assertEqual(e.exception.code, -32002)
        self.p.notify("close", {"table": deeper["table"]})
        with self.assertRaises(ResponseError) as e:
            self.page(table=deeper["table"])
        self.assertEqual(e.exception.code, -32001)
        self.assertEqual(len(self.ids()), 9)  # the root is still there

    def test_listing_follows_the_disk(self) -> None:
        self.assertNotIn("new.txt", self.ids())
        write(os.path.join(self.root, "new.txt"), "n")
        self.assertIn("new.txt", self.ids())
        self.assertEqual(self.page()["total"], 10)

    # ---------------------------------------------------------------- actions

    def test_delete_files_links_and_empty_folders(self) -> None:
        result = self.action("delete", ["b.txt", "empty", "out-link"])
        self.assertEqual(result, {"message": "3 items deleted", "invalidate": True})
        self.assertFalse(os.path.lexists(os.path.join(self.root, "b.txt")))
        self.assertFalse(os.path.lexists(os.path.join(self.root, "empty")))
        self.assertFalse(os.path.lexists(os.path.join(self.root, "out-link")))
        self.assertTrue(os.path.exists(os.path.join(self.outside, "secret.txt")))  # not the link's target
        self.assertNotIn("b.txt", self.ids())

    def test_delete_refuses_folders_with_content_naming_them(self) -> None:
        sub = self.p.call("children", {"table": "root", "row": "sub"})
        with self.assertRaises(ResponseError) as e:
            self.action("delete", ["sub/deeper", "sub/inner.txt"], table=sub["table"])
        self.assertEqual(e.exception.code, -32003)
        self.assertIn("sub/deeper: folder is not empty", e.exception.message)
        self.assertEqual(e.exception.data, {"failed": {"sub/deeper": "folder is not empty"}, "done": ["sub/inner.txt"]})
        self.assertTrue(os.path.isdir(os.path.join(self.root, "sub", "deeper")))
        self.assertFalse(os.path.exists(os.path.join(self.root, "sub", "inner.txt")))
        inv = self.p.notification("invalidate")
        self.assertEqual(inv["params"], {"table": sub["table"]})

    def test_mkdir_makes_a_folder_named_by_its_form(self) -> None:
        res = self.p.call("action", {"table": "root", "action": "mkdir", "rows": [], "input": {"name": "new"}})
        self.assertEqual(res["message"], "created folder new")
        self.assertTrue(os.path.isdir(os.path.join(self.root, "new")))
        self.assertIn("new", [r["id"] for r in self.page()["rows"]])
        sub = self.p.call("children", {"table": "root", "row": "sub"})
        self.p.call("action", {"table": sub["table"], "action": "mkdir", "rows": [], "input": {"name": "kid"}})
        self.assertTrue(os.path.isdir(os.path.join(self.root, "sub", "kid")))
        for name, code in (("new", -32003), ("../escape", -32602), ("..", -32602), ("a/b", -32602)):
            with self.assertRaises(ResponseError, msg=name) as e:
                self.p.call("action", {"table": "root", "action": "mkdir", "rows": [], "input": {"name": name}})
            self.assertEqual(e.exception.code, code, name)
        with self.assertRaises(ResponseError) as e:
            self.p.call("action", {"table": "root", "action": "mkdir", "rows": [], "input": {}})
        self.assertIn("Name: required", e.exception.message)
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(self.root), "escape")))

    def test_touch_sets_modified_to_now_without_following_links(self) -> None:
        before = time.time() - 2
        self.assertEqual(self.action("touch", ["A.md", "secret-link"])["message"], "2 items touched")
        self.assertGreater(os.stat(os.path.join(self.root, "A.md")).st_mtime, before)
        self.assertGreater(os.lstat(os.path.join(self.root, "secret-link")).st_mtime, before)
        self.assertEqual(os.stat(os.path.join(self.outside, "secret.txt")).st_mtime, 1_000_000)
        cells = {r["id"]: r["cells"] for r in self.page()["rows"]}
        self.assertGreater(cells["A.md"][2], "2024")

    def test_ids_must_be_entries_of_the_table_folder(self) -> None:
        write(os.path.join(self.root, "inner.txt"), "a namesake in the root")
        with self.assertRaises(ResponseError) as e:
            self.action("delete", ["sub/inner.txt"])  # asked of the root table
        self.assertEqual(e.exception.code, -32602)
        self.assertTrue(os.path.exists(os.path.join(self.root, "inner.txt")))
        self.assertTrue(os.path.exists(os.path.join(self.root, "sub", "inner.txt")))

    def test_nothing_outside_the_opened_folder_can_be_named(self) -> None:
        for bad in ["../outside/secret.txt", "..", ".", "", "/etc/passwd", self.outside + "/secret.txt",
                    "sub/../../outside/secret.txt", "sub/inner.txt", "out-link/secret.txt", "missing.txt"]:
            for act in ("delete", "touch"):
                with self.assertRaises(ResponseError, msg=f"{act} {bad!r}") as e:
                    self.action(act, [bad])
                self.assertEqual(e.exception.code, -32602, bad)
            with self.assertRaises(ResponseError, msg=f"children {bad!r}") as e:
                self.p.call("children", {"table": "root", "row": bad})
            self.assertEqual(e.exception.code, -32602, bad)
        # One bad id and nothing is done.
        with self.assertRaises(ResponseError):
            self.action("delete", ["c.bin", "../outside/secret.txt"])
        self.assertTrue(os.path.exists(os.path.join(self.root, "c.bin")))
        self.assertEqual(os.stat(os.path.join(self.outside, "secret.txt")).st_mtime, 1_000_000)
        self.assertEqual(sorted(os.listdir(self.outside)), ["secret.txt"])

    def test_a_folder_swapped_for_a_link_is_refused(self) -> None:
        sub = self.p.call("children", {"table": "root", "row": "sub"})
        shutil.rmtree(os.path.join(self.root, "sub"))
        os.symlink(self.outside, os.path.join(self.root, "sub"))
        write(os.path.join(self.outside, "inner.txt"), "outside")
        with self.assertRaises(ResponseError) as e:
            self.action("delete", ["sub/inner.txt"], table=sub["table"])
        self.assertEqual(e.exception.code, -32602)
        self.assertIn("outside the opened folder", e.exception.message)
        self.assertTrue(os.path.exists(os.path.join(self.outside, "inner.txt")))

    @unittest.skipIf(os.geteuid() == 0, "root reads every folder")
    def test_unreadable_folder_is_named(self) -> None:
        locked = os.path.join(self.root, "sub", "deeper")
        os.chmod(locked, 0)
        self.addCleanup(os.chmod, locked, 0o755)
        sub = self.p.call("children", {"table": "root", "row": "sub"})
        with self.assertRaises(ResponseError) as e:
            self.p.call("children", {"table": sub["table"], "row": "sub/deeper"})
        self.assertEqual(e.exception.code, -32603)
        self.assertEqual(e.exception.message, "sub/deeper: permission denied")

    def test_unknown_action_and_shutdown(self) -> None:
        with self.assertRaises(ResponseError) as e:
            self.action("rename", ["b.txt"])
        self.assertEqual(e.exception.code, -32602)
        self.assertEqual(self.p.shutdown(), 0)


class OpenErrors(unittest.TestCase):
    def test_bad_paths(self) -> None:
        tmp = tempfile.mkdtemp(prefix="tabdeck-files-")
        self.addCleanup(shutil.rmtree, tmp, True)
        write(os.path.join(tmp, "file.txt"))
        with PluginProcess([sys.executable, PLUGIN], cwd=tmp) as p:
            p.initialize()
            for args, text in [({"path": "missing"}, "missing: no such folder"),
                               ({"path": "file.txt"}, "file.txt: not a folder"), ({"path": 3}, "args.path")]:
                with self.assertRaises(ResponseError) as e:
                    p.call("open", {"args": args})
                self.assertEqual(e.exception.code, -32602)
                self.assertIn(text, e.exception.message)
            desc = p.call("open", {"args": {}})  # default "."
            self.assertEqual(desc["total"], 1)
            self.assertEqual(p.shutdown(), 0)


if __name__ == "__main__":
    unittest.main()
