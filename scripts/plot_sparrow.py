#!/usr/bin/env python3
"""Plot weft_bench_sparrow CSV rows as an SVG line chart (python3 stdlib only).

  scripts/plot_sparrow.py CSV OUT.svg [--series policy|probe_ratio] [--title T] [--cores N]

x: load; y: median job response time (ms, log scale); one line per series
value; a dashed black line at the ideal (expected longest task, mean x H(m)).
Used for docs/reproductions/sparrow_fig3.svg and sparrow_fig12.svg.
"""
import argparse
import csv
import math
from collections import defaultdict

COLORS = ["#d62728", "#ff7f0e", "#2ca02c", "#1f77b4", "#9467bd", "#8c564b"]


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
    W, H, L, R, T, B = 720, 440, 70, 200, 40, 50
    xs = [x for s in series.values() for x, _ in s]
    ys = [y for s in series.values() for _, y in s] + ([ideal] if ideal else [])
    x0, x1 = 0.0, 1.0
    y0 = 10 ** math.floor(math.log10(min(ys)))
    y1 = 10 ** math.ceil(math.log10(max(ys)))

    def px(x):
        return L + (x - x0) / (x1 - x0) * (W - L - R)

    def py(y):
        return T + (math.log10(y1) - math.log10(y)) / (math.log10(y1) - math.log10(y0)) * (H - T - B)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2 - 100}" y="20" font-size="14">{a.title}</text>',
           f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>',
           f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>',
           f'<text x="{(L + W - R) / 2 - 20}" y="{H - 15}">load</text>',
           f'<text x="15" y="{T + (H - T - B) / 2}" transform="rotate(-90 15 {T + (H - T - B) / 2})">'
           'median response time (ms, log)</text>']
    for i in range(11):
        x = i / 10
        out.append(f'<line x1="{px(x)}" y1="{H - B}" x2="{px(x)}" y2="{H - B + 5}" stroke="black"/>')
        out.append(f'<text x="{px(x) - 8}" y="{H - B + 18}">{x:.1f}</text>')
    e = int(math.log10(y0))
    while 10 ** e <= y1:
        for m in (1, 2, 5):
            y = m * 10 ** e
            if y0 <= y <= y1:
                out.append(f'<line x1="{L}" y1="{py(y)}" x2="{W - R}" y2="{py(y)}" stroke="#ddd"/>')
                out.append(f'<text x="{L - 45}" y="{py(y) + 4}">{y:g}</text>')
        e += 1
    if ideal:
        out.append(f'<line x1="{L}" y1="{py(ideal)}" x2="{W - R}" y2="{py(ideal)}" stroke="black" '
                   'stroke-dasharray="6,4"/>')
        out.append(f'<text x="{W - R + 8}" y="{py(ideal) + 4}">ideal {ideal:.0f} ms</text>')
    for i, (name, pts) in enumerate(sorted(series.items())):
        pts.sort()
        c = COLORS[i % len(COLORS)]
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' %
                   (c, " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)))
        for x, y in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{c}"/>')
        out.append(f'<line x1="{W - R + 8}" y1="{T + 20 * i + 30}" x2="{W - R + 28}" y2="{T + 20 * i + 30}" '
                   f'stroke="{c}" stroke-width="2"/>')
        out.append(f'<text x="{W - R + 32}" y="{T + 20 * i + 34}">{name}</text>')
    out.append("</svg>")
    open(a.out, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
