// _EnvSession and _VecEnvSession: the engines of weft.env.SchedulingEnv and
// weft.env.VecSchedulingEnv (python/weft/env.py).
#include "pybind11/numpy.h"
#include "pybind11/stl.h"
#include "python/bindings.h"
#include "python/env_session.h"
#include "python/frames.h"

namespace py = pybind11;

namespace weft::python {
namespace {

py::tuple Outcome(const EnvSession& session, const StepOutcome& out) {
  py::dict info;
  info["decisions"] = session.observation().decisions;
  info["job_ids"] = session.observation().job_ids;
  if (out.terminated) {
    info["status"] = out.status.empty() ? std::string("ok") : out.status;
    info["jobs_done"] = out.jobs_done;
    info["end_time"] = out.end_seconds;
  }
  return py::make_tuple(ObservationToPython(session.observation()), out.reward, out.terminated, info);
}

// VecSessions: N sessions of one input, stepped together: every engine runs
// at once (each on its thread) between one call's hand-offs.
struct VecSessions {
  std::vector<std::unique_ptr<EnvSession>> envs;
};

std::unique_ptr<EnvSession> MakeSession(const std::string& workload, const std::string& workload_json,
                                        const std::string& trace, uint64_t seed, uint32_t max_jobs,
                                        const std::string& model) {
  if (max_jobs < 1) throw py::value_error("max_jobs: must be at least 1");
  if (model != "fixed" && model != "contention") throw py::value_error("model: \"" + model + "\" is not one of fixed, contention");
  std::shared_ptr<const RunInput> input;
  {
    py::gil_scoped_release release;
    input = RunInput::Open(InputSpec{.workload_path = workload, .workload_json = workload_json, .trace = trace, .seed = seed});
  }
  return std::make_unique<EnvSession>(std::move(input), EnvOptions{.max_jobs = max_jobs, .model = model});
}

std::unique_ptr<VecSessions> MakeVecSessions(const std::string& workload, const std::string& workload_json,
                                             const std::string& trace, uint64_t seed, uint32_t max_jobs,
                                             const std::string& model, uint32_t n) {
  if (n < 1) throw py::value_error("num_envs: must be at least 1");
  if (max_jobs < 1) throw py::value_error("max_jobs: must be at least 1");
  if (model != "fixed" && model != "contention") throw py::value_error("model: \"" + model + "\" is not one of fixed, contention");
  std::shared_ptr<const RunInput> input;
  {
    py::gil_scoped_release release;
    input = RunInput::Open(InputSpec{.workload_path = workload, .workload_json = workload_json, .trace = trace, .seed = seed});
  }
  auto vec = std::make_unique<VecSessions>();
  for (uint32_t i = 0; i < n; ++i) {
    vec->envs.push_back(std::make_unique<EnvSession>(input, EnvOptions{.max_jobs = max_jobs, .model = model}));
  }
  return vec;
}

// VecStep: actions[i] to every session under way, then, for those whose
// episode ended, a new one with reset_seeds[i]. Returns per session
// (outcome, first outcome of the new episode or None).
py::list VecStep(VecSessions& vec, const std::vector<uint32_t>& actions, const std::vector<uint64_t>& reset_seeds) {
  const size_t n = vec.envs.size();
  if (actions.size() != n || reset_seeds.size() != n) throw py::value_error("step: one action and one seed per environment");
  for (const auto& env : vec.envs) {
    if (!env->running()) throw std::runtime_error("step: no episode under way; call reset() first");
  }
  std::vector<StepOutcome> outs(n);
  std::vector<std::optional<StepOutcome>> restarted(n);
  {
    py::gil_scoped_release release;
    for (size_t i = 0; i < n; ++i) vec.envs[i]->Send(actions[i]);
    for (size_t i = 0; i < n; ++i) outs[i] = vec.envs[i]->Await();
  }
  // The ended episodes' last observations are read before their sessions restart.
  py::list result;
  std::vector<py::tuple> first(n);
  for (size_t i = 0; i < n; ++i) first[i] = Outcome(*vec.envs[i], outs[i]);
  {
    py::gil_scoped_release release;
    for (size_t i = 0; i < n; ++i) {
      if (outs[i].terminated) vec.envs[i]->Begin(reset_seeds[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      if (outs[i].terminated) restarted[i] = vec.envs[i]->Await();
    }
  }
  for (size_t i = 0; i < n; ++i) {
    result.append(py::make_tuple(first[i], restarted[i] ? py::object(Outcome(*vec.envs[i], *restarted[i])) : py::none()));
  }
  return result;
}

py::list VecReset(VecSessions& vec, const std::vector<uint64_t>& seeds) {
  const size_t n = vec.envs.size();
  if (seeds.size() != n) throw py::value_error("reset: one seed per environment");
  std::vector<StepOutcome> outs(n);
  {
    py::gil_scoped_release release;
    for (size_t i = 0; i < n; ++i) vec.envs[i]->Begin(seeds[i]);
    for (size_t i = 0; i < n; ++i) outs[i] = vec.envs[i]->Await();
  }
  py::list result;
  for (size_t i = 0; i < n; ++i) result.append(Outcome(*vec.envs[i], outs[i]));
  return result;
}

}  // namespace

void BindEnv(py::module_& m) {
  m.attr("JOB_FEATURES") = static_cast<int>(kJobFeatures);
  m.attr("CLUSTER_FEATURES") = static_cast<int>(kClusterFeatures);
  py::class_<EnvSession>(m, "_EnvSession")
      .def(py::init(&MakeSession), py::arg("workload"), py::arg("workload_json"), py::arg("trace"), py::arg("seed"),
           py::arg("max_jobs"), py::arg("model"))
      .def("reset",
           [](EnvSession& s, uint64_t seed) {
             StepOutcome out;
             {
               py::gil_scoped_release release;
               out = s.Reset(seed);
             }
             return Outcome(s, out);
           })
      .def("step",
           [](EnvSession& s, uint32_t action) {
             if (!s.running()) throw std::runtime_error("step: no episode under way; call reset() first");
             StepOutcome out;
             {
               py::gil_scoped_release release;
               out = s.Step(action);
             }
             return Outcome(s, out);
           })
      .def("episode_frames",
           [](EnvSession& s) -> py::object {
             RunRecords* r = s.records();
             if (r == nullptr) return py::none();
             py::dict d;
             d["tasks"] = TaskFrame(r->tasks());
             d["jobs"] = JobFrame(r->jobs());
             return d;
           })
      .def("close", [](EnvSession& s) {
        py::gil_scoped_release release;
        s.Close();
      });
  py::class_<VecSessions>(m, "_VecEnvSession")
      .def(py::init(&MakeVecSessions), py::arg("workload"), py::arg("workload_json"), py::arg("trace"), py::arg("seed"),
           py::arg("max_jobs"), py::arg("model"), py::arg("num_envs"))
      .def("reset", &VecReset, py::arg("seeds"))
      .def("step", &VecStep, py::arg("actions"), py::arg("reset_seeds"))
      .def("close", [](VecSessions& v) {
        py::gil_scoped_release release;
        for (auto& env : v.envs) env->Close();
      });
}

}  // namespace weft::python
