"""Runs docs/WRITING-PLUGINS.md: every file listing is written, every command block is run,
and its output is compared with the output shown after it.

Markers in the document (HTML comments, invisible when rendered):

* ``<!-- file: PATH -->`` before a fenced block: the block is the file PATH (relative to a
  temporary home folder). ``(swift)`` after the path: the file is only built when
  ``TABDECK_TEST_SWIFT=1`` (a Swift build takes a minute).
* ``<!-- run -->`` before a ``sh`` block: run with bash in ``~/mytabs``, in a temporary
  ``$HOME``, with ``$TABDECK_REPO`` set and the built ``tabdeck`` on ``$PATH``.
* ``<!-- output -->`` before a block: the previous run's output (stdout and stderr), exactly.
  ``<!-- output: loose -->``: every line shown must appear in the output, with runs of spaces
  collapsed and timestamps ignored (for the host's screens, whose layout is not the plugins').

The blocks that need ``tabdeck`` are skipped when it is not built (swift build --product tabdeck).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DOC = os.path.join(ROOT, "docs", "WRITING-PLUGINS.md")
BIN = next((os.path.join(ROOT, ".build", c) for c in ("debug", "release")
            if os.access(os.path.join(ROOT, ".build", c, "tabdeck"), os.X_OK)), None)
MARK = re.compile(r"^<!-- (file: (?P<path>\S+)(?P<swift> \(swift\))?|run|output(?P<loose>: loose)?) -->$")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def blocks(text: str) -> list[tuple[str, dict, str]]:
    """The marked fenced blocks, in order: (kind, marker fields, content)."""
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if m:
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            k = j + 1
            while lines[k] != "```":
                k += 1
            kind = m.group(1).split(":")[0]
            out.append((kind, m.groupdict(), "\n".join(lines[j + 1:k]) + "\n"))
            i = k
        i += 1
    return out


def loose(text: str) -> list[str]:
    return [" ".join(TIME.sub("<time>", line).split()) for line in text.splitlines() if line.strip()]


class Tutorial(unittest.TestCase):
    def test_every_listing_works(self) -> None:
        with open(DOC, encoding="utf-8") as f:
            found = blocks(f.read())
        kinds = [k for k, _, _ in found]
        self.assertGreaterEqual(kinds.count("run"), 8, "the markers were not found")
        self.assertGreaterEqual(kinds.count("file"), 4)
        home = tempfile.mkdtemp(prefix="tabdeck-tutorial-")
        self.addCleanup(shutil.rmtree, home, True)
        os.makedirs(os.path.join(home, "mytabs"))
        env = {k: v for k, v in os.environ.items()
               if k not in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "TABDECK_STATE_DIR", "TABDECK_CONFIG")}
        env.update(HOME=home, TABDECK_REPO=ROOT, PATH=f"{BIN}:{env.get('PATH', '')}" if BIN else env.get("PATH", ""))
        swift_files = []
        output = None
        for kind, fields, content in found:
            if kind == "file":
                path = os.path.join(home, fields["path"])
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(content)
                if content.startswith("#!"):
                    os.chmod(path, 0o755)
                if fields["swift"]:
                    swift_files.append(path)
            elif kind == "run":
                if "tabdeck " in content and BIN is None:
                    output = None
                    continue
                done = subprocess.run(["bash", "-c", content], cwd=os.path.join(home, "mytabs"), env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
                output = done.stdout.decode("utf-8", "replace")
            elif kind == "output":
                if output is None:
                    continue  # its command was skipped
                with self.subTest(expected=content[:60]):
                    if fields["loose"]:
                        got = loose(output)
                        missing = [line for line in loose(content) if line not in got]
                        self.assertEqual(missing, [], f"lines missing from the output:\n{output}")
                    else:
                        self.assertEqual(output, content)
                output = None
        if os.environ.get("TABDECK_TEST_SWIFT") == "1" and swift_files:
            package = os.path.dirname(os.path.commonpath(swift_files) + "/")
            os.symlink(ROOT, os.path.join(os.path.dirname(package), "tabdeck"))
            build = subprocess.run(["swift", "build"], cwd=package, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(build.returncode, 0, build.stdout.decode()[-3000:])


if __name__ == "__main__":
    unittest.main()
