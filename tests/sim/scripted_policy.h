// File: tests/sim/scripted_policy.h
//
// Test doubles that drive sim::Engine precisely:
//   - Script: a policy whose scheduler and node agents run the closures a
//     test gives them (launch exactly this, send that, set a timer), with the
//     knowledge level, overbooking and roles the test chooses;
//   - Greedy: a tiny first-fit placement a script can use when a test only
//     needs its tasks to run (optionally pinned to one machine);
//   - Recorder: a RunObserver that keeps every record of the run;
//   - RunEngine: runs a workload under a script with a Recorder and a
//     ScheduleChecker attached.
// Single-threaded, like the engine.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "gtest/gtest.h"
#include "metrics/schedule_checker.h"
#include "policy/policy.h"
#include "sim/engine.h"
#include "trace/workload_reader.h"

namespace weft::sim::scripted {

using policy::Address;
using policy::Context;
using policy::Message;
using policy::TaskEnd;
using policy::TaskRange;

constexpr TimeUs Sec(double s) { return static_cast<TimeUs>(s * 1e6 + (s >= 0 ? 0.5 : -0.5)); }

// Script: the behaviour of every role, as closures (unset ones do nothing).
struct Script {
  policy::Knowledge knowledge = policy::Knowledge::kNonClairvoyant;
  bool overbooking = false;   // every resource may be overbooked
  ResourceMask overbooked = 0;  // or only these
  uint32_t schedulers = 1;
  bool node_agents = false;
  bool agent_controls_phases = false;

  // Cluster scheduler hooks (every replica runs the same ones).
  std::function<void(Context&, JobId)> on_job_arrived;
  std::function<void(Context&, const TaskRange&)> on_ready;
  std::function<void(Context&, const TaskEnd&)> on_ended;
  std::function<void(Context&, JobId, bool)> on_job_finished;
  std::function<void(Context&, uint64_t)> on_timer;
  std::function<void(Context&, const Address&, const Message&)> on_message;
  std::function<void(Context&, MachineId)> on_machine_up;
  std::function<void(Context&, MachineId)> on_machine_down;
  std::function<void(Context&, uint32_t)> on_scheduler_down;

  // Node agent hooks (only with node_agents).
  std::function<void(Context&, MachineId, const Address&, const Message&)> node_on_message;
  std::function<void(Context&, MachineId, uint64_t)> node_on_timer;
  std::function<void(Context&, MachineId, const TaskEnd&)> node_on_ended;
  std::function<void(Context&, MachineId, const TaskRef&, uint32_t)> node_on_phase_ready;
  std::function<void(Context&, MachineId, const TaskRef&, uint32_t)> node_on_phase_ended;
  std::function<void(Context&, MachineId, uint32_t)> node_on_scheduler_down;
};

class ScriptedScheduler final : public policy::ClusterScheduler {
 public:
  ScriptedScheduler(Context& ctx, Script& s) : ClusterScheduler(ctx), s_(s) {}
  void OnJobArrived(JobId job) override { Call(s_.on_job_arrived, job); }
  void OnTasksReady(const TaskRange& r) override { Call(s_.on_ready, r); }
  void OnTaskEnded(const TaskEnd& e) override { Call(s_.on_ended, e); }
  void OnJobFinished(JobId job, bool ok) override { Call(s_.on_job_finished, job, ok); }
  void OnTimer(uint64_t tag) override { Call(s_.on_timer, tag); }
  void OnMessage(const Address& from, const Message& m) override { Call(s_.on_message, from, m); }
  void OnMachineUp(MachineId m) override { Call(s_.on_machine_up, m); }
  void OnMachineDown(MachineId m) override { Call(s_.on_machine_down, m); }
  void OnSchedulerDown(uint32_t replica) override { Call(s_.on_scheduler_down, replica); }

 private:
  template <typename Fn, typename... Args>
  void Call(const Fn& fn, Args&&... args) {
    if (fn) fn(ctx_, std::forward<Args>(args)...);
  }
  Script& s_;
};

class ScriptedNode final : public policy::NodeAgent {
 public:
  ScriptedNode(Context& ctx, MachineId m, Script& s) : NodeAgent(ctx, m), s_(s) {}
  void OnMessage(const Address& from, const Message& m) override {
    if (s_.node_on_message) s_.node_on_message(ctx_, machine_, from, m);
  }
  void OnTimer(uint64_t tag) override {
    if (s_.node_on_timer) s_.node_on_timer(ctx_, machine_, tag);
  }
  void OnTaskEnded(const TaskEnd& e) override {
    if (s_.node_on_ended) s_.node_on_ended(ctx_, machine_, e);
  }
  bool ControlsPhases() const override { return s_.agent_controls_phases; }
  void OnSchedulerDown(uint32_t replica) override {
    if (s_.node_on_scheduler_down) s_.node_on_scheduler_down(ctx_, machine_, replica);
  }
  void OnPhaseReady(const TaskRef& t, uint32_t phase) override {
    if (s_.node_on_phase_ready) s_.node_on_phase_ready(ctx_, machine_, t, phase);
  }
  void OnPhaseEnded(const TaskRef& t, uint32_t phase) override {
    if (s_.node_on_phase_ended) s_.node_on_phase_ended(ctx_, machine_, t, phase);
  }

 private:
  Script& s_;
};

class ScriptedPolicy final : public policy::Policy {
 public:
  explicit ScriptedPolicy(Script& s) : s_(s) {}
  policy::Knowledge knowledge() const override { return s_.knowledge; }
  ResourceMask overbooked_by_design() const override { return s_.overbooking ? kAllResources : s_.overbooked; }
  uint32_t num_schedulers() const override { return s_.schedulers; }
  std::unique_ptr<policy::ClusterScheduler> MakeScheduler(Context& ctx, uint32_t) override {
    return std::make_unique<ScriptedScheduler>(ctx, s_);
  }
  std::unique_ptr<policy::NodeAgent> MakeNodeAgent(Context& ctx, MachineId m) override {
    return s_.node_agents ? std::make_unique<ScriptedNode>(ctx, m, s_) : nullptr;
  }
  bool has_node_agents() const override { return s_.node_agents; }

 private:
  Script& s_;
};

// Greedy: keeps ready tasks in the order they were announced and launches
// each on the lowest-numbered machine where it fits (or on pin(task) when
// set, fit or not: overbooking tests). Install() wires it into a Script.
struct Greedy {
  std::deque<TaskRef> pending;
  std::function<MachineId(const TaskRef&)> pin;

  void Add(const TaskRange& r) {
    for (uint32_t i = r.begin; i < r.end; ++i) pending.push_back(TaskRef{r.job, r.stage, i});
  }
  void Place(Context& ctx) {
    std::deque<TaskRef> left;
    for (const TaskRef& t : pending) {
      if (!TryLaunch(ctx, t)) left.push_back(t);
    }
    pending = std::move(left);
  }
  bool TryLaunch(Context& ctx, const TaskRef& t) {
    if (pin) return ctx.Launch(t, pin(t)).ok();
    const Resources& demand = ctx.job(t.job).demand(t.stage);
    for (uint32_t m = 0; m < ctx.cluster().size(); ++m) {
      if (ctx.cluster().Fits(MachineId(m), demand)) return ctx.Launch(t, MachineId(m)).ok();
    }
    return false;
  }
  void Install(Script& s) {
    s.on_ready = [this](Context& ctx, const TaskRange& r) {
      Add(r);
      Place(ctx);
    };
    s.on_ended = [this](Context& ctx, const TaskEnd&) { Place(ctx); };
    s.on_machine_up = [this](Context& ctx, MachineId) { Place(ctx); };
  }
};

// Recorder: every record of a run, in the order the engine reported them.
struct Recorder final : RunObserver {
  std::vector<AttemptStart> starts;
  std::vector<AttemptRecord> attempts;
  std::vector<JobRecord> jobs;
  std::vector<PhaseRecord> phases;
  TimeUs run_end = -1;

  void OnAttemptStart(const AttemptStart& s) override { starts.push_back(s); }
  void OnAttemptEnd(const AttemptRecord& r) override { attempts.push_back(r); }
  void OnJobEnd(const JobRecord& r) override { jobs.push_back(r); }
  void OnPhaseEnd(const PhaseRecord& r) override { phases.push_back(r); }
  void OnRunEnd(TimeUs t) override { run_end = t; }

  // Attempt returns the record of attempt `attempt` of a task; fails the
  // test (and returns a blank record) when there is none.
  AttemptRecord Attempt(uint32_t job, uint32_t stage, uint32_t index, uint32_t attempt = 0) const {
    for (const AttemptRecord& r : attempts) {
      if (r.task == TaskRef{JobId(job), stage, index} && r.attempt == attempt) return r;
    }
    ADD_FAILURE() << "no attempt " << attempt << " of task " << job << "/" << stage << "/" << index;
    return AttemptRecord{};
  }
  size_t AttemptsOf(uint32_t job, uint32_t stage, uint32_t index) const {
    size_t n = 0;
    for (const AttemptRecord& r : attempts) n += r.task == TaskRef{JobId(job), stage, index};
    return n;
  }
  JobRecord Job(uint32_t job) const {
    for (const JobRecord& r : jobs) {
      if (r.job == JobId(job)) return r;
    }
    ADD_FAILURE() << "job " << job << " never ended";
    return JobRecord{};
  }
};

inline Workload Parse(std::string_view json) {
  auto w = ParseWorkload(json);
  EXPECT_TRUE(w.ok()) << StatusMessage(w.status());
  return w.ok() ? std::move(*w) : Workload{};
}

struct RunOutcome {
  absl::Status status;
  RunStats stats;
  Recorder rec;
  bool checker_ok = false;
  std::vector<std::string> violations;
};

// RunEngine simulates `w` under `script`; the checker allows overbooking
// exactly when the script declares it.
inline RunOutcome RunEngine(const Workload& w, Script& script, SimOptions options = {}) {
  ScriptedPolicy policy(script);
  Engine engine(w, policy, std::move(options));
  RunOutcome out;
  ScheduleChecker checker(w, script.overbooking ? kAllResources : script.overbooked);
  engine.AddObserver(&out.rec);
  engine.AddObserver(&checker);
  out.status = engine.Run();
  out.stats = engine.stats();
  out.checker_ok = checker.ok();
  out.violations = checker.violations();
  return out;
}

// RunGreedy: RunEngine under a Greedy script (every task placed first fit as
// soon as it is announced) in execution model `model`.
inline RunOutcome RunGreedy(const Workload& w, ExecutionModel model = ExecutionModel::kFixed) {
  Script script;
  Greedy greedy;
  greedy.Install(script);
  SimOptions options;
  options.model = model;
  return RunEngine(w, script, options);
}

// Describes a run's checker violations, for failure messages.
inline std::string Violations(const RunOutcome& r) {
  std::string s;
  for (const std::string& v : r.violations) s += v + "\n";
  return s;
}

}  // namespace weft::sim::scripted
