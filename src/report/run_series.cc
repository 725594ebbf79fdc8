#include "report/run_series.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "fmt/format.h"
#include "metrics/critical_path.h"

namespace weft::report {

double Round4(double x) {
  if (x == 0 || !std::isfinite(x)) return 0;
  const double scale = std::pow(10.0, 3 - static_cast<int>(std::floor(std::log10(std::fabs(x)))));
  return std::round(x * scale) / scale;
}

namespace {

using nlohmann::json;

json Rounded(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(Round4(x));
  return out;
}

// Cdf: the empirical CDF of `values` at no more than `max_points` evenly
// spaced ranks (the smallest and largest always among them), after a first
// point at 0 at the smallest value: the step up from 0 is drawn, so the CDF
// of one value is a visible line, not a lone point a line chart leaves out.
json Cdf(std::vector<double> values, size_t max_points, const std::string& what, json& notes) {
  std::sort(values.begin(), values.end());
  std::vector<double> x, y;
  const size_t n = values.size();
  const size_t points = std::min(n, max_points);
  if (n > 0) {
    x.push_back(values.front());
    y.push_back(0);
  }
  for (size_t i = 0; i < points; ++i) {
    const size_t rank = points == 1 ? n - 1 : i * (n - 1) / (points - 1);
    x.push_back(values[rank]);
    y.push_back(static_cast<double>(rank + 1) / static_cast<double>(n));
  }
  if (n > points) notes.push_back(fmt::format("{} CDF drawn at {} of {} points", what, points, n));
  return {{"x", Rounded(x)}, {"y", Rounded(y)}};
}

json LowerBoundPoints(const RunData& run, size_t max_points, json& notes) {
  std::vector<const JobRow*> jobs;
  for (const JobRow& j : run.jobs) {
    if (j.ok && j.newlb > 0) jobs.push_back(&j);
  }
  const size_t stride = std::max<size_t>(1, (jobs.size() + max_points - 1) / max_points);
  std::vector<double> x, y;
  for (size_t i = 0; i < jobs.size(); i += stride) {
    x.push_back(jobs[i]->newlb);
    y.push_back(jobs[i]->newlb_ratio);
  }
  if (stride > 1) notes.push_back(fmt::format("JCT / NewLB: one job in {} of {}", stride, jobs.size()));
  return {{"x", Rounded(x)}, {"y", Rounded(y)}};
}

json TimelineSeries(const RunData& run, size_t max_points, json& notes) {
  const std::vector<TimelineRow>& rows = run.timeline;
  const size_t group = std::max<size_t>(1, (rows.size() + max_points - 1) / max_points);
  std::vector<double> t, running, waiting;
  std::vector<std::vector<double>> alloc(4), used(4);
  for (size_t i = 0; i < rows.size(); i += group) {
    const size_t end = std::min(rows.size(), i + group);
    TimelineRow mean;
    for (size_t r = i; r < end; ++r) {
      mean.running += rows[r].running;
      mean.waiting += rows[r].waiting;
      for (int k = 0; k < 4; ++k) {
        mean.alloc[k] += rows[r].alloc[k];
        mean.used[k] += rows[r].used[k];
      }
    }
    const double n = static_cast<double>(end - i);
    t.push_back(rows[i].time);
    running.push_back(mean.running / n);
    waiting.push_back(mean.waiting / n);
    for (int k = 0; k < 4; ++k) {
      alloc[k].push_back(mean.alloc[k] / n);
      used[k].push_back(mean.used[k] / n);
    }
  }
  if (group > 1) notes.push_back(fmt::format("timeline: means of {} rows of timeline.csv per point", group));
  json out = {{"t", Rounded(t)}, {"running", Rounded(running)}, {"waiting", Rounded(waiting)}};
  const char* names[] = {"cpu", "mem", "disk", "net"};
  for (int k = 0; k < 4; ++k) {
    out["alloc"][names[k]] = Rounded(alloc[k]);
    out["used"][names[k]] = Rounded(used[k]);
  }
  return out;
}

// Gantt: bars of tasks on evenly sampled machines, in a window that starts
// at the run's first start and ends where the bar budget runs out.
json Gantt(const RunData& run, const SeriesOptions& o, json& notes) {
  std::vector<uint32_t> order(run.machines.size());
  std::iota(order.begin(), order.end(), 0);
  // Natural order (m2 before m10): shorter names first, then by name.
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const std::string &x = run.machines[a], &y = run.machines[b];
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  const size_t shown = std::min(order.size(), o.gantt_machines);
  std::vector<int> row_of(run.machines.size(), -1);
  json machines = json::array();
  for (size_t i = 0; i < shown; ++i) {
    const uint32_t m = order[i * order.size() / shown];
    row_of[m] = static_cast<int>(i);
    machines.push_back(run.machines[m]);
  }
  if (shown < order.size()) notes.push_back(fmt::format("Gantt: {} of {} machines", shown, order.size()));
  std::vector<const AttemptRow*> bars;
  for (const AttemptRow& a : run.attempts) {
    if (row_of[a.machine] >= 0) bars.push_back(&a);
  }
  std::sort(bars.begin(), bars.end(), [](const AttemptRow* a, const AttemptRow* b) { return a->start < b->start; });
  double lo = bars.empty() ? 0 : bars.front()->start;
  double hi = bars.empty() ? 0 : std::max_element(bars.begin(), bars.end(), [](auto* a, auto* b) {
                                    return a->end < b->end;
                                  })[0]->end;
  if (o.gantt_window) {
    lo = o.gantt_window->first;
    hi = o.gantt_window->second;
  } else if (bars.size() > o.gantt_bars) {
    hi = bars[o.gantt_bars]->start;
    notes.push_back(fmt::format("Gantt: the window [{}, {}] s holds the first {} of {} bars", Round4(lo), Round4(hi),
                                o.gantt_bars, bars.size()));
  }
  json rows = json::array();
  for (const AttemptRow* a : bars) {
    if (a->end < lo || a->start >= hi || rows.size() >= o.gantt_bars) continue;
    rows.push_back({row_of[a->machine], Round4(a->start), Round4(a->end), a->job == kNoJob ? -1 : int64_t{a->job},
                    a->outcome});
  }
  return {{"window", {Round4(lo), Round4(hi)}}, {"machines", machines}, {"bars", rows}};
}

// UserShares: each user's share of the cpu allocated in each of up to 100
// bins (the six biggest users by name, the rest as "others").
json UserShares(const RunData& run, json& notes) {
  if (run.users.size() < 2 || run.attempts.empty()) return nullptr;
  double lo = run.attempts.front().start, hi = 0;
  for (const AttemptRow& a : run.attempts) {
    lo = std::min(lo, a.start);
    hi = std::max(hi, a.end);
  }
  const size_t bins = 100;
  const double width = std::max(1e-6, (hi - lo) / bins);
  std::vector<std::vector<double>> cpu(run.users.size(), std::vector<double>(bins, 0));
  std::vector<double> total(run.users.size(), 0);
  for (const AttemptRow& a : run.attempts) {
    if (a.job == kNoJob) continue;
    const uint32_t u = run.jobs[a.job].user;
    for (size_t b = static_cast<size_t>((a.start - lo) / width); b < bins; ++b) {
      const double from = lo + b * width, to = from + width;
      if (from >= a.end) break;
      const double overlap = std::min(to, a.end) - std::max(from, a.start);
      if (overlap > 0) cpu[u][b] += overlap * a.cpu;
    }
    total[u] += (a.end - a.start) * a.cpu;
  }
  std::vector<size_t> users(run.users.size());
  std::iota(users.begin(), users.end(), 0);
  std::sort(users.begin(), users.end(), [&](size_t a, size_t b) { return total[a] > total[b]; });
  std::vector<double> bin_total(bins, 0);
  for (const auto& series : cpu) {
    for (size_t b = 0; b < bins; ++b) bin_total[b] += series[b];
  }
  json names = json::array(), shares = json::array();
  std::vector<double> others(bins, 0);
  for (size_t i = 0; i < users.size(); ++i) {
    std::vector<double> share(bins, 0);
    for (size_t b = 0; b < bins; ++b) share[b] = bin_total[b] > 0 ? cpu[users[i]][b] / bin_total[b] : 0;
    if (i < 6) {
      names.push_back(run.users[users[i]]);
      shares.push_back(Rounded(share));
    } else {
      for (size_t b = 0; b < bins; ++b) others[b] += share[b];
    }
  }
  if (users.size() > 6) {
    names.push_back("others");
    shares.push_back(Rounded(others));
    notes.push_back(fmt::format("fairness: the 6 biggest of {} users shown, the rest as \"others\"", users.size()));
  }
  std::vector<double> t(bins);
  for (size_t b = 0; b < bins; ++b) t[b] = lo + b * width;
  return {{"t", Rounded(t)}, {"users", names}, {"share", shares}};
}

// Histogram of `values` in `bins` equal bins from their minimum to maximum.
json Histogram(const std::vector<double>& values, size_t bins) {
  if (values.empty()) return {{"x", json::array()}, {"count", json::array()}};
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  const double lo = *mn, width = std::max(1e-9, (*mx - lo) / static_cast<double>(bins));
  std::vector<double> x(bins), count(bins, 0);
  for (size_t b = 0; b < bins; ++b) x[b] = lo + b * width;
  for (double v : values) count[std::min(bins - 1, static_cast<size_t>((v - lo) / width))] += 1;
  return {{"x", Rounded(x)}, {"count", count}};
}

// Log2Histogram: counts in buckets [1], [2, 3], [4, 7], ... labelled by
// their lower end.
json Log2Histogram(const std::vector<double>& values) {
  std::vector<double> count;
  for (double v : values) {
    const size_t b = v < 1 ? 0 : static_cast<size_t>(std::floor(std::log2(v)));
    if (count.size() <= b) count.resize(b + 1, 0);
    count[b] += 1;
  }
  json x = json::array();
  for (size_t b = 0; b < count.size(); ++b) x.push_back(uint64_t{1} << b);
  return {{"x", x}, {"count", count}};
}

}  // namespace

json RunSeries(const RunData& run, const SeriesOptions& o) {
  json notes = json::array();
  json out;
  std::vector<double> jcts, arrivals, sizes;
  for (const JobRow& j : run.jobs) {
    if (j.ok) jcts.push_back(j.jct);
    arrivals.push_back(j.arrival);
    sizes.push_back(j.tasks);
  }
  out["jct_cdf"] = Cdf(jcts, o.max_points, "JCT", notes);
  if (o.workload != nullptr) {
    std::unordered_map<std::string_view, const Job*> by_name;
    for (const Job& j : o.workload->jobs) by_name.emplace(j.name, &j);
    std::vector<double> slowdowns;
    sizes.clear();
    for (const JobRow& j : run.jobs) {
      const auto it = by_name.find(j.name);
      if (it == by_name.end()) continue;
      sizes.push_back(it->second->num_tasks);
      const double cp = UsToSeconds(CriticalPathUs(*it->second, o.workload->cluster));
      if (j.ok && cp > 0) slowdowns.push_back(j.jct / cp);
    }
    out["slowdown_cdf"] = Cdf(slowdowns, o.max_points, "slowdown", notes);
  }
  out["lb"] = LowerBoundPoints(run, o.max_points, notes);
  std::vector<double> delays;
  std::array<uint64_t, 4> locality{};
  std::vector<uint64_t> by_attempt;
  std::array<uint64_t, 3> outcomes{};
  for (const AttemptRow& a : run.attempts) {
    if (a.start > a.ready || a.outcome != 2) delays.push_back(a.start - a.ready);
    if (a.outcome == 0) ++locality[a.locality];
    ++outcomes[a.outcome];
    if (by_attempt.size() <= a.attempt) by_attempt.resize(a.attempt + 1, 0);
    ++by_attempt[a.attempt];
  }
  out["delay_cdf"] = Cdf(delays, o.max_points, "scheduling delay", notes);
  out["locality"] = {{"node", locality[1]}, {"rack", locality[2]}, {"remote", locality[3]}, {"none", locality[0]}};
  out["outcomes"] = {{"ok", outcomes[0]}, {"failed", outcomes[1]}, {"killed", outcomes[2]}};
  out["attempts"] = by_attempt;
  if (run.has_timeline) out["timeline"] = TimelineSeries(run, o.max_points, notes);
  out["gantt"] = Gantt(run, o, notes);
  out["users"] = UserShares(run, notes);
  out["arrivals"] = Histogram(arrivals, 50);
  out["dag_sizes"] = Log2Histogram(sizes);
  out["notes"] = notes;
  return out;
}

}  // namespace weft::report
