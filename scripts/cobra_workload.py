#!/usr/bin/env python3
"""COBRA section VII-A's simulated cluster around jobs from the Google 2011 sample.

Reads a weft workload converted by `weft trace convert google-2011:...` (demands in the trace's
normalized units: 1 = the cell's largest machine) and writes one for 100 machines of 8 cores, 16 GB,
50 GB disk and 1 Gb/s (125 MB/s), racks of 20: demands scaled to those machines (cpu x 8, mem x 16),
with a floor of 0.1 core and 0.1 GB (the trace has zero requests; a zero-demand task would pack
without limit into a container). Arrivals, durations and the job/stage structure are the trace's.
Usage: cobra_workload.py IN.json OUT.json
"""
import json
import os
import sys

CORES, MEM_GB = 8, 16


def write_json(path, doc):
    """Writes `doc` to `path` through a temporary file renamed into place (never half-written)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: cobra_workload.py IN.json OUT.json\n")
        return 2
    try:
        with open(sys.argv[1]) as f:
            w = json.load(f)
        jobs = w["jobs"]
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write(f"cobra_workload: {sys.argv[1]}: {e}\n")
        return 2
    for job in jobs:
        for stage in job["stages"]:
            d = stage.get("demand", {})
            stage["demand"] = {"cpu": round(max(0.1, d.get("cpu", 0) * CORES), 4),
                               "mem": round(max(0.1, d.get("mem", 0) * MEM_GB), 4)}
    w["cluster"] = {"machines": [{"name": "m", "count": 100, "rack_size": 20,
                                  "capacity": {"cpu": CORES, "mem": MEM_GB, "disk": 50, "net": 125}}]}
    write_json(sys.argv[2], w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
