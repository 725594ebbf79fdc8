"""Shared by the runtime benches that drive a local cluster with many one-task
jobs (drain_jobs.py, submit_export.py): running weft's command line, and the
workload of N single-task jobs they submit."""
import subprocess


def sh(*args):
    """Runs a command; its stdout, or exits naming the command and its stderr."""
    r = subprocess.run(args, text=True, capture_output=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def workload(n):
    """N jobs of one one-core task of a microsecond each."""
    jobs = [{"name": f"j{i}", "stages": [{"name": "s", "tasks": 1, "duration": 1e-6,
                                        "demand": {"cpu": 1, "mem": 0.001}}]} for i in range(n)]
    return {"weft": 1, "cluster": {"machines": [{"name": "x", "capacity": {"cpu": 1, "mem": 1}}]}, "jobs": jobs}
