// What the operator's live page reads (runtime/scheduler/operator_view.h):
// the JSON of /api/jobs and /api/nodes from hand-written status replies and
// exports, and the job-time histograms of /metrics.
#include "runtime/scheduler/operator_view.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace weft::runtime {
namespace {

using ::testing::HasSubstr;

// An export of three jobs: `etl` (alice; extract 2 tasks, load 1), `train`
// (bob; one stage of 4) and `old` (alice; ended: arrived at 1 s, started at
// 3 s, ended at 11 s). Two of etl's extract tasks ended ok, one attempt failed.
v1::ExportChunk ThreeJobs() {
  v1::ExportChunk c;
  c.set_epoch_unix_us(1'000'000);
  c.set_workload_json(R"({"cluster":{},"jobs":[
    {"name":"etl","user":"alice","stages":[{"name":"extract","tasks":2},{"name":"load","tasks":1}]},
    {"name":"train","user":"bob","stages":[{"name":"fit","tasks":4}]},
    {"name":"old","user":"alice","stages":[{"name":"s","tasks":1}]}],"weft":1})");
  for (const char* outcome : {"ok", "failed", "ok"}) {
    v1::AttemptRow* a = c.add_attempts();
    a->set_job(0);
    a->set_stage(0);
    a->set_outcome(outcome);
  }
  v1::JobRow* ended = c.add_jobs();
  ended->set_job(2);
  ended->set_state("succeeded");
  ended->set_arrival_us(1'000'000);
  ended->set_start_us(3'000'000);
  ended->set_end_us(11'000'000);
  v1::JobRow* active = c.add_jobs();  // an active job's row has no end: not counted
  active->set_job(0);
  active->set_state("running");
  active->set_arrival_us(0);
  return c;
}

v1::StatusReply Status() {
  v1::StatusReply r;
  r.set_policy("fifo");
  r.set_nodes_up(1);
  r.set_nodes_expected(2);
  v1::JobStatus* etl = r.add_jobs();
  etl->set_id(0);
  etl->set_name("etl");
  etl->set_state("running");
  etl->set_tasks(3);
  etl->set_done(2);
  etl->set_running(1);
  etl->set_submitted_s(10);
  v1::TaskFailure* f = etl->mutable_last_failure();
  f->set_stage(0);
  f->set_attempt(0);
  f->set_node("node-1");
  f->set_exit_code(137);
  f->set_signal(9);
  f->set_stderr_tail("line one\nkilled here\n");
  v1::JobStatus* train = r.add_jobs();
  train->set_id(1);
  train->set_name("train");
  train->set_state("waiting");
  train->set_tasks(4);
  train->set_submitted_s(40);
  v1::JobStatus* old = r.add_jobs();
  old->set_id(2);
  old->set_name("old");
  old->set_state("succeeded");
  old->set_tasks(1);
  old->set_done(1);
  return r;
}

TEST(OperatorViewTest, ExportFactsGiveUsersStagesAndEndedJobTimes) {
  const ExportFacts facts = ExportFactsOf(ThreeJobs());
  ASSERT_EQ(facts.jobs.size(), 3u);
  EXPECT_EQ(facts.jobs.at(1).user, "bob");
  ASSERT_EQ(facts.jobs.at(0).stages.size(), 2u);
  EXPECT_EQ(facts.jobs.at(0).stages[0].done, 2u);  // the failed attempt is not a task done
  EXPECT_EQ(CurrentStage(facts.jobs.at(0)), "load");
  EXPECT_EQ(CurrentStage(facts.jobs.at(1)), "fit");
  EXPECT_EQ(facts.queue_wait_s, std::vector<double>{2});
  EXPECT_EQ(facts.completion_s, std::vector<double>{10});
}

TEST(OperatorViewTest, ExportFactsOfManyJobsCountEachJobsAttempts) {
  // Enough jobs that a map of them grows many times while being filled.
  v1::ExportChunk c;
  std::string jobs;
  for (uint32_t j = 0; j < 1000; ++j) {
    jobs += (j ? "," : "") + std::string(R"({"name":"j","stages":[{"name":"s","tasks":2}]})");
    for (uint32_t k = 0; k <= j % 2; ++k) {
      v1::AttemptRow* a = c.add_attempts();
      a->set_job(j);
      a->set_outcome("ok");
    }
  }
  c.set_workload_json(R"({"jobs":[)" + jobs + "]}");
  const ExportFacts facts = ExportFactsOf(c);
  ASSERT_EQ(facts.jobs.size(), 1000u);
  for (uint32_t j = 0; j < 1000; ++j) ASSERT_EQ(facts.jobs.at(j).stages[0].done, j % 2 + 1) << "job " << j;
}

TEST(OperatorViewTest, ReplicasNumberJobsByGlobalId) {
  v1::ExportChunk c = ThreeJobs();
  c.set_replicas(2);
  c.set_replica(1);
  const ExportFacts facts = ExportFactsOf(c);
  EXPECT_EQ(facts.jobs.at(3).user, "bob");  // local 1 of replica 1 of 2
  EXPECT_EQ(facts.jobs.at(1).stages.size(), 2u);  // local 0: etl
  EXPECT_FALSE(facts.jobs.contains(0));
  EXPECT_FALSE(facts.jobs.contains(2));
}

TEST(OperatorViewTest, JobsJsonListsRunningAndQueuedWithProgressAgeStageAndShares) {
  const nlohmann::json j = nlohmann::json::parse(OperatorJobsJson(Status(), ExportFactsOf(ThreeJobs()), 50, ShareHistory{}));
  EXPECT_EQ(j["policy"], "fifo");
  ASSERT_EQ(j["jobs"].size(), 2u);  // the ended job is not listed
  EXPECT_EQ(j["jobs_running"], 1);
  EXPECT_EQ(j["jobs_queued"], 1);
  EXPECT_EQ(j["jobs"][0]["name"], "etl");
  EXPECT_EQ(j["jobs"][0]["user"], "alice");
  EXPECT_EQ(j["jobs"][0]["state"], "running");
  EXPECT_EQ(j["jobs"][0]["done"], 2);
  EXPECT_EQ(j["jobs"][0]["tasks"], 3);
  EXPECT_DOUBLE_EQ(j["jobs"][0]["age_s"].get<double>(), 40);
  EXPECT_EQ(j["jobs"][0]["stage"], "load");
  EXPECT_EQ(j["jobs"][1]["name"], "train");
  EXPECT_EQ(j["jobs"][1]["state"], "waiting");
  EXPECT_DOUBLE_EQ(j["jobs"][1]["age_s"].get<double>(), 10);
  // Shares now: bob waits, alice holds the one running task.
  ASSERT_EQ(j["shares"].size(), 2u);
  EXPECT_EQ(j["shares"][0]["user"], "alice");
  EXPECT_DOUBLE_EQ(j["shares"][0]["share"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["shares"][1]["share"].get<double>(), 0.0);
  EXPECT_EQ(j["shares"][1]["jobs"], 1);
  ASSERT_EQ(j["failures"].size(), 1u);
  EXPECT_EQ(j["failures"][0]["name"], "etl");
  EXPECT_EQ(j["failures"][0]["stage"], "extract");
  EXPECT_EQ(j["failures"][0]["signal"], 9);
  EXPECT_EQ(j["failures"][0]["exit_code"], 137);
  EXPECT_EQ(j["failures"][0]["node"], "node-1");
  EXPECT_THAT(j["failures"][0]["stderr_tail"].get<std::string>(), HasSubstr("killed here"));
}

TEST(OperatorViewTest, JobsJsonListsRunningJobsFirstUpToItsLimitAndCountsAll) {
  v1::StatusReply r;
  for (uint32_t id = 0; id < kMaxJobs + 50; ++id) {
    v1::JobStatus* j = r.add_jobs();
    j->set_id(id);
    j->set_state(id % 50 == 49 ? "running" : "waiting");  // 3 running, the last one at the end
  }
  const nlohmann::json j = nlohmann::json::parse(OperatorJobsJson(r, ExportFacts{}, 0, ShareHistory{}));
  EXPECT_EQ(j["jobs_running"], 3);
  EXPECT_EQ(j["jobs_queued"], kMaxJobs + 47);
  ASSERT_EQ(j["jobs"].size(), kMaxJobs);
  EXPECT_EQ(j["jobs"][0]["id"], 49);
  EXPECT_EQ(j["jobs"][2]["id"], kMaxJobs + 49);
  EXPECT_EQ(j["jobs"][3]["id"], 0);  // then the oldest queued
  EXPECT_EQ(j["jobs"][3]["state"], "waiting");
}

TEST(OperatorViewTest, JobsJsonWithoutExportStillListsJobs) {
  // An export that failed or a job it does not know yet: no user, no stage.
  const nlohmann::json j = nlohmann::json::parse(OperatorJobsJson(Status(), ExportFacts{}, 50, ShareHistory{}));
  ASSERT_EQ(j["jobs"].size(), 2u);
  EXPECT_EQ(j["jobs"][0]["user"], "");
  EXPECT_EQ(j["jobs"][0]["stage"], "");
  EXPECT_EQ(j["failures"][0]["stage"], "stage 0");
}

TEST(OperatorViewTest, StderrThatIsNotUtf8DoesNotBreakTheJson) {
  v1::StatusReply r = Status();
  r.mutable_jobs(0)->mutable_last_failure()->set_stderr_tail("bad \xff\xfe bytes");
  const nlohmann::json j = nlohmann::json::parse(OperatorJobsJson(r, ExportFacts{}, 0, ShareHistory{}));
  EXPECT_THAT(j["failures"][0]["stderr_tail"].get<std::string>(), HasSubstr("bytes"));
}

TEST(OperatorViewTest, NodesJsonHasUpCapacityReservedAndUsed) {
  v1::StatusReply r;
  r.set_nodes_up(1);
  r.set_nodes_expected(2);
  v1::NodeStatus* a = r.add_nodes();
  a->set_name("node-0");
  a->set_up(true);
  a->mutable_capacity()->set_cpu(8);
  a->mutable_reserved()->set_cpu(6);
  a->mutable_used()->set_cpu(2.5);
  r.add_nodes()->set_name("node-1");
  const nlohmann::json j = nlohmann::json::parse(OperatorNodesJson(r));
  ASSERT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][0]["up"], true);
  EXPECT_DOUBLE_EQ(j["nodes"][0]["capacity"]["cpu"].get<double>(), 8);
  EXPECT_DOUBLE_EQ(j["nodes"][0]["reserved"]["cpu"].get<double>(), 6);
  EXPECT_DOUBLE_EQ(j["nodes"][0]["used"]["cpu"].get<double>(), 2.5);
  EXPECT_EQ(j["nodes"][1]["up"], false);
}

TEST(OperatorViewTest, HistogramsAreCumulativePrometheusBuckets) {
  ExportFacts facts;
  facts.queue_wait_s = {0.05, 3, 40};
  facts.completion_s = {7};
  const std::string text = JobTimeHistograms(facts);
  EXPECT_THAT(text, HasSubstr("# TYPE weft_job_queue_wait_seconds histogram\n"));
  EXPECT_THAT(text, HasSubstr("weft_job_queue_wait_seconds_bucket{le=\"0.1\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("weft_job_queue_wait_seconds_bucket{le=\"5\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("weft_job_queue_wait_seconds_bucket{le=\"60\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("weft_job_queue_wait_seconds_bucket{le=\"+Inf\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("weft_job_queue_wait_seconds_count 3\n"));
  EXPECT_THAT(text, HasSubstr("weft_job_completion_seconds_bucket{le=\"5\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("weft_job_completion_seconds_bucket{le=\"10\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("weft_job_completion_seconds_sum 7\n"));
}

TEST(OperatorViewTest, UserGaugesCountTheActiveJobsByUser) {
  v1::StatusReply r = Status();
  r.mutable_jobs(1)->set_running(3);
  const std::string text = UserGauges(r, ExportFactsOf(ThreeJobs()));
  EXPECT_THAT(text, HasSubstr("# TYPE weft_user_running_tasks gauge\n"));
  EXPECT_THAT(text, HasSubstr("weft_user_running_tasks{user=\"alice\"} 1\n"));  // the ended job not counted
  EXPECT_THAT(text, HasSubstr("weft_user_running_tasks{user=\"bob\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("weft_user_active_jobs{user=\"alice\"} 1\n"));
  EXPECT_EQ(UserGauges(v1::StatusReply{}, ExportFacts{}), "");
}

TEST(OperatorViewTest, UserGaugesEscapeLabelValues) {
  v1::ExportChunk c = ThreeJobs();
  c.set_workload_json(R"({"jobs":[{"name":"etl","user":"a\"b\\c"}]})");
  v1::StatusReply r = Status();
  r.mutable_jobs()->DeleteSubrange(1, 2);
  EXPECT_THAT(UserGauges(r, ExportFactsOf(c)), HasSubstr(R"(weft_user_running_tasks{user="a\"b\\c"} 1)"));
}

}  // namespace
}  // namespace weft::runtime
