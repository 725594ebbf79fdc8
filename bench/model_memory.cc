// Bytes per task of the in-memory model (not a test; see BENCHMARKS.md).
//
//   weft_bench_model_memory [WORKLOAD.json]
//
// Measures the heap bytes in use (glibc mallinfo2) held by a Workload: read
// from a file when one is given (the parser's temporary JSON tree is freed
// before measuring), and for synthetic homogeneous workloads of 1M and 10M
// tasks built in memory.
#include <malloc.h>

#include <cstdio>
#include <string>

#include "fmt/format.h"
#include "synthetic_workload.h"
#include "trace/workload_reader.h"

namespace {

size_t HeapInUse() { return mallinfo2().uordblks; }

void Report(const std::string& what, const weft::Workload& w, size_t bytes) {
  std::printf("%s", fmt::format("{}: jobs={} stages={} tasks={} machines={} model_bytes={} bytes_per_task={:.2f}\n",
                                what, w.jobs.size(), w.NumStages(), w.NumTasks(), w.cluster.size(), bytes,
                                static_cast<double>(bytes) / static_cast<double>(w.NumTasks()))
                        .c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    const size_t before = HeapInUse();
    auto w = weft::ReadWorkloadFile(argv[1]);
    if (!w.ok()) {
      std::fprintf(stderr, "error: %s\n", std::string(w.status().message()).c_str());
      return 2;
    }
    Report(argv[1], *w, HeapInUse() - before);
  }
  for (uint64_t tasks : {1'000'000ULL, 10'000'000ULL}) {
    const size_t before = HeapInUse();
    weft::bench::SyntheticSpec spec;
    spec.tasks = tasks;
    const weft::Workload w = weft::bench::BuildSyntheticWorkload(spec);
    Report(fmt::format("synthetic {} tasks", tasks), w, HeapInUse() - before);
  }
  return 0;
}
