// ras and fair-slots in the real runtime (issue 16): daemons started by
// `weft cluster up`. A small map/reduce job with a completion-time goal
// finishes within it under ras, and no node ever runs tasks whose demands
// sum beyond its capacity (checked from the exported tasks.csv); fair-slots
// runs the same job with two map slots per node whatever the tasks demand.
#include <algorithm>
#include <atomic>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

// Two nodes of 1 core and 2 GB (the fixture's cluster). Eight maps of 0.45
// core (two waves of four), one reducer behind a shuffle edge with slow
// start 0.5, as RAS's reducers (Table 2): a light `shuffle` phase, then its
// `reduce` phase. It may launch once four maps are done, on its shuffle
// profile, beside the second wave; goal 30 s.
const std::string kJob = Workload(R"({"name": "mr", "deadline": 30, "stages": [
    {"name": "map", "kind": "map", "tasks": 8, "duration": 1, "demand": {"cpu": 0.45, "mem": 0.4}},
    {"name": "reduce", "kind": "reduce", "tasks": 1, "demand": {"cpu": 0.5, "mem": 0.8},
     "phases": [{"name": "shuffle", "duration": 0.1, "demand": {"cpu": 0.05, "mem": 0.1}},
                {"name": "reduce", "duration": 0.3, "demand": {"cpu": 0.5, "mem": 0.8}}],
     "after": [{"stage": "map", "kind": "shuffle", "slowstart": 0.5}]}]})");

struct Row {
  std::string stage;
  std::string machine;
  double start = 0, end = 0, cpu = 0, mem = 0;
  std::string outcome;
};

// Rows of tasks.csv: job,stage,task,attempt,machine,ready,start,end,outcome,cpu,mem,...
std::vector<Row> Parse(const std::vector<std::string>& lines) {
  std::vector<Row> rows;
  for (const std::string& line : lines) {
    std::vector<std::string> f;
    std::istringstream in(line);
    for (std::string field; std::getline(in, field, ',');) f.push_back(field);
    if (f.size() < 11) continue;
    rows.push_back({f[1], f[4], std::stod(f[6]), std::stod(f[7]), std::stod(f[9]), std::stod(f[10]), f[8]});
  }
  return rows;
}

// PeakCpu: the most cpu the attempts on one machine held at once.
double PeakCpu(const std::vector<Row>& rows, const std::string& machine) {
  double peak = 0;
  for (const Row& at : rows) {
    if (at.machine != machine) continue;
    double sum = 0;
    for (const Row& r : rows) {
      if (r.machine == machine && r.start <= at.start && at.start < r.end) sum += r.cpu;
    }
    peak = std::max(peak, sum);
  }
  return peak;
}

TEST_F(RuntimeTest, RasMeetsTheGoalWithoutOverCommittingANode) {
  const std::string address = Up(2, {"--policy", "ras", "--param", "period=1"});
  const auto ids = SubmitIds(address, kJob);
  ASSERT_EQ(ids.size(), 1u);
  // From the nodes' side (docs/runtime.md, "Enforcement"): while the job
  // runs, the cpu quotas of each node's task groups, which the kernel
  // enforces, never sum past its one core.
  const bool limits = NodeCpuLimits(cluster_ / "node-0") && NodeCpuLimits(cluster_ / "node-1");
  std::atomic<bool> done = false;
  std::vector<double> most(2, 0.0);  // the largest sum of quotas seen per node
  std::vector<size_t> seen(2, 0);    // task groups with a quota seen per node
  std::thread sampler([&] {
    while (!done) {
      for (int n = 0; n < 2; ++n) {
        const std::vector<double> quotas = TaskQuotas(cluster_ / fmt::format("node-{}", n));
        double sum = 0;
        for (double q : quotas) sum += q;
        most[n] = std::max(most[n], sum);
        seen[n] += quotas.size();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  const Result r = Wait(address, ids[0], 60);
  done = true;
  sampler.join();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (int n = 0; n < 2; ++n) {
    const std::string log = Slurp(cluster_ / fmt::format("node-{}", n) / "node.log");
    EXPECT_THAT(log, testing::Not(testing::HasSubstr("refused by the node"))) << "node " << n;
    if (!limits) continue;  // no cgroup cpu controller: admission only
    EXPECT_GT(seen[n], 0u) << "node " << n << " ran no task under a cpu quota";
    EXPECT_LE(most[n], 1.0 + 1e-9) << "node " << n << " let its tasks' quotas pass its core";
  }
  EXPECT_THAT(Slurp(cluster_ / "scheduler" / "scheduler.log"), testing::Not(testing::HasSubstr("refused by the node")));
  const std::vector<Row> rows = Parse(TaskRows(address));
  ASSERT_EQ(rows.size(), 9u);
  double first = 1e300, last = 0;
  std::map<std::string, int> machines;
  for (const Row& row : rows) {
    EXPECT_EQ(row.outcome, "ok");
    first = std::min(first, row.start);
    last = std::max(last, row.end);
    ++machines[row.machine];
  }
  EXPECT_LE(last - first, 30.0) << "the goal was missed";
  // Slow start for real: the reducer reached its node (its shuffle's start)
  // before the last map ended.
  double reduce_start = 1e300, last_map_end = 0;
  for (const Row& row : rows) {
    if (row.stage == "reduce") reduce_start = std::min(reduce_start, row.start);
    if (row.stage == "map") last_map_end = std::max(last_map_end, row.end);
  }
  EXPECT_LT(reduce_start, last_map_end) << "the reducer waited for every map";
  for (const auto& [machine, n] : machines) EXPECT_LE(PeakCpu(rows, machine), 1.0 + 1e-9) << machine;
}

TEST_F(RuntimeTest, FairSlotsRunsTwoMapsPerNodeWhateverTheyDemand) {
  // Maps of a whole core each: two slots per node overbook its one core.
  const std::string job = Workload(R"({"name": "mr", "stages": [
      {"name": "map", "tasks": 4, "duration": 1, "demand": {"cpu": 1, "mem": 0.2}},
      {"name": "reduce", "tasks": 1, "duration": 0.2, "demand": {"cpu": 1, "mem": 0.2}, "after": ["map"]}]})");
  const std::string address = Up(2, {"--policy", "fair-slots", "--param", "map_slots=2"});
  const auto ids = SubmitIds(address, job);
  ASSERT_EQ(ids.size(), 1u);
  const Result r = Wait(address, ids[0], 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::vector<Row> rows = Parse(TaskRows(address));
  ASSERT_EQ(rows.size(), 5u);
  double peak = 0;
  for (const Row& row : rows) peak = std::max(peak, PeakCpu(rows, row.machine));
  EXPECT_GE(peak, 2.0 - 1e-9);  // two 1-core maps at once on a 1-core node
}

}  // namespace
}  // namespace weft
