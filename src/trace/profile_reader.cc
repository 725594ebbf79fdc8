#include "trace/profile_reader.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace weft {

namespace {

using json = nlohmann::json;

absl::Status Bad(const std::string& where, const std::string& what) {
  return absl::InvalidArgumentError(fmt::format("{}: {}", where, what));
}

absl::Status KnownKeys(const json& object, const std::set<std::string>& known, const std::string& where,
                       const std::string& field) {
  for (const auto& [key, value] : object.items()) {
    if (known.count(key) == 0) {
      return Bad(where, field.empty() ? fmt::format("unknown field \"{}\"", key)
                                      : fmt::format("\"{}\" has unknown field \"{}\"", field, key));
    }
  }
  return absl::OkStatus();
}

// NonNegative reads object[key] into *out when present: a finite number >= 0.
absl::Status NonNegative(const json& object, const char* key, const std::string& where, const std::string& name,
                         double* out) {
  if (!object.contains(key)) return absl::OkStatus();
  const json& v = object[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    return Bad(where, fmt::format("\"{}\" must be a number >= 0, not {}", name, v.dump()));
  }
  *out = v.get<double>();
  return absl::OkStatus();
}

struct Field {
  const char* key;
  double* out;
};

// Section reads {"key": number, ...} sections such as "cpu": {"oversubscription_loss": 0.1}.
absl::Status Section(const json& doc, const char* section, std::initializer_list<Field> fields,
                     const std::string& where) {
  if (!doc.contains(section)) return absl::OkStatus();
  const json& s = doc[section];
  if (!s.is_object()) return Bad(where, fmt::format("\"{}\" must be an object", section));
  std::set<std::string> known;
  for (const Field& f : fields) known.insert(f.key);
  if (absl::Status st = KnownKeys(s, known, where, section); !st.ok()) return st;
  for (const Field& f : fields) {
    if (absl::Status st = NonNegative(s, f.key, where, fmt::format("{}.{}", section, f.key), f.out); !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MachineProfile> ParseMachineProfile(const std::string& text, const std::string& where) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Bad(where, "not valid JSON");
  if (!doc.is_object()) return Bad(where, "must be a JSON object");
  if (absl::Status s = KnownKeys(
          doc, {"weft_profile", "name", "launch_s", "scheduler", "containers", "cpu", "disk", "memory"}, where, "");
      !s.ok()) {
    return s;
  }
  if (!doc.contains("weft_profile") || doc["weft_profile"] != 1) {
    return Bad(where, "\"weft_profile\" must be 1 (the profile format's version)");
  }
  MachineProfile p;
  if (doc.contains("name")) {
    if (!doc["name"].is_string() || doc["name"].get<std::string>().empty() || doc["name"].get<std::string>().size() > 256) {
      return Bad(where, "\"name\" must be a non-empty string of at most 256 bytes");
    }
    p.name = doc["name"].get<std::string>();
  }
  for (absl::Status s :
       {NonNegative(doc, "launch_s", where, "launch_s", &p.launch_s),
        Section(doc, "scheduler", {{"decision_s", &p.decision_s}, {"message_s", &p.message_s}}, where),
        Section(doc, "containers", {{"heartbeat_s", &p.heartbeat_s}}, where),
        Section(doc, "cpu", {{"oversubscription_loss", &p.cpu_oversubscription_loss}}, where),
        Section(doc, "disk", {{"stream_loss", &p.disk_stream_loss}}, where),
        Section(doc, "memory", {{"paging_slowdown", &p.paging_slowdown}}, where)}) {
    if (!s.ok()) return s;
  }
  for (double seconds : {p.launch_s, p.decision_s, p.message_s, p.heartbeat_s}) {
    if (seconds > 3600) return Bad(where, "a time above 3600 s is not a machine's");
  }
  for (double factor : {p.cpu_oversubscription_loss, p.disk_stream_loss, p.paging_slowdown}) {
    if (factor > 1e6) return Bad(where, "a loss or slowdown above 1e6 is not a machine's");
  }
  return p;
}

absl::StatusOr<MachineProfile> ReadMachineProfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(fmt::format("cannot read the profile {}", path));
  constexpr size_t kMaxBytes = 1 << 20;  // a profile is a few lines: never read /dev/zero to the end
  std::string text(kMaxBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxBytes) return Bad(path, "larger than 1 MiB: not a profile");
  return ParseMachineProfile(text, path);
}

}  // namespace weft
