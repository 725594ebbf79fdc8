#include "runtime/replica_ids.h"

#include "policy/message.h"

namespace weft::runtime {

namespace {

bool NamesReplicaOrJob(const v1::RoleAddress& a) {
  return a.kind() == static_cast<uint32_t>(policy::RoleKind::kScheduler) ||
         a.kind() == static_cast<uint32_t>(policy::RoleKind::kJobManager);
}

}  // namespace

void ReplicaIds::ToGlobal(v1::AgentMail& mail) const {
  if (count == 1) return;
  if (mail.has_from() && NamesReplicaOrJob(mail.from())) mail.mutable_from()->set_index(Global(mail.from().index()));
  if (mail.has_message() && mail.message().has_task()) mail.mutable_message()->set_job(Global(mail.message().job()));
  if (mail.has_end()) mail.mutable_end()->set_job(Global(mail.end().job()));
  for (v1::JobSpec& spec : *mail.mutable_jobs()) spec.set_id(Global(spec.id()));
  if (mail.has_progress()) mail.mutable_progress()->set_job(Global(mail.progress().job()));
  if (mail.kind() == v1::AgentMail::SCHEDULER_DOWN) mail.set_tag(Global(static_cast<uint32_t>(mail.tag())));
}

bool ReplicaIds::ToLocal(v1::AgentAction& action) const {
  if (count == 1) return true;
  if (action.has_to() && !action.launch() && !action.kill() && NamesReplicaOrJob(action.to())) {
    const std::optional<uint32_t> local = Local(action.to().index());
    if (!local) return false;
    action.mutable_to()->set_index(*local);
  }
  if (action.has_message() && action.message().has_task()) {
    const std::optional<uint32_t> local = Local(action.message().job());
    if (!local) return false;
    action.mutable_message()->set_job(*local);
  }
  return true;
}

}  // namespace weft::runtime
