#include "runtime/node/node_daemon.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>
#include <unordered_map>

#include "absl/container/flat_hash_map.h"
#include "core/status.h"
#include "fmt/format.h"
#include "runtime/node/agent_host.h"
#include "runtime/node/data_address.h"
#include "runtime/node/data_server.h"
#include "runtime/node/link_lease.h"
#include "runtime/node/node_book.h"
#include "runtime/node/node_keeper.h"
#include "runtime/node/node_reports.h"
#include "runtime/node/scheduler_link.h"
#include "runtime/node/task_runner.h"
#include "runtime/node/task_specs.h"
#include "runtime/replica_ids.h"
#include "runtime/wire.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kIdleWake = std::chrono::milliseconds(100);
constexpr auto kRefusedPause = std::chrono::milliseconds(5000);  // before retrying a daemon it refused
// Messages that may start processes are served only while the lease has at
// least a quarter of it left (and at most this much), so the keeper never
// freezes a child between its clone and its exec, which would leave the
// daemon waiting for that exec (TaskSpawner) with nothing to thaw it.
constexpr int64_t kServeGuardNs = 200'000'000;
// A ticket lives at most this long whatever the scheduler says: a transfer
// is read as its phase starts, and an unused ticket must not linger.
constexpr int64_t kMaxTicketMs = 10 * 60 * 1000;
// Origin::phase of a shuffle copy's process.
constexpr int64_t kCopy = -2;

// Node: the daemon's main thread. It owns the task runner (children die
// with the thread that forked them) and the hosted node agent, and serves
// every scheduler link: runs their launches, reports ends and heartbeats
// on the link that launched the task, and routes the agent's actions to
// the daemon that owns the job or replica they are about.
class Node {
 public:
  Node(const NodeConfig& config, const std::atomic<bool>& stop, int wake_fd)
      : config_(config),
        stop_(stop),
        wake_fd_(wake_fd),
        runner_(config.work_dir,
                config.no_cgroups ? std::string() : TaskCgroups::GroupName(config.name, config.work_dir)),
        book_(config.capacity) {}

  void Run() {
    spdlog::info("{}", runner_.cgroups().Describe());
    // Before the links start their threads: the keeper is a fork.
    keeper_ = NodeKeeper::Start(config_.work_dir, runner_.cgroups());
    if (!keeper_) spdlog::warn("no keeper process: a kill -9 of this daemon leaves its tasks to the next start");
    if (keeper_) spdlog::info("keeper process {}", keeper_->pid());
    StartDataPort();
    const LinkIdentity identity{config_.name, config_.capacity, config_.token, config_.rack, config_.tls,
                                data_ ? data_->address() : std::string()};
    for (size_t i = 0; i < config_.schedulers.size(); ++i) {
      links_.push_back(std::make_unique<SchedulerLink>(i, config_.schedulers[i], identity, inbox_, claims_));
      states_.emplace_back();
    }
    while (!stop_) {
      Wait();
      CheckStall();
      for (LinkEvent& e : inbox_.Take()) Handle(e);
      PublishLease();
      ServeHeld();
      if (agent_) {
        agent_->FireTimers();
        RouteAgentActions();
      }
      ReportEnds();
      Heartbeats();
    }
    // Frozen tasks die only once thawed: the keeper lets them go once they are signalled.
    runner_.KillAll([this] {
      if (keeper_) keeper_->SetLease(NodeKeeper::kNoLease);
    });
    links_.clear();  // ends every stream
  }

  // StartDataPort serves this node's bytes to the readers the scheduler
  // sends (data_server.h), on --data-listen or the address that reaches the
  // first scheduler. Without one the node still runs; its net phases then
  // read from wherever the scheduler says, and none can read from it.
  void StartDataPort() {
    const std::string host = !config_.data_host.empty()       ? config_.data_host
                             : config_.schedulers.empty()     ? std::string("127.0.0.1")
                                                              : DataHostReaching(config_.schedulers.front());
    absl::StatusOr<std::unique_ptr<DataServer>> data = DataServer::Start(host);
    if (!data.ok()) {
      spdlog::error("no data port: {}", StatusMessage(data.status()));
      return;
    }
    data_ = std::move(*data);
    spdlog::info("data port on {}", data_->address());
  }

 private:
  // A running task: the link and session that launched it, and its attempt id there.
  struct Origin {
    size_t link = 0;
    uint64_t session = 0;
    uint64_t attempt = 0;
    int64_t phase = -1;  // the phase this process runs, or -1: the whole task, kCopy: a shuffle copy
    uint64_t transfer = 0;  // a shuffle copy's transfer
  };
  // A launched task with phases: no process of its own; each phase runs as
  // one when the scheduler starts it.
  struct Phased {
    v1::Launch launch;
    uint64_t runner_id = 0;  // of the running phase; 0 between phases
  };
  struct LinkState {
    bool up = false;
    uint64_t session = 0;
    uint32_t replica = 0;
    uint32_t replicas = 1;
    std::chrono::milliseconds heartbeat{500};
    std::chrono::milliseconds node_timeout{0};  // the scheduler's; 0: not said
    Clock::time_point next_heartbeat;
    Clock::time_point last_heartbeat;  // sent (or registration)
    LinkLease lease;  // the scheduler's lease on this node (link_lease.h)
    absl::flat_hash_map<uint64_t, uint64_t> running;  // attempt -> runner id
    absl::flat_hash_map<uint64_t, Phased> phased;     // attempt -> its phases
    std::unordered_multimap<uint64_t, uint64_t> copies;  // attempt -> runner ids of its shuffle copies
  };

  void Wait() {
    auto wake_at = Clock::now() + kIdleWake;
    for (const LinkState& s : states_) {
      if (s.up) wake_at = std::min(wake_at, s.next_heartbeat);
      if (s.up && s.lease.granted_by_scheduler()) wake_at = std::min(wake_at, s.lease.next_renewal());
    }
    // Held messages wait for a grant (the inbox) or for the keeper's thaw.
    if (!held_.empty()) wake_at = std::min(wake_at, Clock::now() + std::chrono::milliseconds(NodeKeeper::kPollMs));
    if (agent_ && agent_->NextTimer()) wake_at = std::min(wake_at, *agent_->NextTimer());
    const int timeout_ms = static_cast<int>(std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(wake_at - Clock::now()).count() + 1));
    pollfd fds[3] = {{inbox_.fd(), POLLIN, 0}, {runner_.wake_fd(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    poll(fds, wake_fd_ >= 0 ? 3 : 2, timeout_ms);
  }

  void Handle(LinkEvent& e) {
    LinkState& s = states_[e.link];
    switch (e.kind) {
      case LinkEvent::Kind::kUp: {
        const uint32_t replicas = std::max(1u, e.registered.replicas());
        if (std::optional<uint32_t> other = UpReplicas(); other && *other != replicas) {
          return Refuse(e.link, fmt::format("it says {} replicas share this node, the others say {}", replicas, *other));
        }
        s.up = true;
        ++s.session;
        s.replica = e.registered.replica();
        s.replicas = replicas;
        s.heartbeat = std::chrono::milliseconds(std::max<int64_t>(10, e.registered.heartbeat_ms()));
        s.node_timeout = std::chrono::milliseconds(e.registered.node_timeout_ms());
        s.last_heartbeat = Clock::now();
        s.next_heartbeat = s.last_heartbeat + s.heartbeat;
        s.lease.Start(e.registered.lease_ms(), s.last_heartbeat);  // renewed at once
        // Every daemon sharing the node runs the same policy (agent_host
        // checks it), so the last one to register speaks for all.
        book_.set_overbooked(static_cast<ResourceMask>(e.registered.overbooked() & kAllResources));
        return;
      }
      case LinkEvent::Kind::kDown:
        LinkDown(e.link);
        return;
      case LinkEvent::Kind::kMessage:
        if (!s.up) return;
        if (e.message.has_lease()) return s.lease.Granted(e.message.lease().seq(), Clock::now());
        // Served in order once the node holds its lease (ServeHeld).
        held_.push_back(std::move(e));
        return;
    }
  }

  // Refuse: the daemon on this link cannot share the node with the others:
  // nothing it sends is served (it ran nothing here yet), and it is closed.
  void Refuse(size_t link, const std::string& why) {
    spdlog::error("scheduler {} is not served: {}", links_[link]->address(), why);
    states_[link].up = false;
    links_[link]->Close(kRefusedPause);
  }

  // CheckStall runs first after every wait. A daemon that was stopped
  // (SIGSTOP) past a scheduler's node timeout, or that has heard no grant
  // of its lease for that long, has been (or is about to be) declared lost
  // there, and its tasks run again elsewhere: it kills them and registers
  // again, before it reads anything the link queued meanwhile. Its keeper
  // froze the tasks when their lease ran out, so a first copy cannot have
  // run on (and finished) beside the rerun; the keeper thaws what is left
  // once PublishLease says a lease holds again.
  void CheckStall() {
    const auto now = Clock::now();
    for (size_t l = 0; l < states_.size(); ++l) {
      LinkState& s = states_[l];
      if (!s.up || s.node_timeout.count() <= 0) continue;
      const bool stalled = now - s.last_heartbeat >= s.node_timeout;
      if (!stalled && (!s.lease.granted_by_scheduler() || now - s.lease.last_grant() < s.node_timeout)) continue;
      spdlog::warn("{} for {} ms, past scheduler {}'s node timeout: killing its tasks and registering again",
                   stalled ? "stalled" : "no lease granted",
                   std::chrono::duration_cast<std::chrono::milliseconds>(now - (stalled ? s.last_heartbeat : s.lease.last_grant()))
                       .count(),
                   links_[l]->address());
      LinkDown(l);
      links_[l]->Close(std::chrono::milliseconds(0));
    }
  }

  // NodeLeaseEnd: until when the node's tasks may run: the earliest end of
  // the leases of the links that are up (each scheduler's tasks run here,
  // and the keeper freezes the node as a whole); kNoLease when no link up
  // grants one. Sets `shortest_ns` to the shortest of those leases.
  int64_t NodeLeaseEnd(int64_t* shortest_ns = nullptr) const {
    int64_t end = NodeKeeper::kNoLease;
    int64_t shortest = NodeKeeper::kNoLease;
    for (const LinkState& s : states_) {
      if (!s.up || !s.lease.granted_by_scheduler()) continue;
      end = std::min(end, s.lease.until_ns());
      shortest = std::min(shortest, s.lease.lease_ns());
    }
    if (shortest_ns != nullptr) *shortest_ns = shortest;
    return end;
  }

  // PublishLease tells the keeper the node's lease (it freezes the tasks
  // past it and thaws them within it), and logs when that changes.
  void PublishLease() {
    if (!keeper_) return;
    keeper_->SetLease(NodeLeaseEnd());
    const bool frozen = keeper_->frozen();
    // Said only when tasks are held: a node without any (just registered,
    // its first grant on its way) is frozen and thawed in silence.
    if (frozen != said_frozen_ && runner_.running() > 0) {
      if (frozen) {
        spdlog::warn("the node's lease ran out: its tasks are frozen until a scheduler renews it");
      } else {
        spdlog::info("the node's lease is renewed: its tasks run again");
      }
    }
    said_frozen_ = frozen;
  }

  // ServeHeld serves what the schedulers sent, in order, while the node
  // holds its lease with some of it left (kServeGuardNs): a launch starts a
  // process only where the keeper will not freeze it as it starts.
  void ServeHeld() {
    while (!held_.empty()) {
      int64_t shortest = 0;
      const int64_t end = NodeLeaseEnd(&shortest);
      if (end != NodeKeeper::kNoLease &&
          end - NodeKeeper::BootTimeNs() < std::min(kServeGuardNs, shortest / 4)) {
        return;
      }
      if (keeper_ && keeper_->frozen()) return;  // thawed at the keeper's next poll
      LinkEvent e = std::move(held_.front());
      held_.pop_front();
      if (states_[e.link].up) OnMessage(e.link, e.message);
    }
  }

  // UpReplicas: how many replicas the links that are up report, if any is up.
  std::optional<uint32_t> UpReplicas() const {
    for (const LinkState& s : states_) {
      if (s.up) return s.replicas;
    }
    return std::nullopt;
  }

  void LinkDown(size_t link) {
    LinkState& s = states_[link];
    if (!s.up) return;
    s.up = false;
    std::erase_if(held_, [link](const LinkEvent& e) { return e.link == link; });
    // The scheduler gives up on whatever it ran here when the stream ends.
    for (const auto& [attempt, id] : s.running) runner_.Kill(id);
    s.running.clear();
    for (const auto& [attempt, p] : s.phased) runner_.Kill(p.runner_id);
    s.phased.clear();
    for (const auto& [attempt, id] : s.copies) runner_.Kill(id);
    s.copies.clear();
    book_.ReleaseLink(link);
    if (!agent_) return;
    if (!UpReplicas()) {
      agent_.reset();  // rebuilt fresh by the next START
      return;
    }
    agent_->SchedulerLost(s.replica, s.replicas);
    if (agent_link_ == link) {
      for (size_t l = 0; l < states_.size(); ++l) {
        if (states_[l].up) agent_link_ = l;  // the agent's clock now follows this daemon
      }
    }
  }

  void OnMessage(size_t link, const v1::SchedulerMessage& m) {
    LinkState& s = states_[link];
    // Moves of what runs here first: a shrink may make room for a launch of
    // the same batch. A move of an attempt launched in this batch comes after it.
    std::vector<const v1::ReservationMove*> later;
    for (const v1::ReservationMove& move : m.launches().moves()) {
      if (book_.holds(link, move.attempt())) {
        MoveReservation(link, move);
      } else {
        later.push_back(&move);
      }
    }
    for (const v1::Launch& l : m.launches().launches()) {
      // Validate before anything changes: the reservation must fit.
      if (absl::Status admitted = Admit(link, l); !admitted.ok()) {
        spdlog::warn("launch of {} (attempt {}) {}", l.label(), l.attempt(), StatusMessage(admitted));
        v1::NodeMessage refused;
        AddEnd(*refused.mutable_ends(), l.attempt(),
               TaskExit{.exit_code = 127, .failed_to_start = true, .error = std::string(StatusMessage(admitted))});
        links_[link]->Write(refused);
        continue;
      }
      if (l.phases() > 0) {
        s.phased[l.attempt()] = Phased{.launch = l};  // nothing runs until its phases start
        continue;
      }
      const uint64_t id = next_task_id_++;
      TaskSpec spec = TaskSpecOf(id, l);
      SetContainer(spec, link, l);
      SetLimits(spec, ReserveOf(l), book_.overbooked());
      if (absl::Status started = runner_.Start(spec); !started.ok()) {
        book_.Release(link, l.attempt());
        v1::NodeMessage failed;
        AddEnd(*failed.mutable_ends(), l.attempt(),
               TaskExit{.id = id, .exit_code = 127, .failed_to_start = true, .error = std::string(started.message())});
        links_[link]->Write(failed);
        continue;
      }
      NoteLimits();
      origins_[id] = Origin{link, s.session, l.attempt()};
      s.running[l.attempt()] = id;
    }
    for (const v1::ReservationMove* move : later) MoveReservation(link, *move);
    for (const v1::PhaseStart& start : m.phase_starts().starts()) StartPhase(link, start);
    for (const v1::DataCopy& copy : m.data_copies().copies()) StartCopy(link, copy);
    for (uint64_t attempt : m.kills().attempts()) {
      for (auto [it, end] = s.copies.equal_range(attempt); it != end; ++it) runner_.Kill(it->second);
      s.copies.erase(attempt);  // their ends are not reported: the attempt is gone
      // The scheduler freed its reservation when it decided the kill.
      book_.Release(link, attempt);
      if (auto it = s.running.find(attempt); it != s.running.end()) runner_.Kill(it->second);
      if (auto it = s.phased.find(attempt); it != s.phased.end()) {
        runner_.Kill(it->second.runner_id);  // its end is not reported: the attempt is gone
        s.phased.erase(it);
      }
    }
    for (const v1::AgentMail& mail : m.agent_mails().mails()) DeliverToAgent(link, mail);
    for (const v1::DataTicket& t : m.data_tickets().tickets()) AllowTransfer(t);
  }

  // AllowTransfer: the data port may serve the ticket's transfer once.
  void AllowTransfer(const v1::DataTicket& t) {
    const std::optional<DataTicketBytes> ticket = TicketFrom(t.ticket());
    if (!data_ || !ticket || t.ttl_ms() <= 0) {
      spdlog::warn("transfer {}: a ticket the data port cannot take ignored", t.transfer());
      return;
    }
    data_->Allow(t.transfer(), *ticket, t.bytes(), std::chrono::milliseconds(std::min<int64_t>(t.ttl_ms(), kMaxTicketMs)));
  }

  // ReserveOf: what the scheduler reserved for a launch (none from a
  // scheduler that does not say: then nothing is checked or limited).
  static Resources ReserveOf(const v1::Launch& l) {
    absl::StatusOr<Resources> r = FromProto(l.reserve());
    return r.ok() ? *r : Resources();
  }

  // Admit: the node's admission check of a launch (node_book.h).
  absl::Status Admit(size_t link, const v1::Launch& l) {
    absl::StatusOr<Resources> reserve = FromProto(l.reserve());
    if (!reserve.ok()) return absl::InvalidArgumentError(fmt::format("a bad reservation: {}", StatusMessage(reserve.status())));
    Resources size;
    if (l.container() != 0) {
      absl::StatusOr<Resources> c = FromProto(l.container_size());
      if (!c.ok()) return absl::InvalidArgumentError(fmt::format("a bad container size: {}", StatusMessage(c.status())));
      size = *c;
    }
    return book_.Admit(link, l.attempt(), *reserve, l.container(), size);
  }

  void MoveReservation(size_t link, const v1::ReservationMove& move) {
    absl::StatusOr<Resources> reserve = FromProto(move.reserve());
    if (!reserve.ok()) {
      spdlog::warn("attempt {}: a bad reservation move ignored: {}", move.attempt(), StatusMessage(reserve.status()));
      return;
    }
    if (!book_.Move(link, move.attempt(), *reserve)) {
      spdlog::warn("attempt {} grew to {}: the node's reservations ({}) pass its capacity ({})", move.attempt(),
                   reserve->ToString(), book_.reserved().ToString(), book_.capacity().ToString());
    }
    if (auto it = states_[link].phased.find(move.attempt()); it != states_[link].phased.end()) {
      *it->second.launch.mutable_reserve() = move.reserve();  // its next phase is limited to it
    }
  }

  // NoteLimits says once in the log when a task's reservation cannot be
  // made a cgroup limit here (no cgroup, or no cpu or memory controller):
  // the node then enforces it by admission only.
  void NoteLimits() {
    const TaskRunner::Limits& l = runner_.last_limits();
    if (l.cpu_asked && !l.set.cpu && !said_no_cpu_limit_) {
      said_no_cpu_limit_ = true;
      spdlog::warn("tasks' cpu cannot be limited to their reservation here (no cgroup with a cpu controller): "
                   "the node enforces reservations by admission only (accounting)");
    }
    if (l.mem_asked && !l.set.mem && !said_no_mem_limit_) {
      said_no_mem_limit_ = true;
      spdlog::warn("tasks' memory cannot be limited to their reservation here (no cgroup with a memory controller): "
                   "the node enforces reservations by admission only (accounting)");
    }
  }

  // StartPhase runs one phase of a phased attempt; a start for an attempt
  // this node does not hold (killed meanwhile) or whose phase still runs is
  // ignored, and a phase that cannot start fails the attempt.
  void StartPhase(size_t link, const v1::PhaseStart& start) {
    LinkState& s = states_[link];
    auto it = s.phased.find(start.attempt());
    if (it == s.phased.end() || it->second.runner_id != 0) return;
    const uint64_t id = next_task_id_++;
    absl::StatusOr<TaskSpec> spec = PhaseSpec(id, it->second.launch, start);
    if (spec.ok()) {
      SetContainer(*spec, link, it->second.launch);
      SetLimits(*spec, ReserveOf(it->second.launch), book_.overbooked());
    }
    if (absl::Status started = spec.ok() ? runner_.Start(*spec) : spec.status(); !started.ok()) {
      v1::NodeMessage failed;
      AddPhaseEnd(*failed.mutable_phase_ends(), start.attempt(), start.phase(),
                  TaskExit{.id = id, .exit_code = 127, .failed_to_start = true, .error = std::string(started.message())});
      links_[link]->Write(failed);
      s.phased.erase(it);
      book_.Release(link, start.attempt());
      return;
    }
    NoteLimits();
    it->second.runner_id = id;
    origins_[id] = Origin{link, s.session, start.attempt(), start.phase()};
  }

  // StartCopy runs one shuffle copy of an attempt: a built-in net process
  // reading the copy's bytes from the source node's data port. One that
  // cannot start is reported as a failed copy at once.
  void StartCopy(size_t link, const v1::DataCopy& copy) {
    LinkState& s = states_[link];
    const uint64_t id = next_task_id_++;
    absl::StatusOr<TaskSpec> spec = CopySpec(id, copy);
    if (absl::Status started = spec.ok() ? runner_.Start(*spec) : spec.status(); !started.ok()) {
      spdlog::warn("attempt {}: its shuffle copy cannot start: {}", copy.attempt(), StatusMessage(started));
      v1::NodeMessage failed;
      v1::CopyEnd* e = failed.mutable_copy_ends()->add_ends();
      e->set_attempt(copy.attempt());
      e->set_transfer(copy.pull().transfer());
      links_[link]->Write(failed);
      return;
    }
    s.copies.emplace(copy.attempt(), id);
    origins_[id] = Origin{link, s.session, copy.attempt(), kCopy, copy.pull().transfer()};
  }

  void DeliverToAgent(size_t link, const v1::AgentMail& mail) {
    if (mail.kind() == v1::AgentMail::START) {
      const bool shared = agent_ && agent_link_ != link && states_[agent_link_].up;
      if (shared) {
        // Another replica's daemon built the agent: it keeps serving them all.
        if (!agent_->Compatible(mail.setup())) Refuse(link, "it runs another policy or parameters than the others");
        return;
      }
      absl::StatusOr<std::unique_ptr<AgentHost>> host = AgentHost::Create(mail.setup());
      if (!host.ok()) {
        spdlog::error("cannot host the node agent: {}", StatusMessage(host.status()));
        return;
      }
      agent_ = std::move(*host);
      agent_link_ = link;
      spdlog::info("hosting the node agent of policy {}", mail.setup().policy());
    }
    if (!agent_) return;
    if (absl::Status s = agent_->Deliver(mail, /*stamp_clock=*/link == agent_link_); !s.ok()) {
      spdlog::error("node agent: {}", StatusMessage(s));
    }
  }

  // LinkServing: the link that is up for daemon `replica`, if any.
  std::optional<size_t> LinkServing(uint32_t replica) const {
    for (size_t l = 0; l < states_.size(); ++l) {
      if (states_[l].up && states_[l].replica == replica) return l;
    }
    return std::nullopt;
  }

  void RouteAgentActions() {
    v1::AgentActions actions = agent_->TakeActions();
    if (actions.actions_size() == 0) return;
    const uint32_t replicas = UpReplicas().value_or(1);
    std::vector<v1::AgentActions> out(links_.size());
    for (v1::AgentAction& a : *actions.mutable_actions()) {
      std::optional<uint32_t> owner;
      const bool by_job =
          a.launch() || a.kill() || a.to().kind() == static_cast<uint32_t>(policy::RoleKind::kJobManager);
      if (by_job) {
        owner = ReplicaIds::Owner(a.message().job(), replicas);
      } else if (a.to().kind() == static_cast<uint32_t>(policy::RoleKind::kScheduler)) {
        owner = ReplicaIds::Owner(a.to().index(), replicas);
      } else if (replicas == 1) {
        owner = 0;  // node to node: through the one scheduler
      } else {
        spdlog::error("a node agent's message to another node cannot be routed among {} scheduler replicas",
                      replicas);
        continue;
      }
      const std::optional<size_t> link = LinkServing(*owner);
      if (link) {
        *out[*link].add_actions() = std::move(a);
      } else if (a.launch()) {
        // Its scheduler is away: the launch is off, and the agent must know.
        agent_->RefuseLaunch(TaskRef{JobId(a.message().job()), a.message().stage(), a.message().task()});
      }
    }
    for (size_t l = 0; l < out.size(); ++l) {
      if (out[l].actions_size() == 0) continue;
      v1::NodeMessage m;
      *m.mutable_agent_actions() = std::move(out[l]);
      links_[l]->Write(m);
    }
  }

  // EraseCopy: runner task `id` was one of the attempt's live copies.
  static bool EraseCopy(LinkState& s, uint64_t attempt, uint64_t id) {
    for (auto [it, end] = s.copies.equal_range(attempt); it != end; ++it) {
      if (it->second == id) {
        s.copies.erase(it);
        return true;
      }
    }
    return false;
  }

  void ReportEnds() {
    std::vector<TaskExit> exits = runner_.Reap();
    if (exits.empty()) return;
    std::vector<v1::NodeMessage> out(links_.size());
    std::vector<v1::NodeMessage> phase_out(links_.size());  // a message holds one kind
    std::vector<v1::NodeMessage> copy_out(links_.size());
    for (const TaskExit& e : exits) {
      auto it = origins_.find(e.id);
      if (it == origins_.end()) continue;
      const Origin origin = it->second;
      origins_.erase(it);
      LinkState& s = states_[origin.link];
      // Ends of tasks from a stream that has ended are not reported: the
      // scheduler already counted them as lost.
      if (!s.up || s.session != origin.session) continue;
      if (origin.phase == kCopy) {
        if (!EraseCopy(s, origin.attempt, e.id)) continue;  // killed with its attempt
        v1::CopyEnd* c = copy_out[origin.link].mutable_copy_ends()->add_ends();
        c->set_attempt(origin.attempt);
        c->set_transfer(origin.transfer);
        c->set_done(e.exit_code == 0 && !e.failed_to_start && !e.killed);
        c->set_run_us(e.run_us);
        continue;
      }
      if (origin.phase < 0) {
        s.running.erase(origin.attempt);
        book_.Release(origin.link, origin.attempt);
        AddEnd(*out[origin.link].mutable_ends(), origin.attempt, e);
        continue;
      }
      auto p = s.phased.find(origin.attempt);
      if (p == s.phased.end() || p->second.runner_id != e.id) continue;  // killed by the scheduler
      p->second.runner_id = 0;
      const bool ok = e.exit_code == 0 && !e.failed_to_start && !e.killed;
      // After its last phase, or a failed one, the attempt is over here.
      if (!ok || origin.phase + 1 >= p->second.launch.phases()) {
        s.phased.erase(p);
        book_.Release(origin.link, origin.attempt);
      }
      AddPhaseEnd(*phase_out[origin.link].mutable_phase_ends(), origin.attempt, static_cast<uint32_t>(origin.phase), e);
    }
    for (size_t l = 0; l < out.size(); ++l) {
      if (out[l].has_ends()) links_[l]->Write(out[l]);
      if (phase_out[l].has_phase_ends()) links_[l]->Write(phase_out[l]);
      if (copy_out[l].has_copy_ends()) links_[l]->Write(copy_out[l]);
    }
  }

  // Heartbeats sends each link that is due a heartbeat: with its tasks'
  // measured usage every heartbeat interval, and numbered (a renewal of the
  // lease) every lease / LinkLease::kRenewalsPerLease when that comes sooner.
  void Heartbeats() {
    const auto now = Clock::now();
    bool usage_due = false, renewal_due = false;
    for (const LinkState& s : states_) {
      usage_due |= s.up && now >= s.next_heartbeat;
      renewal_due |= s.up && s.lease.RenewalDue(now);
    }
    if (!usage_due && !renewal_due) return;
    std::vector<v1::NodeMessage> beats(links_.size());
    for (const TaskUsage& u : usage_due ? runner_.SampleUsage() : std::vector<TaskUsage>()) {
      auto it = origins_.find(u.id);
      if (it == origins_.end() || !states_[it->second.link].up ||
          states_[it->second.link].session != it->second.session || now < states_[it->second.link].next_heartbeat) {
        continue;
      }
      v1::TaskUsage* t = beats[it->second.link].mutable_heartbeat()->add_usage();
      t->set_attempt(it->second.attempt);
      t->set_cpu_cores(u.cpu_cores);
      t->set_rss_bytes(u.rss_bytes);
      t->set_disk_mbps(u.disk_mbps);
      t->set_net_mbps(u.net_mbps);
    }
    for (size_t l = 0; l < states_.size(); ++l) {
      LinkState& s = states_[l];
      if (!s.up) continue;
      const bool with_usage = now >= s.next_heartbeat;
      if (!with_usage && !s.lease.RenewalDue(now)) continue;
      v1::Heartbeat& beat = *beats[l].mutable_heartbeat();
      // Stamped before it leaves: the lease counts from no later than the scheduler's grant.
      if (s.lease.granted_by_scheduler()) beat.set_seq(s.lease.Renew(now, NodeKeeper::BootTimeNs(), s.heartbeat));
      links_[l]->Write(beats[l]);
      s.last_heartbeat = now;
      if (with_usage) s.next_heartbeat = now + s.heartbeat;
    }
  }

  const NodeConfig& config_;
  const std::atomic<bool>& stop_;
  const int wake_fd_;
  TaskRunner runner_;
  NodeBook book_;  // what the tasks of every link reserve here, and the admission check
  bool said_no_cpu_limit_ = false;
  bool said_no_mem_limit_ = false;
  LinkInbox inbox_;
  ReplicaClaims claims_;
  std::vector<std::unique_ptr<SchedulerLink>> links_;
  std::vector<LinkState> states_;
  absl::flat_hash_map<uint64_t, Origin> origins_;  // by runner id
  uint64_t next_task_id_ = 1;
  std::unique_ptr<NodeKeeper> keeper_;  // kills what the daemon leaves; freezes its tasks past their lease
  bool said_frozen_ = false;            // the log last said the tasks are frozen
  std::deque<LinkEvent> held_;          // what the schedulers sent, served while the lease holds (ServeHeld)
  std::unique_ptr<DataServer> data_;  // the node's data port (data_server.h), if it could listen
  std::unique_ptr<AgentHost> agent_;  // the policy's node agent, when it has one
  size_t agent_link_ = 0;             // the link whose START built it (its clock)
};

}  // namespace

int RunNode(const NodeConfig& config, const std::atomic<bool>& stop, int wake_fd) {
  if (!config.data_host.empty() && !IsNumericHost(config.data_host)) {
    spdlog::error("--data-listen: \"{}\" is not a numeric IP address", config.data_host.substr(0, 64));
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(config.work_dir, ec);
  TaskRunner::KillLeftovers(config.work_dir);
  Node(config, stop, wake_fd).Run();
  return 0;
}

}  // namespace weft::runtime
