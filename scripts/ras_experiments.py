#!/usr/bin/python3
"""Runs RAS's two experiments in weft and draws their figures (docs/reproductions/ras.md).

  /usr/bin/python3 scripts/ras_experiments.py --weft build/src/weft --out docs/reproductions [--work /tmp/ras-runs]

Workloads: the experiments' nine MapReduce jobs (Polo et al., Middleware 2011, section 4, Tables 1-2: Sort,
Combine, Select, three sizes each, submitted at the paper's times on 20 TaskTrackers) are written as a job spec
(WORK/ras-expN.spec.json: one class per application with Table 2's profiles, one instance per job) and turned
into examples/ras-exp1.json and examples/ras-exp2.json by `weft gen mapreduce --spec` (docs/workload-format.md,
"MapReduce job specs"). --workloads-only stops there.

TaskTracker capacity (the paper's 2-way Xeons with 2 GB and one disk): cpu 2 cores, mem 2 GB x MEM_SCALE, disk
100 MB/s (so Table 2's I/O percentages are MB/s), net 125 MB/s (Gigabit Ethernet). docs/reproductions/ras.md says
why memory is scaled. Per-task demands are Table 2's profiles as amounts of a TaskTracker (memory of the paper's
2 GB). Maps: one per 128 MB of input (rounded).

Task lengths: the paper gives each job's length alone on the cluster (Table 1), not its tasks'. Each job's map and
reduce task lengths are set so that, with the concurrency its profile allows per TaskTracker (the most maps
whose profiles fit; ALONE_MAP_SLOTS), its maps take MAP_SHARE of that length and one wave of reducers the rest
(scripts/ras_sensitivity.py: the results under other guesses).

Experiment 1 gives every job a relaxed goal (100,000 s); experiment 2 the goals of Table 1, which are absolute
times: deadline = goal - submission. The reduce stage sits behind a shuffle edge with slow start 0.05 (Hadoop's
default) and runs two profiled phases (Table 2): "shuffle", which holds Table 2's shuffle I/O per map copy times
PARALLEL_COPIES and nothing else from its launch until the last map ends (its own duration, SHUFFLE_TAIL of the
reduce length, is the copy of the last maps' output), then "reduce", with the reduce profile.

Experiment 1 (examples/ras-exp1.json, relaxed goals): fair-slots with map_slots = 1..8 and ras, contention
model; writes ras_fig3.csv (makespan per configuration, failed jobs, average tasks per TaskTracker),
ras_fig3.svg, ras_fig4.svg (map and reduce tasks over time per application, fair-slots 4 against ras) and
ras_fig5.svg (each job's utility over time under ras). Experiment 2 (examples/ras-exp2.json, Table 1's goals):
ras and fair-slots at the best static value of experiment 1; writes ras_exp2.csv (each job's completion time
against its goal) and ras_fig6b.svg (utility over time).
"""
import argparse
import csv
import json
import math
import os
import subprocess
from collections import defaultdict

import plot_style

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MACHINES = 20
MEM_SCALE = 2.0  # see docs/reproductions/ras.md
# The two task-length guesses (the paper gives neither); scripts/ras_sensitivity.py shows the results under
# others.
MAP_SHARE = 0.7         # share of a job's length alone taken by its maps
ALONE_MAP_SLOTS = None  # maps per TaskTracker when the lengths alone were measured; None: as many as fit
PARALLEL_COPIES = 5  # Hadoop's mapred.reduce.parallel.copies default; RAS's parallel_copies
SHUFFLE_TAIL = 0.05
SLOWSTART = 0.05  # Hadoop's mapreduce.job.reduce.slowstart.completedmaps default
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


def spec(experiment, map_share=MAP_SHARE, alone_slots=ALONE_MAP_SLOTS):
    """The job spec of an experiment (`weft gen mapreduce --spec`): a class per application, a job per row of Table 1.

    map_share: the share of a job's length alone taken by its maps; alone_slots: the map tasks per TaskTracker
    the job ran with alone (None: as many as its profile fits). Both are guesses (the paper gives neither):
    scripts/ras_sensitivity.py varies them."""
    classes = {}
    for app, prof in PROFILES.items():
        copy_io = round(CAPACITY["disk"] * prof["shuffle"] / 100 * PARALLEL_COPIES, 6)
        classes[app] = {"map": {"demand": demand(prof["map"])},
                        "reduce": {"tasks": REDUCERS[app], "slowstart": SLOWSTART,
                                   "phases": [{"name": "shuffle", "share": SHUFFLE_TAIL, "demand": {"disk": copy_io}},
                                              {"name": "reduce", "share": 1 - SHUFFLE_TAIL,
                                               "demand": demand(prof["reduce"])}]}}
    jobs = []
    for label, app, input_gb, submit, alone, goal in JOBS:
        maps = max(1, round(input_gb / BLOCK_GB))
        slots = alone_slots or per_tracker(demand(PROFILES[app]["map"]))
        waves = math.ceil(maps / (slots * MACHINES))
        jobs.append({"name": f"{label}-{app}-{input_gb}g", "class": app, "arrival": submit,
                     "deadline": (goal - submit) if experiment == 2 else 100000, "maps": maps,
                     "map_s": round(map_share * alone / waves, 3), "reduce_s": round((1 - map_share) * alone, 3)})
    return {"classes": classes, "jobs": jobs}


def write_workloads(weft, work):
    """examples/ras-exp{1,2}.json from their specs, by `weft gen mapreduce --spec`."""
    os.makedirs(work, exist_ok=True)
    return [generate(weft, spec(experiment), os.path.join(work, f"ras-exp{experiment}.spec.json"),
                     os.path.join(ROOT, "examples", f"ras-exp{experiment}.json")) for experiment in (1, 2)]


def generate(weft, job_spec, spec_path, out):
    """Writes `job_spec` to spec_path and the workload it makes to `out`; returns `out`."""
    with open(spec_path, "w") as f:
        json.dump(job_spec, f, indent=1)
    subprocess.run([weft, "gen", "mapreduce", "--spec", spec_path, "-o", out, "--machines", str(MACHINES),
                    "--rack-size", str(MACHINES), "--cores", f"{CAPACITY['cpu']:g}", "--mem-gb",
                    f"{CAPACITY['mem']:g}", "--disk-mbps", f"{CAPACITY['disk']:g}", "--net-mbps",
                    f"{CAPACITY['net']:g}"], check=True, stdout=subprocess.DEVNULL)
    return out


def run(weft, workload, policy, params, out):
    cmd = [weft, "sim", "-w", workload, "-p", policy, "--model", "contention", "--no-progress", "--out", out]
    for p in params:
        cmd += ["--param", p]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    summary = json.load(open(os.path.join(out, "summary.json")))
    jobs = list(csv.DictReader(open(os.path.join(out, "jobs.csv"))))
    tasks = list(csv.DictReader(open(os.path.join(out, "tasks.csv"))))
    return summary, jobs, tasks


def makespan(jobs):
    return max(float(j["end"]) for j in jobs) - min(float(j["arrival"]) for j in jobs)


def concurrency(tasks, end):
    """Average running attempts per TaskTracker over the run."""
    return sum(float(t["end"]) - float(t["start"]) for t in tasks) / end / MACHINES


def running_by_app(tasks, end, step=10.0):
    """Per application and stage, the number of running attempts every `step` seconds."""
    n = int(end // step) + 1
    out = defaultdict(lambda: [0] * n)
    for t in tasks:
        app = t["job"].split("-")[1]
        for k in range(int(float(t["start"]) // step), min(n, int(float(t["end"]) // step))):
            out[(app, t["stage"])][k] += 1
    return [i * step for i in range(n)], out


def utility(out):
    series = defaultdict(lambda: ([], []))
    path = os.path.join(out, "series.csv")
    for r in csv.DictReader(open(path)):
        if r["series"] == "utility":
            label = r["job"].split("-")[0]
            series[label][0].append(float(r["time"]))
            series[label][1].append(float(r["value"]))
    return series


def plot_utility(plt, series, path, title):
    fig, ax = plt.subplots(figsize=(7, 3.4))
    for label in sorted(series, key=lambda s: int(s[1:])):
        ax.step(*series[label], where="post", label=label, lw=1)
    ax.set_ylim(-3.2, 1.1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("utility")
    ax.set_title(title)
    ax.legend(ncol=9, fontsize=7, loc="lower center")
    plot_style.save(fig, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="/tmp/ras-runs")
    ap.add_argument("--workloads-only", action="store_true", help="write examples/ras-exp{1,2}.json and stop")
    a = ap.parse_args()
    exp1, exp2 = write_workloads(a.weft, a.work)
    if a.workloads_only:
        return
    plt = plot_style.pyplot()

    rows = []
    runs = {}
    for k in list(range(1, 9)) + ["ras"]:
        name = f"fair-slots-{k}" if k != "ras" else "ras"
        policy, params = ("fair-slots", [f"map_slots={k}"]) if k != "ras" else ("ras", [])
        summary, jobs, tasks = run(a.weft, exp1, policy, params, os.path.join(a.work, "exp1", name))
        end = makespan(jobs)
        runs[name] = (jobs, tasks, end)
        rows.append({"config": name, "makespan_s": f"{end:.0f}",
                     "failed_jobs": sum(j["outcome"] != "ok" for j in jobs),
                     "failed_attempts": sum(t["outcome"] == "failed" for t in tasks),
                     "tasks_per_tracker": f"{concurrency(tasks, end):.2f}"})
    with open(os.path.join(a.out, "ras_fig3.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    fig, ax = plt.subplots(figsize=(6, 3.4))
    static = [r for r in rows if r["config"] != "ras"]
    xs = list(range(1, 9))
    ax.plot(xs, [float(r["makespan_s"]) for r in static], "o-", label="fair-slots")
    for x, r in zip(xs, static):
        if r["failed_jobs"]:
            ax.annotate(f"{r['failed_jobs']} job failed", (x, float(r["makespan_s"])), fontsize=7,
                        textcoords="offset points", xytext=(0, 8), ha="center")
    ras = float(rows[-1]["makespan_s"])
    ax.axhline(ras, color="black", ls="--", label=f"ras ({ras:.0f} s)")
    ax.set_xlabel("map slots per TaskTracker")
    ax.set_ylabel("makespan (s)")
    ax.set_title("Experiment 1: makespan (RAS Fig. 3, in weft)")
    ax.legend()
    plot_style.save(fig, os.path.join(a.out, "ras_fig3.svg"))

    fig, axes = plt.subplots(3, 2, figsize=(9, 6), sharex=True)
    for col, name in enumerate(["fair-slots-4", "ras"]):
        jobs, tasks, end = runs[name]
        times, by = running_by_app(tasks, end)
        for row, app in enumerate(["sort", "combine", "select"]):
            ax = axes[row][col]
            ax.plot(times, by[(app, "map")], lw=1, label="map")
            ax.plot(times, by[(app, "reduce")], lw=1, ls=":", label="reduce")
            ax.set_ylabel(f"{app}\nrunning")
            if row == 0:
                ax.set_title(name)
            if row == 2:
                ax.set_xlabel("time (s)")
    axes[0][0].legend(fontsize=7)
    plot_style.save(fig, os.path.join(a.out, "ras_fig4.svg"))
    plot_utility(plt, utility(os.path.join(a.work, "exp1", "ras")), os.path.join(a.out, "ras_fig5.svg"),
                 "Experiment 1: job utility under ras (RAS Fig. 5, in weft)")

    best = min(static, key=lambda r: (int(r["failed_jobs"]), float(r["makespan_s"])))["config"]
    goals = {j["name"]: j["arrival"] + j["deadline"] for j in json.load(open(exp2))["jobs"]}
    exp2_rows = []
    for name, policy, params in [("ras", "ras", []), (best, "fair-slots", [f"map_slots={best.split('-')[-1]}"])]:
        out = os.path.join(a.work, "exp2", name)
        _, jobs, _ = run(a.weft, exp2, policy, params, out)
        for j in jobs:
            end = float(j["end"])
            exp2_rows.append({"config": name, "job": j["job"], "end_s": f"{end:.0f}", "goal_s": f"{goals[j['job']]:g}",
                              "met": int(end <= goals[j["job"]] and j["outcome"] == "ok")})
        if name == "ras":
            plot_utility(plt, utility(out), os.path.join(a.out, "ras_fig6b.svg"),
                         "Experiment 2: job utility under ras (RAS Fig. 6b, in weft)")
    with open(os.path.join(a.out, "ras_exp2.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(exp2_rows[0]))
        w.writeheader()
        w.writerows(sorted(exp2_rows, key=lambda r: (r["config"], int(r["job"].split("-")[0][1:]))))


if __name__ == "__main__":
    main()
