// File: runtime/node/data_tickets.h
//
// DataTickets: the transfers a node's data port may serve (data_server.h).
// The scheduler issues one ticket per transfer (16 random bytes, a byte
// count, a time to live) and gives it to the node holding the bytes and to
// the node reading them. A request is served only if its transfer has a
// ticket here, its ticket matches, it asks for exactly the ticket's bytes
// and the ticket has not expired; the ticket is then used up (single use).
// A request that does not match changes nothing, so a reader guessing
// tickets cannot burn another's. At most kMaxTickets are kept: expired ones
// go first, then the oldest.
//
// Threading: thread-safe (the daemon's thread allows, the server's
// connection threads take); Take may wait for a ticket still on its way.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "runtime/node/data_request.h"

namespace weft::runtime {

class DataTickets {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kMaxTickets = 4096;

  // Why a request was refused (kServe: it was not).
  enum class Verdict { kServe, kUnknown, kWrongTicket, kWrongSize, kExpired };

  // Allow: transfer `transfer` may be served once, `bytes` bytes, until
  // `expires`. A second ticket for the same transfer replaces the first.
  void Allow(uint64_t transfer, const DataTicketBytes& ticket, uint64_t bytes, Clock::time_point expires);
  // Take: the verdict on `request` at `now`; kServe uses the ticket up. A
  // transfer without a ticket yet is waited for until `wait_until` (the
  // scheduler sends the holder's ticket and the reader's start on separate
  // streams, so the reader may come first).
  Verdict Take(const DataRequest& request, Clock::time_point now, Clock::time_point wait_until);
  size_t size() const;

 private:
  struct Ticket {
    DataTicketBytes ticket{};
    uint64_t bytes = 0;
    Clock::time_point expires;
  };
  void DropOldest(Clock::time_point now);  // under mu_, to make room

  mutable std::mutex mu_;
  std::condition_variable allowed_;
  absl::flat_hash_map<uint64_t, Ticket> tickets_;
  std::deque<uint64_t> order_;  // transfers in the order they were allowed (some may be gone)
};

const char* VerdictName(DataTickets::Verdict v);

}  // namespace weft::runtime
