#!/usr/bin/env python3
"""Writes a deterministic CSV file for tests and benchmarks.

usage: gen_csv.py ROWS OUTPUT [--seed N]

Columns: id (integer), name (text, some non-ASCII), amount (decimal, ~1% empty),
date (ISO 8601), category (one of a few values), note (free text with commas,
quotes and now and then a line break inside quotes).
"""
import argparse
import random
import datetime

FIRST = ["Ada", "Alan", "Grace", "Linus", "Barbara", "Edsger", "Donald", "Margaret", "Ken", "Dennis",
         "Frances", "John", "Radia", "Tim", "Guido", "Bjarne", "Niklaus", "Leslie", "Sophie", "Yukihiro",
         "José", "Zoë", "Søren", "Łukasz", "Mário", "Björn", "Ümit", "François", "Chloé", "Åsa",
         "Дмитрий", "Олена", "明", "さくら", "지훈", "Αλέξης", "Ngọc", "Ahmet", "Priya", "Oluwaseun"]
LAST = ["Lovelace", "Turing", "Hopper", "Torvalds", "Liskov", "Dijkstra", "Knuth", "Hamilton", "Thompson",
        "Ritchie", "Allen", "McCarthy", "Perlman", "Berners-Lee", "van Rossum", "Stroustrup", "Wirth",
        "Lamport", "Wilson", "Matsumoto", "García", "Müller", "Østergaard", "Wałęsa", "Conceição",
        "Andersson", "Yılmaz", "Lefèvre", "Nguyễn", "Иванов", "Шевченко", "田中", "김", "Παπαδόπουλος",
        "O'Brien", "Smith", "Jones", "Brown", "Taylor", "Kowalski"]
CATEGORIES = ["books", "games", "music", "tools", "toys", "garden"]
WORDS = ["alpha", "beta", "gamma", "delta", "quick", "brown", "fox", "lazy", "dog", "tabdeck",
         "table", "plugin", "sort", "page", "row", "cell", "über", "naïve", "café", "déjà vu"]


def quote(field):
    if any(c in field for c in ',"\n\r') or field.startswith(" "):
        return '"' + field.replace('"', '""') + '"'
    return field


def note(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(2, 9))]
    r = rng.random()
    if r < 0.20:
        words.insert(rng.randrange(len(words)), ",")
    elif r < 0.30:
        i = rng.randrange(len(words))
        words[i] = '"' + words[i] + '"'
    elif r < 0.31:
        words.insert(rng.randrange(len(words)), "\n")
    elif r < 0.32:
        return ""
    return " ".join(words).replace(" ,", ",")


def parse_args(description):
    """`ROWS OUTPUT [--seed N]`, the arguments of this generator and the bench's."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", type=int)
    ap.add_argument("output")
    ap.add_argument("--seed", type=int, default=42)
    return ap.parse_args()


def main():
    args = parse_args(__doc__)
    rng = random.Random(args.seed)
    start = datetime.date(2000, 1, 1).toordinal()
    with open(args.output, "w", encoding="utf-8", newline="") as f:
        f.write("id,name,amount,date,category,note\n")
        buf = []
        for i in range(1, args.rows + 1):
            name = rng.choice(FIRST) + " " + rng.choice(LAST)
            amount = "" if rng.random() < 0.01 else "%.2f" % (rng.random() * 10000 - 1000)
            date = datetime.date.fromordinal(start + rng.randrange(9000)).isoformat()
            cat = rng.choice(CATEGORIES)
            buf.append(",".join([str(i), quote(name), amount, date, cat, quote(note(rng))]))
            if len(buf) == 10000:
                f.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            f.write("\n".join(buf) + "\n")


if __name__ == "__main__":
    main()
