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
#include "model/resources.h"
#include "policy/common/container_pool.h"
#include "policy/common/machine_finder.h"
#include "policy/common/ready_pool.h"
#include "policy/roles.h"

namespace weft::policy::baseline {

// Messages between the executor policy's roles (Message::type).
enum ExecutorMessage : uint32_t {
  // job manager -> scheduler: grant the sender's job `a` more containers,
  // each of at least `list` (EncodeResources: micro-units per resource, in
  // Resource order) as ContainerSizeOn gives it on the machine. b = 1 asks
  // for an exact grant: only on a machine whose capacity holds all of
  // `list` (no cutting down); b = 0 accepts a size cut to a smaller
  // machine. The job is the sender's (Address::index); task and c are
  // unused. There is no reply message: the grant is the answer
  // (OnContainerGranted).
  kRequestContainers = 1,
};

struct ExecutorConfig {
  uint32_t executors = 4;
  Resources executor;  // cores and memory of one executor (the other components 0)
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
    bool exact = false;
    int64_t count = 0;
    friend bool operator==(const Request& x, const Request& y) { return x.floor == y.floor && x.exact == y.exact; }
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

 private:
  // Request asks the scheduler for `count` containers of at least `floor`
  // (`exact`: not cut down to a smaller machine).
  void Request(const Resources& floor, int64_t count, bool exact);
  // Fill launches ready tasks, stage then index order, into free room.
  void Fill();
  // Rescue asks for a container for a ready stage that fits no held
  // container even when empty, if nothing is outstanding (see executor.h).
  void Rescue();

  ExecutorConfig config_;
  Resources executor_floor_;  // max(executor size, every stage's demand), component-wise
  ReadyPool ready_;
  ContainerPool pool_;
  int64_t outstanding_ = 0;  // containers asked for and not granted yet
};

}  // namespace weft::policy::baseline
