// Tests for runtime/scheduler/job_intake.h: a submission is parsed and read
// once; its typed jobs are the jobs its journaled texts read back as after a
// restart; it is refused against the live nodes with the reader's messages;
// and the export's workload is the same bytes whether spliced from the kept
// export forms or made, as before, by parsing every job's journaled text.
#include "runtime/scheduler/job_intake.h"

#include <string>
#include <tuple>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/scheduler/job_table.h"
#include "runtime/scheduler/results_export.h"
#include "trace/workload_reader.h"

namespace weft::runtime {
namespace {

Cluster Live() {
  Cluster live;
  live.AddMachine("n0", RackId(0), *Resources::FromUnits({2, 4, 100, 100}));
  live.AddMachine("n1", RackId(1), *Resources::FromUnits({4, 2, 100, 100}));
  return live;
}

// A submission with its own cluster (a machine "big" no node matches, and
// "n1", which is a node) and jobs that use every field the live cluster
// bears on: locality, phases timed on the cluster, per-task demands,
// shuffles, and commands, arrivals and users the journal must keep.
constexpr const char* kWorkload = R"({"weft": 1,
  "cluster": {"machines": [{"name": "big", "capacity": {"cpu": 8, "mem": 8, "net": 10, "disk": 10}},
                           {"name": "n1", "capacity": {"cpu": 4, "mem": 2, "net": 10, "disk": 10}}]},
  "jobs": [
    {"name": "etl", "arrival": 2.5, "user": "ann", "priority": 3, "deadline": 60, "memory_estimate": 1.5,
     "stages": [
       {"name": "map", "tasks": 3, "duration": 1, "demand": {"cpu": 1, "mem": 1},
        "locality": [["big", "n1"], ["big"], ["n1", "n1"]], "command": "echo {job} {stage} {task}",
        "input_mb": 64},
       {"name": "red", "tasks": 2, "demands": [{"cpu": 1, "mem": 0.5}, {"cpu": 2, "mem": 1}],
        "usages": [{"cpu": 0.5}, {"cpu": 1}], "duration": 2,
        "after": [{"stage": "map", "kind": "shuffle", "slowstart": 0.5, "shuffle_mb": 8}]}]},
    {"name": "mono", "user": "bob", "stages": [
       {"name": "s", "tasks": 1, "demand": {"cpu": 1, "mem": 1},
        "phases": [{"resource": "cpu", "work": 8}, {"resource": "disk", "work": 50}]}]},
    {"name": "prof", "stages": [
       {"name": "p", "tasks": 2, "phases": [{"name": "a", "duration": 1, "demand": {"cpu": 1, "mem": 1}},
                                            {"name": "b", "duration": 2, "demand": {"cpu": 2, "mem": 1},
                                             "usage": {"cpu": 1}}]}]}]})";

void ExpectSameJob(const Job& a, const Job& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.arrival_us, b.arrival_us);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.weight, b.weight);
  EXPECT_EQ(a.deadline_us, b.deadline_us);
  EXPECT_EQ(a.memory_estimate_gb, b.memory_estimate_gb);
  EXPECT_EQ(a.num_tasks, b.num_tasks);
  EXPECT_EQ(a.topo_order, b.topo_order);
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (size_t i = 0; i < a.stages.size(); ++i) {
    SCOPED_TRACE(fmt::format("job {} stage {}", a.name, i));
    const Stage& x = a.stages[i];
    const Stage& y = b.stages[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.num_tasks, y.num_tasks);
    EXPECT_EQ(x.duration_us, y.duration_us);
    EXPECT_EQ(x.duration_from_phases, y.duration_from_phases);
    EXPECT_EQ(x.durations_us, y.durations_us);
    EXPECT_EQ(x.demand, y.demand);
    EXPECT_EQ(x.usage, y.usage);
    EXPECT_EQ(x.demands, y.demands);
    EXPECT_EQ(x.usages, y.usages);
    EXPECT_EQ(x.input_mb, y.input_mb);
    EXPECT_EQ(x.input_mbs, y.input_mbs);
    EXPECT_EQ(x.locality, y.locality);
    EXPECT_EQ(x.command, y.command);
    ASSERT_EQ(x.phases.size(), y.phases.size());
    for (size_t p = 0; p < x.phases.size(); ++p) {
      EXPECT_EQ(x.phases[p].resource, y.phases[p].resource);
      EXPECT_EQ(x.phases[p].work, y.phases[p].work);
      EXPECT_EQ(x.phases[p].profiled, y.phases[p].profiled);
      EXPECT_EQ(x.phases[p].duration_us, y.phases[p].duration_us);
      EXPECT_EQ(x.phases[p].demand, y.phases[p].demand);
      EXPECT_EQ(x.phases[p].usage, y.phases[p].usage);
      EXPECT_EQ(x.phases[p].name, y.phases[p].name);
    }
    auto same_edges = [](const std::vector<Edge>& e, const std::vector<Edge>& f) {
      ASSERT_EQ(e.size(), f.size());
      for (size_t k = 0; k < e.size(); ++k) {
        EXPECT_EQ(e[k].stage, f[k].stage);
        EXPECT_EQ(e[k].kind, f[k].kind);
        EXPECT_EQ(e[k].slowstart, f[k].slowstart);
        EXPECT_EQ(e[k].shuffle_mb, f[k].shuffle_mb);
      }
    };
    same_edges(x.parents, y.parents);
    same_edges(x.children, y.children);
  }
}

TEST(JobIntakeTest, ASubmissionIsParsedOnceAndEachJobReadOnce) {
  const ReaderCounts before = ReaderCountsSoFar();
  auto jobs = ParseSubmission(kWorkload, Live());
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  const ReaderCounts after = ReaderCountsSoFar();
  ASSERT_EQ(jobs->size(), 3u);
  // Until session 10 the text was parsed four times (nlohmann, the whole
  // workload, its jobs against the nodes, each job again) and each job read
  // three times.
  EXPECT_EQ(after.texts - before.texts, 1u);
  EXPECT_EQ(after.jobs - before.jobs, 3u);
}

TEST(JobIntakeTest, TypedJobsAreWhatTheirJournaledTextsReadBackAs) {
  const Cluster live = Live();
  auto jobs = ParseSubmission(kWorkload, live);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  for (const SubmittedJob& job : *jobs) {
    SCOPED_TRACE(job.journal_json);
    auto back = BuildJob(nlohmann::json::parse(job.journal_json), live);  // what a restart reads
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectSameJob(job.live.job, back->job);
    EXPECT_EQ(job.live.user, back->user);
  }
  const Job& etl = (*jobs)[0].live.job;
  EXPECT_EQ((*jobs)[0].live.user, "ann");
  EXPECT_EQ(etl.arrival_us, 2'500'000);  // the offset: the core adds the submission's time
  EXPECT_EQ(etl.stages[0].command, "echo {job} {stage} {task}");
  // "big" is no node: dropped; "n1" is the live cluster's machine 1.
  const std::vector<std::vector<MachineId>> locality = {{MachineId(1)}, {}, {MachineId(1), MachineId(1)}};
  EXPECT_EQ(etl.stages[0].locality, locality);
  // Phases are timed on the live nodes (4 cores at most, not "big"'s 8).
  const Stage& mono = (*jobs)[1].live.job.stages[0];
  EXPECT_TRUE(mono.duration_from_phases);
  EXPECT_EQ(mono.duration_us, PhasesNominalUs(mono.phases, live));
  EXPECT_EQ((*jobs)[1].live.user, "bob");
  // The journal keeps the commands and the arrival; the export form neither.
  EXPECT_THAT((*jobs)[0].journal_json, ::testing::HasSubstr("\"command\""));
  EXPECT_THAT((*jobs)[0].journal_json, ::testing::HasSubstr("\"arrival\":2.5"));
  EXPECT_THAT((*jobs)[0].export_json, ::testing::Not(::testing::HasSubstr("command")));
  EXPECT_THAT((*jobs)[0].export_json, ::testing::StartsWith("{\"arrival\":0,"));
}

// What the runtime did until session 10: each job's object, re-targeted,
// read again against a cluster made of the live nodes. The typed path must
// refuse the same jobs with the same message.
absl::Status ReadAgainstLive(const std::string& job, const Cluster& live) {
  nlohmann::json j = nlohmann::json::parse(job);
  const nlohmann::json doc = {{"weft", 1}, {"cluster", ClusterJson(live)}, {"jobs", nlohmann::json::array({j})}};
  return ParseWorkload(doc.dump()).status();
}

TEST(JobIntakeTest, AJobNoNodeHoldsIsRefusedWithTheReadersMessage) {
  const Cluster live = Live();  // n0: 2 cpu 4 mem; n1: 4 cpu 2 mem
  const std::vector<std::string> jobs = {
      R"({"name": "a", "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 4, "mem": 4}}]})",
      R"({"name": "b", "stages": [{"name": "s", "tasks": 2, "duration": 1,
          "demands": [{"cpu": 1, "mem": 1}, {"cpu": 8, "mem": 1}]}]})",
      R"({"name": "c", "stages": [{"name": "s", "tasks": 2, "duration": 1,
          "demands": [{"cpu": 4, "mem": 1}, {"cpu": 1, "mem": 4}]}]})",
      R"({"name": "d", "stages": [{"name": "s", "tasks": 2, "duration": 1, "demand": {"cpu": 4, "mem": 4},
          "demands": [{"cpu": 4, "mem": 1}, {"cpu": 1, "mem": 4}]}]})",
      R"({"name": "e", "stages": [{"name": "s", "tasks": 1,
          "phases": [{"duration": 1, "demand": {"cpu": 1, "mem": 1}}, {"duration": 1, "demand": {"cpu": 3, "mem": 3}}]}]})",
      R"({"name": "f", "stages": [{"name": "m", "tasks": 1, "duration": 1, "demand": {"cpu": 1, "mem": 1}},
          {"name": "r", "tasks": 1, "duration": 1, "demand": {"cpu": 1, "mem": 1},
           "after": [{"stage": "m", "kind": "shuffle", "shuffle_mb": 1}]}]})",
  };
  Cluster no_net;
  no_net.AddMachine("n0", RackId(0), *Resources::FromUnits({8, 8, 0, 0}));
  for (const std::string& job : jobs) {
    SCOPED_TRACE(job);
    const Cluster& nodes = job.find("shuffle") != std::string::npos ? no_net : live;
    const std::string text = fmt::format(
        R"({{"weft": 1, "cluster": {{"machines": [{{"name": "huge", "capacity": {{"cpu": 16, "mem": 16, "net": 10}}}}]}},
            "jobs": [{}]}})",
        job);
    auto typed = ParseSubmission(text, nodes);
    const absl::Status old = ReadAgainstLive(job, nodes);
    ASSERT_FALSE(old.ok());
    ASSERT_FALSE(typed.ok());
    EXPECT_EQ(typed.status(), old);
  }
}

TEST(JobIntakeTest, AJobsOnlySubmissionIsCheckedAgainstTheLiveNodes) {
  auto unknown = ParseSubmission(R"({"weft": 1, "jobs": [{"name": "a", "stages": [{"name": "s", "tasks": 1,
      "duration": 1, "demand": {"cpu": 1, "mem": 1}, "locality": [["nowhere"]]}]}]})", Live());
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()), ::testing::HasSubstr("unknown machine \"nowhere\""));
  auto dup = ParseSubmission(R"({"weft": 1, "weft": 1, "jobs": []})", Live());
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(std::string(dup.status().message()), ::testing::HasSubstr("appears twice"));
}

// The export's workload as Export made it until session 10: every job's
// journaled text parsed, its arrival set to 0, its commands erased, a
// repeated name made NAME#ID, and the document dumped.
std::string OldExportWorkload(const std::vector<std::string>& journaled, const Cluster& cluster) {
  std::map<std::string, int> uses;
  std::vector<nlohmann::json> specs;
  for (const std::string& text : journaled) {
    specs.push_back(nlohmann::json::parse(text));
    ++uses[specs.back()["name"].get<std::string>()];
  }
  nlohmann::json jobs = nlohmann::json::array();
  for (size_t j = 0; j < specs.size(); ++j) {
    nlohmann::json spec = specs[j];
    spec["arrival"] = 0;
    for (nlohmann::json& stage : spec["stages"]) stage.erase("command");
    const std::string name = spec["name"];
    if (uses[name] > 1) spec["name"] = fmt::format("{}#{}", name, j);
    jobs.push_back(std::move(spec));
  }
  return nlohmann::json({{"weft", 1}, {"cluster", ClusterJson(cluster)}, {"jobs", jobs}}).dump();
}

TEST(JobIntakeTest, TheExportsWorkloadIsTheBytesParsingEveryJobMade) {
  const Cluster live = Live();
  // The same workload twice (repeated names are renamed), and names that
  // need escaping in JSON.
  auto first = ParseSubmission(kWorkload, live);
  auto second = ParseSubmission(kWorkload, live);
  auto odd = ParseSubmission(R"({"weft": 1, "jobs": [
      {"name": "caf\u00e9 \"q\"", "deadline": 5, "memory_estimate": 2, "stages": [{"name": "s", "tasks": 1,
       "duration": 1, "demand": {"cpu": 1, "mem": 1}, "command": "true"}]}]})",
                             live);
  auto odd_again = ParseSubmission(R"({"weft": 1, "jobs": [
      {"name": "caf\u00e9 \"q\"", "stages": [{"name": "s", "tasks": 1, "duration": 1e-6, "demand": {"cpu": 0.5}}]}]})",
                                   live);
  ASSERT_TRUE(first.ok() && second.ok() && odd.ok() && odd_again.ok()) << odd.status() << odd_again.status();
  JobTable table(UINT64_MAX, UINT64_MAX);
  std::vector<std::string> journaled;
  for (auto* jobs : {&*first, &*second, &*odd, &*odd_again}) {
    for (SubmittedJob& job : *jobs) {
      journaled.push_back(job.journal_json);
      table.Add(JobInfo{.name = job.live.job.name, .spec_json = job.export_json, .tasks = job.live.job.num_tasks});
    }
  }
  const v1::ExportChunk chunk = ResultsExport().Build(table, {}, {}, live, ReplicaIds{}, "fifo", 0);
  EXPECT_EQ(chunk.workload_json(), OldExportWorkload(journaled, live));
  EXPECT_THAT(chunk.workload_json(), ::testing::HasSubstr("etl#3"));
}

TEST(JobIntakeTest, RenamingAnExportFormSplicesOnlyTheName) {
  const std::string form = ExportForm(nlohmann::json::parse(
      R"({"name": "x\"y", "deadline": 3, "memory_estimate": 1, "arrival": 7, "user": "name",
          "stages": [{"name": "name", "tasks": 1, "duration": 1, "command": "c"}]})"));
  nlohmann::json expected = nlohmann::json::parse(form);
  expected["name"] = "x\"y#4";
  EXPECT_EQ(RenameExportForm(form, "x\"y", "x\"y#4"), expected.dump());
  // A damaged description does not throw.
  EXPECT_EQ(ExportForm(nlohmann::json::parse("{", nullptr, false)), "null");
  // A text not in export form (a stray "name" first) is renamed by parsing it.
  EXPECT_EQ(RenameExportForm(R"({"a":"\"name\":1","name":"n"})", "n", "m"), R"({"a":"\"name\":1","name":"m"})");
}

// An archive written before session 10 keeps each job as submitted; its
// jobs export as they did.
TEST(JobIntakeTest, AnOldArchivesJobsExportAsBefore) {
  const Cluster live = Live();
  auto jobs = ParseSubmission(kWorkload, live);
  ASSERT_TRUE(jobs.ok());
  JobTable table(UINT64_MAX, UINT64_MAX);
  std::map<uint32_t, v1::ArchivedJob> archived;
  std::vector<std::string> journaled;
  for (uint32_t j = 0; j < jobs->size(); ++j) {
    const SubmittedJob& job = (*jobs)[j];
    journaled.push_back(job.journal_json);
    JobInfo info{.name = job.live.job.name, .spec_json = job.export_json, .state = JournalJob::State::kSucceeded};
    if (j != 1) {
      info.compacted = true;
      v1::ArchivedJob& a = archived[j];
      a.set_id(j);
      a.set_name(job.live.job.name);
      // Job 0 as an old archive has it; job 2 as a new one.
      a.set_spec_json(j == 0 ? job.journal_json : job.export_json);
      a.set_export_form(j == 2);
      info.name.clear();
      info.spec_json.clear();
    }
    table.Add(std::move(info));
  }
  const v1::ExportChunk chunk = ResultsExport().Build(table, {}, archived, live, ReplicaIds{}, "fifo", 0);
  EXPECT_EQ(chunk.workload_json(), OldExportWorkload(journaled, live));
}

// Issue 34, finding 6: a name is at most 256 bytes (FORMATS §1), in every
// reader: a longer job, stage or user name is refused with one short line.
TEST(JobIntakeTest, NamesOverTheLimitAreRefusedInOneShortLine) {
  const auto submit = [](const std::string& job, const std::string& stage, const std::string& user) {
    return ParseSubmission(fmt::format(R"({{"weft": 1, "jobs": [{{"name": "{}", "user": "{}", "stages": [
        {{"name": "{}", "tasks": 1, "duration": 1, "demand": {{"cpu": 1, "mem": 1}}}}]}}]}})",
                                       job, user, stage),
                           Live());
  };
  const std::string longest(256, 'n'), over(257, 'n'), huge(10'000'000, 'n');
  EXPECT_TRUE(submit(longest, longest, longest).ok());
  using Names = std::tuple<std::string, std::string, std::string>;
  for (const auto& [job, stage, user] : std::vector<Names>{{over, "s", "u"}, {"j", over, "u"}, {"j", "s", over},
                                                           {huge, "s", "u"}, {"j", huge, "u"}}) {
    const auto r = submit(job, stage, user);
    ASSERT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
    EXPECT_THAT(r.status().message(), testing::HasSubstr("over the 256 a name may have"));
    EXPECT_LT(r.status().message().size(), 400u);
  }
}

}  // namespace
}  // namespace weft::runtime
