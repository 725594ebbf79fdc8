#include "runtime/scheduler/service.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "core/status.h"
#include "fmt/format.h"
#include "runtime/auth.h"

namespace weft::runtime {

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  grpc::StatusCode code = grpc::StatusCode::INTERNAL;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument: code = grpc::StatusCode::INVALID_ARGUMENT; break;
    case absl::StatusCode::kNotFound: code = grpc::StatusCode::NOT_FOUND; break;
    case absl::StatusCode::kFailedPrecondition: code = grpc::StatusCode::FAILED_PRECONDITION; break;
    case absl::StatusCode::kUnavailable: code = grpc::StatusCode::UNAVAILABLE; break;
    case absl::StatusCode::kAlreadyExists: code = grpc::StatusCode::ALREADY_EXISTS; break;
    case absl::StatusCode::kResourceExhausted: code = grpc::StatusCode::RESOURCE_EXHAUSTED; break;
    default: break;
  }
  return grpc::Status(code, std::string(StatusMessage(status)));
}

namespace {

// StreamLink: a node's stream as the core sees it. Send queues; a writer
// thread writes in order, so the core never waits on the network.
class StreamLink final : public NodeLink {
 public:
  StreamLink(grpc::ServerContext* context, grpc::ServerReaderWriter<v1::SchedulerMessage, v1::NodeMessage>* stream)
      : context_(context), stream_(stream), writer_([this] { WriteLoop(); }) {}
  ~StreamLink() override { Stop(); }

  void Send(v1::SchedulerMessage message) override {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(message));
    ready_.notify_one();
  }
  void Close() override { context_->TryCancel(); }

  void Stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      ready_.notify_one();
    }
    if (writer_.joinable()) writer_.join();
  }

 private:
  void WriteLoop() {
    std::unique_lock lock(mu_);
    while (true) {
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued was written
      v1::SchedulerMessage message = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      const bool ok = stream_->Write(message);
      lock.lock();
      if (!ok) {
        queue_.clear();
        if (stopping_) return;
      }
    }
  }

  grpc::ServerContext* context_;
  grpc::ServerReaderWriter<v1::SchedulerMessage, v1::NodeMessage>* stream_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<v1::SchedulerMessage> queue_;
  bool stopping_ = false;
  std::thread writer_;
};

// CodeName: a gRPC status code as /metrics labels it ("OK", "NOT_FOUND").
std::string_view CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "OTHER";
  }
}

}  // namespace

grpc::Status SchedulerService::Submit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                                      v1::SubmitReply* reply) {
  return Counted("Submit", ServeSubmit(context, request, reply));
}

grpc::Status SchedulerService::Status(grpc::ServerContext* context, const v1::StatusRequest* request,
                                      v1::StatusReply* reply) {
  return Counted("Status", ServeStatus(context, request, reply));
}

grpc::Status SchedulerService::Cancel(grpc::ServerContext* context, const v1::CancelRequest* request,
                                      v1::CancelReply* reply) {
  return Counted("Cancel", ServeCancel(context, request, reply));
}

grpc::Status SchedulerService::Export(grpc::ServerContext* context, const v1::ExportRequest* request,
                                      grpc::ServerWriter<v1::ExportChunk>* writer) {
  return Counted("Export", ServeExport(context, request, writer));
}

grpc::Status SchedulerService::Connect(grpc::ServerContext* context,
                                       grpc::ServerReaderWriter<v1::SchedulerMessage, v1::NodeMessage>* stream) {
  return Counted("Connect", ServeConnect(context, stream));
}

grpc::Status SchedulerService::Counted(std::string_view method, grpc::Status status) {
  core_.metrics().RpcDone(method, CodeName(status.error_code()));
  return status;
}

grpc::Status SchedulerService::ServeSubmit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                                      v1::SubmitReply* reply) {
  if (grpc::Status s = CheckToken(*context, token_); !s.ok()) return s;
  absl::StatusOr<std::vector<uint32_t>> ids =
      core_.Submit(request->workload_json(), {request->done().begin(), request->done().end()}, request->moved_from());
  if (!ids.ok()) return ToGrpc(ids.status());
  for (uint32_t id : *ids) reply->add_job_ids(id);
  return grpc::Status::OK;
}

grpc::Status SchedulerService::ServeStatus(grpc::ServerContext* context, const v1::StatusRequest* request,
                                      v1::StatusReply* reply) {
  if (grpc::Status s = CheckToken(*context, token_); !s.ok()) return s;
  *reply = core_.Status(*request);
  if (!request->all() && !request->no_jobs() && reply->jobs_size() == 0) {
    std::string message = "no job " + std::to_string(request->job());
    if (reply->replicas() > 1) {
      message += fmt::format(" at scheduler replica {} of {} (it belongs to replica {})", reply->replica(),
                             reply->replicas(), ReplicaIds::Owner(request->job(), reply->replicas()));
    }
    return grpc::Status(grpc::StatusCode::NOT_FOUND, message);
  }
  return grpc::Status::OK;
}

grpc::Status SchedulerService::ServeCancel(grpc::ServerContext* context, const v1::CancelRequest* request,
                                      v1::CancelReply*) {
  if (grpc::Status s = CheckToken(*context, token_); !s.ok()) return s;
  return ToGrpc(core_.Cancel(request->job()));
}

grpc::Status SchedulerService::ServeExport(grpc::ServerContext* context, const v1::ExportRequest*,
                                      grpc::ServerWriter<v1::ExportChunk>* writer) {
  if (grpc::Status s = CheckToken(*context, token_); !s.ok()) return s;
  absl::StatusOr<v1::ExportChunk> chunk = core_.Export();
  if (!chunk.ok()) return ToGrpc(chunk.status());
  // Rows go in chunks well under the message size limit.
  constexpr int kRowsPerChunk = 20'000;
  v1::ExportChunk head;
  head.set_policy(chunk->policy());
  head.set_workload_json(chunk->workload_json());
  head.set_replica(chunk->replica());
  head.set_replicas(chunk->replicas());
  head.set_epoch_unix_us(chunk->epoch_unix_us());
  *head.mutable_jobs() = chunk->jobs();
  if (!writer->Write(head)) return grpc::Status::CANCELLED;
  // WriteRows sends one kind of row after the head, kRowsPerChunk a chunk;
  // `rows` names the kind's field in a chunk.
  auto write_rows = [&](auto rows) {
    const auto& all = rows(*chunk);
    for (int begin = 0; begin < all.size(); begin += kRowsPerChunk) {
      v1::ExportChunk part;
      auto& out = rows(part);
      for (int i = begin; i < std::min(begin + kRowsPerChunk, all.size()); ++i) *out.Add() = all[i];
      if (!writer->Write(part)) return false;
    }
    return true;
  };
  if (!write_rows([](v1::ExportChunk& c) -> auto& { return *c.mutable_attempts(); }) ||
      !write_rows([](v1::ExportChunk& c) -> auto& { return *c.mutable_phases(); }) ||
      !write_rows([](v1::ExportChunk& c) -> auto& { return *c.mutable_series(); })) {
    return grpc::Status::CANCELLED;
  }
  return grpc::Status::OK;
}

grpc::Status SchedulerService::ServeConnect(grpc::ServerContext* context,
                                       grpc::ServerReaderWriter<v1::SchedulerMessage, v1::NodeMessage>* stream) {
  if (grpc::Status s = CheckToken(*context, token_); !s.ok()) return s;
  v1::NodeMessage first;
  if (!stream->Read(&first)) return grpc::Status::CANCELLED;
  if (!first.has_register_()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "a node's first message must be Register");
  }
  StreamLink link(context, stream);
  absl::StatusOr<SchedulerCore::Session> session = core_.RegisterNode(first.register_(), &link);
  if (!session.ok()) {
    link.Stop();
    return ToGrpc(session.status());
  }
  v1::NodeMessage message;
  while (stream->Read(&message)) core_.OnNodeMessage(*session, message);
  core_.NodeGone(*session);
  link.Stop();
  return grpc::Status::OK;
}

}  // namespace weft::runtime
