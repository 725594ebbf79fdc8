#!/usr/bin/env python3
"""Single-DAG comparison (locality preferences dropped) for docs/reproductions/dagps.md (DAGPS section 8.3 style).

Each job of a weft workload is run alone (arrival 0) on a small cluster, under
each policy, with `weft sim` (schedule checker on). Prints, per policy, the
distribution of makespan / DAGPS's makespan over the jobs, and writes one CSV
row per (job, policy).

  python3 scripts/dagps_single_dags.py --weft build/src/weft \
      --workload examples/default.json --machines 10 --out /tmp/single.csv
"""
import argparse
import csv
import json
import os
import subprocess
import tempfile

POLICIES = ["dagps", "fifo", "bfs", "cp", "tetris", "random"]


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft", default="build/src/weft")
    ap.add_argument("--workload", default="examples/default.json")
    ap.add_argument("--machines", type=int, default=10)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--params", default="", help="extra --param for dagps, e.g. relative_pri=true")
    ap.add_argument("--out", default="/tmp/dagps_single.csv")
    ap.add_argument("--plan-tool", default="", help="weft_bench_dagps_plan: also report the offline plan's makespan")
    args = ap.parse_args()
    policies = args.policies.split(",")
    data = json.load(open(args.workload))
    cluster = {"machines": [{"name": "m", "count": args.machines, "rack_size": 5,
                             "capacity": {"cpu": 32, "mem": 96, "disk": 400, "net": 2500}}]}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for job in data["jobs"]:
            one = dict(job)
            one["arrival"] = 0
            # Locality names machines of the original cluster: dropped here.
            one["stages"] = [{k: v for k, v in st.items() if k != "locality"} for st in job["stages"]]
            path = os.path.join(tmp, "job.json")
            json.dump({"weft": 1, "cluster": cluster, "jobs": [one]}, open(path, "w"))
            if args.plan_tool:
                out = subprocess.run([args.plan_tool, "--workload", path, "--job", "0", "--reps", "1"],
                                     capture_output=True, text=True, check=True).stdout
                plan = float(out.split("makespan_s=")[1].split()[0])
                rows.append((job["name"], "plan", plan))
            for p in policies:
                outdir = os.path.join(tmp, p)
                cmd = [args.weft, "sim", "-w", path, "-p", p, "--out", outdir]
                if p == "dagps" and args.params:
                    for kv in args.params.split(","):
                        cmd += ["--param", kv]
                done = subprocess.run(cmd, capture_output=True, text=True)
                if done.returncode != 0:
                    raise SystemExit(f"{job['name']} {p}: {done.stderr.strip()}")
                summary = json.load(open(os.path.join(outdir, "summary.json")))
                rows.append((job["name"], p, summary["makespan"]))
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job", "policy", "makespan_s"])
        w.writerows(rows)
    by = {}
    for name, p, m in rows:
        by.setdefault(name, {})[p] = m
    print(f"{len(by)} DAGs, {args.machines} machines; makespan / dagps makespan (> 1: dagps faster)")
    print(f"{'policy':10s} {'p25':>7s} {'p50':>7s} {'p75':>7s} {'p90':>7s} {'mean':>7s} {'dagps better':>13s} {'worse':>6s}")
    for p in policies + (["plan"] if args.plan_tool else []):
        r = [by[j][p] / by[j]["dagps"] for j in by if by[j]["dagps"] > 0]
        better = sum(1 for x in r if x > 1.0005)
        worse = sum(1 for x in r if x < 0.9995)
        print(f"{p:10s} {quantile(r, .25):7.3f} {quantile(r, .5):7.3f} {quantile(r, .75):7.3f} "
              f"{quantile(r, .9):7.3f} {sum(r) / len(r):7.3f} {better:13d} {worse:6d}")


if __name__ == "__main__":
    main()
