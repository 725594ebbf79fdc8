#!/usr/bin/env python3
"""Each DAG of a workload alone on a (smaller) cluster: JCT / NewLB per policy.

DAGPS section 8.3/8.4 compares schedules of single DAGs with the lower bound NewLB. This spaces
the jobs of WORKLOAD far apart (so each runs alone), drops locality lists, replaces the machine
counts of its machine groups by COUNTS (comma-separated, one per group), runs `weft sim` per
policy and prints quantiles of jobs.csv's newlb_ratio (= JCT / NewLB of the job alone).

  scripts/lone_dag_ratios.py WEFT WORKLOAD COUNTS POLICY[,POLICY...]
e.g.
  scripts/lone_dag_ratios.py build/src/weft examples/default.json 4,4 fifo,cp,tetris,stripart
"""
import csv
import json
import math
import subprocess
import sys
import tempfile


def quantile(sorted_values, q):
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def main():
    weft, path, counts, policies = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    w = json.load(open(path))
    for i, job in enumerate(w["jobs"]):
        job["arrival"] = i * 100000.0
        for stage in job["stages"]:
            stage.pop("locality", None)
    for group, count in zip(w["cluster"]["machines"], counts.split(",")):
        group["count"] = int(count)
        group["rack_size"] = 1
    with tempfile.TemporaryDirectory() as tmp:
        lone = f"{tmp}/lone.json"
        json.dump(w, open(lone, "w"))
        print("policy,p25,median,p75,p90,max,mean")
        for policy in policies.split(","):
            out = f"{tmp}/{policy}"
            subprocess.run([weft, "sim", "-w", lone, "-p", policy, "--no-progress", "--out", out],
                           check=True, capture_output=True)
            r = sorted(float(row["newlb_ratio"]) for row in csv.DictReader(open(f"{out}/jobs.csv")))
            q = [quantile(r, x) for x in (0.25, 0.5, 0.75, 0.9)]
            print(policy + "," + ",".join(f"{v:.3f}" for v in q + [r[-1], sum(r) / len(r)]))


if __name__ == "__main__":
    main()
