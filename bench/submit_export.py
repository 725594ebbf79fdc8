#!/usr/bin/env python3
"""Submit and export a large queue of one-task jobs on a local weft cluster (issue 20).

One `weft cluster up --nodes NODES --cpu 1` (fifo), then:
  1. `weft validate` of the file (the reader alone), timed (cpu s of the process);
  2. one `weft submit` of N one-task jobs (the workload of issue 20's bug 3:
     built-in task of 1 us, cpu 1), with the scheduler's cpu seconds over the
     submit, and, meanwhile, `weft status 0` in a loop: its longest round trip
     is how long the submit held the core's lock (status needs it);
  3. once every job has ended, `weft status --out DIR` (the export) REPEAT
     times: wall seconds and the scheduler's cpu seconds per export.

usage: bench/submit_export.py BUILD_DIR|BIN_DIR [--jobs 200000] [--repeat 3]
"""
import argparse
import json
import os
import subprocess
import tempfile
import threading
import time

from single_task_jobs import sh, workload


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_cpu(cmd):
    """Runs cmd; returns (wall s, user+sys cpu s of the child)."""
    before = os.times()
    start = time.monotonic()
    r = subprocess.run(cmd, text=True, capture_output=True)
    wall = time.monotonic() - start
    after = os.times()
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--jobs", type=int, default=200000)
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    weft = os.path.join(a.build, "src", "weft")
    if not os.path.exists(weft):
        weft = os.path.join(a.build, "weft")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "w.json")
        with open(path, "w") as f:
            json.dump(workload(a.jobs), f)
        vwall, vcpu = child_cpu([weft, "validate", path])
        cluster = os.path.join(tmp, "c")
        address = sh(weft, "cluster", "up", "--nodes", str(a.nodes), "--cpu", "1", "--dir", cluster).strip().splitlines()[-1]
        try:
            pid = int(open(os.path.join(cluster, "scheduler.pid")).read().split()[0])
            # A first job, so that `weft status 0` has something to show.
            one = os.path.join(tmp, "one.json")
            with open(one, "w") as f:
                json.dump(workload(1), f)
            sh(weft, "submit", "--scheduler", address, one)
            stop = threading.Event()
            longest = [0.0]

            def probe():
                while not stop.is_set():
                    t = time.monotonic()
                    subprocess.run([weft, "status", "--scheduler", address, "0"], capture_output=True)
                    longest[0] = max(longest[0], time.monotonic() - t)
                    time.sleep(0.05)

            prober = threading.Thread(target=probe)
            prober.start()
            cpu0 = cpu_seconds(pid)
            start = time.monotonic()
            sh(weft, "submit", "--scheduler", address, path)
            submit_wall = time.monotonic() - start
            submit_cpu = cpu_seconds(pid) - cpu0
            stop.set()
            prober.join()
            sh(weft, "wait", "--scheduler", address, str(a.jobs), "--timeout", "3600")
            time.sleep(1)
            exports = []
            for r in range(a.repeat):
                cpu0 = cpu_seconds(pid)
                wall, _ = child_cpu([weft, "status", "--scheduler", address, "--out", os.path.join(tmp, f"e{r}")])
                exports.append((wall, cpu_seconds(pid) - cpu0))
            # The scheduler's own account, where it logs one (session 10 on).
            for root, _, files in os.walk(cluster):
                for name in files:
                    if name.endswith(".log"):
                        for line in open(os.path.join(root, name), errors="replace"):
                            if f"accepted {a.jobs} jobs" in line:
                                print("scheduler log:", line.strip())
            print(f"validate {a.jobs} jobs: {vwall:.2f} s wall, {vcpu:.2f} cpu s")
            print(f"submit: {submit_wall:.2f} s wall, scheduler {submit_cpu:.2f} cpu s, "
                  f"longest status meanwhile {longest[0]:.2f} s")
            for wall, cpu in exports:
                print(f"export: {wall:.2f} s wall, scheduler {cpu:.2f} cpu s")
        finally:
            sh(weft, "cluster", "down", "--dir", cluster)


if __name__ == "__main__":
    main()
