#include "runtime/scheduler/attempt_launches.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "fmt/format.h"
#include "model/names.h"
#include "runtime/wire.h"

namespace weft::runtime {

void AttemptLaunches::Launch(const sim::AttemptLaunch& launch) {
  const Job& job = live_.jobs[launch.task.job.value()];
  const Stage& stage = job.stages[launch.task.stage];
  v1::Launch* l = outbox_.AddLaunch(launch.machine.value());
  l->set_attempt(launch.id);
  l->set_label(fmt::format("{}-{}-{}-{}", replica_.Global(launch.task.job.value()), stage.name,
                           launch.task.index, launch.attempt));
  if (!stage.command.empty()) {
    l->set_has_command(true);
    l->set_command(ExpandCommand(stage.command, job.name, stage.name, launch.task.index));
    l->set_job(job.name);
    l->set_stage(stage.name);
    l->set_task(launch.task.index);
  }
  l->set_duration_us(stage.TaskDuration(launch.task.index));
  l->set_phases(launch.phases);
  if (launch.container.valid()) {
    l->set_container(uint64_t{launch.container.value()} + 1);
    *l->mutable_container_size() = ToProto(launch.container_size);
  }
  if (auto it = reservations_.find(KeyOf(launch.task, launch.attempt)); it != reservations_.end()) {
    *l->mutable_reserve() = ToProto(it->second.reserve);
    if (stage.HasProfiledPhases()) {
      it->second.id = launch.id;  // its moves go to the node until it ends
    } else {
      reservations_.erase(it);
    }
  }
}

void AttemptLaunches::OnStart(const AttemptStart& start) {
  reservations_[KeyOf(start.task, start.attempt)] = Reservation{start.demand, 0};
}

void AttemptLaunches::OnChange(const ReservationChange& change) {
  auto it = reservations_.find(KeyOf(change.task, change.attempt));
  if (it == reservations_.end()) return;
  it->second.reserve = change.demand;
  if (it->second.id == 0) return;  // not on its node yet: its Launch will say it
  v1::ReservationMove* move = outbox_.AddMove(change.machine.value());
  move->set_attempt(it->second.id);
  *move->mutable_reserve() = ToProto(change.demand);
}

void AttemptLaunches::OnEnd(const TaskRef& task, uint32_t attempt) { reservations_.erase(KeyOf(task, attempt)); }

void AttemptLaunches::StartPhase(uint64_t id, MachineId machine, const TaskRef& task, uint32_t phase) {
  const Stage& stage = live_.jobs[task.job.value()].stages[task.stage];
  const Phase& p = stage.phases[phase];
  // A task's `durations` entry scales each of its phases' work, as in simulation.
  double factor = 1;
  if (!stage.durations_us.empty() && stage.duration_us > 0) {
    factor = static_cast<double>(stage.TaskDuration(task.index)) / static_cast<double>(stage.duration_us);
  }
  v1::PhaseStart* s = outbox_.AddPhaseStart(machine.value());
  s->set_attempt(id);
  s->set_phase(phase);
  s->set_name(p.name);
  if (p.profiled) {
    // ...and each profiled phase's length (its usage is a rate).
    s->set_resource("profiled");
    s->set_duration_us(std::max<int64_t>(1, std::llround(static_cast<double>(p.duration_us) * factor)));
    *s->mutable_usage() = ToProto(p.usage);
    // MB/s is bytes per microsecond.
    const double net_bytes = p.usage.units(kNet) * static_cast<double>(s->duration_us());
    if (stage.command.empty() && net_bytes >= 1) PullNetBytes(machine, task, static_cast<uint64_t>(net_bytes), *s);
    return;
  }
  s->set_resource(std::string(kResourceNames[p.resource]));
  s->set_work(p.work * factor);
  const double net_bytes = s->work() * 1e6;
  if (stage.command.empty() && p.resource == kNet && net_bytes >= 1) {
    PullNetBytes(machine, task, static_cast<uint64_t>(net_bytes), *s);
  }
}

// The source, as the simulator's remote read picks one (sim/locality.cc):
// a node holding the task's input other than its own, in its rack before
// one elsewhere, the first listed among equals; with none (no input, or
// only here) its own node, so the bytes still cross a real TCP connection
// through a data port, as they would from a peer.
void AttemptLaunches::PullNetBytes(MachineId machine, const TaskRef& task, uint64_t bytes, v1::PhaseStart& s) {
  const Stage& stage = live_.jobs[task.job.value()].stages[task.stage];
  const RackId rack = live_.cluster.machine(machine).rack;
  std::optional<MachineId> best;
  for (const MachineId m : stage.Preferences(task.index)) {
    if (m == machine || !transfers_.Serves(m.value())) continue;
    if (!best || (live_.cluster.machine(m).rack == rack && live_.cluster.machine(*best).rack != rack)) best = m;
  }
  const MachineId from = best.value_or(machine);
  if (!transfers_.Serves(from.value())) return;  // it moves its bytes to itself, as a node without a data port does
  transfers_.Issue(from.value(), bytes, *s.mutable_pull());
}

}  // namespace weft::runtime

namespace weft::runtime {

bool AttemptLaunches::CopyBytes(uint64_t id, MachineId to, MachineId from, double mb) {
  const auto bytes = static_cast<uint64_t>(std::llround(std::max(0.0, mb) * 1e6));
  v1::DataCopy copy;
  copy.set_attempt(id);
  if (bytes == 0 || !transfers_.Issue(from.value(), bytes, *copy.mutable_pull())) return false;
  *outbox_.AddCopy(to.value()) = std::move(copy);
  return true;
}

}  // namespace weft::runtime
