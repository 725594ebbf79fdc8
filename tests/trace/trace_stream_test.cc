// File: tests/trace/trace_stream_test.cc
//
// The streamed replay (trace/trace_stream.h, model/job_source.h): a trace's
// jobs reach the engine in arrival order while the trace is still being
// read, the run is byte for byte the run of the same trace read whole, and an
// ended job's stages are released (the source's live-job counter), so memory
// follows the active jobs.
#include "trace/trace_stream.h"

#include <algorithm>
#include <filesystem>
#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <tuple>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "policy/registry.h"
#include "sim/simulation.h"
#include "trace/arrival_batches.h"
#include "trace/workload_reader.h"
#include "tests/trace/trace_test_util.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

std::string Alibaba2017Rows();

class TraceStreamTest : public testutil::TraceFixture {
 protected:
  // A task_events row: time, missing, job, task, machine, type, user, class, priority, cpu, mem, disk, diff.
  static std::string Event(int64_t time, int64_t job, int task, int type) {
    return std::to_string(time) + ",," + std::to_string(job) + "," + std::to_string(task) + ",7," +
           std::to_string(type) + ",user" + std::to_string(job % 3) + ",0,2,0.5,0.25,0.001,0\n";
  }
  // A job_events row: time, missing, job, type, user, class, name, logical name.
  static std::string JobEvent(int64_t time, int64_t job, int type) {
    return std::to_string(time) + ",," + std::to_string(job) + "," + std::to_string(type) + ",u,0,n,l\n";
  }

  // Jobs 1..n, job k submitted at k s with two tasks; every tenth job runs
  // 50 s, the others 2 s: so jobs end (and are passed by the reader) in
  // another order than they arrive.
  std::string WriteTrace(int n) {
    struct Row {
      int64_t time;
      std::string task, job;
    };
    std::vector<Row> rows;
    for (int k = 1; k <= n; ++k) {
      const int64_t submit = int64_t{k} * 1000000, run = (k % 10 == 0 ? 50 : 2) * int64_t{1000000};
      for (int t = 0; t < 2; ++t) {
        rows.push_back({submit, Event(submit, k, t, 0), ""});
        rows.push_back({submit + 1, Event(submit + 1, k, t, 1), ""});
        rows.push_back({submit + 1 + run, Event(submit + 1 + run, k, t, 4), ""});
      }
      rows.push_back({submit + 2 + run, "", JobEvent(submit + 2 + run, k, 4)});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.time < b.time; });
    std::string tasks, jobs;
    for (const Row& r : rows) (r.task.empty() ? jobs : tasks) += r.task.empty() ? r.job : r.task;
    WriteGz("t/task_events/part-00000-of-00001.csv.gz", tasks);
    WriteGz("t/job_events/part-00000-of-00001.csv.gz", jobs);
    return "google-2011:" + Path("t");
  }

  static TraceSpec Spec(const std::string& text) { return *ParseTraceSpec(text); }

  static TraceOptions Options(uint32_t machines = 4) {
    TraceOptions o;
    o.machines = machines;
    return o;
  }

  static std::string Slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  sim::SimulationRequest Request(const std::string& policy, const std::string& out) {
    sim::SimulationRequest r;
    r.policy = policy;
    r.out_dir = Path(out);
    std::filesystem::create_directories(r.out_dir);
    return r;
  }
  // Alibaba2018Trace: ERDOS layout, each job's rows together, the jobs in no
  // time order; j_k is M1 -> R2_1, job 7's R2 failed (the job is skipped);
  // with batch_instance rows, some of no kept job.
  std::string Alibaba2018Trace() {
    std::string tasks = "job_name,task_name,instance_num,status,start_time,end_time,plan_cpu,plan_mem\n";
    std::string instances;
    for (int j = 0; j < 60; ++j) {
      const int k = (j * 23) % 60, start = 1000 + 13 * k;
      tasks += fmt::format("j_{},M1,2,Terminated,{},{},100,0.5\n", k, start, start + 10);
      tasks += fmt::format("j_{},R2_1,1,{},{},{},50,0.5\n", k, k == 7 ? "Failed" : "Terminated", start + 10,
                           start + 30);
      for (int i = 0; i < 2; ++i) {
        instances +=
            fmt::format("i,M1,j_{},1,Terminated,{},{},m_1,1,1,40,90,0.2,0.4\n", k, start, start + 3 + i + k % 4);
      }
      instances += fmt::format("i,R2_1,j_{},1,{},{},{},m_1,1,1,40,90,0.2,0.4\n", k, k % 5 ? "Terminated" : "Failed",
                               start + 10, start + 20);
      instances += fmt::format("i,X9,j_{},1,Terminated,{},{},m_1,1,1,40,90,0.2,0.4\n", k, start, start + 1);
    }
    instances += "i,M1,nojob,1,Terminated,1,2,m_1,1,1,40,90,0.2,0.4\n";
    return "alibaba-2018:" + Write("batch_task.csv", tasks) + "," + Write("batch_instance.csv", instances);
  }

  // SwimTrace: two files of 300 jobs, each starting at 0 (as SWIM's do).
  std::string SwimTrace() {
    std::string a, b;
    for (int k = 0; k < 300; ++k) {
      a += fmt::format("job{}\t{}\t1\t1000\t0\t10\n", k, k);
      b += fmt::format("job{}\t{}\t1\t{}\t500\t10\n", k, k + (k % 2), 1000 + (k % 7) * (1 << 28));
    }
    return "swim:" + Write("a.tsv", a) + "," + WriteGz("b.tsv.gz", b);
  }

  // Google2019Trace: google-2019 files made to the schema (no rows of the
  // real trace are available): collections 1001..1000+n, collection 1000+k
  // submitted at k s with two instances running 2 s (every tenth 50 s), each
  // seventh starting after the one before (a workflow of two); first, a
  // service (999) whose one instance finishes and the other runs past the
  // files, updated at their end. Rows in time order, or in none (`shuffled`,
  // as a plain BigQuery export may be) but each instance's own rows in
  // order (the reader's rules read an instance's rows in file order).
  std::string Google2019Trace(int n, bool shuffled = false) {
    struct Row {
      int64_t time;
      std::string text;
    };
    std::vector<Row> rows;
    auto event = [&](int64_t time, int type, int64_t collection, int index) {
      rows.push_back({time, fmt::format("{{\"time\": \"{}\", \"type\": {}, \"collection_id\": \"{}\", "
                                        "\"instance_index\": {}, \"resource_request\": {{\"cpus\": 0.25, "
                                        "\"memory\": 0.125}}}}\n",
                                        time, type, collection, index)});
    };
    std::string collections;
    for (int i = 0; i < 2; ++i) {
      event(500000, 0, 999, i);
      event(500001, 3, 999, i);
    }
    event(1500000, 6, 999, 0);
    for (int k = 1; k <= n; ++k) {
      const int64_t submit = int64_t{k} * 1000000, run = (k % 10 == 0 ? 50 : 2) * int64_t{1000000};
      for (int i = 0; i < 2; ++i) {
        event(submit, 0, 1000 + k, i);
        event(submit + 1, 3, 1000 + k, i);
        event(submit + 1 + run, 6, 1000 + k, i);
      }
      collections += fmt::format("{{\"time\": \"{}\", \"type\": 0, \"collection_id\": \"{}\", \"user\": \"u{}\"{}}}\n",
                                 submit, 1000 + k, k % 3,
                                 k % 7 == 0 ? fmt::format(", \"start_after_collection_ids\": [\"{}\"]", 999 + k) : "");
    }
    event(int64_t{n + 60} * 1000000, 10, 999, 1);
    if (shuffled) {
      // A random interleaving: each next row is the next of a random instance.
      std::map<std::string, std::deque<Row>> by_instance;
      for (Row& r : rows) {
        const size_t from = r.text.find("collection_id"), to = r.text.find(", \"resource_request");
        by_instance[r.text.substr(from, to - from)].push_back(std::move(r));
      }
      std::vector<std::deque<Row>*> open;
      for (auto& [key, q] : by_instance) open.push_back(&q);
      std::mt19937 rng(7);
      rows.clear();
      while (!open.empty()) {
        const size_t k = rng() % open.size();
        rows.push_back(std::move(open[k]->front()));
        open[k]->pop_front();
        if (open[k]->empty()) {
          open[k] = open.back();
          open.pop_back();
        }
      }
    } else {
      std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.time < b.time; });
    }
    std::string events;
    for (const Row& r : rows) events += r.text;
    const std::string dir = shuffled ? "g19s" : "g19";
    WriteGz(dir + "/collection_events-000000000000.json.gz", collections);
    const size_t half = events.find('\n', events.size() / 2) + 1;  // two shards
    WriteGz(dir + "/instance_events-000000000000.json.gz", events.substr(0, half));
    WriteGz(dir + "/instance_events-000000000001.json.gz", events.substr(half));
    return "google-2019:" + Path(dir);
  }

  // Alibaba2017WithInstances: Alibaba2017Rows' batch_task with a
  // batch_instance made to the v2017 schema (none of the real trace is
  // bundled): each task's instances, one of them failed and retried.
  std::string Alibaba2017WithInstances() {
    std::string instances;
    for (int t = 0; t < 3; ++t) {
      for (int j = 0; j < 120; ++j) {
        const int id = (j * 37) % 120 + 1, create = 2000 - 7 * j + t;
        for (int i = 0; i < 2; ++i) {
          if (i == 1 && j % 4 == 0) instances += fmt::format("{},{},{},{},9,Failed,1,2,1,0.5,0.01,0.005\n", create, create + 1, id, t + 1);
          instances += fmt::format("{},{},{},{},9,Terminated,1,1,1,0.5,0.01,0.005\n", create + i, create + 3 + (j + i) % 7,
                                   id, t + 1);
        }
      }
    }
    return "alibaba-2017:" + Write("a17i/batch_task.csv", Alibaba2017Rows()) + "," +
           Write("a17i/batch_instance.csv", instances);
  }

  struct TimedRow {
    int64_t time;
    std::string text;
  };
  // Google2011WithShortJobs: a google-2011 trace of `rows` (job 1's) and
  // jobs 2..301 of a task each, submitted at 2..301 s and ending 2 s later
  // (in job_events too), the rows in time order.
  std::string Google2011WithShortJobs(std::vector<TimedRow> rows) {
    std::string ordered, jobs;
    for (int k = 2; k <= 301; ++k) {
      const int64_t submit = int64_t{k} * 1000000;
      rows.push_back({submit, Event(submit, k, 0, 0)});
      rows.push_back({submit + 1, Event(submit + 1, k, 0, 1)});
      rows.push_back({submit + 2000000, Event(submit + 2000000, k, 0, 4)});
      jobs += JobEvent(submit + 2000001, k, 4);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const TimedRow& a, const TimedRow& b) { return a.time < b.time; });
    for (const TimedRow& r : rows) ordered += r.text;
    WriteGz("g/task_events/part-00000-of-00001.csv.gz", ordered);
    WriteGz("g/job_events/part-00000-of-00001.csv.gz", jobs);
    return "google-2011:" + Path("g");
  }

  // ExpectStreams replays `trace` through a source with a queue of 4 and
  // checks that it hands out the jobs of the trace read whole, in the same
  // order with the same ids, while holding at most `held` jobs in its
  // reorder buffer (a reader stating no watermark holds every job).
  void ExpectStreams(const std::string& trace, size_t held, const TraceOptions& options = Options()) {
    TraceReport report;
    const absl::StatusOr<Workload> whole = ReadTraceWorkload(Spec(trace), options, report);
    ASSERT_TRUE(whole.ok()) << StatusMessage(whole.status());
    WorkloadSource expected(*whole);
    auto source = TraceJobSource::Open(Spec(trace), options, 4);
    ASSERT_TRUE(source.ok()) << StatusMessage(source.status());
    for (size_t k = 0; k < whole->jobs.size(); ++k) {
      const std::optional<JobId> want = expected.Next(), got = (*source)->Next();
      ASSERT_TRUE(got.has_value()) << "job " << k;
      ASSERT_EQ(*got, *want) << "job " << k;
      EXPECT_EQ((*source)->workload().jobs[got->value()].name, whole->jobs[want->value()].name);
    }
    EXPECT_FALSE((*source)->Next().has_value());
    EXPECT_TRUE((*source)->status().ok());
    EXPECT_EQ((*source)->report().Lines(), report.Lines());
    EXPECT_LE((*source)->peak_waiting(), held) << "of " << whole->jobs.size() << " jobs";
  }

};

TEST_F(TraceStreamTest, HandsJobsOutInArrivalOrderWithTheWholeReadsIds) {
  const std::string trace = WriteTrace(40);
  TraceReport report;
  const absl::StatusOr<Workload> whole = ReadTraceWorkload(Spec(trace), Options(), report);
  ASSERT_TRUE(whole.ok()) << StatusMessage(whole.status());
  // The reader passes jobs as they end: job 10 (a long one) after job 11.
  ASSERT_EQ(whole->jobs[9].name, "11");
  WorkloadSource expected(*whole);

  auto source = TraceJobSource::Open(Spec(trace), Options(), 2);
  ASSERT_TRUE(source.ok()) << StatusMessage(source.status());
  for (size_t k = 0; k < whole->jobs.size(); ++k) {
    const std::optional<JobId> want = expected.Next(), got = (*source)->Next();
    ASSERT_TRUE(got.has_value()) << "job " << k;
    EXPECT_EQ(*got, *want) << "job " << k;
    EXPECT_EQ((*source)->workload().jobs[got->value()].name, whole->jobs[want->value()].name);
  }
  EXPECT_FALSE((*source)->Next().has_value());  // the end, and it stays the end
  EXPECT_FALSE((*source)->Next().has_value());
  EXPECT_TRUE((*source)->status().ok());
  EXPECT_EQ((*source)->workload().users, whole->users);
  EXPECT_EQ((*source)->report().Lines(), report.Lines());
}

TEST_F(TraceStreamTest, TheFirstJobComesBeforeTheTraceIsRead) {
  const std::string trace = WriteTrace(400);
  auto source = TraceJobSource::Open(Spec(trace), Options(), 4);
  ASSERT_TRUE(source.ok()) << StatusMessage(source.status());
  ASSERT_EQ((*source)->Next(), JobId(0));
  // The reader's watermark lets the first job out once the jobs before the
  // first long one (job 10, ending at 60 s) are read: a few dozen of 400, and
  // the queue holds 4 more at most. Without it, all 400 would be read first.
  EXPECT_LT((*source)->workload().jobs.size(), 80u);
  EXPECT_LT((*source)->LiveJobs(), 80u);
}

TEST_F(TraceStreamTest, Google2011JobWithNoTaskKeptHoldsNothingBack) {
  // Job 1 is submitted first and runs past the files' end (a service: no
  // task finishes, no end in job_events); then 300 jobs of a task each,
  // ending 2 s after their submit. Before the first pass's index, job 1 held
  // the watermark at its submit, and every later job waited in the reorder
  // buffer until the files' end.
  const std::string trace =
      Google2011WithShortJobs({{500000, Event(500000, 1, 0, 0)}, {600000, Event(600000, 1, 0, 1)}});
  ExpectStreams(trace, 8);
  TraceReport report;
  ASSERT_TRUE(ReadTraceWorkload(Spec(trace), Options(), report).ok());
  EXPECT_EQ(report.skipped("jobs with no task kept"), 1u);
  EXPECT_EQ(report.jobs_written, 300u);
}

TEST_F(TraceStreamTest, Google2011JobPassesOnceItsKeptTasksEnd) {
  // Job 1 is submitted first with two tasks. Task 0 finishes at 0.9 s (kept).
  // Task 1 finishes at 0.8 s, is submitted again and runs until it is killed
  // at 400 s (not kept), on a row that also raises the job's priority. Then
  // 300 jobs of a task each, ending 2 s after their submit. Before the first
  // pass indexed the kept tasks, job 1 was held until its last row at 400 s
  // and every later job waited in the reorder buffer until then.
  const auto event = [](int64_t time, int64_t job, int task, int type, int priority) {
    return fmt::format("{},,{},{},7,{},user1,0,{},0.5,0.25,0.001,0\n", time, job, task, type, priority);
  };
  std::vector<TimedRow> rows;
  for (const auto& [time, task, type] : std::vector<std::tuple<int64_t, int, int>>{
           {500000, 0, 0}, {500000, 1, 0}, {600000, 0, 1}, {600000, 1, 1}, {800000, 1, 4}, {900000, 0, 4},
           {1000000, 1, 0}, {1100000, 1, 1}}) {
    rows.push_back({time, event(time, 1, task, type, 2)});
  }
  rows.push_back({400000000, event(400000000, 1, 1, 5, 9)});
  const std::string trace = Google2011WithShortJobs(std::move(rows));
  ExpectStreams(trace, 8);
  TraceReport report;
  const absl::StatusOr<Workload> whole = ReadTraceWorkload(Spec(trace), Options(), report);
  ASSERT_TRUE(whole.ok()) << StatusMessage(whole.status());
  ASSERT_EQ(whole->jobs.size(), 301u);
  const Job& first = whole->jobs[0];
  EXPECT_EQ(first.name, "1");
  EXPECT_EQ(first.num_tasks, 1u);  // task 0 only
  EXPECT_EQ(first.priority, 9);    // from the job's last row, read after the job passed
  EXPECT_EQ(report.skipped("tasks not finished in the files (killed, failed, evicted, lost or running)"), 1u);
}

TEST_F(TraceStreamTest, SwimStreamsEveryFileAtOnce) {
  // Merged by submit time, the reorder buffer holds a job or two, not the 600.
  ExpectStreams(SwimTrace(), 4);
}

// Alibaba2017Rows: 120 jobs of 3 tasks, the file ordered by task (a job's
// rows apart) and the job ids in no arrival order; one row Failed.
std::string Alibaba2017Rows() {
  std::string rows = "task_create_time,task_end_time,job_id,task_id,instance_num,status,plan_cpu,plan_mem\n";
  for (int t = 0; t < 3; ++t) {
    for (int j = 0; j < 120; ++j) {
      const int id = (j * 37) % 120 + 1, create = 2000 - 7 * j + t;
      rows += fmt::format("{},{},{},{},2,{},50,0.01\n", create, create + 10 + t, id, t + 1,
                          j == 5 && t == 1 ? "Failed" : "Terminated");
    }
  }
  return rows;
}

// Names lists a workload's job names, in id order.
std::vector<std::string> Names(const Workload& w) {
  std::vector<std::string> names;
  for (const Job& j : w.jobs) names.push_back(j.name + "@" + std::to_string(j.arrival_us));
  return names;
}

TEST_F(TraceStreamTest, Alibaba2017StreamsInArrivalOrderFromAFileInNoOrder) {
  // 120 jobs of 3 tasks, the file ordered by task (a job's rows apart) and
  // the job ids in no arrival order: before the first pass's index, a replay
  // read the file whole and held every job in its reorder buffer.
  const std::string trace = "alibaba-2017:" + Write("batch_task.csv", Alibaba2017Rows());
  TraceOptions small = Options();
  small.max_held_rows = 40;  // 359 kept rows, jobs of 3 (one of 2): 13 jobs a batch, 10 batches
  ExpectStreams(trace, 4, small);
  ExpectStreams(trace, 4);
  TraceReport one, batched;
  const absl::StatusOr<Workload> a = ReadTraceWorkload(Spec(trace), Options(), one);
  const absl::StatusOr<Workload> b = ReadTraceWorkload(Spec(trace), small, batched);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(Names(*a), Names(*b));
  EXPECT_EQ(a->NumStages(), b->NumStages());
  EXPECT_EQ(batched.noted(kNoteBatches), 10u);
  EXPECT_EQ(one.noted(kNoteBatches), 0u);
  for (size_t k = 1; k < a->jobs.size(); ++k) EXPECT_LE(a->jobs[k - 1].arrival_us, a->jobs[k].arrival_us);
}

TEST_F(TraceStreamTest, Alibaba2018StreamsBatchesInArrivalOrder) {
  // ERDOS layout: each job's rows together, the jobs in no time order. A
  // job j_k is M1 -> R2_1; job 7's R2 failed (the job is skipped).
  const std::string trace = Alibaba2018Trace();
  TraceOptions small = Options();
  small.max_held_rows = 10;  // 118 rows of kept jobs: 12 batches
  ExpectStreams(trace, 4, small);
  TraceReport one, batched;
  const absl::StatusOr<Workload> a = ReadTraceWorkload(Spec(trace), Options(), one);
  const absl::StatusOr<Workload> b = ReadTraceWorkload(Spec(trace), small, batched);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->jobs.size(), 59u);
  EXPECT_EQ(Names(*a), Names(*b));
  EXPECT_EQ(a->jobs[0].name, "j_0");
  EXPECT_EQ(a->jobs[0].arrival_us, 0);  // arrivals count from the earliest kept job
  for (size_t k = 0; k < a->jobs.size(); ++k) {
    ASSERT_EQ(a->jobs[k].stages.size(), b->jobs[k].stages.size());
    for (size_t s = 0; s < a->jobs[k].stages.size(); ++s) {
      EXPECT_EQ(a->jobs[k].stages[s].durations_us, b->jobs[k].stages[s].durations_us) << k;
      EXPECT_EQ(a->jobs[k].stages[s].duration_us, b->jobs[k].stages[s].duration_us) << k;
    }
  }
  EXPECT_EQ(batched.noted(kNoteBatches), 12u);
  // Each instance row is counted once, whatever the batches.
  EXPECT_EQ(one.rows, batched.rows);
  for (const char* reason : {"batch_instance rows of no kept job", "batch_instance rows not Terminated",
                             "jobs with a task not Terminated"}) {
    EXPECT_EQ(one.skipped(reason), batched.skipped(reason)) << reason;
  }
  EXPECT_EQ(one.skipped("batch_instance rows of no kept job"), 60u + 3u + 1u);  // X9 rows, job 7's, nojob's
}

TEST_F(TraceStreamTest, Alibaba2018WithAJobsRowsApartIsReadWhole) {
  const std::string tasks =
      "job_name,task_name,instance_num,status,start_time,end_time,plan_cpu,plan_mem\n"
      "j_2,M1,2,Terminated,50,60,100,0.5\nj_1,M1,1,Terminated,10,20,100,0.5\nj_2,R2_1,1,Terminated,60,70,100,0.5\n";
  const std::string trace = "alibaba-2018:" + Write("batch_task.csv", tasks);
  TraceOptions small = Options();
  small.max_held_rows = 1;
  TraceReport report;
  const absl::StatusOr<Workload> w = ReadTraceWorkload(Spec(trace), small, report);
  ASSERT_TRUE(w.ok()) << StatusMessage(w.status());
  EXPECT_EQ(Names(*w), (std::vector<std::string>{"j_1@0", "j_2@40000000"}));
  EXPECT_EQ(w->jobs[1].stages.size(), 2u);
  EXPECT_EQ(report.noted(kNoteBatches), 0u);
}

TEST_F(TraceStreamTest, Google2019StreamsWorkflowsAsTheirInstancesEnd) {
  // 300 collections (workflows of one or two) and a service: before the
  // two passes, the reader passed every job at the end of its files, and a
  // replay held all 301 in its reorder buffer. Now each workflow is passed
  // once the stream is past its kept instances, the service's as soon as its
  // one finished instance is (its other instance's rows run to the end). The
  // reorder buffer holds the jobs arriving while a 50 s one runs (38 here).
  const std::string trace = Google2019Trace(300);
  ExpectStreams(trace, 48);
  auto source = TraceJobSource::Open(Spec(trace), Options(), 4);
  ASSERT_TRUE(source.ok()) << StatusMessage(source.status());
  ASSERT_EQ((*source)->Next(), JobId(0));
  EXPECT_LT((*source)->workload().jobs.size(), 80u);  // the first job comes before the trace is read
  TraceReport report;
  const absl::StatusOr<Workload> w = ReadTraceWorkload(Spec(trace), Options(), report);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->jobs.size(), 301u - 300u / 7);
  EXPECT_EQ(report.skipped("tasks not finished in the files (killed, failed, evicted, lost or running)"), 1u);
}

TEST_F(TraceStreamTest, Google2019InNoOrderGivesTheSameJobs) {
  // An export in no order: the same jobs (in another order), the same report.
  TraceReport a, b;
  const absl::StatusOr<Workload> ordered = ReadTraceWorkload(Spec(Google2019Trace(120)), Options(), a);
  const absl::StatusOr<Workload> shuffled = ReadTraceWorkload(Spec(Google2019Trace(120, true)), Options(), b);
  ASSERT_TRUE(ordered.ok() && shuffled.ok());
  std::vector<std::string> x = Names(*ordered), y = Names(*shuffled);
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  EXPECT_EQ(x, y);
  EXPECT_EQ(a.Lines(), b.Lines());
  // Handed out in arrival order all the same, however many wait meanwhile.
  ExpectStreams(Google2019Trace(120, true), 200);
}

TEST_F(TraceStreamTest, ConvertThenReplayIsTheDirectReplayForTheStreamingTableFormats) {
  // `weft trace convert` then `weft sim -w` against `weft sim --trace`: the
  // readers pass jobs in a new order since their streaming (alibaba-2017 and
  // swim's files merged by time; alibaba-2018 in batches), and both paths
  // must still number them alike.
  TraceOptions small = Options(8);
  small.max_held_rows = 25;
  const std::vector<std::string> traces = {SwimTrace(), Alibaba2018Trace(),
                                           "alibaba-2017:" + Write("a17/batch_task.csv", Alibaba2017Rows()),
                                           Alibaba2017WithInstances(), Google2019Trace(200), Google2019Trace(200, true)};
  for (size_t t = 0; t < traces.size(); ++t) {
    const std::string w = Path(fmt::format("w{}.json", t));
    {
      TraceReport report;
      JsonWorkloadWriter writer(w);
      ASSERT_TRUE(ReadTrace(Spec(traces[t]), small, writer, report).ok()) << traces[t];
      ASSERT_TRUE(writer.Finish().ok());
    }
    const absl::StatusOr<Workload> converted = ReadWorkloadFile(w);
    ASSERT_TRUE(converted.ok()) << StatusMessage(converted.status());
    for (const std::string policy : {"fifo", "tetris"}) {
      const std::string tag = fmt::format("{}-{}", t, policy);
      auto a = sim::Simulate(*converted, Request(policy, tag + "-converted"));
      auto source = TraceJobSource::Open(Spec(traces[t]), small);
      ASSERT_TRUE(source.ok());
      auto b = sim::Simulate(**source, Request(policy, tag + "-direct"));
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_TRUE(a->status.ok() && b->status.ok()) << StatusMessage(b->status);
      for (const char* file : {"tasks.csv", "jobs.csv"}) {
        const std::string x = Slurp(Path(tag + "-converted/") + file), y = Slurp(Path(tag + "-direct/") + file);
        EXPECT_FALSE(x.empty()) << file;
        EXPECT_EQ(x, y) << traces[t] << " " << policy << " " << file;
      }
    }
  }
}

TEST_F(TraceStreamTest, AReplayIsTheRunOfTheTraceReadWholeByteForByte) {
  const std::string trace = WriteTrace(60);
  TraceReport report;
  const absl::StatusOr<Workload> whole = ReadTraceWorkload(Spec(trace), Options(), report);
  ASSERT_TRUE(whole.ok());
  for (const std::string policy : {"fifo", "sparrow"}) {
    auto a = sim::Simulate(*whole, Request(policy, policy + "-whole"));
    auto source = TraceJobSource::Open(Spec(trace), Options());
    ASSERT_TRUE(source.ok());
    auto b = sim::Simulate(**source, Request(policy, policy + "-stream"));
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_TRUE(a->status.ok() && b->status.ok()) << StatusMessage(b->status);
    for (const char* file : {"tasks.csv", "jobs.csv", "timeline.csv"}) {
      const std::string x = Slurp(Path(policy + "-whole/") + file), y = Slurp(Path(policy + "-stream/") + file);
      EXPECT_FALSE(x.empty()) << file;
      EXPECT_EQ(x, y) << policy << " " << file;
    }
    a->summary_json.erase("wall_seconds");
    b->summary_json.erase("wall_seconds");
    EXPECT_EQ(a->summary_json.dump(), b->summary_json.dump()) << policy;
  }
}

TEST_F(TraceStreamTest, AReplayIsDeterministic) {
  const std::string trace = WriteTrace(60);
  std::string first;
  for (int i = 0; i < 2; ++i) {
    auto source = TraceJobSource::Open(Spec(trace), Options(), 1 + 7 * i);  // queue size does not matter
    ASSERT_TRUE(source.ok());
    auto r = sim::Simulate(**source, Request("sparrow", "run" + std::to_string(i)));
    ASSERT_TRUE(r.ok() && r->status.ok());
    const std::string tasks = Slurp(Path("run" + std::to_string(i) + "/tasks.csv"));
    if (i == 0) first = tasks;
    EXPECT_EQ(tasks, first);
  }
}

// LiveJobsObserver: the most jobs the source held with their stages, seen
// at each job's end.
class LiveJobsObserver : public RunObserver {
 public:
  explicit LiveJobsObserver(const JobSource& source) : source_(source) {}
  void OnJobEnd(const JobRecord& /*record*/) override { most = std::max(most, source_.LiveJobs()); }
  uint64_t most = 0;

 private:
  const JobSource& source_;
};

TEST_F(TraceStreamTest, EndedJobsAreReleasedSoMemoryFollowsTheActiveJobs) {
  // 2,000 jobs over 2,000 s, a few active at a time (16 machines run 32
  // tasks at once; the jobs need 14 on average): an ended job is released a
  // minute (simulated) after its end, 256 at a time.
  const std::string trace = WriteTrace(2000);
  auto source = TraceJobSource::Open(Spec(trace), Options(16));
  ASSERT_TRUE(source.ok());
  TraceJobSource& s = **source;
  auto built = policy::BuildPolicy("fifo", {});
  ASSERT_TRUE(built.ok());
  sim::Engine engine(s, *built->policy, sim::SimOptions{});
  LiveJobsObserver live(s);
  engine.AddObserver(&live);
  ASSERT_TRUE(engine.Run().ok());
  EXPECT_EQ(engine.stats().jobs_succeeded, 2000u);
  EXPECT_EQ(s.workload().jobs.size(), 2000u);
  // Held at once: the jobs ended in the last minute, up to 255 more due for
  // release, the active ones and those read ahead (the reader's watermark
  // lags by the longest running job, 50 s): about 370, never the 2,000.
  EXPECT_GT(live.most, 100u);
  EXPECT_LT(live.most, 450u);
  EXPECT_LT(s.LiveJobs(), 450u);
  // A released job keeps its stub: name, arrival, tasks.
  const Job& first = s.workload().jobs[0];
  EXPECT_TRUE(first.stages.empty());
  EXPECT_EQ(first.name, "1");
  EXPECT_EQ(first.num_tasks, 2u);
}

TEST_F(TraceStreamTest, BadInputFoundWhileTheRunGoesFailsItAndWritesNothing) {
  std::string tasks;
  for (int k = 1; k <= 50; ++k) {
    const int64_t t = int64_t{k} * 1000000;
    tasks += Event(t, k, 0, 0) + Event(t + 1, k, 0, 1) + Event(t + 2, k, 0, 4);
  }
  tasks += "61000000,,99,0,7,0,u,0,2,0.5\n";  // a short row, long after the first jobs
  std::string jobs;
  for (int k = 1; k <= 50; ++k) jobs += JobEvent(int64_t{k} * 1000000 + 3, k, 4);
  WriteGz("t/task_events/part-00000-of-00001.csv.gz", tasks);
  WriteGz("t/job_events/part-00000-of-00001.csv.gz", jobs);
  auto source = TraceJobSource::Open(Spec("google-2011:" + Path("t")), Options(), 2);
  ASSERT_TRUE(source.ok());
  auto r = sim::Simulate(**source, Request("fifo", "out"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(StatusMessage(r.status())), HasSubstr("task_events"));
  EXPECT_FALSE(std::filesystem::exists(Path("out/tasks.csv")));
  EXPECT_FALSE(std::filesystem::exists(Path("out/summary.json")));
}

TEST_F(TraceStreamTest, AnUnreadableTraceFailsAtOpen) {
  auto source = TraceJobSource::Open(Spec("google-2011:" + Path("nothing-here")), Options());
  ASSERT_FALSE(source.ok());
  EXPECT_EQ(source.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace weft
