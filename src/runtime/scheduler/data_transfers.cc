// File: runtime/scheduler/data_transfers.cc
#include "runtime/scheduler/data_transfers.h"

#include <sys/random.h>

#include "runtime/node/data_address.h"
#include "runtime/node/data_request.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {
namespace {

// Random: `size` bytes from the kernel's generator; false if it has none.
bool Random(void* out, size_t size) {
  return getrandom(out, size, 0) == static_cast<ssize_t>(size);
}

}  // namespace

DataTransfers::DataTransfers(NodeOutbox& outbox) : outbox_(outbox) {
  if (!Random(&next_transfer_, sizeof next_transfer_)) next_transfer_ = 1;
}

void DataTransfers::SetAddress(uint32_t slot, const std::string& address) {
  if (addresses_.size() <= slot) addresses_.resize(slot + 1);
  sockaddr_storage parsed{};
  socklen_t len = 0;
  const bool valid = ParseDataAddress(address, parsed, len);
  if (!valid && !address.empty()) spdlog::warn("node slot {}: its data port \"{}\" is not a numeric HOST:PORT: ignored", slot, address.substr(0, 64));
  addresses_[slot] = valid ? address : std::string();
}

bool DataTransfers::Serves(uint32_t slot) const {
  return slot < addresses_.size() && !addresses_[slot].empty() && outbox_.connected(slot);
}

bool DataTransfers::Issue(uint32_t from, uint64_t bytes, v1::DataPull& pull) {
  DataTicketBytes ticket;
  if (!Serves(from) || !Random(ticket.data(), ticket.size())) return false;
  const uint64_t transfer = next_transfer_++;
  const std::string ticket_text(reinterpret_cast<const char*>(ticket.data()), ticket.size());
  v1::DataTicket* t = outbox_.AddTicket(from);
  t->set_transfer(transfer);
  t->set_ticket(ticket_text);
  t->set_bytes(bytes);
  t->set_ttl_ms(kTicketTtlMs);
  pull.set_address(addresses_[from]);
  pull.set_transfer(transfer);
  pull.set_ticket(ticket_text);
  pull.set_bytes(bytes);
  return true;
}

}  // namespace weft::runtime
