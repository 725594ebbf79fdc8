#include "policy/dagps/plan_input.h"

#include <algorithm>
#include <queue>

namespace weft::policy::dagps {

uint64_t PlanInput::num_tasks() const {
  uint64_t n = 0;
  for (const PlanStage& s : stages) n += s.num_tasks();
  return n;
}

std::vector<uint64_t> PlanInput::stage_offsets() const {
  std::vector<uint64_t> off(stages.size() + 1, 0);
  for (size_t s = 0; s < stages.size(); ++s) off[s + 1] = off[s] + stages[s].num_tasks();
  return off;
}

void PlanInput::AddEdge(uint32_t parent, uint32_t child) {
  stages[parent].children.push_back(child);
  stages[child].parents.push_back(parent);
}

bool PlanInput::ComputeTopoOrder() {
  const size_t n = stages.size();
  std::vector<uint32_t> indegree(n, 0);
  for (const PlanStage& s : stages) {
    for (uint32_t c : s.children) ++indegree[c];
  }
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (uint32_t s = 0; s < n; ++s) {
    if (indegree[s] == 0) ready.push(s);
  }
  topo_order.clear();
  while (!ready.empty()) {
    const uint32_t s = ready.top();
    ready.pop();
    topo_order.push_back(s);
    for (uint32_t c : stages[s].children) {
      if (--indegree[c] == 0) ready.push(c);
    }
  }
  return topo_order.size() == n;
}

namespace {

// CopyEdges copies a model stage's edges (pipelined ones become barriers).
void CopyEdges(const std::vector<Edge>& parents, const std::vector<Edge>& children, PlanStage& out) {
  for (const Edge& e : parents) out.parents.push_back(e.stage);
  for (const Edge& e : children) out.children.push_back(e.stage);
}

}  // namespace

PlanInput PlanInputFromView(const JobView& job, const ClusterState& cluster, uint32_t max_machines) {
  PlanInput in;
  in.stages.resize(job.num_stages());
  for (uint32_t s = 0; s < job.num_stages(); ++s) {
    PlanStage& st = in.stages[s];
    st.demand = job.demand(s);
    st.durations.resize(job.stage_tasks(s));
    for (uint32_t i = 0; i < job.stage_tasks(s); ++i) {
      st.durations[i] = std::max<TimeUs>(1, job.EstimatedDuration(TaskRef{job.id(), s, i}));
    }
    for (const Edge& e : job.parents(s)) st.parents.push_back(e.stage);
    for (const Edge& e : job.children(s)) st.children.push_back(e.stage);
  }
  in.topo_order.assign(job.topo_order().begin(), job.topo_order().end());
  for (uint32_t m = 0; m < cluster.size(); ++m) {
    if (max_machines > 0 && in.machines.size() >= max_machines) break;
    if (cluster.up(MachineId(m))) in.machines.push_back(cluster.capacity(MachineId(m)));
  }
  return in;
}

PlanInput PlanInputFromJob(const Job& job, const Cluster& cluster, TimeUs default_duration_us) {
  PlanInput in;
  in.stages.resize(job.stages.size());
  for (size_t s = 0; s < job.stages.size(); ++s) {
    const Stage& model = job.stages[s];
    PlanStage& st = in.stages[s];
    st.demand = model.demand;
    st.durations.resize(model.num_tasks);
    for (uint32_t i = 0; i < model.num_tasks; ++i) {
      const TimeUs d = model.TaskDuration(i);
      st.durations[i] = d > 0 ? d : std::max<TimeUs>(1, default_duration_us);
    }
    CopyEdges(model.parents, model.children, st);
  }
  in.topo_order = job.topo_order;
  for (const Machine& m : cluster.machines()) in.machines.push_back(m.capacity);
  return in;
}

}  // namespace weft::policy::dagps
