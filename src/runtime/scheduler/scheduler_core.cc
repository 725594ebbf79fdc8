#include "runtime/scheduler/scheduler_core.h"

#include <algorithm>

#include "core/reserve_more.h"
#include "core/status.h"
#include "fmt/format.h"
#include "model/names.h"
#include "runtime/journal_transaction.h"
#include "runtime/scheduler/done_elsewhere.h"
#include "runtime/scheduler/metrics_snapshot.h"
#include "runtime/scheduler/results_archive.h"
#include "runtime/scheduler/status_reply.h"
#include "runtime/wire.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {

namespace {

constexpr TimeUs kClockTickUs = 100'000;  // heartbeat deadlines are checked this often
constexpr size_t kMaxNodeName = 128;
constexpr uint32_t kMaxRack = 65535;  // weftd node --rack
constexpr int kMaxDeferredEvents = 64;  // a commit at least every this many events

bool ValidNodeName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNodeName) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

}  // namespace

// EventLock: the lock held for one event that changes state; released with
// FlushUnlessQueued.
class SchedulerCore::EventLock {
 public:
  explicit EventLock(SchedulerCore& core) : core_(core) {
    core_.queued_.fetch_add(1);
    core_.mu_.lock();
    core_.queued_.fetch_sub(1);
  }
  ~EventLock() {
    core_.FlushUnlessQueued();
    core_.mu_.unlock();
  }
  EventLock(const EventLock&) = delete;
  EventLock& operator=(const EventLock&) = delete;

 private:
  SchedulerCore& core_;
};

SchedulerCore::SchedulerCore(const SchedulerConfig& config)
    : config_(config),
      clock_(*config_.clock),
      slots_(config.nodes),
      jobs_(config.max_tasks_in_flight, config.max_job_bytes) {}

SchedulerCore::~SchedulerCore() = default;

absl::StatusOr<std::unique_ptr<SchedulerCore>> SchedulerCore::Open(const SchedulerConfig& config) {
  if (config.nodes == 0) return absl::InvalidArgumentError("--nodes must be at least 1");
  if (config.replica.count == 0 || config.replica.index >= config.replica.count) {
    return absl::InvalidArgumentError("--replica must be below --replicas");
  }
  SchedulerConfig with_clock = config;
  if (with_clock.clock == nullptr) with_clock.clock = std::make_shared<SteadyClock>();
  std::unique_ptr<SchedulerCore> core(new SchedulerCore(with_clock));
  absl::StatusOr<std::unique_ptr<Journal>> journal = Journal::Open(config.state_dir, JournalOptions{config.sync});
  if (!journal.ok()) {
    // A state dir that cannot be opened (unwritable, damaged, in use) is the
    // caller's to fix: bad input, not an internal error.
    return absl::FailedPreconditionError(
        fmt::format("cannot open the journal in state dir {}: {}", config.state_dir.string(),
                    StatusMessage(journal.status())));
  }
  core->journal_ = std::move(*journal);
  std::lock_guard lock(core->mu_);
  RETURN_IF_ERROR(core->Recover());
  return core;
}

TimeUs SchedulerCore::NowUs() const {
  return clock_offset_us_ + (clock_.NowUs() - clock_start_us_);
}

absl::Status SchedulerCore::Recover() {
  ASSIGN_OR_RETURN(Recovered r, journal_->Load());
  const int64_t unix_now = clock_.UnixUs();
  ASSIGN_OR_RETURN(const StateIdentity identity, ReadIdentity(r.meta, config_.policy, config_.params, config_.replica,
                                                               config_.state_dir, unix_now));
  params_ = identity.params;
  RETURN_IF_ERROR(submission_keys_.Load(r.meta));
  ASSIGN_OR_RETURN(built_, policy::BuildPolicy(identity.policy, params_));
  if (config_.replica.count > 1 && !built_.policy->has_node_agents()) {
    // Only a policy whose node agents decide what runs on their node can
    // share the nodes: replicas of any other would overbook them.
    return absl::InvalidArgumentError(fmt::format(
        "--replicas needs a policy whose node agents run on the nodes (sparrow*); {} has none", identity.policy));
  }
  if (identity.fresh) RETURN_IF_ERROR(WriteIdentity(*journal_, identity, config_.replica));
  epoch_unix_us_ = identity.epoch_unix_us;
  clock_offset_us_ = std::max<int64_t>(0, unix_now - identity.epoch_unix_us);
  clock_start_us_ = clock_.NowUs();

  // Jobs compacted by retention are in the results archive, not the journal.
  ASSIGN_OR_RETURN(const auto archived, archive_.Open());
  RestoreNodes(r, slots_);
  outbox_.Resize(slots_.size());
  relay_.Resize(slots_.size());
  leases_.Resize(slots_.size());
  if (!slots_.complete()) {
    if (!r.jobs.empty()) return absl::DataLossError("the journal has jobs but not the cluster they ran on");
    return absl::OkStatus();
  }
  // Nodes come back by registering again; until then they are down. What
  // the previous run granted is not journaled: any node may hold a lease of
  // it for one more lease from now, so none of them comes up (and none of
  // the tasks it ran runs again) before that has passed.
  leases_.Restarted(NowUs());
  RETURN_IF_ERROR(StartRun(std::vector<bool>(slots_.size(), false)));
  ASSIGN_OR_RETURN(std::vector<RecoveredJob> recovered, RecoverJobs(r, archived, live_.cluster));
  const TimeUs now = NowUs();
  std::vector<uint32_t> ended;
  for (uint32_t id = 0; id < recovered.size(); ++id) {
    RecoveredJob& job = recovered[id];
    const bool compacted = job.info.compacted;
    const JournalJob::State state = job.info.state;
    jobs_.Add(std::move(job.info));
    if (compacted) {
      live_.jobs.emplace_back();  // keeps JobId = index; never run
      live_.jobs.Free(id);        // and holds no memory
    } else if (state == JournalJob::State::kActive) {
      AddLiveJob(JobId(id), std::move(job.built), now, job.history);
    } else {
      ended.push_back(id);
      job.built.job.arrival_us = jobs_[id].arrival_us;
      live_.jobs.push_back(std::move(job.built.job));  // keeps JobId = index; never run
    }
  }
  std::stable_sort(ended.begin(), ended.end(),
                   [&](uint32_t a, uint32_t b) { return jobs_[a].end_us < jobs_[b].end_us; });
  for (const uint32_t j : ended) retention_.NoteEnded(j);
  Flush();
  spdlog::info("recovered {} nodes, {} jobs ({} compacted), {} attempt ends from {}", r.nodes.size(), jobs_.size(),
               jobs_.size() - r.jobs.size(), r.attempts.size(), config_.state_dir.string());
  return absl::OkStatus();
}

absl::Status SchedulerCore::StartRun(const std::vector<bool>& up) {
  live_.cluster = slots_.BuildCluster();
  const ClusterRun::Options options{
      .seed = config_.seed, .max_attempts = config_.max_attempts, .replicas = config_.replica.count, .params = params_};
  // Kept even if the policy refuses to start (as the engine always was):
  // the relay holds it from here on.
  run_ = std::make_unique<ClusterRun>(live_, built_, options, *this, *this);
  return run_->Start(relay_, NowUs(), up);
}

void SchedulerCore::AddLiveJob(JobId id, LiveJob built, TimeUs now, std::span<const AttemptRecord> history) {
  Job job = std::move(built.job);
  auto [it, inserted] = users_.try_emplace(built.user, UserId(static_cast<uint32_t>(live_.users.size())));
  if (inserted) live_.users.push_back(built.user);
  job.user = built.user.empty() ? UserId() : it->second;
  const TimeUs arrival = jobs_[id.value()].arrival_us;
  job.arrival_us = arrival;
  live_.jobs.push_back(std::move(job));
  run().AddJob(id, now, std::max(now, arrival), history);
}

absl::Status SchedulerCore::AcceptingJobs() const {
  if (!journal_error_.empty()) {
    return absl::UnavailableError(fmt::format(
        "the scheduler cannot write its journal ({}): new jobs are refused until it can; try again later",
        journal_error_));
  }
  if (!run_) {
    return absl::UnavailableError(
        fmt::format("the cluster is not complete yet: {} of {} nodes registered; try again later", slots_.size(),
                    slots_.expected()));
  }
  return absl::OkStatus();
}

std::optional<absl::StatusOr<std::vector<uint32_t>>> SchedulerCore::KnownSubmission(std::string_view key,
                                                                                    uint64_t digest) const {
  if (key.empty()) return std::nullopt;
  const std::optional<SubmittedIds> known = submission_keys_.Find(key);
  if (!known) return std::nullopt;
  if (known->digest != digest) {
    return absl::InvalidArgumentError(fmt::format(
        "Submit: idempotency key {} was used for another submission (jobs {}..): a new submission needs a new key",
        key, config_.replica.Global(known->first)));
  }
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < known->count; ++i) ids.push_back(config_.replica.Global(known->first + i));
  spdlog::info("a submission came again under key {}: its {} jobs were accepted before, nothing added", key,
               ids.size());
  return ids;
}

absl::StatusOr<std::vector<uint32_t>> SchedulerCore::Submit(std::string_view workload_json,
                                                           std::vector<v1::DoneTask> done, uint32_t moved_from,
                                                           std::string_view key) {
  if (const size_t bad = FirstInvalidUtf8(workload_json); bad != std::string_view::npos) {
    return absl::InvalidArgumentError(fmt::format("Submit: workload_json is not valid UTF-8 (byte {})", bad));
  }
  if (!key.empty()) RETURN_IF_ERROR(CheckSubmissionKey(key));
  const uint64_t digest = key.empty() ? 0 : WorkloadDigest(workload_json);
  // Parsed and validated without the lock, so that a large submission holds
  // up neither the nodes' heartbeats nor any other call (bug 3 of issue 20).
  // The cluster never changes once complete: the copy is what the jobs run on.
  Cluster cluster;
  const TimeUs parse_start = clock_.NowUs();
  {
    std::lock_guard lock(mu_);
    // A retry of a submission already journaled: its ids, before anything
    // else (also while new jobs are refused: these are not new).
    if (auto known = KnownSubmission(key, digest)) return *known;
    RETURN_IF_ERROR(AcceptingJobs());
    cluster = live_.cluster;
  }
  // Parsed once: typed jobs, and the texts the journal and the job table keep.
  ASSIGN_OR_RETURN(std::vector<SubmittedJob> specs, ParseSubmission(workload_json, cluster));
  uint64_t tasks = 0, bytes = 0;
  for (const SubmittedJob& spec : specs) {
    tasks += spec.live.job.num_tasks;
    bytes += spec.journal_json.size();  // as submitted, commands included (JobInfo::description_bytes)
  }
  // Tasks done elsewhere (failover), per job, checked against the jobs they name.
  ASSIGN_OR_RETURN(const std::vector<DoneTasks> done_tasks, SortDoneTasks(done, specs));

  EventLock lock(*this);
  const TimeUs locked_at = clock_.NowUs();
  // The same submission may have been journaled meanwhile (a retry that
  // came while the first was still being parsed).
  if (auto known = KnownSubmission(key, digest)) return *known;
  RETURN_IF_ERROR(AcceptingJobs());
  RETURN_IF_ERROR(jobs_.CheckLimits(tasks, bytes));
  // All or nothing (bug 4): whatever could fail is done before the journal
  // has the jobs, and nothing after it can fail (the room is reserved).
  jobs_.Reserve(specs.size());
  ReserveMore(live_.jobs, specs.size());
  const TimeUs now = NowUs();
  std::vector<JournalJob> entries;
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < specs.size(); ++i) {
    const JobId id(static_cast<uint32_t>(jobs_.size() + i));
    entries.push_back(JournalJob{id, specs[i].live.job.name, std::move(specs[i].journal_json), now});
    ids.push_back(config_.replica.Global(id.value()));
  }
  // Journal first: an id is returned only for a job that survives a crash
  // (with the tasks it had done elsewhere, in the same transaction).
  JournalTransaction tx(*journal_);
  tx.Then([&] { return journal_->AddJobs(entries); });
  for (size_t i = 0; i < specs.size(); ++i) {
    if (done_tasks[i].empty()) continue;
    tx.Then([&] { return journal_->SetMeta(DoneMetaKey(entries[i].id), done_tasks[i].JournalText()); });
  }
  const SubmittedIds submitted{static_cast<uint32_t>(jobs_.size()), static_cast<uint32_t>(specs.size()), digest};
  if (!key.empty()) {
    tx.Then([&] { return journal_->SetMeta(SubmissionKeys::MetaKey(key), SubmissionKeys::MetaValue(submitted)); });
  }
  RETURN_IF_ERROR(tx.Commit());
  if (!key.empty()) submission_keys_.Add(key, submitted);
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::vector<AttemptRecord> history = done_tasks[i].History(entries[i].id);
    const Job& job = specs[i].live.job;
    JobInfo info{job.name, std::move(specs[i].export_json), now, JournalJob::State::kActive, 0, job.num_tasks,
                 ArrivalUs(now, job.arrival_us), history.size()};
    info.description_bytes = entries[i].spec_json.size();
    jobs_.Add(std::move(info));
    AddLiveJob(entries[i].id, std::move(specs[i].live), now, history);
  }
  // How long the lock was held (journal, engine) and the parse before it took.
  const TimeUs done_at = clock_.NowUs();
  spdlog::info("accepted {} jobs (ids {}..{}): {:.1f} ms to parse, then {:.1f} ms under the lock", ids.size(),
               ids.empty() ? 0 : ids.front(), ids.empty() ? 0 : ids.back(), UsToSeconds(locked_at - parse_start) * 1e3,
               UsToSeconds(done_at - locked_at) * 1e3);
  if (moved_from > 0) {
    spdlog::info("job {} continues job {} of a scheduler that went down, with {} tasks already done", ids.front(),
                 moved_from - 1, done.size());
  }
  return ids;
}

v1::StatusReply SchedulerCore::Status(const v1::StatusRequest& request) {
  std::lock_guard lock(mu_);
  Flush();  // report only what is journaled
  v1::StatusReply reply;
  reply.set_policy(built_.info->name);
  reply.set_nodes_expected(slots_.expected());
  reply.set_nodes_up(outbox_.connected_count());
  reply.set_ready(run_ != nullptr);
  reply.set_replica(config_.replica.index);
  reply.set_replicas(config_.replica.count);
  reply.set_journal_error(journal_error_);
  if (request.nodes()) {
    SchedulerMetrics::Snapshot engine;
    if (run_) run_->AddToSnapshot({}, outbox_, engine);
    FillNodeStatuses(slots_, outbox_, engine.nodes, reply);
  }
  const std::optional<uint32_t> wanted = config_.replica.Local(request.job());
  // A listing shows what is held (compacted jobs, all below first_held, are
  // left out); one job is looked up by id.
  uint32_t begin = jobs_.first_held();
  uint32_t end = static_cast<uint32_t>(jobs_.size());
  if (request.no_jobs()) {
    begin = end;
  } else if (!request.all()) {
    begin = wanted.value_or(end);
    end = begin < end ? begin + 1 : begin;
  }
  for (uint32_t j = begin; j < end; ++j) {
    const JobInfo& info = jobs_[j];
    if (info.compacted && request.all()) continue;
    v1::JobStatus* s = reply.add_jobs();
    if (info.compacted) {
      // Its name and progress are gone; how it ended is in the results
      // archive (weft wait needs it), not in memory.
      FillCompactedStatus(archive_, j, config_.replica.Global(j), *s);
      continue;
    }
    FillJobStatus(info, config_.replica.Global(j), run().progress(JobId(j)), last_failures_.Find(j), *s);
  }
  return reply;
}

absl::Status SchedulerCore::Cancel(uint32_t global_job) {
  EventLock lock(*this);
  const std::optional<uint32_t> local = config_.replica.Local(global_job);
  if (!local || *local >= jobs_.size()) return absl::NotFoundError(fmt::format("no job {}", global_job));
  const uint32_t job = *local;
  if (jobs_[job].compacted) {
    return absl::FailedPreconditionError(fmt::format("job {} has already ended (compacted)", global_job));
  }
  if (jobs_[job].state != JournalJob::State::kActive) {
    return absl::FailedPreconditionError(
        fmt::format("job {} has already ended ({})", global_job, JobStateName(jobs_[job].state)));
  }
  cancelling_.insert(job);
  if (!run().Cancel(JobId(job), NowUs())) {
    // Not arrived yet (a replayed trace's later arrival): end it here.
    cancelling_.erase(job);
    const TimeUs end = NowUs();
    RETURN_IF_ERROR(journal_->EndJob(JobId(job), JournalJob::State::kCancelled, end));  // journaled, then shown
    jobs_.End(job, JournalJob::State::kCancelled, end);
    retention_.NoteEnded(job);
  }
  return absl::OkStatus();
}

void SchedulerCore::RefreshMetrics() {
  std::lock_guard lock(mu_);
  Flush();  // report only what is journaled
  std::vector<uint32_t> active;
  SchedulerMetrics::Snapshot s = JobsSnapshot(jobs_, active);
  // Tasks, nodes and the policy's refusals: only a complete cluster has them.
  if (run_) run_->AddToSnapshot(active, outbox_, s);
  metrics_.Update(s);
}

absl::StatusOr<v1::ExportChunk> SchedulerCore::Export() {
  std::lock_guard lock(mu_);
  Flush();  // export only what is journaled, all of it
  ASSIGN_OR_RETURN(Recovered r, journal_->Load());
  // Compacted jobs' rows come from the results archive, as they were.
  std::map<uint32_t, v1::ArchivedJob> archived;
  if (jobs_.any_compacted()) {
    ASSIGN_OR_RETURN(archived, archive_.ReadAll());
  }
  return export_.Build(jobs_, r.attempts, archived, live_.cluster, config_.replica, built_.info->name, epoch_unix_us_);
}

SchedulerCore::HeldJobPages SchedulerCore::held_job_pages() const {
  std::lock_guard lock(mu_);
  return {jobs_.held_pages(), live_.jobs.held_pages()};
}

void SchedulerCore::MaybeCompact(TimeUs now) {
  std::vector<uint32_t> doomed = retention_.Due(now, jobs_);
  if (doomed.empty()) return;
  if (const absl::Status s = Compact(doomed); !s.ok()) {
    // Kept, and tried again with the next batch: retention is best effort.
    spdlog::error("retention: cannot compact {} ended jobs: {}", doomed.size(), StatusMessage(s));
    retention_.Keep(doomed);
  }
}

absl::Status SchedulerCore::Compact(const std::vector<uint32_t>& ids) {
  std::vector<JobId> job_ids;
  for (const uint32_t j : ids) job_ids.push_back(JobId(j));
  ASSIGN_OR_RETURN(const std::vector<AttemptRecord> attempts, journal_->LoadAttempts(job_ids));
  const std::vector<v1::ArchivedJob> archive = ArchivedJobs(ids, jobs_, attempts);
  RETURN_IF_ERROR(archive_.Append(archive));
  // On failure the jobs are archived and still journaled: archived again
  // later (readers keep the last record).
  RETURN_IF_ERROR(JournalTransaction(*journal_).Then([&] { return journal_->DeleteJobs(job_ids); }).Commit());
  for (const uint32_t j : ids) {
    jobs_.Compact(j);
    relay_.Forget(j);
    last_failures_.Forget(j);
  }
  // The engine forgets them too: their run state, and their jobs in the
  // live workload (which keeps no stub).
  run().Release(job_ids, NowUs());
  spdlog::info("retention: compacted {} ended jobs (ids {}..{}) into {}", ids.size(), ids.front(), ids.back(),
               archive_.path().string());
  return absl::OkStatus();
}

absl::StatusOr<SchedulerCore::Session> SchedulerCore::RegisterNode(const v1::Register& request, NodeLink* link) {
  if (!ValidNodeName(request.name())) {
    return absl::InvalidArgumentError("a node name is 1 to 128 characters of [A-Za-z0-9._-]");
  }
  ASSIGN_OR_RETURN(const Resources capacity, FromProto(request.capacity()));
  if (capacity.micro(kCpu) <= 0 || capacity.micro(kMem) <= 0) {
    return absl::InvalidArgumentError("a node needs some cpu and memory");
  }
  EventLock lock(*this);
  const size_t known = slots_.size();
  if (request.rack() > kMaxRack) return absl::InvalidArgumentError(fmt::format("a node's rack is at most {}", kMaxRack));
  ASSIGN_OR_RETURN(const uint32_t slot, slots_.Claim(request.name(), capacity, request.rack()));
  if (slot >= known) {
    JournalTransaction tx(*journal_);
    tx.Then([&] { return journal_->PutNode(JournalNode{slot, request.name(), capacity}); });
    if (request.rack() != 0) {
      tx.Then([&] { return journal_->SetMeta(fmt::format("rack:{}", slot), std::to_string(request.rack())); });
    }
    if (const absl::Status s = tx.Commit(); !s.ok()) {
      return absl::InternalError(fmt::format("journal: {}", StatusMessage(s)));
    }
    outbox_.Resize(slots_.size());
    relay_.Resize(slots_.size());
    leases_.Resize(slots_.size());
  }
  const TimeUs now = NowUs();
  // The same node again: its old stream is dead or stale.
  if (outbox_.connected(slot)) LoseNode(slot, now, /*close=*/true);
  ReleaseHeldMachines(now);  // before it connects: a slot released now comes up below, once
  const uint64_t generation = outbox_.Connect(slot, link, now);
  transfers_.SetAddress(slot, request.data_address());
  relay_.NewSession(slot);
  leases_.Granted(slot, now);  // the node counts its lease from its first grant; counting from here is later
  v1::SchedulerMessage registered =
      RegisteredMessage(slot, config_.heartbeat_us, config_.node_timeout_us, config_.replica, built_.policy->overbooked());
  registered.mutable_registered()->set_lease_ms(config_.lease_us / 1000);
  outbox_.SendNow(slot, std::move(registered));
  spdlog::info("node {} registered in slot {} (rack {}) with {}", request.name(), slot, request.rack(),
               capacity.ToString());
  if (run_) {
    // A node lost a moment ago (and held: its old lease may still run) comes up when released.
    if (!leases_.held(slot)) run_->MachineUp(slot, now);
  } else if (slots_.complete()) {
    std::vector<bool> up(slots_.size());
    for (uint32_t s = 0; s < outbox_.size(); ++s) up[s] = outbox_.connected(s);
    if (absl::Status s = StartRun(up); !s.ok()) return s;
    spdlog::info("cluster complete with {} nodes: policy {} started", slots_.size(), built_.info->name);
  }
  return Session{slot, generation};
}

void SchedulerCore::OnNodeMessage(const Session& session, const v1::NodeMessage& message) {
  EventLock lock(*this);
  if (!outbox_.Current(session.slot, session.generation)) return;
  const TimeUs now = NowUs();
  outbox_.HeardFrom(session.slot, now);
  if (message.has_heartbeat() && message.heartbeat().seq() > 0) {
    // Answered at once, whatever else waits (a failing journal holds back
    // launches, never a lease): the node's tasks go on while it hears this.
    leases_.Granted(session.slot, now);
    v1::SchedulerMessage grant;
    grant.mutable_lease()->set_seq(message.heartbeat().seq());
    outbox_.SendNow(session.slot, std::move(grant));
  }
  // Before the cluster is complete no attempt runs: there is nothing to report.
  if (!run_) return;
  if (message.has_ends()) run_->OnTaskEnds(message.ends(), now);
  if (message.has_phase_ends()) run_->OnPhaseEnds(message.phase_ends(), now);
  if (message.has_copy_ends()) run_->OnCopyEnds(message.copy_ends(), now);
  if (message.has_agent_actions()) relay_.OnActions(session.slot, slots_.name(session.slot), message.agent_actions(), now);
  if (message.has_heartbeat()) run_->OnHeartbeat(message.heartbeat(), now);
}

void SchedulerCore::DeliverToNode(MachineId machine, const sim::NodeMail& mail) {
  relay_.Deliver(machine, mail, NowUs());
}

void SchedulerCore::NodeGone(const Session& session) {
  EventLock lock(*this);
  if (!outbox_.Current(session.slot, session.generation)) return;
  spdlog::warn("node {} disconnected", slots_.name(session.slot));
  LoseNode(session.slot, NowUs(), /*close=*/false);
}

void SchedulerCore::LoseNode(uint32_t slot, TimeUs now, bool close) {
  outbox_.Disconnect(slot, close);
  if (!run_) return;  // nothing runs before the cluster is complete
  leases_.Lost(slot);
  ReleaseHeldMachines(now);
}

void SchedulerCore::ReleaseHeldMachines(TimeUs now) {
  for (const NodeLeases::Due& due : leases_.TakeDue(now)) {
    if (!run_) continue;
    if (due.down) {
      spdlog::info("node {}'s lease has run out: its tasks run elsewhere", slots_.name(due.slot));
      run_->MachineDown(due.slot, now);
    }
    if (outbox_.connected(due.slot)) run_->MachineUp(due.slot, now);
  }
}

void SchedulerCore::RunClock() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const TimeUs now = NowUs();
    if (run_) run_->Advance(now);
    for (const uint32_t s : outbox_.Silent(now, config_.node_timeout_us)) {
      spdlog::warn("node {} missed its heartbeats: lost", slots_.name(s));
      LoseNode(s, now, /*close=*/true);
    }
    Flush();
    TimeUs next = now + kClockTickUs;
    if (const TimeUs due = NextEngineEventUs(); due >= 0) next = std::min(next, due);
    clock_wakes_at_us_ = std::max(next, now);
    clock_.SleepUntil(lock, clock_start_us_ + (clock_wakes_at_us_ - clock_offset_us_));
  }
}

void SchedulerCore::Stop() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  clock_.Wake();
}

void SchedulerCore::StartAttempt(const sim::AttemptLaunch& launch) {
  metrics_.AttemptLaunched();
  launches_.Launch(launch);
}

void SchedulerCore::OnAttemptStart(const AttemptStart& start) { launches_.OnStart(start); }

void SchedulerCore::OnReservationChange(const ReservationChange& change) { launches_.OnChange(change); }

void SchedulerCore::StartPhase(uint64_t id, MachineId machine, const TaskRef& task, uint32_t phase) {
  launches_.StartPhase(id, machine, task, phase);
}

bool SchedulerCore::CopyBytes(uint64_t id, MachineId to, MachineId from, double mb) {
  return launches_.CopyBytes(id, to, from, mb);
}

void SchedulerCore::KillAttempt(uint64_t id, MachineId machine) {
  metrics_.AttemptKilled();
  outbox_.AddKill(machine.value(), id);
}

void SchedulerCore::OnAttemptEnd(const AttemptRecord& record) {
  launches_.OnEnd(record.task, record.attempt);
  const v1::TaskEnd* reported = run_ ? run_->reporting() : nullptr;
  if (record.outcome == Outcome::kFailed && reported != nullptr) {
    last_failures_.Note(record, slots_.name(record.machine.value()), *reported);
  }
  pending_attempts_.push_back(record);
}

void SchedulerCore::OnJobEnd(const JobRecord& record) { pending_job_ends_.push_back(record); }

void SchedulerCore::OnPhaseEnd(const PhaseRecord& record) { export_.OnPhaseEnd(record); }

void SchedulerCore::OnSeries(const SeriesPoint& point) { export_.OnSeries(point); }

absl::Status SchedulerCore::CommitPending() {
  std::vector<JournalJob::State> states;
  states.reserve(pending_job_ends_.size());
  JournalTransaction tx(*journal_);
  tx.Then([&] { return journal_->RecordAttempts(pending_attempts_); });
  for (const JobRecord& j : pending_job_ends_) {
    states.push_back(cancelling_.contains(j.job.value()) ? JournalJob::State::kCancelled
                     : j.succeeded                       ? JournalJob::State::kSucceeded
                                                         : JournalJob::State::kFailed);
    tx.Then([&] { return journal_->EndJob(j.job, states.back(), j.end_us); });
  }
  if (const absl::Status s = tx.Commit(); !s.ok()) {
    if (!absl::IsAlreadyExists(s) && !absl::IsNotFound(s) && !absl::IsFailedPrecondition(s)) return s;
    // A batch the journal refuses by its rules (a second ok attempt of a
    // task) would be refused forever: it is dropped, as a bug to report, so
    // that the scheduler is not wedged by it.
    spdlog::critical("journal refused a batch, dropped: {}", StatusMessage(s));
    pending_attempts_.clear();
    pending_job_ends_.clear();
    return absl::OkStatus();
  }
  // Journaled: now status, export and the nodes' agents may see it.
  relay_.TellProgress(pending_attempts_, NowUs());
  for (const AttemptRecord& a : pending_attempts_) {
    metrics_.AttemptEnded(a.outcome);
    if (a.outcome == Outcome::kOk) jobs_.CountDone(a.task.job.value());
  }
  for (size_t i = 0; i < pending_job_ends_.size(); ++i) {
    const JobRecord& j = pending_job_ends_[i];
    jobs_.End(j.job.value(), states[i], j.end_us);
    retention_.NoteEnded(j.job.value());
    cancelling_.erase(j.job.value());
    relay_.TellJobEnded(j.job, NowUs());
  }
  pending_attempts_.clear();
  pending_job_ends_.clear();
  return absl::OkStatus();
}

void SchedulerCore::FlushUnlessQueued() {
  if (queued_.load() > 0 && ++deferred_events_ < kMaxDeferredEvents) return;
  Flush();
}

void SchedulerCore::Flush() {
  deferred_events_ = 0;
  ReleaseHeldMachines(NowUs());
  if (!pending_attempts_.empty() || !pending_job_ends_.empty()) {
    const TimeUs commit_start = clock_.NowUs();
    const absl::Status s = CommitPending();
    metrics_.JournalCommit(UsToSeconds(clock_.NowUs() - commit_start));
    if (!s.ok()) {
      // Nothing that depends on these events may leave: the launches and
      // kills they caused stay queued with the events, and the commit is
      // retried at the next event or clock tick (bug 2 of issue 20).
      if (journal_error_.empty()) {
        spdlog::critical("journal commit failed, new work refused until it succeeds: {}", StatusMessage(s));
      }
      journal_error_ = std::string(StatusMessage(s));
      return;
    }
    if (!journal_error_.empty()) spdlog::warn("journal commits again: resuming");
    journal_error_.clear();
  }
  outbox_.Flush();
  if (journal_error_.empty()) MaybeCompact(NowUs());
  // The clock thread sleeps until its next deadline; wake it only when the
  // engine now has something due sooner (a wake-up per event would cost a
  // thread switch each).
  if (const TimeUs due = NextEngineEventUs(); due >= 0 && due < clock_wakes_at_us_) clock_.Wake();
}

}  // namespace weft::runtime
