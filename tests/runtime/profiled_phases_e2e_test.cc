// Profiled phases for real (issue 13): a small MapReduce job whose maps and
// reducer have per-phase profiles (map / shuffle / reduce, RAS Table 2) runs
// on a local cluster: each phase runs on its node for its duration at its
// usage (task_runner.h, BuiltinProfile), the reducer is launched at slow
// start before the last map ends, its phases end in order in phases.csv, and
// the node's reservation follows its phases, as in simulation: the shuffle
// profile's disk while it shuffles, the reduce profile's after (seen in the
// scheduler's /metrics, weft_node_allocated).
#include <map>
#include <set>
#include <sstream>

#include "httplib.h"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

// Allocated: weft_node_allocated of `resource` per node, from an exposition.
std::map<std::string, double> Allocated(const std::string& metrics, const std::string& resource) {
  std::map<std::string, double> out;
  std::istringstream lines(metrics);
  const std::string tail = fmt::format("\",resource=\"{}\"}} ", resource);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("weft_node_allocated{node=\"")) continue;
    const size_t end = line.find(tail);
    if (end == std::string::npos) continue;
    const size_t begin = std::string("weft_node_allocated{node=\"").size();
    out[line.substr(begin, end - begin)] = std::stod(line.substr(end + tail.size()));
  }
  return out;
}

TEST_F(RuntimeTest, ProfiledPhasesRunForRealAndTheReservationFollowsThem) {
  cluster_ = dir_ / "cluster";
  const Result up = Run({"cluster", "up", "--nodes", "2", "--dir", cluster_.string(), "--cpu", "1", "--mem", "2"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  // "dashboard: https://HOST:PORT/login?token=T (...)" then the scheduler's address, last.
  const size_t at = up.out.find("dashboard: https://");
  ASSERT_NE(at, std::string::npos) << up.out;
  const size_t host_begin = at + std::string("dashboard: https://").size();
  const size_t slash = up.out.find("/login?token=", host_begin);
  const std::string http = up.out.substr(host_begin, slash - host_begin);
  const size_t token_begin = slash + std::string("/login?token=").size();
  const std::string token = up.out.substr(token_begin, up.out.find(' ', token_begin) - token_begin);
  std::string address = up.out.substr(0, up.out.size() - 1);
  address = address.substr(address.find_last_of('\n') + 1);

  // Three maps of 0.6 s on two 1-core nodes: two at once, then the third.
  // Slow start 0.5: the reducer is launched when two maps are done, beside
  // the third, shuffling (7 MB/s of disk, no cpu) until it ends; then it
  // grows to its reduce profile (1 core, 3 MB/s of disk) for 0.8 s.
  // Jobs only: checked against the live nodes (1000 MB/s of disk each).
  const auto ids = SubmitIds(address, R"({"weft": 1, "jobs": [{"name": "mr", "stages": [
      {"name": "map", "kind": "map", "tasks": 3,
       "phases": [{"name": "map", "duration": 0.6, "demand": {"cpu": 1, "mem": 0.05, "disk": 2}}]},
      {"name": "reduce", "kind": "reduce", "tasks": 1,
       "after": [{"stage": "map", "kind": "shuffle", "slowstart": 0.5}],
       "phases": [{"name": "shuffle", "duration": 0.3, "demand": {"mem": 0.02, "disk": 7}},
                  {"name": "reduce", "duration": 0.8, "demand": {"cpu": 1, "mem": 0.05, "disk": 3}}]}]}]})");
  ASSERT_EQ(ids, std::vector<std::string>{"0"});

  // Every 10 ms, the disk each node has reserved, until the job is done.
  httplib::SSLClient client(http.substr(0, http.rfind(':')), std::stoi(http.substr(http.rfind(':') + 1)));
  client.set_ca_cert_path((cluster_ / "tls" / "cluster.pem").c_str());  // the cluster's own certificate, pinned
  client.enable_server_certificate_verification(true);
  client.set_bearer_token_auth(token);
  std::map<std::string, std::vector<double>> disk;  // node -> the values it took, in order
  bool done = false;
  for (int i = 0; i < 3000 && !done; ++i) {
    const httplib::Result r = client.Get("/metrics");
    ASSERT_TRUE(r) << "GET /metrics on " << http;
    ASSERT_EQ(r->status, 200) << r->body;
    for (const auto& [node, v] : Allocated(r->body, "disk")) {
      if (disk[node].empty() || disk[node].back() != v) disk[node].push_back(v);
    }
    done = r->body.find("weft_jobs{state=\"done\"} 1") != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(done);
  ASSERT_EQ(Wait(address, "0", 30).exit_code, 0);
  // Some node held the shuffle's 7 alone, and later the reduce's 3 alone.
  bool followed = false;
  for (const auto& [node, values] : disk) {
    const auto shuffle = std::find(values.begin(), values.end(), 7.0);
    followed = followed || (shuffle != values.end() && std::find(shuffle, values.end(), 3.0) != values.end());
  }
  std::string seen;
  for (const auto& [node, values] : disk) seen += fmt::format("{}: {}\n", node, fmt::join(values, " "));
  EXPECT_TRUE(followed) << "disk reserved per node over time:\n" << seen;

  const fs::path out = dir_ / "results";
  ASSERT_EQ(Run({"status", "--scheduler", address, "--out", out.string()}).exit_code, 0);
  // tasks.csv: job,stage,task,attempt,machine,ready,start,end,...
  double last_map_end = 0, reduce_start = -1;
  for (const auto& row : CsvRows(Slurp(out / "tasks.csv"))) {
    if (row.size() < 8 || row[0] != "mr") continue;
    if (row[1] == "map") last_map_end = std::max(last_map_end, std::stod(row[7]));
    if (row[1] == "reduce") reduce_start = std::stod(row[6]);
  }
  EXPECT_GE(reduce_start, 0);
  EXPECT_LT(reduce_start, last_map_end) << "the reducer was not launched before the last map ended\n"
                                        << Slurp(out / "tasks.csv");
  // phases.csv: job,stage,task,attempt,phase,resource,machine,start,end,held,completed
  std::vector<std::vector<std::string>> reduce;
  int maps = 0;
  for (const auto& row : CsvRows(Slurp(out / "phases.csv"))) {
    if (row.size() != 11 || row[0] != "mr") continue;
    EXPECT_EQ(row[10], "1") << fmt::format("{}", fmt::join(row, ","));
    if (row[1] == "map") ++maps;
    if (row[1] == "reduce") reduce.push_back(row);
  }
  EXPECT_EQ(maps, 3);
  ASSERT_EQ(reduce.size(), 2u) << Slurp(out / "phases.csv");
  EXPECT_EQ(reduce[0][4], "0");
  EXPECT_EQ(reduce[0][5], "profiled:shuffle");
  EXPECT_EQ(reduce[1][4], "1");
  EXPECT_EQ(reduce[1][5], "profiled:reduce");
  EXPECT_LE(std::stod(reduce[0][8]), std::stod(reduce[1][7]));
  // The shuffle phase ends with the last map, not before.
  EXPECT_GE(std::stod(reduce[0][8]) + 0.05, last_map_end);
  // The reduce phase ran for real: its duration at least (scheduler's clock).
  EXPECT_GE(std::stod(reduce[1][8]) - std::stod(reduce[1][7]), 0.75);
}

// A command task with profiled phases runs its command once per phase,
// told which one (docs/runtime.md, "Phases").
TEST_F(RuntimeTest, ACommandWithProfiledPhasesRunsOncePerPhaseToldWhichOne) {
  const std::string address = Up(1);
  const fs::path log = WorkDir() / "phases.log";
  const auto ids = SubmitIds(address, fmt::format(R"({{"weft": 1, "jobs": [{{"name": "c", "stages": [
      {{"name": "s", "tasks": 1, "command": "echo $WEFT_PHASE $WEFT_PHASE_NAME $WEFT_PHASE_RESOURCE >> {}",
       "phases": [{{"name": "fetch", "duration": 0.1, "demand": {{"cpu": 0.5, "mem": 0.05}}}},
                  {{"name": "crunch", "duration": 0.1, "demand": {{"cpu": 1, "mem": 0.05}}}}]}}]}}]}})",
                                                  log.string()));
  ASSERT_EQ(ids, std::vector<std::string>{"0"});
  ASSERT_EQ(Wait(address, "0", 30).exit_code, 0);
  EXPECT_EQ(Slurp(log), "0 fetch profiled\n1 crunch profiled\n");
}

}  // namespace
}  // namespace weft
