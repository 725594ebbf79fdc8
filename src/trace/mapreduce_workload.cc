#include "trace/mapreduce_workload.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/random.h"
#include "fmt/format.h"
#include "trace/workload_reader.h"

namespace weft {
namespace {

using nlohmann::ordered_json;

// Rounded to whole milliseconds (durations) and kilobytes (sizes) so that
// generated files stay readable; at least one unit.
double Millis(double seconds) { return std::max(1.0, std::round(seconds * 1000.0)) / 1000.0; }
double Kilobytes(double mb) { return std::max(1.0, std::round(mb * 1000.0)) / 1000.0; }

// Replicas: the machines holding one block, placed as HDFS's default policy
// does: the first anywhere, the others on distinct machines of one other rack.
std::vector<uint32_t> Replicas(Rng& rng, const MapReduceSpec& s) {
  const uint32_t racks = (s.machines + s.rack_size - 1) / s.rack_size;
  const uint32_t first = static_cast<uint32_t>(rng.UniformInt(s.machines));
  std::vector<uint32_t> out = {first};
  uint32_t rack = first / s.rack_size;
  if (racks > 1) rack = (rack + 1 + static_cast<uint32_t>(rng.UniformInt(racks - 1))) % racks;
  const uint32_t begin = rack * s.rack_size;
  const uint32_t size = std::min(s.machines, begin + s.rack_size) - begin;
  // At most as many replicas as distinct machines can hold them.
  const uint32_t want = std::min(s.replicas, size + (racks > 1 ? 1u : 0u));
  while (out.size() < want) {
    const uint32_t m = begin + static_cast<uint32_t>(rng.UniformInt(size));
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  }
  return out;
}

ordered_json DrawJob(Rng& rng, const MapReduceSpec& s, uint32_t index, double arrival) {
  const double input_mb =
      Kilobytes(std::exp(std::log(s.min_input_mb) + rng.Uniform() * (std::log(s.max_input_mb) - std::log(s.min_input_mb))));
  const auto maps = static_cast<uint32_t>(std::max(1.0, std::ceil(input_mb / s.block_mb - 1e-9)));
  ordered_json map = {{"name", "map"}, {"kind", "map"}, {"tasks", maps}, {"duration", Millis(s.map_s)}};
  ordered_json durations = ordered_json::array(), inputs = ordered_json::array(), locality = ordered_json::array();
  for (uint32_t i = 0; i < maps; ++i) {
    const double block = i + 1 < maps ? s.block_mb : Kilobytes(input_mb - s.block_mb * (maps - 1));
    durations.push_back(Millis(s.map_s * block / s.block_mb));
    inputs.push_back(block);
    ordered_json where = ordered_json::array();
    for (uint32_t m : Replicas(rng, s)) where.push_back(s.machines > 1 ? fmt::format("m{}", m) : "m");
    locality.push_back(std::move(where));
  }
  map["durations"] = std::move(durations);
  map["demand"] = {{"cpu", 1}, {"mem", 1}};
  map["input_mbs"] = std::move(inputs);
  map["locality"] = std::move(locality);
  ordered_json stages = ordered_json::array({std::move(map)});
  if (s.reduce_ratio > 0) {
    const auto reducers = static_cast<uint32_t>(std::ceil(maps * s.reduce_ratio - 1e-9));
    ordered_json edge = {{"stage", "map"}, {"kind", "shuffle"}, {"slowstart", s.slowstart}};
    if (s.shuffle_ratio > 0) edge["shuffle_mb"] = Kilobytes(s.block_mb * s.shuffle_ratio / reducers);
    stages.push_back({{"name", "reduce"},
                      {"kind", "reduce"},
                      {"tasks", reducers},
                      {"duration", Millis(s.reduce_s)},
                      {"demand", {{"cpu", 1}, {"mem", 2}}},
                      {"after", ordered_json::array({std::move(edge)})}});
  }
  const uint32_t user = s.users == 0 ? index : index % s.users;
  return {{"name", fmt::format("mr{}", index)},
          {"arrival", arrival},
          {"user", fmt::format("u{}", user)},
          {"stages", std::move(stages)}};
}

}  // namespace

absl::Status CheckMapReduceSpec(const MapReduceSpec& s) {
  const auto bad = [](const char* field, const std::string& why) {
    return absl::InvalidArgumentError(fmt::format("--{}: {}", field, why));
  };
  if (s.machines < 1) return bad("machines", "must be at least 1");
  if (s.rack_size < 1) return bad("rack-size", "must be at least 1");
  if (s.jobs < 1) return bad("jobs", "must be at least 1");
  if (s.replicas < 1) return bad("replicas", "must be at least 1");
  for (const auto& [field, v] : {std::pair{"cores", s.cores}, {"mem-gb", s.mem_gb}, {"block-mb", s.block_mb},
                                 {"min-input-mb", s.min_input_mb}, {"map-s", s.map_s}, {"reduce-s", s.reduce_s},
                                 {"mean-interarrival-s", s.mean_interarrival_s}}) {
    if (!(v > 0) || !std::isfinite(v)) return bad(field, fmt::format("must be a number > 0, not {:g}", v));
  }
  if (s.cores < 1) return bad("cores", "must be at least 1 (a task needs one core)");
  if (s.mem_gb < 2) return bad("mem-gb", "must be at least 2 (a reducer needs 2 GB)");
  if (!(s.max_input_mb >= s.min_input_mb) || !std::isfinite(s.max_input_mb)) {
    return bad("max-input-mb", "must be a number >= --min-input-mb");
  }
  for (const auto& [field, v] : {std::pair{"disk-mbps", s.disk_mbps}, {"net-mbps", s.net_mbps},
                                 {"reduce-ratio", s.reduce_ratio}, {"shuffle-ratio", s.shuffle_ratio},
                                 {"rack-mbps", s.rack_mbps}, {"cross-rack-mbps", s.cross_rack_mbps}}) {
    if (!(v >= 0) || !std::isfinite(v)) return bad(field, fmt::format("must be a number >= 0, not {:g}", v));
  }
  if (!(s.slowstart > 0 && s.slowstart <= 1)) return bad("slowstart", "must be a fraction in (0, 1]");
  if ((s.rack_mbps > 0) != (s.cross_rack_mbps > 0)) {
    return bad("rack-mbps", "give both --rack-mbps and --cross-rack-mbps (the locality cost), or neither");
  }
  return absl::OkStatus();
}

ordered_json MapReduceClusterJson(const MapReduceSpec& s) {
  ordered_json cluster = {
      {"machines", ordered_json::array({{{"name", "m"},
                                          {"count", s.machines},
                                          {"rack_size", s.rack_size},
                                          {"capacity",
                                           {{"cpu", s.cores}, {"mem", s.mem_gb}, {"disk", s.disk_mbps},
                                            {"net", s.net_mbps}}}}})}};
  if (s.rack_mbps > 0) cluster["locality_cost"] = {{"rack_mbps", s.rack_mbps}, {"cross_rack_mbps", s.cross_rack_mbps}};
  return cluster;
}

ordered_json MapReduceWorkloadJson(const MapReduceSpec& s) {
  Rng rng(s.seed);
  ordered_json cluster = MapReduceClusterJson(s);
  ordered_json jobs = ordered_json::array();
  double arrival = 0;
  for (uint32_t j = 0; j < s.jobs; ++j) {
    if (j > 0) arrival = Millis(arrival + rng.Exponential(s.mean_interarrival_s));
    jobs.push_back(DrawJob(rng, s, j, j == 0 ? 0.0 : arrival));
  }
  return {{"weft", 1}, {"cluster", std::move(cluster)}, {"jobs", std::move(jobs)}};
}

absl::StatusOr<Workload> MapReduceWorkload(const MapReduceSpec& spec) {
  if (absl::Status s = CheckMapReduceSpec(spec); !s.ok()) return s;
  return ParseWorkload(MapReduceWorkloadJson(spec).dump());
}

}  // namespace weft
