#include "cli/sweep_plan.h"

#include <cmath>
#include <filesystem>
#include <map>

#include "fmt/format.h"
#include "core/status.h"
#include "policy/registry.h"

namespace weft::cli {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

absl::StatusOr<uint64_t> ParseSeed(const std::string& text) {
  uint64_t v = 0;
  size_t used = 0;
  try {
    if (text.empty() || text[0] == '-' || text[0] == '+') throw std::invalid_argument(text);
    v = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) {
    return absl::InvalidArgumentError(fmt::format("--seeds: \"{}\" is not a whole number >= 0", text));
  }
  return v;
}

bool HasKey(const policy::PolicyInfo& info, const std::string& key) {
  for (const auto* list : {&info.params, &policy::CommonParams()}) {
    for (const policy::ParamSpec& p : *list) {
      if (p.name == key) return true;
    }
  }
  return false;
}

struct Axis {
  std::string scope;  // empty: every policy that has the key
  std::string key;
  std::vector<std::string> values;
  bool used = false;
};

}  // namespace

absl::StatusOr<std::vector<uint64_t>> ParseSeeds(const std::string& text, uint64_t fallback) {
  if (text.empty()) return std::vector<uint64_t>{fallback};
  std::vector<uint64_t> seeds;
  if (const size_t dots = text.find(".."); dots != std::string::npos) {
    auto first = ParseSeed(text.substr(0, dots));
    if (!first.ok()) return first.status();
    auto last = ParseSeed(text.substr(dots + 2));
    if (!last.ok()) return last.status();
    if (*last < *first || *last - *first >= 100'000) {
      return absl::InvalidArgumentError(fmt::format("--seeds: \"{}\" must be A..B with A <= B, at most 100000 seeds", text));
    }
    for (uint64_t s = *first;; ++s) {
      seeds.push_back(s);
      if (s == *last) break;
    }
    return seeds;
  }
  // "1-5" is the range most people type first: say how weft writes it.
  if (const size_t dash = text.find('-'); dash != std::string::npos && dash > 0 && text.find(',') == std::string::npos &&
                                          ParseSeed(text.substr(0, dash)).ok() && ParseSeed(text.substr(dash + 1)).ok()) {
    return absl::InvalidArgumentError(fmt::format("--seeds \"{}\": write a range as {}..{}", text, text.substr(0, dash),
                                                  text.substr(dash + 1)));
  }
  for (const std::string& part : Split(text, ',')) {
    auto s = ParseSeed(part);
    if (!s.ok()) return s.status();
    seeds.push_back(*s);
  }
  return seeds;
}

absl::StatusOr<std::vector<SweepConfig>> PlanSweep(const std::vector<std::string>& workload_paths,
                                                   const std::string& policies,
                                                   const std::vector<std::string>& params) {
  std::vector<const policy::PolicyInfo*> infos;
  if (policies == "all") {
    infos = policy::AllPolicies();
  } else {
    for (const std::string& name : Split(policies, ',')) {
      const policy::PolicyInfo* info = policy::FindPolicy(name);
      if (info == nullptr) return absl::InvalidArgumentError(fmt::format("--policies: no policy \"{}\"", name));
      infos.push_back(info);
    }
  }
  std::vector<Axis> axes;
  for (const std::string& p : params) {
    Axis axis;
    std::string rest = p;
    if (const size_t colon = p.find(':'); colon != std::string::npos) {
      axis.scope = p.substr(0, colon);
      rest = p.substr(colon + 1);
    }
    const size_t eq = rest.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == rest.size()) {
      return absl::InvalidArgumentError(fmt::format("--param \"{}\": write [POLICY:]k=v1,v2,...", p));
    }
    axis.key = rest.substr(0, eq);
    axis.values = Split(rest.substr(eq + 1), ',');
    axes.push_back(std::move(axis));
  }

  // Workload names: file stems, made unique so their run directories differ.
  std::vector<std::string> names;
  std::map<std::string, int> seen;
  for (const std::string& path : workload_paths) {
    std::string stem = std::filesystem::path(path).stem().string();
    const int n = ++seen[stem];
    names.push_back(n == 1 ? stem : fmt::format("{}-{}", stem, n));
  }

  std::vector<SweepConfig> configs;
  for (size_t w = 0; w < workload_paths.size(); ++w) {
    for (const policy::PolicyInfo* info : infos) {
      std::vector<Axis*> mine;
      for (Axis& a : axes) {
        if (a.scope.empty() ? HasKey(*info, a.key) : a.scope == info->name) {
          mine.push_back(&a);
          a.used = true;
        }
      }
      // Odometer over the policy's axes, the first one outermost.
      std::vector<size_t> at(mine.size(), 0);
      while (true) {
        SweepConfig c{.workload = w, .workload_name = names[w], .policy = info->name};
        for (size_t k = 0; k < mine.size(); ++k) {
          c.params.push_back(fmt::format("{}={}", mine[k]->key, mine[k]->values[at[k]]));
          c.label += (k == 0 ? "" : ",") + c.params.back();
        }
        c.dir = c.label.empty() ? fmt::format("{}/{}", c.workload_name, c.policy)
                                : fmt::format("{}/{}/{}", c.workload_name, c.policy, c.label);
        if (w == 0) {
          auto built = policy::BuildPolicy(c.policy, c.params);
          if (!built.ok()) return absl::InvalidArgumentError(fmt::format("--param: {}", StatusMessage(built.status())));
        }
        configs.push_back(std::move(c));
        size_t k = mine.size();
        while (k > 0 && ++at[k - 1] == mine[k - 1]->values.size()) at[--k] = 0;
        if (k == 0) break;
      }
    }
  }
  for (const Axis& a : axes) {
    if (!a.used) {
      return absl::InvalidArgumentError(
          fmt::format("--param {}{}: no listed policy has \"{}\"", a.scope.empty() ? "" : a.scope + ":", a.key, a.key));
    }
  }
  return configs;
}

MeanCi MeanAndCi95(const std::vector<double>& values) {
  MeanCi ci;
  ci.n = values.size();
  if (ci.n == 0) return ci;
  // Summed as offsets from the first value, so equal values (a deterministic
  // policy over seeds) give exactly that value and a zero-width interval.
  const double base = values[0];
  double offsets = 0;
  for (double v : values) offsets += v - base;
  const double mean_offset = offsets / static_cast<double>(ci.n);
  ci.mean = base + mean_offset;
  if (ci.n < 2) return ci;
  double squares = 0;
  for (double v : values) squares += (v - base - mean_offset) * (v - base - mean_offset);
  const double sd = std::sqrt(squares / static_cast<double>(ci.n - 1));
  // Student's t at 0.975 for 1..30 degrees of freedom, then the normal's.
  static constexpr double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                  2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                  2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  const size_t df = ci.n - 1;
  const double t = df <= 30 ? kT[df - 1] : 1.960;
  ci.half_width = t * sd / std::sqrt(static_cast<double>(ci.n));
  return ci;
}

std::string CiText(const MeanCi& ci) { return ci.n < 2 ? std::string() : fmt::format("{}", ci.half_width); }

}  // namespace weft::cli
