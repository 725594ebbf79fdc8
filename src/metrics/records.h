// File: metrics/records.h
//
// What a run reports as it goes: one AttemptRecord per task attempt when it
// ends, one JobRecord per job when it ends, and AttemptStart when an attempt
// starts. RunObserver receives them in simulated-time order; the results
// writers, the metrics and the schedule checker are observers, so a run with
// tens of millions of tasks never holds its schedule in memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/ids.h"
#include "core/time.h"
#include "model/resources.h"

namespace weft {

// How an attempt ended.
enum class Outcome : uint8_t { kOk, kFailed, kKilled };

enum class Locality : uint8_t { kNone, kNode, kRack, kRemote };
const char* LocalityName(Locality l);
const char* OutcomeName(Outcome o);

struct AttemptStart {
  TaskRef task;
  uint32_t attempt = 0;
  MachineId machine;
  TimeUs time_us = 0;
  Resources demand;  // what the attempt holds while it runs
};

struct AttemptRecord {
  TaskRef task;
  uint32_t attempt = 0;  // 0-based
  MachineId machine;
  TimeUs ready_us = 0;
  TimeUs start_us = 0;
  TimeUs end_us = 0;
  Outcome outcome = Outcome::kOk;
  Resources demand;  // reserved at launch (tasks.csv cpu..net)
  Resources usage;   // measured: the time average of what it really used
  Locality locality = Locality::kNone;
  bool in_container = false;
  // held: the time average of what the attempt held, when that is not its
  // demand: a task with phases holds its memory for the whole attempt and
  // each phase's resource only while that phase runs. nullopt: the demand.
  std::optional<Resources> held;
  const Resources& Held() const { return held ? *held : demand; }
};

// PhaseRecord: one phase (monotask) of an attempt, from when it started to
// when it ended or the attempt was stopped (completed = false).
struct PhaseRecord {
  TaskRef task;
  uint32_t attempt = 0;
  uint32_t phase = 0;
  Resource resource = kCpu;
  MachineId machine;
  TimeUs start_us = 0;
  TimeUs end_us = 0;
  double held = 0;  // time average of the resource held, in its units (cores, MB/s)
  bool completed = true;
  bool in_container = false;
};

// FlowRecord: bytes an attempt moved between machines over the network
// (sim/network_flows.h): its remote input read, or one machine's share of its
// shuffle's copies; done = false when the attempt ended first (mb is then
// what was carried).
enum class FlowKind : uint8_t { kRemoteRead, kShuffle };
struct FlowRecord {
  TaskRef task;
  uint32_t attempt = 0;
  FlowKind kind = FlowKind::kRemoteRead;
  MachineId from;
  MachineId to;
  TimeUs start_us = 0;
  TimeUs end_us = 0;
  double mb = 0;
  bool done = true;
};

// ReservationChange: an attempt with profiled phases moved its reservation
// to the demand of its phase `phase` (its launch reserved phase 0's).
struct ReservationChange {
  TaskRef task;
  uint32_t attempt = 0;
  uint32_t phase = 0;
  MachineId machine;
  TimeUs time_us = 0;
  Resources demand;  // reserved from now on
};

struct JobRecord {
  JobId job;
  TimeUs arrival_us = 0;
  TimeUs start_us = 0;  // first attempt start; arrival when nothing ever started
  TimeUs end_us = 0;
  bool succeeded = true;
};

// ContainerRecord: a container held from grant to release (or loss).
struct ContainerRecord {
  JobId job;
  MachineId machine;
  TimeUs granted_us = 0;
  TimeUs released_us = 0;
  Resources size;
};

// SeriesPoint: a named value a policy recorded at `time_us`
// (policy::Context::Record); `job` is JobId() when it is of no one job. The
// name is only valid during the call.
struct SeriesPoint {
  TimeUs time_us = 0;
  std::string_view series;
  JobId job;
  double value = 0;
};

// Observers are called in simulated-time order; at one instant, an attempt's
// end is reported before any start it makes possible.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void OnAttemptStart(const AttemptStart& /*start*/) {}
  virtual void OnAttemptEnd(const AttemptRecord& /*record*/) {}
  // OnPhaseEnd: a phase ended; reported before its attempt's end.
  virtual void OnPhaseEnd(const PhaseRecord& /*record*/) {}
  // OnFlowEnd: a flow ended; reported before its attempt's end.
  virtual void OnFlowEnd(const FlowRecord& /*record*/) {}
  // OnReservationChange: a profiled phase's demand replaced the attempt's
  // reservation (between its start and its end).
  virtual void OnReservationChange(const ReservationChange& /*change*/) {}
  virtual void OnJobEnd(const JobRecord& /*record*/) {}
  virtual void OnContainerEnd(const ContainerRecord& /*record*/) {}
  // OnSeries: a policy recorded a value (policy::Context::Record).
  virtual void OnSeries(const SeriesPoint& /*point*/) {}
  // OnRunEnd: the simulation is over at `end_us`.
  virtual void OnRunEnd(TimeUs /*end_us*/) {}
};

}  // namespace weft
