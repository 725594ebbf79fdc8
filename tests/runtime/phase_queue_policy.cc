#include "runtime/phase_queue_policy.h"

#include <array>
#include <deque>
#include <optional>

#include "policy/registry.h"

namespace weft::testing {
namespace {

using policy::Context;
using policy::TaskEnd;
using policy::TaskRange;

// The reservation a launch makes: memory only for a phased task (each phase
// holds its own resource while it runs), the demand otherwise.
Resources Reservation(const policy::JobView& job, uint32_t stage) {
  if (job.Phases(stage).empty()) return job.demand(stage);
  Resources memory;
  memory.set_micro(kMem, job.demand(stage).micro(kMem));
  return memory;
}

class FirstFitScheduler final : public policy::ClusterScheduler {
 public:
  explicit FirstFitScheduler(Context& ctx) : ClusterScheduler(ctx) {}
  void OnTasksReady(const TaskRange& r) override {
    for (uint32_t i = r.begin; i < r.end; ++i) waiting_.push_back(TaskRef{r.job, r.stage, i});
    Place();
  }
  void OnTaskEnded(const TaskEnd& /*end*/) override { Place(); }
  void OnMachineUp(MachineId /*m*/) override { Place(); }

 private:
  void Place() {
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      const policy::JobView job = ctx_.job(it->job);
      if (job.finished()) {
        it = waiting_.erase(it);
        continue;
      }
      const Resources need = Reservation(job, it->stage);
      std::optional<MachineId> where;
      for (uint32_t m = 0; m < ctx_.cluster().size() && !where; ++m) {
        if (ctx_.cluster().up(MachineId(m)) && ctx_.cluster().Fits(MachineId(m), need)) where = MachineId(m);
      }
      if (where && ctx_.Launch(*it, *where).ok()) {
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::deque<TaskRef> waiting_;
};

// PhaseQueues: one FIFO per resource; a phase runs when none of its
// resource runs on this machine.
class PhaseQueues final : public policy::NodeAgent {
 public:
  PhaseQueues(Context& ctx, MachineId machine) : NodeAgent(ctx, machine) {}
  bool ControlsPhases() const override { return true; }
  void OnPhaseReady(const TaskRef& task, uint32_t phase) override {
    const Resource r = ctx_.job(task.job).Phases(task.stage)[phase].resource;
    queues_[r].push_back(task);
    Next(r);
  }
  void OnPhaseEnded(const TaskRef& task, uint32_t phase) override {
    const Resource r = ctx_.job(task.job).Phases(task.stage)[phase].resource;
    busy_[r] = false;
    Next(r);
  }
  void OnTaskEnded(const TaskEnd& end) override {
    // A task that ended early (failed, killed) frees its resource if its phase ran.
    for (int r = 0; r < kNumResources; ++r) {
      if (running_[r] && *running_[r] == end.task) {
        busy_[r] = false;
        running_[r].reset();
        Next(static_cast<Resource>(r));
      }
    }
  }

 private:
  void Next(Resource r) {
    while (!busy_[r] && !queues_[r].empty()) {
      const TaskRef task = queues_[r].front();
      queues_[r].pop_front();
      if (ctx_.StartPhase(task).ok()) {
        busy_[r] = true;
        running_[r] = task;
      }
    }
  }
  std::array<std::deque<TaskRef>, kNumResources> queues_;
  std::array<bool, kNumResources> busy_{};
  std::array<std::optional<TaskRef>, kNumResources> running_;
};

class PhaseQueuesPolicy final : public policy::Policy {
 public:
  policy::Knowledge knowledge() const override { return policy::Knowledge::kClairvoyant; }
  std::unique_ptr<policy::ClusterScheduler> MakeScheduler(Context& ctx, uint32_t) override {
    return std::make_unique<FirstFitScheduler>(ctx);
  }
  std::unique_ptr<policy::NodeAgent> MakeNodeAgent(Context& ctx, MachineId machine) override {
    return std::make_unique<PhaseQueues>(ctx, machine);
  }
  bool has_node_agents() const override { return true; }
};

// Registered for the process that links this file (the test build of weftd).
const bool kRegistered = [] {
  policy::RegisterTestPolicy(&kPhaseQueuesInfo);
  return true;
}();

}  // namespace

const policy::PolicyInfo kPhaseQueuesInfo{
    .name = "test-phase-queues",
    .description = "test only: first-fit placement; per-resource FIFO phase queues on each node",
    .source = "tests/runtime (Ursa's monotask queues at their simplest)",
    .params = {},
    .make = [](const policy::Params&) -> absl::StatusOr<std::unique_ptr<policy::Policy>> {
      return std::make_unique<PhaseQueuesPolicy>();
    }};

}  // namespace weft::testing
