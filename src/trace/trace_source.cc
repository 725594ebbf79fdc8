#include "trace/trace_source.h"

#include <cmath>
#include <filesystem>

#include "core/status.h"
#include "fmt/format.h"
#include "trace/row_reader.h"

namespace weft {
namespace {

using nlohmann::json;

// StableHash: FNV-1a, the same on every machine and run, so a sample depends
// only on the job's name and the seed.
uint64_t StableHash(std::string_view text, uint64_t seed) {
  uint64_t h = 14695981039346656037ull ^ (seed * 0x9E3779B97F4A7C15ull);
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  // Finish with splitmix64's mixer: FNV's low bits alone are poorly spread.
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

// The users' mapping hashes a job's name with this salt (any fixed value).
constexpr uint64_t kUsersSalt = 0x75736572;  // "user"

}  // namespace

absl::Status ParseWindow(std::string_view text, TraceOptions& options) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError(fmt::format("--window \"{}\": write START:END in seconds", text));
  }
  const std::string_view start = text.substr(0, colon), end = text.substr(colon + 1);
  double s = 0, e = std::numeric_limits<double>::infinity();
  if (!start.empty()) {
    const std::optional<double> v = ParseFiniteNumber(start);
    if (!v || *v < 0) return absl::InvalidArgumentError(fmt::format("--window \"{}\": START must be seconds >= 0", text));
    s = *v;
  }
  if (!end.empty()) {
    const std::optional<double> v = ParseFiniteNumber(end);
    if (!v || *v <= s) return absl::InvalidArgumentError(fmt::format("--window \"{}\": END must be seconds > START", text));
    e = *v;
  }
  options.window_start_s = s;
  options.window_end_s = e;
  return absl::OkStatus();
}

void TraceReport::Skip(std::string_view reason, uint64_t n, std::string_view example) {
  if (n == 0) return;
  for (auto& [why, count] : skipped_) {
    if (why == reason) {
      count.n += n;
      if (count.example.empty()) count.example = std::string(example);
      return;
    }
  }
  skipped_.push_back({std::string(reason), Count{n, std::string(example)}});
}

void TraceReport::Note(std::string_view what, uint64_t n) {
  if (n == 0) return;
  for (auto& [w, count] : notes_) {
    if (w == what) {
      count += n;
      return;
    }
  }
  notes_.push_back({std::string(what), n});
}

uint64_t TraceReport::skipped(std::string_view reason) const {
  for (const auto& [why, count] : skipped_) {
    if (why == reason) return count.n;
  }
  return 0;
}

uint64_t TraceReport::noted(std::string_view what) const {
  for (const auto& [w, count] : notes_) {
    if (w == what) return count;
  }
  return 0;
}

std::vector<std::string> TraceReport::Lines() const {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("read: {} rows, {} jobs assembled, {} jobs and {} tasks kept", rows, jobs, jobs_written,
                              tasks_written));
  for (const auto& [why, count] : skipped_) {
    lines.push_back(fmt::format("skipped: {} {}{}", count.n, why,
                                count.example.empty() ? "" : fmt::format(" (e.g. {})", count.example)));
  }
  for (const auto& [what, n] : notes_) lines.push_back(fmt::format("note: {} {}", n, what));
  return lines;
}

absl::Status WorkloadBuilderSink::Cluster(const json& cluster) { return builder_.SetCluster(cluster); }

absl::Status WorkloadBuilderSink::Job(const json& job) {
  absl::Status status = builder_.AddJob(job);
  // The emitter and readers checked everything the builder checks, so a
  // refusal here is a bug in a reader, not bad input.
  if (!status.ok()) return absl::InternalError(fmt::format("trace reader built an invalid job: {}", StatusMessage(status)));
  return status;
}

JsonWorkloadWriter::JsonWorkloadWriter(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {}

JsonWorkloadWriter::~JsonWorkloadWriter() {
  if (!finished_) {
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(tmp_, ignored);
  }
}

absl::Status JsonWorkloadWriter::Cluster(const json& cluster) {
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) return absl::InvalidArgumentError(fmt::format("{}: cannot write", path_));
  out_ << "{\"weft\": 1,\n \"cluster\": " << cluster.dump() << ",\n \"jobs\": [";
  return absl::OkStatus();
}

absl::Status JsonWorkloadWriter::Job(const json& job) {
  out_ << (first_job_ ? "\n  " : ",\n  ") << job.dump();
  first_job_ = false;
  if (!out_) return absl::InvalidArgumentError(fmt::format("{}: cannot write", path_));
  return absl::OkStatus();
}

absl::Status JsonWorkloadWriter::Finish() {
  out_ << "\n ]}\n";
  out_.close();
  if (!out_) return absl::InvalidArgumentError(fmt::format("{}: cannot write", path_));
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) return absl::InvalidArgumentError(fmt::format("{}: cannot write: {}", path_, ec.message()));
  finished_ = true;
  return absl::OkStatus();
}

json MachineGroup(std::string_view name, uint64_t count, const json& capacity) {
  return {{"name", name}, {"count", count}, {"rack_size", std::min<uint64_t>(count, 40)}, {"capacity", capacity}};
}

absl::Status TraceEmitter::Cluster(json groups) {
  if (options_.machines > 0) {
    // The largest group's capacity: by cpu, then mem, so the choice is stable.
    const json* largest = &groups.front();
    for (const json& g : groups) {
      const json& c = g["capacity"];
      const json& l = (*largest)["capacity"];
      if (std::make_pair(c.value("cpu", 0.0), c.value("mem", 0.0)) > std::make_pair(l.value("cpu", 0.0), l.value("mem", 0.0))) {
        largest = &g;
      }
    }
    groups = json::array({MachineGroup("m", options_.machines, (*largest)["capacity"])});
  }
  for (const json& g : groups) capacities_.push_back(g["capacity"]);
  has_cluster_ = true;
  return sink_.Cluster(json{{"machines", std::move(groups)}});
}

bool TraceEmitter::Fits(const json& demand) const {
  for (const json& capacity : capacities_) {
    bool fits = true;
    for (const auto& [resource, amount] : demand.items()) {
      if (amount.get<double>() > capacity.value(resource, 0.0)) fits = false;
    }
    if (fits) return true;
  }
  return false;
}

absl::Status TraceEmitter::Job(json job, double arrival_s) {
  if (!has_cluster_) return absl::InternalError("trace reader gave a job before the cluster");
  ++report_.jobs;
  const std::string& name = job["name"].get_ref<const std::string&>();
  if (arrival_s < options_.window_start_s || arrival_s >= options_.window_end_s) {
    report_.Skip(kSkipWindow, 1, name);
    return absl::OkStatus();
  }
  if (options_.sample < 1 &&
      static_cast<double>(StableHash(name, options_.seed) >> 11) * 0x1.0p-53 >= options_.sample) {
    report_.Skip(kSkipSample, 1, name);
    return absl::OkStatus();
  }
  uint64_t tasks = 0;
  for (const json& stage : job["stages"]) {
    if (stage.contains("demand") && !Fits(stage["demand"])) {
      report_.Skip(kSkipTooLarge, 1, name);
      return absl::OkStatus();
    }
    tasks += stage["tasks"].get<uint64_t>();
  }
  if (!names_.insert(name).second) {
    return absl::InvalidArgumentError(fmt::format("job \"{}\" appears twice in the trace (a file given twice?)", name));
  }
  job["arrival"] = (arrival_s - options_.window_start_s) / options_.scale_arrivals;
  if (options_.users > 0) {
    const auto user = job.find("user");
    if (user == job.end() || !user->is_string() || user->get_ref<const std::string&>() == "default") {
      // A fixed salt, not the sample's seed: the mapping is the same in every run.
      job["user"] = fmt::format("u{}", StableHash(name, kUsersSalt) % options_.users);
      report_.Note(kNoteUsers);
    }
  }
  ++report_.jobs_written;
  report_.tasks_written += tasks;
  return sink_.Job(job);
}

}  // namespace weft
