#!/usr/bin/env python3
"""Benchmark of weft's real runtime next to Dask on this machine (issue 7).

  python3 bench/runtime_vs_dask.py [--build build] [--tasks 100000] [--nodes 4] [--latency-jobs 200]
                                   [--skip-dask] [--skip-small] [--dir DIR]

weft: `weft cluster up --nodes N` (each node offers the machine's cores), then
  - throughput: one job of TASKS built-in 1-microsecond tasks (the format needs
    a duration > 0; the node runs built-ins under 1 ms without a process), submit to
    `weft wait` done, for two task sizes: cpu 1 (one task per core at a time)
    and cpu 0.01 (up to 100 per core: the scheduler and RPC path alone);
  - launch latency: LATENCY_JOBS one-task jobs running /bin/true, submitted
    one at a time; per job, ready -> end from the exported tasks.csv, which
    bounds submit-to-start from above (it also holds the process's run and
    the report back); then as many one-task jobs of the built-in task, which
    runs without a process: their ready -> end is the runtime's own round
    trip (scheduler -> node -> scheduler); and, for /bin/true, ready -> start,
    where a real attempt's start is when its process began (the scheduler
    subtracts the run time the node measured from when it heard of the end,
    so it errs late by the end's one-way trip): submit-to-start.
Dask (Debian's python3-distributed, installed by this script only):
LocalCluster with N worker processes x the same threads; client.map of a
no-op over TASKS items; and LATENCY_JOBS sequential client.submit calls of a
function that runs /bin/true, timed submit to result.
Prints a Markdown table for BENCHMARKS.md, and one of what each task of the
throughput runs cost the daemons: cpu (user + system) and context switches
(voluntary + involuntary, every thread) of the scheduler and of the nodes
together, from /proc, before and after the run. --latency-jobs 0 skips the
latency runs.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def sh(*args, **kw):
    r = subprocess.run(args, text=True, capture_output=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def daemon_counters(cluster):
    """cpu seconds and context switches (voluntary + involuntary, summed over
    threads, live ones only: /proc/PID/task) of the scheduler and of all the
    nodes of a `weft cluster up` dir, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for role in ("scheduler", "nodes"):
        cpu = switches = 0.0
        pids = [f for f in os.listdir(cluster) if f.endswith(".pid") and (f == "scheduler.pid") == (role == "scheduler")]
        for f in pids:
            with open(os.path.join(cluster, f)) as fh:
                pid = fh.read().strip()
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
            for t in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{t}/status") as fh:
                        for line in fh:
                            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                                switches += int(line.split()[1])
                except FileNotFoundError:
                    pass
        out[role] = (cpu, switches)
    return out


def workload(tasks, cpu, command=None, name="bench"):
    stage = {"name": "s", "tasks": tasks, "duration": 1e-6, "demand": {"cpu": cpu, "mem": 0.001}}
    if command:
        stage["command"] = command
    return {"weft": 1, "cluster": {"machines": [{"name": "x", "capacity": {"cpu": 1, "mem": 1}}]},
            "jobs": [{"name": name, "stages": [stage]}]}


def weft_bench(build, tasks, nodes, latency_jobs, parent, small=True):
    weft = os.path.join(build, "src", "weft")
    results = {}
    with tempfile.TemporaryDirectory(dir=parent) as tmp:
        cluster = os.path.join(tmp, "cluster")
        address = sh(weft, "cluster", "up", "--nodes", str(nodes), "--dir", cluster).strip().splitlines()[-1]
        try:
            job = 0
            for cpu in (1, 0.01) if small else (1,):
                path = os.path.join(tmp, f"w{cpu}.json")
                with open(path, "w") as f:
                    json.dump(workload(tasks, cpu), f)
                before = daemon_counters(cluster)
                start = time.monotonic()
                sh(weft, "submit", "--scheduler", address, path)
                sh(weft, "wait", "--scheduler", address, str(job), "--timeout", "600")
                results[f"cpu{cpu}"] = tasks / (time.monotonic() - start)
                after = daemon_counters(cluster)
                # Per task: cpu µs and context switches of the scheduler and the nodes.
                results[f"cpu{cpu}_cost"] = {role: ((after[role][0] - before[role][0]) / tasks * 1e6,
                                                    (after[role][1] - before[role][1]) / tasks)
                                             for role in after}
                job += 1
            # One-task jobs, one at a time: /bin/true, and the built-in task
            # (no process: the runtime's own round trip).
            for name, command in (("true", "/bin/true"), ("builtin", None)):
                path = os.path.join(tmp, f"{name}.json")
                with open(path, "w") as f:
                    json.dump(workload(1, 1, command, name), f)
                for _ in range(latency_jobs):
                    sh(weft, "submit", "--scheduler", address, path)
                    sh(weft, "wait", "--scheduler", address, str(job), "--timeout", "60")
                    job += 1
            if latency_jobs == 0:
                return results
            out = os.path.join(tmp, "results")
            sh(weft, "status", "--scheduler", address, "--out", out)
            with open(os.path.join(out, "tasks.csv")) as f:
                rows = list(csv.DictReader(f))
            for name in ("true", "builtin"):
                lat = [float(r["end"]) - float(r["ready"]) for r in rows if r["job"].startswith(name)]
                results[f"{name}_ms"] = (percentile(lat, 50) * 1e3, percentile(lat, 99) * 1e3)
            # A real attempt's start is when its process began (the node
            # reports how long it ran): ready -> start is submit-to-start.
            lat = [float(r["start"]) - float(r["ready"]) for r in rows if r["job"].startswith("true")]
            results["true_start_ms"] = (percentile(lat, 50) * 1e3, percentile(lat, 99) * 1e3)
        finally:
            sh(weft, "cluster", "down", "--dir", cluster)
    return results


def noop(x):
    return x


def run_true(_):
    subprocess.run(["/bin/true"], check=True)


def dask_bench(tasks, nodes, latency_jobs):
    if subprocess.run(["/usr/bin/python3", "-c", "import distributed"], capture_output=True).returncode != 0:
        if os.geteuid() != 0:
            sys.exit("python3-distributed is missing; run as root so this script can apt-get install it")
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "python3-distributed"], check=True)
    code = f"""
import subprocess, time, statistics, json
from distributed import Client, LocalCluster
def noop(x): return x
def run_true(_): subprocess.run(["/bin/true"], check=True)
if __name__ == "__main__":
    threads = max(1, __import__("os").cpu_count())
    with LocalCluster(n_workers={nodes}, threads_per_worker=threads, processes=True, dashboard_address=None) as c, Client(c) as client:
        client.submit(noop, 0).result()
        start = time.monotonic()
        futures = client.map(noop, range({tasks}))
        client.gather(futures)
        tput = {tasks} / (time.monotonic() - start)
        lat = []
        for i in range({latency_jobs}):
            t = time.monotonic()
            client.submit(run_true, i, pure=False).result()
            lat.append(time.monotonic() - t)
        lat.sort()
        print(json.dumps({{"tput": tput, "p50": lat[len(lat)//2] * 1e3, "p99": lat[min(len(lat)-1, int(0.99*(len(lat)-1)))] * 1e3}}))
"""
    out = subprocess.run(["/usr/bin/python3", "-c", code], check=True, text=True, capture_output=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--tasks", type=int, default=100000)
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--latency-jobs", type=int, default=200)
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--skip-small", action="store_true", help="skip the run of 0.01-core tasks")
    ap.add_argument("--dir", default=None,
                    help="where the cluster's state and the tasks' output go (default: the system temp dir)")
    a = ap.parse_args()
    w = weft_bench(a.build, a.tasks, a.nodes, a.latency_jobs, a.dir, small=not a.skip_small)
    lat = lambda key, i: f"{w[key][i]:.2f}" if key in w else ""
    print(f"| system | {a.tasks:,} zero-duration tasks, {a.nodes} nodes: tasks/s | /bin/true p50 ms | p99 ms |")
    print("| --- | --- | --- | --- |")
    print(f"| weft, tasks of 1 core | {w['cpu1']:,.0f} | {lat('true_ms', 0)} | {lat('true_ms', 1)} |")
    if "cpu0.01" in w:
        print(f"| weft, tasks of 0.01 core | {w['cpu0.01']:,.0f} | | |")
    if "builtin_ms" in w:
        print(f"| weft, built-in task instead of /bin/true (no process) | | {lat('builtin_ms', 0)} | {lat('builtin_ms', 1)} |")
        print(f"| weft, /bin/true ready to start (submit-to-start) | | {lat('true_start_ms', 0)} | {lat('true_start_ms', 1)} |")
    if not a.skip_dask:
        d = dask_bench(a.tasks, a.nodes, a.latency_jobs)
        print(f"| Dask distributed (LocalCluster) | {d['tput']:,.0f} | {d['p50']:.2f} | {d['p99']:.2f} |")
    # What each task of the throughput runs cost the daemons (from /proc).
    print()
    print("| run | scheduler cpu µs/task | scheduler switches/task | nodes cpu µs/task | nodes switches/task |")
    print("| --- | --- | --- | --- | --- |")
    for key, label in (("cpu1_cost", "tasks of 1 core"), ("cpu0.01_cost", "tasks of 0.01 core")):
        if key in w:
            c = w[key]
            print(f"| {label} | {c['scheduler'][0]:.1f} | {c['scheduler'][1]:.2f} | {c['nodes'][0]:.1f} | {c['nodes'][1]:.2f} |")


if __name__ == "__main__":
    main()
