#include "trace/dag_generators.h"

#include <algorithm>
#include <array>
#include <vector>

#include "core/random.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "trace/workload_reader.h"

namespace weft {
namespace {

using nlohmann::json;

json StageJson(const std::string& name, uint32_t tasks, double duration, const json& demand,
           const std::vector<std::string>& after = {}) {
  json s = {{"name", name}, {"tasks", tasks}, {"duration", duration}, {"demand", demand}};
  if (!after.empty()) s["after"] = after;
  return s;
}

json OneJobDoc(const json& machines, const json& stages) {
  return {{"weft", 1}, {"cluster", {{"machines", machines}}}, {"jobs", json::array({{{"name", "dag"}, {"stages", stages}}})}};
}

}  // namespace

std::string TinyDagJson(uint64_t seed) {
  Rng rng(seed);
  json machines = json::array();
  const uint32_t num_machines = 1 + static_cast<uint32_t>(rng.UniformInt(2));
  std::vector<std::array<uint64_t, 2>> caps;
  for (uint32_t m = 0; m < num_machines; ++m) {
    const uint64_t cpu = 2 + rng.UniformInt(3);
    const uint64_t mem = 2 + rng.UniformInt(3);
    caps.push_back({cpu, mem});
    machines.push_back({{"name", fmt::format("m{}", m)}, {"capacity", {{"cpu", cpu}, {"mem", mem}}}});
  }
  json stages = json::array();
  std::vector<uint32_t> sizes;
  const uint32_t num_stages = 2 + static_cast<uint32_t>(rng.UniformInt(4));
  uint32_t total = 0;
  for (uint32_t s = 0; s < num_stages && total < kTinyDagMaxTasks; ++s) {
    const uint32_t tasks = std::min<uint32_t>(1 + static_cast<uint32_t>(rng.UniformInt(2)), kTinyDagMaxTasks - total);
    total += tasks;
    const auto& cap = caps[rng.UniformInt(caps.size())];  // the demand fits this machine
    const double duration = 1 + static_cast<double>(rng.UniformInt(4));
    const double cpu = 1 + static_cast<double>(rng.UniformInt(cap[0]));
    const double mem = static_cast<double>(rng.UniformInt(cap[1] + 1));
    json st = {{"name", fmt::format("s{}", s)}, {"tasks", tasks}, {"duration", duration},
               {"demand", {{"cpu", cpu}, {"mem", mem}}}};
    if (tasks > 1 && rng.Bernoulli(0.4)) {
      json durations = json::array();
      for (uint32_t i = 0; i < tasks; ++i) durations.push_back(1 + static_cast<double>(rng.UniformInt(4)));
      st["durations"] = durations;
    }
    json after = json::array();
    for (uint32_t p = 0; p < s; ++p) {
      if (!rng.Bernoulli(0.45)) continue;
      if (sizes[p] == tasks && tasks > 1 && rng.Bernoulli(0.4)) {
        after.push_back({{"stage", fmt::format("s{}", p)}, {"kind", "pipelined"}});
      } else {
        after.push_back(fmt::format("s{}", p));
      }
    }
    if (!after.empty()) st["after"] = after;
    sizes.push_back(tasks);
    stages.push_back(st);
  }
  return OneJobDoc(machines, stages).dump();
}

absl::StatusOr<Workload> TinyDagWorkload(uint64_t seed) { return ParseWorkload(TinyDagJson(seed)); }

absl::StatusOr<Workload> Fig17Workload(uint32_t d, uint32_t k, double t) {
  if (d < 2 || d > kNumResources || k < 2 || !(t > 0)) {
    return absl::InvalidArgumentError("Fig17Workload: needs 2 <= d <= 4, k >= 2, t > 0");
  }
  json capacity;
  for (uint32_t r = 0; r < kNumResources; ++r) capacity[std::string(kResourceNames[r])] = 1;
  json stages = json::array();
  for (uint32_t g = 0; g < d; ++g) {
    const json demand = {{std::string(kResourceNames[g]), 1}};
    std::vector<std::string> after;
    if (g > 0) after.push_back(fmt::format("red{}", g - 1));
    const bool has_red = g + 1 < d;
    stages.push_back(StageJson(fmt::format("group{}", g), has_red ? k - 1 : k, t, demand, after));
    if (has_red) stages.push_back(StageJson(fmt::format("red{}", g), 1, t, demand, after));
  }
  return ParseWorkload(OneJobDoc(json::array({{{"name", "m"}, {"capacity", capacity}}}), stages).dump());
}

absl::StatusOr<Workload> Fig18Workload(uint32_t n, double t, double delta) {
  if (n < 2 || !(t > 0) || !(delta > 0)) return absl::InvalidArgumentError("Fig18Workload: needs n >= 2, t, delta > 0");
  const double cores = n;
  json stages = json::array();
  for (uint32_t i = 1; i <= n; ++i) {
    std::vector<std::string> after;
    if (i > 1) after.push_back(fmt::format("W{}", i - 1));
    stages.push_back(StageJson(fmt::format("L{}", i), 1, t + 2.0 * (n - i) * delta, {{"cpu", 1}}, after));
    stages.push_back(StageJson(fmt::format("W{}", i), 1, delta, {{"cpu", cores}}, after));
  }
  json machine = {{"name", "m"}, {"capacity", {{"cpu", cores}, {"mem", 1}}}};
  return ParseWorkload(OneJobDoc(json::array({machine}), stages).dump());
}

absl::StatusOr<Workload> Fig19Workload(double t) {
  if (!(t > 0)) return absl::InvalidArgumentError("Fig19Workload: needs t > 0");
  // Long task i: 0.45 of main[i], 0.15 of second[i]; each resource carries
  // 0.9 in all (cpu: L1 L2; mem: L3 L4; disk: L5 + 3 x 0.15; net: L6 + 3 x 0.15).
  constexpr std::array<int, 6> kMain = {kCpu, kCpu, kMem, kMem, kDisk, kNet};
  constexpr std::array<int, 6> kSecond = {kDisk, kNet, kDisk, kNet, kNet, kDisk};
  json stages = json::array();
  for (uint32_t i = 0; i < 6; ++i) {
    std::vector<std::string> after;
    if (i > 0) after.push_back(fmt::format("W{}", i));
    json wide = {{"cpu", 0.56}};  // W1 has no long task before it
    if (i > 0) wide = {{std::string(kResourceNames[kMain[i - 1]]), 0.56}};
    stages.push_back(StageJson(fmt::format("W{}", i + 1), 1, 1, wide, after));
    stages.push_back(StageJson(fmt::format("L{}", i + 1), 1, t,
                           {{std::string(kResourceNames[kMain[i]]), 0.45}, {std::string(kResourceNames[kSecond[i]]), 0.15}},
                           {fmt::format("W{}", i + 1)}));
  }
  json capacity;
  for (uint32_t r = 0; r < kNumResources; ++r) capacity[std::string(kResourceNames[r])] = 1;
  return ParseWorkload(OneJobDoc(json::array({{{"name", "m"}, {"capacity", capacity}}}), stages).dump());
}

}  // namespace weft
