// File: policy/baseline/executor.h
//
// executor: Spark on YARN with static allocation, the "executor-based"
// baseline of Ursa (section 5.1.1, Y+S) and COBRA's SRS (section V-C:
// "requests 2 containers for each job, and lets jobs hold the allocations in
// their entire executions"). It is the two-level baseline: a job manager per
// job (Spark's driver) holds a fixed set of containers (executors) for the
// job's whole life and runs the job's tasks inside them; the cluster
// scheduler (YARN's FIFO scheduler) only hands out containers.
//
// Roles and messages:
//   - The job manager, at OnStart, sends kRequestContainers to
//     Address::Scheduler(0) for `executors` containers of `executor_cpu`
//     cores and `executor_mem` GB (executor_roles.h documents the payload).
//   - The cluster scheduler queues requests by job (priority, then arrival:
//     YARN's FIFO) and grants each container on the first machine with room,
//     through ctx_.GrantContainer. Within a job requests are served in order
//     and a job's first unsatisfiable request waits; later jobs may take room
//     it cannot use (YARN's FifoScheduler offers each node to every app in
//     turn). What cannot be granted now is granted as room frees: on
//     OnContainerReleased, OnJobFinished and OnMachineUp. A job starts running
//     with whatever it has been granted.
//   - The job manager keeps its ready tasks FIFO by stage then index and runs
//     each in the first held container whose free room holds its demand
//     (ctx_.LaunchInContainer; several tasks share an executor while their
//     demands fit, as Spark runs one task per core). OnTaskEnded refills the
//     freed room. It never releases an executor: the platform releases a
//     finished job's containers. OnContainerLost (the machine failed) asks
//     for one replacement executor.
//
// Container sizes. weft reserves every resource a task demands, including
// disk and net bandwidth, while YARN containers carry only cores and memory.
// So a container granted on machine m gets, besides its cores and memory, a
// share of m's disk and net bandwidth in proportion to its cores (4 cores of
// a 16-core machine: a quarter of its bandwidth). A size larger than the
// machine is cut down to the machine (executor_cpu=64 on 16-core machines
// gives whole-machine executors).
//
// Tasks larger than an executor. Spark refuses a task that needs more than an
// executor (spark.task.cpus > spark.executor.cores), and its user then sizes
// all the application's executors up; here the job would wait forever. So a
// job's executors are all sized max(executor_cpu/executor_mem, the largest
// demand of its stages), component-wise (JobView::demand). Every executor of
// a job is then alike and holds any of its tasks that fits the machine at all
// (cutting a size to a machine keeps every task that fits that machine), so
// a job that holds any executor can always progress, and losing one never
// leaves it holding executors that cannot run its next stage. (One extra big
// container instead would be cheaper, but when it is lost with its machine
// the job keeps only executors too small for its stage and, with others in
// the same state, waits forever.) Safety net for heterogeneous clusters, where a
// cut-down executor may not hold a stage: when nothing is outstanding and a
// ready stage fits no held executor even empty, the manager asks for one
// exact container of that stage's demand (never cut down).
//
// Defaults: 4 executors of 4 cores and 8 GB. 4 cores / 8 GB is the container
// Ursa tuned for Spark on TPC-H (section 5.1.1); its 2 GB per core matches
// the most common task of the bundled TPC-H workloads (1 core, 2 GB), and 4
// cores divide the 16- and 32-core machines evenly. 4 executors give a job
// 16 cores, a third of the 50 cores (spark.cores.max) the bundled traces
// were recorded with, so that on the default 200-machine cluster every job
// of the default workload can hold its executors at once and the cost of
// static allocation shows in idle reserved cores rather than queueing.
//
// Known limits (deliberate): static allocation keeps idle executors through
// narrow stages; one large stage makes all the job's executors large; on
// heterogeneous clusters jobs can still wait on each other when each holds
// only executors on machines too small for its next stage; idle executor
// time is not counted as allocation in the run metrics
// (metrics/run_metrics.h).
// Knowledge: non-clairvoyant (demands only, never durations).
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kExecutorInfo;

}  // namespace weft::policy::baseline
