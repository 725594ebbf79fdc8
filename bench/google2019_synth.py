#!/usr/bin/env python3
"""Synthesize a Google 2019 trace (clusterdata v3) in its BigQuery export format.

No rows of the real 2019 trace are available (../shared/data/google-2019-schema
has the schema only), so this writes rows made to the schema, to measure
weft's google-2019 reader at scale (BENCHMARKS.md "google-2019 streams"):
newline-delimited JSON, int64 fields as strings (as BigQuery exports them),
gzip shards `instance_events-00000000000K.json.gz`, `collection_events-...`,
and optionally `instance_usage-...`.

Collections arrive as a Poisson process over --hours hours. Each has 1 to
--max-instances instances (heavy-tailed: most collections are small), whose
durations are log-normal (median 5 min), at most --max-duration hours (3 by
default: the 2011 sample's longest kept task ran 2.9 h; a longer tail holds
later jobs back in a replay, since jobs reach the engine in arrival order and a
workflow is passed when it ends in the files). An instance writes SUBMIT (0) at its
collection's arrival, SCHEDULE (3) 1 ms later and FINISH (6) after its
duration; --killed of them end with KILL (7) instead, --evicted are EVICTed (4)
once and resubmitted, and --services of the collections never finish (their
instances run past the files, as Borg's services do). --chains of the
collections start after the collection before them (start_after_collection_ids),
so workflows of a few collections form; --allocs of them are alloc sets
(collection_type 1). Rows are sorted by time, as a query ordered by time
exports them; --shuffle writes them in no order (a plain export).

Usage: google2019_synth.py OUT_DIR [--collections N] [--hours H] [--shards K]
       [--usage] [--shuffle] [--seed S]. Standard library only.
"""

import argparse
import gzip
import heapq
import json
import os
import random

SUBMIT, SCHEDULE, EVICT, FINISH, KILL = 0, 3, 4, 6, 7
US = 1000000


def instance_count(rng, most):
    """Heavy-tailed: half the collections have one instance."""
    if rng.random() < 0.5:
        return 1
    return min(most, int(rng.paretovariate(1.1)) + 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--collections", type=int, default=100000)
    p.add_argument("--hours", type=float, default=24)
    p.add_argument("--max-instances", type=int, default=2000)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--killed", type=float, default=0.05)
    p.add_argument("--evicted", type=float, default=0.02)
    p.add_argument("--services", type=float, default=0.02)
    p.add_argument("--chains", type=float, default=0.1)
    p.add_argument("--allocs", type=float, default=0.01)
    p.add_argument("--max-duration", type=float, default=3)
    p.add_argument("--usage", action="store_true")
    p.add_argument("--shuffle", action="store_true")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    span_us = int(a.hours * 3600 * US)
    end_us = span_us + 3600 * US  # the files end an hour after the last arrival
    rate = a.collections / span_us

    events, collections, usage = [], [], []
    t = 600 * US  # the trace's times start 600 s before its window
    for c in range(a.collections):
        t += int(rng.expovariate(rate)) + 1
        cid = 1000 + c
        row = {"time": str(t), "type": 0, "collection_id": str(cid), "user": "u%d" % rng.randrange(200),
               "priority": rng.choice([0, 25, 100, 200, 360]), "collection_type": 0}
        if c > 0 and rng.random() < a.chains:
            row["start_after_collection_ids"] = [str(cid - 1)]
        alloc = rng.random() < a.allocs
        if alloc:
            row["collection_type"] = 1
        collections.append((t, json.dumps(row)))
        service = rng.random() < a.services
        cpus = rng.choice([0.005, 0.01, 0.02, 0.05, 0.1])
        mem = rng.choice([0.002, 0.005, 0.01, 0.03])
        for i in range(instance_count(rng, a.max_instances)):
            def ev(time, typ):
                events.append((time, json.dumps({
                    "time": str(time), "type": typ, "collection_id": str(cid), "instance_index": i,
                    "collection_type": 1 if alloc else 0, "machine_id": str(rng.randrange(12000)),
                    "resource_request": {"cpus": cpus, "memory": mem}})))
            start = t + 1000
            ev(t, SUBMIT)
            ev(start, SCHEDULE)
            if service:
                continue  # runs past the files
            if rng.random() < a.evicted:
                at = start + int(rng.lognormvariate(18, 1.5))
                ev(at, EVICT)
                ev(at + 1, SUBMIT)
                start = at + 1000
                ev(start, SCHEDULE)
            finish = start + min(int(a.max_duration * 3600 * US), max(1000, int(rng.lognormvariate(19.5, 1.5))))
            if finish >= end_us:
                continue  # still running when the files end
            ev(finish, KILL if rng.random() < a.killed else FINISH)
            if a.usage:
                usage.append((finish, json.dumps({
                    "start_time": str(start), "end_time": str(finish), "collection_id": str(cid),
                    "instance_index": i, "average_usage": {"cpus": cpus * 0.6, "memory": mem * 0.8}})))

    def write(table, rows, shards):
        if a.shuffle:
            rng.shuffle(rows)
        else:
            rows.sort(key=lambda r: r[0])
        per = (len(rows) + shards - 1) // shards
        for k in range(shards):
            with gzip.open(os.path.join(a.out, "%s-%012d.json.gz" % (table, k)), "wt", compresslevel=3) as f:
                for _, text in rows[k * per:(k + 1) * per]:
                    f.write(text)
                    f.write("\n")

    write("collection_events", collections, 1)
    write("instance_events", events, a.shards)
    if a.usage:
        write("instance_usage", usage, a.shards)
    print("wrote %d collections, %d instance events%s to %s" % (
        a.collections, len(events), ", %d usage rows" % len(usage) if a.usage else "", a.out))


if __name__ == "__main__":
    main()
