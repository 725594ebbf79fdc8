// File: runtime/client/scheduler_client.h
//
// SchedulerClient: what `weft submit|status|wait|cancel` use to talk to a
// scheduler. Given several addresses (`--scheduler a,b`), a call that cannot
// reach one (UNAVAILABLE) is retried on the next, and the client stays with
// the one that answered. Errors come back as absl statuses with the server's
// message (INVALID_ARGUMENT stays InvalidArgument, so the CLI can exit 2).
// Not thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "weft/v1/weft.grpc.pb.h"

namespace weft::runtime {

class SchedulerClient {
 public:
  // `addresses`: comma-separated HOST:PORT list; `token`: empty for none.
  SchedulerClient(const std::string& addresses, std::string token);

  absl::StatusOr<std::vector<uint32_t>> Submit(const std::string& workload_json);
  absl::StatusOr<v1::StatusReply> Status(std::optional<uint32_t> job);
  absl::Status Cancel(uint32_t job);
  absl::StatusOr<std::vector<v1::ExportChunk>> Export();

  const std::vector<std::string>& addresses() const { return addresses_; }

 private:
  template <typename Call>
  absl::Status WithFailover(Call&& call);

  std::vector<std::string> addresses_;
  std::string token_;
  size_t current_ = 0;
};

// FromGrpc: a gRPC status as an absl status, keeping its code and message.
absl::Status FromGrpc(const grpc::Status& status);

}  // namespace weft::runtime
