#include "trace/workload_reader.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "core/status.h"
#include "model/names.h"
#include "nlohmann/json.hpp"
#include "trace/json_fields.h"

namespace weft {
namespace {

using nlohmann::json;

constexpr int kFormatVersion = 1;

// ReaderCountsSoFar's counters (relaxed: a count, not a synchronization).
std::atomic<uint64_t> texts_read{0};
std::atomic<uint64_t> jobs_read{0};

// The checks that depend on the cluster, shared by the first reading of a
// job and by RetargetJob so that both give the same messages.
absl::Status CheckPhaseFits(const FieldReader& r, const Phase& phase, const Cluster& cluster) {
  if (cluster.AnyMachineFits(phase.demand)) return absl::OkStatus();
  return r.Error("phases", fmt::format("\"demand\" ({}) fits no machine of the cluster", phase.demand.ToString()));
}

absl::Status CheckTaskDemandFits(const FieldReader& r, size_t i, const Resources& d, const Cluster& cluster) {
  if (cluster.AnyMachineFits(d)) return absl::OkStatus();
  return r.Error("demands", fmt::format("entry {} ({}) fits no machine of the cluster", i, d.ToString()));
}

// `demand_given`: the stage's object has "demand" (else its demand is its
// tasks' or phases' maximum).
absl::Status CheckStageDemandFits(const FieldReader& r, const Stage& stage, bool demand_given,
                                  const Cluster& cluster) {
  if (cluster.AnyMachineFits(stage.demand)) return absl::OkStatus();
  if (!demand_given && !stage.demands.empty()) {
    // Policies that place by the stage's demand need it to fit somewhere.
    return r.Error("demands", fmt::format("their per-resource maximum ({}) fits no machine of the cluster (the "
                                          "stage's demand, which policies may place by)",
                                          stage.demand.ToString()));
  }
  return r.Error("demand", fmt::format("({}) fits no machine of the cluster", stage.demand.ToString()));
}

// DomRejectingDuplicates builds the document as nlohmann's own SAX-to-DOM
// parser does, and records the first key that appears twice in one object
// (nlohmann would keep the last silently). It replaces the callback parser,
// whose end of every object scans the whole enclosing array for discarded
// values: quadratic in the number of jobs. sax_parse dispatches on this type,
// so the three methods below hide the base's without virtual calls.
class DomRejectingDuplicates : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  using Base = nlohmann::detail::json_sax_dom_parser<json>;
  explicit DomRejectingDuplicates(json& root) : Base(root) {}

  bool start_object(std::size_t elements) {
    // Keys of the open objects, innermost last; an object's keys are few, so
    // a linear search over a reused vector beats a hash set per object.
    open_.emplace_back(keys_.size());
    return Base::start_object(elements);
  }
  bool key(std::string& k) {
    if (duplicate_.empty() &&
        std::find(keys_.begin() + static_cast<std::ptrdiff_t>(open_.back()), keys_.end(), k) != keys_.end()) {
      duplicate_ = k;
    }
    keys_.push_back(k);
    return Base::key(k);
  }
  bool end_object() {
    keys_.resize(open_.back());
    open_.pop_back();
    return Base::end_object();
  }
  const std::string& duplicate() const { return duplicate_; }

 private:
  std::vector<std::string> keys_;  // keys of every open object, outermost first
  std::vector<size_t> open_;       // per open object: where its keys start in keys_
  std::string duplicate_;
};

absl::StatusOr<json> ParseJsonRejectingDuplicates(std::string_view text) {
  json doc;
  DomRejectingDuplicates sax(doc);
  try {
    json::sax_parse(text.begin(), text.end(), &sax);
  } catch (const json::exception& e) {
    // parse_error, or out_of_range for a number beyond double ("1e999").
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
    std::string what = e.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    return absl::InvalidArgumentError("not valid JSON: " + what);
  }
  if (!sax.duplicate().empty()) {
    return absl::InvalidArgumentError(fmt::format("key \"{}\" appears twice in one object", sax.duplicate()));
  }
  return doc;
}

absl::StatusOr<Resources> ReadResources(const FieldReader& r, const json& value, std::string_view field) {
  if (!value.is_object()) return r.Error(field, "must be an object of resource amounts");
  std::array<double, kNumResources> units{};
  for (const auto& [name, amount] : value.items()) {
    const auto resource = ResourceByName(name);
    if (!resource) {
      return r.Error(field, fmt::format("names unknown resource \"{}\" (known: {})", name,
                                            fmt::join(kResourceNames, ", ")));
    }
    if (!amount.is_number() || !std::isfinite(amount.get<double>()) || amount.get<double>() < 0) {
      return r.Error(field, fmt::format("\"{}\" must be a non-negative number", name));
    }
    units[*resource] = amount.get<double>();
  }
  auto res = Resources::FromUnits(units);
  if (!res.ok()) return r.Error(field, StatusMessage(res.status()));
  return res;
}

// ReadUsage reads a usage vector bounded by `demand`: each resource given
// must be at most the demand; resources left out are used as demanded.
absl::StatusOr<Resources> ReadUsage(const FieldReader& r, const json& value, const Resources& demand,
                                    std::string_view field, std::string_view what = "") {
  ASSIGN_OR_RETURN(const Resources usage, ReadResources(r, value, field));
  Resources result = demand;
  for (int k = 0; k < kNumResources; ++k) {
    const auto res = static_cast<Resource>(k);
    if (!value.contains(kResourceNames[k])) continue;
    if (usage.micro(res) > demand.micro(res)) {
      return r.Error(field, fmt::format("{}{} {} exceeds the demand {}", what, kResourceNames[res], usage.units(res),
                                        demand.units(res)));
    }
    result.set_micro(res, usage.micro(res));
  }
  return result;
}

// NonNegativeNumber reads a finite number >= 0; `what` prefixes the message
// (e.g. "\"slowstart\" " for a key nested in a list).
absl::StatusOr<double> NonNegativeNumber(const FieldReader& r, const json& v, std::string_view field,
                                         std::string_view what = "") {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    return r.Error(field, fmt::format("{}must be a number >= 0, not {}", what, v.dump()));
  }
  return v.get<double>();
}

// PerTaskList checks that `value` is a list with one entry per task.
absl::Status PerTaskList(const FieldReader& r, const json& value, std::string_view field, uint32_t tasks,
                         std::string_view what) {
  if (!value.is_array()) return r.Error(field, fmt::format("must be a list of {}, one per task", what));
  if (value.size() != tasks) {
    return r.Error(field, fmt::format("has {} entries but the stage has {} tasks", value.size(), tasks));
  }
  return absl::OkStatus();
}

// ElementwiseMax: per resource, the largest amount of `all`.
Resources ElementwiseMax(const std::vector<Resources>& all) {
  Resources m;
  for (const Resources& x : all) {
    for (int k = 0; k < kNumResources; ++k) {
      const auto res = static_cast<Resource>(k);
      m.set_micro(res, std::max(m.micro(res), x.micro(res)));
    }
  }
  return m;
}

absl::StatusOr<LocalityCost> ReadLocalityCost(const FieldReader& cr, const json& value) {
  constexpr std::string_view kField = "locality_cost";
  if (!value.is_object()) return cr.Error(kField, "must be an object");
  RETURN_IF_ERROR(cr.CheckKnownKeys(value, {"rack_mbps", "cross_rack_mbps", "rack_factor", "remote_factor"}, kField));
  const bool bandwidths = value.contains("rack_mbps") || value.contains("cross_rack_mbps");
  const bool factors = value.contains("rack_factor") || value.contains("remote_factor");
  if (bandwidths && factors) {
    return cr.Error(kField, "gives both bandwidths (rack_mbps, cross_rack_mbps) and factors (rack_factor, "
                            "remote_factor); give one or the other");
  }
  if (!bandwidths && !factors) {
    return cr.Error(kField, "must give rack_mbps and cross_rack_mbps, or rack_factor and remote_factor");
  }
  LocalityCost cost;
  cost.enabled = true;
  if (bandwidths) {
    ASSIGN_OR_RETURN(cost.rack_mbps, cr.PositiveNumber(value, "rack_mbps", kField));
    ASSIGN_OR_RETURN(cost.cross_rack_mbps, cr.PositiveNumber(value, "cross_rack_mbps", kField));
    return cost;
  }
  for (const auto& [key, out] : {std::pair<const char*, double*>{"rack_factor", &cost.rack_factor},
                                 std::pair<const char*, double*>{"remote_factor", &cost.remote_factor}}) {
    if (!value.contains(key)) continue;
    const json& v = value[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 1) {
      return cr.Error(kField, fmt::format("\"{}\" must be a number >= 1, not {}", key, v.dump()));
    }
    *out = v.get<double>();
  }
  return cost;
}

// ReadRackUplink: {"mbps": U} or {"oversubscription": R}, one of the two.
absl::StatusOr<RackUplinks> ReadRackUplink(const FieldReader& cr, const json& value) {
  constexpr std::string_view kField = "rack_uplink";
  if (!value.is_object()) return cr.Error(kField, "must be an object");
  RETURN_IF_ERROR(cr.CheckKnownKeys(value, {"mbps", "oversubscription"}, kField));
  if (value.contains("mbps") == value.contains("oversubscription")) {
    return cr.Error(kField, "must give one of \"mbps\" (each rack's uplink) and \"oversubscription\" (its ratio)");
  }
  RackUplinks uplinks;
  if (value.contains("mbps")) {
    ASSIGN_OR_RETURN(uplinks.mbps, cr.PositiveNumber(value, "mbps", kField));
    return uplinks;
  }
  ASSIGN_OR_RETURN(uplinks.oversubscription, cr.PositiveNumber(value, "oversubscription", kField));
  return uplinks;
}

absl::Status ReadCluster(const json& doc, Workload& w) {
  FieldReader top("");
  if (!doc.contains("cluster")) return top.Error("cluster", "is missing");
  const json& cluster = doc["cluster"];
  FieldReader cr("cluster");
  if (!cluster.is_object()) return top.Error("cluster", "must be an object");
  RETURN_IF_ERROR(cr.CheckKnownKeys(cluster, {"machines", "locality_cost", "rack_uplink"}));
  if (!cluster.contains("machines") || !cluster["machines"].is_array() || cluster["machines"].empty()) {
    return cr.Error("machines", "must be a non-empty list of machine groups");
  }
  uint32_t next_rack = 0;
  absl::flat_hash_set<std::string> names;
  for (const json& group : cluster["machines"]) {
    if (!group.is_object()) return cr.Error("machines", "each group must be an object");
    std::string name;
    if (group.contains("name") && group["name"].is_string()) name = group["name"].get<std::string>();
    FieldReader gr(fmt::format("machine group \"{}\"", name));
    RETURN_IF_ERROR(gr.CheckKnownKeys(group, {"name", "count", "rack_size", "capacity", "swap"}));
    if (name.empty()) return gr.Error("name", "must be a non-empty string");
    ASSIGN_OR_RETURN(const uint64_t count, gr.OptionalCount(group, "count", 1, 10'000'000));
    ASSIGN_OR_RETURN(const uint64_t rack_size, gr.OptionalCount(group, "rack_size", count, 10'000'000));
    if (!group.contains("capacity")) return gr.Error("capacity", "is missing");
    ASSIGN_OR_RETURN(const Resources capacity, ReadResources(gr, group["capacity"], "capacity"));
    int64_t swap_micro = 0;
    if (group.contains("swap")) {
      // GB, as memory: the same bound as a resource amount keeps it exact.
      ASSIGN_OR_RETURN(const double swap, NonNegativeNumber(gr, group["swap"], "swap"));
      if (swap > 1e9) return gr.Error("swap", "must be at most 1e9 GB");
      swap_micro = std::llround(swap * kMicroUnits);
    }
    for (uint64_t i = 0; i < count; ++i) {
      std::string machine_name = count > 1 ? fmt::format("{}{}", name, i) : name;
      if (!names.insert(machine_name).second) {
        return gr.Error("name", fmt::format("machine name \"{}\" is used twice", machine_name));
      }
      w.cluster.AddMachine(std::move(machine_name), RackId(next_rack + static_cast<uint32_t>(i / rack_size)),
                           capacity, swap_micro);
    }
    next_rack += static_cast<uint32_t>((count + rack_size - 1) / rack_size);
  }
  if (cluster.contains("locality_cost")) {
    ASSIGN_OR_RETURN(const LocalityCost cost, ReadLocalityCost(cr, cluster["locality_cost"]));
    w.cluster.set_locality_cost(cost);
  }
  if (cluster.contains("rack_uplink")) {
    ASSIGN_OR_RETURN(const RackUplinks uplinks, ReadRackUplink(cr, cluster["rack_uplink"]));
    w.cluster.set_rack_uplinks(uplinks);
  }
  return absl::OkStatus();
}

// ReadPhase reads one phase: a resource phase ({"resource", "work"}) or a
// profiled one ({"duration", "demand", "usage"}); either may have a "name".
absl::StatusOr<Phase> ReadPhase(const FieldReader& r, const json& p, const Cluster& cluster) {
  if (!p.is_object()) return r.Error("phases", "each phase must be an object");
  RETURN_IF_ERROR(r.CheckKnownKeys(p, {"name", "resource", "work", "duration", "demand", "usage"}, "phases"));
  Phase phase;
  if (p.contains("name")) {
    if (!p["name"].is_string()) return r.Error("phases", "\"name\" must be a string");
    phase.name = p["name"].get<std::string>();
  }
  if (p.contains("duration")) {
    if (p.contains("resource") || p.contains("work")) {
      return r.Error("phases", "a phase has \"duration\" (profiled) or \"resource\" and \"work\", not both");
    }
    phase.profiled = true;
    const json& d = p["duration"];
    if (!d.is_number() || !std::isfinite(d.get<double>()) || d.get<double>() <= 0) {
      return r.Error("phases", fmt::format("\"duration\" must be seconds > 0, not {}", d.dump()));
    }
    ASSIGN_OR_RETURN(phase.duration_us, r.PositiveDurationValue(d, "phases"));
    if (p.contains("demand")) {
      ASSIGN_OR_RETURN(phase.demand, ReadResources(r, p["demand"], "phases"));
      RETURN_IF_ERROR(CheckPhaseFits(r, phase, cluster));
    }
    phase.usage = phase.demand;
    if (p.contains("usage")) {
      ASSIGN_OR_RETURN(phase.usage, ReadUsage(r, p["usage"], phase.demand, "phases", "\"usage\" "));
    }
    return phase;
  }
  if (p.contains("demand") || p.contains("usage")) {
    return r.Error("phases", "\"demand\" and \"usage\" belong to profiled phases (with \"duration\")");
  }
  if (!p.contains("resource") || !p["resource"].is_string()) {
    return r.Error("phases", "each phase needs a \"resource\" name");
  }
  const auto resource = ResourceByName(p["resource"].get<std::string>());
  if (!resource || *resource == kMem) {
    return r.Error("phases", fmt::format("resource \"{}\" is not cpu, net or disk", p["resource"].get<std::string>()));
  }
  phase.resource = *resource;
  ASSIGN_OR_RETURN(phase.work, r.PositiveNumber(p, "work", "phases"));
  return phase;
}

absl::Status ReadPhases(const FieldReader& r, const json& value, const Cluster& cluster, Stage& stage) {
  if (!value.is_array() || value.empty()) return r.Error("phases", "must be a non-empty list");
  for (const json& p : value) {
    ASSIGN_OR_RETURN(Phase phase, ReadPhase(r, p, cluster));
    if (!stage.phases.empty() && stage.phases.front().profiled != phase.profiled) {
      return r.Error("phases", "mixes profiled phases (with \"duration\") and resource phases (with "
                               "\"resource\"); a stage's phases are all of one kind");
    }
    stage.phases.push_back(std::move(phase));
  }
  return absl::OkStatus();
}

absl::Status ReadLocality(const FieldReader& r, const json& value, const Cluster& cluster, Stage& stage) {
  if (!value.is_array()) return r.Error("locality", "must be a list, per task, of lists of machine names");
  if (value.size() > stage.num_tasks) {
    return r.Error("locality", fmt::format("has {} entries but the stage has {} tasks", value.size(),
                                               stage.num_tasks));
  }
  stage.locality.reserve(value.size());
  for (const json& prefs : value) {
    if (!prefs.is_array()) return r.Error("locality", "each entry must be a list of machine names");
    std::vector<MachineId> ids;
    for (const json& name : prefs) {
      if (!name.is_string()) return r.Error("locality", "machine names must be strings");
      const MachineId id = cluster.Find(name.get<std::string>());
      if (!id.valid()) {
        return r.Error("locality", fmt::format("names unknown machine \"{}\"", name.get<std::string>()));
      }
      ids.push_back(id);
    }
    stage.locality.push_back(std::move(ids));
  }
  return absl::OkStatus();
}

// ReadTaskDemands reads the per-task "demands" override.
absl::Status ReadTaskDemands(const FieldReader& r, const json& ds, const Cluster& cluster, Stage& stage) {
  RETURN_IF_ERROR(PerTaskList(r, ds, "demands", stage.num_tasks, "resource objects"));
  stage.demands.reserve(ds.size());
  for (size_t i = 0; i < ds.size(); ++i) {
    ASSIGN_OR_RETURN(const Resources d, ReadResources(r, ds[i], "demands"));
    RETURN_IF_ERROR(CheckTaskDemandFits(r, i, d, cluster));
    stage.demands.push_back(d);
  }
  return absl::OkStatus();
}

// ReadTaskUsages reads the per-task "usages" override, each bounded by its
// task's demand.
absl::Status ReadTaskUsages(const FieldReader& r, const json& us, Stage& stage) {
  RETURN_IF_ERROR(PerTaskList(r, us, "usages", stage.num_tasks, "resource objects"));
  stage.usages.reserve(us.size());
  for (size_t i = 0; i < us.size(); ++i) {
    ASSIGN_OR_RETURN(const Resources u, ReadUsage(r, us[i], stage.TaskDemand(static_cast<uint32_t>(i)), "usages",
                                                  fmt::format("entry {}: ", i)));
    stage.usages.push_back(u);
  }
  return absl::OkStatus();
}

absl::Status ReadInputSizes(const FieldReader& r, const json& s, Stage& stage) {
  if (s.contains("input_mb")) {
    ASSIGN_OR_RETURN(stage.input_mb, NonNegativeNumber(r, s["input_mb"], "input_mb"));
  }
  if (s.contains("input_mbs")) {
    const json& ms = s["input_mbs"];
    RETURN_IF_ERROR(PerTaskList(r, ms, "input_mbs", stage.num_tasks, "MB"));
    stage.input_mbs.reserve(ms.size());
    for (const json& m : ms) {
      ASSIGN_OR_RETURN(const double mb, NonNegativeNumber(r, m, "input_mbs"));
      stage.input_mbs.push_back(mb);
    }
  }
  return absl::OkStatus();
}

// ReadStage reads everything but "after", which needs all stage names first.
absl::Status ReadStage(const FieldReader& r, const json& s, const Cluster& cluster, Stage& stage) {
  RETURN_IF_ERROR(r.CheckKnownKeys(s, {"name", "kind", "tasks", "duration", "durations", "demand", "usage",
                                       "demands", "usages", "input_mb", "input_mbs", "locality", "phases",
                                       "command", "after"}));
  ASSIGN_OR_RETURN(const uint64_t tasks, r.Count(s, "tasks", kMaxWorkloadTasks));
  stage.num_tasks = static_cast<uint32_t>(tasks);
  if (s.contains("kind")) {
    if (!s["kind"].is_string()) return r.Error("kind", "must be a string (e.g. \"map\" or \"reduce\")");
    stage.kind = s["kind"].get<std::string>();
  }
  if (s.contains("phases")) RETURN_IF_ERROR(ReadPhases(r, s["phases"], cluster, stage));
  if (stage.HasProfiledPhases()) {
    // A profiled task's time is its phases' durations; one more figure could
    // only disagree with them.
    for (const char* key : {"duration", "durations"}) {
      if (s.contains(key)) return r.Error(key, "cannot be given with profiled phases (their durations are the task's)");
    }
    // Each phase's demand and usage are the task's while it runs: a
    // per-task or a stage usage could only disagree with them.
    for (const char* key : {"demands", "usages", "usage"}) {
      if (s.contains(key)) return r.Error(key, "cannot be given with profiled phases (each phase has its own)");
    }
  }
  if (s.contains("duration")) {
    ASSIGN_OR_RETURN(stage.duration_us, r.PositiveDuration(s, "duration"));
  } else if (stage.phases.empty()) {
    return r.Error("duration", "is missing (required unless \"phases\" is given)");
  } else {
    stage.duration_us = std::max<TimeUs>(1, PhasesNominalUs(stage.phases, cluster));
    stage.duration_from_phases = true;
  }
  if (s.contains("durations")) {
    const json& ds = s["durations"];
    if (!ds.is_array()) return r.Error("durations", "must be a list of seconds, one per task");
    if (ds.size() != stage.num_tasks) {
      return r.Error("durations",
                     fmt::format("has {} entries but the stage has {} tasks", ds.size(), stage.num_tasks));
    }
    stage.durations_us.reserve(ds.size());
    for (const json& d : ds) {
      ASSIGN_OR_RETURN(const TimeUs us, r.PositiveDurationValue(d, "durations"));
      stage.durations_us.push_back(us);
    }
  }
  if (s.contains("demands")) {
    // Per-task demands and one stage usage could contradict each other; a
    // task's usage is its "usages" entry, else its demand.
    if (s.contains("usage")) return r.Error("usage", "cannot be given with \"demands\" (give \"usages\", per task)");
    RETURN_IF_ERROR(ReadTaskDemands(r, s["demands"], cluster, stage));
  }
  if (s.contains("demand")) {
    ASSIGN_OR_RETURN(stage.demand, ReadResources(r, s["demand"], "demand"));
    // Policies that read only the stage's demand rely on it covering each
    // task's.
    for (size_t i = 0; i < stage.demands.size(); ++i) {
      if (!stage.demands[i].FitsIn(stage.demand)) {
        return r.Error("demand", fmt::format("({}) is less than \"demands\" entry {} ({}); it must cover every task's",
                                             stage.demand.ToString(), i, stage.demands[i].ToString()));
      }
    }
  } else if (!stage.demands.empty()) {
    // The stage then shows the largest of its tasks' demands: an upper bound
    // for policies that look only at the stage.
    stage.demand = ElementwiseMax(stage.demands);
  }
  if (stage.HasProfiledPhases() && s.contains("demand")) {
    // Policies that place by the stage's demand rely on it covering every
    // phase's.
    for (size_t i = 0; i < stage.phases.size(); ++i) {
      if (!stage.phases[i].demand.FitsIn(stage.demand)) {
        return r.Error("demand", fmt::format("({}) is less than phase {}'s demand ({}); it must cover every phase's",
                                             stage.demand.ToString(), i, stage.phases[i].demand.ToString()));
      }
    }
  } else if (stage.HasProfiledPhases()) {
    // A profiled task's peak reservation is its largest phase's.
    std::vector<Resources> phase_demands;
    for (const Phase& p : stage.phases) phase_demands.push_back(p.demand);
    stage.demand = ElementwiseMax(phase_demands);
  }
  stage.usage = stage.demand;
  if (s.contains("usage")) {
    ASSIGN_OR_RETURN(stage.usage, ReadUsage(r, s["usage"], stage.demand, "usage"));
  }
  RETURN_IF_ERROR(CheckStageDemandFits(r, stage, s.contains("demand"), cluster));
  if (s.contains("usages")) RETURN_IF_ERROR(ReadTaskUsages(r, s["usages"], stage));
  RETURN_IF_ERROR(ReadInputSizes(r, s, stage));
  if (s.contains("locality")) RETURN_IF_ERROR(ReadLocality(r, s["locality"], cluster, stage));
  if (s.contains("command")) {
    if (!s["command"].is_string()) return r.Error("command", "must be a string");
    stage.command = s["command"].get<std::string>();
  }
  return absl::OkStatus();
}

// ReadEdgeKind reads an edge object's kind and, for shuffle edges, its slow
// start fraction and shuffle size.
absl::StatusOr<Edge> ReadEdgeKind(const FieldReader& r, const json& entry) {
  Edge edge;
  if (entry.contains("kind")) {
    const json& k = entry["kind"];
    if (k == "pipelined") {
      edge.kind = EdgeKind::kPipelined;
    } else if (k == "shuffle") {
      edge.kind = EdgeKind::kShuffle;
    } else if (k != "barrier") {
      return r.Error("after",
                     fmt::format("edge kind {} is not \"barrier\", \"pipelined\" or \"shuffle\"", k.dump()));
    }
  }
  for (const char* key : {"slowstart", "shuffle_mb"}) {
    if (entry.contains(key) && edge.kind != EdgeKind::kShuffle) {
      return r.Error("after", fmt::format("\"{}\" applies to shuffle edges only (\"kind\": \"shuffle\")", key));
    }
  }
  if (entry.contains("slowstart")) {
    const json& v = entry["slowstart"];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0 || v.get<double>() > 1) {
      return r.Error("after", fmt::format("\"slowstart\" must be a fraction in (0, 1], not {}", v.dump()));
    }
    edge.slowstart = v.get<double>();
  }
  if (entry.contains("shuffle_mb")) {
    ASSIGN_OR_RETURN(edge.shuffle_mb, NonNegativeNumber(r, entry["shuffle_mb"], "after", "\"shuffle_mb\" "));
  }
  return edge;
}

absl::Status ReadEdges(const FieldReader& r, const json& after, Job& job, uint32_t child,
                       const absl::flat_hash_map<std::string, uint32_t>& stage_index) {
  if (!after.is_array()) return r.Error("after", "must be a list of parent stages");
  Stage& stage = job.stages[child];
  for (const json& entry : after) {
    std::string parent_name;
    Edge edge;
    if (entry.is_string()) {
      parent_name = entry.get<std::string>();
    } else if (entry.is_object()) {
      RETURN_IF_ERROR(r.CheckKnownKeys(entry, {"stage", "kind", "slowstart", "shuffle_mb"}, "after"));
      if (!entry.contains("stage") || !entry["stage"].is_string()) {
        return r.Error("after", "each edge object needs a \"stage\" name");
      }
      parent_name = entry["stage"].get<std::string>();
      ASSIGN_OR_RETURN(edge, ReadEdgeKind(r, entry));
    } else {
      return r.Error("after", "entries must be stage names or {\"stage\", \"kind\"} objects");
    }
    auto it = stage_index.find(parent_name);
    if (it == stage_index.end()) {
      return r.Error("after", fmt::format("names unknown stage \"{}\"", parent_name));
    }
    const uint32_t parent = it->second;
    if (parent == child) return r.Error("after", "names the stage itself");
    for (const Edge& e : stage.parents) {
      if (e.stage == parent) return r.Error("after", fmt::format("names stage \"{}\" twice", parent_name));
    }
    if (edge.kind == EdgeKind::kPipelined && job.stages[parent].num_tasks != stage.num_tasks) {
      return r.Error("after", fmt::format("pipelined edge from \"{}\" ({} tasks) needs the same number of "
                                              "tasks as this stage ({})",
                                              parent_name, job.stages[parent].num_tasks, stage.num_tasks));
    }
    edge.stage = parent;
    stage.parents.push_back(edge);
    edge.stage = child;
    job.stages[parent].children.push_back(edge);
  }
  return absl::OkStatus();
}

// CheckShuffleNetwork: a shuffle copies its MB over the network of the
// child task's machine, so every machine needs some network bandwidth.
absl::Status CheckShuffleNetwork(const Job& job, const Cluster& cluster) {
  for (const Stage& stage : job.stages) {
    for (const Edge& e : stage.parents) {
      if (e.shuffle_mb <= 0) continue;
      for (const Machine& m : cluster.machines()) {
        if (m.capacity.micro(kNet) > 0) continue;
        const FieldReader r(fmt::format("job \"{}\" stage \"{}\"", job.name, stage.name));
        return r.Error("after", fmt::format("\"shuffle_mb\" needs network bandwidth on every machine, but machine "
                                            "\"{}\" has no \"net\" capacity", m.name));
      }
    }
  }
  return absl::OkStatus();
}

// TopologicalOrder fills job.topo_order (Kahn's algorithm, lowest index first
// so the order is deterministic) or reports a stage on a cycle.
absl::Status TopologicalOrder(const FieldReader& jr, Job& job) {
  const size_t n = job.stages.size();
  std::vector<uint32_t> indegree(n);
  for (size_t i = 0; i < n; ++i) indegree[i] = static_cast<uint32_t>(job.stages[i].parents.size());
  std::vector<uint32_t> ready;
  for (size_t i = n; i-- > 0;) {
    if (indegree[i] == 0) ready.push_back(static_cast<uint32_t>(i));
  }
  while (!ready.empty()) {
    std::sort(ready.begin(), ready.end(), std::greater<>());
    const uint32_t s = ready.back();
    ready.pop_back();
    job.topo_order.push_back(s);
    for (const Edge& e : job.stages[s].children) {
      if (--indegree[e.stage] == 0) ready.push_back(e.stage);
    }
  }
  if (job.topo_order.size() != n) {
    // A stage left over may only depend on a cycle; walking left-over parents
    // from it must revisit a stage, and that one is on the cycle.
    uint32_t s = static_cast<uint32_t>(std::find_if(indegree.begin(), indegree.end(),
                                                    [](uint32_t d) { return d > 0; }) -
                                       indegree.begin());
    std::vector<bool> seen(n);
    while (!seen[s]) {
      seen[s] = true;
      for (const Edge& e : job.stages[s].parents) {
        if (indegree[e.stage] > 0) {
          s = e.stage;
          break;
        }
      }
    }
    return jr.Error("stages", fmt::format("stage \"{}\" is on a dependency cycle", job.stages[s].name));
  }
  return absl::OkStatus();
}

absl::Status ReadJob(const json& j, Workload& w, absl::flat_hash_map<std::string, UserId>& users,
                     uint64_t& total_tasks, Job& job) {
  jobs_read.fetch_add(1, std::memory_order_relaxed);
  if (!j.is_object()) return absl::InvalidArgumentError("\"jobs\": each job must be an object");
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty()) {
    return absl::InvalidArgumentError(
        fmt::format("job #{}: \"name\" must be a non-empty string", w.jobs.size()));
  }
  job.name = j["name"].get<std::string>();
  const FieldReader jr(fmt::format("job \"{}\"", job.name));
  RETURN_IF_ERROR(jr.CheckKnownKeys(
      j, {"name", "arrival", "user", "priority", "weight", "deadline", "memory_estimate", "stages"}));
  job.arrival_us = 0;
  if (j.contains("arrival")) {
    ASSIGN_OR_RETURN(job.arrival_us, jr.NonNegativeDuration(j, "arrival"));
  }
  std::string user = "default";
  if (j.contains("user")) {
    if (!j["user"].is_string() || j["user"].get<std::string>().empty()) {
      return jr.Error("user", "must be a non-empty string");
    }
    user = j["user"].get<std::string>();
  }
  auto [it, inserted] = users.try_emplace(user, UserId(static_cast<uint32_t>(w.users.size())));
  if (inserted) w.users.push_back(user);
  job.user = it->second;
  if (j.contains("priority")) {
    ASSIGN_OR_RETURN(job.priority, jr.Integer(j, "priority"));
  }
  if (j.contains("weight")) {
    ASSIGN_OR_RETURN(job.weight, jr.PositiveNumber(j, "weight"));
  }
  if (j.contains("deadline")) {
    ASSIGN_OR_RETURN(job.deadline_us, jr.PositiveDuration(j, "deadline"));
  }
  if (j.contains("memory_estimate")) {
    ASSIGN_OR_RETURN(job.memory_estimate_gb, jr.PositiveNumber(j, "memory_estimate"));
  }

  if (!j.contains("stages") || !j["stages"].is_array() || j["stages"].empty()) {
    return jr.Error("stages", "must be a non-empty list");
  }
  absl::flat_hash_map<std::string, uint32_t> stage_index;
  const json& stages = j["stages"];
  job.stages.resize(stages.size());
  for (size_t i = 0; i < stages.size(); ++i) {
    const json& s = stages[i];
    if (!s.is_object()) return jr.Error("stages", "each stage must be an object");
    if (!s.contains("name") || !s["name"].is_string() || s["name"].get<std::string>().empty()) {
      return jr.Error("stages", fmt::format("stage #{}: \"name\" must be a non-empty string", i));
    }
    Stage& stage = job.stages[i];
    stage.name = s["name"].get<std::string>();
    const FieldReader sr(fmt::format("job \"{}\" stage \"{}\"", job.name, stage.name));
    if (!stage_index.emplace(stage.name, static_cast<uint32_t>(i)).second) {
      return sr.Error("name", "is used by two stages of the job");
    }
    RETURN_IF_ERROR(ReadStage(sr, s, w.cluster, stage));
    total_tasks += stage.num_tasks;
    if (total_tasks > kMaxWorkloadTasks) {
      return sr.Error("tasks", fmt::format("brings the workload above {} tasks, more than weft can hold "
                                               "in memory",
                                               kMaxWorkloadTasks));
    }
    job.num_tasks += stage.num_tasks;
  }
  for (size_t i = 0; i < stages.size(); ++i) {
    if (!stages[i].contains("after")) continue;
    const FieldReader sr(fmt::format("job \"{}\" stage \"{}\"", job.name, job.stages[i].name));
    RETURN_IF_ERROR(ReadEdges(sr, stages[i]["after"], job, static_cast<uint32_t>(i), stage_index));
  }
  RETURN_IF_ERROR(TopologicalOrder(jr, job));
  RETURN_IF_ERROR(CheckShuffleNetwork(job, w.cluster));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Workload> ParseWorkload(std::string_view text) {
  ASSIGN_OR_RETURN(const json doc, ParseWorkloadJson(text));
  return ReadWorkloadJson(doc);
}

absl::StatusOr<nlohmann::json> ParseWorkloadJson(std::string_view text) {
  texts_read.fetch_add(1, std::memory_order_relaxed);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return absl::InvalidArgumentError("the file is empty");
  }
  return ParseJsonRejectingDuplicates(text);
}

absl::StatusOr<Workload> ReadWorkloadJson(const nlohmann::json& doc) {
  if (!doc.is_object()) return absl::InvalidArgumentError("a workload must be a JSON object");
  const FieldReader top("");
  RETURN_IF_ERROR(top.CheckKnownKeys(doc, {"weft", "cluster", "jobs"}));
  if (!doc.contains("weft")) return top.Error("weft", "is missing (this reader understands \"weft\": 1)");
  if (!doc["weft"].is_number_integer() || doc["weft"].get<int64_t>() != kFormatVersion) {
    return top.Error("weft", fmt::format("is {} but this reader understands version {} only",
                                             doc["weft"].dump(), kFormatVersion));
  }
  Workload w;
  RETURN_IF_ERROR(ReadCluster(doc, w));
  if (!doc.contains("jobs") || !doc["jobs"].is_array()) return top.Error("jobs", "must be a list of jobs");
  absl::flat_hash_map<std::string, UserId> users;
  absl::flat_hash_set<std::string> job_names;
  uint64_t total_tasks = 0;
  w.jobs.reserve(doc["jobs"].size());
  for (const json& j : doc["jobs"]) {
    Job job;
    RETURN_IF_ERROR(ReadJob(j, w, users, total_tasks, job));
    if (!job_names.insert(job.name).second) {
      return absl::InvalidArgumentError(fmt::format("job \"{}\": \"name\" is used by two jobs", job.name));
    }
    w.jobs.push_back(std::move(job));
  }
  RETURN_IF_ERROR(ValidateNames(w));  // model/names.h: no control characters; shell-safe substituted names
  return w;
}

absl::Status RetargetJob(Job& job, const nlohmann::json& j, const Cluster& from, const Cluster& to) {
  // In ReadJob's order: per stage its phases, its tasks' demands, its
  // demand; then the job's shuffles. Everything else a first reading checked
  // does not depend on the cluster.
  const json& stages = j["stages"];
  for (size_t i = 0; i < job.stages.size(); ++i) {
    Stage& stage = job.stages[i];
    const FieldReader r(fmt::format("job \"{}\" stage \"{}\"", job.name, stage.name));
    for (const Phase& p : stage.phases) {
      if (p.profiled) RETURN_IF_ERROR(CheckPhaseFits(r, p, to));
    }
    for (size_t t = 0; t < stage.demands.size(); ++t) RETURN_IF_ERROR(CheckTaskDemandFits(r, t, stage.demands[t], to));
    RETURN_IF_ERROR(CheckStageDemandFits(r, stage, stages[i].contains("demand"), to));
    if (stage.duration_from_phases) stage.duration_us = std::max<TimeUs>(1, PhasesNominalUs(stage.phases, to));
    // Preferred machines that `to` has, by name, in their order.
    for (std::vector<MachineId>& prefs : stage.locality) {
      std::vector<MachineId> kept;
      for (const MachineId m : prefs) {
        if (const MachineId id = to.Find(from.machine(m).name); id.valid()) kept.push_back(id);
      }
      prefs = std::move(kept);
    }
  }
  return CheckShuffleNetwork(job, to);
}

ReaderCounts ReaderCountsSoFar() {
  return {texts_read.load(std::memory_order_relaxed), jobs_read.load(std::memory_order_relaxed)};
}

absl::Status WorkloadBuilder::SetCluster(const nlohmann::json& cluster) {
  return ReadCluster(json{{"cluster", cluster}}, w_);
}

absl::Status WorkloadBuilder::AddJob(const nlohmann::json& j) {
  Job job;
  RETURN_IF_ERROR(ReadJob(j, w_, users_, total_tasks_, job));
  if (!job_names_.insert(job.name).second) {
    return absl::InvalidArgumentError(fmt::format("job \"{}\": \"name\" is used by two jobs", job.name));
  }
  w_.jobs.push_back(std::move(job));
  return absl::OkStatus();
}

absl::StatusOr<Job> WorkloadBuilder::BuildJob(const nlohmann::json& j) {
  Job job;
  RETURN_IF_ERROR(ReadJob(j, w_, users_, total_tasks_, job));
  return job;
}

absl::StatusOr<Workload> ReadWorkloadFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return absl::InvalidArgumentError(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(path + ": is a directory, not a workload file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(path + ": cannot be opened for reading");
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto w = ParseWorkload(buffer.str());
  if (!w.ok()) return absl::InvalidArgumentError(fmt::format("{}: {}", path, StatusMessage(w.status())));
  return w;
}

}  // namespace weft
