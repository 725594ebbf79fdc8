#!/usr/bin/env python3
"""Generate weft's bundled example workloads from real TPC-H-on-Spark stage DAGs.

Source data: the ERDOS/DAGSched CloudLab TPC-H profiles (MIT, Copyright (c) 2024 DAGSched,
github.com/erdos-project/erdos-scheduling-simulator at 62c1480fe2494e6c69b0c22d505b5c5ff5b45125),
flattened to tpch_cloudlab_stages.csv. Only the spark.cores.max=50 runs are used (the least
contended, so their mean task times are closest to a task's time on an idle machine); that
slice is committed as examples/data/tpch_cloudlab_excerpt.csv, so a fresh clone regenerates
every example without the shared data folder. See examples/README.md for the rules.

Usage:
  python3 scripts/gen_examples.py                  # rewrite examples/*.json (and the excerpt)
  python3 scripts/gen_examples.py --check          # exit 1 if a committed file would change
  python3 scripts/gen_examples.py --large out.json # ~1M tasks on 1200 machines (not committed)

Python 3 standard library only. Output is deterministic: fixed seeds, sorted iteration,
rounded numbers, fixed JSON layout.
"""

import argparse
import csv
import io
import json
import math
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
EXCERPT = EXAMPLES / "data" / "tpch_cloudlab_excerpt.csv"
SHARED = REPO.parent / "shared" / "data"
TPCH_DIR = "tpch-spark-cloudlab-erdos"
TPCH_CSV = "tpch_cloudlab_stages.csv"
COLUMNS = ["query", "input_size", "spark_max_cores", "stage_id", "num_tasks",
           "avg_task_runtime_ms", "children", "stage_name"]
CORES = "50"  # the spark.cores.max slice used everywhere
SIZES = ("50g", "100g", "250g", "500g")
QUERIES = tuple(f"Q{i}" for i in range(1, 23))

# Per-task reservation ("demand") and average use ("usage", None = as demanded) by stage kind.
# mem in GB, disk/net in MB/s. Kinds come from the DAG and Spark's stage name, see stage_kind().
DEMAND = {
    "scan": ({"cpu": 1, "mem": 2, "disk": 12}, {"cpu": 0.8, "mem": 1.5, "disk": 9}),
    "shuffle": ({"cpu": 1, "mem": 4, "net": 25}, {"mem": 3, "net": 15}),
    "broadcast": ({"cpu": 1, "mem": 3, "net": 25}, None),
    "single": ({"cpu": 1, "mem": 3}, None),
}
SIGMA = {"scan": 0.5, "shuffle": 0.35, "broadcast": 0.35, "single": 0.35}  # lognormal spread

STD = {"cpu": 16, "mem": 64, "disk": 200, "net": 1250}
BIG = {"cpu": 32, "mem": 96, "disk": 400, "net": 2500}

# Users of the mixed workloads: weight (given to each of their jobs), share of jobs, input-size
# mix, priority, and the queries they draw from (None = all 22).
USERS = [
    ("etl", 1.0, 0.30, {"50g": 0.1, "100g": 0.3, "250g": 0.4, "500g": 0.2}, 0, None),
    ("analytics", 1.0, 0.30, {"50g": 0.4, "100g": 0.35, "250g": 0.2, "500g": 0.05}, 0, None),
    ("adhoc", 0.5, 0.25, {"50g": 0.7, "100g": 0.3}, 0, None),
    ("dash", 2.0, 0.15, {"50g": 0.8, "100g": 0.2}, 1, ("Q1", "Q6", "Q12", "Q14", "Q19")),
]


# ---------------------------------------------------------------------------------------------
# Data

def find_csv(data_dir):
    """Returns (path, is_full_csv) for the stage CSV to read."""
    if data_dir is not None:
        d = Path(data_dir)
        for p in (d, d / TPCH_CSV, d / TPCH_DIR / TPCH_CSV, d / EXCERPT.name):
            if p.is_file():
                return p, p.name == TPCH_CSV
        sys.exit(f"error: --data {d}: no {TPCH_CSV} (or {EXCERPT.name}) there or in {d / TPCH_DIR}")
    full = SHARED / TPCH_DIR / TPCH_CSV
    if full.is_file():
        return full, True
    if EXCERPT.is_file():
        print(f"note: {full} not found, using the committed excerpt {EXCERPT}", file=sys.stderr)
        return EXCERPT, False
    sys.exit(f"error: neither {full} nor {EXCERPT} exists")


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            sys.exit(f"error: {path}: header is {reader.fieldnames}, expected {COLUMNS}")
        return [r for r in reader if r["spark_max_cores"] == CORES]


def excerpt_text(rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([r[c] for c in COLUMNS])
    return out.getvalue()


def load_dags(rows, path):
    """(query, size) -> list of stages sorted by Spark stage id, each a dict with
    id, tasks, seconds, children, parents, kind."""
    dags = {}
    for r in rows:
        st = {"id": int(r["stage_id"]), "tasks": int(r["num_tasks"]),
              "seconds": max(0.001, round(float(r["avg_task_runtime_ms"]) / 1000.0, 3)),
              "children": sorted(int(c) for c in r["children"].split()),
              "broadcast": "FutureTask" in r["stage_name"]}
        dags.setdefault((r["query"], r["input_size"]), []).append(st)
    for q in QUERIES:
        for s in SIZES:
            if (q, s) not in dags:
                sys.exit(f"error: {path}: no rows for {q} {s} at spark_max_cores={CORES}")
    for key, stages in dags.items():
        stages.sort(key=lambda st: st["id"])
        ids = {st["id"] for st in stages}
        for st in stages:
            st["parents"] = sorted(p["id"] for p in stages if st["id"] in p["children"])
            if not set(st["children"]) <= ids:
                sys.exit(f"error: {path}: {key} stage {st['id']} has an unknown child")
            st["kind"] = stage_kind(st)
    return dags


def stage_kind(st):
    if not st["parents"]:
        return "scan"  # reads input tables
    if st["broadcast"]:
        return "broadcast"  # Spark runs broadcast-exchange jobs from a FutureTask
    if st["tasks"] == 1:
        return "single"  # global aggregate / sort / collect
    return "shuffle"  # joins and aggregations over shuffled data


# ---------------------------------------------------------------------------------------------
# Building blocks

def cluster(groups):
    """groups: [(name, count, rack_size, capacity)] -> (cluster JSON, list of racks of names)."""
    machines, racks = [], []
    for name, count, rack_size, cap in groups:
        machines.append({"name": name, "count": count, "rack_size": rack_size, "capacity": cap})
        names = [f"{name}{i}" if count > 1 else name for i in range(count)]
        racks += [names[i:i + rack_size] for i in range(0, count, rack_size)]
    return {"machines": machines}, racks


def lognormal_durations(rng, n, mean, sigma):
    """n per-task times whose sample mean is `mean` (before rounding to milliseconds)."""
    xs = [rng.lognormvariate(0.0, sigma) for _ in range(n)]
    k = mean * n / sum(xs)
    return [max(0.001, round(x * k, 3)) for x in xs]


def hdfs_replicas(rng, racks):
    """Three preferred machines placed like HDFS: one anywhere, two on one other rack."""
    r1 = rng.randrange(len(racks))
    first = rng.choice(racks[r1])
    r2 = rng.randrange(len(racks) - 1)
    r2 += r2 >= r1
    return [first] + rng.sample(racks[r2], 2)


def build_stages(rng, dag, scale=1, durations=False, locality=None, pipelined=0.0):
    """Weft stages for one TPC-H DAG. scale divides task counts (rounded up, so 1 stays 1)."""
    tasks = {st["id"]: -(-st["tasks"] // scale) for st in dag}
    out = []
    for st in dag:
        kind, n = st["kind"], tasks[st["id"]]
        demand, usage = DEMAND[kind]
        s = {"name": f"s{st['id']}", "tasks": n, "duration": st["seconds"], "demand": demand}
        if usage:
            s["usage"] = usage
        if durations and n >= 2:
            s["durations"] = lognormal_durations(rng, n, st["seconds"], SIGMA[kind])
        if locality and kind == "scan":
            s["locality"] = [hdfs_replicas(rng, locality) for _ in range(n)]
        after = []
        for p in st["parents"]:
            if tasks[p] == n and n > 1 and rng.random() < pipelined:
                after.append({"stage": f"s{p}", "kind": "pipelined"})
            else:
                after.append(f"s{p}")
        if after:
            s["after"] = after
        out.append(s)
    return out


def task_times(s):
    return s.get("durations") or [s["duration"]] * s["tasks"]


def critical_path(stages):
    """Longest chain of slowest tasks through the stage DAG, in seconds."""
    by_name = {s["name"]: s for s in stages}
    memo = {}

    def finish(name):
        if name not in memo:
            s = by_name[name]
            parents = [a if isinstance(a, str) else a["stage"] for a in s.get("after", [])]
            memo[name] = max(task_times(s)) + max((finish(p) for p in parents), default=0.0)
        return memo[name]

    return max(finish(n) for n in sorted(by_name))


def work(stages):
    return sum(sum(task_times(s)) * s["demand"]["cpu"] for s in stages)


def weighted(rng, probs):
    keys = sorted(probs, key=SIZES.index)
    return rng.choices(keys, weights=[probs[k] for k in keys])[0]


# ---------------------------------------------------------------------------------------------
# Workloads

def tpch_small(dags):
    rng = random.Random(11)
    clus, _ = cluster([("m", 10, 5, STD)])
    picks = ["Q1", "Q3", "Q5", "Q9", "Q18"]
    arrivals = [0.0] + sorted(round(rng.uniform(5, 60), 3) for _ in picks[1:])
    jobs = []
    for i, (q, t) in enumerate(zip(picks, arrivals)):
        jobs.append({"name": f"{q.lower()}-50g", "arrival": t, "user": ("alice", "bob")[i % 2],
                     "stages": build_stages(rng, dags[(q, "50g")], scale=4)})
    return {"weft": 1, "cluster": clus, "jobs": jobs}


def mixed(dags, seed, groups, target_jobs=None, target_tasks=None, mean_gap=1.5, prefix=""):
    """A Poisson stream of TPC-H jobs from USERS until target_jobs jobs or target_tasks tasks."""
    rng = random.Random(seed)
    clus, racks = cluster(groups)
    cores = sum(g[1] * g[3]["cpu"] for g in groups)
    jobs, t, total = [], 0.0, 0
    while (target_jobs and len(jobs) < target_jobs) or (target_tasks and total < target_tasks):
        user, weight, _, sizes, priority, queries = rng.choices(USERS, weights=[u[2] for u in USERS])[0]
        q = rng.choice(queries or QUERIES)
        size = weighted(rng, sizes)
        if user == "analytics" and rng.random() < 0.1:
            priority = 2  # an urgent one-off
        stages = build_stages(rng, dags[(q, size)], durations=rng.random() < 0.5,
                              locality=racks if rng.random() < 0.5 else None, pipelined=0.5)
        job = {"name": f"{prefix}{q.lower()}-{size}-{len(jobs):04d}", "arrival": round(t, 3),
               "user": user, "priority": priority, "weight": weight}
        if user == "dash" and rng.random() < 0.6:
            # Twice the time it needs alone on a tenth of the cluster's cores.
            job["deadline"] = round(2 * (critical_path(stages) + work(stages) / (0.1 * cores)), 1)
        job["stages"] = stages
        jobs.append(job)
        total += sum(s["tasks"] for s in stages)
        t += rng.expovariate(1.0 / mean_gap)
    return {"weft": 1, "cluster": clus, "jobs": jobs}


def default(dags):
    return mixed(dags, 2024, [("std", 100, 50, STD), ("big", 100, 50, BIG)], target_jobs=150,
                 mean_gap=1.25)


def large(dags):
    return mixed(dags, 7, [("std", 600, 40, STD), ("big", 600, 40, BIG)], target_tasks=1_000_000,
                 mean_gap=0.29)


def phases(dags):
    """Q6, Q3 and Q12 at 50g, tasks / 20, split into net/cpu/disk monotasks."""
    rng = random.Random(5)
    clus, _ = cluster([("node", 4, 2, {"cpu": 8, "mem": 32, "disk": 200, "net": 1250})])
    jobs = []
    for i, q in enumerate(["Q6", "Q3", "Q12"]):
        dag = dags[(q, "50g")]
        stages = build_stages(rng, dag, scale=20)
        for st, s in zip(dag, stages):
            kind = st["kind"]
            cpu = round(0.8 * s["duration"], 3)
            if kind == "scan":  # read one 128 MB input block, then compute
                s["phases"] = [{"resource": "disk", "work": 128}, {"resource": "cpu", "work": cpu}]
                s["command"] = "sh -c 'echo scan {job} {stage} {task}'"
            elif kind in ("shuffle", "broadcast"):  # fetch shuffle blocks, compute, write output
                s["phases"] = [{"resource": "net", "work": 64}, {"resource": "cpu", "work": cpu},
                               {"resource": "disk", "work": 16}]
            else:  # single-task result stage: fixed duration and a real command
                s["command"] = "sh -c 'sleep 0.2; echo done {job} {stage} {task}'"
                continue
            del s["duration"]  # a task's time now comes from its phases
        jobs.append({"name": f"{q.lower()}-50g-phases", "arrival": round(i * 10.0, 3),
                     "user": "demo", "stages": stages})
    return {"weft": 1, "cluster": clus, "jobs": jobs}


# ---------------------------------------------------------------------------------------------
# Output

def dumps(workload, compact):
    sep = (",", ":") if compact else (", ", ": ")
    d = lambda x: json.dumps(x, separators=sep)
    lines = ["{", '  "weft": %d,' % workload["weft"], '  "cluster": {"machines": [']
    lines.append(",\n".join("    " + d(m) for m in workload["cluster"]["machines"]))
    lines += ["  ]},", '  "jobs": [']
    jobs = []
    for job in workload["jobs"]:
        head = {k: v for k, v in job.items() if k != "stages"}
        stages = ",\n".join("      " + d(s) for s in job["stages"])
        jobs.append("    " + d(head)[:-1] + sep[0] + '"stages": [\n' + stages + "\n    ]}")
    lines += [",\n".join(jobs), "  ]", "}"]
    return "\n".join(lines) + "\n"


def summary(name, w):
    tasks = sum(s["tasks"] for j in w["jobs"] for s in j["stages"])
    machines = sum(m["count"] for m in w["cluster"]["machines"])
    span = max(j["arrival"] for j in w["jobs"])
    line = f"{name}: {len(w['jobs'])} jobs, {tasks} tasks, {machines} machines, arrivals over {span:.0f} s"
    if all("duration" in s for j in w["jobs"] for s in j["stages"]):
        cpu = sum(work(j["stages"]) for j in w["jobs"])
        cores = sum(m["count"] * m["capacity"]["cpu"] for m in w["cluster"]["machines"])
        line += f", {cpu:.0f} cpu-s, offered cpu load {cpu / (cores * span):.2f} over that span"
    return line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", metavar="DIR", help="shared data folder, its tpch subfolder, or the "
                    f"CSV itself (default: {SHARED} if present, else the committed excerpt)")
    ap.add_argument("--out-dir", metavar="DIR", default=str(EXAMPLES), help="where to write")
    ap.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    ap.add_argument("--large", metavar="FILE", help="write only the ~1M-task workload to FILE")
    args = ap.parse_args()

    path, full = find_csv(args.data)
    rows = read_rows(path)
    dags = load_dags(rows, path)
    if args.large:
        w = large(dags)
        Path(args.large).write_text(dumps(w, compact=True), encoding="utf-8")
        print(summary(args.large, w), file=sys.stderr)
        return 0

    out = Path(args.out_dir)
    files = {}
    if full:
        files[out / "data" / EXCERPT.name] = excerpt_text(rows)
    for name, make, compact in (("tpch-small.json", tpch_small, False), ("default.json", default, True),
                                ("phases.json", phases, False)):
        w = make(dags)
        files[out / name] = dumps(w, compact)
        print(summary(name, w), file=sys.stderr)
    stale = []
    for p, text in files.items():
        if args.check:
            if not p.is_file() or p.read_text(encoding="utf-8") != text:
                stale.append(str(p))
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
