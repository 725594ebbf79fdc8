// File: sim/event_queue.h
//
// EventQueue: the simulator's agenda. Events are ordered by (time, sequence
// number); the sequence number is assigned at insertion, so events at the
// same instant run in the order they were scheduled, on every machine and
// every run (never by pointer or hash order).
//
// Two kinds of event bypass the heap, because their order is known when they
// are pushed:
//   - events due "now" (zero delay) go to a FIFO: they all carry a larger
//     sequence number than any other event due at the same instant (those
//     were scheduled earlier), so draining the heap's and the lane's events
//     at `now` first and then the FIFO is exact (time, seq) order;
//   - events due exactly `lane delay` after now (SetLaneDelay: the run's
//     message latency, i.e. most of a message-passing policy's events) go to
//     a second FIFO, the lane: now never decreases, so they arrive in
//     (time, seq) order and the lane's front is its earliest; Pop takes the
//     earlier of the heap's top and the lane's front.
// Both are far cheaper than the heap. Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ring_queue.h"
#include "core/time.h"

namespace weft::sim {

// One kind per event; in each, a field means one thing (unused ones are 0).
// An attempt is named by its slot and generation (sim/attempt_table.h), so an
// event about an attempt that has ended since finds nothing.
enum class EventType : uint8_t {
  kJobArrival,      // a: job
  kLaunchArrives,   // a: attempt slot, b: attempt generation: it reaches its machine
  kRemoteReadEnd,   // a: attempt slot, b: attempt generation: its remote input read is over
  kShuffleEnd,      // a: attempt slot, b: attempt generation: its shuffle phase is over
  kFlowEnd,         // a: flow, b: flow version (sim/network_flows.h): its bytes are carried
  kRetryParked,     // a: machine: retry the phases parked there until their demand fits
  kSegmentEnd,      // a: attempt slot, b: attempt generation, c: segment version (the execution's)
  kDeliver,         // a: mailbox slot (message, timer or notification)
  kMachineDown,     // a: machine
  kMachineUp,       // a: machine
  kSchedulerDown,   // a: scheduler replica
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
  // SetLaneDelay: events pushed exactly `delay` (> 0) after now() skip the
  // heap (see above); 0 turns the lane off. Call before the first Push.
  void SetLaneDelay(TimeUs delay) { lane_delay_ = delay; }
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
  bool empty() const { return heap_.empty() && lane_.empty() && immediate_.empty(); }
  uint64_t pushed() const { return next_seq_; }

 private:
  // (time, seq) order as one 128-bit comparison: no data-dependent branch,
  // which the heap's sift-down would mispredict half the time. Times are
  // never negative.
  static bool Before(const Event& x, const Event& y) { return Key(x) < Key(y); }
  static unsigned __int128 Key(const Event& e) {
    return (static_cast<unsigned __int128>(static_cast<uint64_t>(e.time)) << 64) | e.seq;
  }
  // EarliestScheduled: the heap's top or the lane's front, whichever comes
  // first in (time, seq) order; nullptr when both are empty.
  const Event* EarliestScheduled() const;
  void HeapPush(const Event& e);
  Event HeapPop();

  // A 4-ary min-heap: shallower than a binary heap, and a node's children
  // share a cache line or two, which makes pops markedly cheaper.
  std::vector<Event> heap_;
  RingQueue<Event> lane_;
  RingQueue<Event> immediate_;
  TimeUs lane_delay_ = 0;
  TimeUs now_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace weft::sim
