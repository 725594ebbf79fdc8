// File: metrics/histogram.h
//
// LogHistogram: a streaming histogram of non-negative integers (e.g. delays
// in microseconds) with bounded relative error (under 1%), so quantiles of
// tens of millions of samples take a few kilobytes. Integer arithmetic only:
// identical results everywhere. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft {

class LogHistogram {
 public:
  void Add(int64_t value);
  uint64_t count() const { return count_; }
  double Mean() const { return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_); }
  // Quantile returns a value within 1% of the q-quantile (q in [0, 1]); 0
  // when empty.
  int64_t Quantile(double q) const;
  int64_t max() const { return max_; }

 private:
  static constexpr int kSubBits = 7;  // 128 sub-buckets per power of two
  static size_t BucketOf(uint64_t v);
  static uint64_t LowerBound(size_t bucket);

  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  __int128 sum_ = 0;
  int64_t max_ = 0;
};

}  // namespace weft
