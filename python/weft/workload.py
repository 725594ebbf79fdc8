"""weft.Workload: a workload built from Python objects or DataFrames, in weft's JSON format.

A Workload is the JSON document (docs/workload-format.md) as plain dicts and
lists; every constructor checks it with the engine's own reader, so a bad
field raises weft.WorkloadError with the message `weft validate` prints.
"""
import json
import math

import pandas as pd

from . import _weft

_RESOURCES = ("cpu", "mem", "disk", "net")


def machines(count, cpu, mem, disk=0, net=0, name="m", rack_size=None):
    """A cluster of `count` identical machines, as the "cluster" object."""
    group = {"name": name, "count": int(count), "capacity": {"cpu": cpu, "mem": mem, "disk": disk, "net": net}}
    if rack_size is not None:
        group["rack_size"] = int(rack_size)
    return {"machines": [group]}


def _plain(value):
    """numpy and pandas scalars as Python ones, so that json can write them."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        return value.item()
    return value


def _present(row, key):
    if key not in row:
        return False
    value = row[key]
    if isinstance(value, (list, tuple, dict)):
        return True
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _resources(row, prefix=""):
    out = {r: _plain(row[prefix + r]) for r in _RESOURCES if _present(row, prefix + r) and row[prefix + r] != 0}
    return out


def _parents(value):
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    return []


def _stage_jobs(stages):
    """The job objects of from_stages's rows, unchecked."""
    frame = stages if isinstance(stages, pd.DataFrame) else pd.DataFrame(list(stages))
    for column in ("job", "stage", "tasks"):
        if column not in frame.columns:
            raise _weft.WorkloadError(f"stages: no column \"{column}\"")
    jobs = {}
    for row in frame.to_dict("records"):
        job = jobs.get(row["job"])
        if job is None:
            job = {"name": str(row["job"]), "stages": []}
            for key in ("arrival", "user", "priority", "weight", "deadline"):
                if _present(row, key):
                    job[key] = _plain(row[key])
            jobs[row["job"]] = job
        stage = {"name": str(row["stage"]), "tasks": _plain(row["tasks"])}
        if _present(row, "duration"):
            stage["duration"] = _plain(row["duration"])
        demand = _resources(row)
        if demand:
            stage["demand"] = demand
        usage = _resources(row, "usage_")
        if usage:
            stage["usage"] = usage
        if _present(row, "after") and _parents(row["after"]):
            stage["after"] = _parents(row["after"])
        job["stages"].append(stage)
    return list(jobs.values())


class Workload:
    """A checked workload: .doc is its JSON document (a dict)."""

    def __init__(self, cluster, jobs=()):
        """cluster: the "cluster" object (see weft.workload.machines); jobs: a list of job objects."""
        self.doc = {"weft": 1, "cluster": cluster, "jobs": list(jobs)}
        self._text = json.dumps(self.doc, default=_plain)
        _weft._validate(self._text)

    @classmethod
    def read(cls, path):
        """A workload file, checked."""
        with open(path) as f:
            doc = json.load(f)
        if not isinstance(doc, dict):
            raise _weft.WorkloadError(f"{path}: the document is not an object")
        w = cls.__new__(cls)
        w.doc = doc
        w._text = json.dumps(doc)
        _weft._validate(w._text)
        return w

    @classmethod
    def from_stages(cls, stages, cluster):
        """One row per stage: columns job, stage, tasks, duration, and optionally
        cpu, mem, disk, net (the demand), usage_cpu.. (the usage), after (parent
        stages, a list or "a,b"), and the job's arrival, user, priority, weight,
        deadline (read from its first row). Jobs and stages keep the rows' order."""
        return cls(cluster, _stage_jobs(stages))

    @classmethod
    def from_tasks(cls, tasks, cluster):
        """One row per task: columns job, stage, duration, and optionally cpu, mem,
        disk, net, after, and the job's arrival, user, ... as from_stages. The tasks
        of a stage become its `tasks` count with per-task `durations` (and `demands`
        when they differ), in the rows' order."""
        frame = tasks if isinstance(tasks, pd.DataFrame) else pd.DataFrame(list(tasks))
        for column in ("job", "stage", "duration"):
            if column not in frame.columns:
                raise _weft.WorkloadError(f"tasks: no column \"{column}\"")
        rows = []
        for (job, stage), group in frame.groupby(["job", "stage"], sort=False):
            records = group.to_dict("records")
            first = dict(records[0])
            first["tasks"] = len(records)
            first.pop("duration")
            rows.append((first, [_plain(r["duration"]) for r in records], [_resources(r) for r in records]))
        jobs = _stage_jobs(pd.DataFrame([r[0] for r in rows]))
        by_name = {(j["name"], s["name"]): s for j in jobs for s in j["stages"]}
        for first, durations, demands in rows:
            stage = by_name[(str(first["job"]), str(first["stage"]))]
            stage["duration"] = durations[0]  # required by the format; `durations` overrides it per task
            stage["durations"] = durations
            if any(d != demands[0] for d in demands):
                stage.pop("demand", None)
                stage["demands"] = demands
        return cls(cluster, jobs)

    def to_json(self):
        """The workload as weft JSON text."""
        return self._text

    def write(self, path):
        """Write the workload as a weft JSON file (`weft sim -w PATH` reads it)."""
        with open(path, "w") as f:
            f.write(json.dumps(self.doc, indent=1, default=_plain))
            f.write("\n")

    @property
    def jobs(self):
        return self.doc["jobs"]

    def __repr__(self):
        return f"<weft.Workload {len(self.doc['jobs'])} jobs>"


def read_trace(format, paths, window=None, sample=1.0, seed=1, machines=0, scale_arrivals=1.0):
    """A trace read by weft's native reader (docs/traces.md) as a Workload, as
    `weft trace convert FORMAT:PATHS` with --window START:END, --sample,
    --seed, --machines and --scale-arrivals. paths: a path or a list of them
    (the format's table files)."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    start, end = (0.0, math.inf) if window is None else window
    start = 0.0 if start is None else float(start)
    end = math.inf if end is None else float(end)
    text = _weft._read_trace(f"{format}:" + ",".join(str(p) for p in paths), start, end, float(sample), int(seed),
                             int(machines), float(scale_arrivals))
    doc = json.loads(text)
    return Workload(doc["cluster"], doc["jobs"])
