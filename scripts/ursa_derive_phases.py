#!/usr/bin/env python3
"""Gives every stage of a weft workload without `phases` the monotasks src/policy/common/monotasks.h derives
(DeriveMonotasks): for a task of duration d using u_r of resource r on average, one monotask per resource
with u_r * d > 0, in the order net, disk, cpu (work: u_cpu * d core-seconds, u_disk * d and u_net * d MB);
a task using none of them, one cpu monotask of d seconds. The stage keeps its `duration` (so per-task
`durations` still scale the phases) and its demand and usage. Used by docs/reproductions/ursa.md to run the
bundled TPC-H workload as monotasks (the engine runs a stage without phases whole).

Usage: scripts/ursa_derive_phases.py IN.json OUT.json
"""
import json
import sys


def derive(stage):
    d = stage.get("duration")
    if "phases" in stage or d is None:
        return
    usage = stage.get("usage", stage.get("demand", {}))
    phases = [{"resource": r, "work": round(usage.get(r, 0) * d, 6)} for r in ("net", "disk", "cpu")
              if usage.get(r, 0) * d > 0]
    stage["phases"] = phases or [{"resource": "cpu", "work": d}]


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src) as f:
        workload = json.load(f)
    for job in workload["jobs"]:
        for stage in job["stages"]:
            derive(stage)
    with open(dst, "w") as f:
        json.dump(workload, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
