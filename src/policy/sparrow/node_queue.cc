#include "policy/sparrow/node_queue.h"

#include <algorithm>

namespace weft::policy::sparrow {

void NodeQueue::Push(const QueueEntry& e, int priority, uint32_t user, double weight) {
  const int64_t key = kind_ == QueueKind::kFifo ? 0 : kind_ == QueueKind::kPriority ? -int64_t{priority} : user;
  Tagged t{e, 0};
  if (kind_ == QueueKind::kFair) {
    double& finish = last_finish_[key];
    t.start = std::max(vtime_, finish);
    finish = t.start + 1 / (weight > 0 ? weight : 1);
  }
  queues_[key].push_back(t);
  ++size_;
}

template <typename Self>
auto NodeQueue::FrontQueue(Self& self) -> decltype(self.queues_.begin()) {
  auto best = self.queues_.end();
  for (auto it = self.queues_.begin(); it != self.queues_.end(); ++it) {
    if (it->second.empty()) continue;
    if (self.kind_ != QueueKind::kFair) return it;  // the first non-empty: fifo's one queue, or the highest priority
    if (best == self.queues_.end() || it->second.front().start < best->second.front().start) best = it;
  }
  return best;
}

const QueueEntry& NodeQueue::Front() const { return FrontQueue(*this)->second.front().entry; }

void NodeQueue::Pop() {
  auto& entries = FrontQueue(*this)->second;
  vtime_ = std::max(vtime_, entries.front().start);
  entries.pop_front();
  --size_;
}

size_t NodeQueue::RemoveIf(const std::function<bool(const QueueEntry&)>& pred) {
  size_t removed = 0;
  for (auto& [key, entries] : queues_) {
    const auto end = std::remove_if(entries.begin(), entries.end(), [&](const Tagged& t) { return pred(t.entry); });
    removed += static_cast<size_t>(entries.end() - end);
    entries.erase(end, entries.end());
  }
  size_ -= removed;
  return removed;
}

}  // namespace weft::policy::sparrow
