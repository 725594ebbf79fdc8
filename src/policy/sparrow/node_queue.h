// File: policy/sparrow/node_queue.h
//
// NodeQueue: the queue a Sparrow node monitor keeps of reservations (late
// binding) and placed tasks (the other variants), ordered by one of the
// node-side policies of §4.2:
//   - fifo: one queue, arrival order;
//   - priority: one queue per job priority, the highest non-empty first
//     (strict priorities, no preemption);
//   - fair: one queue per user, weighted fair queuing across them, as
//     start-time fair queuing: an entry of a user with weight w gets the
//     start tag max(V, the user's last finish tag) and the finish tag
//     start + 1/w, where V is the start tag of the entry served last; the
//     front with the smallest start tag is served (ties: smaller user id). A
//     user gets no credit for the time it had nothing queued.
// Plain data; owned by one node agent; not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "core/ids.h"
#include "core/ring_queue.h"
#include "policy/sparrow/sparrow.h"

namespace weft::policy::sparrow {

struct QueueEntry {
  TaskRef task;
  uint32_t replica = 0;      // the scheduler that sent it
  bool reservation = false;  // late binding: ask `replica` for a task
};

class NodeQueue {
 public:
  explicit NodeQueue(QueueKind kind) : kind_(kind) {}

  // Push appends an entry of a job with `priority` (higher first), `user`
  // and the job's `weight` (> 0).
  void Push(const QueueEntry& e, int priority, uint32_t user, double weight);
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Front: the entry to serve next. Precondition: !empty().
  const QueueEntry& Front() const;
  // Pop removes Front() and charges its user (fair).
  void Pop();
  // RemoveIf drops every entry for which `pred` holds; returns how many.
  size_t RemoveIf(const std::function<bool(const QueueEntry&)>& pred);

 private:
  struct Tagged {
    QueueEntry entry;
    double start = 0;  // fair: start tag
  };
  // One queue per key: priority (negated, so the first is the highest) or
  // user; one queue, key 0, for fifo. Kept sorted by key in a vector (there
  // are few), and a queue that empties stays (a node's queue empties and
  // fills again all the time), so readers skip empty ones.
  struct Queue {
    int64_t key = 0;
    double last_finish = 0;  // fair: the finish tag of its last entry
    RingQueue<Tagged> entries;
  };
  // The queue Front() reads (const or not). Precondition: !empty().
  template <typename Self>
  static auto FrontQueue(Self& self) -> decltype(&self.queues_.front());

  QueueKind kind_;
  std::vector<Queue> queues_;
  double vtime_ = 0;                              // fair: V
  size_t size_ = 0;
};

}  // namespace weft::policy::sparrow
