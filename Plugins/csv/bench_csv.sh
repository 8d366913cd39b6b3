#!/usr/bin/env bash
# Measures tabdeck-csv: builds it (release), generates a CSV (1,000,000 rows by default)
# in /tmp, times the engine directly (--bench) and then drives the plugin over its
# protocol, printing open, first-page, index, sort and filter times and peak memory.
#
# usage: Plugins/csv/bench_csv.sh [ROWS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rows="${1:-1000000}"
file="/tmp/tabdeck-bench-${rows}.csv"

swift build -c release --product tabdeck-csv 2>&1 | tail -1
plugin="$(swift build -c release --show-bin-path)/tabdeck-csv"

if [ ! -s "$file" ]; then
    echo "generating $rows rows into $file"
    python3 Plugins/csv/gen_csv.py "$rows" "$file"
fi

echo "== engine (tabdeck-csv --bench, in-process, synchronous index)"
"$plugin" --bench "$file"

echo "== plugin over the protocol (background index)"
python3 Plugins/csv/bench_driver.py "$plugin" "$file"
