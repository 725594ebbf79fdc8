#!/usr/bin/env python3
"""Prints Ursa's Table 2/4/5-style tables (markdown) from the result directories scripts/ursa_tables.sh
leaves in RUNS: makespan and average JCT (s), SE and UE of cpu and memory (summary.json's `se` and `ue`).

Usage: scripts/ursa_tables.py RUNS
"""
import json
import os
import sys


def summary(runs, name):
    with open(os.path.join(runs, name, "summary.json")) as f:
        return json.load(f)


def row(label, s, cols):
    cells = [f"{s['makespan']:.1f}", f"{s['avg_jct']:.1f}"]
    for kind, r in cols:
        cells.append(f"{s[kind][r]:.3f}")
    return "| " + label + " | " + " | ".join(cells) + " |"


def table(runs, title, rows, cols):
    head = ["run", "makespan (s)", "avg JCT (s)"] + [f"{k.upper()} {r}" for k, r in cols]
    print(f"\n{title}\n")
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join(["---"] + ["---:"] * (len(head) - 1)) + " |")
    for label, name in rows:
        print(row(label, summary(runs, name), cols))


def main():
    runs = sys.argv[1]
    full = [("se", "cpu"), ("se", "mem"), ("ue", "cpu"), ("ue", "mem")]
    for w in ["tpch-small", "default"]:
        rows = []
        for v, what in [(w, "as given"), (w + "-phased", "derived phases")]:
            rows += [(f"{what}: ursa EJF", f"t2-{v}-ursa-ejf"), (f"{what}: ursa SRJF", f"t2-{v}-ursa-srjf"),
                     (f"{what}: Y+S (spark-dynamic)", f"t2-{v}-ys")]
        table(runs, f"Table 2 style, {w}", rows, full)
    table(runs, "Table 4 style, setting 2", [
        ("ursa EJF", "t4-ursa"), ("ursa SRJF", "t4-ursa-srjf"), ("ursa placement=tetris", "t4-tetris"),
        ("ursa placement=capacity", "t4-capacity"), ("Y+U (ursa-yarn, 150 executors)", "t4-yu"),
        ("Y+S (spark-dynamic)", "t4-ys")], [("ue", "cpu"), ("se", "cpu")])
    table(runs, "Table 5 style, setting 2 on 128 GB machines, 4-core / 4 GB containers",
          [(f"{p} over-subscription {k}", f"t5-{n}-{k}") for n, p in [("yu", "Y+U"), ("ys", "Y+S")]
           for k in (1, 2, 4)], [("ue", "cpu"), ("se", "cpu")])


if __name__ == "__main__":
    main()
