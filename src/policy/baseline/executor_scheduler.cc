// The executor policy's cluster scheduler: YARN's FIFO scheduler reduced to
// what static allocation needs. It holds no tasks, only requests for
// containers, and grants them as room appears.
#include <algorithm>
#include <span>

#include "policy/baseline/executor_roles.h"
#include "policy/common/offer_scheduler.h"

namespace weft::policy::baseline {

Resources ContainerSizeOn(const Resources& floor, const Resources& cap) {
  Resources size = floor;
  const int64_t cap_cpu = cap.micro(kCpu);
  for (Resource r : {kDisk, kNet}) {
    // The share of r that goes with the floor's cores; 128-bit so that huge
    // capacities cannot overflow, rounded down so shares never sum past r.
    const int64_t share =
        cap_cpu > 0 ? static_cast<int64_t>(static_cast<__int128>(cap.micro(r)) * floor.micro(kCpu) / cap_cpu) : 0;
    size.set_micro(r, std::max(size.micro(r), share));
  }
  for (int i = 0; i < kNumResources; ++i) {
    const auto r = static_cast<Resource>(i);
    size.set_micro(r, std::min(size.micro(r), cap.micro(r)));
  }
  return size;
}

ExecutorScheduler::ExecutorScheduler(Context& ctx) : ClusterScheduler(ctx), finder_(ctx.cluster()) {
  const ClusterState& cluster = ctx.cluster();
  for (uint32_t m = 0; m < cluster.size(); ++m) {
    for (Resource r : {kCpu, kMem}) {
      const int64_t cap = cluster.capacity(MachineId(m)).micro(r);
      if (m == 0 || cap < smallest_cap_.micro(r)) smallest_cap_.set_micro(r, cap);
    }
  }
}

void ExecutorScheduler::OnMessage(const Address& from, const Message& message) {
  const bool replace = message.type == kReplaceRequests;
  if ((message.type != kRequestContainers && !replace) || from.kind != RoleKind::kJobManager || message.a <= 0) return;
  const JobId job(from.index);
  const JobView view = ctx_.job(job);
  // A request can still be in flight when its job ends: nothing to grant then.
  if (view.finished()) return;
  // The floor, then must_fit (DecodeResources ignores what follows its own).
  const std::span<const int64_t> list(message.list);
  const Resources floor = DecodeResources(list);
  const Resources must_fit = DecodeResources(list.subspan(std::min<size_t>(list.size(), kNumResources)));
  if (floor.IsZero()) return;
  // The finder's candidates must include every machine where such a
  // container fits: its cores and memory there are at least the floor's cut
  // to the smallest machine (ContainerSizeOn).
  Resources least;
  for (Resource r : {kCpu, kMem}) least.set_micro(r, std::min(floor.micro(r), smallest_cap_.micro(r)));
  finder_.NoteDemand(least);
  const OrderKey key = key_of_.try_emplace(job.value(), FifoKey(view, 0)).first->second;
  JobRequests& entry = queue_[key];
  entry.job = job;
  if (replace) entry.requests.clear();
  entry.requests.push_back(Request{floor, must_fit, message.a});
  TryGrant();
}

void ExecutorScheduler::OnJobFinished(JobId job, bool /*succeeded*/) {
  auto it = key_of_.find(job.value());
  if (it != key_of_.end()) {
    queue_.erase(it->second);
    key_of_.erase(it);
  }
  // The job's containers come back with OnContainerReleased, which grants
  // what they make room for.
}

void ExecutorScheduler::OnMachineUp(MachineId machine) {
  finder_.Refresh(machine);
  TryGrant();
}

void ExecutorScheduler::OnMachineDown(MachineId machine) { finder_.Refresh(machine); }

void ExecutorScheduler::OnContainerReleased(const ContainerInfo& container) {
  finder_.Refresh(container.machine);
  TryGrant();
}

void ExecutorScheduler::TryGrant() {
  // Sizes that found no room in this pass: nothing frees room during a pass,
  // so later jobs asking for them need not search again.
  std::vector<Request> no_room;
  for (auto it = queue_.begin(); it != queue_.end() && finder_.num_candidates() > 0;) {
    // With latency, a job can end before OnJobFinished reaches us; granting
    // to it then would be refused.
    if (ctx_.job(it->second.job).finished()) {
      it->second.requests.clear();
    } else {
      Serve(it->second, no_room);
    }
    if (it->second.requests.empty()) {
      key_of_.erase(it->second.job.value());
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
}

void ExecutorScheduler::Serve(JobRequests& job, std::vector<Request>& no_room) {
  auto& requests = job.requests;
  while (!requests.empty()) {
    Request& r = requests.front();
    if (std::find(no_room.begin(), no_room.end(), r) != no_room.end()) return;
    while (r.count > 0) {
      Resources size;
      const MachineId m = FirstMachine(r, &size);
      if (!m.valid()) {
        no_room.push_back(r);
        return;
      }
      if (!ctx_.GrantContainer(job.job, m, size).ok()) return;
      finder_.Refresh(m);
      --r.count;
    }
    requests.erase(requests.begin());
  }
}

MachineId ExecutorScheduler::FirstMachine(const Request& r, Resources* size) const {
  const ClusterState& cluster = ctx_.cluster();
  MachineId found;
  finder_.ForEachCandidate([&](MachineId m) {
    // must_fit is what the job needs the container for: a machine too small
    // for it would give a container the job cannot use.
    if (!r.must_fit.FitsIn(cluster.capacity(m))) return true;
    const Resources s = ContainerSizeOn(r.floor, cluster.capacity(m));
    if (!cluster.Fits(m, s)) return true;
    found = m;
    *size = s;
    return false;
  });
  return found;
}

}  // namespace weft::policy::baseline
