#!/usr/bin/env python3
"""Drain a queue of single-task jobs on a local weft cluster (issue 20).

For each N: `weft cluster up --nodes NODES --cpu 1` (fifo), submit one file of
N one-task jobs (built-in task of 1 us, cpu 1), and time submit -> every job
ended (the last job's `weft wait`, then `weft status --all` shows none
running). Prints, per N, the wall seconds, the scheduler's cpu seconds (user +
sys from /proc, the shared machine's noise hurts them less) and the
seconds per 1k jobs: linear draining keeps the last column flat.

With --bursts B: B successive bursts of N jobs on one cluster, and after
each (and a --settle pause, so that the retention's compaction has run) the
scheduler's RSS, the size of journal.db (and its WAL), of the results archive,
and the largest node RSS (retention: pass --scheduler-arg=--retain=K, passed
to `weft cluster up`). With --status-probes P, after the bursts: P times
`weft status JOB` of job 0 (compacted by then, so read from the results
archive), with its wall seconds and the scheduler's cpu seconds per status.

usage: bench/drain_jobs.py BUILD_DIR|BIN_DIR [--jobs 5000 10000 20000] [--bursts B]
       [--status-probes P] [--scheduler-arg=--retain=1000 ...]  (arguments for `weft cluster up`)
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

from single_task_jobs import sh, workload


def scheduler_pid(cluster):
    for name in ("scheduler.pid",):
        p = os.path.join(cluster, name)
        if os.path.exists(p):
            return int(open(p).read().split()[0])
    out = subprocess.run(["pgrep", "-f", f"weftd scheduler.*{cluster}"], text=True, capture_output=True).stdout
    return int(out.split()[0])


def proc_stats(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / tick
    rss_kb = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kb = int(line.split()[1])
    return cpu, rss_kb / 1024


def node_pids(cluster):
    # `weft cluster up` writes DIR/NAME.pid for the scheduler and each node.
    return [int(open(os.path.join(cluster, f)).read().split()[0])
            for f in sorted(os.listdir(cluster)) if f.endswith(".pid") and f != "scheduler.pid"]


def file_mb(cluster, name):
    # The scheduler's state dir is somewhere under the cluster's dir.
    for root, _, files in os.walk(cluster):
        if name in files:
            return os.path.getsize(os.path.join(root, name)) / 1e6
    return 0.0


def dir_mb(path, prefix="journal"):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            if f.startswith(prefix):
                total += os.path.getsize(os.path.join(root, f))
    return total / 1e6


def drain(weft, address, tmp, n, first_job, pid):
    path = os.path.join(tmp, f"w{n}.json")
    with open(path, "w") as f:
        json.dump(workload(n), f)
    cpu0, _ = proc_stats(pid)
    start = time.monotonic()
    sh(weft, "submit", "--scheduler", address, path)
    sh(weft, "wait", "--scheduler", address, str(first_job + n - 1), "--timeout", "3600")
    wall = time.monotonic() - start
    cpu1, rss = proc_stats(pid)
    return wall, cpu1 - cpu0, rss


def probe_status(weft, address, pid, probes):
    walls = []
    cpu0, _ = proc_stats(pid)
    for _ in range(probes):
        start = time.monotonic()
        out = sh(weft, "status", "--scheduler", address, "0")
        walls.append(time.monotonic() - start)
    cpu1, _ = proc_stats(pid)
    walls.sort()
    print(f"\nstatus of job 0 ({out.strip().splitlines()[-1].strip()}): {probes} calls, wall s min "
          f"{walls[0]:.4f} median {walls[len(walls) // 2]:.4f}, scheduler cpu s per call {(cpu1 - cpu0) / probes:.4f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--jobs", type=int, nargs="+", default=[5000, 10000, 20000])
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--bursts", type=int, default=0)
    ap.add_argument("--scheduler-arg", action="append", default=[])
    ap.add_argument("--settle", type=float, default=2.0, help="seconds to wait after a burst before sampling")
    ap.add_argument("--status-probes", type=int, default=0, help="statuses of job 0 timed after the bursts")
    a = ap.parse_args()
    weft = os.path.join(a.build, "src", "weft")
    if not os.path.exists(weft):  # a directory of installed binaries (weft next to weftd)
        weft = os.path.join(a.build, "weft")
    extra = []
    for arg in a.scheduler_arg:
        extra += [arg]
    with tempfile.TemporaryDirectory() as tmp:
        if a.bursts:
            cluster = os.path.join(tmp, "c")
            address = sh(weft, "cluster", "up", "--nodes", str(a.nodes), "--cpu", "1", "--dir", cluster,
                         *extra).strip().splitlines()[-1]
            try:
                pid = scheduler_pid(cluster)
                nodes = node_pids(cluster)
                print("| burst | jobs so far | wall s | scheduler cpu s | scheduler RSS MB | journal.db MB | journal WAL MB | results archive MB | node RSS MB |")
                print("|---|---|---|---|---|---|---|---|---|")
                n = a.jobs[0]
                for b in range(a.bursts):
                    wall, cpu, _ = drain(weft, address, tmp, n, b * n, pid)
                    time.sleep(a.settle)
                    _, rss = proc_stats(pid)
                    node_rss = max(proc_stats(p)[1] for p in nodes) if nodes else 0
                    print(f"| {b + 1} | {(b + 1) * n} | {wall:.2f} | {cpu:.2f} | {rss:.1f} | {file_mb(cluster, 'journal.db'):.2f} | "
                          f"{file_mb(cluster, 'journal.db-wal'):.2f} | "
                          f"{dir_mb(cluster, 'results-archive'):.1f} | {node_rss:.1f} |", flush=True)
                if a.status_probes:
                    probe_status(weft, address, pid, a.status_probes)
            finally:
                sh(weft, "cluster", "down", "--dir", cluster)
            return
        print("| jobs | wall s | scheduler cpu s | wall s per 1k jobs |")
        print("|---|---|---|---|")
        for n in a.jobs:
            cluster = os.path.join(tmp, f"c{n}")
            address = sh(weft, "cluster", "up", "--nodes", str(a.nodes), "--cpu", "1", "--dir", cluster,
                         *extra).strip().splitlines()[-1]
            try:
                wall, cpu, _ = drain(weft, address, tmp, n, 0, scheduler_pid(cluster))
                print(f"| {n} | {wall:.2f} | {cpu:.2f} | {wall / n * 1000:.3f} |", flush=True)
            finally:
                sh(weft, "cluster", "down", "--dir", cluster)


if __name__ == "__main__":
    main()
