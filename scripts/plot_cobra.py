#!/usr/bin/python3
"""Pictures of COBRA's section VII-B reproduction (docs/reproductions/cobra.md), from scripts/cobra_repro.sh's
output directory:
  cobra_vii_b.svg     average JCT and makespan per policy (results.csv)
  cobra_fig7.svg      average JCT reduction against cobra-default over delta, one line per rho (fig7.csv)
  cobra_running.svg   running tasks over the first two hours (each policy's tasks.csv; the paper's Fig. 6 idea)

  /usr/bin/python3 scripts/plot_cobra.py OUTDIR DOCDIR
"""
import csv
import os
import sys
from collections import defaultdict

import plot_style

POLICIES = ["cobra", "cobra-default", "tetris", "spark-static", "spark-dynamic"]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_cobra.py OUTDIR DOCDIR")
    out, doc = sys.argv[1], sys.argv[2]
    plt = plot_style.pyplot()
    rows = {r["policy"]: r for r in csv.DictReader(open(os.path.join(out, "results.csv")))}

    fig, axes = plt.subplots(1, 2, figsize=(8, 3))
    for ax, key, label in [(axes[0], "avg_jct_s", "average JCT (s)"), (axes[1], "makespan_s", "makespan (s)")]:
        names = [p for p in POLICIES if p in rows]
        ax.bar(names, [float(rows[p][key]) for p in names], color="#4878a8")
        ax.set_ylabel(label)
        ax.set_yscale("log")
        ax.tick_params(axis="x", rotation=30)
    plot_style.save(fig, os.path.join(doc, "cobra_vii_b.svg"))

    default = float(rows["cobra-default"]["avg_jct_s"])
    grid = defaultdict(list)
    for r in csv.DictReader(open(os.path.join(out, "fig7.csv"))):
        grid[r["rho"]].append((float(r["delta"]), 100 * (1 - float(r["avg_jct_s"]) / default)))
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for rho, pts in sorted(grid.items(), key=lambda kv: float(kv[0])):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"rho = {rho}")
    ax.set_xlabel("delta")
    ax.set_ylabel("avg JCT reduction vs cobra-default (%)")
    ax.legend()
    plot_style.save(fig, os.path.join(doc, "cobra_fig7.svg"))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    horizon, step = 7200, 30
    for p in ["cobra", "cobra-default", "tetris", "spark-dynamic"]:
        path = os.path.join(out, p, "tasks.csv")
        if not os.path.exists(path):
            continue
        counts = [0] * (horizon // step)
        for t in csv.DictReader(open(path)):
            start, end = float(t["start"]), float(t["end"])
            for i in range(int(start // step), min(len(counts), int(end // step) + 1)):
                counts[i] += 1
        ax.plot([i * step for i in range(len(counts))], counts, label=p)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("running tasks")
    ax.legend()
    plot_style.save(fig, os.path.join(doc, "cobra_running.svg"))


if __name__ == "__main__":
    main()
