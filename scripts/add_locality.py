#!/usr/bin/env python3
"""Adds input locations and a locality cost to a weft workload (docs/reproductions/cobra.md).

Traces without input locations (the Google 2011 sample) get, for every task, the 3 machines holding
its input, placed as HDFS's default policy does (as `weft gen mapreduce` does): the first on a random
machine, the other two on distinct machines of one other random rack. The cluster must be one group
of machines named <name>0..<name>N-1 in racks of rack_size (as scripts/cobra_workload.py writes it).
The cluster's "locality_cost" becomes the factors given; the tasks give no input_mb, so a task's whole
duration is its read part (docs/workload-format.md, "locality_cost"): a rack-local task runs
RACK_FACTOR times, a remote one REMOTE_FACTOR times, as long. Seeded: one seed, one file.
Usage: add_locality.py IN.json OUT.json RACK_FACTOR REMOTE_FACTOR [SEED]
"""
import json
import random
import sys

from cobra_workload import write_json


def replicas(rng, machines, rack_size):
    racks = (machines + rack_size - 1) // rack_size
    first = rng.randrange(machines)
    rack = first // rack_size
    if racks > 1:
        rack = (rack + 1 + rng.randrange(racks - 1)) % racks
    begin = rack * rack_size
    size = min(machines, begin + rack_size) - begin
    out = [first]
    want = min(3, size + (1 if racks > 1 else 0))
    while len(out) < want:
        m = begin + rng.randrange(size)
        if m not in out:
            out.append(m)
    return out


def main():
    if len(sys.argv) not in (5, 6):
        sys.stderr.write("usage: add_locality.py IN.json OUT.json RACK_FACTOR REMOTE_FACTOR [SEED]\n")
        return 2
    try:
        with open(sys.argv[1]) as f:
            w = json.load(f)
        (group,) = w["cluster"]["machines"]
        name, count, rack_size = group["name"], group["count"], group.get("rack_size", group["count"])
        rack_factor, remote_factor = float(sys.argv[3]), float(sys.argv[4])
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write(f"add_locality: {sys.argv[1]}: {e}\n")
        return 2
    rng = random.Random(int(sys.argv[5]) if len(sys.argv) == 6 else 1)
    for job in w["jobs"]:
        for stage in job["stages"]:
            stage["locality"] = [[f"{name}{m}" for m in replicas(rng, count, rack_size)]
                                 for _ in range(stage["tasks"])]
    w["cluster"]["locality_cost"] = {"rack_factor": rack_factor, "remote_factor": remote_factor}
    write_json(sys.argv[2], w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
