// The `fit` parameter (docs/policies.md, "Placing by some resources only"):
// every baseline that packs tasks by their demands, told `fit=cpu+mem`,
// places by cpu and memory only, as YARN's Capacity Scheduler does, and
// leaves disk and network to contend. One machine of 4 cores and 100 MB/s of
// disk; four tasks of 1 core and the whole disk. Fitting every resource, one
// runs at a time; fitting cpu and memory, all four start at once, share the
// disk (max-min: 25 MB/s each), and the checker accepts the run and its
// conservation.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "policy/registry.h"
#include "sim/simulation.h"
#include "trace/workload_reader.h"

namespace weft {
namespace {

constexpr char kWorkload[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 16, "disk": 100, "net": 100}}]},
  "jobs": [{"name": "scan", "stages": [{"name": "s", "tasks": 4, "duration": 2,
            "demand": {"cpu": 1, "mem": 1, "disk": 100}}]}]})";

// Each task's start and end, from a run's tasks.csv.
std::vector<std::pair<double, double>> TaskSpans(const std::string& dir) {
  std::ifstream in(dir + "/tasks.csv");
  std::string line;
  std::getline(in, line);  // header: job,stage,task,attempt,machine,ready,start,end,...
  std::vector<std::pair<double, double>> spans;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string f;
    for (int i = 0; i <= 6; ++i) std::getline(fields, f, ',');
    const double start = std::stod(f);
    std::getline(fields, f, ',');
    spans.emplace_back(start, std::stod(f));
  }
  return spans;
}

// The most tasks that ran at one instant.
int MostAtOnce(const std::string& dir) {
  std::vector<std::pair<double, int>> steps;
  for (const auto& [start, end] : TaskSpans(dir)) {
    steps.emplace_back(start, 1);
    steps.emplace_back(end, -1);
  }
  std::sort(steps.begin(), steps.end());  // an end (-1) before a start at the same instant
  int running = 0;
  int most = 0;
  for (const auto& [t, step] : steps) most = std::max(most, running += step);
  return most;
}

// How many of the run's tasks started at 0, from its tasks.csv.
int StartedAtOnce(const std::string& dir) {
  std::ifstream in(dir + "/tasks.csv");
  std::string line;
  std::getline(in, line);  // header: job,stage,task,attempt,machine,ready,start,...
  int n = 0;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string f;
    for (int i = 0; i <= 6; ++i) std::getline(fields, f, ',');
    n += f == "0.000000";
  }
  return n;
}

// ForEachFit simulates kWorkload under `policy` with `fit=all` and
// `fit=cpu+mem`, in both execution models, each run's files in a fresh
// folder; every run and its check must succeed, and `expect` then looks at
// the run (`all_fitted`: fit=all).
void ForEachFit(const std::string& policy,
                const std::function<void(bool all_fitted, const std::string& dir, const sim::SimulationResult&)>& expect) {
  const absl::StatusOr<Workload> w = ParseWorkload(kWorkload);
  ASSERT_TRUE(w.ok()) << w.status();
  for (const std::string fit : {"all", "cpu+mem"}) {
    for (sim::ExecutionModel model : {sim::ExecutionModel::kFixed, sim::ExecutionModel::kContention}) {
      SCOPED_TRACE("fit=" + fit + ", " + sim::ExecutionModelName(model));
      const std::string dir = (std::filesystem::path(::testing::TempDir()) /
                               ("weft_fit_" + policy + "_" + (fit == "all" ? "all" : "cpumem") + "_" +
                                sim::ExecutionModelName(model)))
                                  .string();
      std::filesystem::remove_all(dir);
      std::filesystem::create_directories(dir);
      sim::SimulationRequest request;
      request.policy = policy;
      request.params = {"fit=" + fit};
      request.options.model = model;
      request.out_dir = dir;
      const auto result = sim::Simulate(*w, request);
      ASSERT_TRUE(result.ok()) << result.status();
      ASSERT_TRUE(result->status.ok()) << result->status;  // the checker accepts the shared disk
      expect(fit == "all", dir, *result);
    }
  }
}

class FitTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FitTest, CpuAndMemoryOnlyLeavesTheDiskToContend) {
  ForEachFit(GetParam(), [](bool all_fitted, const std::string& dir, const sim::SimulationResult& result) {
    EXPECT_EQ(StartedAtOnce(dir), all_fitted ? 1 : 4);
    if (!all_fitted) {
      const auto& over = result.summary_json["overbooked_resources"];
      EXPECT_NE(std::find(over.begin(), over.end(), "disk"), over.end()) << over.dump();
    }
  });
}

// The baselines that pack tasks onto machines by resources.
INSTANTIATE_TEST_SUITE_P(Baselines, FitTest,
                         ::testing::Values("fifo", "fair", "drf", "delay", "random", "tetris", "cp", "bfs", "stripart",
                                           "coffman-graham"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// The container-based baselines place containers on machines and tasks in
// containers: told `fit=cpu+mem`, both ignore the disk, so tasks that each
// want the whole disk share containers (or containers share the machine)
// and run together, where fitting every resource runs them one at a time.
// Their container requests take a response time, so the count is of tasks
// running together rather than started at 0.
class ContainerFitTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ContainerFitTest, CpuAndMemoryOnlyLetsTasksShareTheDiskInContainers) {
  ForEachFit(GetParam(), [](bool all_fitted, const std::string& dir, const sim::SimulationResult&) {
    if (all_fitted) {
      EXPECT_EQ(MostAtOnce(dir), 1);
    } else {
      EXPECT_GE(MostAtOnce(dir), 2);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(ContainerBaselines, ContainerFitTest,
                         ::testing::Values("executor", "spark-static", "spark-dynamic", "cobra", "cobra-default",
                                           "ursa-yarn"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace weft
