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

int64_t NodeQueue::FrontKey() const {
  if (kind_ != QueueKind::kFair) return queues_.begin()->first;
  auto best = queues_.begin();
  for (auto it = std::next(queues_.begin()); it != queues_.end(); ++it) {
    if (it->second.front().start < best->second.front().start) best = it;
  }
  return best->first;
}

const QueueEntry& NodeQueue::Front() const {
  if (kind_ != QueueKind::kFair) return queues_.begin()->second.front().entry;
  return queues_.at(FrontKey()).front().entry;
}

void NodeQueue::Pop() {
  auto it = kind_ != QueueKind::kFair ? queues_.begin() : queues_.find(FrontKey());
  vtime_ = std::max(vtime_, it->second.front().start);
  it->second.pop_front();
  --size_;
  if (it->second.empty()) queues_.erase(it);
}

size_t NodeQueue::RemoveIf(const std::function<bool(const QueueEntry&)>& pred) {
  size_t removed = 0;
  for (auto it = queues_.begin(); it != queues_.end();) {
    auto& entries = it->second;
    const auto end = std::remove_if(entries.begin(), entries.end(), [&](const Tagged& t) { return pred(t.entry); });
    removed += static_cast<size_t>(entries.end() - end);
    entries.erase(end, entries.end());
    it = entries.empty() ? queues_.erase(it) : std::next(it);
  }
  size_ -= removed;
  return removed;
}

}  // namespace weft::policy::sparrow
