// File: sim/remote_agents.h (internal to sim/)
//
// RemoteAgents: the engine's link to node agents hosted elsewhere (the
// runtime's nodes) instead of built by the engine: the channel their mail
// goes through, which of them are up, and whether they control phases
// (NodeAgent::ControlsPhases). The host of the engine attaches the link once,
// before any role exists (EngineCore::AttachRemoteAgents); a run without it
// builds its node agents itself. The engine marks agents up and down as
// machines come and go.
// Not thread-safe; owned by one engine.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ids.h"
#include "sim/node_mail.h"

namespace weft::sim {

class RemoteAgents {
 public:
  // Attach: the agents run elsewhere and hear their mail through `channel`
  // (which outlives the engine); controls_phases: they start phases.
  void Attach(AgentChannel& channel, bool controls_phases) {
    channel_ = &channel;
    controls_phases_ = controls_phases;
  }
  // attached: the node agents are hosted elsewhere.
  bool attached() const { return channel_ != nullptr; }
  bool controls_phases() const { return controls_phases_; }

  // SetMachines: every machine's agent starts down.
  void SetMachines(size_t machines) { alive_.assign(machines, false); }
  // alive: machine m's remote agent is up (false for a machine out of range).
  bool alive(uint32_t m) const { return m < alive_.size() && alive_[m]; }
  void SetAlive(uint32_t m, bool alive) { alive_[m] = alive; }

  // Deliver hands mail for machine m's agent to the channel (attached only).
  void Deliver(MachineId m, const NodeMail& mail) { channel_->DeliverToNode(m, mail); }

 private:
  AgentChannel* channel_ = nullptr;
  bool controls_phases_ = false;
  std::vector<bool> alive_;
};

}  // namespace weft::sim
