#include "policy/baseline/stripart.h"

#include <algorithm>
#include <numeric>

#include "policy/common/dag_ranks.h"
#include "policy/common/level_gate.h"
#include "policy/common/offer_scheduler.h"

namespace weft::policy::baseline {
namespace {

struct Interval {
  TimeUs start = 0;
  TimeUs end = 0;
};

// Split assigns levels to `stages` (all inside [lo, hi)) in in-order.
void Split(TimeUs lo, TimeUs hi, const std::vector<uint32_t>& stages, const std::vector<Interval>& iv,
           uint32_t& next_level, std::vector<uint32_t>& level) {
  if (stages.empty()) return;
  const TimeUs p = lo + (hi - lo) / 2;
  std::vector<uint32_t> before, at, after;
  for (uint32_t s : stages) {
    if (iv[s].end <= p) {
      before.push_back(s);
    } else if (iv[s].start > p) {
      after.push_back(s);
    } else {
      at.push_back(s);
    }
  }
  Split(lo, p, before, iv, next_level, level);
  if (!at.empty()) {
    for (uint32_t s : at) level[s] = next_level;
    ++next_level;
  }
  Split(p + 1, hi, after, iv, next_level, level);
}

class StripPartScheduler final : public OfferScheduler {
 public:
  StripPartScheduler(Context& ctx, bool longest_first) : OfferScheduler(ctx), longest_first_(longest_first) {}

  void OnJobArrived(JobId job) override { Register(job); }

  void OnTasksReady(const TaskRange& range) override {
    Register(range.job);
    if (gate_.Admit(range)) OfferScheduler::OnTasksReady(range);
  }

  void OnTaskEnded(const TaskEnd& end) override {
    OfferScheduler::OnTaskEnded(end);
    if (end.outcome != Outcome::kOk) return;
    for (const TaskRange& r : gate_.Finished(end.task)) OfferScheduler::OnTasksReady(r);
  }

  void OnJobFinished(JobId job, bool succeeded) override {
    OfferScheduler::OnJobFinished(job, succeeded);
    gate_.Forget(job);
    order_.erase(job.value());
  }

 protected:
  // FIFO across jobs; inside a job, the packing order of its stages.
  OrderKey KeyFor(const GroupId& g) override {
    const JobView job = ctx_.job(g.job);
    const OrderKey fifo = FifoKey(job, g.stage);
    return {fifo[0], fifo[1], static_cast<int64_t>(g.job.value()), order_[g.job.value()][g.stage]};
  }

 private:
  void Register(JobId id) {
    if (gate_.Knows(id)) return;
    const JobView job = ctx_.job(id);
    const std::vector<TimeUs> durations = StageDurations(job);
    std::vector<uint32_t> level = StripPartLevels(job, durations);
    std::vector<uint32_t> stages(job.num_stages());
    std::iota(stages.begin(), stages.end(), 0u);
    std::stable_sort(stages.begin(), stages.end(), [&](uint32_t a, uint32_t b) {
      if (level[a] != level[b]) return level[a] < level[b];
      return longest_first_ && durations[a] > durations[b];
    });
    std::vector<int64_t> rank(job.num_stages());
    for (uint32_t r = 0; r < stages.size(); ++r) rank[stages[r]] = r;
    order_[id.value()] = std::move(rank);
    gate_.AddJob(job, std::move(level));
  }

  const bool longest_first_;
  LevelGate gate_;
  absl::flat_hash_map<uint32_t, std::vector<int64_t>> order_;  // job -> stage -> packing rank
};

class StripPartPolicy final : public Policy {
 public:
  explicit StripPartPolicy(bool longest_first) : longest_first_(longest_first) {}
  Knowledge knowledge() const override { return Knowledge::kClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<StripPartScheduler>(ctx, longest_first_);
  }

 private:
  bool longest_first_;
};

}  // namespace

std::vector<uint32_t> StripPartLevels(const JobView& job, std::span<const TimeUs> durations) {
  std::vector<Interval> iv(job.num_stages());
  TimeUs span = 0;
  for (uint32_t s : job.topo_order()) {
    TimeUs start = 0;
    for (const Edge& e : job.parents(s)) start = std::max(start, iv[e.stage].end);
    iv[s] = {start, start + std::max<TimeUs>(1, durations[s])};  // a 0 length would never split
    span = std::max(span, iv[s].end);
  }
  std::vector<uint32_t> stages(job.num_stages());
  std::iota(stages.begin(), stages.end(), 0u);
  std::vector<uint32_t> level(job.num_stages(), 0);
  uint32_t next = 0;
  Split(0, span, stages, iv, next, level);
  return level;
}

const PolicyInfo kStripPartInfo{
    .name = "stripart",
    .description = "StripPart: DAG cut into levels at critical-path midpoints, levels packed one after another",
    .source = "Augustine, Banerjee, Irani, Strip packing with precedence constraints (SPAA'06); DAGPS (Grandl et al., MSR-TR-2016-19) sections 8.1, 8.3",
    .params = {{.name = "pack",
                .type = ParamType::kChoice,
                .default_value = "longest",
                .help = "order inside a level: longest stage first (first fit decreasing) or fifo (stage order)",
                .choices = {"longest", "fifo"}}},
    .make = [](const Params& p) -> absl::StatusOr<std::unique_ptr<Policy>> {
      return std::make_unique<StripPartPolicy>(p.Choice("pack") == "longest");
    },
};

}  // namespace weft::policy::baseline
