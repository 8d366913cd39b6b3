#!/usr/bin/env python3
"""Names the tests a `swift test` log shows started but never ended (passed, failed or skipped).

Scripts/test runs it on the log of a test step that hung, so that the hang names its tests.
Swift Testing lines (`◇ Test NAME started.`, `✔ Test NAME passed`, `✘ Test NAME failed`) and
XCTest lines (`Test Case '-[Suite test]' started.` / `passed` / `failed`) are both read. A
parameterized test's cases are reported under the test while the test itself has not ended.
"""
import re
import sys

SWIFT_TESTING_START = re.compile(r"◇ Test (?:case passing .*? to )?(.+?) started\.")
SWIFT_TESTING_END = re.compile(r"[✔✘➜↳􀢄]? ?Test (.+?) (?:passed|failed|skipped)")
XCTEST = re.compile(r"Test Case '(.+?)' (started|passed|failed|skipped)")


def base(name):
    """A test's name without its arguments' description (`f(x:) with 3 test cases` -> `f(x:)`)."""
    return re.sub(r" with \d+ test cases?$", "", name.strip())


def unfinished(lines):
    """The names, in the order they started, of tests started and not ended."""
    started, ended = {}, set()
    for line in lines:
        xc = XCTEST.search(line)
        if xc:
            (started.setdefault(xc.group(1), len(started)) if xc.group(2) == "started" else ended.add(xc.group(1)))
            continue
        start = SWIFT_TESTING_START.search(line)
        if start:
            started.setdefault(base(start.group(1)), len(started))
            continue
        end = SWIFT_TESTING_END.search(line)
        if end and "started" not in line:
            ended.add(base(end.group(1)))
    return [name for name, _ in sorted(started.items(), key=lambda kv: kv[1]) if name not in ended]


def main():
    with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
        names = unfinished(log)
    print(f"== tests started and never ended ({len(names)}):")
    for name in names:
        print(f"   {name}")


if __name__ == "__main__":
    main()
