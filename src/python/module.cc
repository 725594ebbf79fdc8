// The `weft._weft` extension module: the engine's entry points for the
// `weft` Python package (python/weft/), which turns what they return into
// pandas DataFrames and dicts. Each function's Python side is documented in
// docs/python.md.
#include "pybind11/pybind11.h"
#include "python/bindings.h"
#include "python/errors.h"

PYBIND11_MODULE(_weft, m) {
  m.doc() = "weft's engine; use the weft package, not this module";
  weft::python::RegisterErrors(m);
  weft::python::BindSimulate(m);
  weft::python::BindCatalog(m);
  weft::python::BindEnv(m);
}
