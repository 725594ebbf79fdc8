#!/usr/bin/env python3
"""Pictures and tables of Ursa's section 5.3 reproduction (docs/reproductions/ursa.md) from the result
directories scripts/ursa_repro.sh leaves in RUNS.

Writes to OUT: ursa_setting1_jct.svg (Fig. 9a: each job's JCT against the ideal), ursa_setting1_util.svg
(Fig. 9b: cpu and network utilization over time; ursa_setting1_util_ys.svg the same under Y+S,
ursa_setting2_util.svg setting 2 under ursa), ursa_setting2_jct.svg (Fig. 10: JCTs under EJF and
SRJF), and ursa_setting1.csv / ursa_setting2.csv (each job's JCT per run, and the ideal).
Run with /usr/bin/python3 (Debian's matplotlib).

Ideals. The paper's (section 5.3): jobs pair up, j_(2k+1) ends at 40(k+1) s and j_(2k+2) at 40(k+1) + 8 s.
Ours for the 57%-cpu split (4.56 s cpu, 3.44 s network a stage): the cpu is the bottleneck, busy from the
first network monotask's end (3.44 s) on; a pair's ten cpu stages take 45.6 s, so j_(2k+1) ends at
44.48 + 45.6k s and j_(2k+2) at 49.04 + 45.6k s.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_style  # noqa: E402


def jobs(run_dir):
    with open(os.path.join(run_dir, "jobs.csv")) as f:
        rows = list(csv.DictReader(f))
    rows.sort(key=lambda r: r["job"])
    return [(r["job"], float(r["jct"])) for r in rows]


def timeline(run_dir):
    with open(os.path.join(run_dir, "timeline.csv")) as f:
        rows = list(csv.DictReader(f))
    return ([float(r["time"]) for r in rows], [float(r["cpu_used"]) for r in rows],
            [float(r["net_used"]) for r in rows])


def utilization(plt, run_dir, title, path):
    """cpu and network utilization (measured use over capacity) over the first 200 s of a run."""
    t, cpu, net = timeline(run_dir)
    fig, ax = plt.subplots(figsize=(7, 3))
    keep = [i for i, x in enumerate(t) if x <= 200]
    ax.plot([t[i] for i in keep], [100 * cpu[i] for i in keep], label="cpu")
    ax.plot([t[i] for i in keep], [100 * net[i] for i in keep], label="network")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("utilization (%)")
    ax.set_ylim(0, 105)
    ax.set_title(title)
    ax.legend(fontsize=8)
    plot_style.save(fig, path)


def paper_ideal(i):  # i from 0
    return 40 * (i // 2 + 1) + (8 if i % 2 else 0)


def split_ideal(i):
    return (44.48 if i % 2 == 0 else 49.04) + 45.6 * (i // 2)


def write_csv(path, header, columns):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for row in zip(*columns):
            w.writerow([f"{v:.3f}" if isinstance(v, float) else v for v in row])


def main():
    runs, out = sys.argv[1], sys.argv[2]
    plt = plot_style.pyplot()

    s1 = {name: jobs(os.path.join(runs, d)) for name, d in
          [("ursa", "s1-ursa"), ("ursa (4 s / 4 s split, ept_factor=2)", "s1even-ursa"),
           ("ursa-yarn (Y+U)", "s1-ursa-yarn"), ("spark-dynamic (Y+S)", "s1-spark-dynamic"), ("fifo", "s1-fifo")]}
    n = len(s1["ursa"])
    idx = list(range(1, n + 1))
    write_csv(os.path.join(out, "ursa_setting1.csv"),
              ["job", "ideal_paper", "ideal_57pct_split"] + [k.split(" ")[0] + ("_even" if "split" in k else "")
                                                              for k in s1],
              [[j for j, _ in s1["ursa"]], [float(paper_ideal(i)) for i in range(n)],
               [split_ideal(i) for i in range(n)]] + [[v for _, v in s1[k]] for k in s1])
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(idx, [paper_ideal(i) for i in range(n)], "k--", label="ideal (paper)")
    ax.plot(idx, [split_ideal(i) for i in range(n)], "k:", label="ideal (57% cpu split)")
    for k, style in zip(list(s1)[:4], ["o-", "s-", "^-", "v-"]):
        ax.plot(idx, [v for _, v in s1[k]], style, markersize=3, label=k)
    ax.set_xlabel("job (submission order)")
    ax.set_ylabel("JCT (s)")
    ax.set_title("Setting 1: 40 Type 1 jobs, EJF")
    ax.legend(fontsize=8)
    plot_style.save(fig, os.path.join(out, "ursa_setting1_jct.svg"))

    utilization(plt, os.path.join(runs, "s1-ursa"), "Setting 1 under ursa (first 200 s; 1 s bins)",
                os.path.join(out, "ursa_setting1_util.svg"))
    utilization(plt, os.path.join(runs, "s1-spark-dynamic"),
                "Setting 1 under spark-dynamic (Y+S) (first 200 s; 1 s bins)",
                os.path.join(out, "ursa_setting1_util_ys.svg"))
    utilization(plt, os.path.join(runs, "s2-ursa-ejf"), "Setting 2 under ursa, EJF (first 200 s; 1 s bins)",
                os.path.join(out, "ursa_setting2_util.svg"))

    s2 = {name: jobs(os.path.join(runs, d)) for name, d in
          [("ursa EJF", "s2-ursa-ejf"), ("ursa SRJF", "s2-ursa-srjf"), ("spark-dynamic (Y+S)", "s2-spark-dynamic")]}
    write_csv(os.path.join(out, "ursa_setting2.csv"), ["job", "ursa_ejf", "ursa_srjf", "spark_dynamic"],
              [[j for j, _ in s2["ursa EJF"]]] + [[v for _, v in s2[k]] for k in s2])
    fig, ax = plt.subplots(figsize=(7, 4))
    for k, style in zip(s2, ["o-", "s-", "^-"]):
        ax.plot(range(1, len(s2[k]) + 1), [v for _, v in s2[k]], style, markersize=3, label=k)
    ax.set_xlabel("job (submission order: odd Type 1, even Type 2)")
    ax.set_ylabel("JCT (s)")
    ax.set_title("Setting 2: 20 + 20 alternating")
    ax.legend(fontsize=8)
    plot_style.save(fig, os.path.join(out, "ursa_setting2_jct.svg"))


if __name__ == "__main__":
    main()
