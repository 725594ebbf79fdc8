// Ursa for real (issue 15): two phased jobs on one node under `ursa`, whose
// node agent keeps one queue per resource and starts each monotask itself.
// Job "netfirst" reads over the network, then computes; job "cpufirst"
// computes, then writes over the network: with per-resource queues one job's
// cpu monotasks run while the other's network monotasks do, on one node.
// Each command phase logs its job, resource and begin/end times.
#include <map>
#include <sstream>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

struct Interval {
  std::string job, resource;
  double begin = 0, end = 0;
};

TEST_F(RuntimeTest, UrsaOverlapsOneJobsCpuMonotasksWithTheOthersNetworkOnOneNode) {
  const fs::path state = dir_ / "state";
  SpawnWeftd({"scheduler", "--listen", "127.0.0.1:0", "--state", state.string(), "--nodes", "1", "--policy", "ursa",
              "--heartbeat", "0.1"},
             dir_ / "s.out");
  ASSERT_TRUE(Until([&] { return fs::exists(state / "address"); }));
  std::string address = Slurp(state / "address");
  address.pop_back();
  SpawnWeftd({"node", "--scheduler", address, "--name", "n0", "--cpu", "2", "--mem", "4", "--work-dir",
              (dir_ / "n0").string()},
             dir_ / "n0.out");
  ASSERT_TRUE(Until([&] { return Run({"status", "--scheduler", address}).out.find("nodes 1/1 up") != std::string::npos; }));

  const fs::path log = WorkDir() / "monotasks.log";
  // A phase's command: log its begin and end with the wall clock (seconds).
  const std::string command = fmt::format(
      "echo $WEFT_JOB $WEFT_PHASE_RESOURCE begin $(date +%s.%N) >> {0}; sleep 0.4; "
      "echo $WEFT_JOB $WEFT_PHASE_RESOURCE end $(date +%s.%N) >> {0}",
      log.string());
  const std::string job = R"({{"name": "{0}", "stages": [{{"name": "s", "tasks": 2,
      "demand": {{"cpu": 1, "mem": 0.5, "net": 10}}, "phases": [{1}, {2}], "command": "{3}"}}]}})";
  const std::string net = R"({"resource": "net", "work": 4})", cpu = R"({"resource": "cpu", "work": 0.4})";
  const auto ids = SubmitIds(address, fmt::format(R"({{"weft": 1, "jobs": [{}, {}]}})",
                                                  fmt::format(fmt::runtime(job), "netfirst", net, cpu, command),
                                                  fmt::format(fmt::runtime(job), "cpufirst", cpu, net, command)));
  ASSERT_EQ(ids.size(), 2u);
  for (const std::string& id : ids) {
    const Result r = Wait(address, id, 60);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err << Slurp(dir_ / "n0.out");
  }

  // Pair each begin with its end, per job and resource, in order.
  std::map<std::string, std::vector<Interval>> open;
  std::vector<Interval> done;
  std::istringstream lines(Slurp(log));
  for (std::string job_name, resource, what; lines >> job_name >> resource >> what;) {
    double t = 0;
    lines >> t;
    auto& pending = open[job_name + " " + resource];
    if (what == "begin") {
      pending.push_back({job_name, resource, t, 0});
    } else {
      ASSERT_FALSE(pending.empty()) << "an end without a begin: " << job_name << " " << resource;
      Interval i = pending.front();
      pending.erase(pending.begin());
      i.end = t;
      done.push_back(i);
    }
  }
  ASSERT_EQ(done.size(), 8u) << Slurp(log);  // 2 jobs x 2 tasks x 2 monotasks
  // Some cpu monotask of one job overlaps some network monotask of the other.
  bool overlap = false;
  for (const Interval& a : done) {
    for (const Interval& b : done) {
      if (a.job != b.job && a.resource == "cpu" && b.resource == "net" && a.begin < b.end && b.begin < a.end) {
        overlap = true;
      }
    }
  }
  EXPECT_TRUE(overlap) << Slurp(log);
}

}  // namespace
}  // namespace weft
