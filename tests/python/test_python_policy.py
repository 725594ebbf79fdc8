"""Policies written in Python: registered by name, run by weft.simulate, checked as C++ ones."""
import pandas as pd
import pytest

import weft
from conftest import ROOT, TPCH

BUNDLED = ["tpch-small.json", "default.json", "phases.json", "ras-exp1.json", "ras-exp2.json", "real-small.json"]


@pytest.fixture(scope="module", autouse=True)
def registered():
    weft.register_policy("py-fifo", weft.Fifo, description="fifo, in Python")
    weft.register_policy("py-fair", weft.Fair, description="fair, in Python")


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("cpp_policy", ["fifo", "fair"])
def test_a_policy_in_python_gives_the_cpp_policys_tasks(cpp_policy, name):
    workload = str(ROOT / "examples" / name)
    py = weft.simulate(workload=workload, policy="py-" + cpp_policy)
    cpp = weft.simulate(workload=workload, policy=cpp_policy)
    pd.testing.assert_frame_equal(py.tasks, cpp.tasks)
    pd.testing.assert_frame_equal(py.jobs, cpp.jobs)
    assert py.summary["check"]["ok"] and py.summary["policy"] == "py-" + cpp_policy


def test_fair_in_python_decides_between_users():
    """default.json has four users of weights 0.5 to 2, where fair is not fifo: the
    Python fair is asked among several users' jobs, and its choices are the ones that count."""
    seen = {"decisions": 0, "users": 0}

    class Watched(weft.Fair):
        def choose(self, obs):
            rows = int(obs["mask"].sum())
            seen["decisions"] += 1
            seen["users"] = max(seen["users"], len(set(obs["users"][:rows, 0])))
            return super().choose(obs)

    class FirstRow(weft.JobOrderPolicy):
        offers = "per-machine"

        def choose(self, obs):
            return 0

    weft.register_policy("py-fair-watched", Watched)
    weft.register_policy("py-first-row", FirstRow)
    workload = str(ROOT / "examples" / "default.json")
    fair = weft.simulate(workload=workload, policy="py-fair-watched")
    assert seen["decisions"] > 1000 and seen["users"] >= 3
    assert fair.summary["avg_jct"] != weft.simulate(workload=workload, policy="fifo").summary["avg_jct"]
    first = weft.simulate(workload=workload, policy="py-first-row")
    assert not first.tasks.equals(fair.tasks)  # the Python choice, not the mechanism, makes fair's schedule


def test_an_unknown_way_of_offering_is_an_error():
    class Odd(weft.JobOrderPolicy):
        offers = "round-robin"

    with pytest.raises(ValueError, match="round-robin"):
        weft.register_policy("py-odd", Odd)


def test_registered_policies_are_listed_and_compared():
    assert any(p["name"] == "py-fifo" for p in weft.policies())
    c = weft.compare(workload=TPCH, policies=["fifo", "py-fifo"], threads=1)
    assert c.avg_jct.iloc[0] == c.avg_jct.iloc[1]


class Last(weft.JobOrderPolicy):
    def __init__(self, offset=0):
        self.offset = offset

    def choose(self, obs):
        return int(obs["mask"].sum()) - 1 - self.offset


def test_parameters_reach_the_policy_object():
    weft.register_policy("py-last", Last, params={"offset": 0})
    r = weft.simulate(workload=TPCH, policy="py-last", params={"offset": 1})
    assert r.summary["params"]["offset"] == "1"
    with pytest.raises(ValueError, match="offset"):
        weft.simulate(workload=TPCH, policy="py-last", params={"offset": "x"})


def test_a_policy_that_raises_fails_the_run_with_its_error():
    class Broken(weft.JobOrderPolicy):
        def choose(self, obs):
            raise KeyError("no idea")

    weft.register_policy("py-broken", Broken)
    with pytest.raises(RuntimeError, match="py-broken.*no idea"):
        weft.simulate(workload=TPCH, policy="py-broken")
    weft.register_policy("py-broken", lambda: Last(offset=-5))  # returns a row past the candidates: taken modulo
    assert weft.simulate(workload=TPCH, policy="py-broken").ok


def test_a_negative_row_is_an_error():
    class Negative(weft.JobOrderPolicy):
        def choose(self, obs):
            return -1

    weft.register_policy("py-negative", Negative)
    with pytest.raises(RuntimeError, match="-1"):
        weft.simulate(workload=TPCH, policy="py-negative")


def test_a_builtin_name_cannot_be_taken():
    with pytest.raises(ValueError, match="built-in"):
        weft.register_policy("fifo", weft.Fifo)
