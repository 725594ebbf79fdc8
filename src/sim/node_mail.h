// File: sim/node_mail.h
//
// NodeMail and AgentChannel: how the engine reaches node agents that are
// hosted elsewhere (the runtime's `weftd node`), instead of building them
// itself. The engine hands such an agent's mail to the channel; the agent's
// actions come back through the host of the engine (sim/live_engine.h).
// Plain data and an interface; no threads.
#pragma once

#include <cstdint>

#include "core/ids.h"
#include "policy/message.h"
#include "policy/roles.h"

namespace weft::sim {

// NodeMail: what a node agent hosted on its node hears from the platform:
// its start, a message from another role, the end of a task on its machine,
// that a scheduler replica died (`tag`), or, for an agent that controls
// phases, that phase `tag` of `end.task` became ready or ended.
struct NodeMail {
  enum class Kind : uint8_t { kStart, kMessage, kTaskEnded, kSchedulerDown, kPhaseReady, kPhaseEnded };
  Kind kind = Kind::kStart;
  policy::Address from;
  policy::Message message;
  policy::TaskEnd end;
  uint64_t tag = 0;
};

class AgentChannel {
 public:
  virtual ~AgentChannel() = default;
  // DeliverToNode: mail for machine m's agent.
  virtual void DeliverToNode(MachineId machine, const NodeMail& mail) = 0;
};

}  // namespace weft::sim
