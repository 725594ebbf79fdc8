// The mailbox: messages, timers and the platform's notifications travel as
// Mail, posted with a delay (the run's latency between roles, 0 to oneself)
// and delivered, in (time, sequence) order, to the role they address, if it
// still exists: mail to a finished job's manager, or to a node agent that has
// died since the mail was posted, is dropped.
#include <stdexcept>

#include "sim/engine_impl.h"

namespace weft::sim {

using policy::Address;
using policy::RoleKind;

void EngineCore::PostMail(const Mail& mail, TimeUs delay) {
  PackedMail p{.kind = mail.kind, .to = mail.to, .from = mail.from};
  switch (mail.kind) {
    case MailKind::kTimer:
    case MailKind::kSchedulerDown:
      p.payload.tag = mail.tag;
      break;
    case MailKind::kTasksReady:
      p.payload.range = mail.range;
      break;
    case MailKind::kTaskEnded:
      p.payload.end = PackEnd(mail.end);
      break;
    case MailKind::kJobArrived:
    case MailKind::kJobFinished:
      p.payload.job = {mail.job, mail.ok};
      break;
    case MailKind::kMachineUp:
    case MailKind::kMachineDown:
      p.payload.machine = mail.machine;
      break;
    case MailKind::kPhaseReady:
    case MailKind::kPhaseEnded:
      p.payload.phase = {mail.end.task, mail.phase};
      break;
    case MailKind::kStart:
      break;
    case MailKind::kMessage:           // PostMessage
    case MailKind::kContainerGranted:  // PostContainerMail
    case MailKind::kContainerLost:
    case MailKind::kContainerReleased:
      throw std::logic_error("messages and container mail have their own Post functions");
  }
  PostPacked(p, delay);
}

PackedEnd EngineCore::PackEnd(const policy::TaskEnd& e) {
  return PackedEnd{.task = e.task, .machine = e.machine, .outcome = e.outcome, .will_retry = e.will_retry,
                   .attempt = e.attempt, .start_us = e.start_us, .end_us = e.end_us, .container = e.container,
                   .usage = mail_usage_.Put(e.usage)};
}

policy::TaskEnd EngineCore::UnpackEnd(const PackedEnd& e) {
  return policy::TaskEnd{e.task,   e.machine, e.outcome,  e.attempt, e.start_us,
                         e.end_us, e.container, e.will_retry, mail_usage_.Take(e.usage)};
}

void EngineCore::PostMessage(const Address& from, const Address& to, policy::Message& message) {
  // Packed in place: the hottest path of a message-passing policy.
  const uint32_t slot = mail_.Emplace();
  PackedMail& p = mail_.At(slot);
  p.kind = MailKind::kMessage;
  p.to = to;
  p.from = from;
  p.payload.message = {.type = message.type, .task = message.task, .a = message.a, .b = message.b, .c = message.c};
  if (!message.list.empty()) p.payload.message.list = mail_lists_.Put(std::move(message.list));
  Schedule(slot, DelayTo(from, to));
}

void EngineCore::PostContainerMail(MailKind kind, const Address& to, const policy::ContainerInfo& info,
                                   TimeUs delay) {
  PackedMail p{.kind = kind, .to = to};
  p.payload.container = mail_containers_.Put(info);
  PostPacked(p, delay);
}

void EngineCore::PostPacked(const PackedMail& mail, TimeUs delay) { Schedule(mail_.Put(mail), delay); }

void EngineCore::Schedule(uint32_t slot, TimeUs delay) {
  PackedMail& mail = mail_.At(slot);
  if (mail.to.kind == RoleKind::kNode && mail.to.index < node_incarnation_.size()) {
    mail.incarnation = node_incarnation_[mail.to.index];
  }
  queue_.Push(Event{.time = queue_.now() + delay, .type = EventType::kDeliver, .a = slot});
}

// ForwardToNode hands mail for a remote node agent to the executor, if that
// agent is still the one the mail was posted to.
void EngineCore::ForwardToNode(const PackedMail& m) {
  const PackedMail::Payload& p = m.payload;
  std::vector<int64_t> list;
  if (m.kind == MailKind::kMessage && p.message.list != kNoSlot) list = mail_lists_.Take(p.message.list);
  const uint32_t index = m.to.index;
  if (index >= remote_alive_.size() || !remote_alive_[index] || m.incarnation != node_incarnation_[index]) {
    if (m.kind == MailKind::kMessage) ++stats_.messages_dropped;
    if (m.kind == MailKind::kTaskEnded) (void)mail_usage_.Take(p.end.usage);
    return;
  }
  NodeMail mail{.from = m.from};
  switch (m.kind) {
    case MailKind::kStart:
      mail.kind = NodeMail::Kind::kStart;
      break;
    case MailKind::kMessage:
      mail.kind = NodeMail::Kind::kMessage;
      mail.message = policy::Message{.type = p.message.type, .task = p.message.task, .a = p.message.a,
                                     .b = p.message.b, .c = p.message.c, .list = std::move(list)};
      break;
    case MailKind::kTaskEnded:
      mail.kind = NodeMail::Kind::kTaskEnded;
      mail.end = UnpackEnd(p.end);
      break;
    case MailKind::kSchedulerDown:
      mail.kind = NodeMail::Kind::kSchedulerDown;
      mail.tag = p.tag;
      break;
    default:
      return;  // timers are the remote agent's own; phases are not run remotely
  }
  agent_channel_->DeliverToNode(MachineId(index), mail);
}

void EngineCore::DeliverMail(uint32_t slot) {
  const PackedMail m = mail_.Take(slot);
  const PackedMail::Payload& p = m.payload;
  policy::Role* role = nullptr;
  switch (m.to.kind) {
    case RoleKind::kScheduler:
      role = m.to.index < schedulers_.size() ? schedulers_[m.to.index].get() : nullptr;
      break;
    case RoleKind::kJobManager:
      role = m.to.index < jobs_.size() ? jobs_[m.to.index].manager.get() : nullptr;
      break;
    case RoleKind::kNode:
      if (remote_agents()) return ForwardToNode(m);
      role = m.to.index < nodes_.size() && m.incarnation == node_incarnation_[m.to.index]
                 ? nodes_[m.to.index].get()
                 : nullptr;
      break;
  }
  if (role == nullptr) {
    if (m.kind == MailKind::kMessage) ++stats_.messages_dropped;
    // Free the side-table parts of dropped mail too.
    if (m.kind == MailKind::kMessage && p.message.list != kNoSlot) (void)mail_lists_.Take(p.message.list);
    if (m.kind == MailKind::kContainerGranted || m.kind == MailKind::kContainerLost ||
        m.kind == MailKind::kContainerReleased) {
      (void)mail_containers_.Take(p.container);
    }
    if (m.kind == MailKind::kTaskEnded) (void)mail_usage_.Take(p.end.usage);
    return;
  }
  auto* scheduler = m.to.kind == RoleKind::kScheduler ? static_cast<policy::ClusterScheduler*>(role) : nullptr;
  auto* manager = m.to.kind == RoleKind::kJobManager ? static_cast<policy::JobManager*>(role) : nullptr;
  auto* node = m.to.kind == RoleKind::kNode ? static_cast<policy::NodeAgent*>(role) : nullptr;
  switch (m.kind) {
    case MailKind::kMessage: {
      policy::Message message{.type = p.message.type, .task = p.message.task, .a = p.message.a, .b = p.message.b,
                              .c = p.message.c};
      if (p.message.list != kNoSlot) message.list = mail_lists_.Take(p.message.list);
      role->OnMessage(m.from, message);
      break;
    }
    case MailKind::kTimer:
      role->OnTimer(p.tag);
      break;
    case MailKind::kJobArrived:
      scheduler->OnJobArrived(p.job.job);
      break;
    case MailKind::kStart:
      if (manager) manager->OnStart();
      if (node) node->OnStart();
      break;
    case MailKind::kTasksReady:
      if (scheduler) scheduler->OnTasksReady(p.range);
      if (manager) manager->OnTasksReady(p.range);
      break;
    case MailKind::kTaskEnded:
    {
      const policy::TaskEnd end = UnpackEnd(p.end);
      if (scheduler) scheduler->OnTaskEnded(end);
      if (manager) manager->OnTaskEnded(end);
      if (node) node->OnTaskEnded(end);
    }
      break;
    case MailKind::kJobFinished:
      scheduler->OnJobFinished(p.job.job, p.job.ok);
      break;
    case MailKind::kMachineUp:
      scheduler->OnMachineUp(p.machine);
      break;
    case MailKind::kMachineDown:
      scheduler->OnMachineDown(p.machine);
      break;
    case MailKind::kContainerGranted:
      manager->OnContainerGranted(mail_containers_.Take(p.container));
      break;
    case MailKind::kContainerLost:
      manager->OnContainerLost(mail_containers_.Take(p.container));
      break;
    case MailKind::kContainerReleased: {
      const policy::ContainerInfo info = mail_containers_.Take(p.container);
      if (scheduler) scheduler->OnContainerReleased(info);
      break;
    }
    case MailKind::kSchedulerDown:
      if (scheduler) scheduler->OnSchedulerDown(static_cast<uint32_t>(p.tag));
      if (node) node->OnSchedulerDown(static_cast<uint32_t>(p.tag));
      break;
    case MailKind::kPhaseReady:
      node->OnPhaseReady(p.phase.task, p.phase.phase);
      break;
    case MailKind::kPhaseEnded:
      node->OnPhaseEnded(p.phase.task, p.phase.phase);
      break;
  }
}

}  // namespace weft::sim
