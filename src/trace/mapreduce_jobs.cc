#include "trace/mapreduce_jobs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "core/status.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "model/resources.h"

namespace weft {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

absl::Status Bad(const std::string& field, std::string_view why) {
  return absl::InvalidArgumentError(fmt::format("{}: {}", field, why));
}

absl::Status KnownKeys(const json& obj, const std::string& where, std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return Bad(where.empty() ? key : where + "." + key, "unknown field");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<const json*> Object(const json& parent, const std::string& where, const char* key, bool required) {
  const std::string field = where.empty() ? key : where + "." + key;
  if (!parent.contains(key)) {
    if (required) return Bad(field, "missing");
    return nullptr;
  }
  if (!parent[key].is_object()) return Bad(field, "must be an object");
  return &parent[key];
}

// Number: a finite number > 0 (or >= 0 with allow_zero); `dflt` when absent
// and not required.
absl::StatusOr<double> Number(const json& obj, const std::string& where, const char* key, bool required,
                              bool allow_zero, double dflt = 0) {
  const std::string field = where + "." + key;
  if (!obj.contains(key)) {
    if (required) return Bad(field, "missing");
    return dflt;
  }
  const json& v = obj[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 ||
      (!allow_zero && v.get<double>() == 0)) {
    return Bad(field, allow_zero ? "must be a number >= 0" : "must be a number > 0");
  }
  return v.get<double>();
}

absl::StatusOr<uint64_t> Count(const json& obj, const std::string& where, const char* key) {
  const std::string field = where + "." + key;
  if (!obj.contains(key)) return Bad(field, "missing");
  const json& v = obj[key];
  if (!v.is_number_unsigned() || v.get<uint64_t>() < 1 || v.get<uint64_t>() > 100'000'000) {
    return Bad(field, "must be a whole number >= 1");
  }
  return v.get<uint64_t>();
}

absl::StatusOr<std::string> Text(const json& obj, const std::string& where, const char* key, bool required) {
  const std::string field = where + "." + key;
  if (!obj.contains(key)) {
    if (required) return Bad(field, "missing");
    return std::string();
  }
  if (!obj[key].is_string() || obj[key].get<std::string>().empty()) return Bad(field, "must be a non-empty string");
  return obj[key].get<std::string>();
}

// Vector: a resource vector ({"cpu": 0.6, "disk": 45}), copied as given.
absl::StatusOr<ordered_json> Vector(const json& obj, const std::string& where, const char* key, bool required) {
  ASSIGN_OR_RETURN(const json* v, Object(obj, where, key, required));
  if (v == nullptr) return ordered_json();
  ordered_json out = ordered_json::object();
  for (const auto& [name, amount] : v->items()) {
    const std::string field = fmt::format("{}.{}.{}", where, key, name);
    if (std::find(kResourceNames.begin(), kResourceNames.end(), name) == kResourceNames.end()) {
      return Bad(field, fmt::format("not a resource (one of {})", fmt::join(kResourceNames, ", ")));
    }
    if (!amount.is_number() || !std::isfinite(amount.get<double>()) || amount.get<double>() < 0) {
      return Bad(field, "must be a number >= 0");
    }
    out[name] = amount;
  }
  return out;
}

// Profile: "demand" (required) and "usage" (optional) of `obj`, added to `out`.
absl::Status Profile(const json& obj, const std::string& where, ordered_json& out) {
  ASSIGN_OR_RETURN(ordered_json demand, Vector(obj, where, "demand", true));
  ASSIGN_OR_RETURN(ordered_json usage, Vector(obj, where, "usage", false));
  out["demand"] = std::move(demand);
  if (!usage.is_null()) out["usage"] = std::move(usage);
  return absl::OkStatus();
}

// Millis: seconds rounded to whole milliseconds, as the seeded generator's.
double Millis(double seconds) { return std::round(seconds * 1000.0) / 1000.0; }

// A class, checked once: its map stage without tasks and duration, and its
// reduce stage (null for map-only classes) with each phase's share of the
// job's reduce_s (empty: one profile).
struct Class {
  ordered_json map;
  ordered_json reduce;
  std::vector<double> shares;
};

absl::StatusOr<Class> ReadClass(const std::string& name, const json& c) {
  const std::string where = "classes." + name;
  if (!c.is_object()) return Bad(where, "must be an object");
  RETURN_IF_ERROR(KnownKeys(c, where, {"map", "reduce"}));
  Class out;
  ASSIGN_OR_RETURN(const json* map, Object(c, where, "map", true));
  RETURN_IF_ERROR(KnownKeys(*map, where + ".map", {"demand", "usage"}));
  out.map = {{"name", "map"}, {"kind", "map"}};
  RETURN_IF_ERROR(Profile(*map, where + ".map", out.map));
  ASSIGN_OR_RETURN(const json* reduce, Object(c, where, "reduce", false));
  if (reduce == nullptr) return out;
  const std::string rw = where + ".reduce";
  RETURN_IF_ERROR(KnownKeys(*reduce, rw, {"tasks", "edge", "slowstart", "shuffle_mb", "demand", "usage", "phases"}));
  ASSIGN_OR_RETURN(const uint64_t tasks, Count(*reduce, rw, "tasks"));
  ASSIGN_OR_RETURN(const std::string edge, Text(*reduce, rw, "edge", false));
  if (!edge.empty() && edge != "shuffle" && edge != "barrier") return Bad(rw + ".edge", "must be shuffle or barrier");
  const bool barrier = edge == "barrier";
  if (barrier && (reduce->contains("slowstart") || reduce->contains("shuffle_mb"))) {
    return Bad(rw + (reduce->contains("slowstart") ? ".slowstart" : ".shuffle_mb"), "only for a shuffle edge");
  }
  ASSIGN_OR_RETURN(const double slowstart, Number(*reduce, rw, "slowstart", false, false, 1.0));
  if (slowstart > 1) return Bad(rw + ".slowstart", "must be a fraction in (0, 1]");
  ASSIGN_OR_RETURN(const double shuffle_mb, Number(*reduce, rw, "shuffle_mb", false, true));
  out.reduce = {{"name", "reduce"}, {"kind", "reduce"}, {"tasks", tasks}};
  if (barrier) {
    out.reduce["after"] = ordered_json::array({"map"});
  } else {
    ordered_json e = {{"stage", "map"}, {"kind", "shuffle"}, {"slowstart", slowstart}};
    if (shuffle_mb > 0) e["shuffle_mb"] = shuffle_mb;
    out.reduce["after"] = ordered_json::array({std::move(e)});
  }
  if (!reduce->contains("phases")) {
    RETURN_IF_ERROR(Profile(*reduce, rw, out.reduce));
    return out;
  }
  if (reduce->contains("demand") || reduce->contains("usage")) {
    return Bad(rw + (reduce->contains("demand") ? ".demand" : ".usage"), "give phases or one profile, not both");
  }
  const json& phases = (*reduce)["phases"];
  if (!phases.is_array() || phases.empty()) return Bad(rw + ".phases", "must be a non-empty list");
  ordered_json list = ordered_json::array();
  double total = 0;
  for (size_t i = 0; i < phases.size(); ++i) {
    const std::string pw = fmt::format("{}.phases[{}]", rw, i);
    const json& p = phases[i];
    if (!p.is_object()) return Bad(pw, "must be an object");
    RETURN_IF_ERROR(KnownKeys(p, pw, {"name", "share", "demand", "usage"}));
    ordered_json phase = ordered_json::object();
    ASSIGN_OR_RETURN(const std::string pname, Text(p, pw, "name", false));
    if (!pname.empty()) phase["name"] = pname;
    ASSIGN_OR_RETURN(const double share, Number(p, pw, "share", true, false));
    RETURN_IF_ERROR(Profile(p, pw, phase));
    out.shares.push_back(share);
    total += share;
    list.push_back(std::move(phase));
  }
  if (std::abs(total - 1) > 1e-9) {
    return Bad(rw + ".phases", fmt::format("the shares must add up to 1, not {:g}", total));
  }
  out.reduce["phases"] = std::move(list);
  return out;
}

}  // namespace

absl::StatusOr<ordered_json> MapReduceJobsJson(std::string_view spec_text, const MapReduceSpec& cluster) {
  const json spec = json::parse(spec_text, nullptr, /*allow_exceptions=*/false);
  if (spec.is_discarded()) return Bad("spec", "not valid JSON");
  if (!spec.is_object()) return Bad("spec", "must be a JSON object");
  RETURN_IF_ERROR(KnownKeys(spec, "", {"classes", "jobs"}));
  ASSIGN_OR_RETURN(const json* classes, Object(spec, "", "classes", true));
  std::map<std::string, Class> by_name;
  for (const auto& [name, c] : classes->items()) {
    ASSIGN_OR_RETURN(by_name[name], ReadClass(name, c));
  }
  if (!spec.contains("jobs")) return Bad("jobs", "missing");
  if (!spec["jobs"].is_array() || spec["jobs"].empty()) return Bad("jobs", "must be a non-empty list");
  ordered_json jobs = ordered_json::array();
  std::set<std::string> names;
  for (size_t j = 0; j < spec["jobs"].size(); ++j) {
    const std::string where = fmt::format("jobs[{}]", j);
    const json& in = spec["jobs"][j];
    if (!in.is_object()) return Bad(where, "must be an object");
    RETURN_IF_ERROR(KnownKeys(in, where, {"name", "class", "arrival", "deadline", "user", "maps", "map_s", "reduce_s"}));
    ASSIGN_OR_RETURN(const std::string name, Text(in, where, "name", true));
    if (!names.insert(name).second) return Bad(where + ".name", fmt::format("\"{}\" is given twice", name));
    ASSIGN_OR_RETURN(const std::string class_name, Text(in, where, "class", true));
    auto c = by_name.find(class_name);
    if (c == by_name.end()) return Bad(where + ".class", fmt::format("no class \"{}\"", class_name));
    ASSIGN_OR_RETURN(const double arrival, Number(in, where, "arrival", true, true));
    ASSIGN_OR_RETURN(const double deadline, Number(in, where, "deadline", false, false));
    ASSIGN_OR_RETURN(const std::string user, Text(in, where, "user", false));
    ASSIGN_OR_RETURN(const uint64_t maps, Count(in, where, "maps"));
    ASSIGN_OR_RETURN(const double map_s, Number(in, where, "map_s", true, false));
    const bool reduces = !c->second.reduce.is_null();
    if (!reduces && in.contains("reduce_s")) return Bad(where + ".reduce_s", "its class has no reduce stage");
    ASSIGN_OR_RETURN(const double reduce_s, Number(in, where, "reduce_s", reduces, false));

    ordered_json map = c->second.map;
    map["tasks"] = maps;
    map["duration"] = map_s;
    ordered_json stages = ordered_json::array({std::move(map)});
    if (reduces) {
      ordered_json reduce = c->second.reduce;
      if (c->second.shares.empty()) {
        reduce["duration"] = reduce_s;
      } else {
        for (size_t k = 0; k < c->second.shares.size(); ++k) {
          const double d = Millis(c->second.shares[k] * reduce_s);
          if (d <= 0) return Bad(where + ".reduce_s", fmt::format("phase {} would last under 1 ms", k));
          reduce["phases"][k]["duration"] = d;
        }
      }
      stages.push_back(std::move(reduce));
    }
    ordered_json job = {{"name", name}, {"arrival", arrival}};
    if (!user.empty()) job["user"] = user;
    if (deadline > 0) job["deadline"] = deadline;
    job["stages"] = std::move(stages);
    jobs.push_back(std::move(job));
  }
  return ordered_json{{"weft", 1}, {"cluster", MapReduceClusterJson(cluster)}, {"jobs", std::move(jobs)}};
}

}  // namespace weft
