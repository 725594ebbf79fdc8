// A real `weftd node` against a fake scheduler that sends launches past the
// node's capacity (docs/runtime.md, "Enforcement"): the node refuses the
// one that does not fit next to what it runs, as a TaskEnd with
// failed_to_start and a reason naming the resource, runs the others, and
// admits again once room comes back; a resource the policy overbooks
// (Registered.overbooked) is not checked.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "weft/v1/weft.grpc.pb.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

v1::Launch BuiltIn(uint64_t attempt, double cpu, int64_t duration_us) {
  v1::Launch l;
  l.set_attempt(attempt);
  l.set_label("j-s-" + std::to_string(attempt) + "-0");
  l.set_duration_us(duration_us);
  l.mutable_reserve()->set_cpu(cpu);
  l.mutable_reserve()->set_mem(0.1);
  return l;
}

// FakeScheduler: serves one node stream; Send queues launches for it, and
// the task ends it reports are kept by attempt.
class FakeScheduler final : public v1::Scheduler::Service {
 public:
  explicit FakeScheduler(uint32_t overbooked) : overbooked_(overbooked) {}

  grpc::Status Status(grpc::ServerContext*, const v1::StatusRequest*, v1::StatusReply* reply) override {
    reply->set_replicas(1);
    return grpc::Status::OK;
  }
  grpc::Status Connect(grpc::ServerContext*,
                       grpc::ServerReaderWriter<v1::SchedulerMessage, v1::NodeMessage>* stream) override {
    v1::NodeMessage m;
    if (!stream->Read(&m) || !m.has_register_()) return grpc::Status::CANCELLED;
    v1::SchedulerMessage registered;
    registered.mutable_registered()->set_heartbeat_ms(100);
    registered.mutable_registered()->set_replicas(1);
    registered.mutable_registered()->set_overbooked(overbooked_);
    stream->Write(registered);
    {
      std::lock_guard lock(mu_);
      stream_ = stream;
    }
    cv_.notify_all();
    while (stream->Read(&m)) {
      std::lock_guard lock(mu_);
      for (const v1::TaskEnd& e : m.ends().ends()) ends_[e.attempt()] = e;
      cv_.notify_all();
    }
    std::lock_guard lock(mu_);
    stream_ = nullptr;
    return grpc::Status::OK;
  }

  bool WaitRegistered() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return stream_ != nullptr; });
  }
  void Send(std::vector<v1::Launch> launches) {
    v1::SchedulerMessage m;
    for (v1::Launch& l : launches) *m.mutable_launches()->add_launches() = std::move(l);
    std::lock_guard lock(mu_);
    ASSERT_NE(stream_, nullptr);
    stream_->Write(m);
  }
  // End: attempt's TaskEnd, once it came (nullopt after 30 s).
  std::optional<v1::TaskEnd> End(uint64_t attempt) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, std::chrono::seconds(30), [&] { return ends_.contains(attempt); })) return std::nullopt;
    return ends_[attempt];
  }

 private:
  const uint32_t overbooked_;
  std::mutex mu_;
  std::condition_variable cv_;
  grpc::ServerReaderWriter<v1::SchedulerMessage, v1::NodeMessage>* stream_ = nullptr;
  std::map<uint64_t, v1::TaskEnd> ends_;
};

class NodeAdmissionTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (node_ > 0) {
      kill(node_, SIGTERM);
      waitpid(node_, nullptr, 0);
    }
    if (server_) server_->Shutdown();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Start: the fake scheduler (overbooking `overbooked`) and a weftd node of
  // one core registered with it.
  FakeScheduler& Start(uint32_t overbooked) {
    std::string tmpl = ::testing::TempDir() + "weft_admission_XXXXXX";
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    scheduler_ = std::make_unique<FakeScheduler>(overbooked);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(scheduler_.get());
    server_ = builder.BuildAndStart();
    std::vector<std::string> args = {WEFTD_BINARY, "node", "--scheduler", "127.0.0.1:" + std::to_string(port),
                                     "--name", "n", "--cpu", "1", "--mem", "1", "--work-dir", (dir_ / "n").string()};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string out = (dir_ / "n.out").string();
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    EXPECT_EQ(posix_spawn(&node_, WEFTD_BINARY, &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_TRUE(scheduler_->WaitRegistered());
    return *scheduler_;
  }

  std::filesystem::path dir_;
  std::unique_ptr<FakeScheduler> scheduler_;
  std::unique_ptr<grpc::Server> server_;
  pid_t node_ = 0;
};

TEST_F(NodeAdmissionTest, ALaunchPastTheNodesCapacityIsRefusedAndSaysWhy) {
  FakeScheduler& s = Start(/*overbooked=*/0);
  s.Send({BuiltIn(1, 0.6, 300'000), BuiltIn(2, 0.6, 300'000)});
  const std::optional<v1::TaskEnd> refused = s.End(2);
  ASSERT_TRUE(refused.has_value());
  EXPECT_TRUE(refused->failed_to_start());
  EXPECT_EQ(refused->exit_code(), 127);
  EXPECT_THAT(refused->error(), HasSubstr("refused by the node: the task's cpu 0.6 + 0.6 reserved > its capacity 1"));
  const std::optional<v1::TaskEnd> ran = s.End(1);
  ASSERT_TRUE(ran.has_value());
  EXPECT_EQ(ran->exit_code(), 0);
  EXPECT_FALSE(ran->failed_to_start());
  // Its room came back with its end: the same launch fits now.
  s.Send({BuiltIn(3, 0.6, 0)});
  const std::optional<v1::TaskEnd> later = s.End(3);
  ASSERT_TRUE(later.has_value());
  EXPECT_FALSE(later->failed_to_start()) << later->error();
}

TEST_F(NodeAdmissionTest, AResourceThePolicyOverbooksIsNotChecked) {
  FakeScheduler& s = Start(/*overbooked=*/1u << 0);  // cpu
  s.Send({BuiltIn(1, 0.6, 100'000), BuiltIn(2, 0.6, 100'000)});
  for (uint64_t a : {1, 2}) {
    const std::optional<v1::TaskEnd> end = s.End(a);
    ASSERT_TRUE(end.has_value()) << a;
    EXPECT_FALSE(end->failed_to_start()) << end->error();
    EXPECT_EQ(end->exit_code(), 0);
  }
}

}  // namespace
}  // namespace weft
