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
  channel_ = MakeChannel();
  thread_ = std::thread([this] { Run(); });
}

std::shared_ptr<grpc::Channel> SchedulerLink::MakeChannel() const {
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
  // A channel of its own connections: one made again after a failure must
  // not inherit the failed one's backoff through gRPC's shared pool.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(address_, ChannelCredentials(identity_.tls), args);
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
  return stream_ != nullptr && stream_->Write(message);
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
    if (Session()) {
      backoff = kFirstBackoff;
    } else {
      // gRPC waits seconds before it dials a unix:PATH address again after a
      // refused connection, whatever the backoff settings above (a TCP
      // address is dialled again within them): a new channel dials at once.
      channel_ = MakeChannel();
    }
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
  auto stream = stub->Connect(context.get());
  v1::NodeMessage hello;
  hello.mutable_register_()->set_name(identity_.node_name);
  *hello.mutable_register_()->mutable_capacity() = ToProto(identity_.capacity);
  hello.mutable_register_()->set_rack(identity_.rack);
  hello.mutable_register_()->set_data_address(identity_.data_address);
  v1::SchedulerMessage reply;
  const bool registered = stream->Write(hello) && stream->Read(&reply) && reply.has_registered() &&
                          reply.registered().replica() == replica;
  if (registered) {
    spdlog::info("registered with {} (scheduler replica {} of {}) as slot {}", address_, replica,
                 std::max(1u, reply.registered().replicas()), reply.registered().slot());
    {
      std::lock_guard lock(write_mu_);
      stream_ = stream.get();
    }
    inbox_.Push(LinkEvent{.kind = LinkEvent::Kind::kUp, .link = index_, .registered = reply.registered()});
    v1::SchedulerMessage m;
    while (stream->Read(&m)) {
      inbox_.Push(LinkEvent{.kind = LinkEvent::Kind::kMessage, .link = index_, .message = std::move(m)});
      m = v1::SchedulerMessage();
    }
    std::lock_guard lock(write_mu_);
    stream_ = nullptr;
  }
  context->TryCancel();
  const grpc::Status status = stream->Finish();
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
