#!/usr/bin/env python3
"""Writes a trace FACTOR times the size of a sample, in the sample's own format,
to measure a reader's memory on a file larger than the samples in ../shared/data
(BENCHMARKS.md, "Streaming every reader (issue 17)").

  bench/trace_scale.py FORMAT IN OUT FACTOR

FORMAT is swim, alibaba-2017 or alibaba-2018 (the ERDOS layout with a header).
Each copy k of a job is renamed (swim: job12 -> job12.k; alibaba-2017: job id
+ k * 10^7; alibaba-2018: j_12 -> j_12.k); times are kept, so the copy is the
same trace FACTOR times as dense. Row order keeps the sample's: swim's rows stay
in submit order (the copies of a row follow it), alibaba-2017's copies are
concatenated (a job's rows as far apart as in the sample), alibaba-2018's
copies of a job follow the job (each job's rows together, as ERDOS writes them).
"""
import sys


def main():
    fmt, src, dst, factor = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    with open(src) as f:
        lines = f.read().splitlines()
    with open(dst, "w") as out:
        if fmt == "swim":
            for line in lines:
                cols = line.split("\t")
                for k in range(factor):
                    out.write("\t".join([f"{cols[0]}.{k}"] + cols[1:]) + "\n")
        elif fmt == "alibaba-2017":
            header, rows = lines[0], lines[1:]
            out.write(header + "\n")
            for k in range(factor):
                for line in rows:
                    cols = line.split(",")
                    cols[2] = str(int(cols[2]) + k * 10**7)
                    out.write(",".join(cols) + "\n")
        elif fmt == "alibaba-2018":
            header, rows = lines[0], lines[1:]
            out.write(header + "\n")
            job_col = header.split(",").index("job_name")
            groups = []
            for line in rows:
                cols = line.split(",")
                if not groups or groups[-1][0] != cols[job_col]:
                    groups.append((cols[job_col], []))
                groups[-1][1].append(cols)
            for name, group in groups:
                for k in range(factor):
                    for cols in group:
                        c = list(cols)
                        c[job_col] = f"{name}.{k}"
                        out.write(",".join(c) + "\n")
        else:
            sys.exit(f"unknown format {fmt} (swim, alibaba-2017, alibaba-2018)")


if __name__ == "__main__":
    main()
