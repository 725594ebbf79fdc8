"""Python policies in the real daemons: `weft cluster up --policy py:MODULE:CLASS` on this machine.

One node of one core runs the tasks one at a time, so the order they start in is the policy's
alone, not the machine's timing: the Python fifo must start them in the C++ fifo's order.
"""
import csv
import os
import pathlib
import subprocess

import pytest

from conftest import ROOT

HERE = pathlib.Path(__file__).resolve().parent
REAL_SMALL = str(ROOT / "examples" / "real-small.json")

# Two jobs at once: after a's first task, both have a ready stage, so the policy is asked.
TWO_JOBS = """{"weft": 1, "cluster": {"machines": [{"name": "n", "count": 1, "capacity": {"cpu": 1, "mem": 2}}]},
 "jobs": [
  {"name": "a", "stages": [{"name": "m", "tasks": 3, "duration": 0.05, "demand": {"cpu": 1, "mem": 0.5}, "command": "sleep 0.05"},
                           {"name": "r", "tasks": 1, "duration": 0.05, "demand": {"cpu": 1, "mem": 0.5}, "after": ["m"], "command": "sleep 0.05"}]},
  {"name": "b", "stages": [{"name": "m", "tasks": 2, "duration": 0.05, "demand": {"cpu": 1, "mem": 0.5}, "command": "sleep 0.05"}]}
 ]}"""


@pytest.fixture(scope="module")
def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(HERE), e.get("PYTHONPATH", "")])
    return e


@pytest.fixture(scope="module")
def weftd(weft_bin):
    return str(pathlib.Path(weft_bin).parent / "weftd")


def run_on_cluster(weft_bin, env, tmp_path, policy, workload, params=()):
    """Runs `workload` on a local cluster of one one-core node under `policy`; returns its
    tasks.csv rows in the order the tasks started, and the cluster's folder."""
    folder = tmp_path / policy.replace(":", "-")
    def weft(*args, check=True):
        r = subprocess.run([weft_bin, *args], capture_output=True, text=True, env=env, timeout=120)
        assert not check or r.returncode == 0, f"weft {args[0]}: {r.stderr}"
        return r
    extra = [a for p in params for a in ("--param", p)]
    up = weft("cluster", "up", "--nodes", "1", "--cpu", "1", "--mem", "2", "--dir", str(folder), "--policy", policy, *extra)
    address = up.stdout.strip().splitlines()[-1]
    try:
        ids = weft("submit", "--scheduler", address, workload).stdout.split()
        for job in ids:
            weft("wait", "--scheduler", address, job, "--timeout", "60")
        weft("status", "--scheduler", address, "--out", str(folder / "out"))
    finally:
        weft("cluster", "down", "--dir", str(folder), check=False)
    with open(folder / "out" / "tasks.csv") as f:
        rows = list(csv.DictReader(f))
    return sorted(rows, key=lambda r: float(r["start"])), folder


def placements(rows):
    return [(r["job"], r["stage"], r["task"], r["machine"], r["outcome"]) for r in rows]


# On one one-core node, fair serves the freed slot as fifo does here (its holder's share drops to
# 0 as it ends, and ties go to the lower user): for fair this checks the per-machine offers in the
# daemon, not fair's choices (test_python_policy.py checks those, in simulation).
@pytest.mark.parametrize("cpp_policy, py_policy", [("fifo", "py:weft:Fifo"), ("fair", "py:weft:Fair")])
def test_python_policies_run_real_small_as_the_cpp_ones(weft_bin, env, tmp_path, cpp_policy, py_policy):
    cpp, _ = run_on_cluster(weft_bin, env, tmp_path, cpp_policy, REAL_SMALL)
    py, folder = run_on_cluster(weft_bin, env, tmp_path, py_policy, REAL_SMALL)
    assert len(py) == 18 and all(r["outcome"] == "ok" for r in py)
    assert placements(py) == placements(cpp)
    assert f"policy {py_policy} started" in (folder / "scheduler" / "scheduler.log").read_text()


def test_the_python_object_decides_in_the_daemon(weft_bin, env, tmp_path):
    workload = tmp_path / "two.json"
    workload.write_text(TWO_JOBS)
    fifo, _ = run_on_cluster(weft_bin, env, tmp_path, "py:weft:Fifo", str(workload))
    last, _ = run_on_cluster(weft_bin, env, tmp_path, "py:daemon_policies:Last", str(workload))
    assert [r["job"] for r in fifo] == ["a", "a", "a", "a", "b", "b"]
    assert [r["job"] for r in last] == ["a", "b", "b", "a", "a", "a"]  # b served at each choice


def test_an_exception_during_the_run_is_logged_and_the_run_goes_on(weft_bin, env, tmp_path):
    workload = tmp_path / "two.json"
    workload.write_text(TWO_JOBS)
    rows, folder = run_on_cluster(weft_bin, env, tmp_path, "py:daemon_policies:Flaky", str(workload))
    assert len(rows) == 6 and all(r["outcome"] == "ok" for r in rows)
    # The first decision raised: fifo's choice (a); the second served the last candidate (b).
    assert [r["job"] for r in rows][:3] == ["a", "a", "b"]
    log = (folder / "scheduler" / "scheduler.log").read_text()
    assert "policy py:daemon_policies:Flaky: ZeroDivisionError: integer division or modulo by zero (at " in log
    assert "error 1 of the run; the decision went to fifo's choice" in log


@pytest.mark.parametrize("policy, params, message", [
    ("py:no_such_module:X", [], "ModuleNotFoundError: No module named 'no_such_module'"),
    ("py:daemon_policies:Missing", [], "module daemon_policies has no Missing"),
    ("py:daemon_policies:NotAClass", [], "NotAClass cannot be called"),
    ("py:daemon_policies:BadInit", [], "RuntimeError: no cluster for me (at "),
    ("py:daemon_policies", [], "a Python policy is py:MODULE:CLASS"),
    ("py:daemon_policies:Flaky", ["every=often"], "every"),
    ("py:daemon_policies:Flaky", ["often=2"], "often"),
])
def test_a_bad_python_policy_is_one_line_and_exit_2_at_start(weftd, env, tmp_path, policy, params, message):
    args = [a for p in params for a in ("--param", p)]
    r = subprocess.run([weftd, "scheduler", "--policy", policy, *args, "--state", str(tmp_path / "state"),
                        "--listen", f"unix:{tmp_path / 'socket'}"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("weftd: ") and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr


def test_cluster_up_passes_the_error_on(weft_bin, env, tmp_path):
    r = subprocess.run([weft_bin, "cluster", "up", "--nodes", "1", "--dir", str(tmp_path / "c"), "--policy",
                        "py:no_such_module:X"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2 and "No module named 'no_such_module'" in r.stderr, r.stderr
