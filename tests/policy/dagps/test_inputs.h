// File: tests/policy/dagps/test_inputs.h
//
// Hand-made PlanInputs for the DAGPS builder tests, including the worked
// example of 001_a7e14c78d79bdb00.txt section 2.2 / Fig. 2.
//
// The figure's body is not in the text copy of the paper; what the text gives
// is: two resources with capacity 1 each; long tasks t0, t2, t4 (OPT overlaps
// them and finishes in about T); their parents {t1, t3}; critical paths
// CP(t0) = T, CP(t1) = T(1 - 3e), CP(t3) = T(1 - e); t0, t1 and t3 cannot run
// two at a time; Tetris' scores (sum of demands on an idle machine) t0 = t2 =
// 0.9, t1 = 0.85, t3 = 0.8, t4 = 0.2. Fig2Example is a reconstruction that
// satisfies every one of these with T = 100 s and e = 0.01:
//     t0: 100 s, (0.10, 0.80)            (no parent, no child)
//     t1:   1 s, (0.25, 0.60) -> t2:  96 s, (0.80, 0.10)
//     t3:   1 s, (0.35, 0.45) -> t4:  98 s, (0.10, 0.10)
// t0 + t2 + t4 = (1, 1) fits exactly. OPT: t1 [0,1], t3 [1,2], then t0, t2
// and t4 together from 2: 102 s. Critical-path order and Tetris both start t0
// first (nothing fits beside it): cp ends at 199 s (about 2T), tetris at
// 296 s (about 3T, as in the paper) because it then prefers t2 to t3.
#pragma once

#include <cmath>
#include <vector>

#include "model/resources.h"
#include "policy/dagps/plan_input.h"

namespace weft::policy::dagps::testing {

inline Resources Units(double cpu, double mem) {
  Resources r;
  r.set_micro(kCpu, static_cast<int64_t>(cpu * kMicroUnits + 0.5));
  r.set_micro(kMem, static_cast<int64_t>(mem * kMicroUnits + 0.5));
  return r;
}

inline TimeUs S(double s) { return static_cast<TimeUs>(std::llround(s * 1e6)); }

// Box: a task placed on one machine over [start, end), as the brute-force
// oracles of the space and the step function keep them.
struct Box {
  TimeUs start;
  TimeUs end;
  Resources demand;
};

// UsageAt: what the boxes use at time t (the oracles' answer).
inline Resources UsageAt(const std::vector<Box>& boxes, TimeUs t) {
  Resources sum;
  for (const Box& b : boxes) {
    if (b.start <= t && t < b.end) sum += b.demand;
  }
  return sum;
}

// Stage adds a stage of `tasks` equal tasks.
inline uint32_t AddStage(PlanInput& in, uint32_t tasks, double seconds, Resources demand) {
  PlanStage st;
  st.demand = demand;
  st.durations.assign(tasks, S(seconds));
  in.stages.push_back(std::move(st));
  return static_cast<uint32_t>(in.stages.size() - 1);
}

inline PlanInput Fig2Example() {
  PlanInput in;
  in.machines = {Units(1, 1)};
  AddStage(in, 1, 100, Units(0.10, 0.80));  // t0
  AddStage(in, 1, 1, Units(0.25, 0.60));    // t1
  AddStage(in, 1, 96, Units(0.80, 0.10));   // t2
  AddStage(in, 1, 1, Units(0.35, 0.45));    // t3
  AddStage(in, 1, 98, Units(0.10, 0.10));   // t4
  in.AddEdge(1, 2);
  in.AddEdge(3, 4);
  in.ComputeTopoOrder();
  return in;
}

// The same DAG as a weft workload (FORMATS.md section 1), for policy runs.
inline constexpr char kFig2Workload[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "fig2", "stages": [
    {"name": "t0", "tasks": 1, "duration": 100, "demand": {"cpu": 0.10, "mem": 0.80}},
    {"name": "t1", "tasks": 1, "duration": 1, "demand": {"cpu": 0.25, "mem": 0.60}},
    {"name": "t2", "tasks": 1, "duration": 96, "demand": {"cpu": 0.80, "mem": 0.10}, "after": ["t1"]},
    {"name": "t3", "tasks": 1, "duration": 1, "demand": {"cpu": 0.35, "mem": 0.45}},
    {"name": "t4", "tasks": 1, "duration": 98, "demand": {"cpu": 0.10, "mem": 0.10}, "after": ["t3"]}]}]})";

}  // namespace weft::policy::dagps::testing
