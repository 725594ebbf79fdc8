// File: cli/slurm_nodes.h
//
// The node daemons of `weft cluster up --slurm N` as one Slurm job: an sbatch
// script whose `srun` starts one `weftd node` per Slurm task, each sized from
// its share of the allocation, and the calls that submit, watch and cancel
// that job (sbatch, squeue, scancel). The scheduler itself stays local and is
// started by cluster_command.cc like any other cluster's.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace weft::cli {

struct SlurmNodesSpec {
  uint32_t nodes = 1;                   // Slurm tasks = weft nodes
  std::string weftd;                    // path of weftd, as the Slurm nodes see it
  std::string scheduler;                // address the nodes dial
  std::string dir;                      // the cluster dir (token, node work dirs, job output)
  std::string tls_ca;                   // CA of the scheduler's certificate; empty: no TLS
  bool insecure = false;                // no TLS on TCP, said out loud (weftd node --insecure)
  std::string partition;                // empty: Slurm's default partition
  std::vector<std::string> sbatch_args; // passed to sbatch as they are
};

// SlurmNodesScript: the sbatch script. Each task names itself
// "$SLURMD_NODENAME-$SLURM_LOCALID", works in DIR/node-NAME, offers its
// share of the node's allocation (SLURM_CPUS_ON_NODE and the job's memory
// per node, split between the tasks on that node) and takes DIR/token (and
// --tls-ca with TLS, or --insecure).
std::string SlurmNodesScript(const SlurmNodesSpec& spec);

// SubmitSlurmNodes writes the script to DIR/slurm-nodes.sh and submits it;
// returns the job id. FailedPrecondition, with sbatch's first line, when
// sbatch is missing or refuses the job.
absl::StatusOr<std::string> SubmitSlurmNodes(const SlurmNodesSpec& spec);

// SlurmJobState: the job's state as squeue prints it (PENDING, RUNNING,
// COMPLETING...), empty once Slurm no longer lists it (ended or unknown).
std::string SlurmJobState(const std::string& job);

// CancelSlurmJob scancels `job` and waits up to `timeout` for squeue to stop
// listing it; false if it is still listed then.
bool CancelSlurmJob(const std::string& job, std::chrono::seconds timeout);

// SlurmJobFile: DIR/slurm-job, the id of the cluster's nodes' job.
std::filesystem::path SlurmJobFile(const std::filesystem::path& dir);

// StopSlurmNodes cancels the job of SlurmJobFile(dir), if any, waits for it
// to go (a warning line on stderr if it does not) and removes the file.
void StopSlurmNodes(const std::filesystem::path& dir);

}  // namespace weft::cli
