#include "sim/event_queue.h"

#include <algorithm>

namespace weft::sim {

void EventQueue::Push(Event e) {
  e.seq = next_seq_++;
  if (e.time <= now_) {
    e.time = now_;
    immediate_.push_back(e);
  } else if (e.time - now_ == lane_delay_) {
    lane_.push_back(e);
  } else {
    HeapPush(e);
  }
}

void EventQueue::HeapPush(const Event& e) {
  size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const size_t parent = (i - 1) / 4;
    if (!Before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

Event EventQueue::HeapPop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return top;
  size_t i = 0;
  while (true) {
    const size_t first = 4 * i + 1;
    if (first >= n) break;
    size_t best = first;
    const size_t end = std::min(first + 4, n);
    for (size_t c = first + 1; c < end; ++c) {
      if (Before(heap_[c], heap_[best])) best = c;
    }
    if (!Before(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
  return top;
}

bool EventQueue::Pop(Event& out) {
  // The earliest scheduled event: the heap's top or the lane's front.
  const bool has_heap = !heap_.empty();
  const bool from_lane = !lane_.empty() && (!has_heap || Before(lane_.front(), heap_.front()));
  const Event* next = from_lane ? &lane_.front() : has_heap ? &heap_.front() : nullptr;
  if (next != nullptr && next->time == now_) {
    out = from_lane ? lane_.pop_front() : HeapPop();
    return true;
  }
  if (!immediate_.empty()) {
    out = immediate_.pop_front();
    return true;
  }
  if (next == nullptr) return false;
  out = from_lane ? lane_.pop_front() : HeapPop();
  now_ = out.time;
  return true;
}

const Event* EventQueue::EarliestScheduled() const {
  if (lane_.empty()) return heap_.empty() ? nullptr : &heap_.front();
  if (heap_.empty()) return &lane_.front();
  return Before(lane_.front(), heap_.front()) ? &lane_.front() : &heap_.front();
}

bool EventQueue::PopDue(TimeUs limit, Event& out) {
  const Event* next = EarliestScheduled();
  if (immediate_.empty() && (next == nullptr || next->time > limit)) return false;
  return Pop(out);
}

void EventQueue::AdvanceTo(TimeUs t) {
  const Event* next = EarliestScheduled();
  if (t > now_ && immediate_.empty() && (next == nullptr || next->time >= t)) now_ = t;
}

TimeUs EventQueue::NextTime() const {
  if (!immediate_.empty()) return now_;
  const Event* next = EarliestScheduled();
  return next == nullptr ? -1 : next->time;
}

}  // namespace weft::sim
