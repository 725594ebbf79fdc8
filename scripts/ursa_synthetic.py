#!/usr/bin/env python3
"""Ursa's section 5.3 synthetic workload (002_872a20c16a9dbee0.txt), as a weft workload.

20 machines x 30 cores, 10 Gb/s (1250 MB/s) network; each job has 5 stages of 600 tasks (one per core)
in a chain (barrier edges), and each task is a network monotask (its shuffle read) then a cpu monotask.
The paper gives, for a job run alone, about 8 s a stage at 57% cpu (Type 1) and 4.4 s a stage at 50%
cpu (Type 2, half the data). We split each stage's time so: Type 1 cpu 0.57 x 8 = 4.56 s and network
3.44 s; Type 2 cpu 2.2 s and network 2.2 s. A machine pulls its 30 tasks' input through its link, so a
task's network work is (network seconds x 1250 MB/s / 30): 143.33 MB (Type 1), 91.67 MB (Type 2); its
cpu work is the cpu seconds on one core. Each task holds 1 GB of memory (64 GB machines).

  setting 1: 40 Type 1 jobs, all submitted at time 0 (in the order j01, j02, ...)
  setting 2: 20 Type 1 and 20 Type 2 jobs alternately (1, 2, 1, 2, ...), one a second (--gap), so that
             EJF has elapsed times to tell them apart (with equal arrivals it falls back on job ids)

--machine-mem GB gives the machines more memory (default 64): Table 5's over-subscription runs use 128 so
that memory allows four times the containers (the paper shrinks the containers' memory for the same end).

--type1-cpu-share 0.5 instead splits a Type 1 stage 4 s cpu / 4 s network: the split the paper's ideal
JCTs (40, 48, 80, 88, ... s) assume, where one job's cpu exactly covers the other's network.

Usage: scripts/ursa_synthetic.py --setting 1|2 [--jobs N] [--type1-cpu-share X] [--machine-mem GB] OUT.json
"""
import argparse
import json

TYPES = {1: {"cpu": 4.56, "net_s": 3.44}, 2: {"cpu": 2.2, "net_s": 2.2}}
MACHINES, CORES, NET_MBPS, STAGES = 20, 30, 1250, 5


def job(name, kind, arrival):
    t = TYPES[kind]
    net_mb = round(t["net_s"] * NET_MBPS / CORES, 3)
    stages = []
    for s in range(STAGES):
        stage = {"name": f"s{s}", "tasks": MACHINES * CORES, "demand": {"cpu": 1, "mem": 1},
                 "phases": [{"resource": "net", "work": net_mb}, {"resource": "cpu", "work": t["cpu"]}]}
        if s > 0:
            stage["after"] = [f"s{s - 1}"]
        stages.append(stage)
    return {"name": name, "arrival": arrival, "user": f"type{kind}", "stages": stages}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setting", type=int, choices=[1, 2], required=True)
    ap.add_argument("--jobs", type=int, default=40)
    ap.add_argument("--type1-cpu-share", type=float, default=0.57)
    ap.add_argument("--gap", type=float, help="seconds between submissions (default: 0 setting 1, 1 setting 2)")
    ap.add_argument("--machine-mem", type=float, default=64.0)
    ap.add_argument("out")
    a = ap.parse_args()
    TYPES[1] = {"cpu": round(8 * a.type1_cpu_share, 3), "net_s": round(8 * (1 - a.type1_cpu_share), 3)}
    mem = int(a.machine_mem) if a.machine_mem.is_integer() else a.machine_mem
    gap = a.gap if a.gap is not None else (0 if a.setting == 1 else 1)
    kinds = [1] * a.jobs if a.setting == 1 else [1 + (i % 2) for i in range(a.jobs)]
    workload = {"weft": 1,
                "cluster": {"machines": [{"name": "w", "count": MACHINES,
                                          "capacity": {"cpu": CORES, "mem": mem, "net": NET_MBPS}}]},
                "jobs": [job(f"j{i + 1:02d}-type{k}", k, i * gap) for i, k in enumerate(kinds)]}
    with open(a.out, "w") as f:
        json.dump(workload, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
