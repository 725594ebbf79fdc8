#!/usr/bin/env python3
"""Writes the workload of RAS's experiments (Polo et al., Middleware 2011, section 4, Tables 1-2) as weft JSON.

Nine MapReduce jobs (Sort, Combine, Select, three sizes each) submitted at the paper's times on 20 TaskTrackers.
Each job is a map stage and a reduce stage; the per-task demands are Table 2's profiles, as fractions of a
TaskTracker. Usage: ras_workload.py --experiment 1|2 [--shuffle] > examples/ras-exp1.json

TaskTracker capacity (the paper's 2-way Xeons with 2 GB and one disk): cpu 2 cores, mem 2 GB x MEM_SCALE, disk
100 MB/s (so Table 2's I/O percentages are MB/s), net 125 MB/s (Gigabit Ethernet). docs/reproductions/ras.md says
why memory is scaled.

Task lengths: the paper gives each job's length alone on the cluster (Table 1), not its tasks'. Each job's map and
reduce task lengths are set so that, with the concurrency its profile allows per TaskTracker (the most maps
whose profiles fit), its maps take MAP_SHARE of that length and one wave of reducers the rest.

Experiment 1 gives every job a relaxed goal (100,000 s); experiment 2 the goals of Table 1, which are absolute
times: deadline = goal - submission. The reduce stage sits behind a shuffle edge with slow start 0.05 (Hadoop's
default) and runs two profiled phases (Table 2): "shuffle", which holds Table 2's shuffle I/O per map copy times
PARALLEL_COPIES and nothing else from its launch until the last map ends (its own duration, SHUFFLE_TAIL of the
reduce length, is the copy of the last maps' output), then "reduce", with the reduce profile. --barrier gives the
old workload: a barrier edge and one reduce profile for the whole reducer.
"""
import argparse
import json
import math

MEM_SCALE = 2.0  # see docs/reproductions/ras.md
MAP_SHARE = 0.7
PARALLEL_COPIES = 5  # Hadoop's mapred.reduce.parallel.copies default; RAS's parallel_copies
SHUFFLE_TAIL = 0.05
BLOCK_GB = 0.128
CAPACITY = {"cpu": 2.0, "mem": 2.0 * MEM_SCALE, "disk": 100.0, "net": 125.0}

# Table 2: percent of a TaskTracker per task, map / reduce (shuffle I/O per map placed aside).
PROFILES = {
    "sort": {"map": {"cpu": 30, "disk": 45, "mem": 25}, "reduce": {"cpu": 20, "disk": 50, "mem": 60}, "shuffle": 0.15},
    "combine": {"map": {"cpu": 25, "disk": 10, "mem": 10}, "reduce": {"cpu": 10, "disk": 10, "mem": 25},
                "shuffle": 0.015},
    "select": {"map": {"cpu": 15, "disk": 20, "mem": 10}, "reduce": {"cpu": 10, "disk": 10, "mem": 25},
               "shuffle": 0.015},
}
REDUCERS = {"sort": 20, "combine": 1, "select": 1}  # section 4.2: Combine and Select run one reducer

# Table 1: label, application, input GB, submission s, length in isolation s, goal s (experiment 2).
JOBS = [
    ("J1", "sort", 90, 0, 2500, 3000),
    ("J2", "combine", 5, 100, 500, 850),
    ("J3", "select", 10, 200, 400, 1250),
    ("J4", "select", 25, 350, 280, 1100),
    ("J5", "select", 5, 500, 50, 950),
    ("J6", "combine", 13, 600, 750, 2600),
    ("J7", "combine", 50, 1100, 2500, 6000),
    ("J8", "sort", 19, 2500, 350, 3400),
    ("J9", "sort", 6, 3750, 250, 4250),
]
MACHINES = 20


def demand(percent):
    """Table 2 percentages as amounts of one TaskTracker (memory of the paper's 2 GB, not the scaled one)."""
    return {
        "cpu": round(CAPACITY["cpu"] * percent.get("cpu", 0) / 100, 6),
        "mem": round(2.0 * percent.get("mem", 0) / 100, 6),
        "disk": round(CAPACITY["disk"] * percent.get("disk", 0) / 100, 6),
    }


def per_tracker(d):
    """How many tasks of demand d fit on one TaskTracker."""
    return min(math.floor(CAPACITY[r] / v + 1e-9) for r, v in d.items() if v > 0)


def job(label, app, input_gb, submit, alone, goal, experiment, barrier):
    prof = PROFILES[app]
    maps = max(1, round(input_gb / BLOCK_GB))
    map_demand = demand(prof["map"])
    waves = math.ceil(maps / (per_tracker(map_demand) * MACHINES))
    map_s = round(MAP_SHARE * alone / waves, 3)
    reduce_s = round((1 - MAP_SHARE) * alone, 3)
    reduce = {"name": "reduce", "kind": "reduce", "tasks": REDUCERS[app]}
    if barrier:
        reduce.update({"duration": reduce_s, "demand": demand(prof["reduce"]), "after": ["map"]})
    else:
        copy_io = round(CAPACITY["disk"] * prof["shuffle"] / 100 * PARALLEL_COPIES, 6)
        reduce.update({
            "after": [{"stage": "map", "kind": "shuffle", "slowstart": 0.05}],
            "phases": [{"name": "shuffle", "duration": round(SHUFFLE_TAIL * reduce_s, 3), "demand": {"disk": copy_io}},
                       {"name": "reduce", "duration": round((1 - SHUFFLE_TAIL) * reduce_s, 3),
                        "demand": demand(prof["reduce"])}]})
    return {
        "name": f"{label}-{app}-{input_gb}g",
        "arrival": submit,
        "deadline": (goal - submit) if experiment == 2 else 100000,
        "stages": [
            {"name": "map", "kind": "map", "tasks": maps, "duration": map_s, "demand": map_demand},
            reduce,
        ],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiment", type=int, choices=(1, 2), default=1)
    ap.add_argument("--barrier", action="store_true", help="a barrier edge and one reduce profile (the old workload)")
    args = ap.parse_args()
    w = {
        "weft": 1,
        "cluster": {"machines": [{"name": "tt", "count": MACHINES, "capacity": CAPACITY}]},
        "jobs": [job(*j, args.experiment, args.barrier) for j in JOBS],
    }
    print(json.dumps(w, indent=1))


if __name__ == "__main__":
    main()
