// File: runtime/node/node_reports.cc
#include "runtime/node/node_reports.h"

#include <algorithm>

namespace weft::runtime {

void SetUsage(const TaskExit& exit, v1::ResourceVector& average, v1::ResourceVector& peak) {
  const double seconds = static_cast<double>(exit.run_us) / 1e6;
  const auto rate = [seconds](double total) { return seconds > 0 ? total / seconds : 0.0; };
  average.set_cpu(rate(exit.cpu_seconds));
  average.set_mem(static_cast<double>(exit.average_rss_bytes > 0 ? exit.average_rss_bytes : exit.peak_rss_bytes) / 1e9);
  average.set_disk(rate(static_cast<double>(exit.storage_bytes) / 1e6));
  average.set_net(rate(static_cast<double>(exit.net_bytes) / 1e6));
  peak.set_cpu(std::max(average.cpu(), exit.peak_cpu_cores));
  peak.set_mem(std::max(average.mem(), static_cast<double>(exit.peak_rss_bytes) / 1e9));
  peak.set_disk(std::max(average.disk(), exit.peak_disk_mbps));
  peak.set_net(std::max(average.net(), exit.peak_net_mbps));
}

void AddEnd(v1::TaskEnds& ends, uint64_t attempt, const TaskExit& exit) {
  v1::TaskEnd* e = ends.add_ends();
  e->set_attempt(attempt);
  e->set_exit_code(exit.killed ? 137 : exit.exit_code);
  e->set_failed_to_start(exit.failed_to_start);
  e->set_error(exit.error);
  e->set_cpu_seconds(exit.cpu_seconds);
  e->set_peak_rss_bytes(exit.peak_rss_bytes);
  e->set_run_us(exit.run_us);
  if (!exit.killed) e->set_signal(exit.signal);
  e->set_stderr_tail(exit.stderr_tail);
  e->set_has_usage(true);
  SetUsage(exit, *e->mutable_average(), *e->mutable_peak());
}

void AddPhaseEnd(v1::PhaseEnds& ends, uint64_t attempt, uint32_t phase, const TaskExit& exit) {
  v1::PhaseEnd* e = ends.add_ends();
  e->set_attempt(attempt);
  e->set_phase(phase);
  e->set_exit_code(exit.killed ? 137 : exit.failed_to_start && exit.exit_code == 0 ? 127 : exit.exit_code);
  e->set_error(exit.error);
  e->set_run_us(exit.run_us);
  SetUsage(exit, *e->mutable_average(), *e->mutable_peak());
}

}  // namespace weft::runtime
