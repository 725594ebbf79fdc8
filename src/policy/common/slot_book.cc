#include "policy/common/slot_book.h"

namespace weft::policy {

SlotKind StageSlotKind(const JobView& job, uint32_t s) {
  const std::string_view kind = job.stage_kind(s);
  if (kind == "map") return SlotKind::kMap;
  if (kind == "reduce") return SlotKind::kReduce;
  return job.parents(s).empty() ? SlotKind::kMap : SlotKind::kReduce;
}

void SlotBook::Start(JobId job, MachineId m, SlotKind kind) {
  ++machine_[m.value()][Index(kind)];
  ++job_[job.value()][Index(kind)];
  ++job_machine_[Key(job, m)][Index(kind)];
}

void SlotBook::End(JobId job, MachineId m, SlotKind kind) {
  --machine_[m.value()][Index(kind)];
  // Entries that fall to zero are erased, so finished jobs leave nothing.
  auto drop = [&](auto& map, auto key) {
    auto it = map.find(key);
    --it->second[Index(kind)];
    if (it->second == std::array<uint32_t, kNumSlotKinds>{}) map.erase(it);
  };
  drop(job_, job.value());
  drop(job_machine_, Key(job, m));
}

uint32_t SlotBook::of_job(JobId job, SlotKind kind) const {
  auto it = job_.find(job.value());
  return it == job_.end() ? 0 : it->second[Index(kind)];
}

uint32_t SlotBook::of_job_on(JobId job, MachineId m, SlotKind kind) const {
  auto it = job_machine_.find(Key(job, m));
  return it == job_machine_.end() ? 0 : it->second[Index(kind)];
}

}  // namespace weft::policy
