#!/usr/bin/env python3
"""Builds sample.sqlite, the small database the default workspace opens in the sqlite tab.

Deterministic (a fixed seed), standard library only. Run from anywhere:

    python3 Plugins/sqlite/sample/make_sample.py [OUTPUT]

It holds a rowid table with every column type (people), a WITHOUT ROWID table with a
composite key (order items), a view (adults), a table with quotes in its name, and an
empty table.
"""
import os
import random
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Dennis",
         "Radia", "John", "Sophie", "Tim", "Hedy", "Linus", "Katherine", "Niklaus", "Annie", "Guido"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton",
        "Ritchie", "Perlman", "McCarthy", "Wilson", "Berners-Lee", "Lamarr", "Torvalds", "Johnson", "Wirth",
        "Easley", "van Rossum"]
CITIES = ["Berlin", "Zürich", "Lagos", "Osaka", "Lima", "Oslo", "Austin", "Pune", None]


def build(path: str) -> None:
    if os.path.exists(path):
        os.remove(path)
    rnd = random.Random(4)
    db = sqlite3.connect(path)
    db.executescript('''
        CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, age INTEGER,
                             salary REAL, born DATE, updated DATETIME, active BOOLEAN);
        CREATE INDEX people_name ON people(name);
        CREATE TABLE "order items" (order_id INTEGER, line INTEGER, product TEXT, qty INTEGER,
                                    price NUMERIC, PRIMARY KEY (order_id, line)) WITHOUT ROWID;
        CREATE TABLE "say ""cheese""" (caption TEXT, note);
        CREATE TABLE empty (a INTEGER, b TEXT);
        CREATE VIEW adults AS SELECT name, city, age FROM people WHERE age >= 18;
    ''')
    people = []
    for i in range(1, 1001):
        name = f"{rnd.choice(FIRST)} {rnd.choice(LAST)}"
        age = rnd.randint(5, 90) if rnd.random() > 0.05 else None
        born = f"{2024 - (age or 30)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
        updated = f"2024-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} {rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:00"
        people.append((i, name, rnd.choice(CITIES), age, round(rnd.uniform(20000, 150000), 2), born, updated,
                       rnd.random() < 0.7))
    db.executemany("INSERT INTO people VALUES (?, ?, ?, ?, ?, ?, ?, ?)", people)
    items = []
    for order in range(1, 301):
        for line in range(1, rnd.randint(2, 6)):
            items.append((order, line, rnd.choice(["pen", "paper", "ink", "stamp", "100% cotton bag", "a_b"]),
                          rnd.randint(1, 9), round(rnd.uniform(0.5, 40), 2)))
    db.executemany('INSERT INTO "order items" VALUES (?, ?, ?, ?, ?)', items)
    db.executemany('INSERT INTO "say ""cheese""" VALUES (?, ?)',
                   [("smile", 1), ("50% off", "text"), ("under_score", 2.5), ("back\\slash", None)])
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "sample.sqlite")
    build(out)
    print(f"{out}: {os.path.getsize(out)} bytes")
