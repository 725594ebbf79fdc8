// File: policy/job_view.h
//
// What a policy may know about a job, and the platform's record of its
// progress.
//
// JobProgress is owned by the platform (simulator or runtime): the state of
// every task and per-stage counters, plus what has been learned from finished
// tasks. JobView is the read-only window a policy gets through its Context. It
// enforces the policy's Knowledge level (DESIGN.md, "What a policy may know"):
//   - clairvoyant: true durations and usage of every task, optionally with
//     multiplicative noise (param estimate_noise) for robustness studies;
//   - semi-clairvoyant (COBRA §I, §III): the structure of the whole DAG, and
//     a stage's demands, usage, phases and durations once the stage is
//     released (some task of it has become ready), nothing of them before;
//   - non-clairvoyant: demands of every stage; durations and phases never;
//     usage assumed equal to demand.
// Every level sees the DAG structure (edges with their kind, slow start and
// shuffle size), task counts, locality preferences, user, priority, weight,
// deadline and memory estimate; a stage's kind, input sizes and per-task
// demands are shown with its demand (hidden before its release under
// semi-clairvoyant). Every level may ask for an
// EstimatedDuration, which falls back to what finished tasks taught.
//
// Example, a job a -> b (b waits for every task of a) under
// semi-clairvoyant knowledge: while a runs, stage_known(1) is false,
// demand(1) is zero and Duration of b's tasks is nullopt; once a's last
// task ends and b's tasks become ready, b is known as if clairvoyant.
// Not thread-safe: read only from inside a role's handlers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/ids.h"
#include "core/time.h"
#include "model/job.h"

namespace weft::policy {

enum class Knowledge : uint8_t { kClairvoyant, kSemiClairvoyant, kNonClairvoyant };
std::string_view KnowledgeName(Knowledge k);

enum class TaskState : uint8_t {
  kBlocked,    // some parent has not finished
  kReady,      // runnable and not placed
  kLaunched,   // placed; resources reserved; start message in flight
  kRunning,
  kDone,       // finished successfully
  kAbandoned,  // its job failed or was cancelled
};

struct StageProgress {
  uint32_t ready = 0;    // tasks in kReady
  uint32_t running = 0;  // tasks in kLaunched or kRunning
  uint32_t done = 0;
  uint32_t barrier_parents_left = 0;  // platform bookkeeping
  bool released = false;              // some task of the stage has been ready
  // Learned from finished attempts (any outcome ok): count and total runtime.
  uint32_t learned_count = 0;
  TimeUs learned_total_us = 0;
};

struct JobProgress {
  std::vector<StageProgress> stages;
  std::vector<uint64_t> stage_offset;  // index of a stage's first task in `tasks`
  std::vector<TaskState> tasks;        // one per task of the job
  // Per task, the number of pipelined parents not yet done; empty unless the
  // job has pipelined edges.
  std::vector<uint8_t> pipelined_left;
  uint64_t tasks_done = 0;
  bool arrived = false;
  bool finished = false;
  bool failed = false;

  explicit JobProgress(const Job& job);
  TaskState state(const TaskRef& t) const { return tasks[stage_offset[t.stage] + t.index]; }
  TaskState& state(const TaskRef& t) { return tasks[stage_offset[t.stage] + t.index]; }
};

// Knobs that shape what policies see; set once per run from common params.
struct KnowledgeOptions {
  double estimate_noise = 0;          // sigma of the lognormal factor on clairvoyant estimates
  TimeUs default_duration_us = kUsPerSecond;  // estimate when nothing is known or learned
  uint64_t seed = 0;                  // for the per-task noise
};

class JobView {
 public:
  JobView(JobId id, const Job& job, const JobProgress& progress, Knowledge knowledge,
          const KnowledgeOptions& options)
      : id_(id), job_(&job), progress_(&progress), knowledge_(knowledge), options_(&options) {}

  JobId id() const { return id_; }
  std::string_view name() const { return job_->name; }
  UserId user() const { return job_->user; }
  int priority() const { return job_->priority; }
  double weight() const { return job_->weight; }
  TimeUs arrival() const { return job_->arrival_us; }
  std::optional<TimeUs> deadline() const { return job_->deadline_us; }
  // memory_estimate_gb: the job's estimated peak memory as its submitter gave
  // it (Ursa's M(j)); an estimate, not knowledge of the tasks, so every level
  // sees it. nullopt when the workload gives none.
  std::optional<double> memory_estimate_gb() const { return job_->memory_estimate_gb; }
  uint64_t num_tasks() const { return job_->num_tasks; }
  uint64_t tasks_done() const { return progress_->tasks_done; }
  bool finished() const { return progress_->finished; }

  size_t num_stages() const { return job_->stages.size(); }
  std::string_view stage_name(uint32_t s) const { return job_->stages[s].name; }
  uint32_t stage_tasks(uint32_t s) const { return job_->stages[s].num_tasks; }
  std::span<const Edge> parents(uint32_t s) const { return job_->stages[s].parents; }
  std::span<const Edge> children(uint32_t s) const { return job_->stages[s].children; }
  std::span<const uint32_t> topo_order() const { return job_->topo_order; }

  // stage_known: the level lets the policy see stage s's demand (and, as far
  // as the level shows them at all, its usage, phases and durations). Always
  // for clairvoyant and non-clairvoyant; for semi-clairvoyant once the stage
  // is released (some task of it has been ready, or is done).
  bool stage_known(uint32_t s) const {
    // A released job (below) has no stages left: nothing of them is known.
    // Its progress is always the empty one (the tracker's stub, or a node
    // agent's for a dropped job), whatever its Job still holds.
    if (s >= progress_->stages.size()) [[unlikely]] return false;
    if (knowledge_ != Knowledge::kSemiClairvoyant) return true;
    // COBRA §III: "the characteristics of waiting tasks are known", and the
    // tasks of a stage are alike, so the whole stage is known from its
    // release; the unfolding rest of the DAG is not. A stage with done tasks
    // was released (perhaps before a journal recovery).
    const StageProgress& sp = progress_->stages[s];
    return sp.released || sp.done > 0;
  }
  // demand: the peak reservation of each task of stage s, or the zero vector
  // while the stage is not known (semi-clairvoyant, before its release). Zero
  // rather than a guess: the platform has nothing to tell, and a zero demand
  // cannot be mistaken for knowledge by a policy that sums or packs it (no
  // task can be launched before its stage is released anyway). Use
  // stage_known to tell a hidden demand from a real zero.
  const Resources& demand(uint32_t s) const { return stage_known(s) ? job_->stages[s].demand : kHiddenDemand; }
  // task_demand: task t's own demand (its per-task override, else the stage's
  // demand); zero while the stage is not known, like demand.
  const Resources& task_demand(const TaskRef& t) const {
    return stage_known(t.stage) ? job_->stages[t.stage].TaskDemand(t.index) : kHiddenDemand;
  }
  // stage_kind: the stage's task type ("map", "reduce", free text or empty);
  // empty while the stage is not known.
  std::string_view stage_kind(uint32_t s) const {
    return stage_known(s) ? std::string_view(job_->stages[s].kind) : std::string_view();
  }
  // input_mb: MB of input task t reads; 0 while its stage is not known.
  double input_mb(const TaskRef& t) const {
    return stage_known(t.stage) ? job_->stages[t.stage].TaskInputMb(t.index) : 0.0;
  }
  std::span<const MachineId> preferences(const TaskRef& t) const {
    return job_->stages[t.stage].Preferences(t.index);
  }
  // has_phases: the stage's tasks run as phases (false while it is not known).
  bool has_phases(uint32_t s) const { return stage_known(s) && !job_->stages[s].phases.empty(); }

  // A job the platform released (ended a while ago: sim/job_tracker.h) keeps
  // no per-stage or per-task state. A role that still holds a TaskRef of it
  // (a lazily cleaned queue, say; a Sparrow reservation waiting on a busy
  // node) reads its tasks as done, or abandoned when the job failed, its
  // stages as empty and unknown (demand, usage, durations and phases as
  // hidden: zero, none), rather than past an empty list. The same whether
  // the run's source keeps the job's description (`sim -w`) or frees it
  // (`sim --trace`), so that both replay alike.
  const StageProgress& stage_progress(uint32_t s) const {
    return s < progress_->stages.size() ? progress_->stages[s] : kReleasedStage;
  }
  TaskState state(const TaskRef& t) const {
    if (progress_->tasks.empty()) [[unlikely]] return progress_->failed ? TaskState::kAbandoned : TaskState::kDone;
    return progress_->state(t);
  }

  // Duration: the task's running time on an idle machine, when the knowledge
  // level allows knowing it (see the file comment); nullopt otherwise.
  std::optional<TimeUs> Duration(const TaskRef& t) const;
  // EstimatedDuration: Duration when known; else the mean runtime of the
  // stage's finished attempts; else of the job's; else the default.
  TimeUs EstimatedDuration(const TaskRef& t) const;
  // ExpectedUsage: the task's real usage when the level allows knowing it,
  // else task_demand(t) (a safe upper bound when known, zero when hidden).
  Resources ExpectedUsage(const TaskRef& t) const;

  // Phases: the stage's monotasks when the level allows knowing durations
  // and the stage is known; empty otherwise.
  std::span<const Phase> Phases(uint32_t s) const;

 private:
  bool Visible(const TaskRef& t) const;
  static constexpr Resources kHiddenDemand{};
  static constexpr StageProgress kReleasedStage{};

  JobId id_;
  const Job* job_;
  const JobProgress* progress_;
  Knowledge knowledge_;
  const KnowledgeOptions* options_;
};

}  // namespace weft::policy
