// File: policy/cobra/manager.h
//
// COBRA's task scheduler, one per job (the job manager; cobra.h has the
// design): it sets the job's desire (Af once per period, or one of the
// baselines' rules, DesireMode), holds the containers the fair job scheduler
// grants, runs several waiting tasks in each while its free room allows
// (Pdelay, or plain delay scheduling, PlacementMode) and gives containers
// back when its desire or allocation falls below what it holds (idle ones
// at once, busy ones when they empty). Not thread-safe; the platform calls
// the handlers one at a time.
//
// Costs per event: a job may hold hundreds of containers, so the containers
// are kept in an IndexedContainerPool and an event visits only those where
// a waiting task fits (idle ones, for disposable containers), the ones it
// gives back, and the idle ones (spark-dynamic's idle timers). Af's sample
// (kAf only) still reads every held container once per event: their use is
// the platform's measurement, which changes with no event to the job.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "policy/cobra/af.h"
#include "policy/cobra/config.h"
#include "policy/common/indexed_container_pool.h"
#include "policy/common/locality_wait.h"
#include "policy/common/ready_pool.h"
#include "policy/roles.h"

namespace weft::policy::cobra {

class CobraManager final : public JobManager {
 public:
  CobraManager(Context& ctx, JobId job, const CobraConfig& config);

  void OnStart() override;
  void OnTasksReady(const TaskRange& tasks) override;
  void OnTaskEnded(const TaskEnd& end) override;
  void OnContainerGranted(const ContainerInfo& container) override;
  void OnContainerLost(const ContainerInfo& container) override;
  void OnMessage(const Address& from, const Message& message) override;
  void OnTimer(uint64_t tag) override;

 private:
  // Fill places waiting tasks into the held containers (not draining), one
  // container at a time in id order, then settles desire and holdings.
  void Fill();
  // Pick: the task Pdelay (or plain delay) puts next into container `e`
  // with `free` room left; nullopt when none may go there now.
  std::optional<TaskRef> Pick(const IndexedContainerPool::Entry& e, const Resources& free);
  // Settle: the per-task desire (kPerTask) and Spark's backlog timer follow
  // the waiting tasks; containers above what the job keeps go back.
  void Settle();
  // Keep: how many containers the job wants to hold now.
  int64_t Keep() const;
  // GiveBack releases idle containers and drains busy ones until the held,
  // not draining containers number `keep`.
  void GiveBack(int64_t keep);
  void Release(ContainerId id);
  // EndPeriod runs Af (kAf) at a period boundary.
  void EndPeriod();
  // SparkBacklog: the backlog timer fired (kSparkDynamic).
  void SparkBacklog();
  // SparkMaxNeeded: the executors the waiting and running tasks can use.
  int64_t SparkMaxNeeded() const;
  void SendDesire(int64_t containers);
  // Sample: what the held containers use now, into Af's meter, and how many
  // are held, into the period's maximum. Walks the containers: their use is
  // the platform's, which changes without an event to the job.
  void Sample();
  // SampleBeforeFill: the sample a handler that ends in Fill takes on entry.
  // Fill samples again at the same instant, which replaces this sample's
  // rates in the meter before they cover any time, so only the number held
  // before the event can matter: it is taken only when it could raise the
  // period's maximum.
  void SampleBeforeFill();
  // Floor: the container size the job asks for: the configured size, grown
  // to hold the first waiting stage's tasks (as a Spark user sizes
  // executors to the largest task).
  Resources Floor() const;
  // MustFit: what a container must hold for the job's next task: the first
  // waiting stage's demand (zero when nothing waits).
  Resources MustFit() const;
  // The thresholds of a task's wait: node->rack, rack->any.
  std::pair<TimeUs, TimeUs> Thresholds(const TaskRef& t) const;
  static uint64_t Key(const TaskRef& t) { return (uint64_t{t.stage} << 32) | t.index; }

  CobraConfig config_;
  ReadyPool ready_;
  LocalityIndex index_;
  absl::flat_hash_map<uint64_t, LocalityWait> waits_;  // waiting tasks of indexed stages, by Key
  IndexedContainerPool pool_;
  absl::flat_hash_set<uint32_t> draining_;               // held containers being given back
  absl::flat_hash_map<uint32_t, TimeUs> idle_since_;     // kSparkDynamic: idle held containers
  int64_t running_ = 0;                                  // tasks launched and not heard ended
  // Af's state.
  double desire_ = 1;
  int64_t sent_desire_ = -1;
  Resources sent_floor_;
  int64_t allocation_ = -1;  // the scheduler's last kAllocation; -1: none
  UtilizationMeter meter_;
  int64_t period_max_held_ = 0;
  bool period_waited_ = false;
  // Spark's dynamic allocation.
  int64_t to_add_ = 1;
  bool backlog_armed_ = false;
};

}  // namespace weft::policy::cobra
