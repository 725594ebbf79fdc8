"""Scheduling policies written in Python (the job-order role; docs/python.md)."""
from . import _weft
from .env import JOB_FEATURES

_PRIORITY = JOB_FEATURES.index("priority")
_WAIT = JOB_FEATURES.index("wait_seconds")


class JobOrderPolicy:
    """A policy in the job-order role: at each decision point, choose(obs) returns
    the row (in obs["jobs"], candidates marked in obs["mask"]) of the job to serve;
    the engine places that job's ready stage first fit. obs is the environment's
    observation (weft.env.SchedulingEnv). No I/O and no clock: a policy sees the
    run through obs only, so it runs alike in weft.simulate and in the environment."""

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


def register_policy(name, policy, params=None, description="", max_jobs=16):
    """Register `policy` (a JobOrderPolicy subclass, or any callable returning an
    object with choose(obs)) under `name`, for weft.simulate and weft.compare.

    params: {name: default} (bool, int or float); each run makes policy(**values)
    with the run's values (checked as a built-in policy's parameters are).
    max_jobs: the rows of the observation. Registering a name again replaces it.
    """
    _weft._register_policy(str(name), str(description), policy, dict(params or {}), int(max_jobs))
