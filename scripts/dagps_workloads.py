#!/usr/bin/env python3
"""Workload variants and run helpers shared by the DAGPS reproduction scripts
(scripts/dagps_fairness.py, scripts/dagps_relative_pri.py; docs/reproductions/dagps.md).

Python 3 standard library only. Every variant is deterministic (fixed seeds).

  two_queues(data, seed)        jobs split evenly at random between users q1 and q2
                                (weight 1, priority 0, no deadlines), as in the paper's
                                section 8.2.3 fairness experiment
  one_queue(data)               every job in one user (the 1-queue baseline)
  scale_arrivals(data, factor)  arrival times multiplied by factor (< 1: more load)
  random_dag_mix(...)           a generated mix of random layered DAGs (per-task
                                durations, varied cpu/mem/disk/net demands), Poisson arrivals
  run(weft, workload, policy, params, outdir)  `weft sim`, returns summary.json as a dict
"""
import copy
import json
import math
import os
import random
import subprocess


def load(path):
    with open(path) as f:
        return json.load(f)


def save(data, path):
    with open(path, "w") as f:
        json.dump(data, f)


def two_queues(data, seed=1):
    out = copy.deepcopy(data)
    rng = random.Random(seed)
    jobs = out["jobs"]
    users = ["q1"] * (len(jobs) // 2) + ["q2"] * (len(jobs) - len(jobs) // 2)
    rng.shuffle(users)
    for job, user in zip(jobs, users):
        job["user"] = user
        job["weight"] = 1.0
        job["priority"] = 0
        job.pop("deadline", None)
    return out


def one_queue(data):
    out = copy.deepcopy(data)
    for job in out["jobs"]:
        job["user"] = "q"
        job["weight"] = 1.0
        job["priority"] = 0
        job.pop("deadline", None)
    return out


def scale_arrivals(data, factor):
    out = copy.deepcopy(data)
    for job in out["jobs"]:
        job["arrival"] = round(job["arrival"] * factor, 6)
    return out


def random_dag_mix(jobs=60, machines=40, seed=1, mean_gap=4.0):
    """Random layered DAGs: 2-10 stages, 1-3 parents each among the previous 4,
    1-120 tasks a stage, lognormal per-task durations around a stage mean of 1-40 s,
    demands drawn per stage over cpu, mem, disk and net (so that packing matters)."""
    rng = random.Random(seed)
    cap = {"cpu": 16, "mem": 64, "disk": 200, "net": 1250}
    out = {"weft": 1,
           "cluster": {"machines": [{"name": "m", "count": machines, "rack_size": 10, "capacity": cap}]},
           "jobs": []}
    t = 0.0
    for j in range(jobs):
        t += rng.expovariate(1.0 / mean_gap)
        stages = []
        for s in range(rng.randint(2, 10)):
            tasks = max(1, int(rng.paretovariate(1.2) * 4)) if rng.random() < 0.8 else 1
            tasks = min(tasks, 120)
            mean = 1 + 39 * rng.random() * rng.random()
            st = {"name": f"s{s}", "tasks": tasks, "duration": round(mean, 3),
                  "demand": {"cpu": rng.choice([0.5, 1, 1, 2, 4, 8]),
                             "mem": round(rng.choice([1, 2, 4, 8, 16, 32]) * (0.5 + rng.random()), 2),
                             "disk": rng.choice([0, 0, 10, 25, 50, 100]),
                             "net": rng.choice([0, 0, 25, 100, 300])}}
            if tasks > 1:
                st["durations"] = [round(max(0.05, mean * math.exp(rng.gauss(0, 0.5) - 0.125)), 3)
                                   for _ in range(tasks)]
            if s > 0:
                parents = sorted({rng.randint(max(0, s - 4), s - 1) for _ in range(rng.randint(1, 3))})
                st["after"] = [f"s{p}" for p in parents]
            stages.append(st)
        out["jobs"].append({"name": f"mix-{j:03d}", "arrival": round(t, 3),
                            "user": "q1" if rng.random() < 0.5 else "q2", "stages": stages})
    return out


def run(weft, workload_path, policy, params, outdir, model="fixed"):
    cmd = [weft, "sim", "-w", workload_path, "-p", policy, "--model", model, "--out", outdir]
    for kv in params:
        cmd += ["--param", kv]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: {done.stderr.strip()}")
    return load(os.path.join(outdir, "summary.json"))
