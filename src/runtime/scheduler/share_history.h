// File: runtime/scheduler/share_history.h
//
// ShareHistory: each user's running tasks over time, as the operator's live
// page draws them (docs/runtime.md, "Dashboard and metrics": shares over
// time). The live dashboard adds a sample each time it reads the
// scheduler's state for /api/jobs or /metrics (every 2 s while a page is
// open), at most one a second. The history is bounded: when it is full,
// every other sample is dropped, so it always spans the time since the
// first sample, at a resolution that halves as it grows. No I/O and no
// clock: the caller gives the scheduler's time. Not thread-safe: the
// caller serialises Add and Json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace weft::runtime {

class ShareHistory {
 public:
  static constexpr size_t kMaxSamples = 240;
  static constexpr double kMinGapSeconds = 1;
  // kMaxUsers: the users drawn by name, the biggest by running tasks summed
  // over the history; the rest are summed as "others".
  static constexpr size_t kMaxUsers = 6;

  // Add records the running tasks per user at scheduler time `now_s`
  // (users with none may be left out). Ignored when it is less than
  // kMinGapSeconds after the last sample, or earlier than it.
  void Add(double now_s, const std::map<std::string, uint64_t>& running);

  // Json: {"t": [seconds...], "users": [names...], "running": [[tasks per
  // sample] per user]}, users biggest first, "others" last when there are
  // more than kMaxUsers; empty lists before the first sample.
  nlohmann::json Json() const;

  size_t size() const { return samples_.size(); }

 private:
  struct Sample {
    double t = 0;
    std::map<std::string, uint64_t> running;
  };
  std::vector<Sample> samples_;
};

}  // namespace weft::runtime
