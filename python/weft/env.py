"""weft.env: a Gym-style scheduling environment on weft's engine.

    env = weft.env.SchedulingEnv(workload="examples/tpch-small.json", seed=1)
    obs, info = env.reset(seed=1)
    while True:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample(mask=obs["mask"]))
        if terminated or truncated:
            break

The engine runs in C++ between decisions (src/python/env_session.h); the
agent is asked only when there is a choice: two or more jobs have a ready
stage whose task fits on a machine now. The action picks which job is served
(its first ready stage gets as many tasks as fit, first fit). docs/python.md
describes the observation, the reward and the wrapper that makes this a
gymnasium.Env.
"""
import numpy as np

from . import _weft
from ._frames import frame
from ._inputs import input_args
from .spaces import Box, Dict, Discrete

JOB_FEATURES = ["ready_tasks", "remaining_tasks", "wait_seconds", "demand_cpu", "demand_mem", "estimated_seconds",
                "stage_index", "job_stages", "priority", "running_tasks"]
CLUSTER_FEATURES = ["now_seconds", "jobs_in_system", "free_cpu_fraction", "candidates"]
POLICY_ROLES = ("job-order",)
__all__ = ["SchedulingEnv", "VecSchedulingEnv", "JOB_FEATURES", "CLUSTER_FEATURES"]


class SchedulingEnv:
    """Episodes of one workload (or trace), each a whole simulated run.

    observation: {"jobs": float32 (max_jobs, 10) a row per candidate job in
    fifo's order, priority then arrival (JOB_FEATURES), "mask": int8 (max_jobs,) 1 for the rows that
    are candidates, "cluster": float64 (4,) (CLUSTER_FEATURES)}.
    action: Discrete(max_jobs), the row of the job to serve; an action past
    the candidates is taken modulo their number.
    reward: minus the jobs in the system times the simulated seconds since
    the previous decision (Decima's), so the return is minus the total JCT
    from the first decision on.
    terminated: every job has ended; truncated is always False.
    """

    metadata = {"render_modes": []}

    def __init__(self, workload=None, seed=1, policy_role="job-order", trace=None, max_jobs=16, model="fixed"):
        if policy_role not in POLICY_ROLES:
            raise NotImplementedError(f"policy_role {policy_role!r}: only {', '.join(POLICY_ROLES)} is built so far")
        if int(_weft.JOB_FEATURES) != len(JOB_FEATURES) or int(_weft.CLUSTER_FEATURES) != len(CLUSTER_FEATURES):
            raise RuntimeError("the weft module and its Python files are from different builds")
        self.max_jobs = int(max_jobs)
        self._seed = int(seed) if seed is not None else 1
        self._session = _weft._EnvSession(*input_args(workload, trace), self._seed, self.max_jobs, model)
        self.observation_space = Dict({
            "jobs": Box(-np.inf, np.inf, (self.max_jobs, len(JOB_FEATURES)), np.float32),  # priorities may be < 0
            "mask": Box(0, 1, (self.max_jobs,), np.int8),
            "cluster": Box(0, np.inf, (len(CLUSTER_FEATURES),), np.float64),
        })
        self.action_space = Discrete(self.max_jobs)
        self._episode_seed = None
        self._done = True

    def reset(self, seed=None, options=None):
        """Start an episode (ending the one under way). seed: the run's seed;
        None: the constructor's on the first reset, then one more each time."""
        if seed is not None:
            self._episode_seed = int(seed)
            self.action_space.seed(int(seed))
        elif self._episode_seed is None:
            self._episode_seed = self._seed
        else:
            self._episode_seed += 1
        obs, _, terminated, info = self._session.reset(self._episode_seed)
        self._done = terminated
        return obs, info

    def step(self, action):
        if self._done:
            raise RuntimeError("step: the episode has ended (or never started); call reset()")
        action = int(action)
        if action < 0:
            raise ValueError(f"action {action}: must be >= 0")
        obs, reward, terminated, info = self._session.step(action)
        self._done = terminated
        return obs, reward, terminated, False, info

    def episode(self):
        """The last finished episode's schedule: {"tasks": DataFrame, "jobs": DataFrame},
        with the columns of weft.simulate's; None until an episode has ended."""
        raw = self._session.episode_frames()
        if raw is None:
            return None
        return {name: frame(columns) for name, columns in raw.items()}

    def close(self):
        self._session.close()
        self._done = True


class VecSchedulingEnv:
    """num_envs SchedulingEnvs of one workload stepped in one call, Gymnasium's
    vector API: every engine runs at once (a thread each) between the calls,
    so N environments use up to N cores. Observations are stacked (a leading
    axis of num_envs); an environment whose episode ends starts the next one
    at once (seed + num_envs), its last observation and info going to
    infos[i]["final_observation"] and ["final_info"]."""

    def __init__(self, num_envs, workload=None, seed=1, policy_role="job-order", trace=None, max_jobs=16,
                 model="fixed"):
        if policy_role not in POLICY_ROLES:
            raise NotImplementedError(f"policy_role {policy_role!r}: only {', '.join(POLICY_ROLES)} is built so far")
        self.num_envs = int(num_envs)
        self.max_jobs = int(max_jobs)
        self._seed = int(seed) if seed is not None else 1
        self._session = _weft._VecEnvSession(*input_args(workload, trace), self._seed, self.max_jobs, model,
                                             self.num_envs)
        self.single_observation_space = Dict({
            "jobs": Box(-np.inf, np.inf, (self.max_jobs, len(JOB_FEATURES)), np.float32),
            "mask": Box(0, 1, (self.max_jobs,), np.int8),
            "cluster": Box(0, np.inf, (len(CLUSTER_FEATURES),), np.float64),
        })
        self.single_action_space = Discrete(self.max_jobs)
        self._seeds = None

    def _stack(self, observations):
        return {key: np.stack([o[key] for o in observations]) for key in ("jobs", "mask", "cluster")}

    def reset(self, seed=None, options=None):
        base = self._seed if seed is None else int(seed)
        self._seeds = [base + i for i in range(self.num_envs)]
        outs = self._session.reset(self._seeds)
        return self._stack([o[0] for o in outs]), [o[3] for o in outs]

    def step(self, actions):
        if self._seeds is None:
            raise RuntimeError("step: call reset() first")
        actions = [int(a) for a in np.asarray(actions).reshape(-1)]
        if len(actions) != self.num_envs or min(actions) < 0:
            raise ValueError(f"step: {self.num_envs} actions >= 0, one per environment")
        next_seeds = [s + self.num_envs for s in self._seeds]
        results = self._session.step(actions, next_seeds)
        observations, rewards, terminated, infos = [], [], [], []
        for i, (out, restarted) in enumerate(results):
            obs, reward, done, info = out
            if restarted is not None:
                info = {"final_observation": obs, "final_info": info, **restarted[3]}
                obs = restarted[0]
                self._seeds[i] = next_seeds[i]
            observations.append(obs)
            rewards.append(reward)
            terminated.append(done)
            infos.append(info)
        return (self._stack(observations), np.array(rewards), np.array(terminated),
                np.zeros(self.num_envs, dtype=bool), infos)

    def close(self):
        self._session.close()
