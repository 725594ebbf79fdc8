#include "runtime/scheduler/retention.h"

#include <algorithm>

namespace weft::runtime {

namespace {

// Retention compacts in batches of at least this many jobs beyond it (or
// retain/8, if larger): each batch costs a pass over the journal's attempts.
constexpr uint64_t kMinCompactBatch = 256;
constexpr TimeUs kAgeCheckUs = 1'000'000;  // --retain-age is checked this often

}  // namespace

void Retention::NoteEnded(uint32_t job) {
  if (retain_jobs_ == UINT64_MAX && retain_age_us_ <= 0) return;  // keep everything
  ended_order_.push_back(job);
}

std::vector<uint32_t> Retention::Due(TimeUs now, const JobTable& jobs) {
  if (ended_order_.empty()) return {};
  const uint64_t batch = std::max(kMinCompactBatch, retain_jobs_ == UINT64_MAX ? 0 : retain_jobs_ / 8);
  std::vector<uint32_t> doomed;
  if (ended_order_.size() >= retain_jobs_ + batch) {
    while (ended_order_.size() > retain_jobs_) {
      doomed.push_back(ended_order_.front());
      ended_order_.pop_front();
    }
  }
  if (retain_age_us_ > 0 && now - last_age_check_us_ >= kAgeCheckUs) {
    last_age_check_us_ = now;
    // Oldest end first, so the expired ones are a prefix (ends are journaled
    // in order; a recovered journal's were sorted by end).
    while (!ended_order_.empty() && jobs[ended_order_.front()].end_us < now - retain_age_us_) {
      doomed.push_back(ended_order_.front());
      ended_order_.pop_front();
    }
  }
  return doomed;
}

void Retention::Keep(const std::vector<uint32_t>& jobs) {
  ended_order_.insert(ended_order_.begin(), jobs.begin(), jobs.end());
}

}  // namespace weft::runtime
