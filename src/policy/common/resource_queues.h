// File: policy/common/resource_queues.h
//
// ResourceQueues: a worker's per-resource queues of monotasks with
// concurrency control (Ursa, 002_872a20c16a9dbee0.txt section 4.2.3). There
// is one queue per resource (cpu, disk, net); at most limit(r) monotasks of r
// run at once (cpu: the machine's cores; disk and net: a small number, so
// that transfers do not contend). A queue serves its monotasks in the order
// of their MonotaskKey:
//   - across jobs by the job's rank (smaller first: EJF's arrival time, or
//     SRJF's remaining-work score), then job id;
//   - within a job by stage, then, within a stage, cpu monotasks by
//     descending input size (larger tasks start earlier and the stage ends
//     sooner) and disk and net ones by ascending input size (their dependent
//     monotasks become ready earlier);
//   - then in arrival order.
// Any node agent that controls phases (NodeAgent::ControlsPhases) can keep
// one; it never touches the Context. Plain data; not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <tuple>

#include "core/ids.h"
#include "model/resources.h"

namespace weft::policy {

struct QueuedMonotask {
  TaskRef task;
  uint32_t phase = 0;
  Resource resource = kCpu;
  double job_rank = 0;    // smaller is served first
  double input_size = 0;  // the task's input (MB), for the order within a stage
};

class ResourceQueues {
 public:
  // limits[r]: how many monotasks of r may run at once (0 is taken as 1;
  // the kMem entry is unused).
  explicit ResourceQueues(const std::array<uint32_t, kNumResources>& limits);

  // Push queues `m` behind everything of a better key in its resource's queue.
  void Push(const QueuedMonotask& m);
  // PopStartable removes and returns the next monotask of resource `r` when
  // fewer than limit(r) of r are running, counting it as running; nullopt
  // when the queue is empty or the resource is at its limit.
  std::optional<QueuedMonotask> PopStartable(Resource r);
  // Finished: a running monotask of `r` ended (or was abandoned).
  void Finished(Resource r);
  // RemoveTask drops every queued monotask of `task`; returns how many.
  size_t RemoveTask(const TaskRef& task);

  uint32_t running(Resource r) const { return running_[r]; }
  uint32_t limit(Resource r) const { return limits_[r]; }
  size_t queued(Resource r) const { return queues_[r].size(); }

 private:
  // (rank, job, stage, signed size, arrival): the order described above.
  using Key = std::tuple<double, uint32_t, uint32_t, double, uint64_t>;
  struct Entry {
    Key key;
    QueuedMonotask m;
    bool operator<(const Entry& o) const { return key < o.key; }
  };
  std::array<uint32_t, kNumResources> limits_{};
  std::array<uint32_t, kNumResources> running_{};
  std::array<std::set<Entry>, kNumResources> queues_;
  uint64_t arrivals_ = 0;
};

}  // namespace weft::policy
