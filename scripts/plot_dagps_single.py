#!/usr/bin/python3
"""CDF of each policy's makespan relative to dagps's, per DAG, with matplotlib (Debian's python3-matplotlib).

  /usr/bin/python3 scripts/plot_dagps_single.py /tmp/dagps_single.csv docs/reproductions/dagps_single_dags.svg \
      --title "150 TPC-H DAGs alone on 2 machines"

Input: the CSV written by scripts/dagps_single_dags.py (job,policy,makespan_s). x: a
policy's makespan / dagps's makespan for the same DAG (> 1: dagps is faster); y: the
fraction of DAGs at or below x. One line per policy other than dagps; a vertical
line at 1.
"""
import argparse
import csv
from collections import defaultdict

import plot_style


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("out")
    ap.add_argument("--title", default="makespan / dagps makespan, one DAG at a time")
    ap.add_argument("--xmax", type=float, default=1.6)
    a = ap.parse_args()
    by_job = defaultdict(dict)
    for r in csv.DictReader(open(a.csv)):
        by_job[r["job"]][r["policy"]] = float(r["makespan_s"])
    policies = sorted({p for j in by_job.values() for p in j if p != "dagps"})
    x0, x1 = 0.9, a.xmax
    plt = plot_style.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for p in policies:
        rs = sorted(min(max(j[p] / j["dagps"], x0), x1) for j in by_job.values() if j.get("dagps", 0) > 0 and p in j)
        n = len(rs)
        ax.step([x0] + rs + [x1], [0.0] + [(k + 1) / n for k in range(n)] + [1.0], where="post", linewidth=1.6,
                label=f"{p} (n={n})")
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_xlim(x0, x1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(f"makespan / dagps makespan (> 1: dagps faster; clipped at {x1})")
    ax.set_ylabel("fraction of DAGs")
    ax.set_title(a.title)
    ax.grid(True, color="#e5e5e5")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    plot_style.save(fig, a.out)


if __name__ == "__main__":
    main()
