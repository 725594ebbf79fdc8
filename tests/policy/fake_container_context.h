// File: tests/policy/fake_container_context.h
//
// FakeContainerContext: a Context for tests of the job-side container books
// (ContainerPool, IndexedContainerPool) that knows a set of containers and
// accepts or refuses launches; everything else is unused.
#pragma once

#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "policy/context.h"

namespace weft::policy {

class FakeContainerContext final : public Context {
 public:
  FakeContainerContext() : state_(cluster_) {}

  // The platform's containers; a container not here "does not exist".
  absl::flat_hash_map<uint32_t, ContainerInfo> containers;
  std::vector<std::pair<TaskRef, ContainerId>> launched;
  bool refuse = false;

  Address self() const override { return Address::JobManager(JobId(0)); }
  TimeUs Now() const override { return 0; }
  Rng& rng() override { throw std::logic_error("unused"); }
  uint32_t num_schedulers() const override { return 1; }
  const ClusterState& cluster() const override { return state_; }
  JobView job(JobId) const override { throw std::logic_error("unused"); }
  std::span<const JobId> active_jobs() const override { return {}; }
  const ContainerInfo* container(ContainerId id) const override {
    auto it = containers.find(id.value());
    return it == containers.end() ? nullptr : &it->second;
  }
  void Send(const Address&, Message) override {}
  TimerId SetTimer(TimeUs, uint64_t) override { return TimerId::kNone; }
  bool CancelTimer(TimerId) override { return false; }
  absl::Status Launch(const TaskRef&, MachineId) override { return absl::UnimplementedError("unused"); }
  absl::Status LaunchInContainer(const TaskRef& task, ContainerId c) override {
    if (refuse) return absl::FailedPreconditionError("refused");
    launched.emplace_back(task, c);
    return absl::OkStatus();
  }
  absl::Status Kill(const TaskRef&) override { return absl::UnimplementedError("unused"); }
  absl::StatusOr<ContainerId> GrantContainer(JobId, MachineId, const Resources&) override {
    return absl::UnimplementedError("unused");
  }
  absl::Status ReleaseContainer(ContainerId) override { return absl::UnimplementedError("unused"); }
  absl::Status StartPhase(const TaskRef&) override { return absl::UnimplementedError("unused"); }

  // Grant makes container `id` of `size` exist and returns its info.
  ContainerInfo Grant(uint32_t id, const Resources& size, uint32_t machine = 0) {
    ContainerInfo info{ContainerId(id), JobId(0), MachineId(machine), size, Resources(), Resources(), 0, Address::Scheduler(0)};
    containers[id] = info;
    return info;
  }

 private:
  Cluster cluster_;
  ClusterState state_;
};

}  // namespace weft::policy
