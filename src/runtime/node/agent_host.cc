#include "runtime/node/agent_host.h"

#include <deque>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

#include "core/status.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "policy/cluster_state.h"
#include "runtime/replica_ids.h"
#include "runtime/scheduler/job_intake.h"
#include "runtime/wire.h"

namespace weft::runtime {

namespace {

absl::StatusOr<Cluster> ClusterFromJson(const std::string& text, const google::protobuf::RepeatedField<uint32_t>& racks) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("machines") || !doc["machines"].is_array()) {
    return absl::InvalidArgumentError("the agent setup's cluster is malformed");
  }
  Cluster cluster;
  if (!racks.empty() && static_cast<size_t>(racks.size()) != doc["machines"].size()) {
    return absl::InvalidArgumentError("the agent setup has not one rack per machine");
  }
  for (const nlohmann::json& m : doc["machines"]) {
    if (!m.contains("name") || !m["name"].is_string() || !m.contains("capacity")) {
      return absl::InvalidArgumentError("the agent setup's cluster has a malformed machine");
    }
    std::array<double, kNumResources> units{};
    for (int r = 0; r < kNumResources; ++r) units[r] = m["capacity"].value(std::string(kResourceNames[r]), 0.0);
    ASSIGN_OR_RETURN(const Resources capacity, Resources::FromUnits(units));
    const uint32_t rack = racks.empty() ? 0 : racks[static_cast<int>(cluster.size())];
    cluster.AddMachine(m["name"].get<std::string>(), RackId(rack), capacity);
  }
  return cluster;
}

}  // namespace

// RemoteContext: the agent's Context on the node (see agent_host.h).
class AgentHost::RemoteContext final : public policy::Context {
 public:
  RemoteContext(Cluster cluster, MachineId machine, uint64_t seed, uint32_t schedulers,
                const policy::KnowledgeOptions& knowledge_options, policy::Knowledge knowledge)
      : cluster_def_(std::move(cluster)),
        cluster_(cluster_def_),
        machine_(machine),
        rng_(Rng(seed).Fork(machine.value())),
        schedulers_(schedulers),
        knowledge_options_(knowledge_options),
        knowledge_(knowledge) {}

  // The scheduler's clock, as last stamped on its mail, moved on by ours.
  void Stamp(TimeUs scheduler_now) {
    stamp_us_ = scheduler_now;
    stamp_at_ = Clock::now();
  }

  absl::Status AddJob(const v1::JobSpec& spec) {
    if (jobs_.contains(spec.id()) || dropped_.contains(spec.id())) return absl::OkStatus();
    const nlohmann::json json = nlohmann::json::parse(spec.spec_json(), nullptr, false);
    ASSIGN_OR_RETURN(LiveJob built, BuildJob(json, cluster_def_));
    // The arrival the scheduler's engine has (the description's is 0).
    if (spec.has_arrival_us()) built.job.arrival_us = spec.arrival_us();
    auto job = std::make_unique<Known>(std::move(built.job));
    jobs_.emplace(spec.id(), std::move(job));
    order_.push_back(JobId(spec.id()));
    return absl::OkStatus();
  }

  // LaunchedTasks: the tasks this agent launched that have not ended yet.
  std::vector<TaskRef> LaunchedTasks() const {
    std::vector<TaskRef> tasks;
    for (const auto& [key, demand] : launched_) {
      tasks.push_back(TaskRef{JobId(std::get<0>(key)), std::get<1>(key), std::get<2>(key)});
    }
    return tasks;
  }

  // ApplyProgress: the scheduler's view of a known job's progress: the
  // tasks done since the last note, and every stage's counters.
  void ApplyProgress(const v1::JobProgressNote& note) {
    auto it = jobs_.find(note.job());
    if (it == jobs_.end()) return;
    policy::JobProgress& progress = it->second->progress;
    for (uint64_t k : note.done_tasks()) {
      if (k < progress.tasks.size()) progress.tasks[k] = policy::TaskState::kDone;
    }
    if (static_cast<size_t>(note.stages_size()) != progress.stages.size()) return;
    progress.tasks_done = 0;
    for (size_t s = 0; s < progress.stages.size(); ++s) {
      const v1::StageProgressNote& n = note.stages(static_cast<int>(s));
      policy::StageProgress& sp = progress.stages[s];
      sp.ready = n.ready();
      sp.running = n.running();
      sp.done = n.done();
      sp.released = n.released();
      progress.tasks_done += sp.done;
    }
  }

  // JobEnded: the job is finished for JobView and leaves active_jobs().
  void JobEnded(JobId id) {
    auto it = jobs_.find(id.value());
    if (it == jobs_.end() || it->second->progress.finished) return;
    it->second->progress.finished = true;
    std::erase(order_, id);
    ending_.push_back(id);
  }

  // DropEnded: an ended job's description goes once none of the agent's
  // launches of it is left (the agent heard every end); the job then shows
  // as an ended stub (below). Called after the agent handled its mail.
  void DropEnded() {
    std::erase_if(ending_, [&](JobId id) {
      const auto first = launched_.lower_bound(Key(TaskRef{id, 0, 0}));
      if (first != launched_.end() && std::get<0>(first->first) == id.value()) return false;
      jobs_.erase(id.value());
      dropped_.insert(id.value());
      dropped_order_.push_back(id.value());
      if (dropped_order_.size() > kDroppedRemembered) {
        dropped_.erase(dropped_order_.front());
        dropped_order_.pop_front();
      }
      return true;
    });
  }
  size_t held_jobs() const { return jobs_.size(); }

  // A launch this agent made has ended or was refused: give back what it held.
  bool Forget(const TaskRef& t) {
    auto it = launched_.find(Key(t));
    if (it == launched_.end()) return false;
    cluster_.Deallocate(machine_, it->second);
    cluster_.AddRunning(machine_, -1);
    launched_.erase(it);
    return true;
  }

  void FireTimers(policy::NodeAgent& agent) {
    while (!timers_.empty() && timers_.begin()->first.first <= Clock::now()) {
      const uint64_t tag = timers_.begin()->second;
      timer_due_.erase(timers_.begin()->first.second);
      timers_.erase(timers_.begin());
      agent.OnTimer(tag);
    }
  }
  std::optional<Clock::time_point> NextTimer() const {
    if (timers_.empty()) return std::nullopt;
    return timers_.begin()->first.first;
  }
  v1::AgentActions TakeActions() { return std::exchange(actions_, {}); }

  // policy::Context
  policy::Address self() const override { return policy::Address::Node(machine_); }
  TimeUs Now() const override {
    return stamp_us_ + std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - stamp_at_).count();
  }
  Rng& rng() override { return rng_; }
  uint32_t num_schedulers() const override { return schedulers_; }
  const policy::ClusterState& cluster() const override { return cluster_; }
  policy::JobView job(JobId id) const override {
    auto it = jobs_.find(id.value());
    if (it == jobs_.end()) {
      if (dropped_.contains(id.value())) return policy::JobView(id, kDropped.job, kDropped.progress, knowledge_, knowledge_options_);
      throw std::logic_error(fmt::format("the scheduler did not describe job {} to this node", id.value()));
    }
    return policy::JobView(id, it->second->job, it->second->progress, knowledge_, knowledge_options_);
  }
  std::span<const JobId> active_jobs() const override { return order_; }
  const policy::ContainerInfo* container(ContainerId) const override { return nullptr; }
  void Send(const policy::Address& to, policy::Message message) override {
    v1::AgentAction* a = actions_.add_actions();
    *a->mutable_to() = ToProto(to);
    *a->mutable_message() = ToProto(message);
  }
  policy::TimerId SetTimer(TimeUs delay, uint64_t tag) override {
    const uint64_t id = ++next_timer_;
    const Clock::time_point due = Clock::now() + std::chrono::microseconds(std::max<TimeUs>(0, delay));
    timers_.emplace(std::pair{due, id}, tag);
    timer_due_.emplace(id, due);
    return policy::TimerId{id};
  }
  bool CancelTimer(policy::TimerId id) override {
    auto it = timer_due_.find(static_cast<uint64_t>(id));
    if (it == timer_due_.end()) return false;
    timers_.erase(std::pair{it->second, it->first});
    timer_due_.erase(it);
    return true;
  }
  absl::Status Launch(const TaskRef& task, MachineId machine) override {
    if (machine != machine_) return absl::FailedPreconditionError("a hosted node agent launches only on its machine");
    auto it = jobs_.find(task.job.value());
    if (it == jobs_.end() || task.stage >= it->second->job.stages.size()) {
      return absl::FailedPreconditionError("the agent does not know the task's job");
    }
    if (launched_.contains(Key(task))) return absl::FailedPreconditionError("the task is already launched here");
    const Stage& stage = it->second->job.stages[task.stage];
    Resources demand = stage.demand;
    if (!stage.phases.empty() && controls_phases_) {
      // As the engine reserves it: memory only; each phase holds its own share while it runs.
      demand = Resources();
      demand.set_micro(kMem, stage.demand.micro(kMem));
    }
    cluster_.Allocate(machine_, demand);
    cluster_.AddRunning(machine_, 1);
    launched_.emplace(Key(task), demand);
    v1::AgentAction* a = actions_.add_actions();
    a->set_launch(true);
    *a->mutable_message() = ToProto(policy::Message{.task = task});
    return absl::OkStatus();
  }
  absl::Status LaunchInContainer(const TaskRef&, ContainerId) override { return Unavailable(); }
  absl::Status Kill(const TaskRef& task) override {
    // Checked by the scheduler; a kill that happens comes back as the task's end.
    v1::AgentAction* a = actions_.add_actions();
    a->set_kill(true);
    *a->mutable_message() = ToProto(policy::Message{.task = task});
    return absl::OkStatus();
  }
  absl::StatusOr<ContainerId> GrantContainer(JobId, MachineId, const Resources&) override { return Unavailable(); }
  absl::Status ReleaseContainer(ContainerId) override { return Unavailable(); }
  absl::Status StartPhase(const TaskRef& task) override {
    // Checked by the scheduler's engine; the phase's end comes back as PHASE_ENDED.
    v1::AgentAction* a = actions_.add_actions();
    a->set_start_phase(true);
    *a->mutable_message() = ToProto(policy::Message{.task = task});
    return absl::OkStatus();
  }
  void set_controls_phases(bool controls) { controls_phases_ = controls; }

 private:
  struct Known {
    explicit Known(Job j) : job(std::move(j)), progress(job) {}
    Job job;
    policy::JobProgress progress;
  };
  // What job() shows of a dropped job: ended, with no stages or tasks (as
  // the scheduler's engine shows a released job).
  static inline const Known kDropped = [] {
    Known k{Job()};
    k.progress.arrived = true;
    k.progress.finished = true;
    return k;
  }();
  // Dropped jobs are remembered as such (a late message about one finds it
  // ended) for the last this many; older ids are forgotten, so that memory
  // stays flat however many jobs the node has seen.
  static constexpr size_t kDroppedRemembered = 1 << 16;
  static std::tuple<uint32_t, uint32_t, uint32_t> Key(const TaskRef& t) { return {t.job.value(), t.stage, t.index}; }
  static absl::Status Unavailable() {
    return absl::UnimplementedError("not available to a node agent hosted on its node");
  }

  Cluster cluster_def_;
  policy::ClusterState cluster_;
  MachineId machine_;
  Rng rng_;
  uint32_t schedulers_;
  policy::KnowledgeOptions knowledge_options_;
  policy::Knowledge knowledge_;
  TimeUs stamp_us_ = 0;
  Clock::time_point stamp_at_ = Clock::now();
  absl::flat_hash_map<uint32_t, std::unique_ptr<Known>> jobs_;
  std::vector<JobId> order_;
  std::vector<JobId> ending_;  // ended, description still held (launches of it left here)
  absl::flat_hash_set<uint32_t> dropped_;
  std::deque<uint32_t> dropped_order_;  // dropped_, oldest first
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Resources> launched_;  // by (job, stage, task)
  std::map<std::pair<Clock::time_point, uint64_t>, uint64_t> timers_;  // (due, id) -> tag
  absl::flat_hash_map<uint64_t, Clock::time_point> timer_due_;        // id -> due, for CancelTimer
  uint64_t next_timer_ = 0;  // the last id given (ids start at 1: 0 is TimerId::kNone)
  bool controls_phases_ = false;  // the agent's ControlsPhases
  v1::AgentActions actions_;
};

AgentHost::~AgentHost() = default;

absl::StatusOr<std::unique_ptr<AgentHost>> AgentHost::Create(const v1::AgentSetup& setup) {
  std::unique_ptr<AgentHost> host(new AgentHost());
  const std::vector<std::string> params(setup.params().begin(), setup.params().end());
  ASSIGN_OR_RETURN(host->built_, policy::BuildPolicy(setup.policy(), params));
  if (!host->built_.policy->has_node_agents()) {
    return absl::InvalidArgumentError(fmt::format("policy {} has no node agents", setup.policy()));
  }
  ASSIGN_OR_RETURN(Cluster cluster, ClusterFromJson(setup.cluster_json(), setup.racks()));
  if (setup.machine() >= cluster.size()) return absl::InvalidArgumentError("the agent's machine is not in the cluster");
  host->machine_ = MachineId(setup.machine());
  host->setup_ = setup;
  policy::KnowledgeOptions knowledge = host->built_.knowledge();
  knowledge.seed = setup.seed();
  host->context_ = std::make_unique<RemoteContext>(std::move(cluster), host->machine_, setup.seed(),
                                                   host->built_.policy->num_schedulers() * std::max(1u, setup.replicas()),
                                                   knowledge,
                                                   host->built_.policy->knowledge());
  return host;
}

bool AgentHost::Compatible(const v1::AgentSetup& setup) const {
  return setup.policy() == setup_.policy() && setup.replicas() == setup_.replicas() &&
         std::equal(setup.params().begin(), setup.params().end(), setup_.params().begin(), setup_.params().end());
}

void AgentHost::SchedulerLost(uint32_t daemon, uint32_t daemons) {
  if (!agent_) return;
  // The replicas first, so the room the launches free goes to other replicas' work.
  for (uint32_t replica = daemon; replica < context_->num_schedulers(); replica += daemons) {
    agent_->OnSchedulerDown(replica);
  }
  for (const TaskRef& task : context_->LaunchedTasks()) {
    if (ReplicaIds::Owner(task.job.value(), daemons) == daemon) RefuseLaunch(task);
  }
}

void AgentHost::RefuseLaunch(const TaskRef& task) {
  if (!context_->Forget(task) || !agent_) return;
  agent_->OnTaskEnded(policy::TaskEnd{
      .task = task, .machine = machine_, .outcome = Outcome::kKilled, .end_us = context_->Now(), .will_retry = true});
  context_->DropEnded();
}

size_t AgentHost::held_jobs() const { return context_->held_jobs(); }

absl::Status AgentHost::Deliver(const v1::AgentMail& mail, bool stamp_clock) {
  if (stamp_clock) context_->Stamp(mail.now_us());
  for (const v1::JobSpec& spec : mail.jobs()) RETURN_IF_ERROR(context_->AddJob(spec));
  if (mail.has_progress()) context_->ApplyProgress(mail.progress());
  try {
    switch (mail.kind()) {
      case v1::AgentMail::START:
        agent_ = built_.policy->MakeNodeAgent(*context_, machine_);
        context_->set_controls_phases(agent_->ControlsPhases());
        agent_->OnStart();
        break;
      case v1::AgentMail::MESSAGE: {
        ASSIGN_OR_RETURN(const policy::Address from, FromProto(mail.from()));
        if (agent_) agent_->OnMessage(from, FromProto(mail.message()));
        break;
      }
      case v1::AgentMail::TASK_ENDED: {
        const policy::TaskEnd end = FromProto(mail.end(), machine_);
        context_->Forget(end.task);
        if (agent_) agent_->OnTaskEnded(end);
        break;
      }
      case v1::AgentMail::SCHEDULER_DOWN:
        if (agent_) agent_->OnSchedulerDown(static_cast<uint32_t>(mail.tag()));
        break;
      case v1::AgentMail::LAUNCH_REFUSED:
        RefuseLaunch(FromProto(mail.end(), machine_).task);
        break;
      case v1::AgentMail::JOB_ENDED:
        context_->JobEnded(JobId(mail.end().job()));
        break;
      case v1::AgentMail::PROGRESS:
        break;  // applied above
      case v1::AgentMail::PHASE_READY:
      case v1::AgentMail::PHASE_ENDED: {
        const TaskRef task = FromProto(mail.end(), machine_).task;
        const auto phase = static_cast<uint32_t>(mail.tag());
        if (!agent_) break;
        if (mail.kind() == v1::AgentMail::PHASE_READY) {
          agent_->OnPhaseReady(task, phase);
        } else {
          agent_->OnPhaseEnded(task, phase);
        }
        break;
      }
      default:
        return absl::InvalidArgumentError("unknown agent mail");
    }
  } catch (const std::logic_error& e) {
    return absl::InternalError(e.what());
  }
  context_->DropEnded();
  return absl::OkStatus();
}

void AgentHost::FireTimers() {
  if (agent_) context_->FireTimers(*agent_);
}

std::optional<AgentHost::Clock::time_point> AgentHost::NextTimer() const { return context_->NextTimer(); }

v1::AgentActions AgentHost::TakeActions() { return context_->TakeActions(); }

}  // namespace weft::runtime
