// _policies, _bounds and _validate: `weft policies`, `weft bounds` and
// `weft validate` for Python.
#include "metrics/lower_bounds.h"
#include "policy/registry.h"
#include "pybind11/stl.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/python_policy.h"
#include "python/run_source.h"
#include "trace/workload_reader.h"

namespace py = pybind11;

namespace weft::python {
namespace {

py::dict ParamToPython(const policy::ParamSpec& p) {
  py::dict d;
  d["name"] = p.name;
  d["type"] = p.TypeName();
  d["default"] = p.default_value;
  d["help"] = p.help;
  if (p.type == policy::ParamType::kInt || p.type == policy::ParamType::kDouble) {
    d["min"] = p.min;
    d["max"] = p.max;
  }
  if (!p.choices.empty()) d["choices"] = p.choices;
  return d;
}

py::list Policies() {
  py::list out;
  for (const policy::PolicyInfo* info : policy::AllPolicies()) {
    py::dict d;
    d["name"] = info->name;
    d["description"] = info->description;
    d["source"] = info->source;
    py::list params;
    for (const policy::ParamSpec& p : info->params) params.append(ParamToPython(p));
    d["params"] = params;
    out.append(d);
  }
  return out;
}

// As `weft bounds` (cli/bounds_command.cc): one row per job in file order.
py::dict Bounds(const std::string& workload, const std::string& workload_json) {
  std::unique_ptr<RunInput> input = RunInput::Open(InputSpec{.workload_path = workload, .workload_json = workload_json});
  const Workload& w = input->workload();
  const BoundCapacity cap = BoundCapacity::Of(w.cluster);
  std::vector<std::string> names;
  std::vector<double> cplen, twork, modcp, newlb;
  for (const Job& job : w.jobs) {
    const JobBounds b = ComputeJobBounds(job, cap);
    names.push_back(job.name);
    cplen.push_back(UsToSeconds(b.cplen_us));
    twork.push_back(UsToSeconds(b.twork_us));
    modcp.push_back(UsToSeconds(b.modcp_us));
    newlb.push_back(UsToSeconds(b.newlb_us));
  }
  py::dict d;
  d["job"] = names;
  d["cplen"] = cplen;
  d["twork"] = twork;
  d["modcp"] = modcp;
  d["newlb"] = newlb;
  return d;
}

// Validate: `text` read by the workload reader; WorkloadError with its message if bad.
void Validate(const std::string& text) {
  py::gil_scoped_release release;
  ThrowWorkloadError(ParseWorkload(text).status());
}

}  // namespace

void BindCatalog(py::module_& m) {
  m.def("_policies", &Policies);
  m.def("_bounds", &Bounds, py::arg("workload"), py::arg("workload_json"));
  m.def("_validate", &Validate, py::arg("text"));
  m.def("_register_policy", &RegisterPythonPolicy, py::arg("name"), py::arg("description"), py::arg("factory"),
        py::arg("params"), py::arg("max_jobs"));
  m.def("_python_policies", &PythonPolicies);
}

}  // namespace weft::python
