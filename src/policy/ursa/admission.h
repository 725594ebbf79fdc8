// File: policy/ursa/admission.h
//
// Ursa's memory estimate and job admission (002_872a20c16a9dbee0.txt
// section 4.2.1-4.2.2). A task t of job j is estimated to use
//   min{ r * M(j), m2i * I(t) },  r = I(t) / (sum of I over j's ready tasks),
// where M(j) is the job's declared memory estimate and I(t) the task's input
// size; the job's estimate is the sum over its ready tasks. The scheduler
// admits jobs in submission order while the memory the admitted jobs'
// estimates reserve, plus the next job's, fits the cluster's memory (a job is
// always admitted when none is, so that a job larger than the cluster still
// runs, alone). Fallbacks, for workloads that do not give the inputs: a task
// with no input size is estimated at its stage's memory demand, and a job
// with no M(j) at the m2i term alone.
// Plain functions; thread-safe.
#pragma once

#include <optional>
#include <span>

namespace weft::policy::ursa {

// TaskMemoryGb: min{r * M(j), m2i * I(t)} in GB (I in MB), with the
// fallbacks above (`demand_gb` when input_mb is 0).
double TaskMemoryGb(double input_mb, double ready_input_mb, std::optional<double> job_memory_gb, double m2i,
                    double demand_gb);

// Admits: whether a job estimated at `job_gb` may be admitted while admitted
// jobs reserve `reserved_gb` of a cluster with `cluster_gb` and `admitted`
// jobs are running.
bool Admits(double job_gb, double reserved_gb, double cluster_gb, size_t admitted);

}  // namespace weft::policy::ursa
