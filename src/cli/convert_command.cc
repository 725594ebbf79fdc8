// weft convert --from alibaba-2018 INPUT --out WORKLOAD: turns a trace in
// another format into weft's workload JSON (FORMATS.md section 1), so every
// other command can read it. Prints one summary line (rows, jobs, what was
// skipped and why, what was written). Bad input exits 2 with one stderr line
// and leaves no output file: the workload is written under a temporary name
// and renamed into place.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "fmt/format.h"
#include "trace/alibaba_reader.h"

namespace weft::cli {
namespace {

struct ConvertFlags {
  std::string from;
  std::string input;
  std::string out;
  AlibabaOptions alibaba;
};

int RunConvert(const ConvertFlags& f) {
  // One source format so far; the flag names it so that others can follow.
  if (f.from != "alibaba-2018") {
    std::cerr << fmt::format("error: --from {}: unknown format (known: alibaba-2018)\n", f.from);
    return kExitBadInput;
  }
  absl::StatusOr<AlibabaConversion> converted = ConvertAlibabaFile(f.input, f.alibaba);
  if (!converted.ok()) {
    std::cerr << "error: " << converted.status().message() << "\n";
    return absl::IsInvalidArgument(converted.status()) ? kExitBadInput : kExitFailure;
  }
  if (!WriteAtomically(f.out, converted->document.dump(1) + "\n")) {
    std::cerr << fmt::format("error: {}: cannot write\n", f.out);
    return kExitBadInput;
  }
  std::cout << fmt::format("{}: {}; {} stages, {} tasks to {}\n", f.input, converted->report.Summary(),
                           converted->workload.NumStages(), converted->workload.NumTasks(), f.out);
  return kExitOk;
}

}  // namespace

bool WriteAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    file << text;
    if (!file.flush()) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  return !ec;
}

void AddConvertCommand(CLI::App& app, CommandRun& run) {
  auto f = std::make_shared<ConvertFlags>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert a trace (Alibaba 2018 batch_task) to a weft workload");
  cmd->add_option("--from", f->from, "Input format: alibaba-2018 (batch_task.csv or the ERDOS DAG subsets)")
      ->required();
  cmd->add_option("input", f->input, "Input trace file")->required();
  cmd->add_option("--out,-o", f->out, "Workload file to write (weft JSON)")->required();
  cmd->add_option("--jobs", f->alibaba.max_jobs, "Keep a uniform sample of this many usable jobs (0: all)")
      ->capture_default_str();
  cmd->add_option("--seed", f->alibaba.seed, "Seed of the sample")->capture_default_str();
  cmd->add_option("--min-tasks", f->alibaba.min_tasks, "Leave out jobs with fewer tasks")->capture_default_str();
  cmd->add_option("--min-stages", f->alibaba.min_stages, "Leave out jobs with fewer stages")->capture_default_str();
  cmd->add_option("--machines", f->alibaba.machines, "Machines in the written cluster")->capture_default_str();
  cmd->add_option("--machine-cpu", f->alibaba.machine_cpu, "Cores per machine (plan_cpu 100 = 1 core)")
      ->capture_default_str();
  cmd->add_option("--machine-mem", f->alibaba.machine_mem,
                  "Memory per machine in plan_mem's unit (percent of an Alibaba machine)")
      ->capture_default_str();
  cmd->callback([&run, f] { run = [f] { return RunConvert(*f); }; });
}

}  // namespace weft::cli
