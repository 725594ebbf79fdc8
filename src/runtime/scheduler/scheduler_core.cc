#include "runtime/scheduler/scheduler_core.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "absl/strings/numbers.h"
#include "core/status.h"
#include "fmt/format.h"
#include "model/names.h"
#include "runtime/scheduler/results_archive.h"
#include "runtime/wire.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {

namespace {

constexpr TimeUs kClockTickUs = 100'000;  // heartbeat deadlines are checked this often
constexpr size_t kMaxNodeName = 128;
constexpr uint32_t kMaxRack = 65535;  // weftd node --rack
constexpr int kMaxDeferredEvents = 64;  // a commit at least every this many events

// Retention compacts in batches of at least this many jobs beyond it (or
// retain/8, if larger): each batch costs a pass over the journal's attempts.
constexpr uint64_t kMinCompactBatch = 256;
constexpr TimeUs kAgeCheckUs = 1'000'000;  // --retain-age is checked this often

JournalJob::State StateOfName(const std::string& name) {
  if (name == "succeeded") return JournalJob::State::kSucceeded;
  if (name == "cancelled") return JournalJob::State::kCancelled;
  return JournalJob::State::kFailed;
}

const char* StateName(JournalJob::State s) {
  switch (s) {
    case JournalJob::State::kActive: return "running";
    case JournalJob::State::kSucceeded: return "succeeded";
    case JournalJob::State::kFailed: return "failed";
    case JournalJob::State::kCancelled: return "cancelled";
  }
  return "?";
}

bool ValidNodeName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNodeName) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// MeasuredResources: a node's measurement in model units; a malformed one
// (negative, not finite) counts as nothing measured.
Resources MeasuredResources(const v1::ResourceVector& v) {
  absl::StatusOr<Resources> r = FromProto(v);
  return r.ok() ? *r : Resources();
}

// MeasuredUsage: what an attempt used over its run. Older nodes send only
// cpu-seconds and peak RSS: the average cores come from the run's length.
policy::TaskUsage MeasuredUsage(const v1::TaskEnd& end) {
  if (end.has_usage()) return {MeasuredResources(end.average()), MeasuredResources(end.peak())};
  v1::ResourceVector average;
  average.set_cpu(end.run_us() > 0 ? end.cpu_seconds() * 1e6 / static_cast<double>(end.run_us()) : 0);
  average.set_mem(static_cast<double>(std::max<int64_t>(0, end.peak_rss_bytes())) / 1e9);
  const Resources measured = MeasuredResources(average);
  return {measured, measured};
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

SchedulerCore::SchedulerCore(const SchedulerConfig& config) : config_(config), slots_(config.nodes) {}

SchedulerCore::~SchedulerCore() = default;

absl::StatusOr<std::unique_ptr<SchedulerCore>> SchedulerCore::Open(const SchedulerConfig& config) {
  if (config.nodes == 0) return absl::InvalidArgumentError("--nodes must be at least 1");
  if (config.replica.count == 0 || config.replica.index >= config.replica.count) {
    return absl::InvalidArgumentError("--replica must be below --replicas");
  }
  std::unique_ptr<SchedulerCore> core(new SchedulerCore(config));
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
  return clock_offset_us_ +
         std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - steady_start_).count();
}

absl::Status SchedulerCore::Recover() {
  ASSIGN_OR_RETURN(Recovered r, journal_->Load());
  const int64_t unix_now =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string policy = config_.policy;
  nlohmann::json params = config_.params;
  const std::string replica = fmt::format("{}/{}", config_.replica.index, config_.replica.count);
  if (r.meta.contains("policy")) {
    // The journal's jobs were planned under its policy: resume with it.
    if (!policy.empty() && policy != r.meta["policy"]) {
      return absl::InvalidArgumentError(fmt::format("state dir {} belongs to a scheduler running policy {}, not {}",
                                                    config_.state_dir.string(), r.meta["policy"], policy));
    }
    policy = r.meta["policy"];
    params = nlohmann::json::parse(r.meta["params"], nullptr, false);
    int64_t epoch = 0;
    if (!absl::SimpleAtoi(r.meta["epoch_unix_us"], &epoch) || !params.is_array()) {
      return absl::DataLossError("the journal's meta data is damaged");
    }
    clock_offset_us_ = std::max<int64_t>(0, unix_now - epoch);
    epoch_unix_us_ = epoch;
    if (r.meta.contains("replica") && r.meta["replica"] != replica) {
      return absl::InvalidArgumentError(fmt::format("state dir {} belongs to scheduler replica {}, not {}",
                                                    config_.state_dir.string(), r.meta["replica"], replica));
    }
  } else if (policy.empty()) {
    policy = "fifo";
  }
  params_ = params.get<std::vector<std::string>>();
  ASSIGN_OR_RETURN(built_, policy::BuildPolicy(policy, params_));
  if (config_.replica.count > 1 && !built_.policy->has_node_agents()) {
    // Only a policy whose node agents decide what runs on their node can
    // share the nodes: replicas of any other would overbook them.
    return absl::InvalidArgumentError(fmt::format(
        "--replicas needs a policy whose node agents run on the nodes (sparrow*); {} has none", policy));
  }
  if (!r.meta.contains("policy")) {
    // A new state dir: its identity is written only once the flags proved good,
    // so a refused start leaves nothing that a corrected one would trip over.
    RETURN_IF_ERROR(journal_->Begin());
    RETURN_IF_ERROR(journal_->SetMeta("policy", policy));
    RETURN_IF_ERROR(journal_->SetMeta("params", params.dump()));
    RETURN_IF_ERROR(journal_->SetMeta("epoch_unix_us", std::to_string(unix_now)));
    RETURN_IF_ERROR(journal_->SetMeta("replica", replica));
    RETURN_IF_ERROR(journal_->Commit());
    epoch_unix_us_ = unix_now;
  }
  steady_start_ = std::chrono::steady_clock::now();

  for (const JournalNode& n : r.nodes) {
    // A node's rack is a meta value (rack:SLOT), so journals without racks keep their schema.
    uint32_t rack = 0;
    if (auto it = r.meta.find(fmt::format("rack:{}", n.slot)); it != r.meta.end()) {
      (void)absl::SimpleAtoi(it->second, &rack);
    }
    slots_.Restore(n.name, n.capacity, rack);
  }
  nodes_.resize(slots_.size());
  if (!slots_.complete()) {
    if (!r.jobs.empty()) return absl::DataLossError("the journal has jobs but not the cluster they ran on");
    return absl::OkStatus();
  }
  // Nodes come back by registering again; until then they are down.
  RETURN_IF_ERROR(StartEngine(std::vector<bool>(slots_.size(), false)));
  absl::flat_hash_map<uint32_t, std::vector<AttemptRecord>> history;
  for (const AttemptRecord& a : r.attempts) history[a.task.job.value()].push_back(a);
  const TimeUs now = NowUs();
  // Jobs compacted by retention are in the results archive, not the journal.
  ASSIGN_OR_RETURN(const auto archived, ReadArchive(ResultsArchivePath(config_.state_dir)));
  auto add_compacted = [&]() -> bool {
    auto it = archived.find(static_cast<uint32_t>(jobs_.size()));
    if (it == archived.end()) return false;
    const v1::ArchivedJob& a = it->second;
    JobInfo info{.submitted_us = static_cast<TimeUs>(std::llround(a.submitted_s() * 1e6)),
                 .state = StateOfName(a.row().state()), .end_us = a.row().end_us(), .tasks = a.tasks(),
                 .arrival_us = a.row().arrival_us(), .done = a.done()};
    info.compacted = true;
    jobs_.push_back(std::move(info));
    live_.jobs.emplace_back();  // keeps JobId = index; never run
    return true;
  };
  std::vector<uint32_t> ended;
  for (const JournalJob& j : r.jobs) {
    while (jobs_.size() < j.id.value() && add_compacted()) {
    }
    if (j.id.value() != jobs_.size()) return absl::DataLossError("the journal's job ids are not consecutive");
    nlohmann::json spec = nlohmann::json::parse(j.spec_json, nullptr, false);
    ASSIGN_OR_RETURN(LiveJob built, BuildJob(spec, live_.cluster));
    std::vector<AttemptRecord>& past = history[j.id.value()];
    const std::vector<AttemptRecord> elsewhere = DoneElsewhere(r.meta, j.id);
    const uint64_t done = elsewhere.size() + static_cast<uint64_t>(std::count_if(
        past.begin(), past.end(), [](const AttemptRecord& a) { return a.outcome == Outcome::kOk; }));
    past.insert(past.begin(), elsewhere.begin(), elsewhere.end());
    jobs_.push_back(JobInfo{built.job.name, j.spec_json, j.submitted_us, j.state, j.end_us, built.job.num_tasks,
                            ArrivalUs(j.submitted_us, built.job.arrival_us), done});
    if (auto moved = r.meta.find(fmt::format("moved:{}", j.id.value())); moved != r.meta.end()) {
      uint32_t to = 0;
      if (absl::SimpleAtoi(moved->second, &to)) jobs_.back().moved_to = to + 1;
    }
    if (j.state == JournalJob::State::kActive) {
      AddLiveJob(j.id, built, now, past);
    } else {
      ended.push_back(j.id.value());
      built.job.arrival_us = jobs_.back().arrival_us;
      live_.jobs.push_back(std::move(built.job));  // keeps JobId = index; never run
    }
  }
  while (add_compacted()) {
  }
  std::stable_sort(ended.begin(), ended.end(),
                   [&](uint32_t a, uint32_t b) { return jobs_[a].end_us < jobs_[b].end_us; });
  for (const uint32_t j : ended) NoteEnded(j);
  Flush();
  spdlog::info("recovered {} nodes, {} jobs ({} compacted), {} attempt ends from {}", r.nodes.size(), jobs_.size(),
               jobs_.size() - r.jobs.size(), r.attempts.size(), config_.state_dir.string());
  return absl::OkStatus();
}

absl::Status SchedulerCore::StartEngine(const std::vector<bool>& up) {
  live_.cluster = slots_.BuildCluster();
  sim::SimOptions options;
  options.seed = config_.seed;
  options.max_attempts = config_.max_attempts;
  options.knowledge.estimate_noise = built_.params.Double("estimate_noise");
  options.knowledge.default_duration_us =
      static_cast<TimeUs>(built_.params.Double("default_duration") * static_cast<double>(kUsPerSecond));
  // A policy's node agents run on the nodes (runtime/node/agent_host.h).
  engine_ = std::make_unique<sim::LiveEngine>(live_, *built_.policy, options, *this, /*remote_agents=*/true);
  engine_->AddObserver(this);
  return engine_->Start(NowUs(), up);
}

void SchedulerCore::AddLiveJob(JobId id, const LiveJob& built, TimeUs now, std::span<const AttemptRecord> history) {
  tasks_in_flight_ += jobs_[id.value()].tasks;
  bytes_in_flight_ += jobs_[id.value()].spec_json.size();
  Job job = built.job;
  auto [it, inserted] = users_.try_emplace(built.user, UserId(static_cast<uint32_t>(live_.users.size())));
  if (inserted) live_.users.push_back(built.user);
  job.user = built.user.empty() ? UserId() : it->second;
  const TimeUs arrival = jobs_[id.value()].arrival_us;
  job.arrival_us = arrival;
  live_.jobs.push_back(std::move(job));
  engine_->JobAdded(id, now, std::max(now, arrival), history);
}

void SchedulerCore::Retire(uint32_t job) {
  tasks_in_flight_ -= jobs_[job].tasks;
  bytes_in_flight_ -= jobs_[job].spec_json.size();
}

absl::Status SchedulerCore::AcceptingJobs() const {
  if (!journal_error_.empty()) {
    return absl::UnavailableError(fmt::format(
        "the scheduler cannot write its journal ({}): new jobs are refused until it can", journal_error_));
  }
  if (!engine_) {
    return absl::UnavailableError(
        fmt::format("the cluster is not complete yet: {} of {} nodes registered", slots_.size(), slots_.expected()));
  }
  return absl::OkStatus();
}

absl::Status SchedulerCore::CheckLimits(uint64_t tasks, uint64_t bytes) const {
  if (tasks_in_flight_ + tasks > config_.max_tasks_in_flight) {
    return absl::ResourceExhaustedError(fmt::format(
        "the submission's {} tasks would bring this scheduler's unfinished tasks to {}, over its limit of {} "
        "(weftd scheduler --max-tasks): wait for jobs to end, or raise the limit",
        tasks, tasks_in_flight_ + tasks, config_.max_tasks_in_flight));
  }
  if (bytes_in_flight_ + bytes > config_.max_job_bytes) {
    return absl::ResourceExhaustedError(fmt::format(
        "the submission's job descriptions ({} bytes) would bring this scheduler's unfinished jobs to {} bytes, "
        "over its limit of {} (weftd scheduler --max-job-mb): wait for jobs to end, or raise the limit",
        bytes, bytes_in_flight_ + bytes, config_.max_job_bytes));
  }
  return absl::OkStatus();
}

std::vector<AttemptRecord> SchedulerCore::DoneElsewhere(const std::map<std::string, std::string>& meta, JobId id) {
  std::vector<AttemptRecord> records;
  auto it = meta.find(fmt::format("done:{}", id.value()));
  if (it == meta.end()) return records;
  const nlohmann::json list = nlohmann::json::parse(it->second, nullptr, false);
  if (!list.is_array()) return records;
  for (const nlohmann::json& t : list) {
    if (!t.is_array() || t.size() != 2 || !t[0].is_number_unsigned() || !t[1].is_number_unsigned()) continue;
    records.push_back(AttemptRecord{.task = TaskRef{id, t[0].get<uint32_t>(), t[1].get<uint32_t>()},
                                    .outcome = Outcome::kOk});
  }
  return records;
}

absl::StatusOr<std::vector<uint32_t>> SchedulerCore::Submit(std::string_view workload_json,
                                                           std::vector<v1::DoneTask> done, uint32_t moved_from) {
  if (const size_t bad = FirstInvalidUtf8(workload_json); bad != std::string_view::npos) {
    return absl::InvalidArgumentError(fmt::format("Submit: workload_json is not valid UTF-8 (byte {})", bad));
  }
  // Parsed and validated without the lock, so that a large submission holds
  // up neither the nodes' heartbeats nor any other call (bug 3 of issue 20).
  // The cluster never changes once complete: the copy is what the jobs run on.
  Cluster cluster;
  {
    std::lock_guard lock(mu_);
    RETURN_IF_ERROR(AcceptingJobs());
    cluster = live_.cluster;
  }
  ASSIGN_OR_RETURN(std::vector<nlohmann::json> specs, SplitSubmission(workload_json, cluster));
  std::vector<LiveJob> built;
  std::vector<std::string> texts;
  built.reserve(specs.size());
  texts.reserve(specs.size());
  uint64_t tasks = 0, bytes = 0;
  for (const nlohmann::json& spec : specs) {
    ASSIGN_OR_RETURN(LiveJob job, BuildJob(spec, cluster));
    tasks += job.job.num_tasks;
    texts.push_back(spec.dump());
    bytes += texts.back().size();
    built.push_back(std::move(job));
  }
  // Tasks done elsewhere, per job, checked against the jobs they name.
  std::vector<nlohmann::json> done_lists(specs.size(), nlohmann::json::array());
  for (const v1::DoneTask& d : done) {
    if (d.job() >= built.size() || d.stage() >= built[d.job()].job.stages.size() ||
        d.task() >= built[d.job()].job.stages[d.stage()].num_tasks) {
      return absl::InvalidArgumentError(
          fmt::format("Submit: done task {}/{}/{} names no task of the submission", d.job(), d.stage(), d.task()));
    }
    done_lists[d.job()].push_back({d.stage(), d.task()});
  }

  EventLock lock(*this);
  RETURN_IF_ERROR(AcceptingJobs());
  RETURN_IF_ERROR(CheckLimits(tasks, bytes));
  // All or nothing (bug 4): whatever could fail is done before the journal
  // has the jobs, and nothing after it can fail (the room is reserved).
  jobs_.reserve(jobs_.size() + specs.size());
  live_.jobs.reserve(live_.jobs.size() + specs.size());
  const TimeUs now = NowUs();
  std::vector<JournalJob> entries;
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < specs.size(); ++i) {
    const JobId id(static_cast<uint32_t>(jobs_.size() + i));
    entries.push_back(JournalJob{id, built[i].job.name, std::move(texts[i]), now});
    ids.push_back(config_.replica.Global(id.value()));
  }
  // Journal first: an id is returned only for a job that survives a crash
  // (with the tasks it had done elsewhere, in the same transaction).
  absl::Status journaled = journal_->Begin();
  if (journaled.ok()) journaled = journal_->AddJobs(entries);
  std::map<std::string, std::string> done_meta;
  for (size_t i = 0; i < specs.size() && journaled.ok(); ++i) {
    if (done_lists[i].empty()) continue;
    const std::string key = fmt::format("done:{}", entries[i].id.value());
    done_meta[key] = done_lists[i].dump();
    journaled = journal_->SetMeta(key, done_meta[key]);
  }
  if (journaled.ok()) journaled = journal_->Commit();
  if (!journaled.ok()) {
    journal_->Rollback();
    return journaled;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::vector<AttemptRecord> history = DoneElsewhere(done_meta, entries[i].id);
    jobs_.push_back(JobInfo{built[i].job.name, std::move(entries[i].spec_json), now, JournalJob::State::kActive, 0,
                            built[i].job.num_tasks, ArrivalUs(now, built[i].job.arrival_us), history.size()});
    AddLiveJob(entries[i].id, built[i], now, history);
  }
  spdlog::info("accepted {} jobs (ids {}..{})", ids.size(), ids.empty() ? 0 : ids.front(), ids.empty() ? 0 : ids.back());
  if (moved_from > 0) {
    spdlog::info("job {} continues job {} of a scheduler that went down, with {} tasks already done", ids.front(),
                 moved_from - 1, done.size());
  }
  return ids;
}

std::string SchedulerCore::JobState(JobId id) const {
  const JobInfo& info = jobs_[id.value()];
  if (info.state != JournalJob::State::kActive) return StateName(info.state);
  const policy::JobProgress* p = engine_ ? engine_->progress(id) : nullptr;
  if (p == nullptr) return "waiting";
  for (const policy::StageProgress& s : p->stages) {
    if (s.running > 0 || s.done > 0) return "running";
  }
  return "waiting";
}

v1::StatusReply SchedulerCore::Status(const v1::StatusRequest& request) {
  std::lock_guard lock(mu_);
  Flush();  // report only what is journaled
  v1::StatusReply reply;
  reply.set_policy(built_.info->name);
  reply.set_nodes_expected(slots_.expected());
  uint32_t up = 0;
  for (const NodeState& n : nodes_) up += n.link != nullptr;
  reply.set_nodes_up(up);
  reply.set_ready(engine_ != nullptr);
  reply.set_replica(config_.replica.index);
  reply.set_replicas(config_.replica.count);
  reply.set_journal_error(journal_error_);
  const std::optional<uint32_t> wanted = config_.replica.Local(request.job());
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    if (request.no_jobs() || (!request.all() && wanted != j)) continue;
    const JobInfo& info = jobs_[j];
    if (info.compacted && request.all()) continue;  // a listing shows what is held
    v1::JobStatus* s = reply.add_jobs();
    if (info.compacted) {
      // Its name and progress are gone; how it ended is kept (weft wait needs it).
      s->set_id(config_.replica.Global(j));
      s->set_name("(compacted)");
      s->set_state(StateName(info.state));
      s->set_compacted(true);
      s->set_tasks(info.tasks);
      s->set_done(info.done);
      s->set_submitted_s(UsToSeconds(info.submitted_us));
      s->set_end_s(UsToSeconds(info.end_us));
      continue;
    }
    s->set_id(config_.replica.Global(j));
    s->set_name(info.name);
    s->set_state(info.moved_to > 0 ? "moved" : JobState(JobId(j)));
    s->set_moved_to(info.moved_to);
    s->set_tasks(info.tasks);
    s->set_submitted_s(UsToSeconds(info.submitted_us));
    s->set_end_s(UsToSeconds(info.end_us));
    const policy::JobProgress* p = engine_ ? engine_->progress(JobId(j)) : nullptr;
    // Done counts what is journaled (one ok attempt per task), so it never
    // runs ahead of the journal and is the same after a restart.
    s->set_done(info.done);
    if (info.state == JournalJob::State::kActive && p != nullptr) {
      uint64_t running = 0;
      for (const policy::StageProgress& st : p->stages) running += st.running;
      s->set_running(info.state == JournalJob::State::kActive ? running : 0);
    }
  }
  return reply;
}

absl::Status SchedulerCore::Cancel(uint32_t global_job) {
  EventLock lock(*this);
  const std::optional<uint32_t> local = config_.replica.Local(global_job);
  if (!local || *local >= jobs_.size()) return absl::NotFoundError(fmt::format("no job {}", global_job));
  const uint32_t job = *local;
  if (jobs_[job].state != JournalJob::State::kActive) {
    return absl::FailedPreconditionError(
        fmt::format("job {} has already ended ({})", global_job, StateName(jobs_[job].state)));
  }
  cancelling_.insert(job);
  if (!engine_->CancelJob(JobId(job), NowUs())) {
    // Not arrived yet (a replayed trace's later arrival): end it here.
    cancelling_.erase(job);
    const TimeUs end = NowUs();
    RETURN_IF_ERROR(journal_->EndJob(JobId(job), JournalJob::State::kCancelled, end));  // journaled, then shown
    jobs_[job].state = JournalJob::State::kCancelled;
    jobs_[job].end_us = end;
    Retire(job);
    NoteEnded(job);
  }
  return absl::OkStatus();
}

void SchedulerCore::RefreshMetrics() {
  std::lock_guard lock(mu_);
  Flush();  // report only what is journaled
  SchedulerMetrics::Snapshot s;
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    const JobInfo& info = jobs_[j];
    s.tasks_done += info.done;
    switch (info.state) {
      case JournalJob::State::kActive: {
        ++s.jobs_active;
        const policy::JobProgress* p = engine_ ? engine_->progress(JobId(j)) : nullptr;
        if (p == nullptr) break;
        for (const policy::StageProgress& st : p->stages) {
          s.tasks_queued += st.ready;
          s.tasks_running += st.running;
        }
        break;
      }
      case JournalJob::State::kSucceeded: ++s.jobs_done; break;
      case JournalJob::State::kFailed: ++s.jobs_failed; break;
      case JournalJob::State::kCancelled: ++s.jobs_cancelled; break;
    }
  }
  if (engine_ != nullptr) {
    s.refused_decisions = engine_->stats().refused_decisions;
    const policy::ClusterState& cluster = engine_->cluster();
    for (uint32_t m = 0; m < cluster.size(); ++m) {
      const MachineId id(m);
      s.nodes.push_back({.name = cluster.machine(id).name,
                         .up = m < nodes_.size() && nodes_[m].link != nullptr,
                         .capacity = cluster.capacity(id),
                         .allocated = cluster.allocated(id),
                         .used = cluster.used(id)});
    }
  }
  metrics_.Update(s);
}

absl::StatusOr<v1::ExportChunk> SchedulerCore::Export() {
  std::lock_guard lock(mu_);
  Flush();  // export only what is journaled, all of it
  ASSIGN_OR_RETURN(Recovered r, journal_->Load());
  // Compacted jobs' rows come from the results archive, as they were.
  std::map<uint32_t, v1::ArchivedJob> archived;
  if (std::any_of(jobs_.begin(), jobs_.end(), [](const JobInfo& i) { return i.compacted; })) {
    ASSIGN_OR_RETURN(archived, ReadArchive(ResultsArchivePath(config_.state_dir)));
  }
  auto archive_of = [&](uint32_t j) -> const v1::ArchivedJob& {
    static const v1::ArchivedJob kNone;
    auto it = archived.find(j);
    return it == archived.end() ? kNone : it->second;
  };
  v1::ExportChunk chunk;
  chunk.set_policy(built_.info->name);
  chunk.set_replica(config_.replica.index);
  chunk.set_replicas(config_.replica.count);
  chunk.set_epoch_unix_us(epoch_unix_us_);
  // Names repeat across submissions; the results format needs them unique.
  absl::flat_hash_map<std::string, int> uses;
  auto name_of = [&](uint32_t j) -> const std::string& {
    return jobs_[j].compacted ? archive_of(j).name() : jobs_[j].name;
  };
  for (uint32_t j = 0; j < jobs_.size(); ++j) ++uses[name_of(j)];
  nlohmann::json jobs = nlohmann::json::array();
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    nlohmann::json spec = nlohmann::json::parse(
        jobs_[j].compacted ? archive_of(j).spec_json() : jobs_[j].spec_json, nullptr, false);
    spec["arrival"] = 0;  // arrivals are in the job rows
    // Results do not need the commands, and a renamed job (NAME#ID) must not
    // trip the rules for names a command substitutes (model/names.h).
    for (nlohmann::json& stage : spec["stages"]) stage.erase("command");
    if (uses[name_of(j)] > 1) spec["name"] = fmt::format("{}#{}", name_of(j), config_.replica.Global(j));
    jobs.push_back(std::move(spec));
  }
  const nlohmann::json doc = {{"weft", 1}, {"cluster", ClusterJson(live_.cluster)}, {"jobs", jobs}};
  chunk.set_workload_json(doc.dump());
  for (const auto& [id, a] : archived) {
    if (id < jobs_.size() && jobs_[id].compacted) chunk.mutable_attempts()->Add(a.attempts().begin(), a.attempts().end());
  }
  absl::flat_hash_map<uint32_t, TimeUs> first_start;
  for (const AttemptRecord& a : r.attempts) {
    *chunk.add_attempts() = AttemptRowOf(a);
    auto [it, inserted] = first_start.try_emplace(a.task.job.value(), a.start_us);
    if (!inserted) it->second = std::min(it->second, a.start_us);
  }
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    const JobInfo& info = jobs_[j];
    v1::JobRow* row = chunk.add_jobs();
    if (info.compacted) {
      *row = archive_of(j).row();
      continue;
    }
    row->set_job(j);
    row->set_state(StateName(info.state));
    const TimeUs arrival = info.arrival_us;
    row->set_arrival_us(arrival);
    row->set_start_us(first_start.contains(j) ? first_start[j] : arrival);
    row->set_end_us(info.end_us);
  }
  for (const PhaseRecord& p : phase_records_) {
    v1::PhaseRow* row = chunk.add_phases();
    row->set_job(p.task.job.value());
    row->set_stage(p.task.stage);
    row->set_task(p.task.index);
    row->set_attempt(p.attempt);
    row->set_phase(p.phase);
    row->set_resource(std::string(kResourceNames[p.resource]));
    row->set_machine(p.machine.value());
    row->set_start_us(p.start_us);
    row->set_end_us(p.end_us);
    row->set_held(p.held);
    row->set_completed(p.completed);
  }
  for (const SeriesValue& v : series_values_) {
    v1::SeriesRow* row = chunk.add_series();
    row->set_time_us(v.time_us);
    row->set_series(v.series);
    if (v.job.valid()) row->set_job(v.job.value() + 1);
    row->set_value(v.value);
  }
  return chunk;
}

v1::AttemptRow SchedulerCore::AttemptRowOf(const AttemptRecord& a) {
  v1::AttemptRow row;
  row.set_job(a.task.job.value());
  row.set_stage(a.task.stage);
  row.set_task(a.task.index);
  row.set_attempt(a.attempt);
  row.set_machine(a.machine.value());
  row.set_ready_us(a.ready_us);
  row.set_start_us(a.start_us);
  row.set_end_us(a.end_us);
  row.set_outcome(OutcomeName(a.outcome));
  row.set_locality(LocalityName(a.locality));
  *row.mutable_demand() = ToProto(a.demand);
  *row.mutable_usage() = ToProto(a.usage);
  return row;
}

void SchedulerCore::NoteEnded(uint32_t job) {
  if (config_.retain_jobs == UINT64_MAX && config_.retain_age_us <= 0) return;  // keep everything
  ended_order_.push_back(job);
}

void SchedulerCore::MaybeCompact(TimeUs now) {
  if (ended_order_.empty()) return;
  const uint64_t batch = std::max(kMinCompactBatch, config_.retain_jobs == UINT64_MAX ? 0 : config_.retain_jobs / 8);
  std::vector<uint32_t> doomed;
  if (ended_order_.size() >= config_.retain_jobs + batch) {
    while (ended_order_.size() > config_.retain_jobs) {
      doomed.push_back(ended_order_.front());
      ended_order_.pop_front();
    }
  }
  if (config_.retain_age_us > 0 && now - last_age_check_us_ >= kAgeCheckUs) {
    last_age_check_us_ = now;
    // Oldest end first, so the expired ones are a prefix (ends are journaled
    // in order; a recovered journal's were sorted by end).
    while (!ended_order_.empty() && jobs_[ended_order_.front()].end_us < now - config_.retain_age_us) {
      doomed.push_back(ended_order_.front());
      ended_order_.pop_front();
    }
  }
  if (doomed.empty()) return;
  if (const absl::Status s = Compact(doomed); !s.ok()) {
    // Kept, and tried again with the next batch: retention is best effort.
    spdlog::error("retention: cannot compact {} ended jobs: {}", doomed.size(), StatusMessage(s));
    ended_order_.insert(ended_order_.begin(), doomed.begin(), doomed.end());
  }
}

absl::Status SchedulerCore::Compact(const std::vector<uint32_t>& ids) {
  std::vector<JobId> job_ids;
  for (const uint32_t j : ids) job_ids.push_back(JobId(j));
  ASSIGN_OR_RETURN(const std::vector<AttemptRecord> attempts, journal_->LoadAttempts(job_ids));
  absl::flat_hash_map<uint32_t, size_t> index;
  std::vector<v1::ArchivedJob> archive(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const JobInfo& info = jobs_[ids[i]];
    index[ids[i]] = i;
    v1::ArchivedJob& a = archive[i];
    a.set_id(ids[i]);
    a.set_name(info.name);
    a.set_spec_json(info.spec_json);
    a.set_tasks(info.tasks);
    a.set_done(info.done);
    a.set_submitted_s(UsToSeconds(info.submitted_us));
    v1::JobRow* row = a.mutable_row();
    row->set_job(ids[i]);
    row->set_state(StateName(info.state));
    row->set_arrival_us(info.arrival_us);
    row->set_start_us(info.arrival_us);
    row->set_end_us(info.end_us);
  }
  // The same rows Export makes from the journal: its start is the first attempt's.
  absl::flat_hash_set<uint32_t> started;
  for (const AttemptRecord& r : attempts) {
    v1::ArchivedJob& a = archive[index.at(r.task.job.value())];
    *a.add_attempts() = AttemptRowOf(r);
    v1::JobRow* row = a.mutable_row();
    row->set_start_us(started.insert(r.task.job.value()).second ? r.start_us : std::min(row->start_us(), r.start_us));
  }
  RETURN_IF_ERROR(AppendArchive(ResultsArchivePath(config_.state_dir), archive));
  absl::Status s = journal_->Begin();
  if (s.ok()) s = journal_->DeleteJobs(job_ids);
  if (s.ok()) s = journal_->Commit();
  if (!s.ok()) {
    journal_->Rollback();
    return s;  // archived and still journaled: archived again later (readers keep the last)
  }
  for (const uint32_t j : ids) {
    JobInfo& info = jobs_[j];
    info.compacted = true;
    std::string().swap(info.name);
    std::string().swap(info.spec_json);
    if (engine_ != nullptr) {
      for (NodeState& node : nodes_) node.jobs_sent.erase(j);
    }
  }
  // The engine forgets them too: their run state and stages (a stub stays).
  if (engine_ != nullptr) engine_->ReleaseJobs(job_ids, NowUs());
  spdlog::info("retention: compacted {} ended jobs (ids {}..{}) into {}", ids.size(), ids.front(), ids.back(),
               ResultsArchivePath(config_.state_dir).string());
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
    absl::Status s = journal_->Begin();
    if (s.ok()) s = journal_->PutNode(JournalNode{slot, request.name(), capacity});
    if (s.ok() && request.rack() != 0) s = journal_->SetMeta(fmt::format("rack:{}", slot), std::to_string(request.rack()));
    if (s.ok()) s = journal_->Commit();
    if (!s.ok()) {
      journal_->Rollback();
      return absl::InternalError(fmt::format("journal: {}", StatusMessage(s)));
    }
    nodes_.resize(slots_.size());
  }
  const TimeUs now = NowUs();
  NodeState& node = nodes_[slot];
  if (node.link != nullptr) {  // the same node again: its old stream is dead or stale
    node.link->Close();
    LoseNode(slot, now);
  }
  node.link = link;
  ++node.generation;
  node.last_seen_us = now;
  node.launches.Clear();
  node.kills.Clear();
  node.agent_mails.Clear();
  node.phase_starts.Clear();
  node.jobs_sent.clear();
  v1::SchedulerMessage registered;
  registered.mutable_registered()->set_slot(slot);
  registered.mutable_registered()->set_heartbeat_ms(config_.heartbeat_us / 1000);
  registered.mutable_registered()->set_node_timeout_ms(config_.node_timeout_us / 1000);
  registered.mutable_registered()->set_replica(config_.replica.index);
  registered.mutable_registered()->set_replicas(config_.replica.count);
  registered.mutable_registered()->set_overbooked(built_.policy->overbooked());
  link->Send(std::move(registered));
  spdlog::info("node {} registered in slot {} (rack {}) with {}", request.name(), slot, request.rack(),
               capacity.ToString());
  if (engine_) {
    engine_->MachineUp(MachineId(slot), now);
  } else if (slots_.complete()) {
    std::vector<bool> up(slots_.size());
    for (size_t s = 0; s < nodes_.size(); ++s) up[s] = nodes_[s].link != nullptr;
    if (absl::Status s = StartEngine(up); !s.ok()) return s;
    spdlog::info("cluster complete with {} nodes: policy {} started", slots_.size(), built_.info->name);
  }
  return Session{slot, node.generation};
}

void SchedulerCore::OnNodeMessage(const Session& session, const v1::NodeMessage& message) {
  EventLock lock(*this);
  NodeState& node = nodes_[session.slot];
  if (node.generation != session.generation || node.link == nullptr) return;
  const TimeUs now = NowUs();
  node.last_seen_us = now;
  if (!engine_) return;
  if (message.has_ends()) {
    for (const v1::TaskEnd& end : message.ends().ends()) {
      const bool ok = end.exit_code() == 0 && !end.failed_to_start();
      engine_->AttemptEnded(end.attempt(), ok ? Outcome::kOk : Outcome::kFailed, MeasuredUsage(end), now,
                            end.run_us() > 0 ? end.run_us() : -1);
      if (!ok) spdlog::info("attempt {} failed: exit {} {}", end.attempt(), end.exit_code(), EscapeForDisplay(end.error()));
    }
  }
  if (message.has_phase_ends()) {
    for (const v1::PhaseEnd& end : message.phase_ends().ends()) {
      const policy::TaskUsage usage{MeasuredResources(end.average()), MeasuredResources(end.peak())};
      if (end.exit_code() == 0) {
        engine_->PhaseEnded(end.attempt(), end.phase(), usage, now);
        continue;
      }
      // A failed phase fails its attempt (the node has already dropped it).
      engine_->AttemptEnded(end.attempt(), Outcome::kFailed, usage, now);
      spdlog::info("attempt {} failed in phase {}: exit {} {}", end.attempt(), end.phase(), end.exit_code(),
                   EscapeForDisplay(end.error()));
    }
  }
  if (message.has_agent_actions()) OnAgentActions(session.slot, message.agent_actions(), now);
  if (message.has_heartbeat()) {
    for (const v1::TaskUsage& u : message.heartbeat().usage()) {
      v1::ResourceVector v;
      v.set_cpu(u.cpu_cores());
      v.set_mem(static_cast<double>(u.rss_bytes()) / 1e9);
      v.set_disk(u.disk_mbps());
      v.set_net(u.net_mbps());
      engine_->UpdateUsage(u.attempt(), MeasuredResources(v), now);
    }
  }
}

void SchedulerCore::OnAgentActions(uint32_t slot, const v1::AgentActions& actions, TimeUs now) {
  for (v1::AgentAction action : actions.actions()) {
    const policy::Message global = FromProto(action.message());
    const bool mine = config_.replica.ToLocal(action);
    if (!mine) {
      spdlog::warn("node {} sent replica {} an action about another replica's job or scheduler", slots_.name(slot),
                   config_.replica.index);
      if (!action.launch()) continue;
    }
    const policy::Message message = FromProto(action.message());
    if (action.launch()) {
      if (!mine || !engine_->NodeLaunch(MachineId(slot), message.task, now).ok()) {
        // The agent holds the task's room until it hears the launch is off.
        v1::AgentMail* refused = nodes_[slot].agent_mails.add_mails();
        refused->set_kind(v1::AgentMail::LAUNCH_REFUSED);
        refused->set_now_us(now);
        *refused->mutable_end() = ToProto(policy::TaskEnd{.task = global.task, .machine = MachineId(slot)});
      }
      continue;
    }
    if (action.start_phase()) {
      // A refused start changes nothing (the agent may try again on its next phase event).
      if (absl::Status s = engine_->NodeStartPhase(MachineId(slot), message.task, now); !s.ok()) {
        spdlog::info("node {}: phase start refused: {}", slots_.name(slot), StatusMessage(s));
      }
      continue;
    }
    if (action.kill()) {
      // A refused kill changes nothing; a done one comes back as the task's end.
      if (absl::Status s = engine_->NodeKill(MachineId(slot), message.task, now); !s.ok()) {
        spdlog::info("node {}: kill refused: {}", slots_.name(slot), StatusMessage(s));
      }
      continue;
    }
    absl::StatusOr<policy::Address> to = FromProto(action.to());
    if (!to.ok()) {
      spdlog::warn("node {}: {}", slots_.name(slot), StatusMessage(to.status()));
      continue;
    }
    engine_->NodeSend(MachineId(slot), *to, message, now);
  }
}

void SchedulerCore::DescribeJob(NodeState& node, v1::AgentMail& mail, JobId job) {
  if (!job.valid() || job.value() >= jobs_.size() || jobs_[job.value()].compacted ||
      !node.jobs_sent.insert(job.value()).second) {
    return;
  }
  v1::JobSpec* spec = mail.add_jobs();
  spec->set_id(job.value());
  spec->set_spec_json(jobs_[job.value()].spec_json);
  // With the description, the job's progress so far (every done task).
  const policy::JobProgress* progress = engine_ ? engine_->progress(job) : nullptr;
  if (progress == nullptr) return;
  std::vector<uint64_t> done;
  for (uint64_t k = 0; k < progress->tasks.size(); ++k) {
    if (progress->tasks[k] == policy::TaskState::kDone) done.push_back(k);
  }
  NoteProgress(*progress, done, *mail.mutable_progress());
  mail.mutable_progress()->set_job(job.value());
}

void SchedulerCore::NoteProgress(const policy::JobProgress& progress, std::span<const uint64_t> done,
                                 v1::JobProgressNote& note) {
  for (const policy::StageProgress& sp : progress.stages) {
    v1::StageProgressNote* s = note.add_stages();
    s->set_ready(sp.ready);
    s->set_running(sp.running);
    s->set_done(sp.done);
    s->set_released(sp.released);
  }
  note.mutable_done_tasks()->Add(done.begin(), done.end());
}

void SchedulerCore::TellAgentsProgress() {
  // The tasks each job finished in this batch, as the job's task order has them.
  absl::flat_hash_map<uint32_t, std::vector<uint64_t>> done;
  for (const AttemptRecord& a : pending_attempts_) {
    if (a.outcome != Outcome::kOk) continue;
    const policy::JobProgress* progress = engine_ ? engine_->progress(a.task.job) : nullptr;
    if (progress != nullptr) done[a.task.job.value()].push_back(progress->stage_offset[a.task.stage] + a.task.index);
  }
  for (const auto& [job, tasks] : done) {
    const policy::JobProgress* progress = engine_->progress(JobId(job));
    for (NodeState& node : nodes_) {
      if (node.link == nullptr || !node.jobs_sent.contains(job)) continue;
      v1::AgentMail* m = node.agent_mails.add_mails();
      m->set_kind(v1::AgentMail::PROGRESS);
      m->set_now_us(NowUs());
      NoteProgress(*progress, tasks, *m->mutable_progress());
      m->mutable_progress()->set_job(job);
      config_.replica.ToGlobal(*m);
    }
  }
}

void SchedulerCore::DeliverToNode(MachineId machine, const sim::NodeMail& mail) {
  NodeState& node = nodes_[machine.value()];
  v1::AgentMail* m = node.agent_mails.add_mails();
  m->set_now_us(NowUs());
  *m->mutable_from() = ToProto(mail.from);
  switch (mail.kind) {
    case sim::NodeMail::Kind::kStart: {
      m->set_kind(v1::AgentMail::START);
      v1::AgentSetup* setup = m->mutable_setup();
      setup->set_policy(built_.info->name);
      setup->mutable_params()->Add(params_.begin(), params_.end());
      setup->set_machine(machine.value());
      setup->set_cluster_json(ClusterJson(live_.cluster).dump());
      for (const Machine& machine : live_.cluster.machines()) setup->add_racks(machine.rack.value());
      setup->set_seed(config_.seed);
      setup->set_replicas(config_.replica.count);
      break;
    }
    case sim::NodeMail::Kind::kMessage:
      m->set_kind(v1::AgentMail::MESSAGE);
      *m->mutable_message() = ToProto(mail.message);
      DescribeJob(node, *m, mail.message.task.job);
      break;
    case sim::NodeMail::Kind::kTaskEnded:
      m->set_kind(v1::AgentMail::TASK_ENDED);
      *m->mutable_end() = ToProto(mail.end);
      DescribeJob(node, *m, mail.end.task.job);
      break;
    case sim::NodeMail::Kind::kSchedulerDown:
      m->set_kind(v1::AgentMail::SCHEDULER_DOWN);
      m->set_tag(mail.tag);
      break;
    case sim::NodeMail::Kind::kPhaseReady:
    case sim::NodeMail::Kind::kPhaseEnded:
      m->set_kind(mail.kind == sim::NodeMail::Kind::kPhaseReady ? v1::AgentMail::PHASE_READY
                                                                : v1::AgentMail::PHASE_ENDED);
      *m->mutable_end() = ToProto(mail.end);
      m->set_tag(mail.tag);
      DescribeJob(node, *m, mail.end.task.job);
      break;
  }
  config_.replica.ToGlobal(*m);
}

void SchedulerCore::TellAgentsJobEnded(JobId job) {
  for (NodeState& node : nodes_) {
    if (node.link == nullptr || !node.jobs_sent.contains(job.value())) continue;
    v1::AgentMail* m = node.agent_mails.add_mails();
    m->set_kind(v1::AgentMail::JOB_ENDED);
    m->set_now_us(NowUs());
    m->mutable_end()->set_job(job.value());
    config_.replica.ToGlobal(*m);
  }
}

void SchedulerCore::NodeGone(const Session& session) {
  EventLock lock(*this);
  NodeState& node = nodes_[session.slot];
  if (node.generation != session.generation || node.link == nullptr) return;
  node.link = nullptr;
  spdlog::warn("node {} disconnected", slots_.name(session.slot));
  LoseNode(session.slot, NowUs());
}

void SchedulerCore::LoseNode(uint32_t slot, TimeUs now) {
  nodes_[slot].launches.Clear();
  nodes_[slot].kills.Clear();
  nodes_[slot].agent_mails.Clear();
  nodes_[slot].phase_starts.Clear();
  if (engine_) engine_->MachineDown(MachineId(slot), now);
}

void SchedulerCore::RunClock() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const TimeUs now = NowUs();
    if (engine_) engine_->Advance(now);
    for (uint32_t s = 0; s < nodes_.size(); ++s) {
      NodeState& node = nodes_[s];
      if (node.link != nullptr && now - node.last_seen_us > config_.node_timeout_us) {
        spdlog::warn("node {} missed its heartbeats: lost", slots_.name(s));
        node.link->Close();
        node.link = nullptr;
        LoseNode(s, now);
      }
    }
    Flush();
    TimeUs next = now + kClockTickUs;
    if (engine_ && engine_->NextEventTime() >= 0) next = std::min(next, engine_->NextEventTime());
    clock_wakes_at_us_ = std::max(next, now);
    wake_.wait_until(lock, steady_start_ + std::chrono::microseconds(clock_wakes_at_us_ - clock_offset_us_));
  }
}

void SchedulerCore::Stop() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  wake_.notify_all();
}

void SchedulerCore::StartAttempt(const sim::AttemptLaunch& launch) {
  metrics_.AttemptLaunched();
  const Job& job = live_.jobs[launch.task.job.value()];
  const Stage& stage = job.stages[launch.task.stage];
  v1::Launch* l = nodes_[launch.machine.value()].launches.add_launches();
  l->set_attempt(launch.id);
  l->set_label(fmt::format("{}-{}-{}-{}", config_.replica.Global(launch.task.job.value()), stage.name,
                           launch.task.index, launch.attempt));
  if (!stage.command.empty()) {
    l->set_has_command(true);
    l->set_command(ExpandCommand(stage.command, job.name, stage.name, launch.task.index));
    l->set_job(job.name);
    l->set_stage(stage.name);
    l->set_task(launch.task.index);
  }
  l->set_duration_us(stage.TaskDuration(launch.task.index));
  l->set_phases(launch.phases);
  if (launch.container.valid()) {
    l->set_container(uint64_t{launch.container.value()} + 1);
    *l->mutable_container_size() = ToProto(launch.container_size);
  }
  if (auto it = reservations_.find(KeyOf(launch.task, launch.attempt)); it != reservations_.end()) {
    *l->mutable_reserve() = ToProto(it->second.reserve);
    if (stage.HasProfiledPhases()) {
      it->second.id = launch.id;  // its moves go to the node until it ends
    } else {
      reservations_.erase(it);
    }
  }
}

void SchedulerCore::OnAttemptStart(const AttemptStart& start) {
  reservations_[KeyOf(start.task, start.attempt)] = Reservation{start.demand, 0};
}

void SchedulerCore::OnReservationChange(const ReservationChange& change) {
  auto it = reservations_.find(KeyOf(change.task, change.attempt));
  if (it == reservations_.end()) return;
  it->second.reserve = change.demand;
  if (it->second.id == 0) return;  // not on its node yet: its Launch will say it
  v1::ReservationMove* move = nodes_[change.machine.value()].launches.add_moves();
  move->set_attempt(it->second.id);
  *move->mutable_reserve() = ToProto(change.demand);
}

void SchedulerCore::StartPhase(uint64_t id, MachineId machine, const TaskRef& task, uint32_t phase) {
  const Stage& stage = live_.jobs[task.job.value()].stages[task.stage];
  const Phase& p = stage.phases[phase];
  // A task's `durations` entry scales each of its phases' work, as in simulation.
  double factor = 1;
  if (!stage.durations_us.empty() && stage.duration_us > 0) {
    factor = static_cast<double>(stage.TaskDuration(task.index)) / static_cast<double>(stage.duration_us);
  }
  v1::PhaseStart* s = nodes_[machine.value()].phase_starts.add_starts();
  s->set_attempt(id);
  s->set_phase(phase);
  s->set_name(p.name);
  if (p.profiled) {
    // ...and each profiled phase's length (its usage is a rate).
    s->set_resource("profiled");
    s->set_duration_us(std::max<int64_t>(1, std::llround(static_cast<double>(p.duration_us) * factor)));
    *s->mutable_usage() = ToProto(p.usage);
    return;
  }
  s->set_resource(std::string(kResourceNames[p.resource]));
  s->set_work(p.work * factor);
}

void SchedulerCore::KillAttempt(uint64_t id, MachineId machine) {
  metrics_.AttemptKilled();
  nodes_[machine.value()].kills.add_attempts(id);
}

void SchedulerCore::OnAttemptEnd(const AttemptRecord& record) {
  reservations_.erase(KeyOf(record.task, record.attempt));
  pending_attempts_.push_back(record);
}

void SchedulerCore::OnJobEnd(const JobRecord& record) { pending_job_ends_.push_back(record); }

void SchedulerCore::OnPhaseEnd(const PhaseRecord& record) { phase_records_.push_back(record); }

void SchedulerCore::OnSeries(const SeriesPoint& point) {
  series_values_.push_back(SeriesValue{point.time_us, std::string(point.series), point.job, point.value});
}

absl::Status SchedulerCore::CommitPending() {
  std::vector<JournalJob::State> states;
  states.reserve(pending_job_ends_.size());
  absl::Status s = journal_->Begin();
  if (s.ok()) s = journal_->RecordAttempts(pending_attempts_);
  for (const JobRecord& j : pending_job_ends_) {
    states.push_back(cancelling_.contains(j.job.value()) ? JournalJob::State::kCancelled
                     : j.succeeded                       ? JournalJob::State::kSucceeded
                                                         : JournalJob::State::kFailed);
    if (s.ok()) s = journal_->EndJob(j.job, states.back(), j.end_us);
  }
  if (s.ok()) s = journal_->Commit();
  if (!s.ok()) {
    journal_->Rollback();
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
  TellAgentsProgress();
  for (const AttemptRecord& a : pending_attempts_) {
    metrics_.AttemptEnded(a.outcome);
    if (a.outcome == Outcome::kOk) ++jobs_[a.task.job.value()].done;
  }
  for (size_t i = 0; i < pending_job_ends_.size(); ++i) {
    const JobRecord& j = pending_job_ends_[i];
    JobInfo& info = jobs_[j.job.value()];
    info.state = states[i];
    info.end_us = j.end_us;
    Retire(j.job.value());
    NoteEnded(j.job.value());
    cancelling_.erase(j.job.value());
    TellAgentsJobEnded(j.job);
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
  if (!pending_attempts_.empty() || !pending_job_ends_.empty()) {
    const auto commit_start = std::chrono::steady_clock::now();
    const absl::Status s = CommitPending();
    metrics_.JournalCommit(std::chrono::duration<double>(std::chrono::steady_clock::now() - commit_start).count());
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
  for (NodeState& node : nodes_) {
    if (node.link == nullptr) continue;
    if (node.kills.attempts_size() > 0) {
      v1::SchedulerMessage m;
      *m.mutable_kills() = std::move(node.kills);
      node.kills.Clear();
      node.link->Send(std::move(m));
    }
    if (node.agent_mails.mails_size() > 0) {
      v1::SchedulerMessage m;
      *m.mutable_agent_mails() = std::move(node.agent_mails);
      node.agent_mails.Clear();
      node.link->Send(std::move(m));
    }
    if (node.launches.launches_size() > 0 || node.launches.moves_size() > 0) {
      v1::SchedulerMessage m;
      *m.mutable_launches() = std::move(node.launches);
      node.launches.Clear();
      node.link->Send(std::move(m));
    }
    if (node.phase_starts.starts_size() > 0) {  // after the launches they may belong to
      v1::SchedulerMessage m;
      *m.mutable_phase_starts() = std::move(node.phase_starts);
      node.phase_starts.Clear();
      node.link->Send(std::move(m));
    }
  }
  if (journal_error_.empty()) MaybeCompact(NowUs());
  // The clock thread sleeps until its next deadline; wake it only when the
  // engine now has something due sooner (a wake-up per event would cost a
  // thread switch each).
  if (engine_ && engine_->NextEventTime() >= 0 && engine_->NextEventTime() < clock_wakes_at_us_) wake_.notify_all();
}

}  // namespace weft::runtime
