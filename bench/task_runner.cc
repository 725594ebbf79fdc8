// Google Benchmark suite for the node's task runner (not a test; figures in
// BENCHMARKS.md, "Runtime: task runner").
//
//   weft_bench_task_runner [--benchmark_filter=...]
//
// BM_BuiltinZeroDuration: built-in zero-duration tasks started and reaped
// per second (the no-process path the runtime benchmark pushes 100,000 of).
// BM_TrueLaunchToExit: `/bin/true` as a command task, from Start to the Reap
// that returns its exit (waiting on wake_fd); p50/p99 in microseconds, and
// start_p50_us, the p50 of the Start call alone (the daemon thread's share;
// since the clone-based spawn it returns once the child has exec'd). The
// argument is a ballast of that many MiB allocated and touched first, so the
// benchmark process has an address space closer to the node daemon's (gRPC,
// its threads and buffers): what fork() has to copy.
// BM_SampleUsage: one SampleUsage pass with N `sleep` tasks running.
// Work dirs go under $WEFT_BENCH_DIR (default: the system temp dir); the
// command path creates three files per task, so the file system matters.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "benchmark/benchmark.h"
#include "fmt/format.h"
#include "runtime/node/task_runner.h"

namespace {

using weft::runtime::TaskExit;
using weft::runtime::TaskRunner;
using weft::runtime::TaskSpec;

std::filesystem::path BenchRoot() {
  const char* root = std::getenv("WEFT_BENCH_DIR");
  return root != nullptr && *root != '\0' ? std::filesystem::path(root) : std::filesystem::temp_directory_path();
}

// A fresh work dir for one benchmark, removed when done.
class ScratchDir {
 public:
  explicit ScratchDir(std::string_view name)
      : path_(BenchRoot() / fmt::format("weft_bench_{}_{}", name, getpid())) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void BM_BuiltinZeroDuration(benchmark::State& state) {
  ScratchDir dir("builtin");
  TaskRunner runner(dir.path());
  const int64_t batch = state.range(0);  // tasks started between two Reaps
  uint64_t id = 0;
  size_t reaped = 0;
  for (auto _ : state) {
    for (int64_t i = 0; i < batch; ++i) {
      if (!runner.Start(TaskSpec{.id = id++}).ok()) state.SkipWithError("Start failed");
    }
    pollfd p{.fd = runner.wake_fd(), .events = POLLIN, .revents = 0};
    poll(&p, 1, 0);
    reaped += runner.Reap().size();
  }
  if (reaped != id) state.SkipWithError("lost tasks");
  state.SetItemsProcessed(static_cast<int64_t>(id));
}
BENCHMARK(BM_BuiltinZeroDuration)->Arg(1)->Arg(1000)->UseRealTime();

int64_t Percentile(std::vector<int64_t> v, double q) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void BM_TrueLaunchToExit(benchmark::State& state) {
  std::vector<char> ballast(static_cast<size_t>(state.range(0)) << 20);
  for (size_t i = 0; i < ballast.size(); i += 4096) ballast[i] = 1;  // make every page resident
  benchmark::DoNotOptimize(ballast.data());
  ScratchDir dir("true");
  TaskRunner runner(dir.path());
  std::vector<int64_t> latencies_us;
  std::vector<int64_t> start_calls_us;
  uint64_t id = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    if (!runner.Start(TaskSpec{.id = id, .label = fmt::format("t-{}", id), .command = "/bin/true"}).ok()) {
      state.SkipWithError("Start failed");
      break;
    }
    start_calls_us.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
    ++id;
    std::vector<TaskExit> exits;
    while (exits.empty()) {
      pollfd p{.fd = runner.wake_fd(), .events = POLLIN, .revents = 0};
      poll(&p, 1, 1000);
      exits = runner.Reap();
    }
    latencies_us.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
    if (exits[0].exit_code != 0) state.SkipWithError("/bin/true failed");
  }
  state.counters["p50_us"] = static_cast<double>(Percentile(latencies_us, 0.50));
  state.counters["p99_us"] = static_cast<double>(Percentile(latencies_us, 0.99));
  state.counters["start_p50_us"] = static_cast<double>(Percentile(start_calls_us, 0.50));
  state.SetItemsProcessed(static_cast<int64_t>(id));
}
BENCHMARK(BM_TrueLaunchToExit)->Arg(0)->Arg(128)->Iterations(2000)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_SampleUsage(benchmark::State& state) {
  ScratchDir dir("sample");
  TaskRunner runner(dir.path());
  for (int64_t i = 0; i < state.range(0); ++i) {
    (void)runner.Start(TaskSpec{.id = static_cast<uint64_t>(i), .label = "s", .command = "sleep 60"});
  }
  for (auto _ : state) benchmark::DoNotOptimize(runner.SampleUsage());
  state.counters["processes_on_machine"] = static_cast<double>(std::distance(
      std::filesystem::directory_iterator("/proc"), std::filesystem::directory_iterator{}));
  runner.KillAll();
}
BENCHMARK(BM_SampleUsage)->Arg(1)->Arg(16)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
