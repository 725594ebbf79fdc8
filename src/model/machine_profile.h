// File: model/machine_profile.h
//
// MachineProfile: the costs the execution model charges beyond max-min
// sharing (docs/model.md, "The machine profile"), read from a profile file
// (trace/profile_reader.h; `--profile FILE` on weft sim, compare and sweep).
// Every cost defaults to 0: with none, results are those of the pure max-min
// model. Plain data; a calibration of real nodes is to measure real values.
#pragma once

#include <string>

namespace weft {

struct MachineProfile {
  std::string name;  // the file's "name", for summary.json; empty when none was given
  // Seconds from a launch decision to the task starting on its machine,
  // beyond the message latency (a process or container starting).
  double launch_s = 0;
  // Seconds a scheduler replica spends on each launch decision; decisions
  // queue behind one another, so a busy scheduler delays launches.
  double decision_s = 0;
  // Seconds a scheduler replica spends on each policy message it sends or
  // receives, in the same queue as its decisions.
  double message_s = 0;
  // Period of the machines' heartbeats: a container granted on a machine
  // reaches its job at the machine's next heartbeat (YARN grants on a
  // NodeManager heartbeat). 0: at once.
  double heartbeat_s = 0;
  // Throughput lost per unit of cpu over-subscription: k times as many
  // runnable cores wanted as a machine has deliver C / (1 + loss (k - 1)).
  double cpu_oversubscription_loss = 0;
  // Throughput lost per extra disk stream on a disk asked for more than it
  // has: s streams deliver B / (1 + loss (s - 1)) (seeks between them).
  double disk_stream_loss = 0;
  // Slowdown of a machine's work per unit of paged-out share: with memory
  // used U above capacity M (within M + swap), every task on the machine
  // runs at 1 / (1 + paging (U - M) / U).
  double paging_slowdown = 0;

  bool given() const {
    return !name.empty() || launch_s > 0 || decision_s > 0 || message_s > 0 || heartbeat_s > 0 ||
           cpu_oversubscription_loss > 0 || disk_stream_loss > 0 || paging_slowdown > 0;
  }
};

}  // namespace weft
