// File: runtime/scheduler/data_transfers.h
//
// DataTransfers: the scheduler's side of bytes moved between nodes
// (docs/runtime.md, "Bytes between nodes"). It knows each connected node's
// data port (Register.data_address) and issues a transfer: a fresh id, a
// ticket of 16 random bytes from the kernel's generator, sent to the node
// holding the bytes (a DataTicket, through the NodeOutbox) and written into
// the reader's DataPull. Only the two nodes of a transfer see its ticket;
// it is good for that transfer's bytes, once, for kTicketTtl.
//
// Not thread-safe: the core calls it under its lock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/scheduler/node_outbox.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

class DataTransfers {
 public:
  static constexpr int64_t kTicketTtlMs = 5 * 60 * 1000;

  explicit DataTransfers(NodeOutbox& outbox);

  // SetAddress: slot `slot`'s data port, from its registration; one that is
  // not a numeric HOST:PORT is taken as none (the node then serves nothing).
  void SetAddress(uint32_t slot, const std::string& address);
  // Serves: `slot` is connected and has a data port.
  bool Serves(uint32_t slot) const;
  // Issue: a transfer of `bytes` from `from` (Serves) to whoever gets
  // `pull`: its ticket queued for `from`, `pull` filled in. False (nothing
  // queued) when no ticket can be drawn.
  bool Issue(uint32_t from, uint64_t bytes, v1::DataPull& pull);

 private:
  NodeOutbox& outbox_;
  std::vector<std::string> addresses_;  // by slot; empty: none
  uint64_t next_transfer_ = 0;          // from a random start: ids do not repeat across restarts
};

}  // namespace weft::runtime
