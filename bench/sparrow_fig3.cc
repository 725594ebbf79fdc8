// Sparrow Fig. 3 / Fig. 12 harness and message-throughput benchmark (not a
// test; see docs/reproductions/sparrow.md and BENCHMARKS.md).
//
//   weft_bench_sparrow [--machines 10000] [--cores 1] [--tasks-per-job 500] [--jobs 2000]
//                      [--loads 0.1,0.2,...] [--policies sparrow-random,...] [--probe-ratios 2]
//                      [--latency-ms 0.5] [--warmup 0.1] [--seed 1] [--check] [--csv FILE]
//
// For each load it builds the Fig. 3 workload in memory (trace/sparrow_workload.h),
// runs each policy at each probe ratio, and prints one CSV row: median and
// 95th percentile job response time over the jobs after the first `warmup`
// fraction of arrivals, the ideal (median of the jobs' longest task, and the
// expectation mean x H(m)), the fraction of jobs that saw no queueing
// (every task started within `zero-wait-ms` of the job's arrival: §5's
// zero-wait event), and simulated tasks and events per wall second and
// tasks per CPU second of the engine run.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "fmt/format.h"
#include "metrics/schedule_checker.h"
#include "policy/registry.h"
#include "sim/engine.h"
#include "trace/sparrow_workload.h"

namespace {

using weft::TimeUs;

// Per job: arrival, end, and the latest task start (for zero-wait).
struct Collector final : weft::RunObserver {
  std::vector<TimeUs> end, last_start;
  const weft::Workload* w = nullptr;
  TimeUs window_begin = 0, window_end = 0;
  std::vector<double> busy_us;  // per user, task time inside the window
  explicit Collector(size_t jobs) : end(jobs, -1), last_start(jobs, 0) {}
  void OnAttemptEnd(const weft::AttemptRecord& r) override {
    const TimeUs b = std::max(r.start_us, window_begin), e = std::min(r.end_us, window_end);
    if (e > b) busy_us[w->jobs[r.task.job.value()].user.value()] += static_cast<double>(e - b);
  }
  void OnAttemptStart(const weft::AttemptStart& s) override {
    TimeUs& l = last_start[s.task.job.value()];
    l = std::max(l, s.time_us);
  }
  void OnJobEnd(const weft::JobRecord& r) override { end[r.job.value()] = r.end_us; }
};

// CPU time of this (single-threaded) process: on a machine shared with other
// work, a steadier measure of the simulator's own cost than wall time.
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) out.push_back(part);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sparrow Fig. 3 harness and benchmark"};
  weft::SparrowWorkloadSpec spec;
  spec.jobs = 2000;
  std::string loads = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95";
  std::string policies = "sparrow-random,sparrow-per-task,sparrow-batch,sparrow";
  std::string ratios = "2", csv_path, extra;
  double latency_ms = 0.5, warmup = 0.1, zero_wait_ms = 5;
  bool check = false;
  std::string weights, priorities;
  app.add_option("--machines", spec.machines);
  app.add_option("--cores", spec.cores);
  app.add_option("--tasks-per-job", spec.tasks_per_job);
  app.add_option("--jobs", spec.jobs);
  app.add_option("--mean-task-ms", spec.mean_task_ms);
  app.add_option("--seed", spec.seed);
  app.add_option("--loads", loads);
  app.add_option("--policies", policies);
  app.add_option("--probe-ratios", ratios);
  app.add_option("--params", extra, "extra k=v parameters, comma-separated");
  app.add_option("--latency-ms", latency_ms, "one-way latency (Fig. 3: 0.5 = 1 ms RTT)");
  app.add_option("--warmup", warmup, "fraction of the first arrivals left out of the statistics");
  app.add_option("--zero-wait-ms", zero_wait_ms, "a job saw no queueing if every task started this soon");
  app.add_option("--user-weights", weights, "comma-separated: jobs go round-robin to users with these weights");
  app.add_option("--user-priorities", priorities, "comma-separated: the users' job priorities");
  app.add_flag("--check", check, "attach the schedule checker");
  app.add_option("--csv", csv_path, "append rows to this file too");
  CLI11_PARSE(app, argc, argv);

  for (const std::string& x : Split(weights)) spec.user_weights.push_back(std::stod(x));
  for (const std::string& x : Split(priorities)) spec.user_priorities.push_back(std::stoi(x));
  const std::string header =
      "policy,load,probe_ratio,machines,cores,tasks_per_job,jobs,median_ms,p95_ms,ideal_median_ms,"
      "ideal_expected_ms,zero_wait_fraction,tasks,events,messages,wall_s,tasks_per_s,events_per_s,cpu_s,"
      "tasks_per_cpu_s";
  std::ofstream csv;
  if (!csv_path.empty()) {
    const bool fresh = !std::ifstream(csv_path).good();
    csv.open(csv_path, std::ios::app);
    if (fresh) csv << header << "\n";
  }
  std::printf("%s\n", header.c_str());
  for (const std::string& load : Split(loads)) {
    spec.load = std::stod(load);
    const weft::Workload w = weft::BuildSparrowWorkload(spec);
    const double ideal_median = weft::IdealMedianResponseUs(w) / 1000;
    const double ideal_expected = weft::IdealMeanResponseUs(spec) / 1000;
    for (const std::string& policy : Split(policies)) {
      for (const std::string& d : Split(ratios)) {
        std::vector<std::string> params = Split(extra);
        if (policy != "sparrow-random") params.push_back("probe_ratio=" + d);
        auto built = weft::policy::BuildPolicy(policy, params);
        if (!built.ok()) {
          std::fprintf(stderr, "%s\n", std::string(built.status().message()).c_str());
          return 2;
        }
        weft::sim::SimOptions o;
        o.seed = spec.seed;
        o.latency_us = static_cast<TimeUs>(latency_ms * 1000);
        weft::sim::Engine engine(w, *built->policy, o);
        Collector c(w.jobs.size());
        c.w = &w;
        c.busy_us.assign(w.users.size(), 0);
        // Shares are measured while the middle half of the jobs arrive.
        c.window_begin = w.jobs[w.jobs.size() / 4].arrival_us;
        c.window_end = w.jobs[w.jobs.size() * 3 / 4].arrival_us;
        weft::ScheduleChecker checker(w, weft::ResourceMask{0});
        engine.AddObserver(&c);
        if (check) engine.AddObserver(&checker);
        const auto t0 = std::chrono::steady_clock::now();
        const double cpu0 = ProcessCpuSeconds();
        const absl::Status s = engine.Run();
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double cpu = ProcessCpuSeconds() - cpu0;
        if (!s.ok() || (check && !checker.ok())) {
          std::fprintf(stderr, "%s load %s: %s\n", policy.c_str(), load.c_str(),
                       s.ok() ? checker.violations().front().c_str() : std::string(s.message()).c_str());
          return 1;
        }
        std::vector<double> rt;
        size_t zero = 0;
        for (size_t j = static_cast<size_t>(warmup * static_cast<double>(w.jobs.size())); j < w.jobs.size(); ++j) {
          rt.push_back(static_cast<double>(c.end[j] - w.jobs[j].arrival_us) / 1000);
          zero += c.last_start[j] - w.jobs[j].arrival_us <= static_cast<TimeUs>(zero_wait_ms * 1000);
        }
        const weft::sim::RunStats& st = engine.stats();
        const std::string row = fmt::format(
            "{},{},{},{},{},{},{},{:.1f},{:.1f},{:.1f},{:.1f},{:.4f},{},{},{},{:.2f},{:.0f},{:.0f},{:.2f},{:.0f}", policy, load,
            policy == "sparrow-random" ? "" : d, spec.machines, spec.cores, spec.tasks_per_job, w.jobs.size(),
            Quantile(rt, 0.5), Quantile(rt, 0.95), ideal_median, ideal_expected,
            static_cast<double>(zero) / static_cast<double>(rt.size()), st.tasks_done, st.events, st.messages, wall,
            static_cast<double>(st.tasks_done) / wall, static_cast<double>(st.events) / wall, cpu,
            static_cast<double>(st.tasks_done) / cpu);
        std::printf("%s\n", row.c_str());
        std::fflush(stdout);
        if (csv.is_open()) csv << row << "\n" << std::flush;
        if (w.users.size() > 1) {
          // Per user: share of the cluster's slot time in the window, and
          // median response of its jobs after the warm-up.
          const double slot_us = static_cast<double>(spec.machines) * spec.cores *
                                 static_cast<double>(c.window_end - c.window_begin);
          for (size_t u = 0; u < w.users.size(); ++u) {
            std::vector<double> urt;
            for (size_t j = static_cast<size_t>(warmup * static_cast<double>(w.jobs.size())); j < w.jobs.size(); ++j) {
              if (w.jobs[j].user.value() == u) urt.push_back(static_cast<double>(c.end[j] - w.jobs[j].arrival_us) / 1000);
            }
            std::printf("# user u%zu: share %.3f of the slots, median response %.1f ms\n", u, c.busy_us[u] / slot_us,
                        Quantile(urt, 0.5));
          }
        }
      }
    }
  }
  return 0;
}
