// FlowsWriter writes flows.csv only when some flow ran: the exact row text
// (kind, machines, times, MB, completed) and no file at all for a run
// without flows, so the outputs of existing runs stay as they were.
#include "metrics/flows_writer.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gtest/gtest.h"

namespace weft {
namespace {

std::string Contents(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One job of one stage on machines "a" and "b, c" (a name to quote).
Workload OneJobTwoMachines() {
  Workload w;
  w.cluster.AddMachine("a", RackId(0), Resources());
  w.cluster.AddMachine("b, c", RackId(1), Resources());
  w.jobs.resize(1);
  w.jobs[0].name = "sort";
  w.jobs[0].stages.resize(1);
  w.jobs[0].stages[0].name = "reduce";
  return w;
}

std::filesystem::path FreshDir(const char* name) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(FlowsWriterTest, RowsNameTheTaskKindMachinesTimesAndMegabytes) {
  const auto dir = FreshDir("weft_flows_writer_rows");
  const Workload w = OneJobTwoMachines();
  FlowsWriter writer(dir.string(), w);
  writer.OnFlowEnd(FlowRecord{.task = {JobId(0), 0, 3}, .attempt = 1, .kind = FlowKind::kShuffle,
                              .from = MachineId(0), .to = MachineId(1), .start_us = 500'000, .end_us = 2'000'000,
                              .mb = 150, .done = true});
  writer.OnFlowEnd(FlowRecord{.task = {JobId(0), 0, 4}, .attempt = 0, .kind = FlowKind::kRemoteRead,
                              .from = MachineId(1), .to = MachineId(0), .start_us = 0, .end_us = 2'500'000,
                              .mb = 12.5, .done = false});
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(Contents(dir / "flows.csv"),
            "job,stage,task,attempt,kind,from,to,start,end,mb,completed\n"
            "sort,reduce,3,1,shuffle,a,\"b, c\",0.500000,2.000000,150.000000,1\n"
            "sort,reduce,4,0,read,\"b, c\",a,0.000000,2.500000,12.500000,0\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "flows.csv.tmp"));
}

TEST(FlowsWriterTest, NoFlowsNoFile) {
  const auto dir = FreshDir("weft_flows_writer_none");
  const Workload w = OneJobTwoMachines();
  FlowsWriter writer(dir.string(), w);
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

}  // namespace
}  // namespace weft
