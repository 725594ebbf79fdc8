"""weft.env.SchedulingEnv: the Gym API contract, determinism by seed, and the engine under it."""
import numpy as np
import pandas as pd
import pytest

import weft
from conftest import ROOT, TPCH


def run_episode(env, seed, choose):
    obs, info = env.reset(seed=seed)
    trace, total, steps = [], 0.0, 0
    while True:
        action = choose(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((action, reward, obs["jobs"].copy(), obs["mask"].copy()))
        total += reward
        steps += 1
        if terminated or truncated:
            return trace, total, steps, info


def test_reset_and_step_follow_the_gym_api():
    env = weft.env.SchedulingEnv(workload=TPCH, seed=1)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert obs["jobs"].shape == (env.max_jobs, len(weft.env.JOB_FEATURES))
    assert obs["mask"].sum() >= 2  # asked only when there is a choice
    assert isinstance(info, dict)
    assert env.action_space.contains(env.action_space.sample())
    obs, reward, terminated, truncated, info = env.step(0)
    assert isinstance(reward, float) and reward <= 0
    assert truncated is False and isinstance(terminated, bool)
    env.close()


def test_random_episode_ends_with_every_job_done():
    env = weft.env.SchedulingEnv(workload=TPCH, seed=1)
    env.action_space.seed(7)
    _, total, steps, info = run_episode(env, 1, lambda obs: env.action_space.sample())
    jobs = len(weft.simulate(workload=TPCH).jobs)
    assert info["status"] == "ok" and info["jobs_done"] == jobs
    assert 0 < steps < 10_000 and total < 0
    with pytest.raises(RuntimeError):
        env.step(0)


def test_same_seed_and_actions_give_the_same_episode():
    env = weft.env.SchedulingEnv(workload=TPCH, seed=1)
    rng = np.random.default_rng(3)
    actions = rng.integers(0, env.max_jobs, size=100_000)
    pick = iter(actions)
    a = run_episode(env, 4, lambda obs: next(pick))
    pick = iter(actions)
    b = run_episode(env, 4, lambda obs: next(pick))
    assert a[1] == b[1] and a[2] == b[2]
    for x, y in zip(a[0], b[0]):
        assert x[0] == y[0] and x[1] == y[1]
        np.testing.assert_array_equal(x[2], y[2])


def test_always_the_oldest_job_is_fifo_and_the_return_is_minus_the_total_jct():
    # Serving the first candidate (arrival order) every time is fifo's order;
    # the reward integrates the jobs in the system, so the return is minus the sum of JCTs.
    for workload in (TPCH, str(ROOT / "examples" / "default.json")):
        env = weft.env.SchedulingEnv(workload=workload, seed=1)
        _, total, steps, _ = run_episode(env, 1, lambda obs: 0)
        fifo = weft.simulate(workload=workload, policy="fifo", check=False)
        pd.testing.assert_frame_equal(env.episode()["tasks"], fifo.tasks)
        assert -total == pytest.approx(fifo.jobs.jct.sum(), rel=1e-9)
        assert steps > 1


def test_episode_is_none_until_one_ends():
    env = weft.env.SchedulingEnv(workload=TPCH, seed=1)
    assert env.episode() is None
    env.reset(seed=1)
    env.step(0)
    assert env.episode() is None


def test_dynamic_partition_runs_as_an_agent():
    env = weft.env.SchedulingEnv(workload=TPCH, seed=1)
    agent = weft.DynamicPartition(executors=160)
    _, total, _, info = run_episode(env, 1, agent.choose)
    assert info["status"] == "ok" and total < 0


def test_a_reset_mid_episode_starts_over():
    env = weft.env.SchedulingEnv(workload=TPCH, seed=1)
    first, _ = env.reset(seed=2)
    for _ in range(3):
        env.step(1)
    again, _ = env.reset(seed=2)
    np.testing.assert_array_equal(first["jobs"], again["jobs"])


def test_unknown_role_and_bad_workload_raise(tmp_path):
    with pytest.raises(NotImplementedError):
        weft.env.SchedulingEnv(workload=TPCH, policy_role="decima")
    with pytest.raises(weft.WorkloadError):
        weft.env.SchedulingEnv(workload=str(tmp_path / "missing.json"))
    env = weft.env.SchedulingEnv(workload=TPCH)
    with pytest.raises(RuntimeError):
        env.step(0)  # before reset


def test_the_vectorized_form_steps_as_separate_environments_and_restarts_ended_ones():
    vec = weft.env.VecSchedulingEnv(2, workload=TPCH, seed=1)
    obs, infos = vec.reset(seed=5)
    assert obs["jobs"].shape == (2, vec.max_jobs, len(weft.env.JOB_FEATURES))
    singles = [weft.env.SchedulingEnv(workload=TPCH) for _ in range(2)]
    single_obs = [env.reset(seed=5 + i)[0] for i, env in enumerate(singles)]
    for i in range(2):
        np.testing.assert_array_equal(obs["jobs"][i], single_obs[i]["jobs"])
    returns, ended = np.zeros(2), [None, None]
    for _ in range(10_000):
        obs, reward, terminated, truncated, infos = vec.step([1, 0])
        returns += reward
        for i in range(2):
            if terminated[i] and ended[i] is None:
                ended[i] = returns[i]
                assert "final_info" in infos[i] and infos[i]["final_info"]["status"] == "ok"
                assert obs["mask"][i].sum() >= 2  # the next episode's first decision
        if all(e is not None for e in ended):
            break
    expected = [run_episode(env, 5 + i, lambda o, a=a: a)[1] for i, (env, a) in enumerate(zip(singles, [1, 0]))]
    assert ended == pytest.approx(expected, rel=1e-12)
    vec.close()
