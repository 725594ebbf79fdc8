// File: policy/baseline/executor_roles.h (internal to the executor policy)
//
// The two roles of the executor policy (executor.h has the design): the
// cluster scheduler that grants containers FIFO across jobs, and the job
// manager that holds its executors and runs its tasks in them; plus the one
// message they exchange. Not thread-safe; the platform calls each role's
// handlers one at a time.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/time.h"
#include "model/resources.h"
#include "policy/common/container_pool.h"
#include "policy/common/machine_finder.h"
#include "policy/common/ready_pool.h"
#include "policy/roles.h"

namespace weft::policy::baseline {

// Messages between the executor policy's roles (Message::type).
enum ExecutorMessage : uint32_t {
  // job manager -> scheduler: grant the sender's job `a` more containers,
  // each of at least `floor` as ContainerSizeOn gives it on the machine, and
  // only on machines whose capacity holds `must_fit` (zero: any machine; the
  // floor itself: an exact grant, never cut down). `list` is
  // EncodeResources(floor) followed by EncodeResources(must_fit). The job is
  // the sender's (Address::index); task, b and c are unused. There is no
  // reply message: the grant is the answer (OnContainerGranted).
  kRequestContainers = 1,
  // job manager -> scheduler: as kRequestContainers, but first drop every
  // request of the sender's job still waiting: these containers replace
  // them (a manager giving back idle executors, executor.h).
  kReplaceRequests = 2,
};

struct ExecutorConfig {
  uint32_t executors = 4;
  Resources executor;  // cores and memory of one executor (the other components 0)
  // How long a job's executors may all sit idle while it has ready tasks
  // none of them can hold before it gives them back (executor.h).
  TimeUs idle_timeout_us = 60 * kUsPerSecond;
};

// ContainerSizeOn: the size a container asked for as `floor` gets on a
// machine of capacity `cap`: disk and net raised to the share of the machine
// in proportion to the floor's cores, then everything cut to the machine.
Resources ContainerSizeOn(const Resources& floor, const Resources& cap);

class ExecutorScheduler final : public ClusterScheduler {
 public:
  explicit ExecutorScheduler(Context& ctx);

  void OnMessage(const Address& from, const Message& message) override;
  void OnJobFinished(JobId job, bool succeeded) override;
  void OnMachineUp(MachineId machine) override;
  void OnMachineDown(MachineId machine) override;
  void OnContainerReleased(const ContainerInfo& container) override;

 private:
  struct Request {
    Resources floor;
    Resources must_fit;  // only machines whose capacity holds it (zero: any)
    int64_t count = 0;
    friend bool operator==(const Request& x, const Request& y) {
      return x.floor == y.floor && x.must_fit == y.must_fit;
    }
  };
  struct JobRequests {
    JobId job;
    std::vector<Request> requests;  // served in order
  };

  // TryGrant grants what fits, jobs in FIFO order.
  void TryGrant();
  // Serve grants the job's requests in order until one finds no room (which
  // it adds to `no_room`) or one like those in `no_room` comes up.
  void Serve(JobRequests& job, std::vector<Request>& no_room);
  // FirstMachine: the lowest-numbered machine where a container for `r`
  // fits, with the size it gets there; an invalid id when none.
  MachineId FirstMachine(const Request& r, Resources* size) const;

  std::map<OrderKey, JobRequests> queue_;          // jobs with requests waiting
  absl::flat_hash_map<uint32_t, OrderKey> key_of_;  // job id -> its key in queue_
  MachineFinder finder_;
  Resources smallest_cap_;  // the least cores and memory of any machine
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
  // Request asks the scheduler for `count` containers of at least `floor`,
  // only on machines whose capacity holds `must_fit` (zero: anywhere);
  // `replace`: these replace every request still waiting.
  void Request(const Resources& floor, int64_t count, const Resources& must_fit, bool replace = false);
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
  int64_t outstanding_ = 0;  // containers asked for and not granted yet
  bool idle_timer_armed_ = false;
  uint64_t idle_timer_tag_ = 0;  // the armed timer's tag; older tags are stale
};

}  // namespace weft::policy::baseline
