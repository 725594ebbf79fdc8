#!/usr/bin/python3
"""How RAS's Experiment 2 in weft depends on the two task-length guesses (docs/reproductions/ras.md).

  /usr/bin/python3 scripts/ras_sensitivity.py --weft build/src/weft --out docs/reproductions [--work /tmp/ras-sens]

The paper gives each job's length alone on the cluster (Table 1), not its tasks' lengths, so
scripts/ras_experiments.py guesses two things: the share of that length the maps take (MAP_SHARE), and how
many maps per TaskTracker ran when it was measured (the most the job's profile fits; Hadoop 0.23's default
is 2 map slots). This script rebuilds both experiments' workloads for each pair in a small grid and, for
each, runs Experiment 1 (fair-slots with 1..8 map slots and ras: which static configuration is best, and the
makespans) and Experiment 2 (ras and that best fair-slots: how many of Table 1's goals each meets). It writes
ras_sensitivity.csv. Nothing here is chosen from the outcome: the grid is fixed in advance, and every row
is reported.
"""
import argparse
import csv
import os

import ras_experiments as ras

MAP_SHARES = (0.3, 0.4, 0.5, 0.6, 0.7)
ALONE_SLOTS = (None, 2)  # None: as many maps as the profile fits per TaskTracker


# Table 1's completion times under RAS in Experiment 1 (seconds from the start of the experiment).
PAPER_EXP1_END = {"J1": 3113, "J2": 648, "J3": 1252, "J4": 608, "J5": 623, "J6": 3406, "J7": 4536, "J8": 3670,
                  "J9": 4100}


def exp1_error(jobs):
    """Mean relative distance of each job's end under ras to Table 1's Experiment 1 end."""
    errors = [abs(float(j["end"]) - PAPER_EXP1_END[j["job"].split("-")[0]]) / PAPER_EXP1_END[j["job"].split("-")[0]]
              for j in jobs]
    return sum(errors) / len(errors)


def goals_met(jobs, goals):
    return sum(float(j["end"]) <= goals[j["job"]] and j["outcome"] == "ok" for j in jobs)


def one(weft, work, map_share, alone_slots):
    """Experiment 1 and 2 for one calibration; a row of ras_sensitivity.csv."""
    tag = f"share{map_share}-slots{alone_slots or 'profile'}"
    base = os.path.join(work, tag)
    os.makedirs(base, exist_ok=True)
    exp1, exp2 = (ras.generate(weft, ras.spec(e, map_share, alone_slots), os.path.join(base, f"exp{e}.spec.json"),
                               os.path.join(base, f"exp{e}.json")) for e in (1, 2))
    static = []
    for k in range(1, 9):
        _, jobs, _ = ras.run(weft, exp1, "fair-slots", [f"map_slots={k}"], os.path.join(base, f"exp1-fs{k}"))
        static.append((sum(j["outcome"] != "ok" for j in jobs), ras.makespan(jobs), k))
    _, jobs, _ = ras.run(weft, exp1, "ras", [], os.path.join(base, "exp1-ras"))
    ras_makespan = ras.makespan(jobs)
    error = exp1_error(jobs)
    failed, best_makespan, best = min(static)
    goals = {}
    for j in ras.spec(2, map_share, alone_slots)["jobs"]:
        goals[j["name"]] = j["arrival"] + j["deadline"]
    _, ras_jobs, _ = ras.run(weft, exp2, "ras", [], os.path.join(base, "exp2-ras"))
    _, fs_jobs, _ = ras.run(weft, exp2, "fair-slots", [f"map_slots={best}"], os.path.join(base, "exp2-fs"))
    return {"map_share": map_share, "alone_slots": alone_slots or "profile",
            "exp1_best_static": f"fair-slots-{best}", "exp1_best_static_failed_jobs": failed,
            "exp1_best_static_makespan_s": f"{best_makespan:.0f}", "exp1_ras_makespan_s": f"{ras_makespan:.0f}",
            "exp1_ras_end_error": f"{error:.3f}",
            "exp2_ras_goals_met": goals_met(ras_jobs, goals), "exp2_static_goals_met": goals_met(fs_jobs, goals),
            "exp2_ras_makespan_s": f"{ras.makespan(ras_jobs):.0f}",
            "exp2_static_makespan_s": f"{ras.makespan(fs_jobs):.0f}"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="/tmp/ras-sens")
    a = ap.parse_args()
    rows = [one(a.weft, a.work, share, slots) for slots in ALONE_SLOTS for share in MAP_SHARES]
    with open(os.path.join(a.out, "ras_sensitivity.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
