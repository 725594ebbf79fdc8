// File: policy/ursa/estimates.h
//
// What Ursa's job manager estimates from a job (002_872a20c16a9dbee0.txt
// section 4.2.1), through the policy's JobView: a task's input size I(t),
// the job's declared memory M(j), and a task's load for Algorithm 1. The
// workload model's input sizes (stage `input_mb`/`input_mbs`,
// JobView::input_mb) and memory estimate (job `memory_estimate`,
// JobView::memory_estimate_gb) reach Ursa only here. Fallbacks when a
// workload does not give them: I(t) is the work of the task's net and disk
// monotasks (the data it pulls or reads, in MB, section 4.2.1's own estimate
// of I/O usage), and M(j) unknown (admission.h then uses m2i x I(t) alone).
// Plain functions; thread-safe.
#pragma once

#include <optional>

#include "policy/common/monotasks.h"
#include "policy/job_view.h"
#include "policy/ursa/placement.h"

namespace weft::policy::ursa {

// InputMb: I(t) in MB (the workload's input_mb, else the fallback).
double InputMb(const JobView& job, const TaskRef& t, const MonotaskWork& work);

// MemoryEstimateGb: M(j) in GB (the workload's memory_estimate), or nullopt.
std::optional<double> MemoryEstimateGb(const JobView& job);

// LoadOf: task t's Algorithm 1 load: its monotasks' work, its memory
// estimate `mem_gb`, and what launching it reserves (only its memory when it
// runs as monotasks under Ursa's node agents, else its whole demand).
TaskLoad LoadOf(const JobView& job, const TaskRef& t, const MonotaskWork& work, double mem_gb);

}  // namespace weft::policy::ursa
