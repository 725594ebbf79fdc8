// File: runtime/node/data_request.cc
#include "runtime/node/data_request.h"

#include <algorithm>
#include <cstring>

namespace weft::runtime {
namespace {

constexpr unsigned char kMagic[8] = {'W', 'E', 'F', 'T', 'D', 'A', 'T', '1'};

void Put64(unsigned char* at, uint64_t v) {
  for (int i = 0; i < 8; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}

uint64_t Get64(const unsigned char* at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{at[i]} << (8 * i);
  return v;
}

}  // namespace

DataRequestWire EncodeDataRequest(const DataRequest& request) {
  DataRequestWire wire{};
  std::memcpy(wire.data(), kMagic, sizeof kMagic);
  Put64(wire.data() + 8, request.transfer);
  std::copy(request.ticket.begin(), request.ticket.end(), wire.begin() + 16);
  Put64(wire.data() + 16 + kTicketBytes, request.bytes);
  return wire;
}

std::optional<DataRequest> DecodeDataRequest(const DataRequestWire& wire) {
  if (std::memcmp(wire.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  DataRequest request;
  request.transfer = Get64(wire.data() + 8);
  std::copy(wire.begin() + 16, wire.begin() + 16 + kTicketBytes, request.ticket.begin());
  request.bytes = Get64(wire.data() + 16 + kTicketBytes);
  return request;
}

std::optional<DataTicketBytes> TicketFrom(std::string_view bytes) {
  if (bytes.size() != kTicketBytes) return std::nullopt;
  DataTicketBytes ticket;
  std::copy(bytes.begin(), bytes.end(), ticket.begin());
  return ticket;
}

}  // namespace weft::runtime
