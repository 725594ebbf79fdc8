"""The arguments every run takes: where its jobs come from, and its parameters."""
import json
import os

from . import _weft


def input_args(workload, trace):
    """(workload_path, workload_json, trace) for the extension module.

    workload: a path (str or os.PathLike), or an object with a to_json() method
    (weft.Workload); None with no trace is the bundled default workload.
    trace: "FORMAT:PATH[,PATH...]", as `weft sim --trace`.
    """
    if workload is not None and trace is not None:
        raise ValueError("give workload or trace, not both")
    if trace is not None:
        return "", "", str(trace)
    if workload is None:
        return "", "", ""
    if hasattr(workload, "to_json"):
        return "", workload.to_json(), ""
    if isinstance(workload, (str, os.PathLike)):
        return os.fspath(workload), "", ""
    raise TypeError(f"workload: a path or a weft.Workload, not {type(workload).__name__}")


def param_strings(params):
    """A policy's parameters as the command line's k=v strings."""
    if params is None:
        return []
    if isinstance(params, (list, tuple)):
        return [str(p) for p in params]
    out = []
    for key, value in params.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        out.append(f"{key}={value}")
    return out


def run_spec(policy, params, seed, model, check, latency, max_attempts, task_failures, timeline_step, profile=None):
    """The run's flags, checked by the engine as `weft sim` checks them.

    profile: the machine profile, as `--profile FILE`: a path (str or os.PathLike),
    or the file's content as a dict; None: none."""
    if not isinstance(policy, str):
        raise TypeError(f"policy: a name (str), not {type(policy).__name__}")
    spec = _weft.RunSpec()
    spec.policy = policy
    spec.params = param_strings(params)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed: {seed!r} is not a non-negative integer")
    spec.seed = seed
    spec.model = model
    spec.check = bool(check)
    spec.latency = float(latency)
    spec.max_attempts = int(max_attempts)
    spec.task_failures = float(task_failures)
    spec.timeline_step = float(timeline_step)
    if isinstance(profile, dict):
        spec.profile_json = json.dumps(profile)
    elif isinstance(profile, (str, os.PathLike)):
        spec.profile_path = os.fspath(profile)
    elif profile is not None:
        raise TypeError(f"profile: a path or a dict, not {type(profile).__name__}")
    return spec
