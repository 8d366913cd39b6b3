#!/usr/bin/env python3
"""Writes the benchmark CSV: gen_csv.py's columns, with amounts made unique so that the task's
order (name ascending, then amount descending) is total and every tool must print the same rows.

usage: gen_bench_csv.py ROWS OUTPUT [--seed N]

Columns: id, name, amount, date, category, note (as Plugins/csv/gen_csv.py, whose names, words,
quoting and notes with commas, quotes and line breaks are reused by importing it). What differs:
amount is never empty and never repeats: its cents are `r * ROWS + (id - 1)` with `r` random,
shifted so some amounts are negative. Sorting by amount is therefore sorting by `r`, and two rows
can never tie on (name, amount), so no tool's tie-breaking can change the first rows.
"""
import datetime
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Plugins", "csv"))
import gen_csv  # noqa: E402  (the csv plugin's generator: vocabulary, quoting, notes)

# Cents span about 10^10 (amounts up to about 100,000,000.00) whatever the row count.
CENTS_SPAN = 10_000_000_000
SHIFT_CENTS = 1_000_000_000


def amount(rng, row_index, rows):
    """A decimal with 2 places, unique per row: the random part decides the order."""
    span = max(1, CENTS_SPAN // rows)
    cents = rng.randrange(span) * rows + row_index - SHIFT_CENTS
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return "%s%d.%02d" % (sign, cents // 100, cents % 100)


def main():
    args = gen_csv.parse_args(__doc__)
    rng = random.Random(args.seed)
    start = datetime.date(2000, 1, 1).toordinal()
    tmp = "%s.%d.partial" % (args.output, os.getpid())  # concurrent runs never share one
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write("id,name,amount,date,category,note\n")
        buf = []
        for i in range(args.rows):
            name = rng.choice(gen_csv.FIRST) + " " + rng.choice(gen_csv.LAST)
            date = datetime.date.fromordinal(start + rng.randrange(9000)).isoformat()
            cells = [str(i + 1), gen_csv.quote(name), amount(rng, i, args.rows), date,
                     rng.choice(gen_csv.CATEGORIES), gen_csv.quote(gen_csv.note(rng))]
            buf.append(",".join(cells))
            if len(buf) == 10000:
                f.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            f.write("\n".join(buf) + "\n")
    os.replace(tmp, args.output)  # a file that exists is complete


if __name__ == "__main__":
    main()
