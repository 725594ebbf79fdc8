// File: policy/common/packing.h
//
// Multi-resource packing arithmetic shared by Tetris-style policies (Grandl et
// al., "Multi-Resource Packing for Cluster Schedulers", SIGCOMM'14, section
// 3, as DAGPS 001_a7e14c78d79bdb00.txt section 5 (Fig. 8 pScore, srpt)
// and COBRA use it):
//   - Alignment: the dot product of a task's demand with a machine's free
//     resources, each normalized by the machine's capacity, so that cores, GB
//     and MB/s weigh alike. Larger means the task fills the machine's free
//     shape better. A resource the machine lacks (capacity 0) adds nothing.
//   - Work: a task's duration (seconds) times the size of its demand, the sum
//     over resources of demand / reference capacity; a job's remaining work
//     sums it over its unfinished tasks (Tetris's "remaining work" for srpt;
//     DAGPS's srpt_j = sum of duration x |demands|).
// Plain functions; no state.
#pragma once

#include "core/ids.h"
#include "model/resources.h"
#include "policy/cluster_state.h"
#include "policy/job_view.h"

namespace weft::policy {

// Alignment returns sum over resources r with capacity[r] > 0, outside
// `ignored`, of (demand[r] / capacity[r]) * (free[r] / capacity[r]). 0 when
// nothing overlaps.
double Alignment(const Resources& demand, const Resources& free, const Resources& capacity, ResourceMask ignored = 0);

// MachineAlignment is Alignment against machine `m`'s free resources and
// capacity in `cluster`, over the resources the run places by (the `fit`
// parameter: an unfitted resource's free amount may be negative and says
// nothing about the fit).
double MachineAlignment(const ClusterState& cluster, MachineId m, const Resources& demand);

// ReferenceCapacity returns, per resource, the largest capacity of any
// machine of the cluster: the unit in which work is measured.
Resources ReferenceCapacity(const ClusterState& cluster);

// DemandSize returns sum over r with reference[r] > 0 of demand[r] / reference[r].
double DemandSize(const Resources& demand, const Resources& reference);

// TaskWork returns EstimatedDuration(task) in seconds times DemandSize of its
// stage's demand.
double TaskWork(const JobView& job, const TaskRef& task, const Resources& reference);

// RemainingWork returns the sum of TaskWork over the job's tasks that are not
// done (blocked, ready, launched or running). O(tasks of the job): policies
// that need it often should keep it up to date incrementally with TaskWork.
double RemainingWork(const JobView& job, const Resources& reference);

}  // namespace weft::policy
