#include "policy/sparrow/sampler.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_set.h"

namespace weft::policy::sparrow {

namespace {

bool Eligible(const ClusterState& c, MachineId m, const Resources& demand) {
  return c.up(m) && demand.FitsIn(c.capacity(m));
}

// Draw k from an explicit eligible list: a partial Fisher-Yates for the
// distinct part, then uniform draws with repetition for the rest.
void FromList(Context& ctx, std::vector<MachineId>& list, uint64_t k, std::vector<MachineId>& out) {
  if (list.empty()) return;
  const uint64_t distinct = std::min<uint64_t>(k, list.size());
  for (uint64_t i = 0; i < distinct; ++i) {
    const uint64_t j = i + ctx.rng().UniformInt(list.size() - i);
    std::swap(list[i], list[j]);
    out.push_back(list[i]);
  }
  for (uint64_t i = distinct; i < k; ++i) out.push_back(list[ctx.rng().UniformInt(list.size())]);
}

}  // namespace

void SampleMachines(Context& ctx, const Resources& demand, std::span<const MachineId> candidates, uint64_t k,
                    std::vector<MachineId>& out) {
  if (k == 0) return;
  const ClusterState& c = ctx.cluster();
  std::vector<MachineId> list;
  for (MachineId m : candidates) {
    if (Eligible(c, m, demand)) list.push_back(m);
  }
  if (!list.empty()) return FromList(ctx, list, k, out);
  // All machines: rejection sampling while k is small against the cluster
  // (the common case: 2 probes per task among thousands of nodes); an
  // explicit list when rejections pile up.
  const uint64_t n = c.size();
  if (k * 2 <= n) {
    // Distinctness: a linear scan for a few probes (per-task sampling), a
    // bitmap over the cluster for a batch's d·m (a hash set if the cluster
    // is huge against the batch).
    const bool small = k <= 8;
    const bool bitmap = !small && n <= 1024 * k;
    std::vector<bool> seen_bits(bitmap ? n : 0);
    absl::flat_hash_set<uint32_t> seen;
    const size_t start = out.size();
    uint64_t tries = 0;
    while (out.size() - start < k && tries < 4 * k + 64) {
      ++tries;
      const MachineId m(static_cast<uint32_t>(ctx.rng().UniformInt(n)));
      if (!Eligible(c, m, demand)) continue;
      bool fresh;
      if (small) {
        fresh = std::find(out.begin() + static_cast<std::ptrdiff_t>(start), out.end(), m) == out.end();
      } else if (bitmap) {
        fresh = !seen_bits[m.value()];
        seen_bits[m.value()] = true;
      } else {
        fresh = seen.insert(m.value()).second;
      }
      if (fresh) out.push_back(m);
    }
    if (out.size() - start == k) return;
    out.resize(start);
  }
  for (uint32_t m = 0; m < n; ++m) {
    if (Eligible(c, MachineId(m), demand)) list.push_back(MachineId(m));
  }
  FromList(ctx, list, k, out);
}

bool InCandidateSet(const ClusterState& c, const Resources& demand, std::span<const MachineId> candidates,
                    MachineId m) {
  if (!Eligible(c, m, demand)) return false;
  if (std::find(candidates.begin(), candidates.end(), m) != candidates.end()) return true;
  return std::none_of(candidates.begin(), candidates.end(), [&](MachineId p) { return Eligible(c, p, demand); });
}

uint64_t ProbeCount(Context& ctx, double d, uint64_t m, bool per_task) {
  if (!per_task) return std::max<uint64_t>(m, static_cast<uint64_t>(std::ceil(d * static_cast<double>(m) - 1e-9)));
  const double whole = std::floor(d);
  const double frac = d - whole;
  return static_cast<uint64_t>(whole) + (frac > 1e-12 && ctx.rng().Bernoulli(frac) ? 1 : 0);
}

}  // namespace weft::policy::sparrow
