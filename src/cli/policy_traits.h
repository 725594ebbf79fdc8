// File: cli/policy_traits.h
//
// The two facts about a policy a reader needs before trusting a comparison:
// whether it sees task durations in advance (its knowledge level) and which
// resources it may reserve beyond a machine's capacity (its over-commitment).
// Shown the same way by `weft compare`, `weft policies NAME` and the report,
// from summary.json's `knowledge` and `overbooked_resources` or from a built
// policy. Pure: no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/resources.h"
#include "nlohmann/json.hpp"

namespace weft::cli {

// Clairvoyance answers "does it see task durations in advance?" from a
// knowledge name (policy/job_view.h): "yes" (clairvoyant), "semi" (a stage's,
// once the stage is released), "no" (non-clairvoyant), "?" for anything else.
std::string Clairvoyance(std::string_view knowledge);

// OverCommits names the resources in `resources` (summary.json's
// overbooked_resources): "none", "all", or a comma-separated list.
std::string OverCommits(const std::vector<std::string>& resources);
std::string OverCommits(ResourceMask mask);

// The two, read from a run's summary.json ("?" where the field is missing).
std::string ClairvoyanceOf(const nlohmann::ordered_json& summary);
std::string OverCommitsOf(const nlohmann::ordered_json& summary);

}  // namespace weft::cli
