// File: policy/registry.h
//
// The table of every policy weft knows, and building one by name with
// `k=v` parameters. Common parameters that every policy accepts (knowledge
// knobs the platform applies) are listed by CommonParams() and accepted
// alongside the policy's own. Thread-safe: the table is immutable.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/job_view.h"
#include "policy/policy.h"

namespace weft::policy {

// AllPolicies lists the registered policies, in registration order.
const std::vector<const PolicyInfo*>& AllPolicies();

// FindPolicy returns the policy called `name`, or nullptr.
const PolicyInfo* FindPolicy(std::string_view name);

// RegisterTestPolicy makes `info` findable by FindPolicy and BuildPolicy in
// this process only; AllPolicies does not list it. For test binaries that
// need a policy weft does not ship (tests/runtime's phase-queue policy runs
// in a test build of weftd). Call before anything looks a policy up (from a
// static initializer): the table is read without a lock.
void RegisterTestPolicy(const PolicyInfo* info);

// CommonParams: parameters every policy accepts (e.g. estimate_noise).
const std::vector<ParamSpec>& CommonParams();
// UnfittedBy: the resources a `fit` value leaves out of placement.
ResourceMask UnfittedBy(std::string_view fit);

struct BuiltPolicy {
  const PolicyInfo* info = nullptr;
  std::unique_ptr<Policy> policy;
  Params params;  // the policy's own and the common ones, with defaults filled in

  // knowledge: what the common parameters estimate_noise and
  // default_duration say the policy may know, for every place that runs a
  // policy (the simulator, the scheduler daemon, a node's agent host); the
  // seed is the caller's to set.
  KnowledgeOptions knowledge() const;
};

// BuildPolicy builds `name` with `assignments` (k=v); InvalidArgument for an
// unknown policy, an unknown key or a bad value.
absl::StatusOr<BuiltPolicy> BuildPolicy(std::string_view name, const std::vector<std::string>& assignments);

}  // namespace weft::policy
