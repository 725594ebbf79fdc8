// File: policy/common/container_protocol.h
//
// The container request/grant protocol of two-level policies (a job manager
// per job asks the cluster scheduler for containers; the scheduler grants them
// as room appears; the job manager runs its tasks inside what it holds, see
// container_pool.h, and releases containers when it no longer wants them).
// Spark-like executors (baseline/executor), COBRA (cobra/), Ursa-on-YARN and
// RAS's per-job slots all speak it, so it lives here rather than in any one
// of them.
//
// Three pieces:
//   - the wire format: ContainerRequest carried by a Message of type
//     kRequestContainers or kReplaceRequests (Encode/DecodeContainerRequest);
//   - ContainerRequester, the job manager's side: sends requests and counts
//     what is still outstanding;
//   - ContainerGranter, the cluster scheduler's side: keeps each job's
//     requests in the order the scheduler chooses (an OrderKey per job, e.g.
//     FIFO or fair), grants them on the lowest-numbered machine with room,
//     after a configurable response time (the time a real resource manager
//     takes to answer, COBRA's "container response time", Table I: a
//     property of the scheduler, not of the message latency), and lets the
//     scheduler cap what each job may get in a pass (an allowance, so that a
//     scheduler dividing containers among jobs by their desires uses the same
//     book).
//
// Container sizes: weft reserves every resource a task demands, including
// disk and net bandwidth, while YARN containers carry only cores and memory;
// ContainerSizeOn gives a container asked for as `floor` a share of the
// machine's disk and net bandwidth in proportion to its cores, cut to the
// machine (baseline/executor.h has the reasoning).
//
// CPU over-subscription (Ursa's Table 5, YARN's NodeManager advertising more
// vcores than the machine has): with a factor k > 1 the granter counts each
// machine's cpu as k times its cores, so up to k times as many containers'
// cores are granted there (their disk and net shares shrink by k so that
// those still fit); the tasks in them then share the real cores, which the
// execution model charges for. The policy must declare cpu overbooked
// (Policy::overbooked) when k > 1. kCpuOversubscriptionParam is the
// parameter every policy with the option shares.
//
// Not thread-safe; each object is owned by one role.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "core/time.h"
#include "model/resources.h"
#include "policy/common/machine_finder.h"
#include "policy/common/ready_pool.h"
#include "policy/context.h"
#include "policy/message.h"
#include "policy/params.h"

namespace weft::policy {

// Message types of the protocol (Message::type). Policies that add their own
// messages number them from kFirstPolicyContainerMessage.
enum ContainerMessage : uint32_t {
  // job manager -> scheduler: grant the sender's job `a` more containers,
  // each of at least `floor` as ContainerSizeOn gives it on the machine, and
  // only on machines whose capacity holds `must_fit` (zero: any machine; the
  // floor itself: an exact grant, never cut down). `list` is
  // EncodeResources(floor) followed by EncodeResources(must_fit). The job is
  // the sender's (Address::index); task, b and c are unused. There is no
  // reply message: the grant is the answer (OnContainerGranted).
  kRequestContainers = 1,
  // job manager -> scheduler: as kRequestContainers, but first drop every
  // request of the sender's job still waiting: these containers replace them.
  kReplaceRequests = 2,
  kFirstPolicyContainerMessage = 16,
};

struct ContainerRequest {
  Resources floor;
  Resources must_fit;  // only machines whose capacity holds it (zero: any)
  int64_t count = 0;
  bool replace = false;  // drop the job's waiting requests first
};

Message EncodeContainerRequest(const ContainerRequest& request);
// DecodeContainerRequest: the request a message carries, or nullopt when it
// is not a request or asks for nothing (count <= 0 or a zero floor).
std::optional<ContainerRequest> DecodeContainerRequest(const Message& message);

// ContainerSizeOn: the size a container asked for as `floor` gets on a
// machine of capacity `cap`: disk and net raised to the share of the machine
// in proportion to the floor's cores, then everything cut to the machine.
Resources ContainerSizeOn(const Resources& floor, const Resources& cap);

// ComponentMax: per resource, the larger of a and b (a container floor grown
// to hold a stage's tasks, as a Spark user sizes executors).
Resources ComponentMax(const Resources& a, const Resources& b);

// The `cpu_oversubscription` parameter (k, default 1: none).
ParamSpec CpuOversubscriptionParam();

// The job manager's side: what it asked for and has not been granted yet.
class ContainerRequester {
 public:
  ContainerRequester(Context& ctx, const Address& scheduler) : ctx_(ctx), scheduler_(scheduler) {}

  // Request asks for `count` containers of at least `floor`, only on
  // machines whose capacity holds `must_fit` (zero: anywhere); `replace`:
  // these replace every request still waiting. Nothing is sent for count <= 0.
  void Request(const Resources& floor, int64_t count, const Resources& must_fit, bool replace = false);
  // Granted notes one container arrived (OnContainerGranted).
  void Granted() {
    if (outstanding_ > 0) --outstanding_;
  }
  int64_t outstanding() const { return outstanding_; }

 private:
  Context& ctx_;
  Address scheduler_;
  int64_t outstanding_ = 0;  // containers asked for and not granted yet
};

// The cluster scheduler's side: the book of waiting requests and the grants.
class ContainerGranter {
 public:
  // `response_time_us`: a request becomes grantable that long after it
  // arrives (0: at once, and no timer is ever set). `timer_tag` is the tag
  // of the timers the granter sets; its owner passes its OnTimer calls with
  // that tag to OnTimer.
  // `cpu_oversubscription`: k above (>= 1).
  ContainerGranter(Context& ctx, TimeUs response_time_us, uint64_t timer_tag, double cpu_oversubscription = 1);

  // Add queues a job's request; the job is ordered by `key` when it has no
  // request waiting yet (a job keeps its key while it has requests).
  void Add(JobId job, const OrderKey& key, const ContainerRequest& request);
  // Drop forgets every request of a job (it finished).
  void Drop(JobId job);
  // Cap trims the job's waiting requests, latest first, to at most
  // `max_waiting` containers (a scheduler whose division gives the job less).
  void Cap(JobId job, int64_t max_waiting);
  // Refresh: the room on a machine changed (a release, up or down).
  void Refresh(MachineId machine) { finder_.Refresh(machine); }
  // OnTimer: true when the tag was the granter's (a response time elapsed;
  // the owner should then call TryGrant).
  bool OnTimer(uint64_t tag) const { return tag == timer_tag_; }

  // Allowance: how many more containers the job may be granted in this pass
  // (a scheduler dividing containers by desire); negative: unlimited.
  using Allowance = std::function<int64_t(JobId)>;
  // OnGrant hears every container granted (for a scheduler's own books).
  using OnGrant = std::function<void(JobId, ContainerId, MachineId)>;
  // TryGrant grants what fits, jobs in key order. Within a job requests are
  // served in order and its first unsatisfiable request waits; later jobs may
  // take room it cannot use. Returns the number of containers granted.
  int64_t TryGrant(const Allowance& allowance = {}, const OnGrant& on_grant = {});

  // Waiting: containers the job asked for and was not granted yet (granted
  // or not yet grantable).
  int64_t Waiting(JobId job) const;
  bool empty() const { return queue_.empty(); }
  TimeUs response_time_us() const { return response_time_us_; }

 private:
  struct Request {
    Resources floor;
    Resources must_fit;
    int64_t count = 0;
    TimeUs ready_at = 0;  // grantable from then on (the response time)
    bool SameSize(const Request& o) const { return floor == o.floor && must_fit == o.must_fit; }
  };
  struct JobRequests {
    JobId job;
    std::vector<Request> requests;  // served in order
  };

  // Serve grants the job's requests in order until one finds no room (which
  // it adds to `no_room`), one like those in `no_room` comes up, one is not
  // grantable yet, or `limit` grants were made. Returns the grants made.
  int64_t Serve(JobRequests& job, std::vector<Request>& no_room, int64_t limit, const OnGrant& on_grant);
  // FirstMachine: the lowest-numbered machine where a container for `r`
  // fits, with the size it gets there; an invalid id when none.
  MachineId FirstMachine(const Request& r, Resources* size) const;

  Context& ctx_;
  TimeUs response_time_us_;
  uint64_t timer_tag_;
  std::map<OrderKey, JobRequests> queue_;           // jobs with requests waiting
  absl::flat_hash_map<uint32_t, OrderKey> key_of_;  // job id -> its key in queue_
  MachineFinder finder_;
  Resources smallest_cap_;  // the least cores and memory of any machine
  double cpu_oversubscription_;
};

}  // namespace weft::policy
