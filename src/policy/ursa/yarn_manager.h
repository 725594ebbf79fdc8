// File: policy/ursa/yarn_manager.h
//
// UrsaYarnManager: the job manager of `ursa-yarn`, Ursa on YARN (Y+U,
// 002_872a20c16a9dbee0.txt section 5.1.2): Ursa's monotask execution layer
// in per-job containers, as MonoSpark would run. At its start the job asks
// YARN (the shared container protocol, common/container_protocol.h, granted
// FIFO by baseline/executor's scheduler) for `executors` containers of
// `executor_cpu` cores and `executor_mem` GB (Y+S's size; raised to the
// job's largest stage demand so that every task fits), keeps them for its
// life, and runs its ready tasks (stage, then index order) in the first
// held container with room (common/container_pool.h). A task with phases
// reserves only its memory there, and its monotasks wait in that
// container's own per-resource queues at the node agent (kInContainer, sent
// just before the launch), whose cpu limit is the container's cores: no
// resource is shared across jobs. Not thread-safe (one role).
#pragma once

#include <deque>

#include "policy/common/container_pool.h"
#include "policy/common/container_protocol.h"
#include "policy/roles.h"

namespace weft::policy::ursa {

struct YarnConfig {
  int64_t executors = 4;
  double executor_cpu = 4;
  double executor_mem = 8;
};

class UrsaYarnManager final : public JobManager {
 public:
  UrsaYarnManager(Context& ctx, JobId job, const YarnConfig& config);

  void OnStart() override;
  void OnTasksReady(const TaskRange& tasks) override;
  void OnTaskEnded(const TaskEnd& end) override;
  void OnContainerGranted(const ContainerInfo& container) override;
  void OnContainerLost(const ContainerInfo& container) override;

 private:
  // Reserve: what task t reserves in a container (its memory when it runs
  // as monotasks, else its demand).
  Resources Reserve(const TaskRef& t) const;
  void Fill();

  YarnConfig config_;
  Resources floor_;
  ContainerRequester requester_;
  ContainerPool pool_;
  std::deque<TaskRef> ready_;
};

}  // namespace weft::policy::ursa
