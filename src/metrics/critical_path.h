// File: metrics/critical_path.h
//
// Critical-path length of a job: the longest chain of stages through its
// DAG, each stage counting its longest task on an idle machine. It is the
// time the job needs with unlimited machines (a lower bound on its JCT, used
// for slowdown). A stage given by phases counts the sum of its phases run
// alone on the cluster's fastest machine for each resource.
#pragma once

#include "core/time.h"
#include "model/cluster.h"
#include "model/job.h"

namespace weft {

// StageTaskUs: the longest task time of stage `s` on an idle machine.
TimeUs LongestTaskUs(const Stage& s, const Cluster& cluster);

TimeUs CriticalPathUs(const Job& job, const Cluster& cluster);

}  // namespace weft
