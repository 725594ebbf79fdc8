"""weft.Workload: built from Python objects and DataFrames, checked by the engine's reader."""
import json

import pandas as pd
import pytest

import weft
from conftest import ROOT, TPCH


def stage_rows():
    doc = json.load(open(TPCH))
    rows = []
    for job in doc["jobs"]:
        for stage in job["stages"]:
            row = {"job": job["name"], "arrival": job["arrival"], "user": job["user"], "stage": stage["name"],
                   "tasks": stage["tasks"], "duration": stage["duration"], "after": stage.get("after", [])}
            row.update(stage["demand"])
            row.update({"usage_" + k: v for k, v in stage.get("usage", {}).items()})
            rows.append(row)
    return doc, pd.DataFrame(rows)


def test_a_workload_from_stage_rows_simulates_as_the_file(tmp_path):
    doc, frame = stage_rows()
    w = weft.Workload.from_stages(frame, doc["cluster"])
    assert len(w.jobs) == len(doc["jobs"])
    a = weft.simulate(workload=w, policy="fair")
    b = weft.simulate(workload=TPCH, policy="fair")
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    path = tmp_path / "w.json"
    w.write(path)
    c = weft.simulate(workload=str(path), policy="fair")
    pd.testing.assert_frame_equal(c.tasks, b.tasks)


def test_task_rows_become_per_task_durations():
    tasks = pd.DataFrame({"job": ["j", "j", "j"], "stage": ["a", "a", "b"], "duration": [1.0, 2.0, 3.0],
                          "cpu": [1, 1, 2], "after": ["", "", "a"]})
    w = weft.Workload.from_tasks(tasks, weft.machines(2, cpu=4, mem=8))
    stage_a = w.jobs[0]["stages"][0]
    assert stage_a["tasks"] == 2 and stage_a["durations"] == [1.0, 2.0]
    r = weft.simulate(workload=w)
    assert r.jobs.jct.item() == pytest.approx(5.0)  # a's longest task, then b


def test_a_bad_field_raises_with_the_readers_message(run_cli, tmp_path):
    jobs = [{"name": "j", "stages": [{"name": "s", "tasks": 0, "duration": 1}]}]
    with pytest.raises(weft.WorkloadError) as caught:
        weft.Workload(weft.machines(1, cpu=1, mem=1), jobs)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"weft": 1, "cluster": weft.machines(1, cpu=1, mem=1), "jobs": jobs}))
    done = run_cli("validate", str(path))
    assert done.returncode == 2
    assert "tasks" in str(caught.value)
    # the same words as the command line's message, but for the file name it starts with
    assert str(caught.value).split(":")[-1].strip() in done.stderr


def test_missing_columns_are_named():
    with pytest.raises(weft.WorkloadError, match="tasks"):
        weft.Workload.from_stages(pd.DataFrame({"job": ["j"], "stage": ["s"]}), weft.machines(1, cpu=1, mem=1))


def test_read_trace_gives_the_converted_workload(run_cli, tmp_path):
    trace = ROOT / "examples" / "data" / "tpch_cloudlab_excerpt.csv"
    w = weft.read_trace("tpch-cloudlab", trace)
    out = tmp_path / "converted.json"
    done = run_cli("trace", "convert", f"tpch-cloudlab:{trace}", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert w.doc == json.loads(out.read_text())
    sampled = weft.read_trace("tpch-cloudlab", [trace], sample=0.5, seed=3)
    assert 0 < len(sampled.jobs) < len(w.jobs)
    with pytest.raises(weft.WorkloadError):
        weft.read_trace("tpch-cloudlab", tmp_path / "missing.csv")
    with pytest.raises(weft.WorkloadError):
        weft.read_trace("no-such-format", trace)
