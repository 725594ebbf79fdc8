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
    case MailKind::kSchedulerDown:
      p.payload.tag = mail.tag;
      break;
    case MailKind::kTasksReady:
      p.payload.range = mail.range;
      break;
    case MailKind::kTaskEnded:
      p.payload.end = mail.end;
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
      p.payload.phase = {mail.end.task, mail.phase};
      break;
    case MailKind::kStart:
      break;
    case MailKind::kMessage:           // PostMessage
    case MailKind::kTimer:             // PostTimer
    case MailKind::kCancelled:
    case MailKind::kContainerGranted:  // PostContainerMail
    case MailKind::kContainerLost:
    case MailKind::kContainerReleased:
      throw std::logic_error("messages, timers and container mail have their own Post functions");
  }
  PostPacked(p, delay);
}

void EngineCore::PostMessage(const Address& from, const Address& to, policy::Message& message) {
  // Packed in place: the hottest path of a message-passing policy.
  const uint32_t slot = mail_.Emplace();
  PackedMail& p = mail_.At(slot);
  p.kind = MailKind::kMessage;
  p.to = to;
  p.from = from;
  p.payload.message = {.type = message.type, .task = message.task, .a = message.a, .b = message.b, .c = message.c,
                       .x = message.x};
  if (!message.list.empty() || !message.reals.empty()) {
    p.payload.message.lists = mail_lists_.Put(MessageLists{std::move(message.list), std::move(message.reals)});
  }
  Schedule(slot, DelayTo(from, to));
}

policy::Message EngineCore::UnpackMessage(const MessageMail& m) {
  policy::Message message{.type = m.type, .task = m.task, .a = m.a, .b = m.b, .c = m.c, .x = m.x};
  if (m.lists != kNoSlot) {
    MessageLists lists = mail_lists_.Take(m.lists);
    message.list = std::move(lists.list);
    message.reals = std::move(lists.reals);
  }
  return message;
}

// A timer's id is its mail slot and a serial number, so that cancelling
// needs no lookup table on the hot path of policies that set a timer per
// decision round: the slot is checked to still hold that timer.
policy::TimerId EngineCore::PostTimer(const Address& to, uint64_t tag, TimeUs delay) {
  const uint32_t slot = mail_.Emplace();
  PackedMail& p = mail_.At(slot);
  p.kind = MailKind::kTimer;
  p.to = to;
  if (++timer_serial_ == 0) timer_serial_ = 1;  // after 2^32 timers: 0 means delivered
  p.payload.timer = {.tag = tag, .serial = timer_serial_};
  Schedule(slot, delay);
  return policy::TimerId{(uint64_t{slot} << 32) | timer_serial_};
}

bool EngineCore::CancelTimer(const Address& by, policy::TimerId id) {
  const auto value = static_cast<uint64_t>(id);
  const auto slot = static_cast<uint32_t>(value >> 32);
  const auto serial = static_cast<uint32_t>(value);
  if (serial == 0 || !mail_.Has(slot)) return false;
  PackedMail& p = mail_.At(slot);
  if (p.kind != MailKind::kTimer || p.payload.timer.serial != serial || !(p.to == by)) return false;
  // The delivery event stays queued (the queue cannot remove one); it finds
  // the mail cancelled and drops it.
  p.kind = MailKind::kCancelled;
  return true;
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
  policy::Message message;
  if (m.kind == MailKind::kMessage) message = UnpackMessage(p.message);
  const uint32_t index = m.to.index;
  if (index >= remote_alive_.size() || !remote_alive_[index] || m.incarnation != node_incarnation_[index]) {
    if (m.kind == MailKind::kMessage) ++stats_.messages_dropped;
    return;
  }
  NodeMail mail{.from = m.from};
  switch (m.kind) {
    case MailKind::kStart:
      mail.kind = NodeMail::Kind::kStart;
      break;
    case MailKind::kMessage:
      mail.kind = NodeMail::Kind::kMessage;
      mail.message = std::move(message);
      break;
    case MailKind::kTaskEnded:
      mail.kind = NodeMail::Kind::kTaskEnded;
      mail.end = p.end;
      break;
    case MailKind::kSchedulerDown:
      mail.kind = NodeMail::Kind::kSchedulerDown;
      mail.tag = p.tag;
      break;
    default:
      return;  // timers are the remote agent's own; phases are not run remotely
  }
  executor_->DeliverToNode(MachineId(index), mail);
}

void EngineCore::DeliverMail(uint32_t slot) {
  const PackedMail m = mail_.Take(slot);
  const PackedMail::Payload& p = m.payload;
  if (m.kind == MailKind::kCancelled) return;
  // A taken slot keeps its old value until reused: mark a timer delivered
  // so that a late CancelTimer of it finds nothing to cancel.
  if (m.kind == MailKind::kTimer) mail_.At(slot).payload.timer.serial = 0;
  policy::Role* role = nullptr;
  switch (m.to.kind) {
    case RoleKind::kScheduler:
      role = m.to.index < schedulers_.size() ? schedulers_[m.to.index].get() : nullptr;
      break;
    case RoleKind::kJobManager:
      role = m.to.index < jobs_.size() ? jobs_[m.to.index].manager.get() : nullptr;
      break;
    case RoleKind::kNode:
      if (remote_agents_) return ForwardToNode(m);
      role = m.to.index < nodes_.size() && m.incarnation == node_incarnation_[m.to.index]
                 ? nodes_[m.to.index].get()
                 : nullptr;
      break;
  }
  if (role == nullptr) {
    if (m.kind == MailKind::kMessage) ++stats_.messages_dropped;
    // Free the side-table parts of dropped mail too.
    if (m.kind == MailKind::kMessage && p.message.lists != kNoSlot) (void)mail_lists_.Take(p.message.lists);
    if (m.kind == MailKind::kContainerGranted || m.kind == MailKind::kContainerLost ||
        m.kind == MailKind::kContainerReleased) {
      (void)mail_containers_.Take(p.container);
    }
    return;
  }
  auto* scheduler = m.to.kind == RoleKind::kScheduler ? static_cast<policy::ClusterScheduler*>(role) : nullptr;
  auto* manager = m.to.kind == RoleKind::kJobManager ? static_cast<policy::JobManager*>(role) : nullptr;
  auto* node = m.to.kind == RoleKind::kNode ? static_cast<policy::NodeAgent*>(role) : nullptr;
  switch (m.kind) {
    case MailKind::kMessage: {
      const policy::Message message = UnpackMessage(p.message);
      role->OnMessage(m.from, message);
      break;
    }
    case MailKind::kTimer:
      role->OnTimer(p.timer.tag);
      break;
    case MailKind::kCancelled:  // returned above
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
      if (scheduler) scheduler->OnTaskEnded(p.end);
      if (manager) manager->OnTaskEnded(p.end);
      if (node) node->OnTaskEnded(p.end);
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
  }
}

}  // namespace weft::sim
