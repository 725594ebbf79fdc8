#include "python/frames.h"

namespace py = pybind11;

namespace weft::python {

py::dict TaskFrame(const TaskColumns& t) {
  py::dict d;
  d["job"] = Text(t.job);
  d["stage"] = Text(t.stage);
  d["task"] = Array(t.task);
  d["attempt"] = Array(t.attempt);
  d["machine"] = Text(t.machine);
  d["ready"] = Array(t.ready);
  d["start"] = Array(t.start);
  d["end"] = Array(t.end);
  d["outcome"] = Text(t.outcome);
  d["cpu"] = Array(t.cpu);
  d["mem"] = Array(t.mem);
  d["disk"] = Array(t.disk);
  d["net"] = Array(t.net);
  d["locality"] = Text(t.locality);
  return d;
}

py::dict JobFrame(const JobColumns& j) {
  py::dict d;
  d["job"] = Text(j.job);
  d["user"] = Text(j.user);
  d["arrival"] = Array(j.arrival);
  d["start"] = Array(j.start);
  d["end"] = Array(j.end);
  d["jct"] = Array(j.jct);
  d["outcome"] = Text(j.outcome);
  d["newlb"] = Array(j.newlb);
  d["newlb_ratio"] = Array(j.newlb_ratio);
  return d;
}

py::dict PhaseFrame(const PhaseColumns& p) {
  py::dict d;
  d["job"] = Text(p.job);
  d["stage"] = Text(p.stage);
  d["task"] = Array(p.task);
  d["attempt"] = Array(p.attempt);
  d["phase"] = Array(p.phase);
  d["resource"] = Text(p.resource);
  d["machine"] = Text(p.machine);
  d["start"] = Array(p.start);
  d["end"] = Array(p.end);
  d["held"] = Array(p.held);
  d["completed"] = Array(p.completed);
  return d;
}

// As timeline.csv's columns (metrics/timeline_writer.h).
py::dict TimelineFrame(const std::vector<Timeline::Bin>& bins) {
  std::vector<double> time;
  std::vector<std::vector<double>> q(Timeline::kNumQuantities);
  for (const Timeline::Bin& bin : bins) {
    time.push_back(UsToSeconds(bin.start_us));
    for (int k = 0; k < Timeline::kNumQuantities; ++k) q[k].push_back(bin.mean[k]);
  }
  py::dict d;
  d["time"] = Array(time);
  d["running"] = Array(q[Timeline::kRunning]);
  d["waiting"] = Array(q[Timeline::kWaiting]);
  for (const auto& [kind, base] : {std::pair{"alloc", Timeline::kAlloc}, std::pair{"used", Timeline::kUsed}}) {
    for (int k = 0; k < kNumResources; ++k) d[py::str(std::string(kResourceNames[k]) + "_" + kind)] = Array(q[base + k]);
  }
  return d;
}

// Observation copies the observation out: the engine rewrites it at the next decision.
py::dict ObservationToPython(const JobOrderObservation& o) {
  py::array_t<float> jobs({static_cast<py::ssize_t>(o.max_jobs), static_cast<py::ssize_t>(kJobFeatures)});
  std::copy(o.jobs.begin(), o.jobs.end(), jobs.mutable_data());
  py::array_t<int8_t> mask(static_cast<py::ssize_t>(o.max_jobs));
  std::copy(o.mask.begin(), o.mask.end(), mask.mutable_data());
  py::array_t<double> cluster(static_cast<py::ssize_t>(o.cluster.size()), o.cluster.data());
  py::dict d;
  d["jobs"] = jobs;
  d["mask"] = mask;
  d["cluster"] = cluster;
  if (!o.users.empty()) {
    py::array_t<double> users({static_cast<py::ssize_t>(o.max_jobs), static_cast<py::ssize_t>(kUserFeatures)});
    std::copy(o.users.begin(), o.users.end(), users.mutable_data());
    d["users"] = users;
  }
  return d;
}

}  // namespace weft::python
