// File: runtime/owned_files.h
//
// Files weft trusts must be its user's own (issue 34, finding 1): a cluster
// folder, a state dir or a node's work dir that another user made, or a
// file in one that another user planted or can rewrite (a token, a pid
// file, a record of process groups or cgroups to kill), would let that user
// steer what weft does as the user who runs it. So weft refuses such a
// folder or file, makes its folders 0700, and creates its files without
// following links. Thread-safe: plain functions (the file system is the
// only state).
#pragma once

#include <sys/types.h>

#include <array>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace weft::runtime {

// CheckOwned: `path` (not followed if it is a link) is owned by this
// process's effective user and, unless it is a link, not writable by its
// group or others. InvalidArgument naming `what`, the path and the reason
// otherwise (also when it cannot be stat'ed).
absl::Status CheckOwned(const std::filesystem::path& path, std::string_view what);

// IsOwned: CheckOwned's verdict without the message.
bool IsOwned(const std::filesystem::path& path);

// CheckOwnedTree: `dir` and what weft keeps in it pass CheckOwned: the
// entries of `dir` down to `depth` levels below it (1: its own entries),
// without going into folders named in `skip` (a node's task output, say,
// which its tasks write). InvalidArgument naming the first that fails.
absl::Status CheckOwnedTree(const std::filesystem::path& dir, int depth, std::string_view what,
                            std::initializer_list<std::string_view> skip = {});

// CheckOwnedNamed: `dir` and the entries `names` of it that exist pass
// CheckOwned; a name ending in '/' is a folder whose entries are checked too
// (a node's "running/"). For a folder others write in (a node's work dir is
// its tasks' current directory) only what weft itself reads is judged.
absl::Status CheckOwnedNamed(const std::filesystem::path& dir, std::span<const std::string_view> names,
                             std::string_view what);

// kNodeFilesWeftReads: what CheckOwnedNamed looks at in a node's work dir.
inline constexpr std::array<std::string_view, 4> kNodeFilesWeftReads = {"pid", "cgroups", "node.log", "running/"};

// MakePrivateDir creates `dir` (its missing parents with the default mode)
// with mode 0700, or checks the one that exists with CheckOwned.
absl::Status MakePrivateDir(const std::filesystem::path& dir, std::string_view what);

// WriteNoFollow writes `text` to `path` whole: into a new temporary file
// next to it (O_EXCL | O_NOFOLLOW, mode `mode` under the umask), then
// renamed over `path`, so a link planted at `path` is replaced, never
// followed, and no reader sees half a file. InvalidArgument on failure.
absl::Status WriteNoFollow(const std::filesystem::path& path, std::string_view text, mode_t mode = 0600);

// StateHome: $XDG_STATE_HOME when it is an absolute path, else
// ~/.local/state (HOME, else the password database's home).
std::filesystem::path StateHome();

}  // namespace weft::runtime
