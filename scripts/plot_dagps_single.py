#!/usr/bin/env python3
"""CDF of each policy's makespan relative to dagps's, per DAG, as an SVG (python3 stdlib only).

  python3 scripts/plot_dagps_single.py /tmp/dagps_single.csv docs/reproductions/dagps_single_dags.svg \
      --title "150 TPC-H DAGs alone on 2 machines"

Input: the CSV written by scripts/dagps_single_dags.py (job,policy,makespan_s). x: a
policy's makespan / dagps's makespan for the same DAG (> 1: dagps is faster); y: the
fraction of DAGs at or below x. One line per policy other than dagps; a vertical
line at 1.
"""
import argparse
import csv
from collections import defaultdict

COLORS = ["#d62728", "#ff7f0e", "#2ca02c", "#1f77b4", "#9467bd", "#8c564b", "#7f7f7f"]
W, H, L, R, T, B = 640, 400, 60, 150, 40, 50  # size and margins


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
    ratios = {p: sorted(j[p] / j["dagps"] for j in by_job.values() if j.get("dagps", 0) > 0 and p in j)
              for p in policies}
    x0, x1 = 0.9, a.xmax

    def px(x):
        return L + (min(max(x, x0), x1) - x0) / (x1 - x0) * (W - L - R)

    def py(y):
        return H - B - y * (H - T - B)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{a.title}</text>']
    for k in range(0, 11, 2):  # y grid
        y = k / 10
        out.append(f'<line x1="{L}" y1="{py(y):.1f}" x2="{W - R}" y2="{py(y):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:.1f}</text>')
    x = x0
    while x <= x1 + 1e-9:  # x grid
        out.append(f'<line x1="{px(x):.1f}" y1="{py(0):.1f}" x2="{px(x):.1f}" y2="{py(1):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{px(x):.1f}" y="{H - B + 16}" text-anchor="middle">{x:.1f}</text>')
        x += 0.1
    out.append(f'<line x1="{px(1):.1f}" y1="{py(0):.1f}" x2="{px(1):.1f}" y2="{py(1):.1f}" stroke="black" '
               f'stroke-dasharray="4,3"/>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">makespan / dagps makespan '
               f'(&gt; 1: dagps faster; clipped at {x1})</text>')
    out.append(f'<text x="16" y="{(T + H - B) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(T + H - B) / 2})">fraction of DAGs</text>')
    for i, p in enumerate(policies):
        rs, color = ratios[p], COLORS[i % len(COLORS)]
        n = len(rs)
        pts = [(px(x0), py(0))]
        for k, r in enumerate(rs):  # a step per DAG
            pts += [(px(r), py(k / n)), (px(r), py((k + 1) / n))]
        pts.append((px(x1), py(1)))
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.8" points="'
                   + " ".join(f"{u:.1f},{v:.1f}" for u, v in pts) + '"/>')
        out.append(f'<line x1="{W - R + 10}" y1="{T + 20 * i + 10}" x2="{W - R + 30}" y2="{T + 20 * i + 10}" '
                   f'stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{W - R + 36}" y="{T + 20 * i + 14}">{p} (n={n})</text>')
    out.append("</svg>")
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
