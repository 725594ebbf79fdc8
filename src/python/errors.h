// File: python/errors.h
//
// How a C++ Status becomes a Python exception in the module: bad workload
// input raises weft.WorkloadError (a ValueError whose message names the file
// and field, as the command line's one stderr line does), other bad input
// ValueError, anything else RuntimeError. The exception classes are made by
// RegisterErrors when the module loads.
#pragma once

#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "pybind11/pybind11.h"

namespace weft::python {

// WorkloadError: thrown in C++, raised in Python as weft.WorkloadError.
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void RegisterErrors(pybind11::module_& m);

// ThrowWorkloadError throws WorkloadError for a non-ok status (reading a
// workload or trace), ThrowIfError ValueError (InvalidArgument) or
// RuntimeError (anything else).
void ThrowWorkloadError(const absl::Status& status);
void ThrowIfError(const absl::Status& status);

}  // namespace weft::python
