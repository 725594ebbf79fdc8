"""profile= (the command line's --profile FILE) on simulate, compare and sweep; runs of
Python policies in weft.compare going to forked processes."""
import json
import os

import pandas as pd
import pytest

import weft
from conftest import ROOT, TPCH
from test_simulate import assert_frame_matches_csv

LAB = {"weft_profile": 1, "name": "lab", "launch_s": 0.5, "scheduler": {"decision_s": 0.001},
       "cpu": {"oversubscription_loss": 0.1}}


def test_a_profile_gives_the_command_lines_run(run_cli, tmp_path):
    path = tmp_path / "lab.json"
    path.write_text(json.dumps(LAB))
    out = tmp_path / "cli"
    done = run_cli("sim", "--no-progress", "-w", TPCH, "-p", "fair", "--profile", str(path), "--out", str(out))
    assert done.returncode == 0, done.stderr
    from_file = weft.simulate(workload=TPCH, policy="fair", profile=str(path))
    from_dict = weft.simulate(workload=TPCH, policy="fair", profile=LAB)
    assert_frame_matches_csv(from_file.tasks, out / "tasks.csv")
    assert_frame_matches_csv(from_file.jobs, out / "jobs.csv")
    pd.testing.assert_frame_equal(from_file.tasks, from_dict.tasks)
    assert from_file.summary["profile"]["name"] == "lab"
    plain = weft.simulate(workload=TPCH, policy="fair")
    assert "profile" not in plain.summary and from_file.summary["avg_jct"] > plain.summary["avg_jct"]


def test_the_shipped_profile_costs_nothing():
    shipped = weft.simulate(workload=TPCH, profile=ROOT / "profiles" / "default.json")
    plain = weft.simulate(workload=TPCH)
    pd.testing.assert_frame_equal(shipped.tasks, plain.tasks)
    assert "uncalibrated" in shipped.summary["profile"]["name"]


def test_compare_and_sweep_take_the_profile():
    one = weft.simulate(workload=TPCH, policy="fifo", seed=2, profile=LAB)
    c = weft.compare(workload=TPCH, policies=["fifo", "fair"], seeds=[2], profile=LAB)
    assert c.set_index("policy").avg_jct["fifo"] == one.summary["avg_jct"]
    s = weft.sweep(workload=TPCH, policies=["delay"], params={"node_wait": [0, 2]}, profile=LAB)
    plain = weft.sweep(workload=TPCH, policies=["delay"], params={"node_wait": [0, 2]})
    assert (s.avg_jct.to_numpy() > plain.avg_jct.to_numpy()).all()


@pytest.mark.parametrize("profile, error, message", [
    ({"weft_profile": 1, "launch_s": -1}, ValueError, "launch_s"),
    ({"weft_profile": 1, "launch": 1}, ValueError, "launch"),
    ("no/such/profile.json", ValueError, "no/such/profile.json"),
    (3, TypeError, "a path or a dict"),
])
def test_a_bad_profile_raises_naming_the_field(profile, error, message):
    with pytest.raises(error, match=message):
        weft.simulate(workload=TPCH, profile=profile)
    with pytest.raises(error, match=message):
        weft.compare(workload=TPCH, policies=["fifo"], profile=profile)


def test_runs_of_python_policies_go_to_processes(tmp_path):
    seen = tmp_path / "pids"
    seen.mkdir()

    class Marking(weft.Fifo):  # defined here: only a forked process knows it without importing
        def choose(self, obs):
            (seen / str(os.getpid())).touch()
            return super().choose(obs)

    weft.register_policy("py-marking", Marking)
    policies, seeds = ["py-marking", "fifo", "tetris"], [1, 2, 3]
    on_one = weft.compare(workload=TPCH, policies=policies, seeds=seeds, threads=1)
    assert {int(p.name) for p in seen.iterdir()} == {os.getpid()}
    on_two = weft.compare(workload=TPCH, policies=policies, seeds=seeds, threads=2)
    forked = {int(p.name) for p in seen.iterdir()} - {os.getpid()}
    assert 1 <= len(forked) <= 2
    columns = [c for c in on_one.columns if c != "wall_seconds"]
    pd.testing.assert_frame_equal(on_one[columns], on_two[columns])
    assert (on_two.policy == policies[0]).sum() == 3 and (on_two.status == "ok").all()


def test_a_python_policys_bad_parameter_in_a_process_is_a_value_error():
    weft.register_policy("py-fifo-param", lambda rows=1: weft.Fifo(), params={"rows": 1})
    with pytest.raises(ValueError, match="rows"):
        weft.compare(workload=TPCH, policies=["py-fifo-param"], params={"rows": "x"}, seeds=[1, 2], threads=2)
