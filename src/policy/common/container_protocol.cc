#include "policy/common/container_protocol.h"

#include <algorithm>
#include <span>

#include "policy/common/container_pool.h"

namespace weft::policy {

Message EncodeContainerRequest(const ContainerRequest& request) {
  Message m;
  m.type = request.replace ? kReplaceRequests : kRequestContainers;
  m.a = request.count;
  m.list = EncodeResources(request.floor);
  const std::vector<int64_t> fit = EncodeResources(request.must_fit);
  m.list.insert(m.list.end(), fit.begin(), fit.end());
  return m;
}

std::optional<ContainerRequest> DecodeContainerRequest(const Message& message) {
  const bool replace = message.type == kReplaceRequests;
  if ((message.type != kRequestContainers && !replace) || message.a <= 0) return std::nullopt;
  // The floor, then must_fit (DecodeResources ignores what follows its own).
  const std::span<const int64_t> list(message.list);
  ContainerRequest r;
  r.floor = DecodeResources(list);
  r.must_fit = DecodeResources(list.subspan(std::min<size_t>(list.size(), kNumResources)));
  r.count = message.a;
  r.replace = replace;
  if (r.floor.IsZero()) return std::nullopt;
  return r;
}

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

Resources ComponentMax(const Resources& a, const Resources& b) {
  Resources m;
  for (int i = 0; i < kNumResources; ++i) {
    const auto r = static_cast<Resource>(i);
    m.set_micro(r, std::max(a.micro(r), b.micro(r)));
  }
  return m;
}

void ContainerRequester::Request(const Resources& floor, int64_t count, const Resources& must_fit, bool replace) {
  if (count <= 0) return;
  outstanding_ = replace ? count : outstanding_ + count;
  ctx_.Send(scheduler_, EncodeContainerRequest(ContainerRequest{floor, must_fit, count, replace}));
}

ParamSpec CpuOversubscriptionParam() {
  return {.name = "cpu_oversubscription",
          .type = ParamType::kDouble,
          .default_value = "1",
          .help = "containers' cores granted per real core of a machine (YARN vcores over cores; 1: none)",
          .min = 1,
          .max = 64};
}

ContainerGranter::ContainerGranter(Context& ctx, TimeUs response_time_us, uint64_t timer_tag,
                                   double cpu_oversubscription)
    : ctx_(ctx),
      response_time_us_(response_time_us),
      timer_tag_(timer_tag),
      // Over-subscribed, a machine whose real cores are all granted can still
      // take containers: FirstMachine checks the k-fold cores.
      finder_(ctx.cluster(), cpu_oversubscription > 1 ? MaskOf(kCpu) : ResourceMask{0}),
      cpu_oversubscription_(std::max(1.0, cpu_oversubscription)) {
  const ClusterState& cluster = ctx.cluster();
  for (uint32_t m = 0; m < cluster.size(); ++m) {
    for (Resource r : {kCpu, kMem}) {
      const int64_t cap = cluster.capacity(MachineId(m)).micro(r);
      if (m == 0 || cap < smallest_cap_.micro(r)) smallest_cap_.set_micro(r, cap);
    }
  }
}

void ContainerGranter::Add(JobId job, const OrderKey& key, const ContainerRequest& request) {
  // A request can still be in flight when its job ends: nothing to grant then.
  if (ctx_.job(job).finished()) return;
  // The finder's candidates must include every machine where such a
  // container fits: its cores and memory there are at least the floor's cut
  // to the smallest machine (ContainerSizeOn).
  Resources least;
  for (Resource r : {kCpu, kMem}) least.set_micro(r, std::min(request.floor.micro(r), smallest_cap_.micro(r)));
  finder_.NoteDemand(least);
  const OrderKey& k = key_of_.try_emplace(job.value(), key).first->second;
  JobRequests& entry = queue_[k];
  entry.job = job;
  if (request.replace) entry.requests.clear();
  entry.requests.push_back(Request{request.floor, request.must_fit, request.count, ctx_.Now() + response_time_us_});
  if (response_time_us_ > 0) ctx_.SetTimer(response_time_us_, timer_tag_);
}

void ContainerGranter::Drop(JobId job) {
  auto it = key_of_.find(job.value());
  if (it == key_of_.end()) return;
  queue_.erase(it->second);
  key_of_.erase(it);
}

void ContainerGranter::Cap(JobId job, int64_t max_waiting) {
  auto it = key_of_.find(job.value());
  if (it == key_of_.end()) return;
  auto& requests = queue_.at(it->second).requests;
  int64_t excess = Waiting(job) - std::max<int64_t>(0, max_waiting);
  while (excess > 0 && !requests.empty()) {
    Request& last = requests.back();
    const int64_t cut = std::min(excess, last.count);
    last.count -= cut;
    excess -= cut;
    if (last.count == 0) requests.pop_back();
  }
  if (requests.empty()) {
    queue_.erase(it->second);
    key_of_.erase(it);
  }
}

int64_t ContainerGranter::Waiting(JobId job) const {
  auto it = key_of_.find(job.value());
  if (it == key_of_.end()) return 0;
  int64_t n = 0;
  for (const Request& r : queue_.at(it->second).requests) n += r.count;
  return n;
}

int64_t ContainerGranter::TryGrant(const Allowance& allowance, const OnGrant& on_grant) {
  // Sizes that found no room in this pass: nothing frees room during a pass,
  // so later jobs asking for them need not search again.
  std::vector<Request> no_room;
  int64_t granted = 0;
  for (auto it = queue_.begin(); it != queue_.end() && finder_.num_candidates() > 0;) {
    // With latency, a job can end before OnJobFinished reaches the owner;
    // granting to it then would be refused.
    if (ctx_.job(it->second.job).finished()) {
      it->second.requests.clear();
    } else {
      const int64_t limit = allowance ? allowance(it->second.job) : -1;
      if (limit != 0) granted += Serve(it->second, no_room, limit, on_grant);
    }
    if (it->second.requests.empty()) {
      key_of_.erase(it->second.job.value());
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
  return granted;
}

int64_t ContainerGranter::Serve(JobRequests& job, std::vector<Request>& no_room, int64_t limit,
                                const OnGrant& on_grant) {
  auto& requests = job.requests;
  const TimeUs now = ctx_.Now();
  int64_t granted = 0;
  while (!requests.empty()) {
    Request& r = requests.front();
    if (r.ready_at > now) return granted;
    if (std::any_of(no_room.begin(), no_room.end(), [&](const Request& n) { return n.SameSize(r); })) return granted;
    while (r.count > 0) {
      if (limit >= 0 && granted >= limit) return granted;
      Resources size;
      const MachineId m = FirstMachine(r, &size);
      if (!m.valid()) {
        no_room.push_back(r);
        return granted;
      }
      const auto id = ctx_.GrantContainer(job.job, m, size);
      if (!id.ok()) return granted;
      finder_.Refresh(m);
      if (on_grant) on_grant(job.job, *id, m);
      --r.count;
      ++granted;
    }
    requests.erase(requests.begin());
  }
  return granted;
}

MachineId ContainerGranter::FirstMachine(const Request& r, Resources* size) const {
  const ClusterState& cluster = ctx_.cluster();
  MachineId found;
  finder_.ForEachCandidate([&](MachineId m) {
    // must_fit is what the job needs the container for: a machine too small
    // for it would give a container the job cannot use.
    const Resources& cap = cluster.capacity(m);
    if (!r.must_fit.FitsIn(cap)) return true;
    Resources s;
    if (cpu_oversubscription_ > 1) {
      // Sized as on a machine of k times the cores (so its disk and net
      // share is its part of the k-fold cores), cut to the real machine,
      // and fitting k times the cores.
      Resources vcap = cap;
      vcap.set_micro(kCpu, static_cast<int64_t>(static_cast<double>(cap.micro(kCpu)) * cpu_oversubscription_));
      s = ContainerSizeOn(r.floor, vcap);
      s.set_micro(kCpu, std::min(s.micro(kCpu), cap.micro(kCpu)));
      if (!cluster.Fits(m, s, MaskOf(kCpu)) || cluster.allocated(m).micro(kCpu) + s.micro(kCpu) > vcap.micro(kCpu)) {
        return true;
      }
    } else {
      s = ContainerSizeOn(r.floor, cap);
      if (!cluster.Fits(m, s)) return true;
    }
    found = m;
    *size = s;
    return false;
  });
  return found;
}

}  // namespace weft::policy
