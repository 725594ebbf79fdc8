#!/usr/bin/env python3
"""Each DAG of a workload alone on a (smaller) cluster: JCT / NewLB per policy.

DAGPS section 8.3/8.4 compares schedules of single DAGs with the lower bound NewLB. This spaces
the jobs of WORKLOAD far apart (so each runs alone), drops locality lists, replaces the machine
counts of its machine groups by COUNTS (comma-separated, one per group), runs `weft sim` per
policy and prints quantiles of jobs.csv's newlb_ratio (= JCT / NewLB of the job alone).

  scripts/lone_dag_ratios.py WEFT WORKLOAD COUNTS POLICY[,POLICY...]
e.g.
  scripts/lone_dag_ratios.py build/src/weft examples/default.json 4,4 fifo,cp,tetris,stripart

The functions are shared with scripts/dagps_real_dags.py.
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile


def quantile(sorted_values, q):
    """The q-quantile by the nearest-rank method (no interpolation)."""
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def serial_seconds(job):
    """An upper bound on a job's time alone: every task one after another."""
    total = 0.0
    for stage in job["stages"]:
        durations = stage.get("durations") or [stage["duration"]] * stage["tasks"]
        total += sum(durations)
    return total


def make_lone(workload, counts=None):
    """Spaces the jobs so that each runs alone (the gap exceeds any job's serial time), drops
    locality, and sets the machine count of each group from `counts` (None: unchanged)."""
    gap = max(100000.0, math.ceil(max(serial_seconds(j) for j in workload["jobs"])) + 1.0)
    for i, job in enumerate(workload["jobs"]):
        job["arrival"] = i * gap
        for stage in job["stages"]:
            stage.pop("locality", None)
    if counts is not None:
        for group, count in zip(workload["cluster"]["machines"], counts):
            group["count"] = int(count)
            group["rack_size"] = 1
    return workload


def run_lone(weft, lone_path, policy, outdir, params=()):
    """Runs `policy` on a workload made by make_lone; returns jobs.csv rows (dicts). Fails if the
    run fails or two jobs overlapped (then they did not run alone)."""
    cmd = [weft, "sim", "-w", lone_path, "-p", policy, "--no-progress", "--out", outdir]
    for kv in params:
        cmd += ["--param", kv]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}")
    rows = list(csv.DictReader(open(os.path.join(outdir, "jobs.csv"))))
    rows.sort(key=lambda r: float(r["arrival"]))
    for prev, row in zip(rows, rows[1:]):
        if float(row["arrival"]) < float(prev["end"]):
            raise SystemExit(f"{policy}: job {row['job']} arrived before {prev['job']} ended: not alone")
    return rows


def main():
    weft, path, counts, policies = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    w = make_lone(json.load(open(path)), counts.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        lone = f"{tmp}/lone.json"
        json.dump(w, open(lone, "w"))
        print("policy,p25,median,p75,p90,max,mean")
        for policy in policies.split(","):
            rows = run_lone(weft, lone, policy, f"{tmp}/{policy}")
            r = sorted(float(row["newlb_ratio"]) for row in rows)
            q = [quantile(r, x) for x in (0.25, 0.5, 0.75, 0.9)]
            print(policy + "," + ",".join(f"{v:.3f}" for v in q + [r[-1], sum(r) / len(r)]))


if __name__ == "__main__":
    main()
