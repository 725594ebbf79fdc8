#include "trace/random_workload.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/random.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "trace/workload_reader.h"

namespace weft {
namespace {

using nlohmann::json;

enum class Shape { kSingle, kChain, kDiamond, kFanOut, kFanIn, kRandom };

// Amounts are drawn from short menus of round numbers so that generated files
// stay readable and sums of demands are exact.
constexpr std::array<double, 4> kCpuMenu = {1, 2, 4, 8};
constexpr std::array<double, 4> kMemMenu = {2, 4, 8, 16};
constexpr std::array<double, 3> kDiskMenu = {50, 100, 200};
constexpr std::array<double, 3> kNetMenu = {100, 250, 1000};
constexpr std::array<double, 4> kUserWeights = {0.5, 1, 2, 3};

template <typename T, size_t N>
T Pick(Rng& rng, const std::array<T, N>& menu) {
  return menu[rng.UniformInt(N)];
}

// Between(lo, hi): an integer uniform in [lo, hi].
uint32_t Between(Rng& rng, uint32_t lo, uint32_t hi) {
  return hi <= lo ? lo : lo + static_cast<uint32_t>(rng.UniformInt(hi - lo + 1));
}

// Millis rounds seconds to whole milliseconds, at least one.
double Millis(double seconds) { return std::max(1.0, std::round(seconds * 1000.0)) / 1000.0; }

struct MachineGroup {
  std::string name;
  uint32_t count = 1;
  std::array<double, kNumResources> capacity{};
};

std::vector<MachineGroup> DrawCluster(Rng& rng, const RandomWorkloadOptions& o, json& doc) {
  std::vector<MachineGroup> groups;
  uint32_t machines = 0;
  const uint32_t num_groups = Between(rng, 1, 3);
  for (uint32_t g = 0; g < num_groups && machines < std::max(1u, o.max_machines); ++g) {
    MachineGroup group;
    group.name = std::string(1, static_cast<char>('a' + g));  // machines a, b0, b1, c, ...
    group.count = std::min(Between(rng, 1, 2), std::max(1u, o.max_machines) - machines);
    group.capacity = {Pick(rng, kCpuMenu), Pick(rng, kMemMenu), Pick(rng, kDiskMenu), Pick(rng, kNetMenu)};
    machines += group.count;
    json capacity;
    for (int r = 0; r < kNumResources; ++r) capacity[std::string(kResourceNames[r])] = group.capacity[r];
    doc["cluster"]["machines"].push_back(
        {{"name", group.name}, {"count", group.count}, {"rack_size", Between(rng, 1, group.count)},
         {"capacity", capacity}});
    groups.push_back(std::move(group));
  }
  return groups;
}

std::vector<std::string> MachineNames(const std::vector<MachineGroup>& groups) {
  std::vector<std::string> names;
  for (const MachineGroup& g : groups) {
    for (uint32_t i = 0; i < g.count; ++i) names.push_back(g.count > 1 ? fmt::format("{}{}", g.name, i) : g.name);
  }
  return names;
}

// DrawParents returns, per stage, the indices of its parent stages (always
// earlier stages, so the DAG is acyclic by construction).
std::vector<std::vector<uint32_t>> DrawParents(Rng& rng, const RandomWorkloadOptions& o) {
  const uint32_t max_stages = std::max(1u, o.max_stages);
  const auto shape = static_cast<Shape>(rng.UniformInt(6));
  std::vector<std::vector<uint32_t>> parents;
  switch (shape) {
    case Shape::kSingle:
      parents.resize(1);
      break;
    case Shape::kChain:
      parents.resize(Between(rng, std::min(2u, max_stages), max_stages));
      for (uint32_t s = 1; s < parents.size(); ++s) parents[s] = {s - 1};
      break;
    case Shape::kDiamond: {
      // root -> k middle stages -> sink
      const uint32_t middle = max_stages >= 4 ? Between(rng, 2, max_stages - 2) : 1;
      parents.resize(max_stages >= 3 ? middle + 2 : max_stages);
      for (uint32_t s = 1; s + 1 < parents.size(); ++s) parents[s] = {0};
      if (parents.size() >= 3) {
        for (uint32_t s = 1; s + 1 < parents.size(); ++s) parents.back().push_back(s);
      } else if (parents.size() == 2) {
        parents[1] = {0};
      }
      break;
    }
    case Shape::kFanOut:
      parents.resize(Between(rng, std::min(2u, max_stages), max_stages));
      for (uint32_t s = 1; s < parents.size(); ++s) parents[s] = {0};
      break;
    case Shape::kFanIn:
      parents.resize(Between(rng, std::min(2u, max_stages), max_stages));
      for (uint32_t s = 0; s + 1 < parents.size(); ++s) parents.back().push_back(s);
      break;
    case Shape::kRandom:
      parents.resize(Between(rng, 1, max_stages));
      for (uint32_t s = 1; s < parents.size(); ++s) {
        for (uint32_t p = 0; p < s; ++p) {
          if (rng.Bernoulli(0.4)) parents[s].push_back(p);
        }
      }
      break;
  }
  return parents;
}

json DrawDemand(Rng& rng, const MachineGroup& target, std::array<int64_t, kNumResources>& micro) {
  // Fits `target` by construction: each amount is at most its capacity.
  micro = {};
  const std::array<double, 5> fractions = {0.125, 0.25, 0.5, 0.75, 1.0};
  micro[kCpu] = static_cast<int64_t>(target.capacity[kCpu] * Pick(rng, fractions) * 1e6);
  micro[kMem] = static_cast<int64_t>(target.capacity[kMem] * Pick(rng, fractions) * 1e6);
  if (rng.Bernoulli(0.3)) micro[kDisk] = static_cast<int64_t>(target.capacity[kDisk] * Pick(rng, fractions) * 1e6);
  if (rng.Bernoulli(0.3)) micro[kNet] = static_cast<int64_t>(target.capacity[kNet] * Pick(rng, fractions) * 1e6);
  json demand = json::object();
  for (int r = 0; r < kNumResources; ++r) {
    if (micro[r] > 0) demand[std::string(kResourceNames[r])] = static_cast<double>(micro[r]) / 1e6;
  }
  return demand;
}

json DrawStage(Rng& rng, const RandomWorkloadOptions& o, const std::vector<MachineGroup>& groups,
               const std::vector<std::string>& machine_names, uint32_t index, uint32_t tasks) {
  json stage = {{"name", fmt::format("s{}", index)}, {"tasks", tasks}};
  const double max_duration = std::max(0.001, o.max_duration_s);
  if (rng.Bernoulli(o.phases_prob)) {
    constexpr std::array<const char*, 3> kPhaseResources = {"cpu", "net", "disk"};
    const uint32_t n = Between(rng, 1, 3);
    for (uint32_t p = 0; p < n; ++p) {
      const char* resource = kPhaseResources[rng.UniformInt(3)];
      const double work = std::string_view(resource) == "cpu" ? Millis(rng.Uniform() * max_duration)
                                                              : static_cast<double>(Between(rng, 10, 200));
      stage["phases"].push_back({{"resource", resource}, {"work", work}});
    }
  } else {
    stage["duration"] = Millis(rng.Uniform() * max_duration);
    if (tasks > 1 && rng.Bernoulli(o.durations_prob)) {
      for (uint32_t i = 0; i < tasks; ++i) stage["durations"].push_back(Millis(rng.Uniform() * max_duration));
    }
  }
  std::array<int64_t, kNumResources> demand{};
  const MachineGroup& target = groups[rng.UniformInt(groups.size())];
  stage["demand"] = DrawDemand(rng, target, demand);
  if (o.task_demands_prob > 0 && rng.Bernoulli(o.task_demands_prob)) {
    // Every task's demand fits the same group, so their maximum does too.
    stage.erase("demand");
    for (uint32_t i = 0; i < tasks; ++i) {
      std::array<int64_t, kNumResources> own{};
      stage["demands"].push_back(DrawDemand(rng, target, own));
      if (rng.Bernoulli(0.5)) stage["usages"].push_back(json::object());
    }
    if (stage.contains("usages") && stage["usages"].size() != tasks) stage.erase("usages");
  } else if (rng.Bernoulli(o.usage_prob)) {
    json usage = json::object();
    for (int r = 0; r < kNumResources; ++r) {
      if (demand[r] == 0) continue;
      const int64_t quarters = static_cast<int64_t>(Between(rng, 1, 4));
      usage[std::string(kResourceNames[r])] = static_cast<double>(demand[r] * quarters / 4) / 1e6;
    }
    stage["usage"] = usage;
  }
  if (rng.Bernoulli(o.locality_prob)) {
    const uint32_t listed = Between(rng, 1, tasks);
    for (uint32_t i = 0; i < listed; ++i) {
      json prefs = json::array();
      const uint32_t first = static_cast<uint32_t>(rng.UniformInt(machine_names.size()));
      prefs.push_back(machine_names[first]);
      if (machine_names.size() > 1 && rng.Bernoulli(0.5)) {
        const uint32_t second = (first + 1 + static_cast<uint32_t>(rng.UniformInt(machine_names.size() - 1))) %
                                static_cast<uint32_t>(machine_names.size());
        prefs.push_back(machine_names[second]);
      }
      stage["locality"].push_back(prefs);
    }
    if (o.locality_cost) stage["input_mb"] = 16.0 * Between(rng, 1, 8);
  }
  return stage;
}

json DrawJob(Rng& rng, const RandomWorkloadOptions& o, const std::vector<MachineGroup>& groups,
             const std::vector<std::string>& machine_names, uint32_t index) {
  const std::vector<std::vector<uint32_t>> parents = DrawParents(rng, o);
  std::vector<uint32_t> sizes(parents.size());
  json stages = json::array();
  for (uint32_t s = 0; s < parents.size(); ++s) {
    sizes[s] = !parents[s].empty() && rng.Bernoulli(o.same_size_prob) ? sizes[parents[s][0]]
                                                                       : Between(rng, 1, std::max(1u, o.max_tasks));
    json stage = DrawStage(rng, o, groups, machine_names, s, sizes[s]);
    for (uint32_t p : parents[s]) {
      const std::string parent = fmt::format("s{}", p);
      if (sizes[p] == sizes[s] && rng.Bernoulli(o.pipelined_prob)) {
        stage["after"].push_back({{"stage", parent}, {"kind", "pipelined"}});
      } else if (o.shuffle_prob > 0 && rng.Bernoulli(o.shuffle_prob)) {
        stage["after"].push_back({{"stage", parent},
                                  {"kind", "shuffle"},
                                  {"slowstart", o.slowstart > 0 ? o.slowstart : static_cast<double>(Between(rng, 1, 4)) / 4},
                                  {"shuffle_mb", static_cast<double>(rng.UniformInt(3)) * 8}});
      } else {
        stage["after"].push_back(parent);
      }
    }
    stages.push_back(std::move(stage));
  }
  return {{"name", fmt::format("j{}", index)}, {"stages", std::move(stages)}};
}

}  // namespace

std::string RandomWorkloadJson(uint64_t seed, const RandomWorkloadOptions& o) {
  Rng rng(seed);
  json doc = {{"weft", 1}, {"cluster", {{"machines", json::array()}}}, {"jobs", json::array()}};
  const std::vector<MachineGroup> groups = DrawCluster(rng, o, doc);
  if (o.locality_cost) {
    doc["cluster"]["locality_cost"] =
        rng.Bernoulli(0.5) ? json{{"rack_mbps", 25.0 * Between(rng, 2, 8)}, {"cross_rack_mbps", 25.0 * Between(rng, 1, 2)}}
                           : json{{"rack_factor", 1.5}, {"remote_factor", static_cast<double>(Between(rng, 2, 4))}};
  }
  const std::vector<std::string> machine_names = MachineNames(groups);

  struct User {
    double weight;
    int priority;
  };
  std::vector<User> users(Between(rng, 1, 3));
  for (User& u : users) u = {Pick(rng, kUserWeights), static_cast<int>(rng.UniformInt(2))};

  const uint32_t num_jobs = Between(rng, o.min_jobs, std::max(o.min_jobs, o.max_jobs));
  double arrival = 0;
  for (uint32_t j = 0; j < num_jobs; ++j) {
    if (j > 0 && !rng.Bernoulli(0.2)) arrival = Millis(arrival + rng.Exponential(std::max(1e-3, o.mean_interarrival_s)));
    json job = DrawJob(rng, o, groups, machine_names, j);
    const uint32_t u = static_cast<uint32_t>(rng.UniformInt(users.size()));
    job["arrival"] = arrival;
    job["user"] = fmt::format("u{}", u);
    job["weight"] = users[u].weight;
    job["priority"] = users[u].priority + (rng.Bernoulli(0.1) ? 1 : 0);
    if (rng.Bernoulli(o.deadline_prob)) job["deadline"] = static_cast<double>(Between(rng, 5, 60));
    doc["jobs"].push_back(std::move(job));
  }
  return doc.dump();
}

absl::StatusOr<Workload> RandomWorkload(uint64_t seed, const RandomWorkloadOptions& options) {
  return ParseWorkload(RandomWorkloadJson(seed, options));
}

}  // namespace weft
