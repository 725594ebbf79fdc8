#include "python/errors.h"

#include "core/status.h"

namespace weft::python {

void RegisterErrors(pybind11::module_& m) {
  pybind11::register_exception<WorkloadError>(m, "WorkloadError", PyExc_ValueError);
}

void ThrowWorkloadError(const absl::Status& status) {
  if (!status.ok()) throw WorkloadError(std::string(StatusMessage(status)));
}

void ThrowIfError(const absl::Status& status) {
  if (status.ok()) return;
  const std::string message(StatusMessage(status));
  if (status.code() == absl::StatusCode::kInvalidArgument) throw pybind11::value_error(message);
  throw std::runtime_error(message);
}

}  // namespace weft::python
