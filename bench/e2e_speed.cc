// The two programs behind bench/e2e_speed.sh (issue 19: the simulator's speed
// end to end, as a user runs it, against a bare event loop):
//
//   weft_bench_e2e gen OUT.json [--jobs 20000] [--tasks-per-job 100] [--machines 10000] [--seed 1]
//       writes the Sparrow-style workload (trace/sparrow_workload.h: one stage
//       of one-core tasks per job, per-task exponential durations of mean
//       100 ms, Poisson arrivals at load 0.9) as a weft JSON workload, with
//       each task's duration in "durations".
//   weft_bench_e2e loop [same flags]
//       builds the same workload in memory and runs the bare loop: a binary
//       heap of task ends and a FIFO queue of tasks, each task placed on the
//       lowest-numbered free machine, which is what `weft sim -p fifo` does on
//       single-slot machines. No model, no policy, no records, no output but
//       one line (tasks, makespan) so the work cannot be optimized away and
//       the makespan can be set against weft's.
#include <cstdio>
#include <deque>
#include <queue>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "core/time.h"
#include "fmt/format.h"
#include "trace/sparrow_workload.h"

namespace {

using weft::TimeUs;

// WriteJson writes `w` in the workload format (FORMATS.md section 1). The
// workload is a single-stage, one-machine-group shape, so a direct writer is
// short and much faster than building a DOM of two million numbers.
bool WriteJson(const weft::Workload& w, const weft::SparrowWorkloadSpec& spec, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  fmt::format_to(out,
                 "{{\"weft\": 1,\n \"cluster\": {{\"machines\": [{{\"name\": \"n\", \"count\": {}, \"rack_size\": 40, "
                 "\"capacity\": {{\"cpu\": 1, \"mem\": 4, \"disk\": 100, \"net\": 100}}}}]}},\n \"jobs\": [\n",
                 spec.machines);
  for (size_t j = 0; j < w.jobs.size(); ++j) {
    const weft::Job& job = w.jobs[j];
    const weft::Stage& s = job.stages[0];
    fmt::format_to(out,
                   "{}  {{\"name\": \"{}\", \"arrival\": {}, \"stages\": [{{\"name\": \"s\", \"tasks\": {}, "
                   "\"duration\": {}, \"demand\": {{\"cpu\": 1, \"mem\": 1}}, \"durations\": [",
                   j == 0 ? "" : ",\n", job.name, weft::FormatSeconds(job.arrival_us), s.num_tasks,
                   weft::FormatSeconds(s.duration_us));
    for (size_t i = 0; i < s.durations_us.size(); ++i) {
      fmt::format_to(out, "{}{}", i == 0 ? "" : ", ", weft::FormatSeconds(s.durations_us[i]));
    }
    fmt::format_to(out, "]}}]}}");
    if (b.size() > (1 << 20)) {
      std::fwrite(b.data(), 1, b.size(), f);
      b.clear();
    }
  }
  fmt::format_to(out, "\n]}}\n");
  std::fwrite(b.data(), 1, b.size(), f);
  return std::fclose(f) == 0;
}

// BareLoop: FIFO over tasks in job order, lowest free machine first.
void BareLoop(const weft::Workload& w, uint32_t machines) {
  struct End {
    TimeUs time;
    uint32_t machine;
    bool operator>(const End& o) const { return time != o.time ? time > o.time : machine > o.machine; }
  };
  std::priority_queue<End, std::vector<End>, std::greater<>> running;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free;
  for (uint32_t m = 0; m < machines; ++m) free.push(m);
  struct Queued {
    uint32_t job, task;
  };
  std::deque<Queued> queue;
  size_t next_job = 0;
  uint64_t tasks = 0;
  TimeUs now = 0, last_end = 0;
  while (next_job < w.jobs.size() || !queue.empty() || !running.empty()) {
    // The next instant: the earlier of the next arrival and the next end.
    now = running.empty() ? w.jobs[next_job].arrival_us : running.top().time;
    if (next_job < w.jobs.size()) now = std::min(now, w.jobs[next_job].arrival_us);
    while (!running.empty() && running.top().time == now) {
      free.push(running.top().machine);
      running.pop();
    }
    while (next_job < w.jobs.size() && w.jobs[next_job].arrival_us == now) {
      for (uint32_t t = 0; t < w.jobs[next_job].num_tasks; ++t) queue.push_back({static_cast<uint32_t>(next_job), t});
      ++next_job;
    }
    while (!queue.empty() && !free.empty()) {
      const Queued q = queue.front();
      queue.pop_front();
      const TimeUs end = now + w.jobs[q.job].stages[0].durations_us[q.task];
      running.push({end, free.top()});
      free.pop();
      last_end = std::max(last_end, end);
      ++tasks;
    }
  }
  std::printf("bare loop: %llu tasks, makespan %s s\n", static_cast<unsigned long long>(tasks),
              weft::FormatSeconds(last_end - w.jobs.front().arrival_us).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"End-to-end speed bench: workload generator and bare event loop"};
  weft::SparrowWorkloadSpec spec;
  spec.jobs = 20'000;
  spec.tasks_per_job = 100;
  spec.machines = 10'000;
  spec.mean_task_ms = 100;
  spec.load = 0.9;
  std::string out;
  auto add_spec = [&](CLI::App* c) {
    c->add_option("--jobs", spec.jobs)->capture_default_str();
    c->add_option("--tasks-per-job", spec.tasks_per_job)->capture_default_str();
    c->add_option("--machines", spec.machines)->capture_default_str();
    c->add_option("--seed", spec.seed)->capture_default_str();
  };
  CLI::App* gen = app.add_subcommand("gen", "Write the workload as weft JSON");
  gen->add_option("out", out, "Output file")->required();
  add_spec(gen);
  CLI::App* loop = app.add_subcommand("loop", "Run the bare event loop on the same workload");
  add_spec(loop);
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  const weft::Workload w = weft::BuildSparrowWorkload(spec);
  if (gen->parsed()) {
    if (!WriteJson(w, spec, out)) {
      std::fprintf(stderr, "error: %s: cannot write there\n", out.c_str());
      return 1;
    }
    return 0;
  }
  BareLoop(w, spec.machines);
  return 0;
}
