// File: python/bindings.h
//
// The parts of the extension module, each in a file of its own:
// BindSimulate (simulate_binding.cc: _simulate, _compare), BindCatalog
// (catalog_binding.cc: _policies, _bounds, _validate), BindEnv
// (env_binding.cc: the scheduling environment's engine).
#pragma once

#include "pybind11/pybind11.h"

namespace weft::python {

void BindSimulate(pybind11::module_& m);
void BindCatalog(pybind11::module_& m);
void BindEnv(pybind11::module_& m);

}  // namespace weft::python
