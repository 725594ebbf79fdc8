// File: sim/mailbox.h (internal to sim/)
//
// Mailbox: every message, timer and notification between the platform and
// the policy's roles while it is in flight. Mail is posted with a delay (the
// run's latency between roles, 0 to oneself), queued on the engine's event
// queue as a delivery event naming the mail's slot, and delivered in (time,
// sequence) order to the role it addresses if that role still exists: mail
// to a finished job's manager, or to a node agent that has died since the
// mail was posted (the agent's incarnation changed), is dropped.
//
// Mail is stored packed (PackedMail: the addresses and a union of the
// payloads, trivially copyable) because a message-heavy run copies millions
// of them in and out; the rare parts (a message's real and list, a
// container's record) wait in side tables. A timer's id is its slot and a serial number,
// so that cancelling needs no lookup table.
//
// Who the roles are is the engine's business: Deliver asks a MailRecipients
// for the role at an address, or, when node agents are hosted on their nodes
// (the runtime), hands their mail to it as NodeMail.
// Not thread-safe: the engine's thread owns it.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/time.h"
#include "policy/context.h"
#include "policy/message.h"
#include "policy/roles.h"
#include "sim/engine.h"
#include "sim/event_queue.h"
#include "sim/slot_table.h"

namespace weft::sim {

struct NodeMail;  // sim/node_mail.h

enum class MailKind : uint8_t {
  kMessage, kTimer, kJobArrived, kTasksReady, kTaskEnded, kJobFinished,
  kMachineUp, kMachineDown, kContainerGranted, kContainerLost, kContainerReleased, kPhaseReady, kPhaseEnded, kStart,
  kSchedulerDown,  // tag: the replica that died
  kCancelled,      // a timer cancelled while in flight: dropped when due
};

// Mail: a notification as the engine posts it, by kind: tag
// (kSchedulerDown), range (kTasksReady), job and ok
// (kJobArrived, kJobFinished), machine (kMachineUp, kMachineDown), end.task
// and phase (kPhaseReady, kPhaseEnded); task ends go through PostTaskEnd,
// container records through PostContainer, messages through PostMessage and
// timers through PostTimer.
struct Mail {
  MailKind kind = MailKind::kTimer;
  policy::Address to;
  policy::Address from;
  uint64_t tag = 0;
  policy::TaskRange range;
  policy::TaskEnd end;
  JobId job;
  bool ok = true;
  MachineId machine;
  uint32_t phase = 0;
};

// A message's rarely used parts, parked in a side table while the message
// is in flight. x is here, not in MessageMail: inline it would make every
// PackedMail 8 bytes larger (80, not 72) for every policy, used or not.
struct MessageExtras {
  double x = 0;
  std::vector<int64_t> list;
};

// A policy::Message as the mailbox carries it: the same fields, but x and
// the lists wait in a side table when the message has any of them.
struct MessageMail {
  uint32_t type = 0;
  uint32_t extras = kNoSlot;  // slot in the extras' side table, if x is not +0.0 or the list is not empty
  TaskRef task;
  int64_t a = 0;
  int64_t b = 0;
  int64_t c = 0;
};

// PackedEnd: a policy::TaskEnd as the mailbox stores it; its measured usage
// (64 bytes, rarely read) waits in a side table, so task-end mail stays small.
struct PackedEnd {
  TaskRef task;
  MachineId machine;
  Outcome outcome = Outcome::kOk;
  bool will_retry = false;
  uint32_t attempt = 0;
  TimeUs start_us = 0;
  TimeUs end_us = 0;
  ContainerId container;
  uint32_t usage = kNoSlot;  // slot in the usage side table
};

// PackedMail: mail as the mailbox stores it, the addresses and only the
// payload its kind uses.
struct PackedMail {
  struct JobNote {
    JobId job;
    bool ok = true;
  };
  struct PhaseNote {
    TaskRef task;
    uint32_t phase = 0;
  };
  struct TimerNote {
    uint64_t tag = 0;
    uint32_t serial = 0;  // with the slot, the timer's TimerId; 0 once delivered
  };
  union Payload {
    Payload() : tag(0) {}
    uint64_t tag;             // kSchedulerDown
    TimerNote timer;          // kTimer, kCancelled
    MessageMail message;      // kMessage
    policy::TaskRange range;  // kTasksReady
    PackedEnd end;            // kTaskEnded
    JobNote job;              // kJobArrived, kJobFinished
    MachineId machine;        // kMachineUp, kMachineDown
    uint32_t container;       // kContainer*: slot in the containers' side table
    PhaseNote phase;          // kPhaseReady, kPhaseEnded
  };
  MailKind kind = MailKind::kTimer;
  uint32_t incarnation = 0;  // of the node agent addressed, stamped when posted
  policy::Address to;
  policy::Address from;
  Payload payload;
};
static_assert(std::is_trivially_copyable_v<PackedMail>, "mail is copied in and out of the mailbox: keep it plain");
static_assert(sizeof(PackedMail) <= 72, "every byte of mail costs Sparrow's throughput: measure before growing it");

// MailRecipients: where delivered mail goes (the engine's roles).
class MailRecipients {
 public:
  virtual ~MailRecipients() = default;
  // FindRole: the role at `to`, or nullptr when there is none (its mail is
  // dropped). For a node agent, the agent now on the machine: the mailbox
  // itself drops mail posted to an earlier incarnation.
  virtual policy::Role* FindRole(const policy::Address& to) = 0;
  // NodesElsewhere: node agents are hosted on their nodes; their mail goes
  // to ToNode, when the machine's agent is up there (NodeUpElsewhere).
  virtual bool NodesElsewhere() const = 0;
  virtual bool NodeUpElsewhere(uint32_t machine) const = 0;
  virtual void ToNode(MachineId machine, const NodeMail& mail) = 0;
};

class Mailbox {
 public:
  // Delivery events go to `queue`; dropped messages are counted in `stats`.
  Mailbox(EventQueue& queue, RunStats& stats) : queue_(queue), stats_(stats) {}

  // Post: a notification (any kind but task ends, messages, timers and
  // container mail).
  void Post(const Mail& mail, TimeUs delay);
  // PostTaskEnd: kTaskEnded mail to `to` (packed in place: every attempt's
  // end posts one or two).
  void PostTaskEnd(const policy::Address& to, const policy::TaskEnd& end, TimeUs delay);
  // PostMessage: takes the message's list.
  void PostMessage(const policy::Address& from, const policy::Address& to, policy::Message& message,
                   TimeUs delay);
  // PostContainer: kContainerGranted, kContainerLost or kContainerReleased.
  void PostContainer(MailKind kind, const policy::Address& to, const policy::ContainerInfo& info, TimeUs delay);
  // PostTimer: `to`'s timer with `tag`, due after `delay`.
  policy::TimerId PostTimer(const policy::Address& to, uint64_t tag, TimeUs delay);
  // CancelTimer: drops `by`'s pending timer `id`; false (and nothing
  // changes) if it is not pending or not `by`'s.
  bool CancelTimer(const policy::Address& by, policy::TimerId id);

  // SetMachines: the cluster has `n` machines, whose node agents start at
  // incarnation 0. NewNodeAgent: machine m's agent died or a new one
  // started: mail posted to it before is dropped.
  void SetMachines(size_t n) { incarnation_.assign(n, 0); }
  void NewNodeAgent(MachineId m) { ++incarnation_[m.value()]; }

  // Deliver: the mail in `slot` (named by a delivery event) to its role.
  // Recipients: a MailRecipients (or a class derived from one).
  template <typename Recipients>
  void Deliver(uint32_t slot, Recipients& recipients);

 private:
  void Queue(uint32_t slot, TimeUs delay);  // stamps the incarnation, queues the delivery
  void TakeExtras(uint32_t slot, policy::Message& message);  // x and list from the side table
  void ForwardToNode(const PackedMail& mail, MailRecipients& recipients);
  void Drop(const PackedMail& mail);  // frees its side-table parts
  PackedEnd PackEnd(const policy::TaskEnd& end);
  policy::TaskEnd UnpackEnd(const PackedEnd& end);

  EventQueue& queue_;
  RunStats& stats_;
  SlotTable<PackedMail> mail_;                    // mail in flight, by the slot its event names
  SlotTable<MessageExtras> extras_;               // messages' x and list
  SlotTable<policy::ContainerInfo> containers_;   // container records of container mail
  SlotTable<policy::TaskUsage> usage_;            // measured usage of task-end mail
  uint32_t timer_serial_ = 0;                     // of the last timer set (0 is never used)
  // Per machine, bumped when its agent dies and when a new one starts: mail
  // posted to an agent that has since died is dropped, so a dead agent's
  // timers and in-flight messages never reach its successor.
  std::vector<uint32_t> incarnation_;
};

// Deliver is a template so that the engine's role lookup (its Recipients
// adapter is final) is inlined: an indirect call per delivery cost Sparrow's simulation
// about 2% more instructions.
template <typename Recipients>
void Mailbox::Deliver(uint32_t slot, Recipients& recipients) {
  const PackedMail m = mail_.Take(slot);
  const PackedMail::Payload& p = m.payload;
  if (m.kind == MailKind::kCancelled) return;
  // A taken slot keeps its old value until reused: mark a timer delivered
  // so that a late CancelTimer of it finds nothing to cancel.
  if (m.kind == MailKind::kTimer) mail_.At(slot).payload.timer.serial = 0;
  policy::Role* role = nullptr;
  if (m.to.kind != policy::RoleKind::kNode) {
    role = recipients.FindRole(m.to);
  } else if (recipients.NodesElsewhere()) {
    return ForwardToNode(m, recipients);
  } else if (m.to.index < incarnation_.size() && m.incarnation == incarnation_[m.to.index]) {
    role = recipients.FindRole(m.to);
  }
  if (role == nullptr) return Drop(m);
  using policy::RoleKind;
  auto* scheduler = m.to.kind == RoleKind::kScheduler ? static_cast<policy::ClusterScheduler*>(role) : nullptr;
  auto* manager = m.to.kind == RoleKind::kJobManager ? static_cast<policy::JobManager*>(role) : nullptr;
  auto* node = m.to.kind == RoleKind::kNode ? static_cast<policy::NodeAgent*>(role) : nullptr;
  switch (m.kind) {
    case MailKind::kMessage: {
      // Built here, not by a helper: the hottest path of a message-passing policy.
      policy::Message message{.type = p.message.type, .task = p.message.task, .a = p.message.a, .b = p.message.b,
                              .c = p.message.c};
      if (p.message.extras != kNoSlot) TakeExtras(p.message.extras, message);
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
    case MailKind::kTaskEnded: {
      const policy::TaskEnd end = UnpackEnd(p.end);
      if (scheduler) scheduler->OnTaskEnded(end);
      if (manager) manager->OnTaskEnded(end);
      if (node) node->OnTaskEnded(end);
      break;
    }
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
      manager->OnContainerGranted(containers_.Take(p.container));
      break;
    case MailKind::kContainerLost:
      manager->OnContainerLost(containers_.Take(p.container));
      break;
    case MailKind::kContainerReleased: {
      const policy::ContainerInfo info = containers_.Take(p.container);
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
