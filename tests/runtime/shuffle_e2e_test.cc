// Shuffle edges with slow start for real (issue 13): a reducer is launched
// once half of its maps are done, but its process starts only after the last
// map has ended (its shuffle waits for every parent), as in simulation.
#include <map>
#include <sstream>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

TEST_F(RuntimeTest, AReducerLaunchedAtSlowStartRunsOnlyAfterItsLastMap) {
  const std::string address = Up(2, {"--policy", "fifo"});  // two 1-core nodes
  const fs::path log = WorkDir() / "order.log";
  // Map 0 takes 0.2 s, map 1 1.2 s; slow start 0.5 makes the reducer ready
  // when map 0 ends.
  const std::string stamp = "$(date +%s.%N)";
  const auto ids = SubmitIds(address, fmt::format(R"({{"weft": 1, "jobs": [{{"name": "mr", "stages": [
    {{"name": "map", "tasks": 2, "duration": 0.5, "demand": {{"cpu": 1, "mem": 0.5}},
      "command": "if [ $WEFT_TASK = 0 ]; then sleep 0.2; else sleep 1.2; fi; echo map $WEFT_TASK end {1} >> {0}"}},
    {{"name": "reduce", "tasks": 1, "duration": 0.2, "demand": {{"cpu": 1, "mem": 0.5}},
      "after": [{{"stage": "map", "kind": "shuffle", "slowstart": 0.5}}],
      "command": "echo reduce 0 begin {1} >> {0}"}}]}}]}})",
                                                  log.string(), stamp));
  ASSERT_EQ(ids, std::vector<std::string>{"0"});
  const Result r = Wait(address, "0", 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  std::map<std::string, double> at;  // "map 1 end" -> time
  std::istringstream lines(Slurp(log));
  for (std::string stage, task, what; lines >> stage >> task >> what;) {
    double t = 0;
    lines >> t;
    at[stage + " " + task + " " + what] = t;
  }
  ASSERT_EQ(at.size(), 3u) << Slurp(log);
  EXPECT_LT(at["map 0 end"], at["map 1 end"]);
  EXPECT_GE(at["reduce 0 begin"], at["map 1 end"]) << "the reducer ran before its last map ended:\n" << Slurp(log);

  // ...though it became ready (and was launched) at slow start: its `ready`
  // in tasks.csv is before the last map's end.
  const fs::path out = dir_ / "results";
  ASSERT_EQ(Run({"status", "--scheduler", address, "--out", out.string()}).exit_code, 0);
  std::istringstream tasks(Slurp(out / "tasks.csv"));
  std::string header, row;
  std::getline(tasks, header);
  double reduce_ready = -1, map_end = -1;
  while (std::getline(tasks, row)) {
    std::vector<std::string> f;
    std::istringstream fields(row);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    // job,stage,task,attempt,machine,ready,start,end,...
    if (f[1] == "reduce") reduce_ready = std::stod(f[5]);
    if (f[1] == "map" && f[2] == "1") map_end = std::stod(f[7]);
  }
  EXPECT_GE(reduce_ready, 0);
  EXPECT_LT(reduce_ready, map_end - 0.5) << Slurp(out / "tasks.csv");
}

}  // namespace
}  // namespace weft
