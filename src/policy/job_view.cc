#include "policy/job_view.h"

#include <cmath>

#include "core/random.h"

namespace weft::policy {

std::string_view KnowledgeName(Knowledge k) {
  switch (k) {
    case Knowledge::kClairvoyant:
      return "clairvoyant";
    case Knowledge::kSemiClairvoyant:
      return "semi-clairvoyant";
    case Knowledge::kNonClairvoyant:
      return "non-clairvoyant";
  }
  return "unknown";
}

JobProgress::JobProgress(const Job& job) : stages(job.stages.size()), stage_offset(job.stages.size()) {
  uint64_t offset = 0;
  bool pipelined = false;
  for (size_t s = 0; s < job.stages.size(); ++s) {
    stage_offset[s] = offset;
    offset += job.stages[s].num_tasks;
    for (const Edge& e : job.stages[s].parents) {
      if (e.WaitsForWholeParent()) {
        ++stages[s].barrier_parents_left;
      } else {
        pipelined = true;
      }
    }
  }
  tasks.assign(offset, TaskState::kBlocked);
  if (pipelined) {
    pipelined_left.assign(offset, 0);
    for (size_t s = 0; s < job.stages.size(); ++s) {
      uint8_t n = 0;
      for (const Edge& e : job.stages[s].parents) n += e.kind == EdgeKind::kPipelined;
      for (uint32_t i = 0; i < job.stages[s].num_tasks; ++i) pipelined_left[stage_offset[s] + i] = n;
    }
  }
}

bool JobView::Visible(const TaskRef& t) const {
  switch (knowledge_) {
    case Knowledge::kClairvoyant:
    case Knowledge::kSemiClairvoyant:
      return stage_known(t.stage);  // clairvoyant: every stage, unless the job was released
    case Knowledge::kNonClairvoyant:
      return false;
  }
  return false;
}

std::optional<TimeUs> JobView::Duration(const TaskRef& t) const {
  if (!Visible(t)) return std::nullopt;
  const TimeUs truth = job_->stages[t.stage].TaskDuration(t.index);
  if (knowledge_ != Knowledge::kClairvoyant || options_->estimate_noise <= 0) return truth;
  // A lognormal factor drawn from a stream keyed by the task, so that the same
  // question always gets the same answer within a run.
  Rng rng(options_->seed ^ (uint64_t{id_.value()} << 40) ^ (uint64_t{t.stage} << 24) ^ t.index);
  const double factor = DeterministicExp(options_->estimate_noise * rng.Normal(0, 1));
  return std::max<TimeUs>(1, static_cast<TimeUs>(static_cast<double>(truth) * factor));
}

TimeUs JobView::EstimatedDuration(const TaskRef& t) const {
  if (auto known = Duration(t); known && *known > 0) return *known;
  const StageProgress& sp = stage_progress(t.stage);
  if (sp.learned_count > 0) return sp.learned_total_us / sp.learned_count;
  TimeUs total = 0;
  uint64_t count = 0;
  for (const StageProgress& s : progress_->stages) {
    total += s.learned_total_us;
    count += s.learned_count;
  }
  return count > 0 ? total / static_cast<TimeUs>(count) : options_->default_duration_us;
}

Resources JobView::ExpectedUsage(const TaskRef& t) const {
  return Visible(t) ? job_->stages[t.stage].TaskUsage(t.index) : task_demand(t);
}

std::span<const Phase> JobView::Phases(uint32_t s) const {
  if (knowledge_ == Knowledge::kNonClairvoyant || !stage_known(s)) return {};
  return job_->stages[s].phases;
}

}  // namespace weft::policy
