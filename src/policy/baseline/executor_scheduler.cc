// The executor policy's cluster scheduler: YARN's FIFO scheduler reduced to
// what static allocation needs. It holds no tasks, only requests for
// containers (the shared ContainerGranter), and grants them as room appears.
#include "policy/baseline/executor_roles.h"

namespace weft::policy::baseline {
namespace {

// The granter's timers (the response time); the scheduler sets no others.
constexpr uint64_t kGrantTag = 1;

}  // namespace

ExecutorScheduler::ExecutorScheduler(Context& ctx, TimeUs response_time_us, double cpu_oversubscription)
    : ClusterScheduler(ctx), granter_(ctx, response_time_us, kGrantTag, cpu_oversubscription) {}

void ExecutorScheduler::OnMessage(const Address& from, const Message& message) {
  if (from.kind != RoleKind::kJobManager) return;
  const auto request = DecodeContainerRequest(message);
  if (!request) return;
  const JobId job(from.index);
  granter_.Add(job, FifoKey(ctx_.job(job), 0), *request);
  granter_.TryGrant();
}

void ExecutorScheduler::OnTimer(uint64_t tag) {
  if (granter_.OnTimer(tag)) granter_.TryGrant();
}

void ExecutorScheduler::OnJobFinished(JobId job, bool /*succeeded*/) {
  // The job's containers come back with OnContainerReleased, which grants
  // what they make room for.
  granter_.Drop(job);
}

void ExecutorScheduler::OnMachineUp(MachineId machine) {
  granter_.Refresh(machine);
  granter_.TryGrant();
}

void ExecutorScheduler::OnMachineDown(MachineId machine) { granter_.Refresh(machine); }

void ExecutorScheduler::OnContainerReleased(const ContainerInfo& container) {
  granter_.Refresh(container.machine);
  granter_.TryGrant();
}

}  // namespace weft::policy::baseline
