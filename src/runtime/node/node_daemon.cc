#include "runtime/node/node_daemon.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <mutex>
#include <thread>

#include "core/status.h"
#include "grpcpp/grpcpp.h"
#include "runtime/auth.h"
#include "runtime/node/agent_host.h"
#include "runtime/node/task_runner.h"
#include "runtime/wire.h"
#include "spdlog/spdlog.h"
#include "weft/v1/weft.grpc.pb.h"

namespace weft::runtime {

namespace {

using Clock = std::chrono::steady_clock;
constexpr TimeUs kInstantBuiltinUs = 1000;

// Inbox: what the stream reader thread hands to the main thread.
class Inbox {
 public:
  Inbox() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~Inbox() { close(fd_); }
  void Push(v1::SchedulerMessage m) {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(m));
    Signal();
  }
  void SetClosed() {
    std::lock_guard lock(mu_);
    closed_ = true;
    Signal();
  }
  // Take drains the queue; `closed` tells whether the stream has ended.
  std::deque<v1::SchedulerMessage> Take(bool& closed) {
    uint64_t count;
    [[maybe_unused]] ssize_t n = read(fd_, &count, sizeof count);
    std::lock_guard lock(mu_);
    closed = closed_;
    return std::exchange(queue_, {});
  }
  int fd() const { return fd_; }

 private:
  void Signal() {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(fd_, &one, sizeof one);
  }
  int fd_;
  std::mutex mu_;
  std::deque<v1::SchedulerMessage> queue_;
  bool closed_ = false;
};

void AddEnd(v1::TaskEnds& ends, const TaskExit& exit) {
  v1::TaskEnd* e = ends.add_ends();
  e->set_attempt(exit.id);
  e->set_exit_code(exit.killed ? 137 : exit.exit_code);
  e->set_failed_to_start(exit.failed_to_start);
  e->set_error(exit.error);
  e->set_cpu_seconds(exit.cpu_seconds);
  e->set_peak_rss_bytes(exit.peak_rss_bytes);
}

// Session: one registered connection, until the stream breaks or `stop`.
// Returns true if it got as far as registering (so the caller resets its
// backoff).
bool Session(const NodeConfig& config, const std::string& address, TaskRunner& runner, const std::atomic<bool>& stop,
             int wake_fd) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  auto stub = v1::Scheduler::NewStub(channel);
  grpc::ClientContext context;
  AddToken(context, config.token);
  auto stream = stub->Connect(&context);
  v1::NodeMessage hello;
  hello.mutable_register_()->set_name(config.name);
  *hello.mutable_register_()->mutable_capacity() = ToProto(config.capacity);
  v1::SchedulerMessage reply;
  if (!stream->Write(hello) || !stream->Read(&reply) || !reply.has_registered()) {
    const grpc::Status status = stream->Finish();
    if (!status.ok() && status.error_code() != grpc::StatusCode::UNAVAILABLE) {
      spdlog::error("scheduler {} refused this node: {}", address, status.error_message());
    }
    return false;
  }
  const auto heartbeat = std::chrono::milliseconds(std::max<int64_t>(10, reply.registered().heartbeat_ms()));
  spdlog::info("registered with {} as slot {}", address, reply.registered().slot());

  Inbox inbox;
  std::thread reader([&] {
    v1::SchedulerMessage m;
    while (stream->Read(&m)) inbox.Push(std::move(m));
    inbox.SetClosed();
  });
  auto next_heartbeat = Clock::now() + heartbeat;
  bool broken = false;
  std::unique_ptr<AgentHost> agent;  // the policy's node agent, when it has one
  while (!stop && !broken) {
    auto wake_at = next_heartbeat;
    if (agent && agent->NextTimer()) wake_at = std::min(wake_at, *agent->NextTimer());
    const int timeout_ms = static_cast<int>(std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(wake_at - Clock::now()).count() + 1));
    pollfd fds[3] = {{inbox.fd(), POLLIN, 0}, {runner.wake_fd(), POLLIN, 0}, {wake_fd, POLLIN, 0}};
    poll(fds, wake_fd >= 0 ? 3 : 2, timeout_ms);
    bool closed = false;
    for (v1::SchedulerMessage& m : inbox.Take(closed)) {
      if (m.has_launches()) {
        for (const v1::Launch& l : m.launches().launches()) {
          // A built-in task shorter than a process spawn ends at once, without one.
          const TimeUs burn = l.duration_us() < kInstantBuiltinUs ? 0 : l.duration_us();
          TaskSpec spec{l.attempt(), l.label(), std::nullopt, burn};
          if (l.has_command()) spec.command = l.command();
          if (absl::Status s = runner.Start(spec); !s.ok()) {
            v1::NodeMessage failed;
            AddEnd(*failed.mutable_ends(), TaskExit{.id = l.attempt(), .exit_code = 127, .failed_to_start = true,
                                                     .error = std::string(s.message())});
            broken |= !stream->Write(failed);
          }
        }
      }
      if (m.has_kills()) {
        for (uint64_t id : m.kills().attempts()) runner.Kill(id);
      }
      for (const v1::AgentMail& mail : m.agent_mails().mails()) {
        if (mail.kind() == v1::AgentMail::START) {
          absl::StatusOr<std::unique_ptr<AgentHost>> host = AgentHost::Create(mail.setup());
          if (!host.ok()) {
            spdlog::error("cannot host the node agent: {}", StatusMessage(host.status()));
            continue;
          }
          agent = std::move(*host);
          spdlog::info("hosting the node agent of policy {}", mail.setup().policy());
        }
        if (!agent) continue;
        if (absl::Status s = agent->Deliver(mail); !s.ok()) spdlog::error("node agent: {}", StatusMessage(s));
      }
    }
    if (agent) {
      agent->FireTimers();
      if (v1::AgentActions actions = agent->TakeActions(); actions.actions_size() > 0) {
        v1::NodeMessage out;
        *out.mutable_agent_actions() = std::move(actions);
        broken |= !stream->Write(out);
      }
    }
    broken |= closed;
    if (std::vector<TaskExit> exits = runner.Reap(); !exits.empty()) {
      v1::NodeMessage ends;
      for (const TaskExit& e : exits) AddEnd(*ends.mutable_ends(), e);
      broken |= !stream->Write(ends);
    }
    if (Clock::now() >= next_heartbeat) {
      v1::NodeMessage beat;
      for (const TaskUsage& u : runner.SampleUsage()) {
        v1::TaskUsage* t = beat.mutable_heartbeat()->add_usage();
        t->set_attempt(u.id);
        t->set_cpu_cores(u.cpu_cores);
        t->set_rss_bytes(u.rss_bytes);
      }
      if (!beat.has_heartbeat()) beat.mutable_heartbeat();
      broken |= !stream->Write(beat);
      next_heartbeat = Clock::now() + heartbeat;
    }
  }
  // The scheduler gives up on whatever ran here when the stream ends.
  runner.KillAll();
  runner.Reap();
  context.TryCancel();
  reader.join();
  const grpc::Status status = stream->Finish();
  spdlog::warn("stream to {} ended: {}", address, status.ok() ? "ok" : status.error_message());
  return true;
}

}  // namespace

int RunNode(const NodeConfig& config, const std::atomic<bool>& stop, int wake_fd) {
  std::error_code ec;
  std::filesystem::create_directories(config.work_dir, ec);
  TaskRunner::KillLeftovers(config.work_dir);
  TaskRunner runner(config.work_dir);
  auto backoff = std::chrono::milliseconds(50);
  for (size_t attempt = 0; !stop; ++attempt) {
    const std::string& address = config.schedulers[attempt % config.schedulers.size()];
    if (Session(config, address, runner, stop, wake_fd)) backoff = std::chrono::milliseconds(50);
    if (stop) break;
    pollfd fd{wake_fd, POLLIN, 0};
    poll(&fd, wake_fd >= 0 ? 1 : 0, static_cast<int>(backoff.count()));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
  runner.KillAll();
  return 0;
}

}  // namespace weft::runtime
