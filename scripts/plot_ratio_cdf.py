#!/usr/bin/python3
"""CDF of makespan / NewLB per policy (DAGPS Fig. 13 style) with matplotlib (Debian's python3-matplotlib).

  /usr/bin/python3 scripts/plot_ratio_cdf.py TITLE=LONE_CSV [TITLE=LONE_CSV ...] OUT.svg \
      [--policies P1,P2,...] [--xmax X]

One panel per LONE_CSV, the lone.csv of scripts/dagps_real_dags.py (job,policy,jct,newlb,newlb_ratio).
x: makespan / NewLB; y: fraction of DAGs at or below it; one step line per policy (dagps drawn thicker).
Used for docs/reproductions/dagps_real_dags_cdf.svg.
"""
import argparse
import csv
from collections import defaultdict

import plot_style


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs", nargs="+", help="TITLE=LONE_CSV ... OUT.svg (the last one is the output)")
    ap.add_argument("--policies", default="dagps,cp,bfs,tetris,random,stripart,coffman-graham,fifo")
    ap.add_argument("--xmax", type=float, default=1.5)
    a = ap.parse_args()
    *panels, out_path = a.inputs
    policies = a.policies.split(",")
    plt = plot_style.pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(3.8 * len(panels) + 1.6, 3.4), sharey=True, squeeze=False)
    for ax, spec in zip(axes[0], panels):
        title, _, path = spec.partition("=")
        ratios = defaultdict(list)
        for r in csv.DictReader(open(path)):
            ratios[r["policy"]].append(float(r["newlb_ratio"]))
        for name in policies:
            values = sorted(ratios[name])
            n = len(values)
            # Start at (1, 0) and end at the right edge, so every line spans the panel.
            xs = [1.0] + values + [a.xmax]
            ys = [0.0] + [(k + 1) / n for k in range(n)] + [1.0]
            thick = name.startswith("dagps")  # drawn thick and on top, as the paper's Fig. 13
            ax.step(xs, ys, where="post", linewidth=2.6 if thick else 1.3, zorder=3 if thick else 2, label=name)
        ax.set_xlim(1.0, a.xmax)
        ax.set_ylim(0, 1.02)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("makespan / NewLB")
        ax.grid(True, color="#e5e5e5")
    axes[0][0].set_ylabel("fraction of DAGs")
    axes[0][-1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    plot_style.save(fig, out_path)


if __name__ == "__main__":
    main()
