// File: core/random.h
//
// Rng: a seeded pseudo-random generator whose every sequence, including the
// distributions below, is bit-identical on every platform, compiler and
// library version. std::*_distribution gives no such promise, so the
// distributions are written here from IEEE-exact operations only (+ - * /
// sqrt) and a deterministic logarithm (DeterministicLog). The engine is
// xoshiro256** seeded through SplitMix64, as its authors recommend.
//
// Not thread-safe: give each thread (and each policy role) its own Rng,
// derived with Rng::Fork so that streams stay independent.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace weft {

// SplitMix64 is the seeding generator (Steele, Lea, Flood 2014).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();

 private:
  uint64_t state_;
};

// DeterministicLog returns the natural logarithm of x > 0, accurate to about
// one ulp, computed the same way everywhere (unlike std::log, whose last bit
// may differ between libm versions). Returns -inf for 0 and NaN for x < 0.
double DeterministicLog(double x);

// DeterministicExp returns e^x, accurate to a few ulp, computed the same way
// everywhere. Overflows to +inf above ~709.78 and underflows to 0.
double DeterministicExp(double x);

class Rng {
 public:
  explicit Rng(uint64_t seed);

  // Next64 returns the next raw 64-bit output.
  uint64_t Next64();

  // Fork returns an independent generator for a sub-stream named `stream`
  // (e.g. a role's index). The same seed and stream always give the same Rng,
  // and forking does not advance this generator.
  Rng Fork(uint64_t stream) const;

  // Uniform returns a double uniformly distributed in [0, 1).
  double Uniform();

  // UniformInt returns an integer uniformly distributed in [0, n); n > 0.
  // Unbiased (Lemire's multiply-and-reject).
  uint64_t UniformInt(uint64_t n);

  // Exponential returns an exponentially distributed value with the given
  // mean (> 0).
  double Exponential(double mean);

  // Normal returns a normally distributed value (Marsaglia's polar method).
  double Normal(double mean, double stddev);

  // Bernoulli returns true with probability p.
  bool Bernoulli(double p) { return Uniform() < p; }

  // Choice returns a uniformly chosen index into a container of size n > 0.
  uint64_t Choice(uint64_t n) { return UniformInt(n); }

  // Shuffle permutes `v` uniformly (Fisher-Yates).
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (uint64_t i = v.size(); i > 1; --i) {
      const uint64_t j = UniformInt(i);
      std::swap(v[i - 1], v[j]);
    }
  }

 private:
  Rng() = default;
  std::array<uint64_t, 4> s_{};
  uint64_t seed_ = 0;
  std::optional<double> spare_normal_;
};

}  // namespace weft
