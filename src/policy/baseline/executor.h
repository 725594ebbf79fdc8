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
//     cores and `executor_mem` GB (policy/common/container_protocol.h
//     documents the payload).
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
//     freed room. It releases executors only under the idle rule below;
//     otherwise the platform releases a finished job's containers.
//     OnContainerLost (the machine failed) asks for one replacement
//     executor.
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
// The idle rule: no job waits forever on another. Holding executors while
// waiting for more can deadlock on a heterogeneous cluster: after a machine
// failure a job may hold only executors cut to machines too small for its
// next stage while another job holds the room that stage needs and waits for
// the room the first one holds (random seed 114 with machines a and b
// failing: all five jobs waited so). Spark's answer to executors that sit
// idle is to give them back (spark.dynamicAllocation.executorIdleTimeout,
// 60 s); static allocation keeps them because its executors can always run
// the job's next task. So weft keeps them exactly as long as that is true: a
// job whose held executors have all run nothing for `idle_timeout` seconds
// (default 60) while it has ready tasks, which then fit none of them, gives
// them all back and replaces its waiting requests with `executors` requests
// that only machines able to hold its first ready stage may grant
// (kReplaceRequests, sent before the releases so that the room they free is
// never granted back to it under the old requests). Executors already gone
// with a failed machine (their loss not yet heard) neither count as held nor
// are given back. A job with a task running, or holding nothing, keeps what
// it has and waits as before; on a homogeneous cluster every executor holds
// every task, so the rule never fires there. Why it cannot deadlock: if no
// task ran anywhere for good, every job holding executors would give them
// back within idle_timeout; a job then takes a container it cannot use only
// under requests made before its last give-back (or grants in flight), and
// gives that back in turn; so in the end every grant goes to a machine that
// holds the receiving job's ready stage, which then runs, and with nobody
// holding anything the first waiting request finds room once its machine
// is up.
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
// heterogeneous clusters a job can sit for idle_timeout holding executors it
// cannot use before the idle rule gives them back (held executors count as
// allocation in the run metrics for as long as they are held,
// metrics/run_metrics.h); a task that fits only machines that failed for
// good never runs (as under any policy).
// Knowledge: non-clairvoyant (demands only, never durations).
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kExecutorInfo;

}  // namespace weft::policy::baseline
