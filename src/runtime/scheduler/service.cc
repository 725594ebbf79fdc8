#include "runtime/scheduler/service.h"

#include <deque>
#include <mutex>
#include <optional>
#include <utility>

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

// NodeStream: one node's Connect stream (callback API) and, for the core,
// its NodeLink. Reads are handled on the gRPC thread that completes them:
// the first must be Register, every later one goes to the core at once, and
// the next read starts only after the core has taken the message (so
// messages reach it in order, one at a time per node). Send queues and, if
// no write is outstanding, starts one on the calling thread; each finished
// write starts the next. The stream ends when a read fails (the node left,
// Close cancelled it, or the server is shutting down): the core hears
// NodeGone first, so it drops its pointer to this link, then the status is
// sent once no write is outstanding, and gRPC's OnDone deletes the reactor.
class NodeStream final : public grpc::ServerBidiReactor<v1::NodeMessage, v1::SchedulerMessage>, public NodeLink {
 public:
  NodeStream(grpc::CallbackServerContext* context, SchedulerCore& core, const std::string& token)
      : context_(context), core_(core) {
    if (grpc::Status s = CheckToken(*context, token); !s.ok()) {
      FinishOnce(s);
      return;
    }
    StartRead(&in_);
  }

  void Send(v1::SchedulerMessage message) override {
    {
      std::lock_guard lock(mu_);
      if (finishing_ || broken_) return;
      if (writing_) {
        queue_.push_back(std::move(message));
        return;
      }
      writing_ = true;
      out_ = std::move(message);
    }
    // out_ is this thread's until OnWriteDone: writing_ keeps others out.
    StartWrite(&out_);
  }
  void Close() override { context_->TryCancel(); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      if (session_) core_.NodeGone(*session_);
      FinishOnce(session_ ? grpc::Status::OK : grpc::Status::CANCELLED);
      return;
    }
    if (session_) {
      core_.OnNodeMessage(*session_, in_);
    } else if (!in_.has_register_()) {
      FinishOnce(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "a node's first message must be Register"));
      return;
    } else {
      absl::StatusOr<SchedulerCore::Session> session = core_.RegisterNode(in_.register_(), this);
      if (!session.ok()) {
        FinishOnce(ToGrpc(session.status()));
        return;
      }
      session_ = *session;
    }
    in_.Clear();
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override {
    std::optional<grpc::Status> finish;
    bool next = false;
    {
      std::lock_guard lock(mu_);
      if (!ok) {  // the stream broke: the outstanding read fails too, and ends it
        broken_ = true;
        queue_.clear();
      }
      if (!queue_.empty() && !finishing_) {
        out_ = std::move(queue_.front());
        queue_.pop_front();
        next = true;
      } else {
        writing_ = false;
        if (finishing_) finish = std::exchange(status_, std::nullopt);
      }
    }
    if (next) {
      StartWrite(&out_);
    } else if (finish) {
      Finish(std::move(*finish));
    }
  }

  void OnDone() override { delete this; }

 private:
  // FinishOnce sends `status` (counted in /metrics) now, or when the
  // outstanding write is done: gRPC allows one write at a time, and the
  // status only after it.
  void FinishOnce(grpc::Status status) {
    core_.metrics().RpcDone("Connect", CodeName(status.error_code()));
    {
      std::lock_guard lock(mu_);
      finishing_ = true;
      queue_.clear();
      if (writing_) {
        status_ = std::move(status);
        return;
      }
    }
    Finish(std::move(status));
  }

  grpc::CallbackServerContext* const context_;
  SchedulerCore& core_;
  v1::NodeMessage in_;                               // the read outstanding (one at a time)
  std::optional<SchedulerCore::Session> session_;  // set once registered; read-side only

  std::mutex mu_;  // guards what follows (Send comes from any thread, under the core's lock)
  bool writing_ = false;  // a write is outstanding, of out_
  bool finishing_ = false;
  bool broken_ = false;
  v1::SchedulerMessage out_;
  std::deque<v1::SchedulerMessage> queue_;
  std::optional<grpc::Status> status_;  // to send once the outstanding write is done
};

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

grpc::ServerBidiReactor<v1::NodeMessage, v1::SchedulerMessage>* SchedulerService::Connect(
    grpc::CallbackServerContext* context) {
  return new NodeStream(context, core_, token_);
}

grpc::Status SchedulerService::Counted(std::string_view method, grpc::Status status) {
  core_.metrics().RpcDone(method, CodeName(status.error_code()));
  return status;
}

grpc::Status SchedulerService::ServeSubmit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                                      v1::SubmitReply* reply) {
  if (grpc::Status s = CheckToken(*context, token_); !s.ok()) return s;
  absl::StatusOr<std::vector<uint32_t>> ids =
      core_.Submit(request->workload_json(), {request->done().begin(), request->done().end()}, request->moved_from(),
                   request->idempotency_key());
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

}  // namespace weft::runtime
