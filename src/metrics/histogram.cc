#include "metrics/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace weft {

size_t LogHistogram::BucketOf(uint64_t v) {
  constexpr uint64_t kLinear = uint64_t{1} << kSubBits;
  if (v < kLinear) return v;
  const int e = std::bit_width(v) - 1;  // v in [2^e, 2^(e+1))
  const uint64_t sub = (v >> (e - kSubBits)) - kLinear;
  return kLinear + static_cast<size_t>(e - kSubBits) * kLinear + sub;
}

uint64_t LogHistogram::LowerBound(size_t bucket) {
  constexpr uint64_t kLinear = uint64_t{1} << kSubBits;
  if (bucket < kLinear) return bucket;
  const uint64_t e = (bucket - kLinear) / kLinear + kSubBits;
  const uint64_t sub = (bucket - kLinear) % kLinear;
  return (kLinear + sub) << (e - kSubBits);
}

void LogHistogram::Add(int64_t value) {
  const uint64_t v = value < 0 ? 0 : static_cast<uint64_t>(value);
  const size_t b = BucketOf(v);
  if (b >= buckets_.size()) buckets_.resize(b + 1, 0);
  ++buckets_[b];
  ++count_;
  sum_ += v;
  max_ = std::max<int64_t>(max_, static_cast<int64_t>(v));
}

int64_t LogHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // The rank of the q-quantile, 1-based (nearest-rank definition).
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  if (rank >= count_) return max_;
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= rank) return std::min<int64_t>(static_cast<int64_t>(LowerBound(b)), max_);
  }
  return max_;
}

}  // namespace weft
