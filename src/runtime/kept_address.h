// File: runtime/kept_address.h
//
// A listen address whose port the system chooses (HOST:0) is chosen once and
// kept in the daemon's state dir (issue 34, finding 5): started again with
// the same command line, as a service manager restarts it, the daemon
// listens where its nodes and clients look for it instead of on a new port.
// The kept file holds one line, "REQUESTED CHOSEN"; it applies only to the
// same request (another --listen is taken as given). Thread-safe: plain
// functions; the file is written whole, then renamed.
#pragma once

#include <filesystem>
#include <string>

#include "absl/status/status.h"

namespace weft::runtime {

// AsksForAnyPort: `address` (HOST:PORT) has port 0.
bool AsksForAnyPort(const std::string& address);

// ListenAddress: where to listen for `requested`: the choice kept in `kept`
// when `requested` asks for any port and `kept` holds a choice made for the
// same request; `requested` otherwise (also when `kept` is missing or
// unreadable: then the system chooses again).
std::string ListenAddress(const std::string& requested, const std::filesystem::path& kept);

// KeepAddress records `chosen` as the choice for `requested` in `kept` when
// `requested` asks for any port; does nothing otherwise. FailedPrecondition
// when the file cannot be written.
absl::Status KeepAddress(const std::string& requested, const std::string& chosen, const std::filesystem::path& kept);

}  // namespace weft::runtime
