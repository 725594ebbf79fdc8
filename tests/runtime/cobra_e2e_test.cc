// COBRA for real: `weft cluster up --policy cobra` on two 1-core, 2-GB nodes
// runs a job of four 0.25-core tasks in one reusable container at once. With
// the desire held at 1 (a period longer than the job) the job holds a single
// 1-core container, so four tasks running at the same time on one node are
// four tasks in that one container.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

std::vector<std::string> Fields(const std::string& row) {
  std::vector<std::string> out;
  std::istringstream in(row);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

TEST_F(RuntimeTest, CobraRunsSeveralTasksInOneContainerAtOnce) {
  const std::string address =
      Up(2, {"--policy", "cobra", "--param", "period=600", "--param", "response_time=0"}, "cluster-cobra");
  const auto ids = SubmitIds(address, Workload(R"({"name": "reuse", "stages": [
      {"name": "s", "tasks": 4, "duration": 1, "demand": {"cpu": 0.25, "mem": 0.1}}]})"));
  ASSERT_EQ(ids.size(), 1u);
  const Result r = Wait(address, ids[0], 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = TaskRows(address);
  ASSERT_EQ(rows.size(), 4u);
  // tasks.csv: job,stage,task,attempt,machine,ready,start,end,outcome,...
  std::vector<std::string> machines;
  double last_start = 0, first_end = 1e18;
  for (const std::string& row : rows) {
    const auto f = Fields(row);
    ASSERT_GE(f.size(), 9u) << row;
    EXPECT_EQ(f[8], "ok") << row;
    machines.push_back(f[4]);
    last_start = std::max(last_start, std::stod(f[6]));
    first_end = std::min(first_end, std::stod(f[7]));
  }
  EXPECT_TRUE(std::all_of(machines.begin(), machines.end(), [&](const std::string& m) { return m == machines[0]; }));
  EXPECT_LT(last_start, first_end) << "the four tasks did not all run at once";
}

}  // namespace
}  // namespace weft
