// File: runtime/node/data_request.h
//
// The request a reader sends to a node's data port (data_server.h): one
// fixed-size record, `magic transfer ticket bytes`, asking for `bytes`
// synthetic bytes of transfer `transfer` with the ticket the scheduler
// issued for exactly that transfer. The server answers with the bytes, or
// closes the connection. Plain data with no allocation, so a built-in
// task's child (builtin_work.h, raw syscalls only) can send one built
// before its clone.
//
// Threading: plain functions and data.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace weft::runtime {

// A ticket: 16 random bytes from the scheduler, for one transfer.
constexpr size_t kTicketBytes = 16;
using DataTicketBytes = std::array<unsigned char, kTicketBytes>;

// The request on the wire: 8 bytes of magic, then the transfer id and the
// byte count as little-endian 64-bit numbers around the ticket.
constexpr size_t kDataRequestBytes = 8 + 8 + kTicketBytes + 8;
using DataRequestWire = std::array<unsigned char, kDataRequestBytes>;

struct DataRequest {
  uint64_t transfer = 0;
  DataTicketBytes ticket{};
  uint64_t bytes = 0;
};

// EncodeDataRequest: the request's bytes on the wire.
DataRequestWire EncodeDataRequest(const DataRequest& request);
// DecodeDataRequest: the request in `wire`, or nothing when its magic is wrong.
std::optional<DataRequest> DecodeDataRequest(const DataRequestWire& wire);
// TicketFrom: a ticket from its bytes in a message, or nothing when it is
// not kTicketBytes long.
std::optional<DataTicketBytes> TicketFrom(std::string_view bytes);

}  // namespace weft::runtime
