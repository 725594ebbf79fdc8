#include "trace/google_2019.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "core/status.h"
#include "fmt/format.h"
#include "trace/dag_job.h"
#include "trace/row_reader.h"
#include "trace/task_groups.h"
#include "trace/trace_files.h"

namespace weft {
namespace {

using nlohmann::json;

enum EventType : int64_t { kSubmit = 0, kSchedule = 3, kEvict = 4, kFail = 5, kFinish = 6, kKill = 7, kLost = 8 };
constexpr int64_t kNoTime = -1;

// A JSON row of one table, with typed access that names file, line and field.
class JsonRow {
 public:
  JsonRow(const LineReader& lines, json value) : lines_(lines), value_(std::move(value)) {}

  // Int reads an int64 written as a number or a string; nullopt when absent.
  absl::StatusOr<std::optional<int64_t>> Int(std::string_view key) const {
    const auto it = value_.find(key);
    if (it == value_.end() || it->is_null()) return std::optional<int64_t>();
    if (it->is_number_integer()) return std::optional<int64_t>(it->get<int64_t>());
    if (it->is_string()) {
      if (std::optional<int64_t> v = ParseWholeNumber(it->get_ref<const std::string&>())) return v;
    }
    return lines_.Error(fmt::format("field {}: {} is not a whole number", key, it->dump()));
  }
  absl::StatusOr<int64_t> RequiredInt(std::string_view key) const {
    ASSIGN_OR_RETURN(std::optional<int64_t> v, Int(key));
    if (!v) return lines_.Error(fmt::format("field {} is missing", key));
    return *v;
  }
  // Resources reads {"cpus", "memory"} of `key`; nullopt when absent or partial.
  absl::StatusOr<std::optional<std::pair<double, double>>> Resources(std::string_view key) const {
    const auto it = value_.find(key);
    if (it == value_.end() || it->is_null()) return std::optional<std::pair<double, double>>();
    if (!it->is_object()) return lines_.Error(fmt::format("field {} must be an object", key));
    double out[2] = {0, 0};
    const char* names[2] = {"cpus", "memory"};
    for (int i = 0; i < 2; ++i) {
      const auto f = it->find(names[i]);
      if (f == it->end() || f->is_null()) return std::optional<std::pair<double, double>>();
      if (!f->is_number() || !std::isfinite(f->get<double>()) || f->get<double>() < 0) {
        return lines_.Error(fmt::format("field {}.{}: {} is not a number >= 0", key, names[i], f->dump()));
      }
      out[i] = f->get<double>();
    }
    return std::optional<std::pair<double, double>>({out[0], out[1]});
  }
  const json& value() const { return value_; }
  absl::Status Error(std::string_view what) const { return lines_.Error(what); }

 private:
  const LineReader& lines_;
  json value_;
};

// ForEachJsonRow reads every line of `files` as a JSON object.
template <typename F>
absl::Status ForEachJsonRow(const std::vector<std::string>& files, TraceReport& report, F&& row) {
  for (const std::string& file : files) {
    ASSIGN_OR_RETURN(auto lines, LineReader::Open(file));
    while (true) {
      ASSIGN_OR_RETURN(const bool more, lines->Next());
      if (!more) break;
      ++report.rows;
      json value = json::parse(lines->line(), nullptr, /*allow_exceptions=*/false);
      if (value.is_discarded() || !value.is_object()) {
        return lines->Error("not a JSON object (google-2019 tables are newline-delimited JSON)");
      }
      RETURN_IF_ERROR(row(JsonRow(*lines, std::move(value))));
    }
  }
  return absl::OkStatus();
}

struct Collection {
  std::string user = "default";
  int64_t priority = 0;
  bool alloc_set = false;
  std::vector<int64_t> start_after;
};

struct TaskState {
  int64_t submit_us = kNoTime, schedule_us = kNoTime, run_us = -1, end_event = -1;
  double cpu = -1, mem = -1;
};

struct Usage {
  double cpu_time = 0, mem_time = 0, seconds = 0;
};

using TaskKey = std::pair<int64_t, int64_t>;

class Reader {
 public:
  explicit Reader(TraceEmitter& out) : out_(out), report_(out.report()) {}

  absl::Status Machines(const std::vector<std::string>& files) {
    std::map<int64_t, std::pair<double, double>> machines;
    RETURN_IF_ERROR(ForEachJsonRow(files, report_, [&](const JsonRow& r) -> absl::Status {
      ASSIGN_OR_RETURN(const int64_t id, r.RequiredInt("machine_id"));
      ASSIGN_OR_RETURN(const std::optional<int64_t> type, r.Int("type"));
      ASSIGN_OR_RETURN(const auto capacity, r.Resources("capacity"));
      if (type == 2) {
        machines.erase(id);
      } else if (capacity) {
        machines[id] = *capacity;
      } else {
        report_.Skip("machine events without a capacity");
      }
      return absl::OkStatus();
    }));
    if (machines.empty()) return absl::InvalidArgumentError(fmt::format("{}: no machine with a capacity", files.front()));
    return out_.Cluster(GroupsByCapacity(machines));
  }

  absl::Status Collections(const std::vector<std::string>& files) {
    return ForEachJsonRow(files, report_, [&](const JsonRow& r) -> absl::Status {
      ASSIGN_OR_RETURN(const int64_t id, r.RequiredInt("collection_id"));
      Collection& c = collections_[id];
      ASSIGN_OR_RETURN(const std::optional<int64_t> type, r.Int("collection_type"));
      ASSIGN_OR_RETURN(const std::optional<int64_t> priority, r.Int("priority"));
      if (type) c.alloc_set = *type == 1;
      if (priority) c.priority = *priority;
      if (const auto u = r.value().find("user"); u != r.value().end() && u->is_string() && !u->get<std::string>().empty()) {
        c.user = u->get<std::string>();
      }
      if (const auto s = r.value().find("start_after_collection_ids"); s != r.value().end() && !s->is_null()) {
        if (!s->is_array()) return r.Error("field start_after_collection_ids must be a list");
        c.start_after.clear();
        for (const json& p : *s) {
          std::optional<int64_t> v;
          if (p.is_number_integer()) v = p.get<int64_t>();
          if (p.is_string()) v = ParseWholeNumber(p.get_ref<const std::string&>());
          if (!v) return r.Error(fmt::format("field start_after_collection_ids: {} is not an id", p.dump()));
          c.start_after.push_back(*v);
        }
      }
      return absl::OkStatus();
    });
  }

  absl::Status UsageRows(const std::vector<std::string>& files) {
    return ForEachJsonRow(files, report_, [&](const JsonRow& r) -> absl::Status {
      ASSIGN_OR_RETURN(const int64_t start, r.RequiredInt("start_time"));
      ASSIGN_OR_RETURN(const int64_t end, r.RequiredInt("end_time"));
      ASSIGN_OR_RETURN(const int64_t id, r.RequiredInt("collection_id"));
      ASSIGN_OR_RETURN(const int64_t index, r.RequiredInt("instance_index"));
      ASSIGN_OR_RETURN(const auto used, r.Resources("average_usage"));
      if (!used || end <= start) {
        report_.Skip("instance_usage rows without usage or window");
        return absl::OkStatus();
      }
      Usage& u = usage_[{id, index}];
      const double s = Seconds(end - start);
      u.cpu_time += used->first * s;
      u.mem_time += used->second * s;
      u.seconds += s;
      return absl::OkStatus();
    });
  }

  absl::Status Instances(const std::vector<std::string>& files) {
    return ForEachJsonRow(files, report_, [&](const JsonRow& r) -> absl::Status {
      ASSIGN_OR_RETURN(const int64_t time, r.RequiredInt("time"));
      ASSIGN_OR_RETURN(const int64_t type, r.RequiredInt("type"));
      ASSIGN_OR_RETURN(const int64_t id, r.RequiredInt("collection_id"));
      ASSIGN_OR_RETURN(const int64_t index, r.RequiredInt("instance_index"));
      ASSIGN_OR_RETURN(const std::optional<int64_t> ctype, r.Int("collection_type"));
      ASSIGN_OR_RETURN(const auto request, r.Resources("resource_request"));
      if (type < 0 || type > 10) return r.Error(fmt::format("field type: {} is not 0..10", type));
      if (ctype == 1 || collections_[id].alloc_set) {
        alloc_rows_++;
        return absl::OkStatus();
      }
      TaskState& t = tasks_[{id, index}];
      if (request) {
        t.cpu = request->first;
        t.mem = request->second;
      }
      if (type == kSubmit && t.submit_us == kNoTime) t.submit_us = time;
      if (type == kSchedule) t.schedule_us = time;
      if (type == kFinish) t.run_us = t.schedule_us == kNoTime ? -1 : time - t.schedule_us;
      if (type >= kEvict && type <= kLost) t.end_event = type;
      return absl::OkStatus();
    });
  }

  absl::Status Emit() {
    report_.Skip("instance events of alloc sets (not work)", alloc_rows_);
    // Kept tasks by collection, in collection order.
    std::map<int64_t, std::vector<TraceTask>> kept;
    std::map<int64_t, int64_t> arrival;
    std::vector<TaskKey> keys;
    keys.reserve(tasks_.size());
    for (const auto& [key, t] : tasks_) keys.push_back(key);
    std::sort(keys.begin(), keys.end());
    for (const TaskKey& key : keys) {
      const TaskState& t = tasks_[key];
      const std::string name = fmt::format("collection {} instance {}", key.first, key.second);
      if (t.submit_us == kNoTime) {
        report_.Skip("tasks submitted before the files start", 1, name);
      } else if (t.end_event != kFinish || t.run_us < 0) {
        report_.Skip("tasks not finished in the files (killed, failed, evicted, lost or running)", 1, name);
      } else if (t.cpu < 0) {
        report_.Skip("tasks without a resource request", 1, name);
      } else {
        TraceTask task{.index = key.second, .duration_us = std::max<int64_t>(1, t.run_us), .cpu = t.cpu, .mem = t.mem};
        if (const auto u = usage_.find(key); u != usage_.end() && u->second.seconds > 0) {
          task.has_usage = true;
          task.cpu_used = u->second.cpu_time / u->second.seconds;
          task.mem_used = u->second.mem_time / u->second.seconds;
        }
        kept[key.first].push_back(task);
        auto [it, added] = arrival.try_emplace(key.first, t.submit_us);
        if (!added) it->second = std::min(it->second, t.submit_us);
      }
    }
    tasks_.clear();
    // Workflows: collections joined by start_after (union-find over kept collections).
    std::map<int64_t, int64_t> root;
    for (const auto& [id, tasks] : kept) root[id] = id;
    auto find = [&](int64_t x) {
      while (root[x] != x) x = root[x] = root[root[x]];
      return x;
    };
    for (const auto& [id, tasks] : kept) {
      for (int64_t p : collections_[id].start_after) {
        if (!kept.contains(p)) {
          report_.Note("dependencies on collections with no task kept, dropped");
          continue;
        }
        const int64_t a = find(id), b = find(p);
        root[std::max(a, b)] = std::min(a, b);
      }
    }
    std::map<int64_t, std::vector<int64_t>> workflows;  // root -> collections, ascending
    for (const auto& [id, tasks] : kept) workflows[find(id)].push_back(id);
    for (const auto& [first, members] : workflows) RETURN_IF_ERROR(EmitWorkflow(first, members, kept, arrival));
    return absl::OkStatus();
  }

 private:
  absl::Status EmitWorkflow(int64_t first, const std::vector<int64_t>& members,
                            std::map<int64_t, std::vector<TraceTask>>& kept, const std::map<int64_t, int64_t>& arrival) {
    std::map<int64_t, std::vector<std::string>> stage_ids;
    std::vector<DagStage> stages;
    std::vector<int64_t> stage_collection;
    int64_t arrives = arrival.at(first);
    for (int64_t id : members) {
      for (json& s : BagStages(kept[id], out_.options().stage_per_job, report_)) {
        const std::string sid = members.size() == 1 ? s["name"].get<std::string>()
                                                    : fmt::format("c{}-{}", id, s["name"].get<std::string>());
        s.erase("name");
        stage_ids[id].push_back(sid);
        stages.push_back(DagStage{sid, {}, std::move(s)});
        stage_collection.push_back(id);
      }
      arrives = std::min(arrives, arrival.at(id));
    }
    if (members.size() > 1) report_.Note("workflows of several collections (start_after_collection_ids)");
    for (size_t i = 0; i < stages.size(); ++i) {
      DagStage& stage = stages[i];
      const int64_t id = stage_collection[i];
      for (int64_t child : members) {
        const auto& after = collections_[child].start_after;
        if (std::find(after.begin(), after.end(), id) == after.end()) continue;
        stage.children.insert(stage.children.end(), stage_ids[child].begin(), stage_ids[child].end());
      }
    }
    const Collection& c = collections_[first];
    const std::string name = members.size() == 1 ? std::to_string(first) : fmt::format("wf{}", first);
    return EmitDagJob(out_, {{"name", name}, {"user", c.user}, {"priority", c.priority}}, stages, Seconds(arrives));
  }

  TraceEmitter& out_;
  TraceReport& report_;
  absl::flat_hash_map<int64_t, Collection> collections_;
  absl::flat_hash_map<TaskKey, TaskState> tasks_;
  absl::flat_hash_map<TaskKey, Usage> usage_;
  uint64_t alloc_rows_ = 0;
};

}  // namespace

absl::Status ReadGoogle2019(const std::vector<std::string>& paths, TraceEmitter& out) {
  ASSIGN_OR_RETURN(auto tables, TablesOf(paths, {"collection_events", "instance_events", "machine_events", "instance_usage"},
                                         "google-2019"));
  if (tables["instance_events"].empty()) {
    return absl::InvalidArgumentError(fmt::format("google-2019: no instance_events file under {}", paths.front()));
  }
  Reader reader(out);
  if (!tables["machine_events"].empty()) {
    RETURN_IF_ERROR(reader.Machines(tables["machine_events"]));
  } else {
    RETURN_IF_ERROR(out.Cluster(json::array({MachineGroup("m", 12000, {{"cpu", 1.0}, {"mem", 1.0}})})));
  }
  RETURN_IF_ERROR(reader.Collections(tables["collection_events"]));
  RETURN_IF_ERROR(reader.UsageRows(tables["instance_usage"]));
  RETURN_IF_ERROR(reader.Instances(tables["instance_events"]));
  return reader.Emit();
}

}  // namespace weft
