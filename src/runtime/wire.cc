#include "runtime/wire.h"

#include <algorithm>

namespace weft::runtime {

v1::ResourceVector ToProto(const Resources& r) {
  v1::ResourceVector v;
  v.set_cpu(r.units(kCpu));
  v.set_mem(r.units(kMem));
  v.set_disk(r.units(kDisk));
  v.set_net(r.units(kNet));
  return v;
}

absl::StatusOr<Resources> FromProto(const v1::ResourceVector& v) {
  return Resources::FromUnits({v.cpu(), v.mem(), v.disk(), v.net()});
}

v1::RoleMessage ToProto(const policy::Message& m) {
  v1::RoleMessage r;
  r.set_type(m.type);
  r.set_has_task(m.task.job.valid());
  if (m.task.job.valid()) {
    r.set_job(m.task.job.value());
    r.set_stage(m.task.stage);
    r.set_task(m.task.index);
  }
  r.set_a(m.a);
  r.set_b(m.b);
  r.set_c(m.c);
  r.set_x(m.x);
  r.mutable_list()->Add(m.list.begin(), m.list.end());
  return r;
}

policy::Message FromProto(const v1::RoleMessage& r) {
  policy::Message m{.type = r.type(), .a = r.a(), .b = r.b(), .c = r.c(), .x = r.x()};
  if (r.has_task()) m.task = TaskRef{JobId(r.job()), r.stage(), r.task()};
  m.list.assign(r.list().begin(), r.list().end());
  return m;
}

v1::RoleAddress ToProto(const policy::Address& a) {
  v1::RoleAddress r;
  r.set_kind(static_cast<uint32_t>(a.kind));
  r.set_index(a.index);
  return r;
}

absl::StatusOr<policy::Address> FromProto(const v1::RoleAddress& r) {
  if (r.kind() > static_cast<uint32_t>(policy::RoleKind::kNode)) {
    return absl::InvalidArgumentError("unknown role kind in a role address");
  }
  return policy::Address{static_cast<policy::RoleKind>(r.kind()), r.index()};
}

v1::TaskEndNote ToProto(const policy::TaskEnd& end) {
  v1::TaskEndNote n;
  n.set_job(end.task.job.value());
  n.set_stage(end.task.stage);
  n.set_task(end.task.index);
  n.set_attempt(end.attempt);
  n.set_outcome(OutcomeName(end.outcome));
  n.set_start_us(end.start_us);
  n.set_end_us(end.end_us);
  n.set_will_retry(end.will_retry);
  return n;
}

policy::TaskEnd FromProto(const v1::TaskEndNote& n, MachineId machine) {
  const Outcome outcome = n.outcome() == "ok" ? Outcome::kOk : n.outcome() == "killed" ? Outcome::kKilled
                                                                                        : Outcome::kFailed;
  return policy::TaskEnd{TaskRef{JobId(n.job()), n.stage(), n.task()}, machine, outcome, n.attempt(),
                         n.start_us(), n.end_us(), ContainerId(), n.will_retry()};
}

Resources MeasuredResources(const v1::ResourceVector& v) {
  absl::StatusOr<Resources> r = FromProto(v);
  return r.ok() ? *r : Resources();
}

policy::TaskUsage MeasuredUsage(const v1::TaskEnd& end) {
  if (end.has_usage()) return {MeasuredResources(end.average()), MeasuredResources(end.peak())};
  v1::ResourceVector average;
  average.set_cpu(end.run_us() > 0 ? end.cpu_seconds() * 1e6 / static_cast<double>(end.run_us()) : 0);
  average.set_mem(static_cast<double>(std::max<int64_t>(0, end.peak_rss_bytes())) / 1e9);
  const Resources measured = MeasuredResources(average);
  return {measured, measured};
}

policy::TaskUsage MeasuredUsage(const v1::PhaseEnd& end) {
  return {MeasuredResources(end.average()), MeasuredResources(end.peak())};
}

Resources MeasuredResources(const v1::TaskUsage& sample) {
  v1::ResourceVector v;
  v.set_cpu(sample.cpu_cores());
  v.set_mem(static_cast<double>(sample.rss_bytes()) / 1e9);
  v.set_disk(sample.disk_mbps());
  v.set_net(sample.net_mbps());
  return MeasuredResources(v);
}

v1::SchedulerMessage RegisteredMessage(uint32_t slot, int64_t heartbeat_us, int64_t node_timeout_us,
                                       const ReplicaIds& replica, uint32_t overbooked) {
  v1::SchedulerMessage message;
  v1::Registered& r = *message.mutable_registered();
  r.set_slot(slot);
  r.set_heartbeat_ms(heartbeat_us / 1000);
  r.set_node_timeout_ms(node_timeout_us / 1000);
  r.set_replica(replica.index);
  r.set_replicas(replica.count);
  r.set_overbooked(overbooked);
  return message;
}

std::vector<std::string> SplitAddresses(const std::string& list) {
  std::vector<std::string> out;
  for (size_t begin = 0; begin <= list.size();) {
    const size_t end = std::min(list.find(',', begin), list.size());
    if (end > begin) out.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

}  // namespace weft::runtime
