#!/usr/bin/env python3
"""dagps relative_pri off (paper-literal priScore) vs on, on several workloads,
for docs/reproductions/dagps.md ("Choosing the relative_pri default").

Workloads: the bundled examples, default.json with arrivals compressed 2x (a loaded
cluster), and a generated mix of random layered DAGs (scripts/dagps_workloads.py).
Prints avg/median/p95 JCT and makespan per workload and setting.

  python3 scripts/dagps_relative_pri.py --weft build/src/weft
"""
import argparse
import os
import tempfile

import dagps_workloads as wl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft", default="build/src/weft")
    ap.add_argument("--examples", default="examples")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        default = wl.load(os.path.join(args.examples, "default.json"))
        workloads = [("tpch-small.json", os.path.join(args.examples, "tpch-small.json")),
                     ("default.json", os.path.join(args.examples, "default.json"))]
        for name, data in [("default.json arrivals x0.5", wl.scale_arrivals(default, 0.5)),
                           ("random DAG mix (60 jobs, 40 machines, seed 1)", wl.random_dag_mix(seed=1)),
                           ("random DAG mix (60 jobs, 40 machines, seed 2)", wl.random_dag_mix(seed=2))]:
            path = os.path.join(tmp, f"w{len(workloads)}.json")
            wl.save(data, path)
            workloads.append((name, path))
        print("workload,relative_pri,avg_jct,median_jct,p95_jct,makespan")
        for name, path in workloads:
            for rp in ("false", "true"):
                s = wl.run(args.weft, path, "dagps", [f"relative_pri={rp}"], os.path.join(tmp, "out"))
                print(f"{name},{rp},{s['avg_jct']:.2f},{s['median_jct']:.2f},{s['p95_jct']:.2f},{s['makespan']:.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
