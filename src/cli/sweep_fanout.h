// File: cli/sweep_fanout.h
//
// Fanning a `weft sweep` out beyond this machine: each run becomes the same
// sweep command restricted to one run (`--only K`), executed by a Slurm job
// array or as the tasks of a weft cluster, and a last `--gather` step reads
// every run's summary.json into the sweep's tables. Re-running the user's own
// command line (rather than spelling each run's `weft sim` flags) keeps the
// plan, the seeds and the results directories exactly those of a local sweep.
// Plain functions; SubmitToSlurm runs sbatch.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "metrics/run_metrics.h"

namespace weft::cli {

// ShellQuote: `arg` as one word for /bin/sh, in single quotes.
std::string ShellQuote(const std::string& arg);

// Captured: what RunCaptured saw of a shell command.
struct Captured {
  int status = -1;      // exit status; -1 when it did not exit normally
  std::string output;   // stdout and stderr together, trailing newlines dropped
};

// RunCaptured runs `command` through /bin/sh (used for sbatch, squeue, scancel).
Captured RunCaptured(const std::string& command);

// SweepCommandLine: "cd CWD && WEFT sweep ARGS" with every word quoted; the
// caller appends the mode (--only "$VAR" or --gather).
std::string SweepCommandLine(const std::string& cwd, const std::string& weft, const std::vector<std::string>& args);

// EmitWorkloadJson: a jobs-only workload (docs/workload-format.md) of one job
// `name` whose stage "runs" has one command task per run (the task's index is
// the run, from $WEFT_TASK) and whose stage "gather" runs after all of them.
std::string EmitWorkloadJson(const std::string& name, const std::string& command, size_t runs);

// SlurmScript: an sbatch script running run $SLURM_ARRAY_TASK_ID of `runs`,
// its output in OUT/slurm/.
std::string SlurmScript(const std::string& command, size_t runs, const std::string& out_dir);

struct SlurmSubmission {
  std::string array_job;   // Slurm job id of the runs
  std::string gather_job;  // empty when the caller gathers itself (wait)
};

// SubmitToSlurm submits `script_path` (written by the caller) with sbatch and
// `extra` arguments. With `wait`, sbatch returns when every run has ended and
// no gather job is submitted; else a gather job runs `gather_command` once the
// array ends, whatever its outcome. FailedPrecondition when sbatch is missing
// or refuses (its message in the error).
absl::StatusOr<SlurmSubmission> SubmitToSlurm(const std::string& script_path, const std::string& gather_command,
                                              const std::string& out_dir, const std::vector<std::string>& extra,
                                              bool wait);

// RunOutcome: what the sweep's tables need of one run, read back from its
// results directory.
struct RunOutcome {
  bool ok = false;        // the run ended with status "ok" (its schedule checked)
  std::string error;      // why not, for the one stderr line
  double wall_seconds = 0;
  RunSummary summary;     // the fields the tables use
};

// ReadRunOutcome reads DIR/summary.json; a missing or unreadable file is a
// failed run (the run never ended), not an error of the gather.
RunOutcome ReadRunOutcome(const std::string& run_dir);

}  // namespace weft::cli
