#!/usr/bin/env bash
# Measures tabdeck-csv: the engine in-process (`tabdeck-csv --bench`, per-step times and
# memory) and then Plugins/csv/bench_csv.py (the plugin over its protocol and the whole task
# through `tabdeck --line`), for 1,000,000 and 10,000,000 rows unless ROWS are given.
# Data is generated into /tmp (never into the repository).
#
# usage: Plugins/csv/bench_csv.sh [ROWS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=("${@:-1000000 10000000}")
read -r -a rows <<< "${rows[*]}"

swift build -c release --product tabdeck-csv 2>&1 | tail -1
swift build -c release --product tabdeck 2>&1 | tail -1
plugin="$(swift build -c release --show-bin-path)/tabdeck-csv"

for n in "${rows[@]}"; do
    file="/tmp/tabdeck-csv-bench-${n}.csv"
    [ -s "$file" ] || python3 Plugins/csv/gen_csv.py "$n" "$file"
    echo "== engine, ${n} rows (tabdeck-csv --bench: in-process, synchronous index)"
    "$plugin" --bench "$file"
done
echo "== plugin over the protocol, and the task through tabdeck --line"
python3 Plugins/csv/bench_csv.py --no-build --data /tmp --rows "${rows[@]}"
