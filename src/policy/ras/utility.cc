#include "policy/ras/utility.h"

#include <algorithm>
#include <cmath>

namespace weft::policy::ras {

double MapUtility(double s_alloc, double s_req, double s_pend) {
  // The cap first: it also settles s_pend = s_req, the one zero denominator
  // of the linear branch (s_alloc >= s_req = s_pend).
  if (s_alloc >= s_pend) return 1.0;
  if (s_alloc >= s_req) return (s_alloc - s_req) / (s_pend - s_req);
  // Here s_alloc < s_req; with whole slots, s_alloc = 0 covers s_req <= 1.
  if (s_alloc < 1.0) return kNoMapSlot;
  return std::log(s_alloc) / std::log(s_req) - 1.0;  // s_req > s_alloc >= 1: log(s_req) > 0
}

double ReduceUtility(double r_alloc, double r_pend) {
  if (r_alloc >= r_pend) return 0.0;
  if (r_alloc < 1.0) return -1.0;
  return std::log(r_alloc) / std::log(r_pend) - 1.0;  // r_pend > r_alloc >= 1: log(r_pend) > 0
}

double JobUtility(double s_alloc, double s_req, double s_pend, double r_alloc, double r_pend) {
  return std::min(1.0, MapUtility(s_alloc, s_req, s_pend) + ReduceUtility(r_alloc, r_pend));
}

uint32_t RequiredMapSlots(uint32_t s_pend, double map_us, double reduce_us, double time_left_us) {
  if (s_pend == 0) return 0;
  const double window = time_left_us - reduce_us;
  // Less than one map's length left: no concurrency is enough; ask for all.
  if (window < map_us || window <= 0) return s_pend;
  const double need = std::ceil(static_cast<double>(s_pend) * map_us / window);
  return static_cast<uint32_t>(std::clamp(need, 1.0, static_cast<double>(s_pend)));
}

}  // namespace weft::policy::ras
