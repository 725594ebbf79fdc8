// File: sim/container_table.h (internal to sim/)
//
// ContainerTable: the containers granted and not yet released or lost, with
// what each holds: the reservations of the tasks launched in it (in_use, a
// count of tasks) and what they really use now (used). Ids are handed out in
// grant order and never reused. The engine decides when a container is
// granted or ends and charges its size to the machine; the table only keeps
// the containers' own books.
// Not thread-safe; owned by one engine.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "core/time.h"
#include "model/resources.h"
#include "policy/context.h"

namespace weft::sim {

class ContainerTable {
 public:
  // Find: the container `c`, or nullptr when it does not exist (never
  // granted, released, or lost with its machine).
  const policy::ContainerInfo* Find(ContainerId c) const {
    const auto it = containers_.find(c.value());
    return it == containers_.end() ? nullptr : &it->second;
  }
  // SizeOf: the container's size; zero when `c` is invalid or gone.
  Resources SizeOf(ContainerId c) const;

  // Grant records a new container of `size` on machine `m` for `job`,
  // granted by `by` at `now`, and returns it.
  const policy::ContainerInfo& Grant(JobId job, MachineId m, const Resources& size, const policy::Address& by,
                                     TimeUs now);
  // Remove forgets container `c` (which must exist) and returns its record.
  policy::ContainerInfo Remove(ContainerId c);

  // AddTask: a task reserving `reserve` was launched in `c` (which exists).
  void AddTask(ContainerId c, const Resources& reserve);
  // RemoveTask: a task of `c` that reserved `reserved` ended (nothing when
  // the container is gone).
  void RemoveTask(ContainerId c, const Resources& reserved);
  // MoveReservation: a task of `c` moves its reservation from `from` to
  // `to`; false, changing nothing, when what grows does not fit the
  // container's size. True when the container is gone.
  bool MoveReservation(ContainerId c, const Resources& from, const Resources& to, const Resources& grow);
  // UsageChanged: a task of `c` now uses `after` instead of `before`.
  void UsageChanged(ContainerId c, const Resources& before, const Resources& after);

  // OfJob, OnMachine: the ids of the job's containers, of the containers on
  // machine `m`, in increasing order (the order the engine ends them in).
  std::vector<uint32_t> OfJob(JobId job) const;
  std::vector<uint32_t> OnMachine(MachineId m) const;

 private:
  absl::flat_hash_map<uint32_t, policy::ContainerInfo> containers_;
  uint32_t next_ = 0;
};

}  // namespace weft::sim
