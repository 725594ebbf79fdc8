// File: runtime/scheduler/node_outbox.h
//
// NodeOutbox: the scheduler core's side of each node's stream. For every
// node slot it keeps the link of the node's current session (null while the
// node is disconnected), the session's generation (so a late call from an
// older stream is told apart), when the node was last heard from, and what
// waits to be sent to it: launches and reservation moves, kills, mail for
// its node agent, phase starts, tickets of transfers it serves. Flush sends what waits, in an order the node
// relies on.
//
// Not thread-safe: the core calls it under its lock. Messages queued for a
// disconnected node stay queued until it connects again, which drops them
// (what they were about was undone when the node went down).
#pragma once

#include <cstdint>
#include <vector>

#include "core/time.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

// NodeLink: how the core talks to one connected node. Send must not block;
// Close ends the node's stream (the node then reconnects and registers).
class NodeLink {
 public:
  virtual ~NodeLink() = default;
  virtual void Send(v1::SchedulerMessage message) = 0;
  virtual void Close() = 0;
};

class NodeOutbox {
 public:
  // Resize makes room for `nodes` slots (it only grows).
  void Resize(size_t nodes) { nodes_.resize(std::max(nodes_.size(), nodes)); }
  size_t size() const { return nodes_.size(); }

  // Connect starts a new session of `slot` on `link`, heard from `now`,
  // with nothing queued; the caller has disconnected the old one. Returns
  // the session's generation.
  uint64_t Connect(uint32_t slot, NodeLink* link, TimeUs now);
  // Disconnect ends the session of `slot` (closing its stream first if
  // `close`) and drops what was queued for it.
  void Disconnect(uint32_t slot, bool close);
  bool connected(uint32_t slot) const { return nodes_[slot].link != nullptr; }
  uint32_t connected_count() const;
  // Current: `generation` is the live session of `slot`.
  bool Current(uint32_t slot, uint64_t generation) const {
    return nodes_[slot].link != nullptr && nodes_[slot].generation == generation;
  }
  void HeardFrom(uint32_t slot, TimeUs now) { nodes_[slot].last_seen_us = now; }
  // Silent: the connected slots not heard from for more than `timeout_us`.
  std::vector<uint32_t> Silent(TimeUs now, TimeUs timeout_us) const;

  // Queued until Flush.
  v1::Launch* AddLaunch(uint32_t slot) { return nodes_[slot].launches.add_launches(); }
  v1::ReservationMove* AddMove(uint32_t slot) { return nodes_[slot].launches.add_moves(); }
  void AddKill(uint32_t slot, uint64_t attempt) { nodes_[slot].kills.add_attempts(attempt); }
  v1::AgentMail* AddMail(uint32_t slot) { return nodes_[slot].agent_mails.add_mails(); }
  v1::PhaseStart* AddPhaseStart(uint32_t slot) { return nodes_[slot].phase_starts.add_starts(); }
  v1::DataTicket* AddTicket(uint32_t slot) { return nodes_[slot].data_tickets.add_tickets(); }
  v1::DataCopy* AddCopy(uint32_t slot) { return nodes_[slot].data_copies.add_copies(); }
  // SendNow: a message that waits for nothing (a registration's answer).
  void SendNow(uint32_t slot, v1::SchedulerMessage message) { nodes_[slot].link->Send(std::move(message)); }

  // Flush sends each connected node what waits for it: kills first, then
  // agent mail, launches, the phase starts that may belong to them, and
// shuffle copies; the
  // data tickets of transfers from a node go to it before any phase starts
  // anywhere (a reader waits a moment for its ticket to reach the holder).
  void Flush();

 private:
  struct Node {
    NodeLink* link = nullptr;  // null while disconnected
    uint64_t generation = 0;
    TimeUs last_seen_us = 0;
    v1::Launches launches;
    v1::Kills kills;
    v1::AgentMails agent_mails;
    v1::PhaseStarts phase_starts;
    v1::DataTickets data_tickets;
    v1::DataCopies data_copies;
    void Clear();
  };
  std::vector<Node> nodes_;
};

}  // namespace weft::runtime
