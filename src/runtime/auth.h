// File: runtime/auth.h
//
// The runtime's security model (docs/runtime.md): daemons listen on loopback
// unless told otherwise; listening on any other address requires a shared
// token, which every RPC must carry as `authorization: Bearer TOKEN` metadata
// and which is compared in constant time. Thread-safe: plain functions.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace weft::runtime {

// ReadTokenFile reads a token file: its content without surrounding
// whitespace; InvalidArgument when missing, unreadable, empty, over 4 KiB,
// or accessible to other users (any of the mode's o+rwx bits).
absl::StatusOr<std::string> ReadTokenFile(const std::string& path);

// CheckPrivateFile: InvalidArgument (naming `what` and the chmod that fixes
// it) when `path` cannot be stat'ed or any of its mode's o+rwx bits is set.
absl::Status CheckPrivateFile(const std::string& path, std::string_view what);

// ConstantTimeEquals compares in time that depends only on the lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// IsLoopback: the listen address HOST:PORT names a loopback host: a literal
// 127.0.0.0/8, ::1 or ::ffff:127.x address, or `localhost`. Any other name
// is not loopback (it would be resolved by DNS).
bool IsLoopback(std::string_view address);

// IsUnixAddress: `address` is unix:PATH, a Unix domain socket (FORMATS §4).
// A socket in a folder only its user can write is as private as loopback
// and more: no other user can take its address (runtime/unix_listener.h).
bool IsUnixAddress(std::string_view address);

// CheckListen refuses a non-loopback listen address without a token.
absl::Status CheckListen(std::string_view address, bool has_token);

// CheckToken: an RPC's credentials. OK when `token` is empty (loopback
// without a token) or the request carries it; UNAUTHENTICATED otherwise.
// (Any server context: the synchronous API's or the callback API's.)
grpc::Status CheckToken(const grpc::ServerContextBase& context, const std::string& token);

// AddToken attaches `token` (if any) to an outgoing call.
void AddToken(grpc::ClientContext& context, const std::string& token);

}  // namespace weft::runtime
