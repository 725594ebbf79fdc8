// File: model/names.h
//
// The rules for names (jobs, stages, users, machines) and for putting them
// into a task's command (issue 20, bug 1). A real task runs
// `/bin/sh -c COMMAND` with `{job}`, `{stage}` and `{task}` replaced, so a
// name that a command substitutes is shell syntax unless it is restricted:
//   - no name anywhere may hold a control character (C0, DEL or C1): they
//     would cut a command short (NUL), or reach a terminal as escape codes;
//   - no name may be longer than kMaxNameBytes (FORMATS §1): a longer one
//     would be carried in every status reply and log line (issue 34, finding 6);
//   - a name that a command substitutes must be 1 to kMaxSubstitutedName
//     characters of the safe set [A-Za-z0-9._+:@,%#-], not starting with '-'
//     or '#': none of them means anything to the shell inside or outside
//     quotes (single or double; '#' starts a comment only at a word's start),
//     so the value is data wherever the command puts it (the exported results
//     name a repeated job NAME#ID, which must stay valid);
//   - the expanded command must fit one exec argument (kMaxCommandBytes),
//     and holds no NUL.
// Substitution is done in one pass (ExpandCommand): a value is never
// scanned again, so a name cannot expand another placeholder.
// Thread-safe: plain functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "model/workload.h"

namespace weft {

// The longest name (job, stage, user, machine), in bytes.
inline constexpr size_t kMaxNameBytes = 256;
// The longest job or stage name a command may substitute.
inline constexpr size_t kMaxSubstitutedName = 255;
// The longest command after substitution: Linux refuses a longer single exec
// argument (MAX_ARG_STRLEN, 32 pages of 4 KiB, counting the final NUL).
inline constexpr size_t kMaxCommandBytes = 128 * 1024 - 1;

// HasControlCharacter: `s` holds a byte below 0x20, DEL (0x7f), or a UTF-8
// encoded C1 control (U+0080..U+009F).
bool HasControlCharacter(std::string_view s);

// IsShellSafeName: `name` may be substituted into a command (see the file
// comment).
bool IsShellSafeName(std::string_view name);

// ValidateNames checks `w` against every rule above. InvalidArgument with
// one line naming the job, stage or machine and the field otherwise (names
// in the message are escaped with EscapeForDisplay).
absl::Status ValidateNames(const Workload& w);

// ExpandCommand replaces {job}, {stage} and {task} in `command` in one pass.
std::string ExpandCommand(std::string_view command, std::string_view job, std::string_view stage, uint32_t task);

// FirstInvalidUtf8: the offset of the first byte of `s` that is not part of
// well-formed UTF-8 (overlong forms, surrogates and code points above
// U+10FFFF are ill-formed), or npos when all of it is well-formed.
size_t FirstInvalidUtf8(std::string_view s);

// NameForDisplay: EscapeForDisplay of `name`, cut after its first 64 bytes
// (with "..."), for a message that names it.
std::string NameForDisplay(std::string_view name);

// EscapeForDisplay: `s` safe to print on a terminal: `\` and `"` get a
// backslash, control characters become \n, \t, \r or \xNN (C1: \u0080 form),
// everything else is kept.
std::string EscapeForDisplay(std::string_view s);

}  // namespace weft
