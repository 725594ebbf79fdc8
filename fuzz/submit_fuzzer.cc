// libFuzzer target: what the scheduler's Submit checks before it takes its
// lock and changes any state (SchedulerCore::Submit): the UTF-8 check, the
// whole submission parsed once and checked against the live cluster
// (ParseSubmission), and each job rebuilt from its journaled text as a
// restart does (BuildJob). The live
// cluster is two nodes of 4 cores and 8 GB, like a small `cluster up`.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/names.h"
#include "runtime/scheduler/job_intake.h"

namespace {

weft::Cluster LiveCluster() {
  weft::Cluster cluster;
  const weft::Resources node = *weft::Resources::FromUnits({4, 8, 0, 0});
  cluster.AddMachine("node-0", weft::RackId(0), node);
  cluster.AddMachine("node-1", weft::RackId(0), node);
  return cluster;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const weft::Cluster live = LiveCluster();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (weft::FirstInvalidUtf8(text) != std::string_view::npos) return 0;  // refused before parsing
  auto jobs = weft::runtime::ParseSubmission(text, live);
  if (!jobs.ok()) return 0;
  for (const weft::runtime::SubmittedJob& job : *jobs) {
    (void)weft::runtime::BuildJob(nlohmann::json::parse(job.journal_json, nullptr, false), live);
  }
  return 0;
}
