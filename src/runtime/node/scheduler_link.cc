#include "runtime/node/scheduler_link.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "runtime/auth.h"
#include "runtime/wire.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {

namespace {

constexpr int kMaxMessageBytes = 64 << 20;
constexpr auto kAskTimeout = std::chrono::seconds(2);
constexpr auto kFirstBackoff = std::chrono::milliseconds(50);
constexpr auto kMaxBackoff = std::chrono::milliseconds(1000);

}  // namespace

// Stream: one registration's node stream (callback API). It writes the
// Register message, and its first read must be the Registered reply of the
// expected replica; then every message read goes to the inbox, on the gRPC
// thread that read it, and the next read starts. A hold (AddHold) keeps the
// stream from finishing while Send may still start a write from the main
// thread; it is removed once the stream is over for the link (a read
// failed, a write failed, or the reply was wrong) and no write is
// outstanding. Wait returns the status after gRPC's OnDone.
class SchedulerLink::Stream final : public grpc::ClientBidiReactor<v1::NodeMessage, v1::SchedulerMessage> {
 public:
  Stream(v1::Scheduler::Stub& stub, grpc::ClientContext& context, const v1::NodeMessage& hello, uint32_t replica,
         size_t index, const std::string& address, LinkInbox& inbox)
      : context_(context), replica_(replica), index_(index), address_(address), inbox_(inbox) {
    stub.async()->Connect(&context, this);
    AddHold();
    writing_ = true;
    out_ = hello;
    StartWrite(&out_);
    StartRead(&in_);
    StartCall();
  }

  // Send queues a message and starts its write unless one is outstanding;
  // false before registration and once the stream is over.
  bool Send(const v1::NodeMessage& message) {
    {
      std::lock_guard lock(mu_);
      if (!registered_ || over_) return false;
      if (writing_) {
        queue_.push_back(message);
        return true;
      }
      writing_ = true;
      out_ = message;
    }
    StartWrite(&out_);  // out_ is this thread's until OnWriteDone: writing_ keeps others out
    return true;
  }

  // Wait blocks until the stream is done; whether it registered, and its status.
  std::pair<bool, grpc::Status> Wait() {
    std::unique_lock lock(mu_);
    done_cv_.wait(lock, [&] { return done_; });
    return {registered_, status_};
  }

  void OnReadDone(bool ok) override {
    if (!ok) return Over();
    bool registered;
    {
      std::lock_guard lock(mu_);
      registered = registered_;
    }
    if (registered) {
      inbox_.Push(LinkEvent{.kind = LinkEvent::Kind::kMessage, .link = index_, .message = std::move(in_)});
      in_ = v1::SchedulerMessage();
      StartRead(&in_);
      return;
    }
    if (!in_.has_registered() || in_.registered().replica() != replica_) {
      context_.TryCancel();
      return Over();
    }
    spdlog::info("registered with {} (scheduler replica {} of {}) as slot {}", address_, replica_,
                 std::max(1u, in_.registered().replicas()), in_.registered().slot());
    {
      std::lock_guard lock(mu_);
      registered_ = true;
    }
    inbox_.Push(LinkEvent{.kind = LinkEvent::Kind::kUp, .link = index_, .registered = in_.registered()});
    in_ = v1::SchedulerMessage();
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override {
    bool next = false;
    bool release = false;
    {
      std::lock_guard lock(mu_);
      if (!ok) {
        over_ = true;
        queue_.clear();
      }
      if (!queue_.empty() && !over_) {
        out_ = std::move(queue_.front());
        queue_.pop_front();
        next = true;
      } else {
        writing_ = false;
        release = over_ && !released_;
        released_ |= release;
      }
    }
    if (!ok) context_.TryCancel();  // the stream broke: end the read as well
    if (next) {
      StartWrite(&out_);
    } else if (release) {
      RemoveHold();
    }
  }

  void OnDone(const grpc::Status& status) override {
    std::lock_guard lock(mu_);
    status_ = status;
    done_ = true;
    done_cv_.notify_all();  // under the lock: Wait's caller destroys this stream
  }

 private:
  // Over: no more writes start; the hold goes once none is outstanding.
  void Over() {
    bool release = false;
    {
      std::lock_guard lock(mu_);
      over_ = true;
      queue_.clear();
      release = !writing_ && !released_;
      released_ |= release;
    }
    if (release) RemoveHold();
  }

  grpc::ClientContext& context_;
  const uint32_t replica_;
  const size_t index_;
  const std::string& address_;
  LinkInbox& inbox_;
  v1::SchedulerMessage in_;  // the read outstanding (one at a time)

  std::mutex mu_;  // guards what follows
  std::condition_variable done_cv_;
  bool registered_ = false;
  bool writing_ = false;  // a write is outstanding, of out_
  bool over_ = false;
  bool released_ = false;  // the hold is removed
  bool done_ = false;
  grpc::Status status_;
  v1::NodeMessage out_;
  std::deque<v1::NodeMessage> queue_;
};

LinkInbox::LinkInbox() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
LinkInbox::~LinkInbox() { close(fd_); }

void LinkInbox::Push(LinkEvent event) {
  std::lock_guard lock(mu_);
  queue_.push_back(std::move(event));
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(fd_, &one, sizeof one);
}

std::deque<LinkEvent> LinkInbox::Take() {
  uint64_t count;
  [[maybe_unused]] ssize_t n = read(fd_, &count, sizeof count);
  std::lock_guard lock(mu_);
  return std::exchange(queue_, {});
}

bool ReplicaClaims::Claim(uint32_t replica, size_t link) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = owner_.try_emplace(replica, link);
  return inserted || it->second == link;
}

void ReplicaClaims::Release(uint32_t replica, size_t link) {
  std::lock_guard lock(mu_);
  auto it = owner_.find(replica);
  if (it != owner_.end() && it->second == link) owner_.erase(it);
}

SchedulerLink::SchedulerLink(size_t index, std::string address, LinkIdentity identity, LinkInbox& inbox,
                             ReplicaClaims& claims)
    : index_(index), address_(std::move(address)), identity_(std::move(identity)), inbox_(inbox), claims_(claims) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  // gRPC's own reconnect backoff grows to 120 s by default, and the target's
  // re-resolution after a failure waits at least 30 s: while either waits,
  // every call fails at once, and a node would find a restarted scheduler
  // only tens of seconds later. Capped at 1 s (with the link's own pause of
  // at most 1 s), a node is back within about 2 s of the scheduler's return.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  args.SetInt(GRPC_ARG_DNS_MIN_TIME_BETWEEN_RESOLUTIONS_MS, 200);
  channel_ = grpc::CreateCustomChannel(address_, ChannelCredentials(identity_.tls), args);
  thread_ = std::thread([this] { Run(); });
}

SchedulerLink::~SchedulerLink() {
  {
    std::lock_guard lock(context_mu_);
    stopping_ = true;
    if (context_) context_->TryCancel();
    wake_.notify_all();
  }
  thread_.join();
}

bool SchedulerLink::Write(const v1::NodeMessage& message) {
  std::lock_guard lock(write_mu_);
  return stream_ != nullptr && stream_->Send(message);
}

void SchedulerLink::Close(std::chrono::milliseconds pause) {
  std::lock_guard lock(context_mu_);
  next_pause_ = std::max(next_pause_, pause);
  if (context_) context_->TryCancel();
}

void SchedulerLink::Pause(std::chrono::milliseconds how_long) {
  std::unique_lock lock(context_mu_);
  wake_.wait_for(lock, how_long, [&] { return stopping_; });
}

void SchedulerLink::Unreachable(const grpc::Status& status) {
  const auto now = std::chrono::steady_clock::now();
  if (last_unreachable_ != std::chrono::steady_clock::time_point{} && now - last_unreachable_ < std::chrono::seconds(10)) {
    return;
  }
  spdlog::warn("cannot reach scheduler {}: {}", address_, ExplainUnavailable(status.error_message(), identity_.tls));
  last_unreachable_ = now;
}

void SchedulerLink::Run() {
  auto backoff = kFirstBackoff;
  while (true) {
    {
      std::lock_guard lock(context_mu_);
      if (stopping_) return;
    }
    if (Session()) backoff = kFirstBackoff;
    std::chrono::milliseconds pause;
    {
      std::lock_guard lock(context_mu_);
      pause = std::max(backoff, std::exchange(next_pause_, std::chrono::milliseconds(0)));
    }
    Pause(pause);
    backoff = std::min(backoff * 2, std::chrono::duration_cast<std::chrono::milliseconds>(kMaxBackoff));
  }
}

bool SchedulerLink::Session() {
  auto stub = v1::Scheduler::NewStub(channel_);
  // 1. Which replica listens here?
  v1::StatusReply who;
  {
    grpc::ClientContext ask;
    ask.set_deadline(std::chrono::system_clock::now() + kAskTimeout);
    AddToken(ask, identity_.token);
    v1::StatusRequest request;
    request.set_no_jobs(true);
    const grpc::Status status = stub->Status(&ask, request, &who);
    if (!status.ok()) {
      if (status.error_code() != grpc::StatusCode::UNAVAILABLE &&
          status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
        spdlog::error("scheduler {} refused this node: {}", address_, status.error_message());
      } else {
        Unreachable(status);
      }
      return false;
    }
    last_unreachable_ = {};
  }
  const uint32_t replica = who.replica();
  if (!claims_.Claim(replica, index_)) return false;  // served through another address

  // 2. Register on the node stream.
  auto context = std::make_shared<grpc::ClientContext>();
  AddToken(*context, identity_.token);
  {
    std::lock_guard lock(context_mu_);
    if (stopping_) {
      claims_.Release(replica, index_);
      return false;
    }
    context_ = context;
  }
  v1::NodeMessage hello;
  hello.mutable_register_()->set_name(identity_.node_name);
  *hello.mutable_register_()->mutable_capacity() = ToProto(identity_.capacity);
  hello.mutable_register_()->set_rack(identity_.rack);
  auto stream = std::make_unique<Stream>(*stub, *context, hello, replica, index_, address_, inbox_);
  {
    std::lock_guard lock(write_mu_);
    stream_ = stream.get();
  }
  const auto [registered, status] = stream->Wait();
  {
    std::lock_guard lock(write_mu_);
    stream_ = nullptr;
  }
  stream.reset();
  {
    std::lock_guard lock(context_mu_);
    context_.reset();
  }
  if (registered) {
    spdlog::warn("stream to {} ended: {}", address_, status.ok() ? "ok" : status.error_message());
    // kDown goes first: another link may serve the replica only after the
    // main thread has given up this link's tasks.
    inbox_.Push(LinkEvent{.kind = LinkEvent::Kind::kDown, .link = index_});
  } else if (!status.ok() && status.error_code() != grpc::StatusCode::UNAVAILABLE &&
             status.error_code() != grpc::StatusCode::CANCELLED) {
    spdlog::error("scheduler {} refused this node: {}", address_, status.error_message());
  }
  claims_.Release(replica, index_);
  return registered;
}

}  // namespace weft::runtime
