// The mailbox: messages, timers and the platform's notifications travel as
// Mail, posted with a delay (the run's latency between roles, 0 to oneself)
// and delivered, in (time, sequence) order, to the role they address, if it
// still exists: mail to a finished job's manager, or to a node agent that has
// died since the mail was posted, is dropped.
#include "sim/engine_impl.h"

namespace weft::sim {

using policy::Address;
using policy::RoleKind;

void EngineCore::PostMail(Mail mail, TimeUs delay) {
  if (mail.to.kind == RoleKind::kNode && mail.to.index < node_incarnation_.size()) {
    mail.incarnation = node_incarnation_[mail.to.index];
  }
  uint32_t slot;
  if (!free_mail_.empty()) {
    slot = free_mail_.back();
    free_mail_.pop_back();
    mail_[slot] = std::move(mail);
  } else {
    slot = static_cast<uint32_t>(mail_.size());
    mail_.push_back(std::move(mail));
  }
  queue_.Push(Event{.time = queue_.now() + delay, .type = EventType::kDeliver, .a = slot});
}

void EngineCore::DeliverMail(uint32_t slot) {
  Mail m = std::move(mail_[slot]);
  free_mail_.push_back(slot);
  policy::Role* role = nullptr;
  switch (m.to.kind) {
    case RoleKind::kScheduler:
      role = m.to.index < schedulers_.size() ? schedulers_[m.to.index].get() : nullptr;
      break;
    case RoleKind::kJobManager:
      role = m.to.index < jobs_.size() ? jobs_[m.to.index].manager.get() : nullptr;
      break;
    case RoleKind::kNode:
      role = m.to.index < nodes_.size() && m.incarnation == node_incarnation_[m.to.index]
                 ? nodes_[m.to.index].get()
                 : nullptr;
      break;
  }
  if (role == nullptr) {
    if (m.kind == MailKind::kMessage) ++stats_.messages_dropped;
    return;
  }
  auto* scheduler = m.to.kind == RoleKind::kScheduler ? static_cast<policy::ClusterScheduler*>(role) : nullptr;
  auto* manager = m.to.kind == RoleKind::kJobManager ? static_cast<policy::JobManager*>(role) : nullptr;
  auto* node = m.to.kind == RoleKind::kNode ? static_cast<policy::NodeAgent*>(role) : nullptr;
  switch (m.kind) {
    case MailKind::kMessage:
      role->OnMessage(m.from, m.message);
      break;
    case MailKind::kTimer:
      role->OnTimer(m.tag);
      break;
    case MailKind::kJobArrived:
      scheduler->OnJobArrived(m.job);
      break;
    case MailKind::kStart:
      if (manager) manager->OnStart();
      if (node) node->OnStart();
      break;
    case MailKind::kTasksReady:
      if (scheduler) scheduler->OnTasksReady(m.range);
      if (manager) manager->OnTasksReady(m.range);
      break;
    case MailKind::kTaskEnded:
      if (scheduler) scheduler->OnTaskEnded(m.end);
      if (manager) manager->OnTaskEnded(m.end);
      if (node) node->OnTaskEnded(m.end);
      break;
    case MailKind::kJobFinished:
      scheduler->OnJobFinished(m.job, m.ok);
      break;
    case MailKind::kMachineUp:
      scheduler->OnMachineUp(m.machine);
      break;
    case MailKind::kMachineDown:
      scheduler->OnMachineDown(m.machine);
      break;
    case MailKind::kContainerGranted:
      manager->OnContainerGranted(m.container);
      break;
    case MailKind::kContainerLost:
      manager->OnContainerLost(m.container);
      break;
    case MailKind::kContainerReleased:
      if (scheduler) scheduler->OnContainerReleased(m.container);
      break;
    case MailKind::kSchedulerDown:
      if (scheduler) scheduler->OnSchedulerDown(static_cast<uint32_t>(m.tag));
      if (node) node->OnSchedulerDown(static_cast<uint32_t>(m.tag));
      break;
    case MailKind::kPhaseReady:
      node->OnPhaseReady(m.end.task, m.phase);
      break;
  }
}

}  // namespace weft::sim
