#!/usr/bin/env bash
# The plugin author's walkthrough, scripted (issue 27): the Node SDK's tests on the shared cases,
# then for python, node and sh: `tabdeck plugin new`, `tabdeck plugin check` on the result, and
# the tab's rows shown in line mode from the config.json it wrote. Fails, naming the step, when
# one does not work. Run by Scripts/test; alone: Plugins/sdk/walkthrough.sh [BIN_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-${TABDECK_BIN_DIR:-$here/../../.build/debug}}"
tabdeck="$bin/tabdeck"
[ -x "$tabdeck" ] || { echo "walkthrough: $tabdeck is not built (swift build)" >&2; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/tabdeck-walkthrough-XXXXXX")"
trap 'rm -rf "$work"' EXIT

step() { echo "walkthrough: $*" >&2; }
fail() { echo "walkthrough: FAILED: $*" >&2; exit 1; }

if command -v node >/dev/null; then
  step "node --test Plugins/sdk/node/test_tabdeck.js"
  node --test "$here/node/test_tabdeck.js" >"$work/node-test.log" 2>&1 || { cat "$work/node-test.log" >&2; fail "the Node SDK's tests"; }
fi

for lang in python node sh; do
  if [ "$lang" = node ] && ! command -v node >/dev/null; then step "node is not installed: the node starter is not walked"; continue; fi
  name="walk-$lang"
  step "tabdeck plugin new $name --lang $lang"
  (cd "$work" && "$tabdeck" plugin new "$name" --lang "$lang") >"$work/$lang-new.log" 2>&1 || { cat "$work/$lang-new.log" >&2; fail "plugin new --lang $lang"; }
  folder="$work/$name"
  # The command of the tab config.json opens, run from its folder as the host runs it.
  read -r -a command < <(python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["tabs"][0]["command"]))' "$folder/config.json")
  step "tabdeck plugin check -- ${command[*]}"
  (cd "$folder" && "$tabdeck" plugin check -- "${command[@]}") >"$work/$lang-check.log" 2>&1 || { cat "$work/$lang-check.log" >&2; fail "plugin check of the $lang starter"; }
  step "tabdeck --config $name/config.json --line -e 'show 5'"
  "$tabdeck" --config "$folder/config.json" --state-dir "$work/state" --line -e 'show 5' >"$work/$lang-show.log" 2>&1 \
    || { cat "$work/$lang-show.log" >&2; fail "show in line mode ($lang)"; }
  grep -q 'apple' "$work/$lang-show.log" && grep -q 'rows 1–5 of 8' "$work/$lang-show.log" \
    || { cat "$work/$lang-show.log" >&2; fail "the $lang starter's rows were not shown"; }
done
step "passed"
