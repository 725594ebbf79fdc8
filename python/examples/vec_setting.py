"""Total steps per second of weft.env.VecSchedulingEnv in Decima's streaming setting.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/vec_setting.py decima.json [--envs 1,2,4]

The workload is decima_setting.py's (seed 0); the agent is Decima's dynamic-partition heuristic
written once for all environments with numpy over the leading axis, so the Python side costs the
same per call whatever the number of environments. Runs until 4 episodes have ended.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import weft

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decima_setting import decima_workload  # noqa: E402

RUNNING = weft.env.JOB_FEATURES.index("running_tasks")
JOBS_IN_SYSTEM = weft.env.CLUSTER_FEATURES.index("jobs_in_system")


def batched_dynamic_partition(obs, executors=50):
    """weft.DynamicPartition's choice for every environment at once."""
    running = np.where(obs["mask"] == 1, obs["jobs"][:, :, RUNNING], np.inf)
    cap = np.ceil(executors / np.maximum(1, obs["cluster"][:, JOBS_IN_SYSTEM]))[:, None]
    below = running < cap
    return np.where(below.any(axis=1), below.argmax(axis=1), running.argmin(axis=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace_json")
    ap.add_argument("--envs", default="1,2,4")
    args = ap.parse_args()
    workload = decima_workload(json.load(open(args.trace_json))["jobs"], 0)
    for n in (int(x) for x in args.envs.split(",")):
        vec = weft.env.VecSchedulingEnv(n, workload=workload, seed=1)
        obs, _ = vec.reset(seed=1)
        start, steps, episodes = time.perf_counter(), 0, 0
        while episodes < 4:
            obs, _, terminated, _, _ = vec.step(batched_dynamic_partition(obs))
            steps += n
            episodes += int(terminated.sum())
        elapsed = time.perf_counter() - start
        print(f"{n} environments: {steps / elapsed:,.0f} steps/s in total")
        vec.close()


if __name__ == "__main__":
    main()
