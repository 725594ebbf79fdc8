// Sparrow §7.5-7.6 style experiments (docs/reproductions/sparrow.md): two
// users sharing a cluster through the node-side queues of §4.2.
//
//   weft_bench_sparrow_sharing priority [--hp-load 0.25] [--lp-loads 0,0.25,0.5,0.75,1.75]
//       [--queues priority,fifo] [--duration-s 60] [common options]
//     One CSV row per queue policy and low-priority load: median and 95th
//     percentile response times of the high-priority (priority 1) and the
//     low-priority (priority 0) user's jobs (Table 3).
//
//   weft_bench_sparrow_sharing fair [--weights 1,1] [--u0 60:1] [--u1 10:0,20:0.25,30:0.5,40:0.25,50:0]
//       [--window-s 10] [--queues fair,fifo] [common options]
//     One CSV row per queue policy and time window: the tasks each user ran
//     at once on average in the window, next to its weighted max-min fair
//     share of the slots given what it offered (Fig. 11).
//
// Common options: [--machines 100] [--cores 4] [--tasks-per-job 10] [--mean-task-ms 100]
//   [--exponential] [--latency-ms 0.5] [--probe-ratio 2] [--seed 1]
// Users' steps are UNTIL_S:LOAD, comma-separated (load: fraction of all slots).
#include <algorithm>
#include <cstdio>
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

struct Records final : weft::RunObserver {
  std::vector<weft::JobRecord> jobs;
  std::vector<weft::AttemptRecord> attempts;
  void OnJobEnd(const weft::JobRecord& r) override { jobs.push_back(r); }
  void OnAttemptEnd(const weft::AttemptRecord& r) override { attempts.push_back(r); }
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

std::vector<std::pair<double, double>> ParseSteps(const std::string& s) {
  std::vector<std::pair<double, double>> steps;
  for (const std::string& step : Split(s, ',')) {
    const std::vector<std::string> p = Split(step, ':');
    if (p.size() != 2) throw std::invalid_argument(fmt::format("a step is UNTIL_S:LOAD, not \"{}\"", step));
    steps.emplace_back(std::stod(p[0]), std::stod(p[1]));
  }
  return steps;
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// Run runs the workload under Sparrow (late binding) with `queue`, checked.
Records Run(const weft::Workload& w, const std::string& queue, double probe_ratio, double latency_ms, uint64_t seed) {
  auto built = weft::policy::BuildPolicy(
      "sparrow", {"queue=" + queue, fmt::format("probe_ratio={}", probe_ratio)});
  if (!built.ok()) throw std::invalid_argument(std::string(built.status().message()));
  weft::sim::SimOptions o;
  o.seed = seed;
  o.latency_us = static_cast<TimeUs>(latency_ms * 1000);
  weft::sim::Engine engine(w, *built->policy, o);
  Records r;
  weft::ScheduleChecker checker(w, weft::ResourceMask{0});
  engine.AddObserver(&r);
  engine.AddObserver(&checker);
  const absl::Status s = engine.Run();
  if (!s.ok()) throw std::runtime_error(std::string(s.message()));
  if (!checker.ok()) throw std::runtime_error(checker.violations().front());
  return r;
}

// The offered load of `steps` over [a, b) seconds (time-weighted).
double OfferedLoad(const std::vector<std::pair<double, double>>& steps, double a, double b) {
  double from = 0, work = 0;
  for (const auto& [until, load] : steps) {
    work += load * std::max(0.0, std::min(b, until) - std::max(a, from));
    from = until;
  }
  return work / (b - a);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sparrow priority and fair-sharing experiments (§7.5-7.6 style)"};
  app.require_subcommand(1);
  weft::SparrowUsersSpec spec;
  double latency_ms = 0.5, probe_ratio = 2;
  auto common = [&](CLI::App* c) {
    c->add_option("--machines", spec.machines);
    c->add_option("--cores", spec.cores);
    c->add_option("--tasks-per-job", spec.tasks_per_job);
    c->add_option("--mean-task-ms", spec.mean_task_ms);
    c->add_flag("--exponential", spec.exponential, "exponential task durations (default: all equal)");
    c->add_option("--latency-ms", latency_ms, "one-way latency");
    c->add_option("--probe-ratio", probe_ratio);
    c->add_option("--seed", spec.seed);
  };
  CLI::App* prio = app.add_subcommand("priority", "a high-priority user at a fixed load, a low-priority one growing");
  double hp_load = 0.25, duration_s = 60;
  std::string lp_loads = "0,0.25,0.5,0.75,1.75", prio_queues = "priority,fifo";
  prio->add_option("--hp-load", hp_load);
  prio->add_option("--lp-loads", lp_loads);
  prio->add_option("--duration-s", duration_s, "how long both users submit");
  prio->add_option("--queues", prio_queues);
  common(prio);
  CLI::App* fair = app.add_subcommand("fair", "two users' shares over time windows");
  std::string weights = "1,1", u0 = "50:1", u1 = "10:0,20:0.25,30:0.5,40:0.25,50:0", fair_queues = "fair,fifo";
  double window_s = 10;
  fair->add_option("--weights", weights);
  fair->add_option("--u0", u0, "user 0's steps UNTIL_S:LOAD,...");
  fair->add_option("--u1", u1, "user 1's steps UNTIL_S:LOAD,...");
  fair->add_option("--window-s", window_s);
  fair->add_option("--queues", fair_queues);
  common(fair);
  CLI11_PARSE(app, argc, argv);

  try {
    const double slots = static_cast<double>(spec.machines) * spec.cores;
    if (prio->parsed()) {
      std::printf("queue,hp_load,lp_load,hp_jobs,hp_median_ms,hp_p95_ms,lp_jobs,lp_median_ms,lp_p95_ms\n");
      for (const std::string& queue : Split(prio_queues, ',')) {
        for (const std::string& lp : Split(lp_loads, ',')) {
          spec.users = {{.priority = 1, .steps = {{duration_s, hp_load}}},
                        {.priority = 0, .steps = {{duration_s, std::stod(lp)}}}};
          const weft::Workload w = weft::BuildSparrowUsersWorkload(spec);
          const Records r = Run(w, queue, probe_ratio, latency_ms, spec.seed);
          std::vector<double> rt[2];
          for (const weft::JobRecord& j : r.jobs) {
            rt[w.jobs[j.job.value()].user.value()].push_back(static_cast<double>(j.end_us - j.arrival_us) / 1000);
          }
          std::printf("%s,%g,%s,%zu,%.1f,%.1f,%zu,%.1f,%.1f\n", queue.c_str(), hp_load, lp.c_str(), rt[0].size(),
                      Quantile(rt[0], 0.5), Quantile(rt[0], 0.95), rt[1].size(), Quantile(rt[1], 0.5),
                      Quantile(rt[1], 0.95));
          std::fflush(stdout);
        }
      }
      return 0;
    }
    const std::vector<std::string> ws = Split(weights, ',');
    if (ws.size() != 2) throw std::invalid_argument("--weights takes two weights");
    spec.users = {{.weight = std::stod(ws[0]), .steps = ParseSteps(u0)},
                  {.weight = std::stod(ws[1]), .steps = ParseSteps(u1)}};
    const double end_s = std::max(spec.users[0].steps.back().first, spec.users[1].steps.back().first);
    const weft::Workload w = weft::BuildSparrowUsersWorkload(spec);
    std::printf("queue,window_start_s,window_end_s,u0_offered,u1_offered,u0_running,u1_running,u0_fair,u1_fair\n");
    for (const std::string& queue : Split(fair_queues, ',')) {
      const Records r = Run(w, queue, probe_ratio, latency_ms, spec.seed);
      for (double a = 0; a + window_s <= end_s + 1e-9; a += window_s) {
        const double b = a + window_s;
        const auto lo = static_cast<TimeUs>(a * 1e6), hi = static_cast<TimeUs>(b * 1e6);
        double busy[2] = {0, 0};
        for (const weft::AttemptRecord& t : r.attempts) {
          const TimeUs s = std::max(t.start_us, lo), e = std::min(t.end_us, hi);
          if (e > s) busy[w.jobs[t.task.job.value()].user.value()] += static_cast<double>(e - s);
        }
        const double offered[2] = {OfferedLoad(spec.users[0].steps, a, b) * slots,
                                   OfferedLoad(spec.users[1].steps, a, b) * slots};
        const std::vector<double> due =
            weft::WeightedMaxMinShares({offered[0], offered[1]}, {spec.users[0].weight, spec.users[1].weight}, slots);
        const double len_us = (b - a) * 1e6;
        std::printf("%s,%g,%g,%.0f,%.0f,%.1f,%.1f,%.0f,%.0f\n", queue.c_str(), a, b, offered[0], offered[1],
                    busy[0] / len_us, busy[1] / len_us, due[0], due[1]);
      }
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
