// The mailbox (sim/mailbox.h): posting mail, cancelling timers, and
// delivering mail to the roles it addresses.
#include "sim/mailbox.h"

#include <bit>
#include <stdexcept>
#include <utility>

#include "sim/node_mail.h"

namespace weft::sim {

using policy::Address;
using policy::RoleKind;

void Mailbox::Post(const Mail& mail, TimeUs delay) {
  PackedMail p{.kind = mail.kind, .to = mail.to, .from = mail.from};
  switch (mail.kind) {
    case MailKind::kSchedulerDown:
      p.payload.tag = mail.tag;
      break;
    case MailKind::kTasksReady:
      p.payload.range = mail.range;
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
    case MailKind::kTaskEnded:         // PostTaskEnd
    case MailKind::kMessage:           // PostMessage
    case MailKind::kTimer:             // PostTimer
    case MailKind::kCancelled:
    case MailKind::kContainerGranted:  // PostContainer
    case MailKind::kContainerLost:
    case MailKind::kContainerReleased:
      throw std::logic_error("task ends, messages, timers and container mail have their own Post functions");
  }
  Queue(mail_.Put(p), delay);
}

void Mailbox::PostTaskEnd(const Address& to, const policy::TaskEnd& end, TimeUs delay) {
  const uint32_t slot = mail_.Emplace();
  PackedMail& p = mail_.At(slot);
  p.kind = MailKind::kTaskEnded;
  p.to = to;
  p.payload.end = PackEnd(end);
  Queue(slot, delay);
}

void Mailbox::PostMessage(const Address& from, const Address& to, policy::Message& message, TimeUs delay) {
  // Packed in place: the hottest path of a message-passing policy.
  const uint32_t slot = mail_.Emplace();
  PackedMail& p = mail_.At(slot);
  p.kind = MailKind::kMessage;
  p.to = to;
  p.from = from;
  p.payload.message = {.type = message.type, .task = message.task, .a = message.a, .b = message.b, .c = message.c};
  // Bits, not value: -0.0 must arrive as -0.0.
  if (std::bit_cast<uint64_t>(message.x) != 0 || !message.list.empty()) {
    p.payload.message.extras = extras_.Put(MessageExtras{message.x, std::move(message.list)});
  }
  Queue(slot, delay);
}

// A timer's id is its mail slot and a serial number, so that cancelling
// needs no lookup table on the hot path of policies that set a timer per
// decision round: the slot is checked to still hold that timer.
policy::TimerId Mailbox::PostTimer(const Address& to, uint64_t tag, TimeUs delay) {
  const uint32_t slot = mail_.Emplace();
  PackedMail& p = mail_.At(slot);
  p.kind = MailKind::kTimer;
  p.to = to;
  if (++timer_serial_ == 0) timer_serial_ = 1;  // after 2^32 timers: 0 means delivered
  p.payload.timer = {.tag = tag, .serial = timer_serial_};
  Queue(slot, delay);
  return policy::TimerId{(uint64_t{slot} << 32) | timer_serial_};
}

bool Mailbox::CancelTimer(const Address& by, policy::TimerId id) {
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

void Mailbox::PostContainer(MailKind kind, const Address& to, const policy::ContainerInfo& info, TimeUs delay) {
  PackedMail p{.kind = kind, .to = to};
  p.payload.container = containers_.Put(info);
  Queue(mail_.Put(p), delay);
}

void Mailbox::Queue(uint32_t slot, TimeUs delay) {
  PackedMail& mail = mail_.At(slot);
  if (mail.to.kind == RoleKind::kNode && mail.to.index < incarnation_.size()) {
    mail.incarnation = incarnation_[mail.to.index];
  }
  queue_.Push(Event{.time = queue_.now() + delay, .type = EventType::kDeliver, .a = slot});
}

void Mailbox::TakeExtras(uint32_t slot, policy::Message& message) {
  MessageExtras extras = extras_.Take(slot);
  message.x = extras.x;
  message.list = std::move(extras.list);
}

PackedEnd Mailbox::PackEnd(const policy::TaskEnd& e) {
  return PackedEnd{.task = e.task, .machine = e.machine, .outcome = e.outcome, .will_retry = e.will_retry,
                   .attempt = e.attempt, .start_us = e.start_us, .end_us = e.end_us, .container = e.container,
                   .usage = usage_.Put(e.usage)};
}

policy::TaskEnd Mailbox::UnpackEnd(const PackedEnd& e) {
  return policy::TaskEnd{e.task,   e.machine,   e.outcome,    e.attempt,         e.start_us,
                         e.end_us, e.container, e.will_retry, usage_.Take(e.usage)};
}

void Mailbox::Drop(const PackedMail& m) {
  if (m.kind == MailKind::kTaskEnded) (void)usage_.Take(m.payload.end.usage);
  if (m.kind == MailKind::kMessage) {
    ++stats_.messages_dropped;
    if (m.payload.message.extras != kNoSlot) (void)extras_.Take(m.payload.message.extras);
  }
  if (m.kind == MailKind::kContainerGranted || m.kind == MailKind::kContainerLost ||
      m.kind == MailKind::kContainerReleased) {
    (void)containers_.Take(m.payload.container);
  }
}

// ForwardToNode hands mail for a node agent hosted on its node to the
// recipients, if that agent is still the one the mail was posted to.
void Mailbox::ForwardToNode(const PackedMail& m, MailRecipients& recipients) {
  const uint32_t index = m.to.index;
  if (index >= incarnation_.size() || !recipients.NodeUpElsewhere(index) || m.incarnation != incarnation_[index]) {
    return Drop(m);
  }
  const PackedMail::Payload& p = m.payload;
  NodeMail mail{.from = m.from};
  switch (m.kind) {
    case MailKind::kStart:
      mail.kind = NodeMail::Kind::kStart;
      break;
    case MailKind::kMessage:
      mail.kind = NodeMail::Kind::kMessage;
      mail.message = {.type = p.message.type, .task = p.message.task, .a = p.message.a, .b = p.message.b,
                      .c = p.message.c};
      if (p.message.extras != kNoSlot) TakeExtras(p.message.extras, mail.message);
      break;
    case MailKind::kTaskEnded:
      mail.kind = NodeMail::Kind::kTaskEnded;
      mail.end = UnpackEnd(p.end);
      break;
    case MailKind::kSchedulerDown:
      mail.kind = NodeMail::Kind::kSchedulerDown;
      mail.tag = p.tag;
      break;
    case MailKind::kPhaseReady:
    case MailKind::kPhaseEnded:
      mail.kind = m.kind == MailKind::kPhaseReady ? NodeMail::Kind::kPhaseReady : NodeMail::Kind::kPhaseEnded;
      mail.end.task = p.phase.task;
      mail.tag = p.phase.phase;
      break;
    default:
      return Drop(m);  // timers are the hosted agent's own
  }
  recipients.ToNode(MachineId(index), mail);
}

}  // namespace weft::sim
