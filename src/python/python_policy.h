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
// The registry is changed only with the GIL held (from Python, or from the
// daemon embedding the interpreter before it starts: embedded_policy.h).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "pybind11/pybind11.h"
#include "python/job_order_policy.h"

namespace weft::python {

// PolicyErrors: what an exception raised by the policy's choose() does.
// Empty (weft.simulate): the run stops deciding and fails with the error
// (TakePythonPolicyError). Set (a daemon, which must keep serving): the
// error is given to it, and the decision goes to the first candidate in
// fifo's order, as if the policy had chosen row 0; the next decision asks
// the policy again.
using PolicyErrors = std::function<void(const std::string& error)>;

// RegisterPythonPolicy: `factory(**params)` makes the policy object for
// each run. params: {name: default} (bool, int or float), checked as a C++
// policy's are. Registering a name again replaces its factory. Throws
// ValueError for the name of a C++ policy. `offers`: how the chosen job is
// served (job_order_policy.h). `source` is what weft.policies() says it
// comes from; `on_error` as PolicyErrors says.
void RegisterPythonPolicy(const std::string& name, const std::string& description, pybind11::object factory,
                          pybind11::dict params, uint32_t max_jobs, Offers offers = Offers::kFirstFit,
                          const std::string& source = "Python (weft.register_policy)", PolicyErrors on_error = {});

// OffersNamed: "first-fit" or "per-machine" (a policy class's `offers`);
// ValueError for anything else.
Offers OffersNamed(const std::string& name);

// OneLine: a Python error's text in one line: its first line (type and
// message), then where it was raised, which pybind11 gives on the lines
// after "At:" (innermost frame first).
std::string OneLine(std::string_view error);

// PythonPolicies: the registered ones, as weft.policies() lists policies.
pybind11::list PythonPolicies();

// TakePythonPolicyError: the error a Python policy raised on this thread's
// last run ("" when none), cleared; the run then stopped deciding and failed.
std::string TakePythonPolicyError();

}  // namespace weft::python
