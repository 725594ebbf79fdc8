#include "core/random.h"

#include <bit>
#include <cmath>
#include <limits>

namespace weft {

uint64_t SplitMix64::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double DeterministicLog(double x) {
  if (std::isnan(x) || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); frexp and ldexp are exact.
  int e = 0;
  double m = std::frexp(x, &e);  // m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  // log(1 + f) = 2 atanh(s), s = f / (2 + f), |s| <= 0.1716; written as
  // f - (hfsq - s (hfsq + r)) as in fdlibm's e_log.c, so that the large term f
  // (exact, by Sterbenz) is added last and only small corrections carry
  // rounding error: summing 2 atanh(s) directly was off by up to 4 ulp.
  // r = sum over k >= 1 of 2 s^2k / (2k + 1) converges within 14 terms.
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double s2 = s * s;
  double term = s2;
  double r = 0.0;
  for (int k = 1; k <= 14; ++k) {
    r += 2.0 * term / static_cast<double>(2 * k + 1);
    term *= s2;
  }
  const double hfsq = 0.5 * f * f;
  // ln 2 split in a high part exact in 32 bits and a low correction.
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  const double de = static_cast<double>(e);
  return de * kLn2Hi - ((hfsq - (s * (hfsq + r) + de * kLn2Lo)) - f);
}

double DeterministicExp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.78) return std::numeric_limits<double>::infinity();
  if (x < -745.2) return 0.0;
  // e^x = 2^k e^r with r = x - k ln 2, |r| <= ln(2)/2; the Taylor series of
  // e^r converges below double precision within 20 terms.
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  const double k = std::nearbyint(x / 0.69314718055994530942);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double term = 1.0;
  double sum = 1.0;
  for (int n = 1; n < 22; ++n) {
    term *= r / static_cast<double>(n);
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(k));
}

Rng::Rng(uint64_t seed) : seed_(seed) {
  SplitMix64 sm(seed);
  for (auto& word : s_) word = sm.Next();
}

Rng Rng::Fork(uint64_t stream) const {
  // Mix the parent's seed with the stream number through SplitMix64 so that
  // neighbouring streams are unrelated.
  SplitMix64 sm(seed_ ^ (stream * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL));
  return Rng(sm.Next());
}

uint64_t Rng::Next64() {
  // xoshiro256** (Blackman and Vigna 2018).
  const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

double Rng::Uniform() {
  // The top 53 bits, scaled exactly into [0, 1).
  return static_cast<double>(Next64() >> 11) * 0x1.0p-53;
}

uint64_t Rng::UniformInt(uint64_t n) {
  // Lemire, "Fast random integer generation in an interval" (2019).
  unsigned __int128 m = static_cast<unsigned __int128>(Next64()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(Next64()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double Rng::Exponential(double mean) {
  // 1 - U lies in (0, 1], so the logarithm is finite.
  return -mean * DeterministicLog(1.0 - Uniform());
}

double Rng::Normal(double mean, double stddev) {
  if (spare_normal_) {
    const double z = *spare_normal_;
    spare_normal_.reset();
    return mean + stddev * z;
  }
  double u, v, s;
  do {
    u = 2.0 * Uniform() - 1.0;
    v = 2.0 * Uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * DeterministicLog(s) / s);
  spare_normal_ = v * factor;
  return mean + stddev * (u * factor);
}

}  // namespace weft
