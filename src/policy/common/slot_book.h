// File: policy/common/slot_book.h
//
// Hadoop-style task slots, shared by the slot schedulers (fair-slots, ras).
//
// SlotKind: whether a stage's tasks run in map or reduce slots. A stage whose
// kind (JobView::stage_kind) says "map" or "reduce" is that; otherwise a stage
// with parents is a reduce stage and a source stage a map stage, so any DAG maps onto the two
// slot types of Hadoop 1 (a chain's later stages all count as reducers).
//
// SlotBook counts the tasks each machine runs per slot kind, and each job's
// per machine, as the owner reports launches and ends. Plain data, no
// Context: unit-testable alone. Not thread-safe; owned by one role.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "policy/job_view.h"

namespace weft::policy {

enum class SlotKind : uint8_t { kMap = 0, kReduce = 1 };
inline constexpr int kNumSlotKinds = 2;

// StageSlotKind: the slot kind of stage `s` of `job` (see the file comment).
SlotKind StageSlotKind(const JobView& job, uint32_t s);

class SlotBook {
 public:
  explicit SlotBook(size_t machines) : machine_(machines) {}

  // Start counts a task of `job` launched on `m` in a `kind` slot; End undoes
  // it (precondition: a matching Start).
  void Start(JobId job, MachineId m, SlotKind kind);
  void End(JobId job, MachineId m, SlotKind kind);

  uint32_t on_machine(MachineId m, SlotKind kind) const { return machine_[m.value()][Index(kind)]; }
  uint32_t of_job(JobId job, SlotKind kind) const;
  uint32_t of_job_on(JobId job, MachineId m, SlotKind kind) const;

  // ForEachPlaced calls `f(job, machine, kind, count)` for every (job,
  // machine, kind) that runs tasks, in no particular order: a caller that
  // wants the whole jobs x machines picture reads only where tasks are.
  template <typename F>
  void ForEachPlaced(F&& f) const {
    for (const auto& [key, counts] : job_machine_) {
      for (SlotKind kind : {SlotKind::kMap, SlotKind::kReduce}) {
        if (counts[Index(kind)] > 0) f(JobId(static_cast<uint32_t>(key >> 32)), MachineId(static_cast<uint32_t>(key)), kind, counts[Index(kind)]);
      }
    }
  }

 private:
  static int Index(SlotKind k) { return static_cast<int>(k); }
  static uint64_t Key(JobId job, MachineId m) { return (uint64_t{job.value()} << 32) | m.value(); }

  std::vector<std::array<uint32_t, kNumSlotKinds>> machine_;
  absl::flat_hash_map<uint32_t, std::array<uint32_t, kNumSlotKinds>> job_;
  absl::flat_hash_map<uint64_t, std::array<uint32_t, kNumSlotKinds>> job_machine_;
};

}  // namespace weft::policy
