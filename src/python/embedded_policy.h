// File: python/embedded_policy.h
//
// A policy written in Python in a daemon: `weftd scheduler --policy
// py:MODULE:CLASS` (docs/python.md, "In the real daemons"). EmbeddedPython
// starts Debian's Python interpreter inside the process, only when such a
// policy is asked for, imports MODULE from the module search path (PYTHONPATH,
// then Python's own; never the current directory) and registers CLASS under
// the policy name "py:MODULE:CLASS" in the job-order role (python_policy.h).
// The scheduler core then builds and drives it as any registered policy,
// through the same checked Context as in weft.simulate.
//
// CLASS's parameters (--param name=value) are the keyword arguments of
// CLASS(...) whose defaults are a bool, an int or a float; its observation
// has CLASS.max_jobs rows (16 when it has none). An exception its choose()
// raises during a run goes to `on_error` and that decision goes to the first
// candidate in fifo's order (python_policy.h, PolicyErrors).
//
// This header needs no Python: weftd includes it whether or not a Python
// policy is asked for.
//
// Threading: Start on the main thread before any other thread exists; it
// returns with the GIL released, and every call into the policy takes it
// (the scheduler core makes them under its own lock, one at a time). The
// interpreter is finalized when the object is destroyed, on the same thread,
// after every policy object built from it is gone.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace weft::python {

// IsPythonPolicy: `policy` names a class written in Python ("py:...").
bool IsPythonPolicy(std::string_view policy);

class EmbeddedPython {
 public:
  // Start: the interpreter with py:MODULE:CLASS registered. InvalidArgument,
  // in one line, for a malformed name, a module that cannot be imported (or
  // raises while imported), or a CLASS it does not have or that cannot be called.
  static absl::StatusOr<std::unique_ptr<EmbeddedPython>> Start(
      const std::string& policy, std::function<void(const std::string&)> on_error);
  ~EmbeddedPython();
  EmbeddedPython(const EmbeddedPython&) = delete;
  EmbeddedPython& operator=(const EmbeddedPython&) = delete;

 private:
  struct Interpreter;
  explicit EmbeddedPython(std::unique_ptr<Interpreter> interpreter);
  std::unique_ptr<Interpreter> interpreter_;
};

}  // namespace weft::python
