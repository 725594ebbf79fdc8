// SchedulerService over real gRPC, in process on loopback: what a raw client
// (not `weft`) can send, and what it gets back (issue 20, bug 9).
#include "runtime/scheduler/service.h"

#include "runtime/scheduler/job_intake.h"

#include <chrono>
#include <filesystem>
#include <thread>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {
namespace {

using ::testing::HasSubstr;

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spdlog::set_level(spdlog::level::warn);
    std::string tmpl = ::testing::TempDir() + "weft_service_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    config_.state_dir = tmpl;
    auto core = SchedulerCore::Open(config_);
    ASSERT_TRUE(core.ok()) << core.status();
    core_ = std::move(*core);
    service_ = std::make_unique<SchedulerService>(*core_, "");
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(port, 0);
    stub_ = v1::Scheduler::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    if (server_) server_->Shutdown();
    std::filesystem::remove_all(config_.state_dir);
  }

  SchedulerConfig config_;
  std::unique_ptr<SchedulerCore> core_;
  std::unique_ptr<SchedulerService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::Scheduler::Stub> stub_;
};

TEST_F(ServiceTest, InvalidUtf8IsRefusedAsInvalidArgumentNamingTheField) {
  grpc::ClientContext context;
  v1::SubmitRequest request;
  request.set_workload_json("{\"weft\": 1, \"jobs\": [{\"name\": \"a\xff\xfe\"}]}");
  v1::SubmitReply reply;
  const grpc::Status status = stub_->Submit(&context, request, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("workload_json"));
  EXPECT_THAT(status.error_message(), HasSubstr("UTF-8"));
}

// What Submit checks before anything changes (job_intake.h): profiled
// phases run for real since session 7 (the node runs each for its duration
// at its usage, the reservation follows the phases): accepted, as are
// resource phases; a profiled phase no node can hold is refused.
TEST(JobIntakeTest, ProfiledPhasesAreAcceptedUnlessNoNodeHoldsOne) {
  Cluster live;
  Resources capacity;
  capacity.set_micro(kCpu, 2 * kMicroUnits);
  capacity.set_micro(kMem, 4 * kMicroUnits);
  live.AddMachine("n0", RackId(0), capacity);
  const std::string phased = R"({"weft": 1, "jobs": [{"name": "j", "stages": [{"name": "r", "tasks": 1,
      "phases": [{"name": "shuffle", "duration": 1, "demand": {"cpu": 1, "mem": 1}},
                 {"name": "reduce", "duration": 2, "demand": {"cpu": 2, "mem": 1}}]}]}]})";
  EXPECT_TRUE(ParseSubmission(phased, live).ok()) << ParseSubmission(phased, live).status();
  const std::string too_big = R"({"weft": 1, "jobs": [{"name": "j", "stages": [{"name": "r", "tasks": 1,
      "phases": [{"name": "shuffle", "duration": 1, "demand": {"cpu": 1, "mem": 1}},
                 {"name": "reduce", "duration": 2, "demand": {"cpu": 3, "mem": 1}}]}]}]})";
  const auto refused = ParseSubmission(too_big, live);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  // The same job with resource phases (monotasks) is accepted.
  const std::string monotasks = R"({"weft": 1, "jobs": [{"name": "j", "stages": [{"name": "r", "tasks": 1,
      "demand": {"cpu": 1, "mem": 1}, "phases": [{"resource": "cpu", "work": 1}]}]}]})";
  EXPECT_TRUE(ParseSubmission(monotasks, live).ok()) << ParseSubmission(monotasks, live).status();
}

TEST_F(ServiceTest, AnInvalidUtf8NodeNameIsRefusedByName) {
  grpc::ClientContext context;
  auto stream = stub_->Connect(&context);
  v1::NodeMessage hello;
  hello.mutable_register_()->set_name("n\xff");
  hello.mutable_register_()->mutable_capacity()->set_cpu(1);
  hello.mutable_register_()->mutable_capacity()->set_mem(1);
  ASSERT_TRUE(stream->Write(hello));
  stream->WritesDone();
  v1::SchedulerMessage answer;
  EXPECT_FALSE(stream->Read(&answer));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("node name"));
}

// The node stream's reactor (issue 20): the first message must be Register.
TEST_F(ServiceTest, ANodeStreamThatDoesNotStartWithRegisterIsRefused) {
  grpc::ClientContext context;
  auto stream = stub_->Connect(&context);
  v1::NodeMessage beat;
  beat.mutable_heartbeat();
  ASSERT_TRUE(stream->Write(beat));
  stream->WritesDone();
  v1::SchedulerMessage answer;
  EXPECT_FALSE(stream->Read(&answer));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("Register"));
}

v1::NodeMessage Hello(const std::string& name) {
  v1::NodeMessage hello;
  hello.mutable_register_()->set_name(name);
  hello.mutable_register_()->mutable_capacity()->set_cpu(4);
  hello.mutable_register_()->mutable_capacity()->set_mem(8);
  return hello;
}

// A node that answers every launch at once, through the reactor both ways:
// 300 tasks, 4 at a time, each end causing the next launch, so launches are
// queued behind writes in flight and every one must arrive. The node's own
// end of the stream then finishes it OK.
TEST_F(ServiceTest, EveryLaunchReachesTheNodeAndEveryEndTheCore) {
  grpc::ClientContext context;
  auto stream = stub_->Connect(&context);
  ASSERT_TRUE(stream->Write(Hello("n0")));
  v1::SchedulerMessage m;
  ASSERT_TRUE(stream->Read(&m));
  ASSERT_TRUE(m.has_registered());
  ASSERT_TRUE(core_->Submit(R"({"weft": 1, "jobs": [{"name": "j", "stages": [{"name": "s", "tasks": 300,
      "duration": 1e-6, "demand": {"cpu": 1, "mem": 1}}]}]})").ok());
  int launched = 0;
  while (launched < 300 && stream->Read(&m)) {
    if (!m.has_launches()) continue;
    v1::NodeMessage ends;
    for (const v1::Launch& l : m.launches().launches()) {
      ends.mutable_ends()->add_ends()->set_attempt(l.attempt());
      ++launched;
    }
    ASSERT_TRUE(stream->Write(ends));
  }
  EXPECT_EQ(launched, 300);
  // The last ends are in flight: the job ends once the core has read them.
  v1::StatusRequest request;
  request.set_job(0);
  for (int i = 0; i < 200 && core_->Status(request).jobs(0).state() != "succeeded"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(core_->Status(request).jobs(0).state(), "succeeded");
  stream->WritesDone();
  while (stream->Read(&m)) {
  }
  EXPECT_TRUE(stream->Finish().ok());
}

// The same node registering again on a new stream evicts the old one: the
// core closes it (Close cancels the reactor's call) and the new one serves.
TEST_F(ServiceTest, ARegistrationOfTheSameNodeEndsItsOldStream) {
  grpc::ClientContext first_context;
  auto first = stub_->Connect(&first_context);
  ASSERT_TRUE(first->Write(Hello("n0")));
  v1::SchedulerMessage m;
  ASSERT_TRUE(first->Read(&m));
  ASSERT_TRUE(m.has_registered());
  grpc::ClientContext second_context;
  auto second = stub_->Connect(&second_context);
  ASSERT_TRUE(second->Write(Hello("n0")));
  ASSERT_TRUE(second->Read(&m));
  EXPECT_TRUE(m.has_registered());
  EXPECT_FALSE(first->Read(&m));  // ended by the scheduler
  EXPECT_EQ(first->Finish().error_code(), grpc::StatusCode::CANCELLED);
  second_context.TryCancel();
  second->Finish();
}

}  // namespace
}  // namespace weft::runtime
