// File: sim/modeled_execution.h (internal to sim/)
//
// The simulator's two execution models (sim/execution.h), sharing one
// mechanism. An attempt progresses through segments: the whole task, or one
// phase (monotask) at a time. A segment has a nominal length (its time alone
// on an idle machine) and wants some of the machine's cpu, disk and network:
// a whole task its usage vector, a cpu phase one core, a disk or net phase
// the machine's full bandwidth. Whenever the set of running segments on a
// machine changes, each resource's share is min(1, capacity / wanted):
//   - FixedExecution: segments always progress at rate 1 (a task runs for its
//     duration); an oversubscribed resource is shared out in the accounting
//     (a segment uses and holds want x share), never delivered twice;
//   - ContentionExecution: a segment progresses at the share of its most
//     oversubscribed resource and uses want x rate of every resource.
// A profiled phase (RAS Table 2) is a segment like a whole task: it lasts its
// duration alone, wants its usage's cpu, disk and network and holds its
// demand, memory included; between segments the attempt keeps holding its
// last phase's demand (the engine moves the reservation; a phase that grows
// may wait for room: sim/profiled_phases.cc).
// Under contention, memory used beyond a machine's capacity kills the newest
// attempts (outcome failed, retried), as an out-of-memory killer would. In
// both, failures are injected partway with the run's task_failure_prob.
// What an attempt used and held is integrated over time, so its account is
// exact for piecewise-constant rates.
// Not thread-safe; owned by one engine.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/random.h"
#include "model/workload.h"
#include "policy/cluster_state.h"
#include "sim/execution.h"

namespace weft::sim {

class ModeledExecution : public Execution {
 public:
  ModeledExecution(const Workload& workload, const policy::ClusterState& cluster, EventQueue& queue,
                   ExecutionHost& host, Rng failure_rng, double task_failure_prob);

  void Begin(uint32_t slot, const ExecutionAttempt& attempt) override;
  void RunSegment(uint32_t slot, const ExecutionAttempt& attempt) override;
  void OnSegmentEvent(const Event& e) override;
  AttemptAccount End(uint32_t slot, const ExecutionAttempt& attempt) override;

 protected:
  // Contended: segments slow down when a resource they want is oversubscribed.
  virtual bool Contended() const = 0;

 private:
  using Area = std::array<double, kNumResources>;  // micro-units x microseconds

  // One attempt on its machine.
  struct Work {
    bool active = false;
    bool running = false;   // a segment progresses
    bool phased = false;
    bool profiled = false;  // its phases are profiled: each holds and wants its own demand and usage
    bool doomed = false;    // fails partway (task_failure_prob)
    bool changed = false;   // use or holding ever changed since Begin
    uint16_t fail_phase = 0;
    uint16_t phase = 0;
    uint32_t generation = 0;
    uint32_t version = 0;   // bumped when the segment's end event moves
    MachineId machine;
    uint64_t launch_order = 0;
    uint64_t begin_order = 0;
    double remaining_us = 0;  // nominal microseconds left in the segment
    double rate = 1;
    double factor = 1;        // per-task scale of phase work (durations with phases)
    Resources demand;
    Resources usage;
    Resources want;           // cpu, disk, net the running segment asks for
    Resources use;            // what it uses now
    Resources hold;           // what it holds now
    Resources peak;
    TimeUs begin_us = 0;
    TimeUs last_update_us = 0;  // remaining_us is as of here
    TimeUs area_until_us = 0;   // areas integrated up to here
    TimeUs planned_end_us = 0;
    TimeUs segment_start_us = 0;
    Area used_area{};
    Area held_area{};
    double segment_held_area = 0;  // of the phase's resource, since segment_start_us
  };

  double NominalSegmentUs(const Work& w, const Stage& st, uint32_t index) const;
  void Integrate(Work& w, TimeUs now);
  // Recompute: shares, rates, uses and end events on machine m after the set
  // of running segments there changed (`changed` is the slot that changed).
  void Recompute(MachineId m, uint32_t changed);
  // Update: the attempt's rate (under contention), end event, use and
  // holding, given its machine's shares.
  void Update(uint32_t slot, TimeUs now, const std::array<double, kNumResources>& share, bool contended);
  void SetUse(uint32_t slot, Work& w, const Resources& use, const Resources& hold);
  bool Oversubscribed(MachineId m) const;
  void EnforceMemory(MachineId m);
  void ReportPhase(uint32_t slot, Work& w, bool completed);

  const Workload& w_;
  const policy::ClusterState& cluster_;
  EventQueue& queue_;
  ExecutionHost& host_;
  Rng failure_rng_;
  double task_failure_prob_;
  std::vector<Work> work_;                          // by attempt slot
  std::vector<std::vector<uint32_t>> on_machine_;   // begun attempts, in launch order
  std::vector<Resources> wanted_;                   // per machine: sum of running segments' want
  std::vector<uint8_t> was_over_;                   // per machine: oversubscribed at the last Recompute
  uint64_t begin_counter_ = 0;
};

class FixedExecution final : public ModeledExecution {
 public:
  using ModeledExecution::ModeledExecution;

 protected:
  bool Contended() const override { return false; }
};

class ContentionExecution final : public ModeledExecution {
 public:
  using ModeledExecution::ModeledExecution;

 protected:
  bool Contended() const override { return true; }
};

}  // namespace weft::sim
