// The per-user shares over time of the operator's live page
// (runtime/scheduler/share_history.h): samples, their bound, the users kept
// by name, and what /api/jobs carries of them.
#include "runtime/scheduler/share_history.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/scheduler/operator_view.h"

namespace weft::runtime {
namespace {

TEST(ShareHistoryTest, KeepsEachUsersRunningTasksPerSampleBiggestFirst) {
  ShareHistory h;
  h.Add(10, {{"ann", 2}});
  h.Add(12, {{"ann", 1}, {"bob", 4}});
  h.Add(12.5, {{"cat", 9}});  // under a second after the last: not a sample
  h.Add(14, {{"bob", 3}, {"idle", 0}});
  const nlohmann::json j = h.Json();
  EXPECT_EQ(j["t"], nlohmann::json({10, 12, 14}));
  EXPECT_EQ(j["users"], nlohmann::json({"bob", "ann"}));  // 7 tasks summed before 3; no running task: not listed
  EXPECT_EQ(j["running"], nlohmann::json({{0, 4, 3}, {2, 1, 0}}));
}

TEST(ShareHistoryTest, SumsUsersBeyondTheBiggestAsOthers) {
  ShareHistory h;
  std::map<std::string, uint64_t> running;
  for (uint64_t u = 0; u < ShareHistory::kMaxUsers + 2; ++u) running["u" + std::to_string(u)] = u + 1;
  h.Add(1, running);
  const nlohmann::json j = h.Json();
  ASSERT_EQ(j["users"].size(), ShareHistory::kMaxUsers + 1);
  EXPECT_EQ(j["users"][0], "u7");
  EXPECT_EQ(j["users"].back(), "others");
  EXPECT_EQ(j["running"].back(), nlohmann::json({1 + 2}));  // u0 and u1
}

TEST(ShareHistoryTest, StaysBoundedAndStillStartsAtTheFirstSample) {
  ShareHistory h;
  for (int i = 0; i < 1000; ++i) h.Add(i, {{"ann", 1}});
  EXPECT_LE(h.size(), ShareHistory::kMaxSamples);
  EXPECT_GE(h.size(), ShareHistory::kMaxSamples / 2);
  const nlohmann::json j = h.Json();
  EXPECT_EQ(j["t"].front(), 0);
  EXPECT_EQ(j["t"].back(), 999);
}

TEST(ShareHistoryTest, JobsJsonCarriesTheHistoryOfRunningTasksByUser) {
  v1::ExportChunk c;
  c.set_workload_json(R"({"jobs":[{"name":"a","user":"ann"},{"name":"b","user":"bob"}]})");
  const ExportFacts facts = ExportFactsOf(c);
  v1::StatusReply r;
  for (uint32_t id : {0u, 1u}) {
    v1::JobStatus* job = r.add_jobs();
    job->set_id(id);
    job->set_state("running");
    job->set_running(id + 1);
  }
  ShareHistory h;
  h.Add(5, RunningByUser(r, facts));
  const nlohmann::json j = nlohmann::json::parse(OperatorJobsJson(r, facts, 5, h));
  EXPECT_EQ(j["share_history"]["users"], nlohmann::json({"bob", "ann"}));
  EXPECT_EQ(j["share_history"]["running"], nlohmann::json({{2}, {1}}));
}

}  // namespace
}  // namespace weft::runtime
