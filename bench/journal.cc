// Journal write throughput (not a test; figures in BENCHMARKS.md, "Runtime:
// journal"): attempt records per second through Journal::RecordAttempts, in
// batches of 1, 100 and 1000 records per call (one transaction, one commit
// each), with synchronous FULL and NORMAL; and a driver-style batch of single
// calls between Begin() and Commit().
//
//   WEFT_BENCH_DIR=/tmp build/bench/weft_bench_journal [--benchmark_filter=...]
//
// The journal lives in a fresh directory under $WEFT_BENCH_DIR (default
// /tmp), so the figures are those of that file system's fsync.
#include "runtime/journal.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "benchmark/benchmark.h"

namespace weft::runtime {
namespace {

std::filesystem::path FreshDir(const std::string& name) {
  const char* base = std::getenv("WEFT_BENCH_DIR");
  const auto dir = std::filesystem::path(base ? base : "/tmp") /
                   ("weft_bench_journal_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

// Attempts numbers tasks so that every ok record is for a new task, as in a
// real run, and fills every field.
class Attempts {
 public:
  const AttemptRecord& Next() {
    a_.task = {.job = JobId(n_ / 100'000), .stage = 0, .index = n_ % 100'000};
    a_.machine = MachineId(n_ % 64);
    a_.ready_us = 10 * n_;
    a_.start_us = a_.ready_us + 5;
    a_.end_us = a_.start_us + 1'000'000;
    a_.demand.set_micro(kCpu, 1'000'000);
    a_.demand.set_micro(kMem, 2'000'000'000);
    a_.usage = a_.demand;
    a_.locality = Locality::kNode;
    ++n_;
    return a_;
  }

 private:
  AttemptRecord a_;
  uint32_t n_ = 0;
};

// OpenFresh opens a journal in a fresh directory with the sync level of
// state.range(1) (0 = FULL, 1 = NORMAL), or marks the benchmark skipped.
std::unique_ptr<Journal> OpenFresh(benchmark::State& state, const std::filesystem::path& dir) {
  const bool normal = state.range(1) != 0;
  state.SetLabel(normal ? "NORMAL" : "FULL");
  auto journal = Journal::Open(dir, {.sync = normal ? JournalSync::kNormal : JournalSync::kFull});
  if (!journal.ok()) {
    state.SkipWithError(std::string(journal.status().message()).c_str());
    return nullptr;
  }
  return std::move(journal).value();
}

// Args: records per RecordAttempts call, sync (0 = FULL, 1 = NORMAL).
void BM_RecordAttempts(benchmark::State& state) {
  const auto batch = static_cast<size_t>(state.range(0));
  const auto dir = FreshDir("records");
  auto journal = OpenFresh(state, dir);
  if (!journal) return;
  Attempts attempts;
  std::vector<AttemptRecord> records(batch);
  for (auto _ : state) {
    for (AttemptRecord& r : records) r = attempts.Next();
    if (!journal->RecordAttempts(records).ok()) {
      state.SkipWithError("RecordAttempts failed");
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch));
  journal.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RecordAttempts)
    ->ArgsProduct({{1, 100, 1000}, {0, 1}})
    ->ArgNames({"batch", "normal"})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Args: single-record RecordAttempts calls per Begin()/Commit(), sync. The
// cost of the per-call savepoint against one call with the whole batch.
void BM_BatchOfSingleCalls(benchmark::State& state) {
  const auto calls = state.range(0);
  const auto dir = FreshDir("calls");
  auto journal = OpenFresh(state, dir);
  if (!journal) return;
  Attempts attempts;
  for (auto _ : state) {
    bool ok = journal->Begin().ok();
    for (int64_t i = 0; i < calls && ok; ++i) {
      ok = journal->RecordAttempts({&attempts.Next(), 1}).ok();
    }
    if (!ok || !journal->Commit().ok()) {
      state.SkipWithError("batch failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * calls);
  journal.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_BatchOfSingleCalls)
    ->ArgsProduct({{100}, {0, 1}})
    ->ArgNames({"calls", "normal"})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace weft::runtime

BENCHMARK_MAIN();
