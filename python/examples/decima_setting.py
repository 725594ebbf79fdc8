"""Speed of weft's environment in Decima's streaming setting, and the cost of a Python decision.

    weft trace convert decima-tpch:DIR --seed 1 -o decima.json
    PYTHONPATH=build/python /usr/bin/python3 python/examples/decima_setting.py decima.json [--seeds 10]

Decima's setting (../shared/peers/decima/README.md): 50 executors, TPC-H jobs drawn uniformly from its
22 queries x 7 sizes, 1 job at 0 and 50 more arriving as a Poisson process of mean 25 s. Here: 50
machines of 1 core, the same draw of jobs from decima-tpch (task durations drawn by the trace
reader's seed), the job-order environment driven by a Python agent (weft.DynamicPartition, Decima's
heuristic as far as the job-order role can say it, or weft.Fifo), one episode per seed; and the time
a Python decision costs (the Python fifo against the C++ fifo on the same workload, whose schedules
are checked equal). Prints one line per seed and a summary; nothing is tuned.
"""
import argparse
import json
import time

import numpy as np

import weft


def decima_workload(jobs, seed, stream=50, mean_gap_s=25.0, executors=50):
    rng = np.random.default_rng(seed)
    picked = []
    arrival = 0.0
    for i in range(1 + stream):
        job = dict(jobs[rng.integers(len(jobs))])
        job["name"] = f"{job['name']}-{i}"
        job["arrival"] = round(arrival, 6)
        picked.append(job)
        arrival += rng.exponential(mean_gap_s)
    cluster = {"machines": [{"name": "e", "count": executors, "capacity": {"cpu": 1, "mem": 1}}]}
    return weft.Workload(cluster, picked)


def episode(env, seed, agent):
    t0 = time.perf_counter()
    obs, info = env.reset(seed=seed)
    t1 = time.perf_counter()
    steps, done = 0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.choose(obs))
        steps += 1
        done = terminated or truncated
    t2 = time.perf_counter()
    jobs = env.episode()["jobs"]
    tasks = len(env.episode()["tasks"])
    return {"reset_s": t1 - t0, "loop_s": t2 - t1, "steps": steps, "tasks": tasks, "jobs": len(jobs),
            "avg_jct": float(jobs.jct.mean())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace_json", help="decima-tpch converted by weft trace convert")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--agent", choices=["dynamic-partition", "fifo"], default="dynamic-partition")
    args = ap.parse_args()
    jobs = json.load(open(args.trace_json))["jobs"]
    weft.register_policy("py-fifo", weft.Fifo)
    rows = []
    for seed in range(args.seeds):
        w = decima_workload(jobs, seed)
        env = weft.env.SchedulingEnv(workload=w, seed=1)
        agent = weft.DynamicPartition(executors=50) if args.agent == "dynamic-partition" else weft.Fifo()
        r = episode(env, 1, agent)
        cpp = weft.simulate(workload=w, policy="fifo", check=False)
        py = weft.simulate(workload=w, policy="py-fifo", check=False)
        assert py.tasks.equals(cpp.tasks), "the Python fifo must schedule as the C++ fifo"
        r["cpp_fifo_wall_s"] = cpp.summary["wall_seconds"]
        r["py_fifo_wall_s"] = py.summary["wall_seconds"]
        # The fifo schedule's decisions: the environment's steps under the Python fifo.
        decisions = r["steps"] if args.agent == "fifo" else episode(env, 1, weft.Fifo())["steps"]
        r["fifo_decisions"] = decisions
        r["us_per_python_decision"] = 1e6 * (r["py_fifo_wall_s"] - r["cpp_fifo_wall_s"]) / decisions
        rows.append(r)
        print(json.dumps({"seed": seed, **{k: round(v, 6) if isinstance(v, float) else v for k, v in r.items()}}))
    total = {k: sum(r[k] for r in rows) for k in ("reset_s", "loop_s", "steps", "tasks", "jobs")}
    print(f"episodes {len(rows)} ({args.agent}): {total['steps'] / total['loop_s']:,.0f} steps/s, "
          f"{total['tasks'] / total['loop_s']:,.0f} tasks/s (episode loop, agent included), "
          f"reset {1e3 * total['reset_s'] / total['jobs']:.3f} ms/job, "
          f"mean JCT {np.mean([r['avg_jct'] for r in rows]):.1f} s "
          f"[{min(r['avg_jct'] for r in rows):.1f}-{max(r['avg_jct'] for r in rows):.1f}], "
          f"{np.median([r['us_per_python_decision'] for r in rows]):.1f} us per Python decision (median)")


if __name__ == "__main__":
    main()
