// One test per rule of FORMATS.md section 1 that rejects a workload. Each
// starts from a valid workload, breaks one thing, and checks the whole
// message, so that it names the right job, stage and field.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "trace/workload_reader.h"
#include "tests/trace/workload_test_util.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testutil::ErrorOf;
using testutil::ErrorOfText;
using testutil::FormatsExample;
using testutil::JobAt;
using testutil::Json;
using testutil::SmallWorkload;
using testutil::StageAt;

// ErrorWithStage / ErrorWithJob return the error after setting `key` of a
// stage of job "j" (or of the job itself) to the JSON `value`.
using testutil::ErrorWithStage;
std::string ErrorWithJob(const char* key, const char* value) {
  Json doc = SmallWorkload();
  JobAt(doc)[key] = Json::parse(value);
  return ErrorOf(doc);
}

// --- The document -----------------------------------------------------------

TEST(WorkloadValidationTest, AcceptsSmallWorkload) { EXPECT_EQ(ErrorOf(SmallWorkload()), "<ok>"); }

TEST(WorkloadValidationTest, RejectsEmptyText) {
  EXPECT_EQ(ErrorOfText(""), "the file is empty");
  EXPECT_EQ(ErrorOfText(" \n\t\r\n"), "the file is empty");
}

TEST(WorkloadValidationTest, RejectsInvalidJson) {
  const std::string error = ErrorOfText(R"({"weft": 1,)");
  EXPECT_THAT(error, StartsWith("not valid JSON: parse error at line 1, column 12"));
  EXPECT_EQ(error.find('\n'), std::string::npos);
  EXPECT_THAT(ErrorOfText("weft: 1"), StartsWith("not valid JSON: "));
}

TEST(WorkloadValidationTest, RejectsNumberBeyondDouble) {
  // nlohmann throws out_of_range here, not parse_error; it must still be bad
  // input, not an internal error.
  Json doc = SmallWorkload();
  std::string text = doc.dump();
  text.replace(text.find("\"duration\":1.0"), 14, "\"duration\":1e999");
  EXPECT_EQ(ErrorOfText(text), "not valid JSON: number overflow parsing '1e999'");
}

TEST(WorkloadValidationTest, RejectsNonObjectDocument) {
  EXPECT_EQ(ErrorOfText("[1, 2]"), "a workload must be a JSON object");
  EXPECT_EQ(ErrorOfText("1"), "a workload must be a JSON object");
}

TEST(WorkloadValidationTest, RejectsDuplicateKeys) {
  EXPECT_EQ(ErrorOfText(R"({"weft": 1, "weft": 1, "cluster": {}, "jobs": []})"),
            "key \"weft\" appears twice in one object");
  std::string text = SmallWorkload().dump();
  text.replace(text.find("\"tasks\":2"), 9, "\"tasks\":2,\"tasks\":3");
  EXPECT_EQ(ErrorOfText(text), "key \"tasks\" appears twice in one object");
}

TEST(WorkloadValidationTest, AcceptsSameKeyInSiblingObjects) {
  // Both stages have "name", "tasks", ...: only repeats within one object count.
  EXPECT_EQ(ErrorOfText(SmallWorkload().dump()), "<ok>");
}

TEST(WorkloadValidationTest, RejectsMissingVersion) {
  Json doc = SmallWorkload();
  doc.erase("weft");
  EXPECT_EQ(ErrorOf(doc), "\"weft\" is missing (this reader understands \"weft\": 1)");
}

TEST(WorkloadValidationTest, RejectsOtherVersions) {
  Json doc = SmallWorkload();
  doc["weft"] = 2;
  EXPECT_EQ(ErrorOf(doc), "\"weft\" is 2 but this reader understands version 1 only");
  doc["weft"] = "1";
  EXPECT_EQ(ErrorOf(doc), "\"weft\" is \"1\" but this reader understands version 1 only");
  doc["weft"] = 1.5;
  EXPECT_EQ(ErrorOf(doc), "\"weft\" is 1.5 but this reader understands version 1 only");
}

TEST(WorkloadValidationTest, RejectsUnknownTopLevelField) {
  Json doc = SmallWorkload();
  doc["jobz"] = Json::array();
  EXPECT_EQ(ErrorOf(doc), "\"jobz\" is not a known field");
}

TEST(WorkloadValidationTest, RejectsMissingJobs) {
  Json doc = SmallWorkload();
  doc.erase("jobs");
  EXPECT_EQ(ErrorOf(doc), "\"jobs\" must be a list of jobs");
}

// --- The cluster ------------------------------------------------------------

TEST(WorkloadValidationTest, RejectsMissingCluster) {
  Json doc = SmallWorkload();
  doc.erase("cluster");
  EXPECT_EQ(ErrorOf(doc), "\"cluster\" is missing");
}

TEST(WorkloadValidationTest, RejectsEmptyMachineList) {
  Json doc = SmallWorkload();
  doc["cluster"]["machines"] = Json::array();
  EXPECT_EQ(ErrorOf(doc), "cluster: \"machines\" must be a non-empty list of machine groups");
}

TEST(WorkloadValidationTest, RejectsUnknownMachineGroupField) {
  Json doc = SmallWorkload();
  doc["cluster"]["machines"][0]["cores"] = 4;
  EXPECT_EQ(ErrorOf(doc), "machine group \"m\": \"cores\" is not a known field");
}

TEST(WorkloadValidationTest, RejectsZeroMachineCount) {
  Json doc = SmallWorkload();
  doc["cluster"]["machines"][0]["count"] = 0;
  EXPECT_EQ(ErrorOf(doc), "machine group \"m\": \"count\" must be a whole number >= 1, not 0");
}

TEST(WorkloadValidationTest, ReadsSwapAndRejectsABadOne) {
  Json doc = SmallWorkload();
  doc["cluster"]["machines"][0]["swap"] = 2.5;
  const absl::StatusOr<Workload> w = ParseWorkload(doc.dump());
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->cluster.machine(MachineId(0)).swap_micro, 2'500'000);
  doc["cluster"]["machines"][0]["swap"] = -1;
  EXPECT_EQ(ErrorOf(doc), "machine group \"m\": \"swap\" must be a number >= 0, not -1");
  doc["cluster"]["machines"][0]["swap"] = "8G";
  EXPECT_EQ(ErrorOf(doc), "machine group \"m\": \"swap\" must be a number >= 0, not \"8G\"");
}

TEST(WorkloadValidationTest, RejectsUnknownCapacityResource) {
  Json doc = SmallWorkload();
  doc["cluster"]["machines"][0]["capacity"]["gpu"] = 1;
  EXPECT_EQ(ErrorOf(doc),
            "machine group \"m\": \"capacity\" names unknown resource \"gpu\" (known: cpu, mem, disk, net)");
}

TEST(WorkloadValidationTest, RejectsDuplicateMachineNames) {
  Json doc = SmallWorkload();
  // m0..m3 exist; a single machine called "m2" collides.
  doc["cluster"]["machines"].push_back(Json::parse(R"({"name": "m2", "capacity": {"cpu": 1}})"));
  EXPECT_EQ(ErrorOf(doc), "machine group \"m2\": \"name\" machine name \"m2\" is used twice");
  doc["cluster"]["machines"] = Json::parse(
      R"([{"name": "x", "capacity": {"cpu": 4, "mem": 8}}, {"name": "x", "capacity": {"cpu": 1}}])");
  EXPECT_EQ(ErrorOf(doc), "machine group \"x\": \"name\" machine name \"x\" is used twice");
}

// --- Jobs -------------------------------------------------------------------

TEST(WorkloadValidationTest, RejectsJobWithoutName) {
  Json doc = SmallWorkload();
  JobAt(doc).erase("name");
  EXPECT_EQ(ErrorOf(doc), "job #0: \"name\" must be a non-empty string");
}

TEST(WorkloadValidationTest, RejectsDuplicateJobNames) {
  Json doc = SmallWorkload();
  doc["jobs"].push_back(JobAt(doc));
  EXPECT_EQ(ErrorOf(doc), "job \"j\": \"name\" is used by two jobs");
}

TEST(WorkloadValidationTest, RejectsUnknownJobField) {
  EXPECT_EQ(ErrorWithJob("prio", "1"), "job \"j\": \"prio\" is not a known field");
}

TEST(WorkloadValidationTest, RejectsNegativeArrival) {
  EXPECT_EQ(ErrorWithJob("arrival", "-1"), "job \"j\": \"arrival\" must be seconds >= 0, not -1");
  EXPECT_EQ(ErrorWithJob("arrival", "\"0\""), "job \"j\": \"arrival\" must be seconds >= 0, not \"0\"");
}

TEST(WorkloadValidationTest, RejectsArrivalBeyondMaxSeconds) {
  EXPECT_EQ(ErrorWithJob("arrival", "1e13"),
            "job \"j\": \"arrival\" time 10000000000000 s is out of range (at most 1000000000000 s)");
}

TEST(WorkloadValidationTest, RejectsNonPositiveWeight) {
  EXPECT_EQ(ErrorWithJob("weight", "0"), "job \"j\": \"weight\" must be a number > 0, not 0");
  EXPECT_EQ(ErrorWithJob("weight", "-2.5"), "job \"j\": \"weight\" must be a number > 0, not -2.5");
}

TEST(WorkloadValidationTest, RejectsNonPositiveDeadline) {
  EXPECT_EQ(ErrorWithJob("deadline", "0"), "job \"j\": \"deadline\" must be seconds > 0, not 0");
  EXPECT_EQ(ErrorWithJob("deadline", "-300"), "job \"j\": \"deadline\" must be seconds > 0, not -300");
}

TEST(WorkloadValidationTest, RejectsFractionalPriority) {
  EXPECT_EQ(ErrorWithJob("priority", "1.5"), "job \"j\": \"priority\" must be a whole number, not 1.5");
  EXPECT_EQ(ErrorWithJob("priority", "4294967296"),
            "job \"j\": \"priority\" must be a whole number, not 4294967296");
}

TEST(WorkloadValidationTest, RejectsEmptyUser) {
  EXPECT_EQ(ErrorWithJob("user", "\"\""), "job \"j\": \"user\" must be a non-empty string");
}

TEST(WorkloadValidationTest, RejectsJobWithoutStages) {
  EXPECT_EQ(ErrorWithJob("stages", "[]"), "job \"j\": \"stages\" must be a non-empty list");
}

// --- Stages -----------------------------------------------------------------

TEST(WorkloadValidationTest, RejectsDuplicateStageNames) {
  EXPECT_EQ(ErrorWithStage(1, "name", "\"a\""), "job \"j\" stage \"a\": \"name\" is used by two stages of the job");
}

TEST(WorkloadValidationTest, RejectsUnknownStageField) {
  EXPECT_EQ(ErrorWithStage(1, "dmand", "{}"), "job \"j\" stage \"b\": \"dmand\" is not a known field");
}

TEST(WorkloadValidationTest, RejectsBadTaskCounts) {
  EXPECT_EQ(ErrorWithStage(0, "tasks", "[1, 2]"),
            "job \"j\" stage \"a\": \"tasks\" must be a whole number >= 1, not [1,2]");
  EXPECT_EQ(ErrorWithStage(0, "tasks", "2.5"),
            "job \"j\" stage \"a\": \"tasks\" must be a whole number >= 1, not 2.5");
  EXPECT_EQ(ErrorWithStage(0, "tasks", "0"), "job \"j\" stage \"a\": \"tasks\" must be a whole number >= 1, not 0");
  EXPECT_EQ(ErrorWithStage(0, "tasks", "-3"),
            "job \"j\" stage \"a\": \"tasks\" must be a whole number >= 1, not -3");
  Json doc = SmallWorkload();
  StageAt(doc, 0).erase("tasks");
  EXPECT_EQ(ErrorOf(doc), "job \"j\" stage \"a\": \"tasks\" is missing");
}

TEST(WorkloadValidationTest, RejectsEnormousTaskCount) {
  EXPECT_EQ(ErrorWithStage(0, "tasks", "1000000000000000"),
            "job \"j\" stage \"a\": \"tasks\" is 1000000000000000, more than weft can hold (at most 500000000)");
}

TEST(WorkloadValidationTest, RejectsWorkloadAboveTaskLimit) {
  Json doc = SmallWorkload();
  StageAt(doc, 0)["tasks"] = 300'000'000;
  StageAt(doc, 1)["tasks"] = 300'000'000;
  EXPECT_EQ(ErrorOf(doc), "job \"j\" stage \"b\": \"tasks\" brings the workload above 500000000 tasks, "
                          "more than weft can hold in memory");
}

TEST(WorkloadValidationTest, RejectsBadDurations) {
  EXPECT_EQ(ErrorWithStage(1, "duration", "-1"), "job \"j\" stage \"b\": \"duration\" must be seconds > 0, not -1");
  EXPECT_EQ(ErrorWithStage(1, "duration", "0"), "job \"j\" stage \"b\": \"duration\" must be seconds > 0, not 0");
  EXPECT_EQ(ErrorWithStage(1, "duration", "\"1s\""),
            "job \"j\" stage \"b\": \"duration\" must be seconds (a number), not \"1s\"");
  EXPECT_EQ(ErrorWithStage(1, "duration", "1e-7"),
            "job \"j\" stage \"b\": \"duration\" 1e-07 s rounds to 0 microseconds");
}

TEST(WorkloadValidationTest, RejectsStageWithoutDurationOrPhases) {
  Json doc = SmallWorkload();
  StageAt(doc, 1).erase("duration");
  EXPECT_EQ(ErrorOf(doc), "job \"j\" stage \"b\": \"duration\" is missing (required unless \"phases\" is given)");
}

TEST(WorkloadValidationTest, RejectsDurationsOfWrongLength) {
  EXPECT_EQ(ErrorWithStage(0, "durations", "[1.0]"),
            "job \"j\" stage \"a\": \"durations\" has 1 entries but the stage has 2 tasks");
  EXPECT_EQ(ErrorWithStage(0, "durations", "[1, 2, 3]"),
            "job \"j\" stage \"a\": \"durations\" has 3 entries but the stage has 2 tasks");
}

TEST(WorkloadValidationTest, RejectsDurationsGivenAsNumber) {
  EXPECT_EQ(ErrorWithStage(0, "durations", "2.5"),
            "job \"j\" stage \"a\": \"durations\" must be a list of seconds, one per task");
}

TEST(WorkloadValidationTest, RejectsNonPositiveEntryInDurations) {
  EXPECT_EQ(ErrorWithStage(0, "durations", "[1, -1]"),
            "job \"j\" stage \"a\": \"durations\" must be seconds > 0, not -1");
}

TEST(WorkloadValidationTest, RejectsLocalityLongerThanTasks) {
  EXPECT_EQ(ErrorWithStage(0, "locality", R"([["m0"], ["m1"], ["m2"]])"),
            "job \"j\" stage \"a\": \"locality\" has 3 entries but the stage has 2 tasks");
}

TEST(WorkloadValidationTest, RejectsLocalityNamingUnknownMachine) {
  EXPECT_EQ(ErrorWithStage(0, "locality", R"([["m0", "m9"]])"),
            "job \"j\" stage \"a\": \"locality\" names unknown machine \"m9\"");
  EXPECT_EQ(ErrorWithStage(0, "locality", R"([["m"]])"),
            "job \"j\" stage \"a\": \"locality\" names unknown machine \"m\"");
}

TEST(WorkloadValidationTest, RejectsUsageAboveDemand) {
  EXPECT_EQ(ErrorWithStage(0, "usage", R"({"mem": 2.5})"),
            "job \"j\" stage \"a\": \"usage\" mem 2.5 exceeds the demand 2");
  // A resource the demand leaves out is 0, so any usage of it exceeds it.
  EXPECT_EQ(ErrorWithStage(0, "usage", R"({"net": 1})"),
            "job \"j\" stage \"a\": \"usage\" net 1 exceeds the demand 0");
}

TEST(WorkloadValidationTest, RejectsDemandFittingNoMachine) {
  EXPECT_EQ(ErrorWithStage(1, "demand", R"({"cpu": 4.5})"),
            "job \"j\" stage \"b\": \"demand\" (cpu=4.5) fits no machine of the cluster");
  EXPECT_EQ(ErrorWithStage(1, "demand", R"({"disk": 1})"),
            "job \"j\" stage \"b\": \"demand\" (disk=1) fits no machine of the cluster");
}

TEST(WorkloadValidationTest, RejectsUnknownOrNegativeDemand) {
  EXPECT_EQ(ErrorWithStage(0, "demand", R"({"gpu": 1})"),
            "job \"j\" stage \"a\": \"demand\" names unknown resource \"gpu\" (known: cpu, mem, disk, net)");
  EXPECT_EQ(ErrorWithStage(0, "demand", R"({"cpu": -1})"),
            "job \"j\" stage \"a\": \"demand\" \"cpu\" must be a non-negative number");
  EXPECT_EQ(ErrorWithStage(0, "demand", R"({"cpu": 1e13})"),
            "job \"j\" stage \"a\": \"demand\" cpu must be a finite number between 0 and 1000000000000");
}

TEST(WorkloadValidationTest, RejectsPhaseWithBadResource) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"resource": "mem", "work": 1}])"),
            "job \"j\" stage \"a\": \"phases\" resource \"mem\" is not cpu, net or disk");
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"resource": "gpu", "work": 1}])"),
            "job \"j\" stage \"a\": \"phases\" resource \"gpu\" is not cpu, net or disk");
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"work": 1}])"),
            "job \"j\" stage \"a\": \"phases\" each phase needs a \"resource\" name");
}

TEST(WorkloadValidationTest, RejectsPhaseWithBadWork) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"resource": "cpu", "work": 0}])"),
            "job \"j\" stage \"a\": \"phases\" \"work\" must be a number > 0, not 0");
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"resource": "cpu"}])"),
            "job \"j\" stage \"a\": \"phases\" needs \"work\"");
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"resource": "cpu", "work": 1, "mb": 2}])"),
            "job \"j\" stage \"a\": \"phases\" has unknown field \"mb\"");
  EXPECT_EQ(ErrorWithStage(0, "phases", "[]"), "job \"j\" stage \"a\": \"phases\" must be a non-empty list");
}

TEST(WorkloadValidationTest, RejectsNonStringCommand) {
  EXPECT_EQ(ErrorWithStage(0, "command", "[\"ls\"]"), "job \"j\" stage \"a\": \"command\" must be a string");
}

// --- Edges ------------------------------------------------------------------

TEST(WorkloadValidationTest, RejectsUnknownParent) {
  Json doc = FormatsExample();
  doc["jobs"][0]["stages"][1]["after"] = Json::array({"scann"});
  EXPECT_EQ(ErrorOf(doc), "job \"q3-0\" stage \"agg\": \"after\" names unknown stage \"scann\"");
}

TEST(WorkloadValidationTest, RejectsSelfEdge) {
  EXPECT_EQ(ErrorWithStage(1, "after", R"(["b"])"), "job \"j\" stage \"b\": \"after\" names the stage itself");
}

TEST(WorkloadValidationTest, RejectsRepeatedParent) {
  EXPECT_EQ(ErrorWithStage(1, "after", R"(["a", {"stage": "a", "kind": "pipelined"}])"),
            "job \"j\" stage \"b\": \"after\" names stage \"a\" twice");
}

TEST(WorkloadValidationTest, RejectsTwoStageCycle) {
  EXPECT_EQ(ErrorWithStage(0, "after", R"(["b"])"), "job \"j\": \"stages\" stage \"a\" is on a dependency cycle");
}

TEST(WorkloadValidationTest, RejectsThreeStageCycle) {
  Json doc = SmallWorkload();
  doc["jobs"][0]["stages"].push_back(
      Json::parse(R"({"name": "c", "tasks": 1, "duration": 1, "after": ["b"]})"));
  StageAt(doc, 0)["after"] = Json::array({"c"});
  EXPECT_EQ(ErrorOf(doc), "job \"j\": \"stages\" stage \"a\" is on a dependency cycle");
}

TEST(WorkloadValidationTest, CycleErrorNamesAStageOnTheCycle) {
  // "d" only depends on the cycle a -> b -> c -> a; the message must not
  // blame it.
  Json doc = SmallWorkload();
  doc["jobs"][0]["stages"] = Json::parse(R"([
    {"name": "d", "tasks": 1, "duration": 1, "after": ["a"]},
    {"name": "a", "tasks": 1, "duration": 1, "after": ["c"]},
    {"name": "b", "tasks": 1, "duration": 1, "after": ["a"]},
    {"name": "c", "tasks": 1, "duration": 1, "after": ["b"]}])");
  EXPECT_EQ(ErrorOf(doc), "job \"j\": \"stages\" stage \"a\" is on a dependency cycle");
}

TEST(WorkloadValidationTest, RejectsPipelinedEdgeBetweenDifferentSizes) {
  Json doc = SmallWorkload();
  StageAt(doc, 1)["tasks"] = 3;
  StageAt(doc, 1)["after"] = Json::parse(R"([{"stage": "a", "kind": "pipelined"}])");
  EXPECT_EQ(ErrorOf(doc), "job \"j\" stage \"b\": \"after\" pipelined edge from \"a\" (2 tasks) needs the "
                          "same number of tasks as this stage (3)");
}

TEST(WorkloadValidationTest, AllowsBarrierEdgeBetweenDifferentSizes) {
  EXPECT_EQ(ErrorWithStage(1, "tasks", "3"), "<ok>");
}

TEST(WorkloadValidationTest, RejectsBadEdgeKind) {
  EXPECT_EQ(ErrorWithStage(1, "after", R"([{"stage": "a", "kind": "streaming"}])"),
            "job \"j\" stage \"b\": \"after\" edge kind \"streaming\" is not \"barrier\", \"pipelined\" or \"shuffle\"");
}

TEST(WorkloadValidationTest, RejectsMalformedEdges) {
  EXPECT_EQ(ErrorWithStage(1, "after", "\"a\""), "job \"j\" stage \"b\": \"after\" must be a list of parent stages");
  EXPECT_EQ(ErrorWithStage(1, "after", R"([{"kind": "barrier"}])"),
            "job \"j\" stage \"b\": \"after\" each edge object needs a \"stage\" name");
  EXPECT_EQ(ErrorWithStage(1, "after", R"([{"stage": "a", "type": "barrier"}])"),
            "job \"j\" stage \"b\": \"after\" has unknown field \"type\"");
  EXPECT_EQ(ErrorWithStage(1, "after", "[1]"),
            "job \"j\" stage \"b\": \"after\" entries must be stage names or {\"stage\", \"kind\"} objects");
}

}  // namespace
}  // namespace weft
