#!/usr/bin/env python3
"""CDF of makespan / NewLB per policy (DAGPS Fig. 13 style) as an SVG (python3 stdlib only).

  scripts/plot_ratio_cdf.py TITLE=LONE_CSV [TITLE=LONE_CSV ...] OUT.svg [--policies P1,P2,...] [--xmax X]

One panel per LONE_CSV, the lone.csv of scripts/dagps_real_dags.py (job,policy,jct,newlb,newlb_ratio).
x: makespan / NewLB; y: fraction of DAGs at or below it; one step line per policy.
Used for docs/reproductions/dagps_real_dags_cdf.svg.
"""
import argparse
import csv
from collections import defaultdict

COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def panel(out, x_off, title, series, xmax, w=360, h=300):
    """Appends to `out` the SVG elements of one CDF panel drawn at x offset `x_off`."""
    left, top, bottom = x_off + 45, 40, h - 40
    right = x_off + w - 10

    def px(x):
        return left + (min(x, xmax) - 1.0) / (xmax - 1.0) * (right - left)

    def py(y):
        return bottom - y * (bottom - top)

    out.append(f'<text x="{left}" y="25" font-size="13">{title}</text>')
    out.append(f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="black"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="black"/>')
    steps = 5
    for i in range(steps + 1):
        x = 1.0 + i * (xmax - 1.0) / steps
        out.append(f'<line x1="{px(x):.1f}" y1="{bottom}" x2="{px(x):.1f}" y2="{bottom + 4}" stroke="black"/>')
        out.append(f'<text x="{px(x) - 12:.1f}" y="{bottom + 16}">{x:.2f}</text>')
        y = i / steps
        out.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{right}" y2="{py(y):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 28}" y="{py(y) + 4:.1f}">{y:.1f}</text>')
    out.append(f'<text x="{(left + right) / 2 - 50:.0f}" y="{h - 8}">makespan / NewLB</text>')
    for i, (name, values) in enumerate(series):
        values = sorted(values)
        pts, n = [(px(1.0), py(0.0))], len(values)
        for k, v in enumerate(values):
            if k + 1 < n and values[k + 1] == v:
                continue  # one step per distinct value
            pts += [(px(v), pts[-1][1]), (px(v), py((k + 1) / n))]
        pts.append((px(xmax), py(1.0)))
        width = 3 if name.startswith("dagps") else 1.5
        out.append('<polyline fill="none" stroke="%s" stroke-width="%s" points="%s"/>' %
                   (COLORS[i % len(COLORS)], width, " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs", nargs="+", help="TITLE=LONE_CSV ... OUT.svg (the last one is the output)")
    ap.add_argument("--policies", default="dagps,cp,bfs,tetris,random,stripart,coffman-graham,fifo")
    ap.add_argument("--xmax", type=float, default=1.5)
    a = ap.parse_args()
    *panels, out_path = a.inputs
    policies = a.policies.split(",")
    w, h = 360, 300
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * len(panels) + 150}" height="{h}" '
           'font-family="sans-serif" font-size="11">', '<rect width="100%" height="100%" fill="white"/>']
    for p, spec in enumerate(panels):
        title, _, path = spec.partition("=")
        ratios = defaultdict(list)
        for r in csv.DictReader(open(path)):
            ratios[r["policy"]].append(float(r["newlb_ratio"]))
        panel(out, p * w, title, [(name, ratios[name]) for name in policies], a.xmax, w, h)
    for i, name in enumerate(policies):
        y = 50 + 18 * i
        x = w * len(panels) + 5
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 20}" y2="{y}" stroke="{COLORS[i % len(COLORS)]}" '
                   f'stroke-width="{3 if name.startswith("dagps") else 1.5}"/>')
        out.append(f'<text x="{x + 25}" y="{y + 4}">{name}</text>')
    out.append("</svg>")
    open(out_path, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
