"""Scheduling policies written in Python (the job-order role; docs/python.md)."""
import numpy as np

from . import _weft
from .env import JOB_FEATURES

USER_FEATURES = ("user", "cpu_held", "weight")  # obs["users"] columns, with offers="per-machine"
_USER, _CPU_HELD, _WEIGHT = range(3)

_PRIORITY = JOB_FEATURES.index("priority")
_WAIT = JOB_FEATURES.index("wait_seconds")
_RUNNING = JOB_FEATURES.index("running_tasks")
_JOBS_IN_SYSTEM = 1  # CLUSTER_FEATURES


class JobOrderPolicy:
    """A policy in the job-order role: at each decision point, choose(obs) returns
    the row (in obs["jobs"], candidates marked in obs["mask"]) of the job to serve;
    the engine places that job's ready stage first fit. obs is the environment's
    observation (weft.env.SchedulingEnv). No I/O and no clock: a policy sees the
    run through obs only, so it runs alike in weft.simulate and in the environment.

    offers: how the chosen job is served. "first-fit" (the default): its stage gets
    as many tasks as fit, first fit over the machines. "per-machine": machines are
    offered one at a time, as the Fair Scheduler answers a heartbeat; the candidates
    are the jobs whose first ready stage fits on that machine, the chosen one
    launches one task there, and obs["users"] gives each row's user (USER_FEATURES)."""

    offers = "first-fit"

    def choose(self, obs):
        raise NotImplementedError


class Fifo(JobOrderPolicy):
    """fifo in Python: higher priority first, then earlier arrival (the longest
    wait), ties to the earlier row (rows come in job order)."""

    def choose(self, obs):
        jobs = obs["jobs"]
        best = 0
        for row in range(1, int(obs["mask"].sum())):
            if (jobs[row, _PRIORITY], jobs[row, _WAIT]) > (jobs[best, _PRIORITY], jobs[best, _WAIT]):
                best = row
        return best


class Fair(JobOrderPolicy):
    """fair in Python (the Hadoop/YARN Fair Scheduler, as weft's C++ fair): each
    machine offered goes to the user with the lowest share (cores held / weight),
    ties to the lower user id, and to that user's first job in fifo's order."""

    offers = "per-machine"

    def choose(self, obs):
        users = obs["users"]
        best, best_key = 0, None
        for row in range(int(obs["mask"].sum())):
            key = (users[row, _CPU_HELD] / users[row, _WEIGHT], users[row, _USER])
            if best_key is None or key < best_key:  # strictly less: the user's first row wins
                best, best_key = row, key
        return best


class DynamicPartition(JobOrderPolicy):
    """Decima's dynamic-partition heuristic (its heuristic_agent.py) in the
    job-order role: each job may hold ceil(executors / jobs in the system)
    slots; the freed slot goes to the first job, in arrival order, below that
    cap. Departures, since the job-order role decides per slot and not per
    executor group: a freed executor does not first go back to its own job
    (the role does not say whose it was), executors move at no cost, and when
    every job is at its cap the slot goes to the job holding the fewest
    instead of staying idle."""

    def __init__(self, executors=50):
        self.executors = executors

    def choose(self, obs):
        running = obs["jobs"][:int(obs["mask"].sum()), _RUNNING]
        in_system = max(1.0, float(obs["cluster"][_JOBS_IN_SYSTEM]))
        cap = -(-self.executors // in_system)  # ceil
        below = np.flatnonzero(running < cap)
        return int(below[0]) if len(below) else int(running.argmin())  # argmin: the first of the least


def register_policy(name, policy, params=None, description="", max_jobs=16):
    """Register `policy` (a JobOrderPolicy subclass, or any callable returning an
    object with choose(obs)) under `name`, for weft.simulate and weft.compare.

    params: {name: default} (bool, int or float); each run makes policy(**values)
    with the run's values (checked as a built-in policy's parameters are).
    max_jobs: the rows of the observation. The policy's `offers` attribute (see
    JobOrderPolicy; "first-fit" when it has none) says how a chosen job is served.
    Registering a name again replaces it.
    """
    offers = str(getattr(policy, "offers", "first-fit"))
    _weft._register_policy(str(name), str(description), policy, dict(params or {}), int(max_jobs), offers)
