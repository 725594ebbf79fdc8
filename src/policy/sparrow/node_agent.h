// File: policy/sparrow/node_agent.h
//
// SparrowNode: the node monitor of Sparrow (§3, §4.2) as a weft node agent.
// It answers probes with its load, queues placed tasks and reservations in a
// NodeQueue, and serves the queue while it has a free slot and the front
// entry's demand fits what is not allocated on its machine: a placed task is
// launched locally (no latency); a reservation becomes a task request to the
// scheduler that sent it, holding the slot and the demand until the task or
// a no-op comes back (the idle time late binding costs, §3.5). Cancellations
// drop a job stage's reservations; OnSchedulerDown drops everything of the
// dead replica, including the slots waiting on its replies.
// Not thread-safe (one agent per machine, driven by the platform).
#pragma once

#include <cstdint>
#include <vector>

#include "policy/roles.h"
#include "policy/sparrow/node_queue.h"
#include "policy/sparrow/sparrow.h"

namespace weft::policy::sparrow {

class SparrowNode final : public NodeAgent {
 public:
  SparrowNode(Context& ctx, MachineId machine, const Config& config);

  void OnMessage(const Address& from, const Message& m) override;
  void OnTaskEnded(const TaskEnd& end) override;
  void OnSchedulerDown(uint32_t replica) override;

  // Load: what a probe reply reports.
  int64_t Load() const;

 private:
  struct Request {
    uint32_t replica = 0;
    TaskRef reservation;
    Resources demand;  // of the reservation's stage: held for the task to come
  };
  // Serve queue entries while a slot is free and the front fits.
  void Pump();
  void EndRequest(uint32_t replica, const TaskRef& reservation);

  Config config_;
  uint32_t slots_;
  NodeQueue queue_;
  std::vector<Request> requests_;  // task requests awaiting a reply (each holds a slot)
  Resources committed_;            // the sum of requests_' demands
};

}  // namespace weft::policy::sparrow
