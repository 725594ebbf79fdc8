#include "runtime/scheduler/cluster_run.h"

#include "model/names.h"
#include "runtime/scheduler/job_intake.h"
#include "runtime/wire.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {
namespace {

sim::SimOptions EngineOptions(const policy::BuiltPolicy& built, const ClusterRun::Options& options) {
  sim::SimOptions o;
  o.seed = options.seed;
  o.max_attempts = options.max_attempts;
  o.knowledge = built.knowledge();
  return o;
}

}  // namespace

ClusterRun::ClusterRun(Workload& live, const policy::BuiltPolicy& built, const Options& options,
                       sim::AttemptExecutor& executor, RunObserver& observer)
    : live_(live),
      built_(built),
      options_(options),
      // A policy's node agents run on the nodes (runtime/node/agent_host.h).
      engine_(live, *built.policy, EngineOptions(built, options), executor, /*remote_agents=*/true) {
  engine_.AddObserver(&observer);
}

absl::Status ClusterRun::Start(AgentRelay& relay, TimeUs now, const std::vector<bool>& up) {
  v1::AgentSetup setup;
  setup.set_policy(built_.info->name);
  setup.mutable_params()->Add(options_.params.begin(), options_.params.end());
  setup.set_cluster_json(ClusterJson(live_.cluster).dump());
  for (const Machine& machine : live_.cluster.machines()) setup.add_racks(machine.rack.value());
  setup.set_seed(options_.seed);
  setup.set_replicas(options_.replicas);
  relay.Start(engine_, std::move(setup));
  return engine_.Start(now, up);
}

void ClusterRun::OnTaskEnds(const v1::TaskEnds& ends, TimeUs now) {
  for (const v1::TaskEnd& end : ends.ends()) {
    const bool ok = end.exit_code() == 0 && !end.failed_to_start();
    reporting_ = &end;
    engine_.AttemptEnded(end.attempt(), ok ? Outcome::kOk : Outcome::kFailed, MeasuredUsage(end), now,
                         end.run_us() > 0 ? end.run_us() : -1);
    reporting_ = nullptr;
    if (!ok) spdlog::info("attempt {} failed: exit {} {}", end.attempt(), end.exit_code(), EscapeForDisplay(end.error()));
  }
}

void ClusterRun::OnPhaseEnds(const v1::PhaseEnds& ends, TimeUs now) {
  for (const v1::PhaseEnd& end : ends.ends()) {
    if (end.exit_code() == 0) {
      engine_.PhaseEnded(end.attempt(), end.phase(), MeasuredUsage(end), now);
      continue;
    }
    // A failed phase fails its attempt (the node has already dropped it).
    engine_.AttemptEnded(end.attempt(), Outcome::kFailed, MeasuredUsage(end), now);
    spdlog::info("attempt {} failed in phase {}: exit {} {}", end.attempt(), end.phase(), end.exit_code(),
                 EscapeForDisplay(end.error()));
  }
}

void ClusterRun::OnCopyEnds(const v1::CopyEnds& ends, TimeUs now) {
  for (const v1::CopyEnd& end : ends.ends()) {
    if (!end.done()) spdlog::info("attempt {}: its shuffle copy (transfer {}) failed", end.attempt(), end.transfer());
    engine_.CopyEnded(end.attempt(), end.done(), now);
  }
}

void ClusterRun::OnHeartbeat(const v1::Heartbeat& heartbeat, TimeUs now) {
  for (const v1::TaskUsage& u : heartbeat.usage()) engine_.UpdateUsage(u.attempt(), MeasuredResources(u), now);
}

void ClusterRun::AddToSnapshot(std::span<const uint32_t> active, const NodeOutbox& outbox,
                               SchedulerMetrics::Snapshot& s) const {
  for (const uint32_t j : active) {
    const policy::JobProgress* p = engine_.progress(JobId(j));
    if (p == nullptr) continue;
    for (const policy::StageProgress& st : p->stages) {
      s.tasks_queued += st.ready;
      s.tasks_running += st.running;
    }
  }
  s.refused_decisions = engine_.stats().refused_decisions;
  const policy::ClusterState& cluster = engine_.cluster();
  for (uint32_t m = 0; m < cluster.size(); ++m) {
    const MachineId id(m);
    s.nodes.push_back({.name = cluster.machine(id).name,
                       .up = m < outbox.size() && outbox.connected(m),
                       .capacity = cluster.capacity(id),
                       .allocated = cluster.allocated(id),
                       .used = cluster.used(id)});
  }
}

}  // namespace weft::runtime
