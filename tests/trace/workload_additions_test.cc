// The workload model additions of issue #13 (docs/workload-format.md): stage
// kind, input sizes, memory estimate, shuffle edges, profiled phases,
// per-task demand and usage overrides, the cluster's locality cost. What a
// valid file turns into, and one test per rule that rejects one, each
// checking the whole message (job, stage, field).
//
// Until the engine runs a feature, the reader refuses it with "not supported
// yet" (after checking it), so no result pretends to model it; those refusals
// are pinned here too and go when the engine learns the feature (shuffle
// edges: learned).
#include <string>

#include "gmock/gmock.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "model/shuffle.h"
#include "trace/workload_reader.h"
#include "tests/trace/workload_test_util.h"

namespace weft {
namespace {

using ::testing::ElementsAre;
using testutil::ErrorOf;
using testutil::JobAt;
using testutil::Json;
using testutil::SmallWorkload;
using testutil::StageAt;

using testutil::ErrorWithStage;
using testutil::Parse;

// ErrorWithEdge: the error when stage "b"'s only edge is `edge`.
std::string ErrorWithEdge(const char* edge) {
  Json doc = SmallWorkload();
  StageAt(doc, 1)["after"] = Json::array({Json::parse(edge)});
  return ErrorOf(doc);
}

std::string ErrorWithLocalityCost(const char* cost) {
  Json doc = SmallWorkload();
  doc["cluster"]["locality_cost"] = Json::parse(cost);
  return ErrorOf(doc);
}

// --- Stage kind, input sizes, memory estimate ---------------------------------

TEST(WorkloadAdditionsTest, ReadsStageKindAndInputSizes) {
  Json doc = SmallWorkload();
  StageAt(doc, 0)["kind"] = "map";
  StageAt(doc, 0)["input_mb"] = 128;
  StageAt(doc, 1)["kind"] = "reduce";
  StageAt(doc, 1)["input_mbs"] = Json::array({10, 0.5});
  const Workload w = Parse(doc);
  const Stage& a = w.jobs[0].stages[0];
  const Stage& b = w.jobs[0].stages[1];
  EXPECT_EQ(a.kind, "map");
  EXPECT_EQ(b.kind, "reduce");
  EXPECT_EQ(a.TaskInputMb(0), 128);
  EXPECT_EQ(a.TaskInputMb(1), 128);
  EXPECT_TRUE(a.input_mbs.empty());  // no memory per task without an override
  EXPECT_EQ(b.TaskInputMb(0), 10);
  EXPECT_EQ(b.TaskInputMb(1), 0.5);
}

TEST(WorkloadAdditionsTest, DefaultsLeaveTheModelAsBefore) {
  const Workload w = Parse(SmallWorkload());
  const Job& job = w.jobs[0];
  EXPECT_FALSE(job.memory_estimate_gb.has_value());
  EXPECT_EQ(job.stages[0].kind, "");
  EXPECT_EQ(job.stages[0].TaskInputMb(1), 0);
  EXPECT_TRUE(job.stages[0].demands.empty());
  EXPECT_TRUE(job.stages[0].usages.empty());
  EXPECT_EQ(job.stages[1].parents[0].slowstart, 1.0);
  EXPECT_EQ(job.stages[1].parents[0].shuffle_mb, 0.0);
  EXPECT_FALSE(w.cluster.locality_cost().enabled);
}

TEST(WorkloadAdditionsTest, ReadsMemoryEstimate) {
  Json doc = SmallWorkload();
  JobAt(doc)["memory_estimate"] = 12.5;
  EXPECT_EQ(Parse(doc).jobs[0].memory_estimate_gb, 12.5);
}

TEST(WorkloadAdditionsTest, RejectsNonStringKind) {
  EXPECT_EQ(ErrorWithStage(0, "kind", "1"),
            "job \"j\" stage \"a\": \"kind\" must be a string (e.g. \"map\" or \"reduce\")");
}

TEST(WorkloadAdditionsTest, RejectsNegativeInputMb) {
  EXPECT_EQ(ErrorWithStage(0, "input_mb", "-1"), "job \"j\" stage \"a\": \"input_mb\" must be a number >= 0, not -1");
  EXPECT_EQ(ErrorWithStage(0, "input_mb", "\"big\""),
            "job \"j\" stage \"a\": \"input_mb\" must be a number >= 0, not \"big\"");
}

TEST(WorkloadAdditionsTest, RejectsInputMbsOfWrongLengthOrValue) {
  EXPECT_EQ(ErrorWithStage(0, "input_mbs", "[1]"),
            "job \"j\" stage \"a\": \"input_mbs\" has 1 entries but the stage has 2 tasks");
  EXPECT_EQ(ErrorWithStage(0, "input_mbs", "5"),
            "job \"j\" stage \"a\": \"input_mbs\" must be a list of MB, one per task");
  EXPECT_EQ(ErrorWithStage(0, "input_mbs", "[1, -2]"),
            "job \"j\" stage \"a\": \"input_mbs\" must be a number >= 0, not -2");
}

TEST(WorkloadAdditionsTest, RejectsNonPositiveMemoryEstimate) {
  Json doc = SmallWorkload();
  JobAt(doc)["memory_estimate"] = 0;
  EXPECT_EQ(ErrorOf(doc), "job \"j\": \"memory_estimate\" must be a number > 0, not 0");
}

// --- Shuffle edges -------------------------------------------------------------

TEST(WorkloadAdditionsTest, ReadsShuffleEdgeWithDefaults) {
  Json doc = SmallWorkload();
  StageAt(doc, 1)["after"] = Json::parse(R"([{"stage": "a", "kind": "shuffle"}])");
  const Workload w = Parse(doc);
  const Edge& up = w.jobs[0].stages[1].parents[0];
  const Edge& down = w.jobs[0].stages[0].children[0];
  EXPECT_EQ(up.kind, EdgeKind::kShuffle);
  EXPECT_EQ(up.stage, 0u);
  EXPECT_EQ(down.stage, 1u);
  EXPECT_EQ(down.kind, EdgeKind::kShuffle);
  EXPECT_EQ(up.slowstart, 1.0);
  EXPECT_EQ(up.shuffle_mb, 0.0);
  EXPECT_TRUE(up.WaitsForWholeParent());
}

TEST(WorkloadAdditionsTest, AcceptsShuffleEdgeBetweenDifferentSizes) {
  Json doc = SmallWorkload();
  StageAt(doc, 1)["tasks"] = 5;
  StageAt(doc, 1)["after"] = Json::parse(R"([{"stage": "a", "kind": "shuffle", "slowstart": 1, "shuffle_mb": 0}])");
  EXPECT_EQ(ErrorOf(doc), "<ok>");
}

TEST(WorkloadAdditionsTest, RejectsSlowstartOutsideZeroToOne) {
  EXPECT_EQ(ErrorWithEdge(R"({"stage": "a", "kind": "shuffle", "slowstart": 0})"),
            "job \"j\" stage \"b\": \"after\" \"slowstart\" must be a fraction in (0, 1], not 0");
  EXPECT_EQ(ErrorWithEdge(R"({"stage": "a", "kind": "shuffle", "slowstart": 1.5})"),
            "job \"j\" stage \"b\": \"after\" \"slowstart\" must be a fraction in (0, 1], not 1.5");
  EXPECT_EQ(ErrorWithEdge(R"({"stage": "a", "kind": "shuffle", "slowstart": "half"})"),
            "job \"j\" stage \"b\": \"after\" \"slowstart\" must be a fraction in (0, 1], not \"half\"");
}

TEST(WorkloadAdditionsTest, RejectsNegativeShuffleMb) {
  EXPECT_EQ(ErrorWithEdge(R"({"stage": "a", "kind": "shuffle", "shuffle_mb": -4})"),
            "job \"j\" stage \"b\": \"after\" \"shuffle_mb\" must be a number >= 0, not -4");
}

TEST(WorkloadAdditionsTest, RejectsShuffleFieldsOnOtherEdgeKinds) {
  EXPECT_EQ(ErrorWithEdge(R"({"stage": "a", "slowstart": 0.5})"),
            "job \"j\" stage \"b\": \"after\" \"slowstart\" applies to shuffle edges only (\"kind\": \"shuffle\")");
  EXPECT_EQ(ErrorWithEdge(R"({"stage": "a", "kind": "pipelined", "shuffle_mb": 1})"),
            "job \"j\" stage \"b\": \"after\" \"shuffle_mb\" applies to shuffle edges only (\"kind\": \"shuffle\")");
}

TEST(WorkloadAdditionsTest, ReadsSlowStartAndShuffleMb) {
  Json doc = SmallWorkload();
  doc["cluster"]["machines"][0]["capacity"]["net"] = 100;
  StageAt(doc, 1)["after"] = Json::parse(R"([{"stage": "a", "kind": "shuffle", "slowstart": 0.05, "shuffle_mb": 64}])");
  const Workload w = Parse(doc);
  const Edge& e = w.jobs[0].stages[1].parents[0];
  EXPECT_EQ(e.slowstart, 0.05);
  EXPECT_EQ(e.shuffle_mb, 64);
  EXPECT_EQ(w.jobs[0].stages[0].children[0].slowstart, 0.05);
  EXPECT_EQ(LaunchThreshold(e, 2), 1u);
  EXPECT_EQ(LaunchThreshold(e, 100), 5u);
}

TEST(WorkloadAdditionsTest, RejectsShuffleMbOnMachinesWithoutNetwork) {
  EXPECT_EQ(ErrorWithEdge(R"({"stage": "a", "kind": "shuffle", "shuffle_mb": 64})"),
            "job \"j\" stage \"b\": \"after\" \"shuffle_mb\" needs network bandwidth on every machine, but "
            "machine \"m0\" has no \"net\" capacity");
}

// --- Profiled phases -----------------------------------------------------------

TEST(WorkloadAdditionsTest, RejectsProfiledPhaseWithResource) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"duration": 1, "resource": "cpu", "work": 1}])"),
            "job \"j\" stage \"a\": \"phases\" a phase has \"duration\" (profiled) or \"resource\" and \"work\", "
            "not both");
}

TEST(WorkloadAdditionsTest, RejectsProfiledPhaseWithBadDuration) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"duration": 0}])"),
            "job \"j\" stage \"a\": \"phases\" \"duration\" must be seconds > 0, not 0");
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"duration": "2s"}])"),
            "job \"j\" stage \"a\": \"phases\" \"duration\" must be seconds > 0, not \"2s\"");
}

TEST(WorkloadAdditionsTest, RejectsProfiledPhaseDemandFittingNoMachine) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"duration": 1, "demand": {"mem": 9}}])"),
            "job \"j\" stage \"a\": \"phases\" \"demand\" (mem=9) fits no machine of the cluster");
}

TEST(WorkloadAdditionsTest, RejectsProfiledPhaseUsageAboveItsDemand) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"duration": 1, "demand": {"cpu": 1}, "usage": {"cpu": 2}}])"),
            "job \"j\" stage \"a\": \"phases\" \"usage\" cpu 2 exceeds the demand 1");
}

TEST(WorkloadAdditionsTest, RejectsDemandOnResourcePhase) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"resource": "cpu", "work": 1, "demand": {"cpu": 1}}])"),
            "job \"j\" stage \"a\": \"phases\" \"demand\" and \"usage\" belong to profiled phases (with "
            "\"duration\")");
}

TEST(WorkloadAdditionsTest, RejectsMixedPhaseKinds) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"duration": 1}, {"resource": "cpu", "work": 1}])"),
            "job \"j\" stage \"a\": \"phases\" mixes profiled phases (with \"duration\") and resource phases (with "
            "\"resource\"); a stage's phases are all of one kind");
}

TEST(WorkloadAdditionsTest, RejectsNonStringPhaseName) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"name": 3, "resource": "cpu", "work": 1}])"),
            "job \"j\" stage \"a\": \"phases\" \"name\" must be a string");
}

TEST(WorkloadAdditionsTest, AcceptsNamedResourcePhase) {
  Json doc = SmallWorkload();
  StageAt(doc, 0)["phases"] = Json::parse(R"([{"name": "read", "resource": "disk", "work": 1}])");
  StageAt(doc, 0)["demand"] = Json::parse(R"({"cpu": 1})");
  EXPECT_EQ(Parse(doc).jobs[0].stages[0].phases[0].name, "read");
}

TEST(WorkloadAdditionsTest, RejectsDurationWithProfiledPhases) {
  EXPECT_EQ(ErrorWithStage(0, "phases", R"([{"duration": 1}])"),
            "job \"j\" stage \"a\": \"duration\" cannot be given with profiled phases (their durations are the "
            "task's)");
  Json doc = SmallWorkload();
  StageAt(doc, 0).erase("duration");
  StageAt(doc, 0)["phases"] = Json::parse(R"([{"duration": 1}])");
  StageAt(doc, 0)["durations"] = Json::parse("[1, 2]");
  EXPECT_EQ(ErrorOf(doc),
            "job \"j\" stage \"a\": \"durations\" cannot be given with profiled phases (their durations are the "
            "task's)");
}

// ProfiledStage: SmallWorkload with stage "a" made of a shuffle and a reduce
// profile (its "demand" of cpu 1, mem 2 covers both).
Json ProfiledStage() {
  Json doc = SmallWorkload();
  StageAt(doc, 0).erase("duration");
  StageAt(doc, 0)["phases"] = Json::parse(
      R"([{"name": "shuffle", "duration": 2, "demand": {"mem": 1}}, {"duration": 3, "demand": {"cpu": 1, "mem": 2}}])");
  return doc;
}

TEST(WorkloadAdditionsTest, AcceptsProfiledPhasesWithTheirDurationsAsTheTasks) {
  Json doc = ProfiledStage();
  StageAt(doc, 0).erase("demand");
  const Stage st = Parse(doc).jobs[0].stages[0];
  ASSERT_TRUE(st.HasProfiledPhases());
  EXPECT_EQ(st.duration_us, 5'000'000);
  EXPECT_EQ(st.phases[0].name, "shuffle");
  EXPECT_EQ(st.demand.ToString(), "cpu=1 mem=2");  // the phases' maximum
}

TEST(WorkloadAdditionsTest, RejectsStageDemandBelowAProfiledPhase) {
  Json doc = ProfiledStage();
  StageAt(doc, 0)["demand"] = Json::parse(R"({"cpu": 1, "mem": 1})");
  EXPECT_EQ(ErrorOf(doc), "job \"j\" stage \"a\": \"demand\" (cpu=1 mem=1) is less than phase 1's demand "
                          "(cpu=1 mem=2); it must cover every phase's");
}

TEST(WorkloadAdditionsTest, RejectsStageUsageAndPerTaskOverridesWithProfiledPhases) {
  for (const char* key : {"usage", "demands", "usages"}) {
    Json doc = ProfiledStage();
    StageAt(doc, 0)[key] = std::string(key) == "usage" ? Json::parse(R"({"cpu": 1})")
                                                       : Json::parse(R"([{"cpu": 1}, {"cpu": 1}])");
    EXPECT_EQ(ErrorOf(doc), fmt::format("job \"j\" stage \"a\": \"{}\" cannot be given with profiled phases "
                                        "(each phase has its own)",
                                        key));
  }
}

// --- Per-task demand and usage overrides ----------------------------------------

TEST(WorkloadAdditionsTest, RejectsDemandsOfWrongLength) {
  EXPECT_EQ(ErrorWithStage(0, "demands", R"([{"cpu": 1}])"),
            "job \"j\" stage \"a\": \"demands\" has 1 entries but the stage has 2 tasks");
  EXPECT_EQ(ErrorWithStage(0, "demands", R"({"cpu": 1})"),
            "job \"j\" stage \"a\": \"demands\" must be a list of resource objects, one per task");
}

TEST(WorkloadAdditionsTest, RejectsDemandsEntryFittingNoMachine) {
  EXPECT_EQ(ErrorWithStage(0, "demands", R"([{"cpu": 1}, {"cpu": 5}])"),
            "job \"j\" stage \"a\": \"demands\" entry 1 (cpu=5) fits no machine of the cluster");
  EXPECT_EQ(ErrorWithStage(0, "demands", R"([{"cpu": 1}, {"gpu": 1}])"),
            "job \"j\" stage \"a\": \"demands\" names unknown resource \"gpu\" (known: cpu, mem, disk, net)");
}

TEST(WorkloadAdditionsTest, RejectsStageUsageWithDemands) {
  Json doc = SmallWorkload();
  StageAt(doc, 0)["usage"] = Json::parse(R"({"cpu": 0.5})");
  StageAt(doc, 0)["demands"] = Json::parse(R"([{"cpu": 1}, {"cpu": 2}])");
  EXPECT_EQ(ErrorOf(doc), "job \"j\" stage \"a\": \"usage\" cannot be given with \"demands\" (give \"usages\", per task)");
}

TEST(WorkloadAdditionsTest, RejectsUsagesOfWrongLength) {
  EXPECT_EQ(ErrorWithStage(0, "usages", R"([{"cpu": 1}, {"cpu": 1}, {"cpu": 1}])"),
            "job \"j\" stage \"a\": \"usages\" has 3 entries but the stage has 2 tasks");
}

TEST(WorkloadAdditionsTest, RejectsUsagesEntryAboveItsTasksDemand) {
  // Task 1's own demand (cpu 2) bounds its usage, not the stage's (cpu 1).
  Json doc = SmallWorkload();
  StageAt(doc, 0).erase("demand");
  StageAt(doc, 0)["demands"] = Json::parse(R"([{"cpu": 1}, {"cpu": 2}])");
  StageAt(doc, 0)["usages"] = Json::parse(R"([{"cpu": 1}, {"cpu": 2.5}])");
  EXPECT_EQ(ErrorOf(doc), "job \"j\" stage \"a\": \"usages\" entry 1: cpu 2.5 exceeds the demand 2");
  // Without "demands", the stage's demand bounds every entry.
  EXPECT_EQ(ErrorWithStage(0, "usages", R"([{"cpu": 1}, {"mem": 3}])"),
            "job \"j\" stage \"a\": \"usages\" entry 1: mem 3 exceeds the demand 2");
}

TEST(WorkloadAdditionsTest, ReadsPerTaskDemandsAndUsages) {
  Json doc = SmallWorkload();
  StageAt(doc, 0).erase("demand");
  StageAt(doc, 0)["demands"] = Json::parse(R"([{"cpu": 1, "mem": 1}, {"cpu": 3}])");
  StageAt(doc, 0)["usages"] = Json::parse(R"([{"cpu": 0.5}, {}])");
  const Workload w = Parse(doc);
  const Stage& a = w.jobs[0].stages[0];
  EXPECT_EQ(a.demand, Resources::FromUnits({3, 1, 0, 0}).value());  // the per-resource maximum
  EXPECT_EQ(a.TaskDemand(0), Resources::FromUnits({1, 1, 0, 0}).value());
  EXPECT_EQ(a.TaskDemand(1), Resources::FromUnits({3, 0, 0, 0}).value());
  EXPECT_EQ(a.TaskUsage(0), Resources::FromUnits({0.5, 1, 0, 0}).value());  // mem left out: as demanded
  EXPECT_EQ(a.TaskUsage(1), a.TaskDemand(1));
  // Without "usages", a task uses its own demand.
  StageAt(doc, 0).erase("usages");
  const Workload v = Parse(doc);
  EXPECT_EQ(v.jobs[0].stages[0].TaskUsage(0), Resources::FromUnits({1, 1, 0, 0}).value());
  // Stages without overrides keep one profile.
  EXPECT_TRUE(v.jobs[0].stages[1].demands.empty());
  EXPECT_TRUE(v.jobs[0].stages[1].usages.empty());
}

TEST(WorkloadAdditionsTest, RejectsDemandsWhoseMaximumFitsNoMachine) {
  // Each fits a machine (cpu 4, mem 8), their maximum does not.
  Json doc = SmallWorkload();
  doc["cluster"]["machines"].push_back(Json::parse(R"({"name": "big", "capacity": {"cpu": 1, "mem": 16}})"));
  StageAt(doc, 0).erase("demand");
  StageAt(doc, 0)["demands"] = Json::parse(R"([{"cpu": 4}, {"cpu": 1, "mem": 16}])");
  EXPECT_EQ(ErrorOf(doc), "job \"j\" stage \"a\": \"demands\" their per-resource maximum (cpu=4 mem=16) fits no "
                          "machine of the cluster (the stage's demand, which policies may place by)");
}

TEST(WorkloadAdditionsTest, RejectsStageDemandBelowATasksDemand) {
  EXPECT_EQ(ErrorWithStage(0, "demands", R"([{"cpu": 1}, {"cpu": 3}])"),
            "job \"j\" stage \"a\": \"demand\" (cpu=1 mem=2) is less than \"demands\" entry 1 (cpu=3); it must cover "
            "every task's");
}

// --- Locality cost -------------------------------------------------------------

TEST(WorkloadAdditionsTest, RejectsLocalityCostNotAnObject) {
  EXPECT_EQ(ErrorWithLocalityCost("true"), "cluster: \"locality_cost\" must be an object");
}

TEST(WorkloadAdditionsTest, RejectsLocalityCostWithUnknownField) {
  EXPECT_EQ(ErrorWithLocalityCost(R"({"rack_mbps": 1, "cross_rack_mbps": 1, "node_mbps": 2})"),
            "cluster: \"locality_cost\" has unknown field \"node_mbps\"");
}

TEST(WorkloadAdditionsTest, RejectsLocalityCostMixingBandwidthsAndFactors) {
  EXPECT_EQ(ErrorWithLocalityCost(R"({"rack_mbps": 100, "remote_factor": 3})"),
            "cluster: \"locality_cost\" gives both bandwidths (rack_mbps, cross_rack_mbps) and factors "
            "(rack_factor, remote_factor); give one or the other");
}

TEST(WorkloadAdditionsTest, RejectsEmptyLocalityCost) {
  EXPECT_EQ(ErrorWithLocalityCost("{}"),
            "cluster: \"locality_cost\" must give rack_mbps and cross_rack_mbps, or rack_factor and remote_factor");
}

TEST(WorkloadAdditionsTest, RejectsLocalityCostMissingOrBadBandwidth) {
  EXPECT_EQ(ErrorWithLocalityCost(R"({"rack_mbps": 100})"), "cluster: \"locality_cost\" needs \"cross_rack_mbps\"");
  EXPECT_EQ(ErrorWithLocalityCost(R"({"rack_mbps": 0, "cross_rack_mbps": 50})"),
            "cluster: \"locality_cost\" \"rack_mbps\" must be a number > 0, not 0");
}

TEST(WorkloadAdditionsTest, RejectsLocalityFactorBelowOne) {
  EXPECT_EQ(ErrorWithLocalityCost(R"({"rack_factor": 0.5, "remote_factor": 3})"),
            "cluster: \"locality_cost\" \"rack_factor\" must be a number >= 1, not 0.5");
}

TEST(WorkloadAdditionsTest, ReadsLocalityCostInEitherForm) {
  Json doc = SmallWorkload();
  doc["cluster"]["locality_cost"] = Json::parse(R"({"rack_mbps": 100, "cross_rack_mbps": 50})");
  const Workload bw = Parse(doc);
  EXPECT_TRUE(bw.cluster.locality_cost().enabled);
  EXPECT_EQ(bw.cluster.locality_cost().rack_mbps, 100);
  EXPECT_EQ(bw.cluster.locality_cost().cross_rack_mbps, 50);
  doc["cluster"]["locality_cost"] = Json::parse(R"({"remote_factor": 3})");
  const Workload f = Parse(doc);
  EXPECT_TRUE(f.cluster.locality_cost().enabled);
  EXPECT_EQ(f.cluster.locality_cost().rack_factor, 1);
  EXPECT_EQ(f.cluster.locality_cost().remote_factor, 3);
  EXPECT_FALSE(Parse(SmallWorkload()).cluster.locality_cost().enabled);
}

// --- Rack uplinks (docs/workload-format.md "rack_uplink") ---------------------

std::string ErrorWithRackUplink(const char* uplink) {
  Json doc = SmallWorkload();
  doc["cluster"]["rack_uplink"] = Json::parse(uplink);
  return ErrorOf(doc);
}

TEST(WorkloadAdditionsTest, ReadsRackUplinkInEitherForm) {
  Json doc = SmallWorkload();
  EXPECT_EQ(Parse(doc).cluster.RackUplinkMbps(RackId(0)), 0);  // non-blocking by default
  doc["cluster"]["rack_uplink"] = Json::parse(R"({"mbps": 400})");
  EXPECT_EQ(Parse(doc).cluster.RackUplinkMbps(RackId(0)), 400);
  doc["cluster"]["rack_uplink"] = Json::parse(R"({"oversubscription": 2})");
  const Workload w = Parse(doc);
  double net = 0;
  for (const Machine& m : w.cluster.machines()) net += m.rack == RackId(0) ? m.capacity.units(kNet) : 0;
  EXPECT_DOUBLE_EQ(w.cluster.RackUplinkMbps(RackId(0)), net / 2);
}

TEST(WorkloadAdditionsTest, RejectsBadRackUplinks) {
  EXPECT_EQ(ErrorWithRackUplink("3"), "cluster: \"rack_uplink\" must be an object");
  EXPECT_EQ(ErrorWithRackUplink("{}"), "cluster: \"rack_uplink\" must give one of \"mbps\" (each rack's uplink) "
                                       "and \"oversubscription\" (its ratio)");
  EXPECT_EQ(ErrorWithRackUplink(R"({"mbps": 1, "oversubscription": 2})"),
            "cluster: \"rack_uplink\" must give one of \"mbps\" (each rack's uplink) and \"oversubscription\" "
            "(its ratio)");
  EXPECT_EQ(ErrorWithRackUplink(R"({"mbps": 0})"), "cluster: \"rack_uplink\" \"mbps\" must be a number > 0, not 0");
  EXPECT_EQ(ErrorWithRackUplink(R"({"gbps": 1})"), "cluster: \"rack_uplink\" has unknown field \"gbps\"");
}

}  // namespace
}  // namespace weft
