// _policies, _bounds, _validate and _read_trace: `weft policies`, `weft bounds`,
// `weft validate` and `weft trace convert` for Python.
#include "metrics/lower_bounds.h"
#include "policy/registry.h"
#include "pybind11/stl.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/python_policy.h"
#include "python/run_source.h"
#include "trace/trace_formats.h"
#include "trace/trace_source.h"
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

// JsonDocumentSink: a trace's jobs gathered into one weft JSON document,
// as `weft trace convert` writes them.
class JsonDocumentSink final : public JobSink {
 public:
  absl::Status Cluster(const nlohmann::json& cluster) override {
    doc_["weft"] = 1;
    doc_["cluster"] = cluster;
    doc_["jobs"] = nlohmann::json::array();
    return absl::OkStatus();
  }
  absl::Status Job(const nlohmann::json& job) override {
    doc_["jobs"].push_back(job);
    return absl::OkStatus();
  }
  std::string Text() const { return doc_.dump(); }

 private:
  nlohmann::json doc_;
};

// ReadTraceJson: `weft trace convert`'s document, as text; WorkloadError on bad input.
std::string ReadTraceJson(const std::string& spec_text, double window_start_s, double window_end_s, double sample,
                          uint64_t seed, uint32_t machines, double scale_arrivals) {
  if (!(sample > 0 && sample <= 1)) throw py::value_error("sample: must be in (0, 1]");
  if (!(scale_arrivals > 0)) throw py::value_error("scale_arrivals: must be > 0");
  if (!(window_start_s < window_end_s)) throw py::value_error("window: its start must come before its end");
  py::gil_scoped_release release;
  absl::StatusOr<TraceSpec> spec = ParseTraceSpec(spec_text);
  ThrowWorkloadError(spec.status());
  TraceOptions options;
  options.window_start_s = window_start_s;
  options.window_end_s = window_end_s;
  options.sample = sample;
  options.seed = seed;
  options.machines = machines;
  options.scale_arrivals = scale_arrivals;
  JsonDocumentSink sink;
  TraceReport report;
  ThrowWorkloadError(ReadTrace(*spec, options, sink, report));
  return sink.Text();
}

}  // namespace

void BindCatalog(py::module_& m) {
  m.def("_policies", &Policies);
  m.def("_bounds", &Bounds, py::arg("workload"), py::arg("workload_json"));
  m.def("_validate", &Validate, py::arg("text"));
  m.def(
      "_register_policy",
      [](const std::string& name, const std::string& description, py::object factory, py::dict params,
         uint32_t max_jobs, const std::string& offers) {
        RegisterPythonPolicy(name, description, std::move(factory), std::move(params), max_jobs, OffersNamed(offers));
      },
      py::arg("name"), py::arg("description"), py::arg("factory"), py::arg("params"), py::arg("max_jobs"),
      py::arg("offers"));
  m.def("_python_policies", &PythonPolicies);
  m.def("_read_trace", &ReadTraceJson, py::arg("spec"), py::arg("window_start"), py::arg("window_end"),
        py::arg("sample"), py::arg("seed"), py::arg("machines"), py::arg("scale_arrivals"));
}

}  // namespace weft::python
