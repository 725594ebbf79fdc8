#!/usr/bin/env python3
"""Synthesize a full-size Google 2011 trace in its native format (issue 17).

The Google 2011 cell had about 12.5k machines and 25M tasks over 29 days; only
a 4.2-hour sample is in ../shared/data. This writes a trace of the full size,
in the published layout (task_events/ and job_events/, headerless CSV, gzip
parts, time-ordered), whose jobs are drawn from the sample's kept jobs: each
synthetic job copies one real job's tasks (count, cpu and memory requests,
durations), chosen uniformly with replacement, and jobs arrive as a Poisson
process at the rate that gives --tasks tasks over --days days. So the
distributions of tasks per job, requests and durations are the sample's own
(empirical, not fitted); arrivals are smoothed (no daily cycle).

A task writes three events, as a task that runs once does in the trace:
SUBMIT (0) at its job's arrival, SCHEDULE (1) 1 ms later, FINISH (4) after its
duration. job_events gets SUBMIT and FINISH per job, so weft's reader can
pass each job on as soon as the stream passes its end (streaming).

Usage: google2011_synth.py SAMPLE.csv.gz OUT_DIR [--tasks N] [--days D]
       [--parts P] [--seed S]
SAMPLE is ../shared/data/google-2011-borg-sample/tasks_parts_00001-00003.csv.gz
(the derived per-task file; see its SOURCES.md). Standard library only.
"""

import argparse
import csv
import gzip
import heapq
import os
import random
import sys

SUBMIT, SCHEDULE, FINISH = 0, 1, 4
SCHEDULE_DELAY_US = 1000


def read_templates(path):
    """The sample's jobs as lists of (cpu, mem, duration_us): kept tasks only.

    A task is kept as weft's reader keeps it: submitted and FINISHed inside the
    window, scheduled once (so FINISH - SCHEDULE is its whole run)."""
    jobs = {}
    with gzip.open(path, "rt", newline="") as f:
        for row in csv.DictReader(f):
            if not row["submit_us"] or row["last_end_event"] != "FINISH" or row["n_schedules"] != "1":
                continue
            duration = int(row["last_end_us"]) - int(row["first_schedule_us"])
            if duration <= 0:
                continue
            jobs.setdefault(row["job_id"], []).append((row["cpu_req"], row["mem_req"], duration))
    if not jobs:
        sys.exit(f"{path}: no kept task (is this the derived tasks file?)")
    return list(jobs.values())


class PartWriter:
    """Rows to gzip parts of about rows_per_part rows each, named as Google names them."""

    def __init__(self, folder, parts, rows_per_part):
        os.makedirs(folder, exist_ok=True)
        self.folder, self.parts, self.rows_per_part = folder, parts, rows_per_part
        self.index, self.rows, self.file = -1, 0, None
        self.next_part()

    def next_part(self):
        if self.file:
            self.file.close()
        self.index += 1
        name = f"part-{self.index:05d}-of-{self.parts:05d}.csv.gz"
        self.file = gzip.open(os.path.join(self.folder, name), "wt", compresslevel=1, newline="")
        self.rows = 0

    def write(self, line):
        if self.rows >= self.rows_per_part and self.index + 1 < self.parts:
            self.next_part()
        self.file.write(line)
        self.rows += 1

    def close(self):
        self.file.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sample")
    ap.add_argument("out")
    ap.add_argument("--tasks", type=int, default=25_000_000)
    ap.add_argument("--days", type=float, default=29)
    ap.add_argument("--parts", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    templates = read_templates(args.sample)
    mean_tasks = sum(len(j) for j in templates) / len(templates)
    horizon_us = args.days * 86400e6
    mean_gap_us = horizon_us * mean_tasks / args.tasks
    rng = random.Random(args.seed)

    tasks_out = PartWriter(os.path.join(args.out, "task_events"), args.parts, 3 * args.tasks // args.parts + 1)
    finishes = []  # heap of (time_us, line): SCHEDULE and FINISH rows not yet written
    job_rows = []  # (time_us, job_id, event)
    now_us, job_id, written = 600_000_000, 1, 0  # the real trace starts at 600 s
    while written < args.tasks:
        now_us += max(1, int(rng.expovariate(1 / mean_gap_us)))
        while finishes and finishes[0][0] <= now_us:
            tasks_out.write(heapq.heappop(finishes)[1])
        job = rng.choice(templates)[: args.tasks - written]
        end_us = 0
        for index, (cpu, mem, duration) in enumerate(job):
            head = f",,{job_id},{index},"
            tail = f",user,0,0,{cpu},{mem},0,0\n"
            tasks_out.write(f"{now_us}{head},{SUBMIT}{tail}")  # no machine yet
            start = now_us + SCHEDULE_DELAY_US
            end = start + duration
            # Later events wait in the heap, so every part stays in time order.
            heapq.heappush(finishes, (start, f"{start}{head}1,{SCHEDULE}{tail}"))
            heapq.heappush(finishes, (end, f"{end}{head}1,{FINISH}{tail}"))
            end_us = max(end_us, end)
        job_rows.append((now_us, job_id, SUBMIT))
        job_rows.append((end_us, job_id, FINISH))
        written += len(job)
        job_id += 1
    while finishes:
        tasks_out.write(heapq.heappop(finishes)[1])
    tasks_out.close()

    job_rows.sort()
    jobs_out = PartWriter(os.path.join(args.out, "job_events"), args.parts, len(job_rows) // args.parts + 1)
    for time_us, jid, event in job_rows:
        jobs_out.write(f"{time_us},,{jid},{event},user,0,job{jid},job{jid}\n")
    jobs_out.close()
    print(f"wrote {written} tasks of {job_id - 1} jobs over {args.days} days "
          f"({len(templates)} sample jobs, {mean_tasks:.1f} tasks each on average) to {args.out}")


if __name__ == "__main__":
    main()
