// File: runtime/node/node_book.h
//
// NodeBook: what a node daemon has reserved for the tasks it runs, and its
// admission check (docs/runtime.md, "Enforcement"). The scheduler sends each
// launch with what its engine reserved for it on this machine
// (Launch.reserve) and each move of that reservation between profiled
// phases (Launches.moves); the node books them and refuses a launch whose
// reservation, added to what it already holds, would pass its capacity in a
// resource the policy does not overbook (Registered.overbooked, the policy's
// Policy::overbooked()). A task in a container books nothing of its own on
// the machine: the container's size is booked once, while the node runs
// any of its tasks (the container's cgroup bounds its tasks together).
//
// Reservations are keyed by (link, attempt) and containers by (link,
// container): several scheduler daemons number them independently, but
// every daemon's tasks share the one machine, so they share one book.
//
// The node's book never holds more than the scheduler's engine does: it
// releases a task when it reaps its process (before the end is sent) or
// when it hears the kill, and the scheduler sends a batch's kills and
// reservation moves before its launches. So a refusal means the node and
// its scheduler disagree (another daemon, or a bug), never a race.
//
// Plain data, not thread-safe (the node's main thread owns it).
#pragma once

#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "model/resources.h"

namespace weft::runtime {

class NodeBook {
 public:
  explicit NodeBook(const Resources& capacity) : capacity_(capacity) {}

  // The resources the policy overbooks: not checked (by default none).
  void set_overbooked(ResourceMask mask) { overbooked_ = mask; }
  ResourceMask overbooked() const { return overbooked_; }

  // Admit books attempt `attempt` of link `link` with `reserve` (container
  // 0), or in container `container` (its id + 1) of `container_size`: the
  // container is booked by its first task. Validates before it books: a
  // ResourceExhausted status naming the resource, the amounts and the
  // capacity when it does not fit; FailedPrecondition for an attempt
  // already booked. Nothing changes when it refuses.
  absl::Status Admit(size_t link, uint64_t attempt, const Resources& reserve, uint64_t container = 0,
                     const Resources& container_size = Resources());
  // Move: the attempt's reservation is now `reserve` (a profiled phase's).
  // Applied even when it does not fit (the task already runs; the engine
  // grew it only where it had room): false then, for the log. Unknown
  // attempts and attempts in a container are ignored (true).
  bool Move(size_t link, uint64_t attempt, const Resources& reserve);
  // Release: the attempt has ended or been killed (unknown: nothing).
  void Release(size_t link, uint64_t attempt);
  // ReleaseLink: everything of link `link` (its scheduler gave it up).
  void ReleaseLink(size_t link);

  bool holds(size_t link, uint64_t attempt) const { return attempts_.contains({link, attempt}); }
  const Resources& reserved() const { return reserved_; }
  const Resources& capacity() const { return capacity_; }

 private:
  using Key = std::pair<size_t, uint64_t>;
  struct Booked {
    Resources reserve;       // on the machine (zero in a container)
    uint64_t container = 0;  // its id + 1; 0: none
  };
  struct Container {
    Resources size;
    int tasks = 0;
  };
  // Fits: `more` added to what is reserved stays within capacity outside the overbooked resources.
  absl::Status Fits(const Resources& more, const char* what) const;

  Resources capacity_;
  ResourceMask overbooked_ = 0;
  Resources reserved_;
  absl::flat_hash_map<Key, Booked> attempts_;
  absl::flat_hash_map<Key, Container> containers_;
};

}  // namespace weft::runtime
