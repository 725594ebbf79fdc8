// File: cli/slurm_up_flags.h
//
// The flags of `weft cluster up --slurm N` (docs/runtime.md, "On Slurm"):
// --slurm itself and those that only make sense with it (the job's sbatch
// arguments, and where and how the scheduler listens for nodes on other
// machines). cluster_command.cc owns the rest of `cluster up`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "runtime/tls.h"

namespace weft::cli {

struct SlurmUpFlags {
  std::string partition;
  std::vector<std::string> sbatch_args;
  std::string listen;      // the scheduler's gRPC address; empty: a free loopback port
  bool insecure = false;   // clear text beyond loopback (docs/runtime.md, "Security")
  runtime::TlsFiles tls;   // the scheduler's cert and key, and the CA nodes and clients trust (absolute)
};

// AddSlurmUpFlags adds --slurm N (stored in `nodes`) and the flags that need
// it to `cmd`; returns the --slurm option.
CLI::Option* AddSlurmUpFlags(CLI::App* cmd, uint32_t& nodes, SlurmUpFlags& flags);

}  // namespace weft::cli
