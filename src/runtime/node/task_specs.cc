// File: runtime/node/task_specs.cc
#include "runtime/node/task_specs.h"

#include <optional>
#include <string>

#include "fmt/format.h"
#include "runtime/node/data_address.h"

namespace weft::runtime {

// A task's memory limit is its reservation plus this much for the process
// itself (a shell, the pages a built-in task writes besides the memory its
// profile holds): a task using what it reserved is not killed by its own
// overhead, and one using more is.
constexpr int64_t kMemHeadroomBytes = int64_t{32} << 20;

TaskSpec TaskSpecOf(uint64_t id, const v1::Launch& l) {
  const TimeUs burn = l.duration_us() < kInstantBuiltinUs ? 0 : l.duration_us();
  TaskSpec spec{id, l.label(), std::nullopt, burn};
  if (l.has_command()) {
    spec.command = l.command();
    spec.env = {{"WEFT_JOB", l.job()}, {"WEFT_STAGE", l.stage()}, {"WEFT_TASK", std::to_string(l.task())}};
  }
  return spec;
}

absl::StatusOr<TaskSpec> PhaseSpec(uint64_t id, const v1::Launch& launch, const v1::PhaseStart& start) {
  TaskSpec spec{id, fmt::format("{}-p{}", launch.label(), start.phase()), std::nullopt, 0};
  if (launch.has_command()) {
    spec.command = launch.command();
    spec.env = {{"WEFT_JOB", launch.job()},
                {"WEFT_STAGE", launch.stage()},
                {"WEFT_TASK", std::to_string(launch.task())},
                {"WEFT_PHASE", std::to_string(start.phase())},
                {"WEFT_PHASE_RESOURCE", start.resource()},
                {"WEFT_PHASE_NAME", start.name()}};
  } else if (start.duration_us() > 0) {
    spec.builtin_work = BuiltinWork::kProfile;
    spec.builtin_duration_us = start.duration_us();
    spec.builtin_profile = {.cores = start.usage().cpu(),
                            .mem_gb = start.usage().mem(),
                            .disk_mbps = start.usage().disk(),
                            .net_mbps = start.usage().net()};
  } else if (start.resource() == "disk") {
    spec.builtin_work = BuiltinWork::kDisk;
    spec.builtin_mb = start.work();
  } else if (start.resource() == "net") {
    spec.builtin_work = BuiltinWork::kNet;
    spec.builtin_mb = start.work();
  } else {
    // cpu work is core-seconds; a memory phase (which holds, not consumes) burns nothing.
    const TimeUs burn = start.resource() == "cpu" ? static_cast<TimeUs>(start.work() * 1e6) : 0;
    spec.builtin_duration_us = burn < kInstantBuiltinUs ? 0 : burn;
  }
  const bool moves_bytes = spec.builtin_work == BuiltinWork::kNet ||
                           (spec.builtin_work == BuiltinWork::kProfile && spec.builtin_profile.net_mbps > 0);
  if (!launch.has_command() && moves_bytes && start.has_pull()) {
    absl::StatusOr<DataPull> pull = PullOf(start.pull());
    if (!pull.ok()) return pull.status();
    spec.builtin_pull = *pull;
  }
  return spec;
}

absl::StatusOr<TaskSpec> CopySpec(uint64_t id, const v1::DataCopy& copy) {
  absl::StatusOr<DataPull> pull = PullOf(copy.pull());
  if (!pull.ok()) return pull.status();
  TaskSpec spec{id, fmt::format("copy-{}-{}", copy.attempt(), copy.pull().transfer()), std::nullopt, 0};
  spec.builtin_work = BuiltinWork::kNet;
  spec.builtin_mb = static_cast<double>(copy.pull().bytes()) / 1e6;
  spec.builtin_pull = *pull;
  return spec;
}

absl::StatusOr<DataPull> PullOf(const v1::DataPull& pull) {
  DataPull out;
  if (!ParseDataAddress(pull.address(), out.address, out.address_len)) {
    return absl::InvalidArgumentError(fmt::format("a data pull from \"{}\", not a numeric HOST:PORT", pull.address()));
  }
  const std::optional<DataTicketBytes> ticket = TicketFrom(pull.ticket());
  if (!ticket) return absl::InvalidArgumentError(fmt::format("a data pull's ticket of {} bytes", pull.ticket().size()));
  out.request = EncodeDataRequest(DataRequest{.transfer = pull.transfer(), .ticket = *ticket, .bytes = pull.bytes()});
  out.bytes = pull.bytes();
  return out;
}

void SetContainer(TaskSpec& spec, size_t link, const v1::Launch& launch) {
  if (launch.container() == 0) return;
  spec.container = fmt::format("c{}-{}", link, launch.container() - 1);
  spec.container_cores = launch.container_size().cpu();
  spec.container_mem_bytes = static_cast<int64_t>(launch.container_size().mem() * 1e9);
}

void SetLimits(TaskSpec& spec, const Resources& reserve, ResourceMask overbooked) {
  if (!spec.container.empty()) return;
  if (!InMask(overbooked, kCpu) && reserve.micro(kCpu) > 0) spec.limit_cores = reserve.units(kCpu);
  if (!InMask(overbooked, kMem) && reserve.micro(kMem) > 0) {
    spec.limit_mem_bytes = static_cast<int64_t>(reserve.units(kMem) * 1e9) + kMemHeadroomBytes;
  }
}

}  // namespace weft::runtime
