// File: runtime/local_tokens.h
//
// The token of a local cluster, found without a flag (docs/runtime.md,
// "Security model"). `weft cluster up` makes DIR/token once (64 hex
// characters from getrandom, mode 0600, kept across restarts), gives it to
// its scheduler and nodes, and records each address it prints in a per-user
// index: the file $XDG_STATE_HOME/weft/clusters/ADDRESS (default
// ~/.local/state; directories 0700, entries 0600) holds the token file's
// path. A client given --scheduler ADDRESS and no token looks the address
// up there, so the user who started the cluster needs no flag, and a user
// who cannot read DIR/token cannot submit. `cluster down` removes the
// entries naming its token. Thread-safe: plain functions (the file system
// is the only state).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace weft::runtime {

// EnsureTokenFile returns the token in `path`, making the file first when
// there is none (atomically: no half-written token is ever seen). Errors as
// ReadTokenFile's (e.g. an existing file others can read), when the file
// is not the user's own or others can write it (runtime/owned_files.h), or
// when it cannot be written.
absl::StatusOr<std::string> EnsureTokenFile(const std::filesystem::path& path);

// EntryName: the index entry's file name for `address` ('%' and '/' written
// %25 and %2F, as a unix:PATH address has slashes); empty for an address
// that cannot be one. AddressOfEntry reverses it.
std::string EntryName(std::string_view address);
std::string AddressOfEntry(std::string_view name);

// TokenIndexDir: where the per-user index lives (see above).
std::filesystem::path TokenIndexDir();

// RememberToken records that the scheduler at `address` takes the token in
// `token_file` (an absolute path) and, when `tls_ca` is given, that its
// certificate is checked against that CA file (a cluster's own certificate:
// runtime/cluster_cert.h), so the owner's client speaks TLS to it unasked.
absl::Status RememberToken(std::string_view address, const std::filesystem::path& token_file,
                           const std::filesystem::path& tls_ca = {});

// ForgetTokens removes every entry that names `token_file`.
void ForgetTokens(const std::filesystem::path& token_file);

// TokenFileFor: the token file recorded for `address`; empty when there is
// no entry or the file it names no longer exists (a cluster removed without
// `cluster down`).
std::string TokenFileFor(std::string_view address);

// TlsCaFor: the CA file recorded for `address`; empty when none was, or it
// no longer exists.
std::string TlsCaFor(std::string_view address);

}  // namespace weft::runtime
