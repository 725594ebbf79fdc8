#!/usr/bin/python3
"""Plot weft_bench_sparrow CSV rows as a line chart with matplotlib (Debian's python3-matplotlib).

  /usr/bin/python3 scripts/plot_sparrow.py CSV OUT.svg [--series policy|probe_ratio] [--title T] [--cores N]

x: load; y: median job response time (ms, log scale); one line per series
value; a dashed black line at the ideal (expected longest task, mean x H(m)).
Used for docs/reproductions/sparrow_fig3.svg. The output format follows OUT's
extension (svg, png, pdf).
"""
import argparse
import csv
from collections import defaultdict

import plot_style


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("out")
    ap.add_argument("--series", default="policy")
    ap.add_argument("--title", default="Sparrow Fig. 3 in weft")
    ap.add_argument("--cores", default=None, help="only rows with this many cores per node")
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(open(a.csv)) if a.cores is None or r["cores"] == a.cores]
    series = defaultdict(list)
    ideal = None
    for r in rows:
        key = r[a.series] if a.series == "policy" else f"{r['policy']} d={r['probe_ratio']}"
        series[key].append((float(r["load"]), float(r["median_ms"])))
        ideal = float(r["ideal_expected_ms"])
    plt = plot_style.pyplot()
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    for name, pts in sorted(series.items()):
        pts.sort()
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", markersize=4, label=name)
    if ideal:
        ax.axhline(ideal, color="black", linestyle="--", linewidth=1, label=f"ideal {ideal:.0f} ms")
    ax.set_yscale("log")
    plot_style.plain_log_ticks(ax.yaxis)
    ax.set_xlim(0, 1)
    ax.set_xlabel("load")
    ax.set_ylabel("median response time (ms, log)")
    ax.set_title(a.title)
    ax.grid(True, which="both", color="#e5e5e5")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    plot_style.save(fig, a.out)


if __name__ == "__main__":
    main()
