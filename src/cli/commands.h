// File: cli/commands.h
//
// The weft subcommands. Each Add*Command registers its flags on the CLI11 app
// and the function that runs it; the function returns the process exit code
// (0 success, 1 internal or runtime failure, 2 bad input) after printing at
// most one error line to stderr. main.cc owns parsing and exception handling.
#pragma once

#include <functional>

#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "model/workload.h"

namespace weft::cli {

// A command's body, run after parsing succeeded; returns the exit code.
using CommandRun = std::function<int()>;

void AddValidateCommand(CLI::App& app, CommandRun& run);
void AddPoliciesCommand(CLI::App& app, CommandRun& run);
void AddSimCommand(CLI::App& app, CommandRun& run);
void AddCompareCommand(CLI::App& app, CommandRun& run);
void AddBoundsCommand(CLI::App& app, CommandRun& run);
void AddConvertCommand(CLI::App& app, CommandRun& run);
void AddTraceCommand(CLI::App& app, CommandRun& run);    // trace convert, trace inspect
void AddJobCommands(CLI::App& app, CommandRun& run);     // submit, status, wait, cancel
void AddClusterCommand(CLI::App& app, CommandRun& run);  // cluster up, cluster down
void AddReportCommand(CLI::App& app, CommandRun& run);
void AddSweepCommand(CLI::App& app, CommandRun& run);    // policies x params x seeds x workloads
void AddGenCommand(CLI::App& app, CommandRun& run);      // gen mapreduce

// WriteAtomically writes `text` to `path` through `path`.tmp renamed into
// place, so no half-written file ever has the final name; false on failure.
bool WriteAtomically(const std::string& path, const std::string& text);

// Exit codes shared by every command (FORMATS.md section 3).
// ReadWorkloadOrReport reads and validates a workload file; on error it
// prints the reader's one-line message to stderr and returns nullopt (the
// caller exits kExitBadInput).
std::optional<Workload> ReadWorkloadOrReport(const std::string& path);

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

}  // namespace weft::cli
