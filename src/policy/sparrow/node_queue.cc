#include "policy/sparrow/node_queue.h"

#include <algorithm>

namespace weft::policy::sparrow {

void NodeQueue::Push(const QueueEntry& e, int priority, uint32_t user, double weight) {
  const int64_t key = kind_ == QueueKind::kFifo ? 0 : kind_ == QueueKind::kPriority ? -int64_t{priority} : user;
  auto it = std::find_if(queues_.begin(), queues_.end(), [&](const Queue& q) { return q.key >= key; });
  if (it == queues_.end() || it->key != key) it = queues_.insert(it, Queue{.key = key});
  Tagged t{e, 0};
  if (kind_ == QueueKind::kFair) {
    t.start = std::max(vtime_, it->last_finish);
    it->last_finish = t.start + 1 / (weight > 0 ? weight : 1);
  }
  it->entries.push_back(t);
  ++size_;
}

template <typename Self>
auto NodeQueue::FrontQueue(Self& self) -> decltype(&self.queues_.front()) {
  decltype(&self.queues_.front()) best = nullptr;
  for (auto& q : self.queues_) {
    if (q.entries.empty()) continue;
    if (self.kind_ != QueueKind::kFair) return &q;  // the first non-empty: fifo's one queue, or the highest priority
    if (best == nullptr || q.entries.front().start < best->entries.front().start) best = &q;
  }
  return best;
}

const QueueEntry& NodeQueue::Front() const { return FrontQueue(*this)->entries.front().entry; }

void NodeQueue::Pop() {
  RingQueue<Tagged>& entries = FrontQueue(*this)->entries;
  vtime_ = std::max(vtime_, entries.front().start);
  entries.pop_front();
  --size_;
}

size_t NodeQueue::RemoveIf(const std::function<bool(const QueueEntry&)>& pred) {
  size_t removed = 0;
  for (Queue& q : queues_) removed += q.entries.RemoveIf([&](const Tagged& t) { return pred(t.entry); });
  size_ -= removed;
  return removed;
}

}  // namespace weft::policy::sparrow
