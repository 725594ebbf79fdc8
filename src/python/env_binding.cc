// _EnvSession: the engine of weft.env.SchedulingEnv (python/weft/env.py).
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
}

}  // namespace weft::python
