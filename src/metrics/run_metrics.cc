#include "metrics/run_metrics.h"

#include <algorithm>
#include <cmath>

#include "metrics/critical_path.h"
#include "model/locality.h"

namespace weft {
namespace {

// Nearest-rank quantile of a sorted vector.
double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size()))));
  return sorted[std::min(rank, sorted.size()) - 1];
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  long double sum = 0;
  for (double x : v) sum += x;
  return static_cast<double>(sum / v.size());
}

}  // namespace

RunMetrics::RunMetrics(const Workload& workload)
    : workload_(workload),
      bound_capacity_(BoundCapacity::Of(workload.cluster)),
      workload_bound_(bound_capacity_.capacity),
      bounded_(workload.jobs.size(), 0) {}

const JobBounds& RunMetrics::Bound(JobId job) {
  const Job& j = workload_.jobs[job.value()];
  last_bounds_ = ComputeJobBounds(j, bound_capacity_);
  if (bounded_.size() <= job.value()) bounded_.resize(workload_.jobs.size(), 0);  // jobs come as they arrive
  if (!bounded_[job.value()]) {
    bounded_[job.value()] = 1;
    workload_bound_.Add(j, last_bounds_);
  }
  return last_bounds_;
}

void RunMetrics::OnAttemptEnd(const AttemptRecord& r) {
  const double seconds = UsToSeconds(r.end_us - r.start_us);
  for (int k = 0; k < kNumResources; ++k) {
    if (!r.in_container) allocated_[k] += r.Held().units(static_cast<Resource>(k)) * seconds;
    used_[k] += r.usage.units(static_cast<Resource>(k)) * seconds;
  }
  ++summary_.attempts;
  if (r.outcome == Outcome::kFailed) ++summary_.attempts_failed;
  if (r.outcome == Outcome::kKilled) ++summary_.attempts_killed;
  if (r.outcome == Outcome::kOk) {
    ++summary_.tasks;
    ++locality_[static_cast<size_t>(r.locality)];
    // A read in bytes is a flow, counted as it ends (OnFlowEnd); the
    // factors form's is a fixed charge, counted here.
    const bool charged = workload_.cluster.locality_cost().rack_mbps <= 0;
    if (charged && (r.locality == Locality::kRack || r.locality == Locality::kRemote)) {
      const Stage& st = workload_.jobs[r.task.job.value()].stages[r.task.stage];
      const TimeUs read_us =
          RemoteReadUs(workload_.cluster, st, r.task.index, r.machine, r.locality == Locality::kRack);
      remote_read_us_ += read_us;
      remote_read_tasks_ += read_us > 0 ? 1 : 0;
    }
  }
  if (r.start_us > r.ready_us || r.outcome != Outcome::kKilled) delay_us_.Add(r.start_us - r.ready_us);
  last_end_us_ = std::max(last_end_us_, r.end_us);
}

void RunMetrics::OnFlowEnd(const FlowRecord& r) {
  if (r.kind != FlowKind::kRemoteRead || !r.done) return;
  remote_read_us_ += r.end_us - r.start_us;
  ++remote_read_tasks_;
}

void RunMetrics::OnContainerEnd(const ContainerRecord& r) {
  const double seconds = UsToSeconds(r.released_us - r.granted_us);
  for (int k = 0; k < kNumResources; ++k) allocated_[k] += r.size.units(static_cast<Resource>(k)) * seconds;
}

void RunMetrics::OnJobEnd(const JobRecord& r) {
  const Job& job = workload_.jobs[r.job.value()];
  last_end_us_ = std::max(last_end_us_, r.end_us);
  const double jct = UsToSeconds(r.end_us - r.arrival_us);
  const TimeUs cp = CriticalPathUs(job, workload_.cluster);
  const JobBounds& bounds = Bound(r.job);
  const double newlb = UsToSeconds(bounds.newlb_us);
  jobs_.push_back(JobResult{r.job, jct, cp > 0 ? jct / UsToSeconds(cp) : 1.0, newlb,
                            bounds.newlb_us > 0 ? jct / newlb : 0.0, r.succeeded});
  if (job.deadline_us) {
    ++summary_.deadlines;
    if (r.succeeded && r.end_us - r.arrival_us <= *job.deadline_us) ++summary_.deadlines_met;
  }
}

void RunMetrics::OnRunEnd(TimeUs end_us) {
  RunSummary& s = summary_;
  s.jobs = jobs_.size();
  TimeUs first_arrival = kTimeInfinite;
  for (const Job& j : workload_.jobs) first_arrival = std::min(first_arrival, j.arrival_us);
  if (first_arrival == kTimeInfinite) first_arrival = 0;
  const TimeUs last = last_end_us_ > 0 ? last_end_us_ : end_us;
  s.makespan = UsToSeconds(std::max<TimeUs>(0, last - first_arrival));

  std::vector<double> jcts, slowdowns, ratios;
  for (const JobResult& j : jobs_) {
    if (!j.succeeded) {
      ++s.jobs_failed;
      continue;
    }
    jcts.push_back(j.jct);
    slowdowns.push_back(j.slowdown);
    if (j.lb_ratio > 0) ratios.push_back(j.lb_ratio);
  }
  bounded_.resize(workload_.jobs.size(), 0);
  for (uint32_t k = 0; k < workload_.jobs.size(); ++k) {
    if (!bounded_[k]) Bound(JobId(k));
  }
  s.makespan_lb = UsToSeconds(workload_bound_.MakespanLowerBoundUs());
  s.makespan_ratio = s.makespan_lb > 0 ? s.makespan / s.makespan_lb : 0;
  std::sort(ratios.begin(), ratios.end());
  s.median_job_ratio = Quantile(ratios, 0.5);
  s.p95_job_ratio = Quantile(ratios, 0.95);
  s.mean_job_ratio = Mean(ratios);
  s.min_job_ratio = ratios.empty() ? 0 : ratios.front();
  s.max_job_ratio = ratios.empty() ? 0 : ratios.back();
  std::sort(jcts.begin(), jcts.end());
  std::sort(slowdowns.begin(), slowdowns.end());
  s.avg_jct = Mean(jcts);
  s.median_jct = Quantile(jcts, 0.5);
  s.p95_jct = Quantile(jcts, 0.95);
  s.avg_slowdown = Mean(slowdowns);
  s.median_slowdown = Quantile(slowdowns, 0.5);

  const Resources& cap = workload_.cluster.total_capacity();
  for (int k = 0; k < kNumResources; ++k) {
    const double capacity_time = cap.units(static_cast<Resource>(k)) * s.makespan;
    s.utilization[k] = capacity_time > 0 ? static_cast<double>(allocated_[k] / capacity_time) : 0;
    s.used[k] = capacity_time > 0 ? static_cast<double>(used_[k] / capacity_time) : 0;
    s.ue[k] = allocated_[k] > 0 ? static_cast<double>(used_[k] / allocated_[k]) : 0;
  }
  s.delay_mean = delay_us_.Mean() / 1e6;
  s.delay_p95 = UsToSeconds(delay_us_.Quantile(0.95));
  const uint64_t ok = s.tasks;
  for (size_t i = 0; i < 4; ++i) s.locality[i] = ok > 0 ? static_cast<double>(locality_[i]) / ok : 0;
  s.locality_cost = workload_.cluster.locality_cost().enabled;
  s.remote_read_s = UsToSeconds(remote_read_us_);
  s.remote_read_tasks = remote_read_tasks_;

  // Jain's index over users' mean slowdown: 1 when every user is slowed
  // down equally, 1/n when one user bears it all.
  std::vector<long double> total(workload_.users.size(), 0);
  std::vector<uint64_t> count(workload_.users.size(), 0);
  for (const JobResult& j : jobs_) {
    if (!j.succeeded) continue;
    const UserId u = workload_.jobs[j.job.value()].user;
    total[u.value()] += j.slowdown;
    ++count[u.value()];
  }
  long double sum = 0, sum_sq = 0;
  size_t n = 0;
  for (size_t u = 0; u < total.size(); ++u) {
    if (count[u] == 0) continue;
    const long double x = total[u] / count[u];
    sum += x;
    sum_sq += x * x;
    ++n;
  }
  s.jain_fairness = n > 0 && sum_sq > 0 ? static_cast<double>(sum * sum / (n * sum_sq)) : 1.0;
}

nlohmann::ordered_json RunSummary::ToJson() const {
  nlohmann::ordered_json j;
  j["jobs"] = jobs;
  j["jobs_failed"] = jobs_failed;
  j["tasks"] = tasks;
  j["attempts"] = attempts;
  j["attempts_failed"] = attempts_failed;
  j["attempts_killed"] = attempts_killed;
  j["makespan"] = makespan;
  j["avg_jct"] = avg_jct;
  j["median_jct"] = median_jct;
  j["p95_jct"] = p95_jct;
  j["avg_slowdown"] = avg_slowdown;
  j["median_slowdown"] = median_slowdown;
  j["deadlines"] = deadlines;
  j["deadlines_met"] = deadlines_met;
  auto per_resource = [](const std::array<double, kNumResources>& v) {
    nlohmann::ordered_json o;
    for (int k = 0; k < kNumResources; ++k) o[std::string(kResourceNames[k])] = v[k];
    return o;
  };
  j["utilization"] = per_resource(utilization);
  j["used"] = per_resource(used);
  j["se"] = per_resource(utilization);
  j["ue"] = per_resource(ue);
  j["scheduling_delay"] = {{"mean", delay_mean}, {"p95", delay_p95}};
  j["locality"] = {{"node", locality[1]}, {"rack", locality[2]}, {"remote", locality[3]}, {"none", locality[0]}};
  if (locality_cost) {
    j["locality"]["remote_read_s"] = remote_read_s;
    j["locality"]["remote_read_tasks"] = remote_read_tasks;
  }
  j["jain_fairness"] = jain_fairness;
  j["bounds"] = {{"makespan_lb", makespan_lb},         {"makespan_ratio", makespan_ratio},
                 {"median_job_ratio", median_job_ratio}, {"p95_job_ratio", p95_job_ratio},
                 {"mean_job_ratio", mean_job_ratio},     {"min_job_ratio", min_job_ratio},
                 {"max_job_ratio", max_job_ratio}};
  return j;
}

}  // namespace weft
