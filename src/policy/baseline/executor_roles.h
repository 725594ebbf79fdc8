// File: policy/baseline/executor_roles.h (internal to the executor policy)
//
// The two roles of the executor policy (executor.h has the design): the
// cluster scheduler that grants containers FIFO across jobs, and the job
// manager that holds its executors and runs its tasks in them. They speak
// the shared container protocol (policy/common/container_protocol.h). Not
// thread-safe; the platform calls each role's handlers one at a time.
#pragma once

#include <cstdint>

#include "core/time.h"
#include "model/resources.h"
#include "policy/common/container_pool.h"
#include "policy/common/container_protocol.h"
#include "policy/common/ready_pool.h"
#include "policy/roles.h"

namespace weft::policy::baseline {

struct ExecutorConfig {
  uint32_t executors = 4;
  Resources executor;  // cores and memory of one executor (the other components 0)
  // How long a job's executors may all sit idle while it has ready tasks
  // none of them can hold before it gives them back (executor.h).
  TimeUs idle_timeout_us = 60 * kUsPerSecond;
  // The time the cluster scheduler takes to grant a request (0: at once).
  TimeUs response_time_us = 0;
};

// The cluster scheduler grants containers FIFO across jobs (priority, then
// arrival: YARN's FIFO scheduler) through the shared ContainerGranter.
class ExecutorScheduler final : public ClusterScheduler {
 public:
  // cpu_oversubscription: the granter's (container_protocol.h); ursa-yarn sets it.
  ExecutorScheduler(Context& ctx, TimeUs response_time_us, double cpu_oversubscription = 1);

  void OnMessage(const Address& from, const Message& message) override;
  void OnTimer(uint64_t tag) override;
  void OnJobFinished(JobId job, bool succeeded) override;
  void OnMachineUp(MachineId machine) override;
  void OnMachineDown(MachineId machine) override;
  void OnContainerReleased(const ContainerInfo& container) override;

 private:
  ContainerGranter granter_;
};

class ExecutorManager final : public JobManager {
 public:
  ExecutorManager(Context& ctx, JobId job, const ExecutorConfig& config);

  void OnStart() override;
  void OnTasksReady(const TaskRange& tasks) override;
  void OnTaskEnded(const TaskEnd& end) override;
  void OnContainerGranted(const ContainerInfo& container) override;
  void OnContainerLost(const ContainerInfo& container) override;
  void OnTimer(uint64_t tag) override;

 private:
  // Fill launches ready tasks, stage then index order, into free room, then
  // runs Rescue and WatchIdle.
  void Fill();
  // Rescue asks for a container for a ready stage that fits no held
  // container even when empty, if nothing is outstanding (see executor.h).
  void Rescue();
  // WatchIdle arms the idle timer when the job holds executors, runs nothing
  // in them and has ready tasks, and disarms it when that stops (executor.h).
  void WatchIdle();
  // GiveBack returns every held executor (all idle) and asks for the job's
  // executors again, only on machines that hold its first ready stage.
  void GiveBack();

  ExecutorConfig config_;
  Resources executor_floor_;  // max(executor size, every stage's demand), component-wise
  ReadyPool ready_;
  ContainerPool pool_;
  ContainerRequester requests_;
  bool idle_timer_armed_ = false;
  uint64_t idle_timer_tag_ = 0;  // the armed timer's tag; older tags are stale
};

}  // namespace weft::policy::baseline
