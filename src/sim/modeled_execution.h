// File: sim/modeled_execution.h (internal to sim/)
//
// The simulator's two execution models (sim/execution.h), sharing one
// mechanism. An attempt progresses through segments: the whole task, or one
// phase (monotask) at a time. A segment has a nominal length (its time alone
// on an idle machine) and wants some of the machine's cpu, disk and network:
// a whole task its usage vector, a cpu phase one core, a disk or net phase
// the machine's full bandwidth. While the running segments on a machine want
// no more of any resource than it has, each progresses at rate 1. When they
// want more, their rates are the max-min fair allocation of the machine's
// cpu, disk and network (sim/maxmin_sharing.h): each segment is an activity
// capped at rate 1 that uses want_r of resource r per unit of rate, weighted
// so that progressive filling raises every segment's dominant share equally
// (docs/model.md, "Sharing"). No resource then delivers more than its
// capacity, and what a capped segment cannot use goes to the others. A
// segment uses want x rate of each resource and, for a phase, holds it.
//   - FixedExecution: sharing only. A task that its machine can serve runs
//     for its duration; memory is not charged.
//   - ContentionExecution: the same sharing, and memory used beyond a
//     machine's capacity kills the newest attempts (outcome failed,
//     retried), as an out-of-memory killer would.
// A profiled phase (RAS Table 2) is a segment like a whole task: it lasts its
// duration alone, wants its usage's cpu, disk and network and holds its
// demand, memory included; between segments the attempt keeps holding its
// last phase's demand (the engine moves the reservation; a phase that grows
// may wait for room: sim/profiled_phases.cc).
// In both, failures are injected partway with the run's task_failure_prob.
// What an attempt used and held is integrated over time, so its account is
// exact for piecewise-constant rates.
// Not thread-safe; owned by one engine.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/random.h"
#include "model/machine_profile.h"
#include "model/workload.h"
#include "policy/cluster_state.h"
#include "sim/execution.h"
#include "sim/maxmin_sharing.h"

namespace weft::sim {

class ModeledExecution : public Execution {
 public:
  ModeledExecution(const Workload& workload, const policy::ClusterState& cluster, EventQueue& queue,
                   ExecutionHost& host, Rng failure_rng, double task_failure_prob, const MachineProfile& profile);

  void Begin(uint32_t slot, const ExecutionAttempt& attempt) override;
  void RunSegment(uint32_t slot, const ExecutionAttempt& attempt) override;
  void OnSegmentEvent(const Event& e) override;
  AttemptAccount End(uint32_t slot, const ExecutionAttempt& attempt) override;

 protected:
  // Contended: memory beyond capacity is charged (the out-of-memory killer),
  // and every running segment's progress is tracked at every change.
  virtual bool Contended() const = 0;

 private:
  using Area = std::array<double, kNumResources>;  // micro-units x microseconds
  static constexpr uint32_t kNoActivity = UINT32_MAX;

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
    uint32_t activity = kNoActivity;  // its activity in sharing_, while its machine is or was oversubscribed
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
  // Recompute: rates, uses and end events on machine m after the set of
  // running segments there changed (`changed` is the slot that changed).
  void Recompute(MachineId m, uint32_t changed);
  // ShareOut: every running segment's rate on oversubscribed machine m, from
  // the max-min solution.
  void ShareOut(MachineId m);
  // ChargeOvercommit: the profile's over-commit costs on oversubscribed
  // machine m: its cpu and disk constraints shrink to what k runnable cores
  // per core or s disk streams deliver (docs/model.md, "The machine profile").
  void ChargeOvercommit(MachineId m, uint32_t first_constraint);
  // LeaveSharing: the segment no longer competes (it ended or stopped).
  void LeaveSharing(Work& w);
  // Update: the attempt's use and holding and, with `reschedule`, its end
  // event at its current rate.
  void Update(uint32_t slot, TimeUs now, bool reschedule);
  void SetUse(uint32_t slot, Work& w, const Resources& use, const Resources& hold);
  bool Oversubscribed(MachineId m) const;
  // EnforceMemory: the out-of-memory killer, past memory + swap.
  void EnforceMemory(MachineId m);
  // PagingRate: the rate machine m's work runs at while its memory in use is
  // beyond its capacity, within swap (docs/model.md, "Paging"); 1 otherwise,
  // and always in the fixed model (memory is not charged there).
  double PagingRate(MachineId m) const;
  // RefreshPaging: after machine m's memory in use changed, its rates move
  // if its paging rate did.
  void RefreshPaging(MachineId m);
  void ReportPhase(uint32_t slot, Work& w, bool completed);

  const Workload& w_;
  const policy::ClusterState& cluster_;
  EventQueue& queue_;
  ExecutionHost& host_;
  Rng failure_rng_;
  double task_failure_prob_;
  MachineProfile profile_;
  std::vector<Work> work_;                          // by attempt slot
  std::vector<std::vector<uint32_t>> on_machine_;   // begun attempts, in launch order
  std::vector<Resources> wanted_;                   // per machine: sum of running segments' want
  // The machines' cpu, disk and network as constraints (kSharedResources
  // order, three per machine), and the running segments of machines that are
  // or were oversubscribed as activities.
  MaxMinSharing sharing_;
  std::vector<uint8_t> was_over_;                   // per machine: oversubscribed at the last Recompute
  std::vector<double> paging_rate_;                 // per machine: PagingRate at the last Recompute
  std::vector<double> activity_cap_;                // per machine: the cap its activities have in sharing_
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
