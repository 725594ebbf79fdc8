// File: tests/trace/mapreduce_jobs_test.cc
//
// Fixed MapReduce job lists (trace/mapreduce_jobs.h, `weft gen mapreduce
// --spec`): every count, profile, phase length, goal and arrival of the spec
// comes out as given, on the cluster of the machine fields; a bad spec is
// refused with the path of its first bad field.
#include <string>

#include "gtest/gtest.h"
#include "model/shuffle.h"
#include "trace/mapreduce_jobs.h"
#include "trace/workload_reader.h"

namespace weft {
namespace {

constexpr const char* kSpec = R"({"classes": {
  "sort": {"map": {"demand": {"cpu": 0.6, "mem": 0.5, "disk": 45}},
           "reduce": {"tasks": 3, "slowstart": 0.05,
                      "phases": [{"name": "shuffle", "share": 0.25, "demand": {"disk": 0.75}},
                                 {"name": "reduce", "share": 0.75, "demand": {"cpu": 0.4, "mem": 1.2, "disk": 50},
                                  "usage": {"cpu": 0.2, "mem": 1, "disk": 40}}]}},
  "agg": {"map": {"demand": {"cpu": 1, "mem": 1}, "usage": {"cpu": 0.5, "mem": 1}},
          "reduce": {"tasks": 1, "edge": "barrier", "demand": {"cpu": 1, "mem": 2}}},
  "grep": {"map": {"demand": {"cpu": 1, "mem": 1}}}},
 "jobs": [{"name": "s", "class": "sort", "arrival": 0, "deadline": 3000, "maps": 7, "map_s": 97.222, "reduce_s": 8},
          {"name": "a", "class": "agg", "arrival": 12.5, "maps": 2, "map_s": 3, "reduce_s": 4, "user": "ann"},
          {"name": "g", "class": "grep", "arrival": 40, "maps": 1, "map_s": 2}]})";

MapReduceSpec Machines() { return {.machines = 4, .rack_size = 2, .cores = 2, .mem_gb = 4}; }

Workload Parse(const char* spec) {
  auto doc = MapReduceJobsJson(spec, Machines());
  EXPECT_TRUE(doc.ok()) << doc.status();
  auto w = ParseWorkload(doc->dump());
  EXPECT_TRUE(w.ok()) << w.status();
  return *std::move(w);
}

TEST(MapReduceJobsTest, CountsProfilesGoalsAndArrivalsComeOutAsGiven) {
  const Workload w = Parse(kSpec);
  EXPECT_EQ(w.cluster.size(), 4u);
  EXPECT_EQ(w.cluster.num_racks(), 2u);
  ASSERT_EQ(w.jobs.size(), 3u);

  const Job& s = w.jobs[0];
  EXPECT_EQ(s.name, "s");
  EXPECT_EQ(s.arrival_us, 0);
  EXPECT_EQ(s.deadline_us, 3000 * kUsPerSecond);
  ASSERT_EQ(s.stages.size(), 2u);
  const Stage& map = s.stages[0];
  EXPECT_EQ(map.kind, "map");
  EXPECT_EQ(map.num_tasks, 7u);
  EXPECT_EQ(map.duration_us, 97'222'000);
  EXPECT_DOUBLE_EQ(map.demand.units(kCpu), 0.6);
  EXPECT_DOUBLE_EQ(map.demand.units(kMem), 0.5);
  EXPECT_DOUBLE_EQ(map.demand.units(kDisk), 45);
  const Stage& reduce = s.stages[1];
  EXPECT_EQ(reduce.kind, "reduce");
  EXPECT_EQ(reduce.num_tasks, 3u);
  ASSERT_EQ(reduce.parents.size(), 1u);
  EXPECT_EQ(reduce.parents[0].kind, EdgeKind::kShuffle);
  EXPECT_DOUBLE_EQ(reduce.parents[0].slowstart, 0.05);
  EXPECT_TRUE(ShufflePhaseFirst(reduce));
  ASSERT_EQ(reduce.phases.size(), 2u);
  EXPECT_EQ(reduce.phases[0].name, "shuffle");
  EXPECT_EQ(reduce.phases[0].duration_us, 2 * kUsPerSecond);  // 0.25 x 8 s
  EXPECT_DOUBLE_EQ(reduce.phases[0].demand.units(kDisk), 0.75);
  EXPECT_DOUBLE_EQ(reduce.phases[0].demand.units(kCpu), 0);
  EXPECT_EQ(reduce.phases[1].duration_us, 6 * kUsPerSecond);
  EXPECT_DOUBLE_EQ(reduce.phases[1].demand.units(kMem), 1.2);
  EXPECT_DOUBLE_EQ(reduce.phases[1].usage.units(kCpu), 0.2);

  const Job& a = w.jobs[1];
  EXPECT_EQ(a.arrival_us, 12'500'000);
  EXPECT_FALSE(a.deadline_us.has_value());
  ASSERT_TRUE(a.user.valid());
  EXPECT_EQ(w.users[a.user.value()], "ann");
  EXPECT_DOUBLE_EQ(a.stages[0].usage.units(kCpu), 0.5);
  EXPECT_EQ(a.stages[1].parents[0].kind, EdgeKind::kBarrier);
  EXPECT_TRUE(a.stages[1].phases.empty());
  EXPECT_EQ(a.stages[1].duration_us, 4 * kUsPerSecond);
  EXPECT_DOUBLE_EQ(a.stages[1].demand.units(kMem), 2);

  const Job& g = w.jobs[2];
  ASSERT_EQ(g.stages.size(), 1u);  // map-only
  EXPECT_EQ(g.arrival_us, 40 * kUsPerSecond);
}

TEST(MapReduceJobsTest, ABadSpecIsRefusedNamingItsField) {
  const std::string ok_class = R"("c": {"map": {"demand": {"cpu": 1}}, "reduce": {"tasks": 1, "demand": {"cpu": 1}}})";
  const std::string ok_job = R"({"name": "j", "class": "c", "arrival": 0, "maps": 1, "map_s": 1, "reduce_s": 1})";
  const auto with = [&](const std::string& cls, const std::string& job) {
    return R"({"classes": {)" + cls + R"(}, "jobs": [)" + job + "]}";
  };
  const std::pair<std::string, std::string> cases[] = {
      {"{", "spec: not valid JSON"},
      {R"({"classes": {}, "jobs": [], "x": 1})", "x: unknown field"},
      {R"({"jobs": [)" + ok_job + "]}", "classes: missing"},
      {with(ok_class, R"({"name": "j", "class": "d", "arrival": 0, "maps": 1, "map_s": 1, "reduce_s": 1})"),
       "jobs[0].class: no class \"d\""},
      {with(ok_class, R"({"name": "j", "class": "c", "arrival": 0, "maps": 0, "map_s": 1, "reduce_s": 1})"),
       "jobs[0].maps: must be a whole number >= 1"},
      {with(ok_class, R"({"name": "j", "class": "c", "arrival": -1, "maps": 1, "map_s": 1, "reduce_s": 1})"),
       "jobs[0].arrival: must be a number >= 0"},
      {with(ok_class, R"({"name": "j", "class": "c", "arrival": 0, "maps": 1, "map_s": 1})"),
       "jobs[0].reduce_s: missing"},
      {with(ok_class, ok_job + "," + ok_job), "jobs[1].name: \"j\" is given twice"},
      {with(R"("c": {"map": {"demand": {"gpu": 1}}})", ok_job),
       "classes.c.map.demand.gpu: not a resource (one of cpu, mem, disk, net)"},
      {with(R"("c": {"map": {"demand": {"cpu": 1}}})", ok_job), "jobs[0].reduce_s: its class has no reduce stage"},
      {with(R"("c": {"map": {"demand": {"cpu": 1}}, "reduce": {"tasks": 1, "slowstart": 1.5, "demand": {}}})",
            ok_job),
       "classes.c.reduce.slowstart: must be a fraction in (0, 1]"},
      {with(R"("c": {"map": {"demand": {"cpu": 1}}, "reduce": {"tasks": 1, "edge": "barrier", "slowstart": 0.5,
            "demand": {}}})",
            ok_job),
       "classes.c.reduce.slowstart: only for a shuffle edge"},
      {with(R"("c": {"map": {"demand": {"cpu": 1}}, "reduce": {"tasks": 1, "phases": [
            {"share": 0.5, "demand": {"cpu": 1}}, {"share": 0.4, "demand": {"cpu": 1}}]}})",
            ok_job),
       "classes.c.reduce.phases: the shares must add up to 1, not 0.9"},
      {with(R"("c": {"map": {"demand": {"cpu": 1}}, "reduce": {"tasks": 1, "demand": {"cpu": 1},
            "phases": [{"share": 1, "demand": {"cpu": 1}}]}})",
            ok_job),
       "classes.c.reduce.demand: give phases or one profile, not both"},
  };
  for (const auto& [spec, message] : cases) {
    const auto doc = MapReduceJobsJson(spec, Machines());
    ASSERT_FALSE(doc.ok()) << spec;
    EXPECT_EQ(doc.status().message(), message) << spec;
  }
}

}  // namespace
}  // namespace weft
