#include "cli/compare_table.h"

#include <algorithm>

#include "cli/policy_traits.h"
#include "fmt/format.h"

namespace weft::cli {
namespace {

// Ratio prints a / b as "1.23x", or "-" when b is 0 (no job ended).
std::string Ratio(double a, double b) { return b > 0 ? fmt::format("{:.2f}x", a / b) : "-"; }

}  // namespace

std::string CompareTable(const std::vector<sim::SimulationResult>& results, const sim::SimulationResult* baseline) {
  size_t name_width = 16;
  for (const auto& r : results) name_width = std::max(name_width, r.policy.size());
  std::string out = fmt::format("{:<{}} {:>11} {:>12} {:>10} {:>10} {:>10} {:>11} {:>8} {:>8} {:>8} {:>9} {:>6} {:>8}",
                                "policy", name_width, "clairvoyant", "over-commits", "avg_jct", "median_jct", "p95_jct",
                                "makespan", "cpu_held", "cpu_used", "mem_held", "delay_p95", "failed", "wall_s");
  if (baseline != nullptr) {
    out += fmt::format(" {:>12} {:>12}", "avg_jct/" + baseline->policy, "p95_jct/" + baseline->policy);
  }
  out += "\n";
  for (const auto& r : results) {
    const RunSummary& s = r.summary;
    out += fmt::format("{:<{}} {:>11} {:>12} {:>10.2f} {:>10.2f} {:>10.2f} {:>11.2f} {:>7.1f}% {:>7.1f}% {:>7.1f}% {:>9.3f} {:>6} {:>8.2f}",
                       r.policy, name_width, ClairvoyanceOf(r.summary_json), OverCommitsOf(r.summary_json), s.avg_jct,
                       s.median_jct, s.p95_jct, s.makespan, 100 * s.utilization[kCpu], 100 * s.used[kCpu],
                       100 * s.utilization[kMem], s.delay_p95, s.jobs_failed, r.wall_seconds);
    if (baseline != nullptr) {
      out += fmt::format(" {:>12} {:>12}", Ratio(s.avg_jct, baseline->summary.avg_jct),
                         Ratio(s.p95_jct, baseline->summary.p95_jct));
    }
    out += "\n";
  }
  out +=
      "\ncpu_held, mem_held: the share of the cluster's capacity that tasks held while they ran (summary.json's\n"
      "  `utilization`, Ursa's SE); cpu_used: the share they used (summary.json's `used`). A policy can hold\n"
      "  much and use little: compare the two before reading either as efficiency. A task run as monotasks (a\n"
      "  task with phases under ursa or ursa-yarn) uses exactly what its phase holds: weft does not yet model a\n"
      "  monotask using less, so for such tasks used equals held.\n";
  out +=
      "clairvoyant: yes = sees every task's duration in advance; semi = a stage's once the stage is released;\n"
      "  no = never (it learns from tasks that ended).\n"
      "over-commits: the resources the policy may reserve beyond a machine's capacity in this run.\n";
  return out;
}

}  // namespace weft::cli
