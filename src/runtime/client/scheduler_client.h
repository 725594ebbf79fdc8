// File: runtime/client/scheduler_client.h
//
// SchedulerClient: what `weft submit|status|wait|cancel` use to talk to the
// scheduler. `--scheduler a,b` lists the addresses of one scheduler (a call
// that cannot reach one is retried on the next) or of several scheduler
// daemons that are replicas sharing the nodes (runtime/replica_ids.h):
//   - Submit goes to the first address that answers, which owns the jobs;
//   - a call about one job goes to each address in turn until one owns it
//     (the others answer NOT_FOUND);
//   - StatusAll and ExportAll ask every address and keep one answer per
//     replica.
// Errors come back as absl statuses with the server's message
// (INVALID_ARGUMENT stays InvalidArgument, so the CLI can exit 2).
// A token is sent only where runtime/tls.h's CheckTokenDestination allows
// (a unix: socket, TLS, or clear text with `insecure`); a call to any other
// address fails with FailedPrecondition before anything is sent.
// Not thread-safe.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/tls.h"
#include "weft/v1/weft.grpc.pb.h"

namespace weft::runtime {

// kMaxSubmissionBytes: the largest request a scheduler receives (weftd's
// gRPC max receive size); a client reads no more of a workload than this.
inline constexpr size_t kMaxSubmissionBytes = size_t{64} << 20;

class SchedulerClient {
 public:
  // `addresses`: comma-separated HOST:PORT list; `token`: empty for none;
  // `tls`: the client's TLS (runtime/tls.h), empty for clear text;
  // `insecure`: the token may go to clear-text TCP addresses (--insecure).
  SchedulerClient(const std::string& addresses, std::string token, TlsConfig tls = {}, bool insecure = false);

  // done, moved_from: a failover's resubmission (failover.h; SubmitRequest).
  // `key`: the submission's idempotency key (SubmitRequest; empty: none).
  // With a key, a submission whose connection breaks once it was sent (the
  // scheduler killed, restarting) is sent again, with the same key, to the
  // same address, for up to kResubmitFor: the scheduler answers a key it
  // has journaled with the ids it gave, so the jobs are there once. Then
  // Unavailable naming what happened and the key to submit again with; a
  // connection that breaks again once made ends the retries at once.
  absl::StatusOr<std::vector<uint32_t>> Submit(const std::string& workload_json,
                                               const std::vector<v1::DoneTask>& done = {}, uint32_t moved_from = 0,
                                               const std::string& key = {});
  static constexpr std::chrono::seconds kResubmitFor{20};
  // JobStatus: the reply of the replica that owns `job` (with that job only).
  // Unavailable when no address owns it and some could not be reached.
  absl::StatusOr<v1::StatusReply> JobStatus(uint32_t job);
  absl::Status Cancel(uint32_t job);
  // Nodes: the first reachable replica's reply with its nodes (replicas
  // share them) and no jobs.
  absl::StatusOr<v1::StatusReply> Nodes();
  // StatusAll: every reachable replica's reply (all its jobs), by replica.
  absl::StatusOr<std::vector<v1::StatusReply>> StatusAll();
  // ExportAll: every reachable replica's export (its chunks), by replica.
  absl::StatusOr<std::vector<std::vector<v1::ExportChunk>>> ExportAll();

  const std::vector<std::string>& addresses() const { return addresses_; }

 private:
  template <typename Call>
  grpc::Status CallAt(const std::string& address, Call&& call);
  template <typename Call>
  absl::Status WithFailover(Call&& call);
  template <typename Call>
  absl::Status ForJob(uint32_t job, Call&& call);
  // EveryReplica: `ask` at every address (Answer filled in by it); one answer
  // per replica, as `replica_of` names it, in replica order.
  template <typename Answer, typename Ask, typename ReplicaOf>
  absl::StatusOr<std::vector<Answer>> EveryReplica(Ask&& ask, ReplicaOf&& replica_of);

  std::vector<std::string> addresses_;
  // Unreachable: UNAVAILABLE at `address`, with what the user can do about it.
  absl::Status Unreachable(const std::string& address, const grpc::Status& status) const;

  std::string token_;
  TlsConfig tls_;
  bool insecure_ = false;
  size_t current_ = 0;
};

// FromGrpc: a gRPC status as an absl status, keeping its code and message.
absl::Status FromGrpc(const grpc::Status& status);

}  // namespace weft::runtime
