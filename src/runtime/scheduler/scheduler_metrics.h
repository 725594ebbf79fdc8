// File: runtime/scheduler/scheduler_metrics.h
//
// SchedulerMetrics: what `weftd scheduler --http` serves at /metrics, in the
// Prometheus text format (docs/runtime.md, "Dashboard and metrics", lists
// every series). Built on prometheus-cpp's core (Debian's prometheus-cpp-dev):
// counters and the journal-commit histogram are updated as events happen;
// the gauges (jobs and tasks by state, per-node capacity, allocation and
// measured usage) are set from a Snapshot the scheduler takes at scrape time.
// Thread-safe: prometheus-cpp's metrics are, and Update/Exposition take a
// lock of their own.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/records.h"
#include "model/resources.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace weft::runtime {

class SchedulerMetrics {
 public:
  // The scheduler's state at one instant, for the gauges.
  struct NodeSnapshot {
    std::string name;
    bool up = false;
    Resources capacity, allocated, used;  // used: as the node measured it
  };
  struct Snapshot {
    uint64_t jobs_active = 0, jobs_done = 0, jobs_failed = 0, jobs_cancelled = 0;
    uint64_t tasks_queued = 0;   // ready, not placed
    uint64_t tasks_running = 0;  // launched or running
    uint64_t tasks_done = 0;     // ended ok (journaled)
    uint64_t refused_decisions = 0;  // the policy's actions the engine refused, since start
    std::vector<NodeSnapshot> nodes;
  };

  SchedulerMetrics();

  // Events, counted as they happen.
  void AttemptLaunched() { launched_->Increment(); }
  void AttemptKilled() { killed_->Increment(); }
  void AttemptEnded(Outcome outcome);
  void JournalCommit(double seconds) { commit_->Observe(seconds); }
  // RpcDone: one client or node RPC answered with gRPC status `code`
  // (its name, e.g. "OK", "INVALID_ARGUMENT").
  void RpcDone(std::string_view method, std::string_view code);

  // Update sets the gauges from `s`; Exposition renders every series.
  void Update(const Snapshot& s);
  std::string Exposition() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Counter* launched_;
  prometheus::Counter* killed_;
  prometheus::Family<prometheus::Counter>* attempt_ends_;
  prometheus::Counter* refused_;
  uint64_t refused_seen_ = 0;  // the counter mirrors the engine's monotonic total
  prometheus::Histogram* commit_;
  prometheus::Family<prometheus::Counter>* rpcs_;
  prometheus::Family<prometheus::Gauge>* jobs_;
  prometheus::Family<prometheus::Gauge>* tasks_;
  prometheus::Family<prometheus::Gauge>* node_up_;
  prometheus::Family<prometheus::Gauge>* node_capacity_;
  prometheus::Family<prometheus::Gauge>* node_allocated_;
  prometheus::Family<prometheus::Gauge>* node_used_;
  mutable std::mutex mu_;  // Update against a concurrent scrape
};

}  // namespace weft::runtime
