// File: policy/sparrow/scheduler.h
//
// SparrowScheduler: one Sparrow scheduler replica (§3, §4). It holds only
// what its own jobs need and learns about nodes only from probe replies and
// task requests (plus, like any scheduler, which machines are up):
//   - early binding (random, per-task, batch; scheduler.cc): a job stage's
//     ready tasks are enqueued on a random node, or probes go out and, when
//     every reply is in, the tasks are enqueued on the least loaded repliers;
//   - late binding (sparrow; late_binding.cc): reservations go out and the
//     replica answers each task request with the stage's next unlaunched
//     task or a no-op; for task-level constraints it serves a request with
//     the lowest-indexed unlaunched task that may run on the requester (§4.1's
//     sharing of probe information) and re-probes a task whose reservations
//     are all used up.
// Each task range that becomes ready is one batch (a DAG stage, or the retry
// of a single task). Not thread-safe (driven by the platform).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "policy/common/ready_pool.h"
#include "policy/roles.h"
#include "policy/sparrow/sparrow.h"

namespace weft::policy::sparrow {

class SparrowScheduler final : public ClusterScheduler {
 public:
  SparrowScheduler(Context& ctx, const Config& config) : ClusterScheduler(ctx), config_(config) {}

  void OnTasksReady(const TaskRange& r) override;
  void OnTaskEnded(const TaskEnd& e) override;
  void OnJobFinished(JobId job, bool succeeded) override;
  void OnMachineDown(MachineId m) override;
  void OnMachineUp(MachineId m) override;
  void OnMessage(const Address& from, const Message& m) override;

 private:
  using TaskKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // job, stage, index
  static TaskKey Key(const TaskRef& t) { return {t.job.value(), t.stage, t.index}; }

  // Submit schedules tasks of one stage (newly ready, or taken back).
  void Submit(const GroupId& g, std::vector<uint32_t> tasks);

  // --- early binding (scheduler.cc)
  struct ProbeBatch {
    GroupId group;
    std::vector<uint32_t> tasks;
    std::vector<MachineId> probed;  // one per probe
    std::vector<int64_t> load;      // per probe: kAwaiting, kDead or the reported load
    uint32_t answered = 0;
  };
  void Probe(const GroupId& g, std::vector<uint32_t> tasks, uint64_t k, std::span<const MachineId> candidates);
  void OnProbeReply(MachineId from, uint64_t id, int64_t load);
  void Resolve(uint64_t id);
  void Enqueue(const TaskRef& t, MachineId m);

  // --- late binding (late_binding.cc)
  struct LateBatch {
    bool constrained = false;
    std::deque<uint32_t> pending;  // unconstrained: unlaunched tasks in order
    std::set<uint32_t> pending_c;  // constrained: unlaunched tasks
    int64_t outstanding = 0;       // live reservations
    absl::flat_hash_map<uint32_t, uint32_t> at_node;         // live reservations per node
    absl::flat_hash_map<uint64_t, uint32_t> at_node_task;    // constrained: (node << 32 | task) -> count
    absl::flat_hash_map<uint32_t, uint32_t> per_task;        // constrained: live reservations per task
    size_t unlaunched() const { return constrained ? pending_c.size() : pending.size(); }
  };
  void AddLate(const GroupId& g, const std::vector<uint32_t>& tasks, bool constrained);
  void Reserve(const GroupId& g, LateBatch& b, MachineId node, uint32_t task);
  void ReserveTask(const GroupId& g, LateBatch& b, uint32_t task);  // constrained: per-task probes
  void TopUp(const GroupId& g, LateBatch& b);  // re-probe what live reservations no longer cover
  void OnGetTask(MachineId from, const TaskRef& reservation);
  void LateMachineDown(MachineId m);
  // Finish erases a batch with nothing left to launch (cancelling its
  // reservations first when cancellation is on) once it may be erased.
  void MaybeFinish(std::map<GroupId, LateBatch>::iterator it);
  bool CanRun(const TaskRef& t, MachineId m) const;

  Config config_;
  absl::flat_hash_map<uint64_t, ProbeBatch> probes_;
  uint64_t next_probe_ = 0;
  absl::flat_hash_map<TaskKey, MachineId> placed_;  // enqueued on or handed to a node, not yet ended
  std::map<GroupId, LateBatch> late_;
  // Tasks no machine could hold when they were sampled (every big enough
  // machine down): submitted again when a machine comes up.
  std::map<GroupId, std::vector<uint32_t>> parked_;
};

}  // namespace weft::policy::sparrow
