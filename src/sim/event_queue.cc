#include "sim/event_queue.h"

namespace weft::sim {

void EventQueue::Push(Event e) {
  e.seq = next_seq_++;
  if (e.time <= now_) {
    e.time = now_;
    immediate_.push_back(e);
  } else {
    heap_.push(e);
  }
}

bool EventQueue::Pop(Event& out) {
  if (!heap_.empty() && heap_.top().time == now_) {
    out = heap_.top();
    heap_.pop();
    return true;
  }
  if (!immediate_.empty()) {
    out = immediate_.front();
    immediate_.pop_front();
    return true;
  }
  if (heap_.empty()) return false;
  out = heap_.top();
  heap_.pop();
  now_ = out.time;
  return true;
}

}  // namespace weft::sim
