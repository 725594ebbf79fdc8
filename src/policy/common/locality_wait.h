// File: policy/common/locality_wait.h
//
// The mechanism of delay scheduling (Zaharia et al., EuroSys'10, sections 3
// and 5), shared by the `delay` baseline (one wait per job, fixed
// thresholds) and COBRA's Pdelay (one wait per task, thresholds τ·p and 2τ·p
// from the task's known processing time):
//   - LocalityLevel and LevelOf: how local a machine is to a task
//     (node-local: one of its preferred machines; rack-local: shares a rack
//     with one; any: neither);
//   - LocalityWait: a wait that unlocks the rack level after `node_wait` and
//     any machine after `node_wait + rack_wait`, measured in simulated time
//     from the moment it starts, and restarted by a launch;
//   - LocalityIndex: a group's ready tasks by preferred machine and rack, so
//     that "a node-local task for this machine" is found without scanning.
// Policies do the waiting (skip a machine, set timers); these only keep the
// books. Not thread-safe; owned by one role.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "core/time.h"
#include "policy/cluster_state.h"
#include "policy/common/ready_pool.h"
#include "policy/job_view.h"

namespace weft::policy {

// Locality levels, in the order a waiting task or job unlocks them.
enum class LocalityLevel : uint8_t { kNode = 0, kRack = 1, kAny = 2 };

// LevelOf: the locality of `machine` for a task preferring `prefs`
// (no preferences: kNode, every machine is as good as any other).
LocalityLevel LevelOf(std::span<const MachineId> prefs, MachineId machine, const ClusterState& cluster);

struct LocalityWait {
  // The level the owner last launched at: a wait starting from kRack needs
  // only `rack_wait` to reach kAny (the paper's j.level).
  LocalityLevel level = LocalityLevel::kNode;
  bool waiting = false;
  TimeUs since = 0;
  uint32_t episode = 0;  // tells a current wait's timers from stale ones

  // Allowed: the most remote level the wait has unlocked by `now`. One that
  // is not waiting yet would start now: its elapsed wait is 0 (so
  // node_wait = 0 unlocks rack-local at once).
  LocalityLevel Allowed(TimeUs now, TimeUs node_wait, TimeUs rack_wait) const;
  // Start begins a wait at `now` (a new episode); false if already waiting.
  bool Start(TimeUs now);
  // Deadlines: the delays from `now` at which the current wait unlocks its
  // next levels (one entry from kRack, two from kNode), for timers.
  std::vector<TimeUs> Deadlines(TimeUs node_wait, TimeUs rack_wait) const;
  // Launched: the owner launched at `at`; the wait ends.
  void Launched(LocalityLevel at) {
    level = at;
    waiting = false;
  }
};

// LocalityIndex: where groups' ready tasks would be local. Only groups of
// stages where some task has preferences are indexed; the others have no
// entry (Has is false) and any of their tasks is as good as any other.
// Entries whose task has left the owner's ReadyPool are skipped lazily.
class LocalityIndex {
 public:
  // Index records a newly ready range; false (nothing recorded) when no task
  // of the stage has preferences.
  bool Index(const TaskRange& range, const JobView& job, const ClusterState& cluster);
  bool Has(const GroupId& g) const { return groups_.contains(g.Packed()); }
  // The first task of `g` still in `pool` that prefers `machine` / a machine
  // of `rack` / nothing; nullopt when none.
  std::optional<TaskRef> NodeLocal(const GroupId& g, MachineId machine, const ReadyPool& pool);
  std::optional<TaskRef> RackLocal(const GroupId& g, RackId rack, const ReadyPool& pool);
  std::optional<TaskRef> WithoutPrefs(const GroupId& g, const ReadyPool& pool);
  // Erase forgets a group (its last ready task left; a retry re-indexes).
  void Erase(const GroupId& g) { groups_.erase(g.Packed()); }
  // EraseJob forgets every group of a finished job.
  void EraseJob(JobId job);

 private:
  // Task indices of one group, consumed from `head`.
  struct TaskList {
    std::vector<uint32_t> tasks;
    size_t head = 0;
  };
  struct GroupIndex {
    absl::flat_hash_map<uint32_t, TaskList> by_machine;
    absl::flat_hash_map<uint32_t, TaskList> by_rack;
    TaskList no_prefs;
  };
  bool StageHasPrefs(const GroupId& g, const JobView& job);
  static std::optional<TaskRef> FirstLive(TaskList& list, const GroupId& g, const ReadyPool& pool);

  std::map<uint64_t, GroupIndex> groups_;  // by GroupId::Packed, so a job's groups are adjacent
  absl::flat_hash_map<uint64_t, bool> stage_has_prefs_;
};

// InReadyPool: whether task `index` of group `g` is in `pool`.
bool InReadyPool(const ReadyPool& pool, const GroupId& g, uint32_t index);

}  // namespace weft::policy
