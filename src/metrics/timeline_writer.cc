#include "metrics/timeline_writer.h"

#include <algorithm>
#include <filesystem>

#include "core/status.h"
#include "fmt/format.h"
#include "metrics/result_file.h"

namespace weft {

Timeline::Timeline(TimeUs origin_us, TimeUs step_us, size_t max_bins)
    : origin_us_(origin_us), step_us_(step_us), max_bins_(std::max<size_t>(1, max_bins)) {}

size_t Timeline::Reach(TimeUs end_us) {
  while (static_cast<uint64_t>((end_us - 1 - origin_us_) / step_us_) >= max_bins_) Coarsen();
  const size_t last = static_cast<size_t>((end_us - 1 - origin_us_) / step_us_);
  if (partial_.size() <= last) {
    partial_.resize(last + 1, Rates{});
    rate_delta_.resize(last + 2, Rates{});
  }
  return last;
}

void Timeline::Coarsen() {
  Rates rate{};
  for (size_t b = 0; b < partial_.size(); ++b) {
    for (int q = 0; q < kNumQuantities; ++q) {
      rate[q] += rate_delta_[b][q];
      partial_[b][q] += rate[q] * static_cast<double>(step_us_);
    }
  }
  const size_t merged = (partial_.size() + 1) / 2;
  for (size_t b = 0; b < merged; ++b) {
    Rates sum = partial_[2 * b];
    if (2 * b + 1 < partial_.size()) {
      for (int q = 0; q < kNumQuantities; ++q) sum[q] += partial_[2 * b + 1][q];
    }
    partial_[b] = sum;
  }
  partial_.resize(merged);
  rate_delta_.assign(merged + 1, Rates{});
  step_us_ *= 2;
}

void Timeline::Add(TimeUs start_us, TimeUs end_us, const Rates& rates) {
  start_us = std::max(start_us, origin_us_);
  if (end_us <= start_us) return;
  const size_t last = Reach(end_us);
  const TimeUs s = start_us - origin_us_, e = end_us - origin_us_;
  const size_t first = static_cast<size_t>(s / step_us_);
  auto add_piece = [&](size_t bin, TimeUs length) {
    for (int q = 0; q < kNumQuantities; ++q) partial_[bin][q] += rates[q] * static_cast<double>(length);
  };
  if (first == last) {
    add_piece(first, e - s);
    return;
  }
  add_piece(first, static_cast<TimeUs>(first + 1) * step_us_ - s);
  add_piece(last, e - static_cast<TimeUs>(last) * step_us_);
  // Whole bins first+1 .. last-1: one difference-array entry each side, so a
  // container held for hours costs as little as a short task.
  if (first + 1 < last) {
    for (int q = 0; q < kNumQuantities; ++q) {
      rate_delta_[first + 1][q] += rates[q];
      rate_delta_[last][q] -= rates[q];
    }
  }
}

std::vector<Timeline::Bin> Timeline::Bins(TimeUs end_us) {
  std::vector<Bin> bins;
  if (end_us <= origin_us_) return bins;
  const size_t count = Reach(end_us) + 1;
  bins.reserve(count);
  Rates rate{};
  for (size_t b = 0; b < count; ++b) {
    Bin bin;
    bin.start_us = origin_us_ + static_cast<TimeUs>(b) * step_us_;
    bin.length_us = std::min(step_us_, end_us - bin.start_us);
    for (int q = 0; q < kNumQuantities; ++q) {
      if (b < rate_delta_.size()) rate[q] += rate_delta_[b][q];
      const double integral = (b < partial_.size() ? partial_[b][q] : 0.0) + rate[q] * static_cast<double>(step_us_);
      bin.mean[q] = integral / static_cast<double>(bin.length_us);
    }
    bins.push_back(bin);
  }
  return bins;
}

TimeUs FirstArrivalUs(const Workload& workload) {
  if (workload.jobs.empty()) return 0;
  TimeUs first = workload.jobs.front().arrival_us;
  for (const Job& j : workload.jobs) first = std::min(first, j.arrival_us);
  return first;
}

absl::StatusOr<std::unique_ptr<TimelineWriter>> TimelineWriter::Open(const std::string& dir, const Workload& workload,
                                                                     TimeUs step_us, bool compress,
                                                                     std::optional<TimeUs> origin_us) {
  if (step_us <= 0) return absl::InvalidArgumentError("--timeline-step must be > 0");
  if (!std::filesystem::is_directory(dir)) {
    return absl::InvalidArgumentError(fmt::format("--out {}: not a directory", dir));
  }
  std::unique_ptr<TimelineWriter> w(new TimelineWriter(dir, workload, origin_us ? *origin_us : FirstArrivalUs(workload), step_us));
  w->compress_ = compress;
  return w;
}

TimelineWriter::TimelineWriter(std::string dir, const Workload& workload, TimeUs origin_us, TimeUs step_us)
    : dir_(std::move(dir)), workload_(workload), timeline_(origin_us, step_us) {}

void TimelineWriter::OnAttemptEnd(const AttemptRecord& r) {
  Timeline::Rates rates{};
  rates[Timeline::kRunning] = 1;
  // A task with phases (r.held set) holds and uses only its memory over the
  // whole attempt; its phases' resources come in through OnPhaseEnd.
  const bool phased = r.held.has_value();
  for (int k = 0; k < kNumResources; ++k) {
    const Resource res = static_cast<Resource>(k);
    if (phased && res != kMem) continue;
    if (!r.in_container) rates[Timeline::kAlloc + k] = r.Held().units(res);
    rates[Timeline::kUsed + k] = r.usage.units(res);
  }
  timeline_.Add(r.start_us, r.end_us, rates);
  Timeline::Rates waiting{};
  waiting[Timeline::kWaiting] = 1;
  timeline_.Add(r.ready_us, r.start_us, waiting);
  last_end_us_ = std::max(last_end_us_, r.end_us);
}

void TimelineWriter::OnPhaseEnd(const PhaseRecord& p) {
  Timeline::Rates rates{};
  if (!p.in_container) rates[Timeline::kAlloc + p.resource] = p.held;
  rates[Timeline::kUsed + p.resource] = p.held;  // a phase uses what it holds
  timeline_.Add(p.start_us, p.end_us, rates);
}

void TimelineWriter::OnJobEnd(const JobRecord& r) { last_end_us_ = std::max(last_end_us_, r.end_us); }

void TimelineWriter::OnContainerEnd(const ContainerRecord& r) {
  Timeline::Rates rates{};
  for (int k = 0; k < kNumResources; ++k) rates[Timeline::kAlloc + k] = r.size.units(static_cast<Resource>(k));
  timeline_.Add(r.granted_us, r.released_us, rates);
}

void TimelineWriter::OnRunEnd(TimeUs end_us) { run_end_us_ = end_us; }

std::unique_ptr<TimelineWriter> TimelineWriter::InMemory(const Workload& workload, TimeUs step_us, TimeUs origin_us) {
  return std::unique_ptr<TimelineWriter>(new TimelineWriter("", workload, origin_us, step_us));
}

std::vector<Timeline::Bin> TimelineWriter::Rows() {
  const TimeUs end = last_end_us_ > 0 ? last_end_us_ : run_end_us_;
  const Resources& capacity = workload_.cluster.total_capacity();
  std::array<double, kNumResources> scale{};
  for (int k = 0; k < kNumResources; ++k) {
    const double cap = capacity.units(static_cast<Resource>(k));
    scale[k] = cap > 0 ? 1.0 / cap : 0.0;
  }
  std::vector<Timeline::Bin> bins = timeline_.Bins(end);
  for (Timeline::Bin& bin : bins) {
    for (int q = Timeline::kAlloc; q < Timeline::kNumQuantities; ++q) bin.mean[q] *= scale[(q - Timeline::kAlloc) % kNumResources];
  }
  return bins;
}

absl::Status TimelineWriter::Finish() {
  ASSIGN_OR_RETURN(std::unique_ptr<ResultFile> file, ResultFile::Open(dir_, "timeline.csv", compress_));
  fmt::memory_buffer& out = file->buffer();
  fmt::format_to(std::back_inserter(out), "time,running,waiting");
  for (const char* kind : {"alloc", "used"}) {
    for (std::string_view name : kResourceNames) fmt::format_to(std::back_inserter(out), ",{}_{}", name, kind);
  }
  out.push_back('\n');
  for (const Timeline::Bin& bin : Rows()) {
    fmt::format_to(std::back_inserter(out), "{},{:.6g},{:.6g}", FormatSeconds(bin.start_us),
                   bin.mean[Timeline::kRunning], bin.mean[Timeline::kWaiting]);
    for (int q = Timeline::kAlloc; q < Timeline::kNumQuantities; ++q) {
      fmt::format_to(std::back_inserter(out), ",{:.6g}", bin.mean[q]);
    }
    out.push_back('\n');
    file->Flush();
  }
  return file->Finish();
}

}  // namespace weft
