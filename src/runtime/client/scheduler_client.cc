#include "runtime/client/scheduler_client.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "fmt/format.h"

#include "runtime/auth.h"
#include "runtime/wire.h"

namespace weft::runtime {

namespace {
constexpr auto kCallTimeout = std::chrono::seconds(30);
constexpr int kMaxMessageBytes = 64 << 20;
}  // namespace

absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  const std::string& m = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT: return absl::InvalidArgumentError(m);
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return absl::InvalidArgumentError(m);  // over the size limit
    case grpc::StatusCode::NOT_FOUND: return absl::NotFoundError(m);
    case grpc::StatusCode::FAILED_PRECONDITION: return absl::FailedPreconditionError(m);
    case grpc::StatusCode::UNAVAILABLE: return absl::UnavailableError(m);
    case grpc::StatusCode::UNAUTHENTICATED: return absl::UnauthenticatedError(m);
    case grpc::StatusCode::DEADLINE_EXCEEDED: return absl::DeadlineExceededError(m);
    default: return absl::InternalError(m);
  }
}

SchedulerClient::SchedulerClient(const std::string& addresses, std::string token, TlsConfig tls, bool insecure)
    : addresses_(SplitAddresses(addresses)), token_(std::move(token)), tls_(std::move(tls)), insecure_(insecure) {}

absl::Status SchedulerClient::Unreachable(const std::string& address, const grpc::Status& status) const {
  return absl::UnavailableError(address + ": " + ExplainUnavailable(status.error_message(), tls_));
}

template <typename Call>
grpc::Status SchedulerClient::CallAt(const std::string& address, Call&& call) {
  // Checked at every call, not once: no path (failover, a replica's
  // address) reaches a stranger's port with the token.
  if (absl::Status s = CheckTokenDestination(address, !token_.empty(), tls_, insecure_); !s.ok()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, std::string(s.message()));
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  auto stub = v1::Scheduler::NewStub(grpc::CreateCustomChannel(address, ChannelCredentials(tls_), args));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
  AddToken(context, token_);
  return call(*stub, context);
}

template <typename Call>
absl::Status SchedulerClient::WithFailover(Call&& call) {
  if (addresses_.empty()) return absl::InvalidArgumentError("no scheduler address given");
  absl::Status last;
  for (size_t tried = 0; tried < addresses_.size(); ++tried) {
    const std::string& address = addresses_[current_];
    const grpc::Status status = CallAt(address, call);
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return FromGrpc(status);
    last = Unreachable(address, status);
    current_ = (current_ + 1) % addresses_.size();
  }
  return last;
}

template <typename Call>
absl::Status SchedulerClient::ForJob(uint32_t job, Call&& call) {
  if (addresses_.empty()) return absl::InvalidArgumentError("no scheduler address given");
  absl::Status unreachable, not_found;
  for (size_t tried = 0; tried < addresses_.size(); ++tried) {
    const std::string& address = addresses_[current_];
    const grpc::Status status = CallAt(address, call);
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
      unreachable = Unreachable(address, status);
    } else if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
      not_found = FromGrpc(status);
    } else {
      return FromGrpc(status);
    }
    current_ = (current_ + 1) % addresses_.size();
  }
  // The job's owner may be the replica that could not be reached.
  if (!unreachable.ok()) return unreachable;
  return not_found.ok() ? absl::NotFoundError(fmt::format("no job {}", job)) : not_found;
}

namespace {

// NeverSent: an UNAVAILABLE that means the call reached no scheduler (no
// connection could be made), so nothing was submitted.
bool NeverSent(const grpc::Status& status) {
  return status.error_message().find("failed to connect") != std::string::npos ||
         status.error_message().find("Failed to connect") != std::string::npos;
}

// RefusedForNow: the scheduler itself refused the submission for now (its
// journal failing, its cluster incomplete: scheduler_core.cc's
// AcceptingJobs says "try again later"), so nothing was submitted.
bool RefusedForNow(const grpc::Status& status) {
  return status.error_message().find("try again later") != std::string::npos;
}

}  // namespace

absl::StatusOr<std::vector<uint32_t>> SchedulerClient::Submit(const std::string& workload_json,
                                                             const std::vector<v1::DoneTask>& done,
                                                             uint32_t moved_from, const std::string& key) {
  v1::SubmitRequest request;
  request.set_workload_json(workload_json);
  for (const v1::DoneTask& d : done) *request.add_done() = d;
  request.set_moved_from(moved_from);
  request.set_idempotency_key(key);
  v1::SubmitReply reply;
  auto submit = [&](v1::Scheduler::Stub& stub, grpc::ClientContext& context) {
    return stub.Submit(&context, request, &reply);
  };
  if (key.empty()) {
    absl::Status s = WithFailover(submit);
    if (!s.ok()) return s;
    return std::vector<uint32_t>(reply.job_ids().begin(), reply.job_ids().end());
  }
  if (addresses_.empty()) return absl::InvalidArgumentError("no scheduler address given");
  // Failover to the next address only while nothing was sent: a submission
  // that may have arrived is retried where it went (another daemon would
  // not know its key).
  grpc::Status status;
  for (size_t tried = 0; tried < addresses_.size(); ++tried) {
    status = CallAt(addresses_[current_], submit);
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE || !NeverSent(status)) break;
    if (tried + 1 < addresses_.size()) current_ = (current_ + 1) % addresses_.size();
  }
  const std::string& address = addresses_[current_];
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE && NeverSent(status)) return Unreachable(address, status);
  const grpc::Status first = status;
  const auto give_up_at = std::chrono::steady_clock::now() + kResubmitFor;
  auto pause = std::chrono::milliseconds(200);
  int resent = 0;
  while (status.error_code() == grpc::StatusCode::UNAVAILABLE && !RefusedForNow(status) &&
         std::chrono::steady_clock::now() < give_up_at) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(2000));
    ++resent;
    status = CallAt(address, submit);
    // Connected, and broken again: not a scheduler coming back (it refuses
    // connections until it listens) but one that will not take this call
    // (e.g. it wants TLS): said as any unreachable scheduler is.
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE && !NeverSent(status) && !RefusedForNow(status)) {
      return Unreachable(address, status);
    }
  }
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE && !RefusedForNow(status)) {
    return absl::UnavailableError(fmt::format(
        "the connection to the scheduler at {} broke during the submission ({}) and it did not answer again "
        "within {} s ({} tries): the jobs may or may not have been accepted; `weft submit --idempotency-key {}` "
        "with the same workload gets their ids if they were, and submits them once if not",
        address, first.error_message(), kResubmitFor.count(), resent, key));
  }
  if (!status.ok()) return FromGrpc(status);
  return std::vector<uint32_t>(reply.job_ids().begin(), reply.job_ids().end());
}

absl::StatusOr<v1::StatusReply> SchedulerClient::JobStatus(uint32_t job) {
  v1::StatusRequest request;
  request.set_job(job);
  v1::StatusReply reply;
  absl::Status s = ForJob(job, [&](v1::Scheduler::Stub& stub, grpc::ClientContext& context) {
    return stub.Status(&context, request, &reply);
  });
  if (!s.ok()) return s;
  return reply;
}

absl::StatusOr<v1::StatusReply> SchedulerClient::Nodes() {
  v1::StatusRequest request;
  request.set_no_jobs(true);
  request.set_nodes(true);
  v1::StatusReply reply;
  absl::Status s = WithFailover([&](v1::Scheduler::Stub& stub, grpc::ClientContext& context) {
    return stub.Status(&context, request, &reply);
  });
  if (!s.ok()) return s;
  return reply;
}

absl::Status SchedulerClient::Cancel(uint32_t job) {
  v1::CancelRequest request;
  request.set_job(job);
  v1::CancelReply reply;
  return ForJob(job, [&](v1::Scheduler::Stub& stub, grpc::ClientContext& context) {
    return stub.Cancel(&context, request, &reply);
  });
}

template <typename Answer, typename Ask, typename ReplicaOf>
absl::StatusOr<std::vector<Answer>> SchedulerClient::EveryReplica(Ask&& ask, ReplicaOf&& replica_of) {
  if (addresses_.empty()) return absl::InvalidArgumentError("no scheduler address given");
  std::map<uint32_t, Answer> by_replica;  // two addresses of one daemon answer once
  absl::Status last;
  for (const std::string& address : addresses_) {
    Answer answer;
    const grpc::Status status = CallAt(address, [&](v1::Scheduler::Stub& stub, grpc::ClientContext& context) {
      return ask(stub, context, answer);
    });
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
      last = Unreachable(address, status);
      continue;
    }
    if (!status.ok()) return FromGrpc(status);
    absl::StatusOr<uint32_t> replica = replica_of(answer);
    if (!replica.ok()) return absl::InternalError(address + ": " + std::string(replica.status().message()));
    by_replica.try_emplace(*replica, std::move(answer));
  }
  if (by_replica.empty()) return last;
  std::vector<Answer> answers;
  for (auto& [replica, answer] : by_replica) answers.push_back(std::move(answer));
  return answers;
}

absl::StatusOr<std::vector<v1::StatusReply>> SchedulerClient::StatusAll() {
  v1::StatusRequest request;
  request.set_all(true);
  return EveryReplica<v1::StatusReply>(
      [&](v1::Scheduler::Stub& stub, grpc::ClientContext& context, v1::StatusReply& reply) {
        return stub.Status(&context, request, &reply);
      },
      [](const v1::StatusReply& reply) -> absl::StatusOr<uint32_t> { return reply.replica(); });
}

absl::StatusOr<std::vector<std::vector<v1::ExportChunk>>> SchedulerClient::ExportAll() {
  return EveryReplica<std::vector<v1::ExportChunk>>(
      [](v1::Scheduler::Stub& stub, grpc::ClientContext& context, std::vector<v1::ExportChunk>& chunks) {
        auto reader = stub.Export(&context, v1::ExportRequest());
        v1::ExportChunk chunk;
        while (reader->Read(&chunk)) chunks.push_back(chunk);
        return reader->Finish();
      },
      [](const std::vector<v1::ExportChunk>& chunks) -> absl::StatusOr<uint32_t> {
        if (chunks.empty()) return absl::InternalError("an empty export");
        return chunks[0].replica();
      });
}

}  // namespace weft::runtime
