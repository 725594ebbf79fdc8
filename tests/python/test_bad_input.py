"""Bad input raises a clear Python exception, never a crash."""
import json

import pytest

import weft
from conftest import TPCH


def test_missing_workload_file_is_a_workload_error(tmp_path):
    with pytest.raises(weft.WorkloadError, match="nope.json"):
        weft.simulate(workload=str(tmp_path / "nope.json"))


def test_a_bad_field_is_named(tmp_path):
    doc = json.loads(open(TPCH).read())
    doc["jobs"][0]["stages"][0]["tasks"] = -3
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(weft.WorkloadError, match="tasks"):
        weft.simulate(workload=str(path))
    assert issubclass(weft.WorkloadError, ValueError)


def test_malformed_json_is_a_workload_error(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{\"cluster\": ")
    with pytest.raises(weft.WorkloadError):
        weft.simulate(workload=str(path))


def test_unknown_policy_and_parameter_are_value_errors():
    with pytest.raises(ValueError, match="no-such-policy"):
        weft.simulate(workload=TPCH, policy="no-such-policy")
    with pytest.raises(ValueError, match="bogus"):
        weft.simulate(workload=TPCH, policy="delay", params={"bogus": 1})
    with pytest.raises(ValueError, match="node_wait"):
        weft.simulate(workload=TPCH, policy="delay", params={"node_wait": "soon"})


def test_bad_run_flags_are_value_errors():
    with pytest.raises(ValueError, match="model"):
        weft.simulate(workload=TPCH, model="quantum")
    with pytest.raises(ValueError, match="seed"):
        weft.simulate(workload=TPCH, seed=-1)
    with pytest.raises(ValueError, match="task_failures"):
        weft.simulate(workload=TPCH, task_failures=2)
    with pytest.raises(TypeError):
        weft.simulate(workload=3.5)


def test_bad_trace_is_a_workload_error(tmp_path):
    with pytest.raises(weft.WorkloadError):
        weft.simulate(trace="no-such-format:" + str(tmp_path))
    with pytest.raises(weft.WorkloadError):
        weft.compare(trace="google-2011:" + str(tmp_path / "missing"), policies=["fifo"])


def test_compare_with_a_bad_policy_raises_before_running():
    with pytest.raises(ValueError, match="nope"):
        weft.compare(workload=TPCH, policies=["fifo", "nope"])
