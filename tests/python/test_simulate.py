"""weft.simulate, weft.compare, weft.bounds and weft.policies against the command line."""
import json

import numpy as np
import pandas as pd
import pytest

import weft
from conftest import ROOT, TPCH


def cli_result(run_cli, tmp_path, *args):
    out = tmp_path / "cli"
    done = run_cli("sim", "--no-progress", "--out", str(out), *args)
    assert done.returncode == 0, done.stderr
    return out


def assert_frame_matches_csv(frame, path):
    """Every column equal to the CSV's: text exactly, numbers to the file's printed precision."""
    csv = pd.read_csv(path, keep_default_na=False)
    assert list(frame.columns) == list(csv.columns)
    assert len(frame) == len(csv)
    for name in csv.columns:
        if csv[name].dtype == object:
            assert list(frame[name].astype(str)) == list(csv[name].astype(str)), name
        else:
            np.testing.assert_allclose(frame[name].to_numpy(dtype=float), csv[name].to_numpy(dtype=float),
                                       rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("policy,seed", [("fair", 3), ("fifo", 1), ("tetris", 2)])
def test_simulate_gives_the_command_lines_files(run_cli, tmp_path, policy, seed):
    out = cli_result(run_cli, tmp_path, "-w", TPCH, "-p", policy, "--seed", str(seed))
    r = weft.simulate(workload=TPCH, policy=policy, seed=seed)
    assert_frame_matches_csv(r.tasks, out / "tasks.csv")
    assert_frame_matches_csv(r.jobs, out / "jobs.csv")
    assert_frame_matches_csv(r.timeline, out / "timeline.csv")
    summary = json.loads((out / "summary.json").read_text())
    for key in ("wall_seconds",):
        summary.pop(key), r.summary.pop(key)
    assert r.summary == summary


def test_simulate_phases_match(run_cli, tmp_path):
    workload = str(ROOT / "examples" / "phases.json")
    out = cli_result(run_cli, tmp_path, "-w", workload, "-p", "fifo")
    r = weft.simulate(workload=workload, policy="fifo")
    assert len(r.phases) > 0
    assert_frame_matches_csv(r.phases, out / "phases.csv")


def test_simulate_params_and_model_reach_the_run(run_cli, tmp_path):
    out = cli_result(run_cli, tmp_path, "-w", TPCH, "-p", "delay", "--param", "node_wait=2", "--model", "contention")
    r = weft.simulate(workload=TPCH, policy="delay", params={"node_wait": 2}, model="contention")
    assert r.summary["params"] == json.loads((out / "summary.json").read_text())["params"]
    assert_frame_matches_csv(r.jobs, out / "jobs.csv")


def test_compare_is_one_tidy_frame_with_the_command_lines_numbers(run_cli, tmp_path):
    csv_path = tmp_path / "cmp.csv"
    done = run_cli("compare", "-w", TPCH, "--policies", "fifo,tetris,fair", "--csv", str(csv_path), "--seed", "2")
    assert done.returncode == 0, done.stderr
    cli = pd.read_csv(csv_path)
    c = weft.compare(workload=TPCH, policies=["fifo", "tetris", "fair"], seeds=[2, 5])
    assert {"policy", "params", "seed", "avg_jct", "makespan"} <= set(c.columns)
    assert len(c) == 6
    mine = c[c.seed == 2].set_index("policy")
    for _, row in cli.iterrows():
        for col in cli.columns:
            if col in ("policy", "wall_seconds"):
                continue
            if cli[col].dtype == object or cli[col].dtype == bool:
                assert str(mine.loc[row.policy, col]).lower() == str(row[col]).lower(), col
            else:
                assert mine.loc[row.policy, col] == pytest.approx(row[col], rel=1e-6, abs=1e-9), col


def test_compare_runs_equal_simulate():
    c = weft.compare(workload=TPCH, policies="fifo,cp", seeds=[1], threads=2)
    for policy in ("fifo", "cp"):
        r = weft.simulate(workload=TPCH, policy=policy)
        assert c[c.policy == policy].avg_jct.item() == r.summary["avg_jct"]


def test_bounds_as_the_command_line(run_cli):
    done = run_cli("bounds", "-w", TPCH)
    assert done.returncode == 0, done.stderr
    from io import StringIO
    cli = pd.read_csv(StringIO(done.stdout))
    b = weft.bounds(TPCH)
    assert list(b.job) == list(cli.job)
    for col in ("cplen", "twork", "modcp", "newlb"):
        np.testing.assert_allclose(b[col], cli[col], atol=1e-6)


def test_policies_lists_the_registry(run_cli):
    names = [p["name"] for p in weft.policies()]
    assert "fifo" in names and "sparrow" in names
    delay = next(p for p in weft.policies() if p["name"] == "delay")
    assert any(param["name"] == "node_wait" for param in delay["params"])


def test_a_trace_replays_as_the_command_lines(run_cli, tmp_path):
    trace = "tpch-cloudlab:" + str(ROOT / "examples" / "data" / "tpch_cloudlab_excerpt.csv")
    out = cli_result(run_cli, tmp_path, "--trace", trace, "-p", "fair")
    r = weft.simulate(trace=trace, policy="fair")
    assert len(r.jobs) > 0
    assert_frame_matches_csv(r.tasks, out / "tasks.csv")
    assert_frame_matches_csv(r.jobs, out / "jobs.csv")


def test_sweep_runs_every_combination_with_compares_numbers():
    s = weft.sweep(workload=TPCH, policies=["fifo", "delay"], params={"delay:node_wait": [0.5, 3]}, seeds=[1, 2])
    assert len(s) == 2 + 4  # fifo x 2 seeds, delay x 2 values x 2 seeds
    assert list(s[s.policy == "fifo"].node_wait.isna()) == [True, True]
    row = s[(s.policy == "delay") & (s.node_wait == 3) & (s.seed == 2)]
    r = weft.simulate(workload=TPCH, policy="delay", params={"node_wait": 3}, seed=2)
    assert row.avg_jct.item() == r.summary["avg_jct"] and row.params.item() == "node_wait=3"
