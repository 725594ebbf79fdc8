// File: sim/event_queue.h
//
// EventQueue: the simulator's agenda. Events are ordered by (time, sequence
// number); the sequence number is assigned at insertion, so events at the
// same instant run in the order they were scheduled, on every machine and
// every run (never by pointer or hash order).
//
// Events due "now" (zero delay) go to a FIFO instead of the heap: they all
// carry a larger sequence number than any heap event due at the same instant
// (those were scheduled earlier), so draining heap events at `now` first and
// then the FIFO reproduces exact (time, seq) order at a fraction of the cost.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "core/time.h"

namespace weft::sim {

enum class EventType : uint8_t {
  kJobArrival,     // a: job
  kLaunchArrives,  // a: attempt slot, b: attempt generation
  kSegmentEnd,     // a: attempt slot, b: attempt generation, c: segment version
  kDeliver,        // a: mailbox slot (message, timer or notification)
  kMachineDown,    // a: machine
  kMachineUp,      // a: machine
  kSchedulerDown,  // a: scheduler replica
};

struct Event {
  TimeUs time = 0;
  uint64_t seq = 0;
  EventType type = EventType::kJobArrival;
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t c = 0;
};

class EventQueue {
 public:
  // Push schedules `e` at e.time >= now(); its seq is assigned here.
  void Push(Event e);
  // Pop removes the next event in (time, seq) order and advances now().
  // Returns false when the queue is empty.
  bool Pop(Event& out);
  // PopDue pops the next event only if it is due at or before `limit`.
  bool PopDue(TimeUs limit, Event& out);
  // AdvanceTo moves now() forward to `t` (the real runtime's clock); every
  // event due before `t` must have been popped already.
  void AdvanceTo(TimeUs t);
  // NextTime: when the next event is due; -1 when the queue is empty.
  TimeUs NextTime() const;
  TimeUs now() const { return now_; }
  bool empty() const { return heap_.empty() && immediate_.empty(); }
  uint64_t pushed() const { return next_seq_; }

 private:
  static bool Before(const Event& x, const Event& y) {
    return x.time != y.time ? x.time < y.time : x.seq < y.seq;
  }
  void HeapPush(const Event& e);
  Event HeapPop();

  // A 4-ary min-heap: shallower than a binary heap, and a node's children
  // share a cache line or two, which makes pops markedly cheaper.
  std::vector<Event> heap_;
  std::deque<Event> immediate_;
  TimeUs now_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace weft::sim
