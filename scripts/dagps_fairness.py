#!/usr/bin/env python3
"""Two queues: fairness vs kappa (DAGPS Table 4 style) for docs/reproductions/dagps.md.

The jobs of a workload are split evenly at random between two users (queues) q1 and q2
of equal weight, arrivals optionally compressed to load the cluster, and run under
dagps for several kappa values, and under baselines, each also with all jobs in one
queue. Per run, from tasks.csv and jobs.csv:
  - gap: (median JCT with one queue - median JCT with two) / one queue's (> 0: two
    queues are faster), as Table 4's "2Q vs. 1Q perf. gap";
  - q1 share: q1's part of the dominant-share resource-time allocated to the two
    users, averaged over the 10 s windows in which both users had a task waiting
    for at least half of the window (0.5 = even);
  - Jain's index of the two users' allocations over 10 s, 30 s and 60 s windows
    (same rule: both users backlogged), averaged (the paper uses 10/60/240 s on
    hours-long runs; these runs last about 3 minutes);
  - max deficit: the largest deficit counter re-derived from the launches in tasks.csv
    as the policy keeps it (matcher.h: at each launch of amount a = the task's dominant
    share of the cluster, every active user gains a/2 and the launching user loses a; a
    user is active while it has a ready task; an inactive user's deficit is 0), in
    fractions of the cluster, the unit of kappa. Launches at one instant are taken in
    (job, stage, task) order, which may differ from the policy's order, so this is an
    approximation of the policy's own counters.

  python3 scripts/dagps_fairness.py --weft build/src/weft --workload examples/default.json \\
      --arrival-scale 0.5 --kappas 0,0.001,0.01,0.1,1,1e6 --baselines fifo,drf,tetris
"""
import argparse
import bisect
import csv
import os
import statistics
import tempfile

import dagps_workloads as wl

RESOURCES = ["cpu", "mem", "disk", "net"]


def cluster_totals(data):
    tot = {r: 0.0 for r in RESOURCES}
    for group in data["cluster"]["machines"]:
        for r in RESOURCES:
            tot[r] += group["capacity"].get(r, 0) * group.get("count", 1)
    return tot


def dominant(row, tot):
    return max(float(row[r]) / tot[r] for r in RESOURCES if tot[r] > 0)


def merged(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def coverage(union, a, b):
    """The fraction of [a, b] the union of intervals covers."""
    return sum(max(0.0, min(y, b) - max(x, a)) for x, y in union) / (b - a)


def analyse(outdir, tot, windows=(10, 30, 60)):
    users = {}
    with open(os.path.join(outdir, "jobs.csv")) as f:
        for row in csv.DictReader(f):
            users[row["job"]] = row["user"]
    attempts = []
    waiting = {}
    with open(os.path.join(outdir, "tasks.csv")) as f:
        for row in csv.DictReader(f):
            u = users[row["job"]]
            ready, start, end = float(row["ready"]), float(row["start"]), float(row["end"])
            attempts.append((start, end, u, dominant(row, tot), row["job"], row["stage"], int(row["task"])))
            waiting.setdefault(u, []).append((ready, start))
    names = sorted(waiting)
    unions = {u: merged(waiting[u]) for u in names}
    horizon = max(a[1] for a in attempts)
    result = {}
    for w in windows:
        jains, shares = [], []
        t = 0.0
        while t + w <= horizon:
            if len(names) == 2 and all(coverage(unions[u], t, t + w) >= 0.5 for u in names):
                alloc = {u: 0.0 for u in names}
                for start, end, u, d, *_ in attempts:
                    overlap = min(end, t + w) - max(start, t)
                    if overlap > 0:
                        alloc[u] += d * overlap
                x = [alloc[u] for u in names]
                if sum(x) > 0:
                    jains.append(sum(x) ** 2 / (len(x) * sum(v * v for v in x)))
                    shares.append(x[0] / sum(x))
            t += w
        result[w] = (statistics.mean(jains) if jains else float("nan"),
                     statistics.mean(shares) if shares else float("nan"), len(jains))
    # Deficit counters re-derived from the launches.
    starts = {u: [x[0] for x in unions[u]] for u in names}

    def active(u, t):
        i = bisect.bisect_right(starts[u], t) - 1
        return i >= 0 and unions[u][i][1] >= t

    deficit = {u: 0.0 for u in names}
    worst = 0.0
    for start, _, u, d, *_ in sorted(attempts, key=lambda a: (a[0], a[4], a[5], a[6])):
        act = [v for v in names if active(v, start)]
        for v in names:
            if v not in act:
                deficit[v] = 0.0
        for v in act:
            deficit[v] += d / len(act)
        deficit[u] -= d
        worst = max(worst, max(deficit[v] for v in act))
    return result, worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft", default="build/src/weft")
    ap.add_argument("--workload", default="examples/default.json")
    ap.add_argument("--arrival-scale", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=1, help="of the split into two queues")
    ap.add_argument("--kappas", default="0,0.001,0.01,0.1,1,1e6")
    ap.add_argument("--baselines", default="fifo,drf,tetris")
    ap.add_argument("--params", default="", help="extra dagps params, comma-separated k=v")
    args = ap.parse_args()
    base = wl.scale_arrivals(wl.load(args.workload), args.arrival_scale)
    tot = cluster_totals(base)
    extra = [kv for kv in args.params.split(",") if kv]
    runs = [("dagps", [f"kappa={k}"] + extra) for k in args.kappas.split(",")]
    runs += [(p, []) for p in args.baselines.split(",") if p]
    print(f"workload {args.workload}, arrivals x{args.arrival_scale}, split seed {args.seed}")
    print("policy,params,median_jct_1q,median_jct_2q,gap,avg_jct_1q,avg_jct_2q,makespan_1q,makespan_2q,"
          "q1_share_10s,jain_10s,jain_30s,jain_60s,windows_10s,max_deficit")
    with tempfile.TemporaryDirectory() as tmp:
        two, one = os.path.join(tmp, "two.json"), os.path.join(tmp, "one.json")
        wl.save(wl.two_queues(base, args.seed), two)
        wl.save(wl.one_queue(base), one)
        for policy, params in runs:
            s1 = wl.run(args.weft, one, policy, params, os.path.join(tmp, "o1"))
            d2 = os.path.join(tmp, "o2")
            s2 = wl.run(args.weft, two, policy, params, d2)
            win, worst = analyse(d2, tot)
            gap = (s1["median_jct"] - s2["median_jct"]) / s1["median_jct"]
            print(f"{policy},{' '.join(params)},{s1['median_jct']:.2f},{s2['median_jct']:.2f},{gap:+.3f},"
                  f"{s1['avg_jct']:.2f},{s2['avg_jct']:.2f},{s1['makespan']:.1f},{s2['makespan']:.1f},"
                  f"{win[10][1]:.3f},{win[10][0]:.3f},{win[30][0]:.3f},{win[60][0]:.3f},{win[10][2]},{worst:.4f}",
                  flush=True)


if __name__ == "__main__":
    main()
