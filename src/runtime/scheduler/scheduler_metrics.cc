#include "runtime/scheduler/scheduler_metrics.h"

#include <sstream>

#include "prometheus/text_serializer.h"

namespace weft::runtime {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

SchedulerMetrics::SchedulerMetrics() : registry_(std::make_shared<prometheus::Registry>()) {
  auto& decisions = BuildCounter()
                        .Name("weft_decisions_total")
                        .Help("The policy's decisions carried out: attempts launched and killed")
                        .Register(*registry_);
  launched_ = &decisions.Add({{"kind", "launch"}});
  killed_ = &decisions.Add({{"kind", "kill"}});
  attempt_ends_ = &BuildCounter()
                       .Name("weft_attempt_ends_total")
                       .Help("Task attempts that ended, by outcome (ok, failed, killed)")
                       .Register(*registry_);
  refused_ = &BuildCounter()
                  .Name("weft_refused_decisions_total")
                  .Help("The policy's actions the engine refused (invalid launches, kills, grants)")
                  .Register(*registry_)
                  .Add({});
  // Commits take ~0.1 ms (NORMAL sync) to ~5 ms (FULL, an fsync) here.
  commit_ = &BuildHistogram()
                 .Name("weft_journal_commit_seconds")
                 .Help("Time of one journal commit (a group of events) in seconds")
                 .Register(*registry_)
                 .Add({}, prometheus::Histogram::BucketBoundaries{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                                   0.01, 0.025, 0.05, 0.1, 0.25, 1});
  rpcs_ = &BuildCounter()
               .Name("weft_rpc_total")
               .Help("RPCs answered, by method and gRPC status code")
               .Register(*registry_);
  jobs_ = &BuildGauge().Name("weft_jobs").Help("Jobs by state").Register(*registry_);
  tasks_ = &BuildGauge()
                .Name("weft_tasks")
                .Help("Tasks by state: queued (ready, not placed), running (launched or running), done (ended ok)")
                .Register(*registry_);
  node_up_ = &BuildGauge().Name("weft_node_up").Help("1 while the node is connected").Register(*registry_);
  node_capacity_ = &BuildGauge()
                        .Name("weft_node_capacity")
                        .Help("A node's capacity per resource (cores, GB, MB/s)")
                        .Register(*registry_);
  node_allocated_ = &BuildGauge()
                         .Name("weft_node_allocated")
                         .Help("What the policy reserved on a node per resource (cores, GB, MB/s)")
                         .Register(*registry_);
  node_used_ = &BuildGauge()
                    .Name("weft_node_used")
                    .Help("What a node measured its tasks using per resource (cores, GB, MB/s)")
                    .Register(*registry_);
}

void SchedulerMetrics::AttemptEnded(Outcome outcome) {
  const char* name = outcome == Outcome::kOk ? "ok" : outcome == Outcome::kFailed ? "failed" : "killed";
  attempt_ends_->Add({{"outcome", name}}).Increment();
}

void SchedulerMetrics::RpcDone(std::string_view method, std::string_view code) {
  rpcs_->Add({{"method", std::string(method)}, {"code", std::string(code)}}).Increment();
}

void SchedulerMetrics::Update(const Snapshot& s) {
  std::lock_guard lock(mu_);
  jobs_->Add({{"state", "active"}}).Set(static_cast<double>(s.jobs_active));
  jobs_->Add({{"state", "done"}}).Set(static_cast<double>(s.jobs_done));
  jobs_->Add({{"state", "failed"}}).Set(static_cast<double>(s.jobs_failed));
  jobs_->Add({{"state", "cancelled"}}).Set(static_cast<double>(s.jobs_cancelled));
  tasks_->Add({{"state", "queued"}}).Set(static_cast<double>(s.tasks_queued));
  tasks_->Add({{"state", "running"}}).Set(static_cast<double>(s.tasks_running));
  tasks_->Add({{"state", "done"}}).Set(static_cast<double>(s.tasks_done));
  if (s.refused_decisions > refused_seen_) {
    refused_->Increment(static_cast<double>(s.refused_decisions - refused_seen_));
    refused_seen_ = s.refused_decisions;
  }
  for (const NodeSnapshot& n : s.nodes) {
    node_up_->Add({{"node", n.name}}).Set(n.up ? 1 : 0);
    for (int r = 0; r < kNumResources; ++r) {
      const prometheus::Labels labels{{"node", n.name}, {"resource", std::string(kResourceNames[r])}};
      node_capacity_->Add(labels).Set(n.capacity.units(static_cast<Resource>(r)));
      node_allocated_->Add(labels).Set(n.allocated.units(static_cast<Resource>(r)));
      node_used_->Add(labels).Set(n.used.units(static_cast<Resource>(r)));
    }
  }
}

std::string SchedulerMetrics::Exposition() const {
  std::lock_guard lock(mu_);
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace weft::runtime
