// File: runtime/node/data_address.h
//
// Addresses of nodes' data ports (data_server.h): which local address a
// node serves data on, and a data port's HOST:PORT text as a socket
// address. Numeric addresses only: no name is resolved when a phase
// starts, so a reader's connect cannot wait on DNS.
//
// Threading: plain functions.
#pragma once

#include <sys/socket.h>

#include <string>

namespace weft::runtime {

// DataHostReaching: the local address this machine reaches `scheduler`
// from (HOST:PORT, or unix:PATH), numeric: the address other nodes that
// reach the same scheduler can reach this one at. 127.0.0.1 for a unix
// socket or when the route cannot be found (a scheduler on loopback).
std::string DataHostReaching(const std::string& scheduler);

// IsNumericHost: `host` is a numeric IPv4 or IPv6 address.
bool IsNumericHost(const std::string& host);

// ParseDataAddress: HOST:PORT or [HOST]:PORT with a numeric host into
// `address`; false when it is not one.
bool ParseDataAddress(const std::string& text, sockaddr_storage& address, socklen_t& len);

}  // namespace weft::runtime
