#!/usr/bin/env python3
"""Sparrow §5 (Table 2 / Fig. 4): probability that a job sees zero wait,
analytic vs weft's simulator (python3 stdlib only).

  scripts/sparrow_analytic.py [CSV...]

Analytic, at load rho, m tasks per job, d probes per task:
  random placement  (1 - rho)^m
  per-task sampling (1 - rho^d)^m
  batch sampling    sum_{i=m}^{d m} C(d m, i) (1 - rho)^i rho^(d m - i)
Each CSV row of weft_bench_sparrow (zero_wait_fraction column) is printed next
to the analytic value for its policy, load, m and d (sparrow, the late-binding
variant, is compared with batch sampling's formula).
"""
import csv
import math
import sys


def random_p(rho, m, d):
    return (1 - rho) ** m


def per_task(rho, m, d):
    return (1 - rho ** d) ** m


def batch(rho, m, d):
    n = int(math.ceil(d * m))
    return sum(math.comb(n, i) * (1 - rho) ** i * rho ** (n - i) for i in range(m, n + 1))


FORMULA = {"sparrow-random": random_p, "sparrow-per-task": per_task, "sparrow-batch": batch, "sparrow": batch}


def main():
    if len(sys.argv) == 1:
        print("m,load,random,per_task_d2,batch_d2")
        for m in (10, 100):
            for i in range(1, 10):
                rho = i / 10
                print(f"{m},{rho:.1f},{random_p(rho, m, 2):.4f},{per_task(rho, m, 2):.4f},{batch(rho, m, 2):.4f}")
        return
    print("policy,m,load,d,analytic,simulated")
    for path in sys.argv[1:]:
        for r in csv.DictReader(open(path)):
            d = float(r["probe_ratio"] or 1)
            m, rho = int(r["tasks_per_job"]), float(r["load"])
            a = FORMULA[r["policy"]](rho, m, d)
            print(f"{r['policy']},{m},{rho},{r['probe_ratio']},{a:.4f},{float(r['zero_wait_fraction']):.4f}")


if __name__ == "__main__":
    main()
