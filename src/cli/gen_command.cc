// weft gen mapreduce --out WORKLOAD [flags]: writes a generated MapReduce
// workload (trace/mapreduce_workload.h; docs/workload-format.md "Generated
// MapReduce workloads") as weft JSON, then prints one summary line. With
// --spec SPEC.json the jobs are the spec's fixed list instead of drawn ones
// (trace/mapreduce_jobs.h, "MapReduce job specs"). Bad flags or a bad spec
// exit 2 with one stderr line naming the flag or field, and write nothing;
// the file is written under a temporary name and renamed into place.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "fmt/format.h"
#include "trace/mapreduce_jobs.h"
#include "trace/mapreduce_workload.h"
#include "trace/workload_reader.h"

namespace weft::cli {
namespace {

struct GenFlags {
  MapReduceSpec spec;
  std::string out;
  std::string jobs_spec;  // --spec: a fixed job list instead of drawn jobs
};

int RunGenMapReduce(const GenFlags& f) {
  if (absl::Status s = CheckMapReduceSpec(f.spec); !s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return kExitBadInput;
  }
  nlohmann::ordered_json doc;
  if (f.jobs_spec.empty()) {
    doc = MapReduceWorkloadJson(f.spec);
  } else {
    std::ifstream in(f.jobs_spec);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      std::cerr << fmt::format("error: {}: cannot read\n", f.jobs_spec);
      return kExitBadInput;
    }
    absl::StatusOr<nlohmann::ordered_json> jobs = MapReduceJobsJson(text.str(), f.spec);
    if (!jobs.ok()) {
      std::cerr << fmt::format("error: {}: {}\n", f.jobs_spec, std::string(jobs.status().message()));
      return kExitBadInput;
    }
    doc = *std::move(jobs);
  }
  absl::StatusOr<Workload> w = ParseWorkload(doc.dump());
  if (!w.ok() && !f.jobs_spec.empty()) {  // e.g. a profile larger than the machines
    std::cerr << fmt::format("error: {}: the workload it gives is invalid: {}\n", f.jobs_spec, std::string(w.status().message()));
    return kExitBadInput;
  }
  if (!w.ok()) {  // a generator bug: every spec that passes the check is valid
    std::cerr << "error: generated workload is invalid: " << w.status().message() << "\n";
    return kExitFailure;
  }
  if (!WriteAtomically(f.out, doc.dump(1) + "\n")) {
    std::cerr << fmt::format("error: {}: cannot write\n", f.out);
    return kExitBadInput;
  }
  std::cout << fmt::format("{}: {} jobs, {} stages, {} tasks, {} machines, locality cost {}\n", f.out,
                           w->jobs.size(), w->NumStages(), w->NumTasks(), w->cluster.size(),
                           w->cluster.locality_cost().enabled ? "on" : "off");
  return kExitOk;
}

}  // namespace

void AddGenCommand(CLI::App& app, CommandRun& run) {
  CLI::App* gen = app.add_subcommand("gen", "Generate a synthetic workload file");
  gen->require_subcommand(1);
  auto f = std::make_shared<GenFlags>();
  MapReduceSpec& s = f->spec;
  CLI::App* mr = gen->add_subcommand("mapreduce", "MapReduce jobs over replicated input blocks (map -> shuffle -> reduce)");
  mr->add_option("--out,-o", f->out, "Workload file to write (weft JSON)")->required();
  CLI::Option* spec =
      mr->add_option("--spec", f->jobs_spec,
                     "A fixed job list (JSON: job classes and instances, docs/workload-format.md) instead of drawn "
                     "jobs; the machine flags still give the cluster");
  // The flags of drawn jobs mean nothing with a spec: refused together.
  const auto drawn = [spec](CLI::Option* o) { o->excludes(spec); };
  drawn(mr->add_option("--seed", s.seed, "Seed of every draw")->capture_default_str());
  drawn(mr->add_option("--jobs", s.jobs, "Number of jobs")->capture_default_str());
  drawn(mr->add_option("--users", s.users, "Users, jobs round-robin (0: one user per job)")->capture_default_str());
  drawn(mr->add_option("--mean-interarrival-s", s.mean_interarrival_s, "Mean gap between arrivals (Poisson)")
            ->capture_default_str());
  mr->add_option("--machines", s.machines, "Identical machines")->capture_default_str();
  mr->add_option("--rack-size", s.rack_size, "Machines per rack")->capture_default_str();
  mr->add_option("--cores", s.cores, "Cores per machine")->capture_default_str();
  mr->add_option("--mem-gb", s.mem_gb, "Memory per machine, GB")->capture_default_str();
  mr->add_option("--disk-mbps", s.disk_mbps, "Disk bandwidth per machine, MB/s")->capture_default_str();
  mr->add_option("--net-mbps", s.net_mbps, "Network bandwidth per machine, MB/s")->capture_default_str();
  drawn(mr->add_option("--min-input-mb", s.min_input_mb, "Smallest job input (log-uniform)")->capture_default_str());
  drawn(mr->add_option("--max-input-mb", s.max_input_mb, "Largest job input (log-uniform)")->capture_default_str());
  drawn(mr->add_option("--block-mb", s.block_mb, "Block size: one map task per block")->capture_default_str());
  drawn(mr->add_option("--replicas", s.replicas, "Machines holding each block (HDFS placement)")->capture_default_str());
  drawn(mr->add_option("--map-s", s.map_s, "A map task's time for a whole block")->capture_default_str());
  drawn(mr->add_option("--reduce-ratio", s.reduce_ratio, "Reducers per map, rounded up (0: map-only jobs)")
      ->capture_default_str());
  drawn(mr->add_option("--reduce-s", s.reduce_s, "A reduce task's time")->capture_default_str());
  drawn(mr->add_option("--slowstart", s.slowstart, "Slow start of the shuffle edge, in (0, 1]")->capture_default_str());
  drawn(mr->add_option("--shuffle-ratio", s.shuffle_ratio, "Map output MB per input MB")->capture_default_str());
  mr->add_option("--rack-mbps", s.rack_mbps, "Locality cost: same-rack read bandwidth (0: cost off)")
      ->capture_default_str();
  mr->add_option("--cross-rack-mbps", s.cross_rack_mbps, "Locality cost: cross-rack read bandwidth")
      ->capture_default_str();
  mr->callback([f, &run] { run = [f] { return RunGenMapReduce(*f); }; });
}

}  // namespace weft::cli
