#include "python/run_records.h"

namespace weft::python {
namespace {

double Seconds(TimeUs us) { return UsToSeconds(us); }

}  // namespace

RunRecords::RunRecords(const Workload& workload)
    : workload_(workload), bound_capacity_(BoundCapacity::Of(workload.cluster)) {
  for (size_t m = 0; m < workload.cluster.size(); ++m) {
    machine_names_.push_back(workload.cluster.machine(MachineId(static_cast<uint32_t>(m))).name);
  }
}

int32_t RunRecords::Intern(std::vector<std::string>& names, absl::flat_hash_map<std::string, int32_t>& index,
                           const std::string& name) {
  auto [it, inserted] = index.try_emplace(name, static_cast<int32_t>(names.size()));
  if (inserted) names.push_back(name);
  return it->second;
}

int32_t RunRecords::JobCode(JobId job) {
  const size_t j = job.value();
  if (j >= job_code_.size()) job_code_.resize(j + 1, -1);
  if (job_code_[j] < 0) {
    job_code_[j] = static_cast<int32_t>(job_names_.size());
    job_names_.push_back(workload_.jobs[j].name);
  }
  return job_code_[j];
}

int32_t RunRecords::StageCode(JobId job, uint32_t stage) {
  const uint64_t key = (uint64_t{job.value()} << 32) | stage;
  auto [it, inserted] = stage_code_.try_emplace(key, static_cast<int32_t>(stage_names_.size()));
  if (inserted) stage_names_.push_back(workload_.jobs[job.value()].stages[stage].name);
  return it->second;
}

void RunRecords::OnAttemptEnd(const AttemptRecord& r) {
  TaskColumns& t = tasks_;
  t.job.codes.push_back(JobCode(r.task.job));
  t.stage.codes.push_back(StageCode(r.task.job, r.task.stage));
  t.task.push_back(r.task.index);
  t.attempt.push_back(r.attempt);
  t.machine.codes.push_back(static_cast<int32_t>(r.machine.value()));
  t.ready.push_back(Seconds(r.ready_us));
  t.start.push_back(Seconds(r.start_us));
  t.end.push_back(Seconds(r.end_us));
  t.outcome.codes.push_back(static_cast<int32_t>(r.outcome));
  t.cpu.push_back(r.demand.units(kCpu));
  t.mem.push_back(r.demand.units(kMem));
  t.disk.push_back(r.demand.units(kDisk));
  t.net.push_back(r.demand.units(kNet));
  t.locality.codes.push_back(static_cast<int32_t>(r.locality));
}

void RunRecords::OnPhaseEnd(const PhaseRecord& r) {
  const Job& job = workload_.jobs[r.task.job.value()];
  const Phase& phase = job.stages[r.task.stage].phases[r.phase];
  // As phases.csv names it (metrics/phases_writer.cc).
  const std::string resource = !phase.profiled     ? std::string(kResourceNames[r.resource])
                               : phase.name.empty() ? std::string("profiled")
                                                    : "profiled:" + phase.name;
  PhaseColumns& p = phases_;
  p.job.codes.push_back(JobCode(r.task.job));
  p.stage.codes.push_back(StageCode(r.task.job, r.task.stage));
  p.task.push_back(r.task.index);
  p.attempt.push_back(r.attempt);
  p.phase.push_back(r.phase);
  p.resource.codes.push_back(Intern(resource_names_, resource_index_, resource));
  p.machine.codes.push_back(static_cast<int32_t>(r.machine.value()));
  p.start.push_back(Seconds(r.start_us));
  p.end.push_back(Seconds(r.end_us));
  p.held.push_back(r.held);
  p.completed.push_back(r.completed ? 1 : 0);
}

void RunRecords::OnJobEnd(const JobRecord& r) {
  const Job& job = workload_.jobs[r.job.value()];
  const TimeUs newlb = ComputeJobBounds(job, bound_capacity_).newlb_us;
  const TimeUs jct = r.end_us - r.arrival_us;
  JobColumns& j = jobs_;
  j.job.codes.push_back(JobCode(r.job));
  j.user.codes.push_back(Intern(user_names_, user_index_, workload_.users[job.user.value()]));
  j.arrival.push_back(Seconds(r.arrival_us));
  j.start.push_back(Seconds(r.start_us));
  j.end.push_back(Seconds(r.end_us));
  j.jct.push_back(Seconds(jct));
  j.outcome.codes.push_back(r.succeeded ? 0 : 1);
  j.newlb.push_back(Seconds(newlb));
  j.newlb_ratio.push_back(newlb > 0 ? static_cast<double>(jct) / static_cast<double>(newlb) : 0.0);
}

void RunRecords::Finish() {
  std::vector<std::string> outcomes, localities;
  for (Outcome o : {Outcome::kOk, Outcome::kFailed, Outcome::kKilled}) outcomes.push_back(OutcomeName(o));
  for (Locality l : {Locality::kNone, Locality::kNode, Locality::kRack, Locality::kRemote}) {
    localities.push_back(LocalityName(l));
  }
  tasks_.job.names = job_names_;
  tasks_.stage.names = stage_names_;
  tasks_.machine.names = machine_names_;
  tasks_.outcome.names = outcomes;
  tasks_.locality.names = localities;
  jobs_.job.names = job_names_;
  jobs_.user.names = user_names_;
  jobs_.outcome.names = {"ok", "failed"};  // as jobs.csv's (a simulation never cancels)
  phases_.job.names = job_names_;
  phases_.stage.names = stage_names_;
  phases_.resource.names = resource_names_;
  phases_.machine.names = machine_names_;
}

}  // namespace weft::python
