// File: runtime/scheduler/service.h
//
// SchedulerService: the gRPC face of `weftd scheduler` (proto/weft/v1). Each
// RPC checks the token first, then hands the request to the SchedulerCore,
// which validates it before changing anything. Every answer is counted by
// method and status code for /metrics.
//
// A node's Connect stream uses gRPC's callback API (issue 20): its reactor
// (service.cc, NodeStream) hands each message read to the core on the gRPC
// thread that read it, and the core's launches go out through the reactor's
// write queue, started on the thread that queued them, one write
// outstanding at a time. So a task end and the launches it causes cost no
// hand-off between threads. The client RPCs stay synchronous: a Submit may
// parse for seconds, which must not hold one of gRPC's event threads.
// Thread-safe: gRPC calls the handlers from its own threads.
#pragma once

#include <string>
#include <string_view>

#include "runtime/scheduler/scheduler_core.h"
#include "weft/v1/weft.grpc.pb.h"

namespace weft::runtime {

// ToGrpc: an absl status as the gRPC status a client sees.
grpc::Status ToGrpc(const absl::Status& status);

class SchedulerService final : public v1::Scheduler::WithCallbackMethod_Connect<v1::Scheduler::Service> {
 public:
  SchedulerService(SchedulerCore& core, std::string token) : core_(core), token_(std::move(token)) {}

  grpc::Status Submit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                      v1::SubmitReply* reply) override;
  grpc::Status Status(grpc::ServerContext* context, const v1::StatusRequest* request,
                      v1::StatusReply* reply) override;
  grpc::Status Cancel(grpc::ServerContext* context, const v1::CancelRequest* request,
                      v1::CancelReply* reply) override;
  grpc::Status Export(grpc::ServerContext* context, const v1::ExportRequest* request,
                      grpc::ServerWriter<v1::ExportChunk>* writer) override;
  // Connect: a reactor serving one node's stream; it deletes itself when done.
  grpc::ServerBidiReactor<v1::NodeMessage, v1::SchedulerMessage>* Connect(grpc::CallbackServerContext* context) override;

 private:
  // Serve*: the RPCs themselves; the public overrides count each answer in
  // the scheduler's metrics (weft_rpc_total{method,code}).
  grpc::Status ServeSubmit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                      v1::SubmitReply* reply);
  grpc::Status ServeStatus(grpc::ServerContext* context, const v1::StatusRequest* request,
                      v1::StatusReply* reply);
  grpc::Status ServeCancel(grpc::ServerContext* context, const v1::CancelRequest* request,
                      v1::CancelReply* reply);
  grpc::Status ServeExport(grpc::ServerContext* context, const v1::ExportRequest* request,
                      grpc::ServerWriter<v1::ExportChunk>* writer);

  grpc::Status Counted(std::string_view method, grpc::Status status);

  SchedulerCore& core_;
  std::string token_;
};

}  // namespace weft::runtime
