// File: policy/common/container_pool.h
//
// ContainerPool: a job manager's book of the containers it holds (granted to
// its job and not yet lost or released), what each has free, and the first
// one where a task fits. Two-level designs share it: Spark-like executors
// (baseline/executor), COBRA's job-side packing of tasks into containers and
// RAS's per-job containers all keep this same bookkeeping.
//
// The pool keeps its own account of what is in use, updated when its owner
// launches a task (Launch) and when it hears the task ended (Ended). That
// account is what the owner knows from its own messages, so with latency it
// is conservative: room a task frees becomes usable when the owner hears of
// the end, as it would in a real job manager. The platform's ContainerInfo is
// consulted for one thing only: whether a container still exists, because a
// container dies with its machine before OnContainerLost reaches its holder.
//
// Also here: the encoding of a Resources vector in a Message's list, which
// container requests between roles use.
//
// Costs: Launch and FirstFit are linear in the containers held (a job holds
// a handful; indexed_container_pool.h for one that holds hundreds). Not
// thread-safe; owned by one role.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/ids.h"
#include "model/resources.h"
#include "policy/context.h"

namespace weft::policy {

class ContainerPool {
 public:
  struct Entry {
    ContainerId id;
    MachineId machine;
    Resources size;
    Resources in_use;  // demands of the tasks the owner launched in it and has not heard end
    uint32_t tasks = 0;
  };

  // Add records a container granted to the owner (OnContainerGranted). A
  // container already held is left as it is.
  void Add(const ContainerInfo& container);
  // Remove forgets a container (lost with its machine, or released); false
  // when it was not held.
  bool Remove(ContainerId id);

  const Entry* Find(ContainerId id) const;
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  // The held containers, in increasing id (grant) order.
  const std::vector<Entry>& entries() const { return entries_; }

  // FirstFit returns the held container with the lowest id whose free room
  // holds `demand` and that still exists on the platform, or an invalid id.
  ContainerId FirstFit(const Resources& demand, const Context& ctx) const;
  // Holds: some held container could hold `demand` if it were empty, by
  // every resource outside `unfitted` (the policy's `fit` parameter). The
  // other functions take that mask from the context's cluster: a task goes
  // into a container by the resources the policy fits, as it goes onto a
  // machine.
  bool Holds(const Resources& demand, ResourceMask unfitted) const;

  // Launch runs ready `task` (whose demand is `demand`) in FirstFit's
  // container through ctx.LaunchInContainer and records the use. Returns the
  // container, or an invalid id when no container has room or the platform
  // refused (then nothing changes).
  ContainerId Launch(Context& ctx, const TaskRef& task, const Resources& demand);
  // LaunchIn runs `task` in the held container `id` (the owner chose it,
  // e.g. for locality) if its free room holds `demand`; false (nothing
  // changes) when it does not, the container is gone or the platform refused.
  bool LaunchIn(Context& ctx, const TaskRef& task, const Resources& demand, ContainerId id);
  // Ended: a task the owner launched in `id` ended (OnTaskEnded); its demand
  // is free again. A container no longer held is ignored.
  void Ended(ContainerId id, const Resources& demand);

  // Idle returns the held containers that run no task, in id order (for
  // policies that give containers back when they are not needed).
  std::vector<ContainerId> Idle() const;
  // Total size and total use over the held containers.
  Resources TotalSize() const;
  Resources TotalInUse() const;

 private:
  Entry* FindMutable(ContainerId id);

  std::vector<Entry> entries_;  // sorted by id
};

// EncodeResources / DecodeResources: a Resources vector as kNumResources
// micro-unit integers in Resource order (cpu, mem, disk, net), for
// Message::list. Decode reads missing trailing entries and negative ones as
// 0 and ignores extra ones, so adding a resource kind stays wire-compatible.
std::vector<int64_t> EncodeResources(const Resources& r);
Resources DecodeResources(std::span<const int64_t> list);

}  // namespace weft::policy
