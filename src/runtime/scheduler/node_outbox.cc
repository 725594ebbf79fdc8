#include "runtime/scheduler/node_outbox.h"

namespace weft::runtime {

void NodeOutbox::Node::Clear() {
  launches.Clear();
  kills.Clear();
  agent_mails.Clear();
  phase_starts.Clear();
  data_tickets.Clear();
  data_copies.Clear();
}

uint64_t NodeOutbox::Connect(uint32_t slot, NodeLink* link, TimeUs now) {
  Node& node = nodes_[slot];
  node.link = link;
  ++node.generation;
  node.last_seen_us = now;
  node.Clear();
  return node.generation;
}

void NodeOutbox::Disconnect(uint32_t slot, bool close) {
  Node& node = nodes_[slot];
  if (close && node.link != nullptr) node.link->Close();
  node.link = nullptr;
  node.Clear();
}

uint32_t NodeOutbox::connected_count() const {
  uint32_t up = 0;
  for (const Node& n : nodes_) up += n.link != nullptr;
  return up;
}

std::vector<uint32_t> NodeOutbox::Silent(TimeUs now, TimeUs timeout_us) const {
  std::vector<uint32_t> silent;
  for (uint32_t s = 0; s < nodes_.size(); ++s) {
    if (nodes_[s].link != nullptr && now - nodes_[s].last_seen_us > timeout_us) silent.push_back(s);
  }
  return silent;
}

void NodeOutbox::Flush() {
  for (Node& node : nodes_) {
    if (node.link == nullptr || node.data_tickets.tickets_size() == 0) continue;
    v1::SchedulerMessage m;
    *m.mutable_data_tickets() = std::move(node.data_tickets);
    node.data_tickets.Clear();
    node.link->Send(std::move(m));
  }
  for (Node& node : nodes_) {
    if (node.link == nullptr) continue;
    if (node.kills.attempts_size() > 0) {
      v1::SchedulerMessage m;
      *m.mutable_kills() = std::move(node.kills);
      node.kills.Clear();
      node.link->Send(std::move(m));
    }
    if (node.agent_mails.mails_size() > 0) {
      v1::SchedulerMessage m;
      *m.mutable_agent_mails() = std::move(node.agent_mails);
      node.agent_mails.Clear();
      node.link->Send(std::move(m));
    }
    if (node.launches.launches_size() > 0 || node.launches.moves_size() > 0) {
      v1::SchedulerMessage m;
      *m.mutable_launches() = std::move(node.launches);
      node.launches.Clear();
      node.link->Send(std::move(m));
    }
    if (node.phase_starts.starts_size() > 0) {  // after the launches they may belong to
      v1::SchedulerMessage m;
      *m.mutable_phase_starts() = std::move(node.phase_starts);
      node.phase_starts.Clear();
      node.link->Send(std::move(m));
    }
    if (node.data_copies.copies_size() > 0) {
      v1::SchedulerMessage m;
      *m.mutable_data_copies() = std::move(node.data_copies);
      node.data_copies.Clear();
      node.link->Send(std::move(m));
    }
  }
}

}  // namespace weft::runtime
