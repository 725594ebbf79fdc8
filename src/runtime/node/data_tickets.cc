// File: runtime/node/data_tickets.cc
#include "runtime/node/data_tickets.h"

namespace weft::runtime {
namespace {

// SameTicket compares in time independent of where they differ, so timing
// tells a guesser nothing.
bool SameTicket(const DataTicketBytes& a, const DataTicketBytes& b) {
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

void DataTickets::Allow(uint64_t transfer, const DataTicketBytes& ticket, uint64_t bytes, Clock::time_point expires) {
  {
    std::lock_guard lock(mu_);
    if (tickets_.size() >= kMaxTickets && !tickets_.contains(transfer)) DropOldest(Clock::now());
    tickets_[transfer] = Ticket{ticket, bytes, expires};
    order_.push_back(transfer);
    // Keep the order bounded too: forget transfers no longer held.
    while (order_.size() > 2 * kMaxTickets) {
      if (!tickets_.contains(order_.front())) {
        order_.pop_front();
      } else {
        break;
      }
    }
  }
  allowed_.notify_all();
}

void DataTickets::DropOldest(Clock::time_point now) {
  absl::erase_if(tickets_, [now](const auto& entry) { return entry.second.expires <= now; });
  while (tickets_.size() >= kMaxTickets && !order_.empty()) {
    tickets_.erase(order_.front());
    order_.pop_front();
  }
}

DataTickets::Verdict DataTickets::Take(const DataRequest& request, Clock::time_point now,
                                       Clock::time_point wait_until) {
  std::unique_lock lock(mu_);
  allowed_.wait_until(lock, wait_until, [&] { return tickets_.contains(request.transfer); });
  auto it = tickets_.find(request.transfer);
  if (it == tickets_.end()) return Verdict::kUnknown;
  if (!SameTicket(it->second.ticket, request.ticket)) return Verdict::kWrongTicket;
  if (it->second.bytes != request.bytes) return Verdict::kWrongSize;
  const bool expired = it->second.expires <= std::max(now, Clock::now());
  tickets_.erase(it);  // a valid ticket is used up, even when it came too late
  return expired ? Verdict::kExpired : Verdict::kServe;
}

size_t DataTickets::size() const {
  std::lock_guard lock(mu_);
  return tickets_.size();
}

const char* VerdictName(DataTickets::Verdict v) {
  switch (v) {
    case DataTickets::Verdict::kServe: return "served";
    case DataTickets::Verdict::kUnknown: return "no ticket for this transfer";
    case DataTickets::Verdict::kWrongTicket: return "a wrong ticket";
    case DataTickets::Verdict::kWrongSize: return "another size than its ticket's";
    case DataTickets::Verdict::kExpired: return "an expired ticket";
  }
  return "?";
}

}  // namespace weft::runtime
