// File: tests/cli/golden_test.cc
//
// Golden results (tests/golden/README.md): each case runs `weft sim` on its
// workload with its arguments and compares every result file byte for byte
// (summary.json without wall_seconds, a clock reading). With
// WEFT_UPDATE_GOLDEN=1 in the environment it rewrites the expected files
// instead, for a reviewed change of results.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_test_util.h"
#include "nlohmann/json.hpp"

namespace weft {
namespace {

namespace fs = std::filesystem;

std::string SummaryWithoutClock(const std::string& text) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "unparseable: " + text;
  j.erase("wall_seconds");
  return j.dump(2) + "\n";
}

class GoldenTest : public CliTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(GoldenTest, ResultsMatch) {
  const fs::path dir = fs::path(WEFT_GOLDEN_DIR) / GetParam();
  std::vector<std::string> args = {"sim", "-w", (dir / "workload.json").string()};
  std::ifstream in(dir / "args");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) args.push_back(line);
  }
  const fs::path out = dir_ / "out";
  args.insert(args.end(), {"--out", out.string()});
  const Result r = Run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const bool update = std::getenv("WEFT_UPDATE_GOLDEN") != nullptr;
  for (const std::string name : {"tasks.csv", "jobs.csv", "summary.json", "phases.csv", "timeline.csv"}) {
    const bool produced = fs::exists(out / name);
    std::string actual = produced ? Slurp(out / name) : "";
    if (name == "summary.json") actual = SummaryWithoutClock(actual);
    if (update) {
      if (produced) std::ofstream(dir / name) << actual;
      continue;
    }
    ASSERT_EQ(produced, fs::exists(dir / name)) << name << " produced or expected, not both";
    if (!produced) continue;
    EXPECT_EQ(actual, Slurp(dir / name)) << GetParam() << "/" << name << " differs from the golden file";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenTest,
                         ::testing::Values("dag-fifo", "phases-contention", "sparrow-latency", "overbook-dagps"));

}  // namespace
}  // namespace weft
