#include "cli/slurm_nodes.h"

#include <fstream>
#include <iostream>
#include <thread>

#include "cli/sweep_fanout.h"
#include "fmt/format.h"

namespace weft::cli {

namespace {

// kTaskShare (sh): how many of this step's tasks run on this node, from
// SLURM_STEP_TASKS_PER_NODE ("2(x3),1": 2 on each of the first three nodes,
// then 1) at index SLURM_NODEID; so that N tasks packed on one machine split
// it rather than each claiming all of it.
constexpr const char* kTaskShare =
    R"(here=$(printf '%s\n' "$SLURM_STEP_TASKS_PER_NODE" | awk -F, -v id="$SLURM_NODEID" '{
  n = 0
  for (i = 1; i <= NF; i++) {
    c = $i; r = 1
    if (match(c, /\(x[0-9]+\)/)) { r = substr(c, RSTART + 2, RLENGTH - 3) + 0; c = substr(c, 1, RSTART - 1) }
    for (j = 0; j < r; j++) { if (n == id) { print c + 0; exit } n++ }
  }
}')
[ "${here:-0}" -gt 0 ] 2>/dev/null || here=1
cpu=$(awk -v c="${SLURM_CPUS_ON_NODE:-1}" -v t="$here" 'BEGIN { print c / t }')
mem=
if [ -n "$SLURM_MEM_PER_NODE" ]; then
  mem=$(awk -v m="$SLURM_MEM_PER_NODE" -v t="$here" 'BEGIN { print m / 1024 / t }')
elif [ -n "$SLURM_MEM_PER_CPU" ]; then
  mem=$(awk -v m="$SLURM_MEM_PER_CPU" -v c="$cpu" 'BEGIN { print m * c / 1024 }')
fi
name="$SLURMD_NODENAME-$SLURM_LOCALID"
)";

// Slurm signals a cancelled job's tasks, waits its KillWait (30 s by
// default) and kills them: a little more than that.
constexpr auto kCancelTimeout = std::chrono::seconds(40);

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

std::string SlurmNodesScript(const SlurmNodesSpec& spec) {
  const std::string dir = ShellQuote(spec.dir);
  // No memory from Slurm (the job asked for none): weftd's default, the machine's.
  const std::string node = fmt::format(
      "{}exec {} node --scheduler {} --name \"$name\" --work-dir {}/node-\"$name\" --token-file {}/token "
      "--cpu \"$cpu\" ${{mem:+--mem \"$mem\"}}{}{}\n",
      kTaskShare, ShellQuote(spec.weftd), ShellQuote(spec.scheduler), dir, dir,
      spec.tls_ca.empty() ? "" : " --tls-ca " + ShellQuote(spec.tls_ca), spec.insecure ? " --insecure" : "");
  return fmt::format(
      "#!/bin/sh\n"
      "# weft cluster: one weftd node per Slurm task; written by `weft cluster up --slurm`.\n"
      "#SBATCH --job-name=weft-nodes\n"
      "#SBATCH --ntasks={}\n"
      "#SBATCH --output={}/slurm-%j.out\n"
      "exec srun sh -c {}\n",
      spec.nodes, spec.dir, ShellQuote(node));
}

absl::StatusOr<std::string> SubmitSlurmNodes(const SlurmNodesSpec& spec) {
  if (RunCaptured("command -v sbatch").status != 0) {
    return absl::FailedPreconditionError("--slurm needs Slurm's sbatch on PATH");
  }
  const std::string script = spec.dir + "/slurm-nodes.sh";
  std::ofstream(script) << SlurmNodesScript(spec);
  std::string args;
  if (!spec.partition.empty()) args += " --partition=" + ShellQuote(spec.partition);
  for (const std::string& a : spec.sbatch_args) args += " " + ShellQuote(a);
  const Captured r = RunCaptured(fmt::format("sbatch --parsable{} {}", args, ShellQuote(script)));
  // --parsable prints "JOBID[;CLUSTER]".
  const std::string id = FirstLine(r.output).substr(0, FirstLine(r.output).find(';'));
  if (r.status != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    return absl::FailedPreconditionError(fmt::format("sbatch refused the nodes' job: {}", FirstLine(r.output)));
  }
  return id;
}

std::string SlurmJobState(const std::string& job) {
  const Captured r = RunCaptured(fmt::format("squeue -h -j {} -o %T", ShellQuote(job)));
  // An ended job's id is unknown to squeue after a while (exit 1): not listed either way.
  return r.status == 0 ? FirstLine(r.output) : std::string();
}

bool CancelSlurmJob(const std::string& job, std::chrono::seconds timeout) {
  RunCaptured(fmt::format("scancel {}", ShellQuote(job)));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!SlurmJobState(job).empty()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

std::filesystem::path SlurmJobFile(const std::filesystem::path& dir) { return dir / "slurm-job"; }

void StopSlurmNodes(const std::filesystem::path& dir) {
  std::string job;
  std::ifstream(SlurmJobFile(dir)) >> job;
  if (job.empty()) return;
  if (!CancelSlurmJob(job, kCancelTimeout)) {
    std::cerr << fmt::format("warning: Slurm job {} still listed {} s after scancel (squeue -j {})\n", job,
                             kCancelTimeout.count(), job);
  }
  std::error_code ec;
  std::filesystem::remove(SlurmJobFile(dir), ec);
}

}  // namespace weft::cli
