#include "trace/google_2019.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "core/status.h"
#include "fmt/format.h"
#include "trace/dag_job.h"
#include "trace/kept_indexes.h"
#include "trace/row_reader.h"
#include "trace/task_groups.h"
#include "trace/trace_files.h"

namespace weft {
namespace {

using nlohmann::json;

enum EventType : int64_t { kSubmit = 0, kSchedule = 3, kEvict = 4, kFail = 5, kFinish = 6, kKill = 7, kLost = 8 };
constexpr int64_t kNoTime = -1;

constexpr std::string_view kSkipAlloc = "instance events of alloc sets (not work)";
constexpr std::string_view kSkipBeforeFiles = "tasks submitted before the files start";
constexpr std::string_view kSkipUnfinished = "tasks not finished in the files (killed, failed, evicted, lost or running)";
constexpr std::string_view kSkipNoRequest = "tasks without a resource request";

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

// ForEachJsonRow reads every line of `files` as a JSON object, counting them in `count`.
template <typename F>
absl::Status ForEachJsonRow(const std::vector<std::string>& files, uint64_t& count, F&& row) {
  for (const std::string& file : files) {
    ASSIGN_OR_RETURN(auto lines, LineReader::Open(file));
    while (true) {
      ASSIGN_OR_RETURN(const bool more, lines->Next());
      if (!more) break;
      ++count;
      json value = json::parse(lines->line(), nullptr, /*allow_exceptions=*/false);
      if (value.is_discarded() || !value.is_object()) {
        return lines->Error("not a JSON object (google-2019 tables are newline-delimited JSON)");
      }
      RETURN_IF_ERROR(row(JsonRow(*lines, std::move(value))));
    }
  }
  return absl::OkStatus();
}

// What collection_events says of a collection (16 bytes; its
// start_after_collection_ids, which few have, are kept apart).
struct Collection {
  int64_t priority = 0;
  uint32_t user = 0;  // in Reader::users_, 0 = "default"
  bool alloc_set = false;
};

// One instance_events row, checked.
struct InstanceRow {
  int64_t time = 0, type = 0, collection = 0, index = 0;
  std::optional<int64_t> collection_type;
  std::optional<std::pair<double, double>> request;
};

absl::StatusOr<InstanceRow> ParseInstance(const JsonRow& r) {
  InstanceRow row;
  ASSIGN_OR_RETURN(row.time, r.RequiredInt("time"));
  ASSIGN_OR_RETURN(row.type, r.RequiredInt("type"));
  ASSIGN_OR_RETURN(row.collection, r.RequiredInt("collection_id"));
  ASSIGN_OR_RETURN(row.index, r.RequiredInt("instance_index"));
  ASSIGN_OR_RETURN(row.collection_type, r.Int("collection_type"));
  ASSIGN_OR_RETURN(row.request, r.Resources("resource_request"));
  if (row.type < 0 || row.type > 10) return r.Error(fmt::format("field type: {} is not 0..10", row.type));
  return row;
}

// An instance's events, as the rules read them (google-2011's): the first
// SUBMIT, the last SCHEDULE, the last terminal event, FINISH - last SCHEDULE
// at the last FINISH, the last request given. The second pass keeps this
// much of the kept instances of the workflows not passed yet (the first
// pass keeps InstanceFacts of every instance).
struct InstanceState {
  int64_t submit_us = kNoTime, schedule_us = kNoTime, run_us = -1;
  double cpu = -1, mem = -1;
  int64_t end_event = -1;

  void Add(const InstanceRow& row) {
    if (row.request) {
      cpu = row.request->first;
      mem = row.request->second;
    }
    if (row.type == kSubmit && submit_us == kNoTime) submit_us = row.time;
    if (row.type == kSchedule) schedule_us = row.time;
    if (row.type == kFinish) run_us = schedule_us == kNoTime ? -1 : row.time - schedule_us;
    if (row.type >= kEvict && row.type <= kLost) end_event = row.type;
  }
  // SkipReason: why the instance is not kept; empty when it is.
  std::string_view SkipReason() const {
    if (submit_us == kNoTime) return kSkipBeforeFiles;
    if (end_event != kFinish || run_us < 0) return kSkipUnfinished;
    if (cpu < 0) return kSkipNoRequest;
    return {};
  }
};

// The first pass's state of an instance (32 bytes): InstanceState without
// the request's values, with the place of its last row in instance_events.
struct InstanceFacts {
  int64_t submit_us = kNoTime;
  int64_t schedule_us = kNoTime;
  uint64_t last_row = 0;  // 1-based over every instance_events file, in the order read
  int8_t end_event = -1;
  bool ran = false;  // FINISH - last SCHEDULE >= 0 at the last FINISH
  bool requested = false;

  void Add(const InstanceRow& row, uint64_t ordinal) {
    last_row = ordinal;
    requested = requested || row.request.has_value();
    if (row.type == kSubmit && submit_us == kNoTime) submit_us = row.time;
    if (row.type == kSchedule) schedule_us = row.time;
    if (row.type == kFinish) ran = schedule_us != kNoTime && row.time - schedule_us >= 0;
    if (row.type >= kEvict && row.type <= kLost) end_event = static_cast<int8_t>(row.type);
  }
  std::string_view SkipReason() const {
    if (submit_us == kNoTime) return kSkipBeforeFiles;
    if (end_event != kFinish || !ran) return kSkipUnfinished;
    if (!requested) return kSkipNoRequest;
    return {};
  }
};

struct Usage {
  double cpu_time = 0, mem_time = 0, seconds = 0;
};

using TaskKey = std::pair<int64_t, int64_t>;

// What the first pass indexes of a collection with a kept instance.
struct KeptCollection {
  int64_t arrival_us = 0;  // its earliest kept SUBMIT
  uint64_t last_row = 0;   // the last row of a kept instance
  uint64_t kept = 0;
  uint32_t workflow = 0;   // in Reader::workflows_
  // Which instance indexes are kept; when they are too sparse for a bit
  // each, the second pass holds every instance of the collection and applies
  // the rules again.
  KeptIndexes indexes;

  bool Holds(int64_t index) const { return indexes.Holds(index); }
};

// A workflow: collections joined by start_after_collection_ids (a
// collection alone is one too), named after its lowest collection id.
struct Workflow {
  std::vector<int64_t> members;  // ascending; members.front() names it
  int64_t arrival_us = 0;
  uint64_t last_row = 0;  // the stream passes it whole after this row
  bool passed = false;
};

class Reader {
 public:
  explicit Reader(TraceEmitter& out) : out_(out), report_(out.report()) {}

  absl::Status Machines(const std::vector<std::string>& files) {
    std::map<int64_t, std::pair<double, double>> machines;
    RETURN_IF_ERROR(ForEachJsonRow(files, report_.rows, [&](const JsonRow& r) -> absl::Status {
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
    return ForEachJsonRow(files, report_.rows, [&](const JsonRow& r) -> absl::Status {
      ASSIGN_OR_RETURN(const int64_t id, r.RequiredInt("collection_id"));
      Collection& c = collections_[id];
      ASSIGN_OR_RETURN(const std::optional<int64_t> type, r.Int("collection_type"));
      ASSIGN_OR_RETURN(const std::optional<int64_t> priority, r.Int("priority"));
      if (type) c.alloc_set = *type == 1;
      if (priority) c.priority = *priority;
      if (const auto u = r.value().find("user"); u != r.value().end() && u->is_string() && !u->get<std::string>().empty()) {
        const auto [it, added] = user_ids_.try_emplace(u->get<std::string>(), static_cast<uint32_t>(users_.size()));
        if (added) users_.push_back(u->get<std::string>());
        c.user = it->second;
      }
      if (const auto s = r.value().find("start_after_collection_ids"); s != r.value().end() && !s->is_null()) {
        if (!s->is_array()) return r.Error("field start_after_collection_ids must be a list");
        std::vector<int64_t>& after = start_after_[id];
        after.clear();
        for (const json& p : *s) {
          std::optional<int64_t> v;
          if (p.is_number_integer()) v = p.get<int64_t>();
          if (p.is_string()) v = ParseWholeNumber(p.get_ref<const std::string&>());
          if (!v) return r.Error(fmt::format("field start_after_collection_ids: {} is not an id", p.dump()));
          after.push_back(*v);
        }
      }
      return absl::OkStatus();
    });
  }

  // Read: the instance tables. The first pass over instance_events decides
  // which instances are kept (an instance's rows may be anywhere in the
  // files, so it keeps 48 bytes of every instance, key and InstanceFacts,
  // until its end) and indexes each collection with a kept instance; then
  // instance_usage is read for the kept instances, the workflows formed,
  // and the second pass passes each workflow as soon as the stream is past
  // its kept instances' last row, holding only those instances meanwhile.
  absl::Status Read(const std::vector<std::string>& instance_files, const std::vector<std::string>& usage_files) {
    absl::flat_hash_map<TaskKey, InstanceFacts> facts;
    uint64_t ordinal = 0, alloc_rows = 0;
    RETURN_IF_ERROR(ForEachJsonRow(instance_files, report_.rows, [&](const JsonRow& r) -> absl::Status {
      ++ordinal;
      ASSIGN_OR_RETURN(const InstanceRow row, ParseInstance(r));
      if (IsAlloc(row)) {
        ++alloc_rows;
        return absl::OkStatus();
      }
      facts[{row.collection, row.index}].Add(row, ordinal);
      return absl::OkStatus();
    }));
    IndexKept(facts);
    facts = {};
    RETURN_IF_ERROR(UsageRows(usage_files));
    // The counts, in the order a whole read gave them (usage rows first).
    report_.Skip(kSkipAlloc, alloc_rows);
    for (const auto& [key, reason, n] : skips_) {
      report_.Skip(reason, n, fmt::format("collection {} instance {}", key.first, key.second));
    }
    FormWorkflows();
    return SecondPass(instance_files);
  }

 private:
  bool IsAlloc(const InstanceRow& row) const {
    if (row.collection_type == 1) return true;
    const auto c = collections_.find(row.collection);
    return c != collections_.end() && c->second.alloc_set;
  }

  // IndexKept counts the instances not kept (by reason, each with its lowest
  // key as example) and indexes the collections with a kept instance.
  void IndexKept(const absl::flat_hash_map<TaskKey, InstanceFacts>& facts) {
    std::map<std::string_view, std::pair<TaskKey, uint64_t>> skipped;  // reason -> (lowest key, count)
    absl::flat_hash_map<int64_t, std::pair<int64_t, int64_t>> range;  // collection -> kept index range
    for (const auto& [key, f] : facts) {
      const std::string_view reason = f.SkipReason();
      if (!reason.empty()) {
        auto [it, added] = skipped.try_emplace(reason, key, 0);
        it->second.first = std::min(it->second.first, key);
        ++it->second.second;
        continue;
      }
      auto [it, added] = kept_.try_emplace(key.first);
      KeptCollection& c = it->second;
      c.arrival_us = added ? f.submit_us : std::min(c.arrival_us, f.submit_us);
      c.last_row = std::max(c.last_row, f.last_row);
      ++c.kept;
      auto [r, fresh] = range.try_emplace(key.first, key.second, key.second);
      r->second = {std::min(r->second.first, key.second), std::max(r->second.second, key.second)};
    }
    for (const auto& [reason, s] : skipped) skips_.push_back({s.first, reason, s.second});
    std::sort(skips_.begin(), skips_.end());
    // A bit per index when the kept indexes are dense (Borg numbers a
    // collection's instances 0..n-1); else the second pass holds them all.
    for (auto& [id, c] : kept_) {
      const auto [lo, hi] = range[id];
      c.indexes = KeptIndexes(lo, hi, c.kept);
    }
    for (const auto& [key, f] : facts) {
      if (f.SkipReason().empty()) kept_[key.first].indexes.Add(key.second);
    }
  }

  // UsageRows reads instance_usage, keeping the usage of the instances the
  // second pass will hold (the kept ones, or every one of a collection whose
  // kept indexes are too sparse for a bit each).
  absl::Status UsageRows(const std::vector<std::string>& files) {
    return ForEachJsonRow(files, report_.rows, [&](const JsonRow& r) -> absl::Status {
      ASSIGN_OR_RETURN(const int64_t start, r.RequiredInt("start_time"));
      ASSIGN_OR_RETURN(const int64_t end, r.RequiredInt("end_time"));
      ASSIGN_OR_RETURN(const int64_t id, r.RequiredInt("collection_id"));
      ASSIGN_OR_RETURN(const int64_t index, r.RequiredInt("instance_index"));
      ASSIGN_OR_RETURN(const auto used, r.Resources("average_usage"));
      if (!used || end <= start) {
        report_.Skip("instance_usage rows without usage or window");
        return absl::OkStatus();
      }
      if (const auto c = kept_.find(id); c == kept_.end() || !c->second.Holds(index)) return absl::OkStatus();
      Usage& u = usage_[{id, index}];
      const double s = Seconds(end - start);
      u.cpu_time += used->first * s;
      u.mem_time += used->second * s;
      u.seconds += s;
      return absl::OkStatus();
    });
  }

  // FormWorkflows joins kept collections by start_after_collection_ids
  // (union-find, each workflow's root its lowest id) and indexes them.
  void FormWorkflows() {
    std::vector<int64_t> ids;
    ids.reserve(kept_.size());
    for (const auto& [id, c] : kept_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    absl::flat_hash_map<int64_t, int64_t> root;
    for (int64_t id : ids) root[id] = id;
    auto find = [&](int64_t x) {
      while (root[x] != x) x = root[x] = root[root[x]];
      return x;
    };
    for (int64_t id : ids) {
      const auto c = start_after_.find(id);
      if (c == start_after_.end()) continue;
      for (int64_t p : c->second) {
        if (!kept_.contains(p)) {
          report_.Note("dependencies on collections with no task kept, dropped");
          continue;
        }
        const int64_t a = find(id), b = find(p);
        root[std::max(a, b)] = std::min(a, b);
      }
    }
    absl::flat_hash_map<int64_t, uint32_t> slot;  // root -> workflow
    for (int64_t id : ids) {
      const int64_t r = find(id);
      auto [it, added] = slot.try_emplace(r, static_cast<uint32_t>(workflows_.size()));
      if (added) workflows_.push_back({});
      Workflow& w = workflows_[it->second];
      const KeptCollection& c = kept_[id];
      w.arrival_us = w.members.empty() ? c.arrival_us : std::min(w.arrival_us, c.arrival_us);
      w.last_row = std::max(w.last_row, c.last_row);
      w.members.push_back(id);
      kept_[id].workflow = it->second;
    }
    // workflows_ is in order of root id (each root is the lowest id of its
    // workflow, met first). by_end_ orders them by last row, by_arrival_ by
    // arrival (ties by root).
    for (uint32_t k = 0; k < workflows_.size(); ++k) {
      by_end_.push_back(k);
      by_arrival_.push_back(k);
    }
    std::sort(by_end_.begin(), by_end_.end(),
              [&](uint32_t a, uint32_t b) { return workflows_[a].last_row < workflows_[b].last_row; });
    std::sort(by_arrival_.begin(), by_arrival_.end(), [&](uint32_t a, uint32_t b) {
      return std::tie(workflows_[a].arrival_us, a) < std::tie(workflows_[b].arrival_us, b);
    });
  }

  absl::Status SecondPass(const std::vector<std::string>& files) {
    out_.ExpectJobs(workflows_.size());
    uint64_t ordinal = 0, again = 0;
    size_t next_end = 0;
    RETURN_IF_ERROR(ForEachJsonRow(files, again, [&](const JsonRow& r) -> absl::Status {
      ++ordinal;
      ASSIGN_OR_RETURN(const InstanceRow row, ParseInstance(r));
      if (!IsAlloc(row)) {
        const auto c = kept_.find(row.collection);
        if (c != kept_.end() && !workflows_[c->second.workflow].passed && c->second.Holds(row.index)) {
          held_[row.collection][row.index].Add(row);
        }
      }
      bool passed = false;
      while (next_end < by_end_.size() && workflows_[by_end_[next_end]].last_row <= ordinal) {
        RETURN_IF_ERROR(Pass(by_end_[next_end++]));
        passed = true;
      }
      if (passed) NoArrivalBefore();
      return absl::OkStatus();
    }));
    while (next_end < by_end_.size()) RETURN_IF_ERROR(Pass(by_end_[next_end++]));  // none, unless the files changed
    return absl::OkStatus();
  }

  // NoArrivalBefore states the earliest arrival of the workflows not passed yet.
  void NoArrivalBefore() {
    while (next_arrival_ < by_arrival_.size() && workflows_[by_arrival_[next_arrival_]].passed) ++next_arrival_;
    if (next_arrival_ < by_arrival_.size()) out_.NoArrivalBefore(Seconds(workflows_[by_arrival_[next_arrival_]].arrival_us));
  }

  // Pass builds workflow `k` from the instances held and passes it on: each
  // collection's demand groups are its stages (named c<id>-s<k> in a
  // workflow of several), every stage of a collection waiting for every
  // stage of the collections it starts after.
  absl::Status Pass(uint32_t k) {
    Workflow& w = workflows_[k];
    w.passed = true;
    const std::vector<int64_t>& members = w.members;
    const int64_t first = members.front();
    std::map<int64_t, std::vector<std::string>> stage_ids;
    std::vector<DagStage> stages;
    std::vector<int64_t> stage_collection;
    for (int64_t id : members) {
      std::vector<TraceTask> tasks;
      if (auto node = held_.extract(id); !node.empty()) {
        for (const auto& [index, t] : node.mapped()) {
          auto u = usage_.extract(TaskKey{id, index});
          if (!t.SkipReason().empty()) continue;  // held because its collection's indexes are sparse
          TraceTask task{.index = index, .duration_us = std::max<int64_t>(1, t.run_us), .cpu = t.cpu, .mem = t.mem};
          if (!u.empty() && u.mapped().seconds > 0) {
            task.has_usage = true;
            task.cpu_used = u.mapped().cpu_time / u.mapped().seconds;
            task.mem_used = u.mapped().mem_time / u.mapped().seconds;
          }
          tasks.push_back(task);
        }
      }
      if (tasks.size() != kept_[id].kept) {
        return absl::InvalidArgumentError(
            fmt::format("google-2019: collection {} changed between two reads of instance_events", id));
      }
      for (json& s : BagStages(tasks, out_.options().stage_per_job, report_)) {
        const std::string sid = members.size() == 1 ? s["name"].get<std::string>()
                                                    : fmt::format("c{}-{}", id, s["name"].get<std::string>());
        s.erase("name");
        stage_ids[id].push_back(sid);
        stages.push_back(DagStage{sid, {}, std::move(s)});
        stage_collection.push_back(id);
      }
    }
    if (members.size() > 1) report_.Note("workflows of several collections (start_after_collection_ids)");
    for (size_t i = 0; i < stages.size(); ++i) {
      DagStage& stage = stages[i];
      const int64_t id = stage_collection[i];
      for (int64_t child : members) {
        const auto c = start_after_.find(child);
        if (c == start_after_.end()) continue;
        const auto& after = c->second;
        if (std::find(after.begin(), after.end(), id) == after.end()) continue;
        stage.children.insert(stage.children.end(), stage_ids[child].begin(), stage_ids[child].end());
      }
    }
    static const Collection kNone;
    const auto c = collections_.find(first);
    const Collection& meta = c == collections_.end() ? kNone : c->second;
    const std::string name = members.size() == 1 ? std::to_string(first) : fmt::format("wf{}", first);
    return EmitDagJob(out_, {{"name", name}, {"user", users_[meta.user]}, {"priority", meta.priority}}, stages,
                      Seconds(w.arrival_us));
  }

  TraceEmitter& out_;
  TraceReport& report_;
  absl::flat_hash_map<int64_t, Collection> collections_;
  absl::flat_hash_map<int64_t, std::vector<int64_t>> start_after_;  // of the collections that give it
  std::vector<std::string> users_ = {"default"};
  absl::flat_hash_map<std::string, uint32_t> user_ids_;
  std::vector<std::tuple<TaskKey, std::string_view, uint64_t>> skips_;  // (lowest key, reason, count)
  absl::flat_hash_map<int64_t, KeptCollection> kept_;
  absl::flat_hash_map<TaskKey, Usage> usage_;  // of kept instances not passed yet
  std::vector<Workflow> workflows_;
  std::vector<uint32_t> by_end_, by_arrival_;
  size_t next_arrival_ = 0;
  // The second pass's instances, by collection then index.
  absl::flat_hash_map<int64_t, absl::flat_hash_map<int64_t, InstanceState>> held_;
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
  return reader.Read(tables["instance_events"], tables["instance_usage"]);
}

}  // namespace weft
