#!/usr/bin/python3
"""Runs RAS's two experiments in weft and draws their figures (docs/reproductions/ras.md).

  /usr/bin/python3 scripts/ras_experiments.py --weft build/src/weft --out docs/reproductions [--work /tmp/ras-runs]

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
import os
import subprocess
from collections import defaultdict

import plot_style

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MACHINES = 20


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
    a = ap.parse_args()
    plt = plot_style.pyplot()
    exp1 = os.path.join(ROOT, "examples", "ras-exp1.json")
    exp2 = os.path.join(ROOT, "examples", "ras-exp2.json")

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
            exp2_rows.append({"config": name, "job": j["job"], "end_s": f"{end:.0f}", "goal_s": goals[j["job"]],
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
