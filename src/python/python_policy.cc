#include "python/python_policy.h"

#include <algorithm>
#include <deque>
#include <memory>

#include "fmt/format.h"
#include "policy/registry.h"
#include "python/frames.h"
#include "python/job_order_policy.h"

namespace py = pybind11;

namespace weft::python {
namespace {

thread_local std::string python_policy_error;

// PythonAgent calls the policy object's choose() for each decision.
class PythonAgent final : public JobOrderAgent {
 public:
  PythonAgent(std::string name, py::object policy, PolicyErrors on_error)
      : name_(std::move(name)), policy_(std::move(policy)), on_error_(std::move(on_error)) {}
  ~PythonAgent() override {
    py::gil_scoped_acquire gil;  // the engine's thread may hold no GIL when the run's policy goes
    policy_ = py::object();
  }

  std::optional<uint32_t> Choose(const JobOrderObservation& observation) override {
    py::gil_scoped_acquire gil;
    try {
      const py::object action = policy_.attr("choose")(ObservationToPython(observation));
      const long long row = py::int_(action).cast<long long>();
      if (row < 0) throw py::value_error(fmt::format("choose returned {}: a row must be >= 0", row));
      return static_cast<uint32_t>(row);
    } catch (const std::exception& e) {  // py::error_already_set included
      std::string error = fmt::format("policy {}: {}", name_, OneLine(e.what()));
      if (on_error_) {
        on_error_(error);
        return 0;  // fifo's choice for this decision; the policy is asked again at the next
      }
      python_policy_error = std::move(error);
      return std::nullopt;  // decide nothing more: the run ends with its jobs unfinished
    }
  }

 private:
  std::string name_;
  py::object policy_;
  PolicyErrors on_error_;
};

// The policy a run builds: the job-order scheduler with a Python agent.
class PythonJobOrderPolicy final : public policy::Policy {
 public:
  PythonJobOrderPolicy(std::string name, py::object object, uint32_t max_jobs, Offers offers, PolicyErrors on_error)
      : agent_(std::move(name), std::move(object), std::move(on_error)),
        observation_(max_jobs, offers),
        inner_(agent_, observation_, offers) {}
  policy::Knowledge knowledge() const override { return inner_.knowledge(); }
  std::unique_ptr<policy::ClusterScheduler> MakeScheduler(policy::Context& ctx, uint32_t replica) override {
    return inner_.MakeScheduler(ctx, replica);
  }

 private:
  PythonAgent agent_;
  JobOrderObservation observation_;
  JobOrderPolicy inner_;
};

struct Entry {
  policy::PolicyInfo info;
  // Never freed: the registry lives until the process ends, past Python's
  // finalization, when freeing a Python object would crash.
  py::object* factory = nullptr;
  uint32_t max_jobs = 16;
  Offers offers = Offers::kFirstFit;
  PolicyErrors on_error;
};

// Entries by name; a deque keeps each PolicyInfo where the registry points.
std::deque<Entry>& Entries() {
  static auto* entries = new std::deque<Entry>();
  return *entries;
}

Entry* FindEntry(const std::string& name) {
  for (Entry& e : Entries()) {
    if (e.info.name == name) return &e;
  }
  return nullptr;
}

policy::ParamSpec SpecOf(const std::string& name, const py::handle& value) {
  policy::ParamSpec spec{.name = name, .help = "a parameter of the Python policy"};
  if (py::isinstance<py::bool_>(value)) {
    spec.type = policy::ParamType::kBool;
    spec.default_value = value.cast<bool>() ? "true" : "false";
  } else if (py::isinstance<py::int_>(value)) {
    spec.type = policy::ParamType::kInt;
    spec.default_value = std::to_string(value.cast<long long>());
  } else if (py::isinstance<py::float_>(value)) {
    spec.type = policy::ParamType::kDouble;
    spec.default_value = fmt::format("{}", value.cast<double>());
  } else {
    throw py::value_error(fmt::format("params: {}: the default must be a bool, int or float", name));
  }
  return spec;
}

}  // namespace

void RegisterPythonPolicy(const std::string& name, const std::string& description, py::object factory,
                          py::dict params, uint32_t max_jobs, Offers offers, const std::string& source,
                          PolicyErrors on_error) {
  if (name.empty()) throw py::value_error("register_policy: the name is empty");
  if (max_jobs < 1) throw py::value_error("register_policy: max_jobs must be at least 1");
  Entry* entry = FindEntry(name);
  if (entry == nullptr && policy::FindPolicy(name) != nullptr) {
    throw py::value_error(fmt::format("register_policy: \"{}\" is a built-in policy's name", name));
  }
  std::vector<policy::ParamSpec> specs;
  for (const auto& [key, value] : params) specs.push_back(SpecOf(py::str(key), value));
  const bool is_new = entry == nullptr;
  if (is_new) entry = &Entries().emplace_back();
  entry->factory = new py::object(std::move(factory));  // an older one is leaked, as above
  entry->max_jobs = max_jobs;
  entry->offers = offers;
  entry->on_error = std::move(on_error);
  entry->info.name = name;
  entry->info.description = description.empty() ? "a job-order policy written in Python" : description;
  entry->info.source = source;
  entry->info.params = specs;
  entry->info.make = [entry](const policy::Params& values) -> absl::StatusOr<std::unique_ptr<policy::Policy>> {
    py::gil_scoped_acquire gil;
    py::dict kwargs;
    for (const policy::ParamSpec& spec : entry->info.params) {
      const py::str key(spec.name);
      switch (spec.type) {
        case policy::ParamType::kBool: kwargs[key] = values.Bool(spec.name); break;
        case policy::ParamType::kInt: kwargs[key] = values.Int(spec.name); break;
        default: kwargs[key] = values.Double(spec.name); break;
      }
    }
    try {
      py::object object = (*entry->factory)(**kwargs);
      return std::unique_ptr<policy::Policy>(
          std::make_unique<PythonJobOrderPolicy>(entry->info.name, std::move(object), entry->max_jobs, entry->offers, entry->on_error));
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError(OneLine(e.what()));  // BuildPolicy names the policy
    }
  };
  if (is_new) policy::RegisterTestPolicy(&entry->info);
}

py::list PythonPolicies() {
  py::list out;
  for (const Entry& e : Entries()) {
    py::dict d;
    d["name"] = e.info.name;
    d["description"] = e.info.description;
    d["source"] = e.info.source;
    py::list params;
    for (const policy::ParamSpec& p : e.info.params) {
      py::dict pd;
      pd["name"] = p.name;
      pd["type"] = p.TypeName();
      pd["default"] = p.default_value;
      pd["help"] = p.help;
      params.append(pd);
    }
    d["params"] = params;
    out.append(d);
  }
  return out;
}

Offers OffersNamed(const std::string& name) {
  if (name == "first-fit") return Offers::kFirstFit;
  if (name == "per-machine") return Offers::kPerMachine;
  throw py::value_error(fmt::format("offers: \"{}\" is neither \"first-fit\" nor \"per-machine\"", name));
}

std::string OneLine(std::string_view error) {
  const size_t end = error.find('\n');
  std::string line(error.substr(0, end));
  const size_t at = error.find("\nAt:\n");
  if (at == std::string_view::npos) return line;
  std::string_view frame = error.substr(at + 5);
  frame = frame.substr(0, frame.find('\n'));
  frame.remove_prefix(std::min(frame.find_first_not_of(' '), frame.size()));
  return frame.empty() ? line : fmt::format("{} (at {})", line, frame);
}

std::string TakePythonPolicyError() { return std::exchange(python_policy_error, std::string()); }

}  // namespace weft::python
