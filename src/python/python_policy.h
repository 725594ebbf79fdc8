// File: python/python_policy.h
//
// Policies written in Python (weft.register_policy), in the job-order role
// (job_order_policy.h): the Python object's choose(observation) picks the
// job served at each decision point, called in place on the engine's thread
// (taking the GIL for the call), and every launch it leads to is the C++
// scheduler's, through the same checked Context as any policy's: the engine's
// DecisionChecker and the schedule checker see no difference, so a Python
// policy cannot break a schedule. Registered policies are found by name by
// policy::BuildPolicy, so weft.simulate and weft.compare run them as they
// run C++ ones.
// The registry is changed only with the GIL held (from Python).
#pragma once

#include <string>

#include "pybind11/pybind11.h"

namespace weft::python {

// RegisterPythonPolicy: `factory(**params)` makes the policy object for
// each run. params: {name: default} (bool, int or float), checked as a C++
// policy's are. Registering a name again replaces its factory. Throws
// ValueError for the name of a C++ policy.
void RegisterPythonPolicy(const std::string& name, const std::string& description, pybind11::object factory,
                          pybind11::dict params, uint32_t max_jobs);

// PythonPolicies: the registered ones, as weft.policies() lists policies.
pybind11::list PythonPolicies();

// TakePythonPolicyError: the error a Python policy raised on this thread's
// last run ("" when none), cleared; the run then stopped deciding and failed.
std::string TakePythonPolicyError();

}  // namespace weft::python
