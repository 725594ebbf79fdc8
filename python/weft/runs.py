"""weft.simulate, weft.compare and weft.sweep: the command line's `weft sim`, `weft compare` and `weft sweep`."""
import itertools
import json
import multiprocessing
import os

import pandas as pd

from . import _weft
from ._frames import frame
from ._inputs import input_args, param_strings, run_spec


class SimulationError(RuntimeError):
    """A run that did not complete (the policy stalled) or failed the schedule check.

    `result` holds what the run recorded, as `weft sim` writes its results either way.
    """

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


class SimulationResult:
    """One run: .tasks, .jobs, .phases, .timeline (DataFrames with the columns of
    tasks.csv, jobs.csv, phases.csv and timeline.csv) and .summary (summary.json as a dict)."""

    def __init__(self, raw):
        self.summary = json.loads(raw["summary_json"])
        self.status = raw["status"] or "ok"
        self.tasks = frame(raw["tasks"])
        self.jobs = frame(raw["jobs"])
        self.phases = frame(raw["phases"])
        self.timeline = frame(raw["timeline"])

    @property
    def ok(self):
        return self.status == "ok"

    def __repr__(self):
        s = self.summary
        return (f"<weft.SimulationResult policy={s.get('policy')} jobs={len(self.jobs)} "
                f"avg_jct={s.get('avg_jct')} status={self.status}>")


def simulate(workload=None, trace=None, policy="fifo", params=None, seed=1, model="fixed", profile=None,
             check=True, latency=0.0, max_attempts=4, task_failures=0.0, timeline_step=1.0):
    """Simulate one run, as `weft sim` does with the same flags (and its defaults).

    workload: a workload file, or a weft.Workload; trace: "FORMAT:PATH[,...]"
    instead; neither: the bundled default workload. params: {name: value}.
    profile: the machine profile (`--profile FILE`): a path, or the file's content
    as a dict (docs/model.md, "The machine profile").
    Raises weft.WorkloadError for bad workload input (the message names the
    field), ValueError for other bad input (unknown policy or parameter),
    SimulationError if the run stalled or its schedule failed the check.
    """
    spec = run_spec(policy, params, seed, model, check, latency, max_attempts, task_failures, timeline_step, profile)
    raw = _weft._simulate(*input_args(workload, trace), spec)
    result = SimulationResult(raw)
    if not result.ok:
        raise SimulationError(result.status, result)
    return result


# `weft compare --csv`'s columns, in its order (cli/compare_command.cc).
_COMPARE_NUMBERS = ["avg_jct", "median_jct", "p95_jct", "makespan", "cpu_util", "mem_util", "delay_mean",
                    "delay_p95", "jobs_failed", "wall_seconds", "check_ok", "makespan_lb", "makespan_ratio",
                    "median_job_ratio", "p95_job_ratio", "cpu_used", "mem_used"]


def _clairvoyance(summary):
    """As the command line says it (cli/policy_traits.cc)."""
    return {"clairvoyant": "yes", "semi-clairvoyant": "semi", "non-clairvoyant": "no"}.get(
        summary.get("knowledge"), "?")


def _over_commits(summary):
    resources = summary.get("overbooked_resources")
    if not isinstance(resources, list):
        return "?"
    if not resources:
        return "none"
    return "all" if len(resources) == 4 else ",".join(resources)


def _policy_params(policy, params):
    """The k=v strings for `policy`: {"k": v} applies to every policy, {"POLICY:k": v} to one."""
    if params is None:
        return []
    own = {}
    for key, value in params.items():
        name, sep, rest = key.partition(":")
        if not sep:
            own[key] = value
        elif name == policy:
            own[rest] = value
    return param_strings(own)


def compare(workload=None, trace=None, policies=("fifo",), params=None, seeds=(1,), model="fixed", check=True,
            latency=0.0, max_attempts=4, task_failures=0.0, threads=None, seed=None, profile=None):
    """Simulate a workload under several policies (and seeds), as `weft compare`.

    Returns one tidy DataFrame, a row per (policy, seed): policy, params, seed,
    then `weft compare --csv`'s columns (avg_jct, median_jct, ...). The runs go
    on `threads` threads (default: every core this process may use) with the
    GIL released. policies: a list of names, a comma-separated string, or "all".
    """
    if isinstance(policies, str):
        policies = [p["name"] for p in _weft._policies()] if policies == "all" else policies.split(",")
    if seed is not None:
        seeds = (seed,)
    if isinstance(seeds, int):
        seeds = (seeds,)
    runs = [(policy, _policy_params(policy, params), {}, s) for policy in policies for s in seeds]
    return _run_table(workload, trace, runs, model, check, latency, max_attempts, task_failures, threads, profile)


def sweep(workload=None, trace=None, policies=("fifo",), params=None, seeds=(1,), model="fixed", check=True,
          latency=0.0, max_attempts=4, task_failures=0.0, threads=None, profile=None):
    """Simulate every combination of policies x parameter values x seeds, as `weft sweep`.

    params: {name: [values]} for every policy, or {"POLICY:name": [values]} for one;
    a single value is a list of one. Returns compare's tidy DataFrame with one more
    column per swept parameter (its value, or None for a policy it does not apply to).
    """
    if isinstance(policies, str):
        policies = policies.split(",")
    if isinstance(seeds, int):
        seeds = (seeds,)
    params = params or {}
    names = sorted({key.partition(":")[2] or key for key in params})
    runs = []
    for policy in policies:
        grid = {}
        for key, values in params.items():
            owner, sep, name = key.partition(":")
            if sep and owner != policy:
                continue
            grid[name if sep else key] = list(values) if isinstance(values, (list, tuple, range)) else [values]
        for combo in itertools.product(*grid.values()):
            chosen = dict(zip(grid.keys(), combo))
            for s in seeds:
                runs.append((policy, param_strings(chosen), {n: chosen.get(n) for n in names}, s))
    return _run_table(workload, trace, runs, model, check, latency, max_attempts, task_failures, threads, profile)


def _run_table(workload, trace, runs, model, check, latency, max_attempts, task_failures, threads, profile):
    """One row per (policy, k=v strings, extra columns, seed) run, on threads."""
    rows, specs = [], []
    for policy, own, columns, s in runs:
        specs.append(run_spec(policy, own, s, model, check, latency, max_attempts, task_failures, 1.0, profile))
        rows.append({"policy": policy, "params": " ".join(own), "seed": s, **columns})
    if threads is None:
        threads = len(os.sched_getaffinity(0))
    results = _run_all(input_args(workload, trace), specs, [run[0] for run in runs], int(threads))
    for row, raw in zip(rows, results):
        summary = json.loads(raw["summary_json"])
        row.update({name: raw[name] for name in _COMPARE_NUMBERS})
        row["clairvoyant"] = _clairvoyance(summary)
        row["over_commits"] = _over_commits(summary)
        row["status"] = raw["status"] or "ok"
    return pd.DataFrame(rows)


# What the forked processes of _run_all run: (inputs, specs), set before the fork.
_FORKED = None


def _run_forked(i):
    inputs, specs, input_seed = _FORKED
    return _weft._compare(*inputs, [specs[i]], 1, input_seed)[0]


def _run_all(inputs, specs, policies, threads):
    """Every run's raw result, in spec order. Runs of C++ policies go on `threads`
    threads with the GIL released. Runs of policies written in Python would take
    turns holding the GIL there, so with more than one of them and more than one
    thread they go to `threads` processes, forked after the threads have ended:
    a forked process inherits the registered policies, whatever they are (classes
    defined in a function, lambdas), where a fresh process would need to import them."""
    global _FORKED
    in_python = {p["name"] for p in _weft._python_policies()}
    forked = [i for i, policy in enumerate(policies) if policy in in_python]
    if len(forked) < 2 or threads < 2:
        forked = []
    on_threads = [i for i in range(len(specs)) if i not in set(forked)]
    results = [None] * len(specs)
    input_seed = specs[0].seed if specs else None  # a trace is read with the first run's seed, as one comparison
    if on_threads:
        raws = _weft._compare(*inputs, [specs[i] for i in on_threads], threads, input_seed)
        for i, raw in zip(on_threads, raws):
            results[i] = raw
    if forked:
        _FORKED = (inputs, [specs[i] for i in forked], input_seed)
        try:
            with multiprocessing.get_context("fork").Pool(min(threads, len(forked))) as pool:
                raws = pool.map(_run_forked, range(len(forked)), chunksize=1)
        finally:
            _FORKED = None
        for i, raw in zip(forked, raws):
            results[i] = raw
    return results
