#include "runtime/wire.h"

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
