#include "policy/baseline/coffman_graham.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

#include "policy/common/dag_ranks.h"
#include "policy/common/offer_scheduler.h"
#include "policy/common/ranked_scheduler.h"

namespace weft::policy::baseline {
namespace {

// A run of consecutive labels, highest first: hi, hi - 1, ..., hi - len + 1.
struct Run {
  uint64_t hi = 0;
  uint64_t len = 0;
};
using Key = std::vector<Run>;  // runs by decreasing hi (disjoint ranges)

// Less compares the label sequences two keys spell, without expanding runs:
// inside two runs with equal current labels the sequences agree for as long
// as both runs last.
bool Less(const Key& a, const Key& b) {
  size_t i = 0, j = 0;
  uint64_t used_a = 0, used_b = 0;  // labels consumed from a[i], b[j]
  while (i < a.size() && j < b.size()) {
    const uint64_t x = a[i].hi - used_a;
    const uint64_t y = b[j].hi - used_b;
    if (x != y) return x < y;
    const uint64_t step = std::min(a[i].len - used_a, b[j].len - used_b);
    used_a += step;
    used_b += step;
    if (used_a == a[i].len) {
      ++i;
      used_a = 0;
    }
    if (used_b == b[j].len) {
      ++j;
      used_b = 0;
    }
  }
  return i == a.size() && j < b.size();  // a proper prefix of b
}

struct Candidate {
  Key key;
  uint32_t stage;
  bool operator<(const Candidate& o) const {
    if (Less(key, o.key)) return true;
    if (Less(o.key, key)) return false;
    return stage < o.stage;
  }
};

// LabelRanks: 0 for the stage with the highest labels, then down (the rank
// inside a job when jobs go in FIFO order).
std::vector<int64_t> LabelRanks(const JobView& job) {
  const std::vector<uint64_t> label = CoffmanGrahamLabels(job);
  std::vector<uint32_t> stages(label.size());
  std::iota(stages.begin(), stages.end(), 0u);
  std::sort(stages.begin(), stages.end(), [&](uint32_t a, uint32_t b) { return label[a] > label[b]; });
  std::vector<int64_t> rank(label.size());
  for (uint32_t r = 0; r < stages.size(); ++r) rank[stages[r]] = r;
  return rank;
}

// NegatedLabels: for across_jobs=label, a stage's rank is minus its highest
// label, compared across jobs as cp compares critical paths.
std::vector<int64_t> NegatedLabels(const JobView& job) {
  const std::vector<uint64_t> label = CoffmanGrahamLabels(job);
  std::vector<int64_t> rank(label.size());
  for (size_t s = 0; s < label.size(); ++s) rank[s] = -static_cast<int64_t>(label[s] + job.stage_tasks(s) - 1);
  return rank;
}

class CoffmanGrahamPolicy final : public Policy {
 public:
  explicit CoffmanGrahamPolicy(bool fifo_across_jobs) : fifo_across_jobs_(fifo_across_jobs) {}
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    if (!fifo_across_jobs_) return std::make_unique<RankedScheduler>(ctx, NegatedLabels);
    return std::make_unique<RankedScheduler>(ctx, LabelRanks, RankedScheduler::Across::kFifo);
  }

 private:
  bool fifo_across_jobs_;
};

}  // namespace

std::vector<uint64_t> CoffmanGrahamLabels(const JobView& job) {
  const size_t n = job.num_stages();
  std::vector<std::vector<uint32_t>> children(n);
  std::vector<uint32_t> unlabelled_children(n, 0);
  for (uint32_t s = 0; s < n; ++s) {
    for (const Edge& e : job.children(s)) children[s].push_back(e.stage);
    std::sort(children[s].begin(), children[s].end());
    children[s].erase(std::unique(children[s].begin(), children[s].end()), children[s].end());
    unlabelled_children[s] = static_cast<uint32_t>(children[s].size());
  }
  std::vector<uint64_t> label(n, 0);
  auto key_of = [&](uint32_t s) {
    Key key;
    for (uint32_t c : children[s]) key.push_back({label[c] + job.stage_tasks(c) - 1, job.stage_tasks(c)});
    std::sort(key.begin(), key.end(), [](const Run& a, const Run& b) { return a.hi > b.hi; });
    return key;
  };
  std::set<Candidate> ready;
  for (uint32_t s = 0; s < n; ++s) {
    if (unlabelled_children[s] == 0) ready.insert({Key{}, s});
  }
  uint64_t next = 1;
  while (!ready.empty()) {
    const uint32_t s = ready.begin()->stage;
    ready.erase(ready.begin());
    label[s] = next;
    next += job.stage_tasks(s);
    std::vector<uint32_t> parents;
    for (const Edge& e : job.parents(s)) parents.push_back(e.stage);
    std::sort(parents.begin(), parents.end());
    parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
    for (uint32_t p : parents) {
      if (--unlabelled_children[p] == 0) ready.insert({key_of(p), p});
    }
  }
  return label;
}

const PolicyInfo kCoffmanGrahamInfo{
    .name = "coffman-graham",
    .description = "Coffman-Graham labels (lexicographic, from the sinks) as a multi-resource list schedule",
    .source = "Coffman, Graham, Optimal scheduling for two-processor systems (1972); DAGPS (Grandl et al., MSR-TR-2016-19) sections 8.1, 8.3 (CG, fit all)",
    .params = {{.name = "across_jobs",
                .type = ParamType::kChoice,
                .default_value = "fifo",
                .help = "order between jobs: fifo (priority, arrival), or label (highest label of any job first)",
                .choices = {"fifo", "label"}}},
    .make = [](const Params& p) -> absl::StatusOr<std::unique_ptr<Policy>> {
      return std::make_unique<CoffmanGrahamPolicy>(p.Choice("across_jobs") == "fifo");
    },
};

}  // namespace weft::policy::baseline
