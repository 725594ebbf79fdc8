#include "python/embedded_policy.h"

#include <optional>

#include "fmt/format.h"
#include "pybind11/embed.h"
#include "python/python_policy.h"

namespace py = pybind11;

namespace weft::python {

namespace {

constexpr std::string_view kPrefix = "py:";
constexpr uint32_t kDefaultMaxJobs = 16;  // as weft.register_policy's

// ParamsOf: CLASS's keyword arguments with a bool, int or float default, as
// weft.register_policy's params; the others are left to their defaults.
py::dict ParamsOf(const py::object& cls) {
  py::dict params;
  const py::module_ inspect = py::module_::import("inspect");
  py::object signature;
  try {
    signature = inspect.attr("signature")(cls);
  } catch (const py::error_already_set&) {
    return params;  // a callable without a signature Python can read (a builtin): no parameters
  }
  const py::object empty = inspect.attr("Parameter").attr("empty");
  for (const py::handle parameter : signature.attr("parameters").attr("values")()) {
    const py::object value = parameter.attr("default");
    if (value.is(empty)) continue;
    if (py::isinstance<py::bool_>(value) || py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
      params[parameter.attr("name")] = value;
    }
  }
  return params;
}

// DescriptionOf: the first line of CLASS's docstring.
std::string DescriptionOf(const py::object& cls, const std::string& name) {
  const py::object doc = py::getattr(cls, "__doc__", py::none());
  if (!py::isinstance<py::str>(doc)) return fmt::format("{}, written in Python", name);
  std::string text = py::str(doc);
  text.erase(0, text.find_first_not_of(" \n\t"));
  return text.substr(0, text.find('\n'));
}

// ErrorLog: passes a policy's errors on, the 1st, 10th, 100th... with their
// count, so a policy that raises at every decision does not fill the log.
// Called with the GIL held (one call at a time).
class ErrorLog {
 public:
  explicit ErrorLog(std::function<void(const std::string&)> sink) : sink_(std::move(sink)) {}
  void operator()(const std::string& error) {
    if (++count_ < next_) return;
    next_ *= 10;
    sink_(fmt::format("{} (error {} of the run; the decision went to fifo's choice)", error, count_));
  }

 private:
  std::function<void(const std::string&)> sink_;
  uint64_t count_ = 0;
  uint64_t next_ = 1;
};

}  // namespace

bool IsPythonPolicy(std::string_view policy) { return policy.starts_with(kPrefix); }

struct EmbeddedPython::Interpreter {
  // No signal handlers of Python's (weftd's own stop on SIGTERM and SIGINT),
  // and not the current directory on the module search path: a daemon
  // imports only from where PYTHONPATH and Python's own paths say.
  py::scoped_interpreter interpreter{false, 0, nullptr, false};
  std::optional<py::gil_scoped_release> released;  // destroyed first: the GIL is back for finalizing
};

EmbeddedPython::EmbeddedPython(std::unique_ptr<Interpreter> interpreter) : interpreter_(std::move(interpreter)) {}

EmbeddedPython::~EmbeddedPython() = default;

absl::StatusOr<std::unique_ptr<EmbeddedPython>> EmbeddedPython::Start(
    const std::string& policy, std::function<void(const std::string&)> on_error) {
  const std::string_view spec = std::string_view(policy).substr(kPrefix.size());
  const size_t colon = spec.rfind(':');
  if (!IsPythonPolicy(policy) || colon == std::string_view::npos || colon == 0 || colon + 1 == spec.size()) {
    return absl::InvalidArgumentError(
        fmt::format("--policy {}: a Python policy is py:MODULE:CLASS (e.g. py:weft:Fifo)", policy));
  }
  const std::string module_name(spec.substr(0, colon));
  const std::string class_name(spec.substr(colon + 1));
  auto interpreter = std::make_unique<Interpreter>();
  try {
    const py::module_ module = py::module_::import(module_name.c_str());
    if (!py::hasattr(module, class_name.c_str())) {
      return absl::InvalidArgumentError(
          fmt::format("--policy {}: module {} has no {}", policy, module_name, class_name));
    }
    const py::object cls = module.attr(class_name.c_str());
    if (!PyCallable_Check(cls.ptr())) {
      return absl::InvalidArgumentError(fmt::format("--policy {}: {} cannot be called", policy, class_name));
    }
    const py::object rows = py::getattr(cls, "max_jobs", py::int_(kDefaultMaxJobs));
    const uint32_t max_jobs = py::isinstance<py::int_>(rows) ? rows.cast<uint32_t>() : 0;
    const std::string offers = py::str(py::getattr(cls, "offers", py::str("first-fit")));
    RegisterPythonPolicy(policy, DescriptionOf(cls, class_name), cls, ParamsOf(cls), max_jobs, OffersNamed(offers),
                         fmt::format("Python ({} from PYTHONPATH)", module_name), ErrorLog(std::move(on_error)));
  } catch (const std::exception& e) {  // py::error_already_set included: an ImportError, a module that raised
    return absl::InvalidArgumentError(fmt::format("--policy {}: {}", policy, OneLine(e.what())));
  }
  interpreter->released.emplace();
  return std::unique_ptr<EmbeddedPython>(new EmbeddedPython(std::move(interpreter)));
}

}  // namespace weft::python
